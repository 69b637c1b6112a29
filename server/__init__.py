"""The authoritative asyncio websocket server: lobby, one task per game, seats and tokens.

:class:`server.app.HexhavenServer` serves the protocol of :mod:`protocol`; each game is a
:class:`server.room.GameRoom`, fed by a queue, whose own methods alone change the game's
state.
"""

from server.app import HexhavenServer

__all__ = ["HexhavenServer"]
