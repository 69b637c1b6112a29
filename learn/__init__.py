"""Learning environments over the game: PettingZoo (every seat an agent), Gymnasium (one
learning seat against opponents), many games stepped in one call, and a vector
environment over them (``docs/learning.md``).

Needs the ``learn`` extra (``pip install '.[learn]'``: numpy, gymnasium, pettingzoo).
``import hexhaven`` registers the Gymnasium environments (``hexhaven/Hexhaven-v0``...).
"""
