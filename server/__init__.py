"""The authoritative asyncio websocket server: lobby, one task per game, seats and tokens.

:class:`server.app.HexhavenServer` serves the protocol of :mod:`protocol`; each game is a
:class:`server.room.GameRoom` whose task alone touches the game's state.
"""

from server.app import HexhavenServer

__all__ = ["HexhavenServer"]
