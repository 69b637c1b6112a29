"""The learned value network: its self-play data and training (the ``train`` extra)."""
