"""New games: ``create_game`` checked, under the caps, its board made, stored and opened.

A game's options are checked (its bot seats: kinds and strengths this server has; then the
engine's configuration), and the game is refused past any cap on open games and bot seats
(:class:`~server.limits.ServerLimits`: server-wide, per connection, per address; games
whose board is being made count, and so do stand-in bots). A board that is quick to make is
made at once; a balanced or fair one, or a random one of a larger island, is made off the
event loop, a few at once (``boards_at_once``), each spending the connection's ``boards``
budget. The game then gets its id (and an invite code, if private), is stored (with its
lease and lobby entry on PostgreSQL) and opened; its creator hears ``game_created`` once it
is stored.
"""

from __future__ import annotations

import asyncio
import secrets
from typing import TYPE_CHECKING

import structlog

import engine
from engine.constants import STANDARD_RADIUS
from protocol import messages as m
from protocol.messages import ErrorCode
from protocol.options import game_config, with_board
from server.connection import Connection
from server.room import GameRoom

if TYPE_CHECKING:
    from server.app import HexhavenServer

__all__ = ["INVITE_LENGTH", "GameMaker"]

_ID_LETTERS = "abcdefghijkmnopqrstuvwxyzABCDEFGHJKLMNPQRSTUVWXYZ23456789"
"""Game ids: letters and digits (no look-alikes), safe on any command line."""
_INVITE_LETTERS = "ABCDEFGHJKMNPQRSTUVWXYZ23456789"
INVITE_LENGTH = 10
"""Invite codes: 10 of 31 letters and digits (about 2^49 codes), each join attempt spending
a budget, so guessing one is hopeless."""


def _bot_problem(bots: list[m.BotSeat]) -> str | None:
    """Why these bot seats cannot be filled, or None."""
    for bot in bots:
        strengths = m.BOT_KINDS.get(bot.kind)
        if strengths is None:
            return f"unknown bot kind {bot.kind!r}; this server has {', '.join(m.BOT_KINDS)}"
        if bot.strength is not None and bot.strength not in strengths:
            offered = ", ".join(strengths) if strengths else "none"
            return f"bot kind {bot.kind!r} has no strength {bot.strength!r} (offered: {offered})"
    return None


class GameMaker:
    """Makes ``server``'s new games."""

    def __init__(self, server: HexhavenServer) -> None:
        self._log = structlog.get_logger("hexhaven.server")
        """The server's log (a logger of each instance: configured when first used)."""
        self._server = server
        self._making: dict[str, tuple[str, str, int]] = {}
        """Games whose board is being made: (connection id, address, bot seats)."""
        self._boards = asyncio.Semaphore(max(1, server.limits.boards_at_once))
        """Boards made at once; the rest wait their turn (counted as games meanwhile)."""

    def create(self, conn: Connection, options: m.GameOptions) -> None:
        """Create a game for ``conn`` (its ``create_game``), at once when its board is quick
        to make, else once a task has made it off the event loop (a balanced or fair board,
        or a random one of a larger island, whose draw needs counts built once per radius).
        A refusal is sent to ``conn``."""
        problem = _bot_problem(options.bots)
        if problem is not None:
            conn.send(m.Error(code=ErrorCode.BAD_OPTIONS, message=problem))
            return
        refusal = self._over_cap(conn, options)
        if refusal is not None:
            conn.send(refusal)
            return
        seed = secrets.randbits(63)
        if options.board in ("balanced", "fair") or (
            options.board == "random" and options.radius > STANDARD_RADIUS
        ):
            refusal = conn.charge("boards")
            if refusal is not None:
                conn.send(refusal)
                return
            making = secrets.token_hex(8)
            self._making[making] = (conn.id, conn.address, len(options.bots))
            self._server.tasks.start(self._create_later(conn, options, seed, making), "board")
            return
        try:
            options = with_board(options, seed)
        except engine.ConfigError as exc:
            conn.send(m.Error(code=ErrorCode.BAD_OPTIONS, message=str(exc)))
            return
        self._open(conn, options, seed)

    async def _create_later(
        self, conn: Connection, options: m.GameOptions, seed: int, making: str
    ) -> None:
        try:
            async with self._boards:  # a few at once: each search holds memory while it runs
                options = await asyncio.to_thread(with_board, options, seed)
        except engine.ConfigError as exc:
            conn.send(m.Error(code=ErrorCode.BAD_OPTIONS, message=str(exc)))
            return
        finally:
            self._making.pop(making, None)
        self._open(conn, options, seed)

    def _over_cap(self, conn: Connection, options: m.GameOptions) -> m.Error | None:
        """The refusal of a new game past one of the caps on open games and bot seats
        (server-wide, per connection, per address), or None. Games being made count, and so
        do stand-in bots."""
        limits = self._server.limits
        games = self._server.games.open_games()
        games.extend((cid, address, False, bots) for cid, address, bots in self._making.values())
        mine = [g for g in games if g[0] == conn.id]
        here = [g for g in games if conn.address and g[1] == conn.address]
        bots = len(options.bots)
        checks = (
            ("games", len(self._server.rooms) + len(self._making), limits.games, "games open"),
            (
                "unstarted_per_connection",
                sum(not g[2] for g in mine),
                limits.unstarted_per_connection,
                "games not started from this connection",
            ),
            (
                "unstarted_per_address",
                sum(not g[2] for g in here),
                limits.unstarted_per_address,
                "games not started from this address",
            ),
            ("games_per_address", len(here), limits.games_per_address, "games from this address"),
            ("bot_seats", sum(g[3] for g in games) + bots - 1, limits.bot_seats, "bot seats"),
            (
                "bot_seats_per_connection",
                sum(g[3] for g in mine) + bots - 1,
                limits.bot_seats_per_connection,
                "bot seats in games from this connection",
            ),
            (
                "bot_seats_per_address",
                sum(g[3] for g in here) + bots - 1,
                limits.bot_seats_per_address,
                "bot seats in games from this address",
            ),
        )
        for name, count, cap, what in checks:
            if count >= cap and (bots or not name.startswith("bot_seats")):
                return m.Error(
                    code=ErrorCode.LIMIT_REACHED,
                    message=f"the server allows at most {cap} {what} (limit {name}); "
                    "start or leave one first, or try later",
                    detail=name,
                )
        return None

    def _open(self, conn: Connection, options: m.GameOptions, seed: int) -> None:
        """Store and open a game whose options are complete (its board made)."""
        try:
            game_config(options)
        except engine.ConfigError as exc:
            conn.send(m.Error(code=ErrorCode.BAD_OPTIONS, message=str(exc)))
            return
        game_id = "".join(secrets.choice(_ID_LETTERS) for _ in range(10))
        refusal = self._over_cap(conn, options)  # others may have opened games meanwhile
        if refusal is not None:
            conn.send(refusal)
            return
        invite = None
        if options.private:
            invite = "".join(secrets.choice(_INVITE_LETTERS) for _ in range(INVITE_LENGTH))
        server = self._server
        room = GameRoom(game_id, options, seed, conn, server.store, invite, clock=server.clock)
        # Stored first (with its lease, on PostgreSQL); `game_created` once it is.
        if server.store.postgres:
            lease = server.leases.new_game(game_id)
            if invite is None:  # listed in every process's lobby once stored
                room.open(conn, lease, then=[server.lobby.listed(room)])
            else:
                room.open(conn, lease)
        else:
            room.open(conn)
        server.games.add(room, creator=conn)
        self._log.info("game.created", game=game_id, players=options.players)
