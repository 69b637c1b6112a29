"""What people run: the ``hexhaven`` command, and later the terminal UI and the SDK."""
