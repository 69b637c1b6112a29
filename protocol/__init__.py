"""The wire between server and players: typed messages and their codec (sans-I/O).

Arrives with the protocol and server issue; the engine's actions, events and views are
what it will carry.
"""
