"""The ``expert`` bot: a learned value network, searched."""
