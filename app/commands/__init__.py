"""The ``hexhaven`` subcommands. Each module's ``register(sub)`` adds its commands to the
parser (``sub`` is what ``ArgumentParser.add_subparsers`` returns) and sets each one's
``run`` to a function of the parsed arguments that returns the exit code. Modules import
only what parsing needs; the work is imported when a command runs."""
