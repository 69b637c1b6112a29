"""The websocket server: connections, the lobby, and the rooms' tasks.

Each connection has a reader (this module's handler) and a writer task, over a
:class:`~protocol.server_session.ServerSession` that holds the connection's rules (hello
first, version, frame size, rate, decoding, ping) and answers what breaks them; this module
only moves frames and routes the session's requests. Messages for a game go to that game's
room through its queue, so only the room's task touches its state.
"""

from __future__ import annotations

import asyncio
import contextlib
import secrets
import sys
import time
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from typing import Any

import structlog
from websockets.asyncio.server import Server, ServerConnection, serve
from websockets.exceptions import ConnectionClosed

import engine
from protocol import SUBPROTOCOLS
from protocol import messages as m
from protocol.messages import ErrorCode
from protocol.options import game_config, seed_hash, with_board
from protocol.payloads import WireModel
from protocol.server_session import (
    BURST,
    MAX_FRAME,
    RATE,
    Answer,
    ForGame,
    GameMessage,
    JoinByInvite,
    Request,
    ServerSession,
    frame_bytes,
)
from server.room import SERVER_PEER, Disconnected, GameRoom, ProcessExited
from server.store import Store, game_record, is_played_out

__all__ = [
    "BURST",
    "MAX_FRAME",
    "OUTBOX",
    "RATE",
    "SERVER_NAME",
    "Connection",
    "HexhavenServer",
    "bot_command",
    "frame_bytes",
]

SERVER_NAME = "hexhaven 0.1.0"
_ID_LETTERS = "abcdefghijkmnopqrstuvwxyzABCDEFGHJKLMNPQRSTUVWXYZ23456789"
"""Game ids: letters and digits (no look-alikes), safe on any command line."""
OUTBOX = 1000
"""A connection that falls this many messages behind is closed as too slow."""


_CLOSE: Any = object()
"""Queued on a connection's outbox to close it after what came before."""


@dataclass(eq=False)
class Connection:
    """One client connection: its socket, its session and its outgoing queue."""

    ws: ServerConnection
    session: ServerSession
    id: str = field(default_factory=lambda: secrets.token_hex(8))
    outbox: asyncio.Queue[WireModel] = field(default_factory=lambda: asyncio.Queue(OUTBOX))
    rooms: set[str] = field(default_factory=set)
    closing: bool = False

    @property
    def wants_views(self) -> bool:
        """Whether prompts to this connection carry the seat's view (its hello asked)."""
        return self.session.views

    @wants_views.setter
    def wants_views(self, value: bool) -> None:
        self.session.views = value

    def close(self) -> None:
        """Close once what is queued has been sent."""
        self.closing = True
        with contextlib.suppress(asyncio.QueueFull):
            self.outbox.put_nowait(_CLOSE)

    def send(self, message: WireModel) -> None:
        if self.closing:
            return
        try:
            self.outbox.put_nowait(message)
        except asyncio.QueueFull:
            # Too slow to keep up: close it rather than let the queue grow without bound.
            self.ws.transport.close()

    async def drain(self) -> None:
        """Wait while the outbox is over half full: a client that sends faster than it
        reads is not read until it catches up (backpressure, not a closed connection)."""
        while self.outbox.qsize() > OUTBOX // 2 and not self.closing:
            await asyncio.sleep(0.005)

    async def write(self) -> None:
        while True:
            message = await self.outbox.get()
            if message is _CLOSE:
                await self.ws.close(1000, "the seat's owner is back")
                return
            await self.ws.send(self.session.encode(message))


def bot_command(url: str, game: str, token: str, kind: str, name: str) -> list[str]:
    """The command line of a bot process (``kind`` may be ``kind:strength``). Values go as
    ``--opt=value`` so a token or name that starts with a dash is not taken for an option."""
    kind, _, strength = kind.partition(":")
    return [
        sys.executable,
        "-m",
        "app.cli",
        "bot",
        f"--url={url}",
        f"--game={game}",
        f"--token={token}",
        f"--kind={kind}",
        f"--name={name}",
        *([f"--strength={strength}"] if strength else []),
    ]


def _message_type(request: Request) -> str:
    """The ``type`` of the client message a request came from (for the log)."""
    match request:
        case JoinByInvite() | ForGame():
            return request.message.type
        case _:
            return request.type


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


class HexhavenServer:
    """The lobby and its games. Use :meth:`running` to serve on a host and port."""

    def __init__(
        self,
        store: Store | None = None,
        away_grace: float = 30.0,
        idle_timeout: float = 6 * 3600.0,
    ) -> None:
        self.store = store if store is not None else Store()
        self.away_grace = away_grace
        """Seconds a seat may stay disconnected before the server plays it."""
        self.idle_timeout = idle_timeout
        """Seconds a game with nobody connected may sit untouched before it is closed."""
        self._rooms_tasks: dict[str, asyncio.Task[None]] = {}
        self.rooms: dict[str, GameRoom] = {}
        self.invites: dict[str, str] = {}
        self._tasks: set[asyncio.Task[None]] = set()
        self.log = structlog.get_logger("hexhaven.server")
        self.url = ""

    @contextlib.asynccontextmanager
    async def running(self, host: str = "127.0.0.1", port: int = 0) -> AsyncIterator[Server]:
        """Serve until the block exits; then close connections (1001) and stop every room.
        Unfinished games in the store are resumed first."""
        for stored in self.store.unfinished():
            room = GameRoom.restore(stored, self.store)
            room.away_grace = self.away_grace
            room.launcher = self._launch_bot
            self._add_room(room)
        async with serve(
            self.handle,
            host,
            port,
            subprotocols=list(SUBPROTOCOLS),  # type: ignore[arg-type]
            max_size=MAX_FRAME * 16,
            ping_interval=20,
        ) as ws_server:
            self.url = f"ws://{host}:{self.port_of(ws_server)}"
            self.log.info("server.listening", url=self.url)
            for room in self.rooms.values():
                room.launch_bots()  # bots of games resumed from the store
            reaper = asyncio.create_task(self._reap_idle(), name="reaper")
            self._tasks.add(reaper)
            reaper.add_done_callback(self._tasks.discard)
            try:
                yield ws_server
            finally:
                ws_server.close(close_connections=True)
                await ws_server.wait_closed()
                await self._stop_rooms()
                self.log.info("server.stopped")

    @staticmethod
    def port_of(ws_server: Server) -> int:
        port: int = next(iter(ws_server.sockets)).getsockname()[1]
        return port

    async def _stop_rooms(self) -> None:
        for task in self._tasks:
            task.cancel()
        await asyncio.gather(*self._tasks, return_exceptions=True)
        self._tasks.clear()

    # --- one connection ---------------------------------------------------------------------
    async def handle(self, ws: ServerConnection) -> None:
        session = ServerSession(ws.subprotocol, clock=time.monotonic, server_name=SERVER_NAME)
        conn = Connection(ws=ws, session=session)
        log = self.log.bind(conn=conn.id)
        log.info("conn.open", subprotocol=ws.subprotocol)
        writer = asyncio.create_task(conn.write())
        try:
            async for frame in ws:
                self._receive(conn, frame)
                await conn.drain()
        except ConnectionClosed:
            pass
        finally:
            for game_id in conn.rooms:
                room = self.rooms.get(game_id)
                if room is not None:
                    room.submit(conn, Disconnected())
            writer.cancel()
            with contextlib.suppress(asyncio.CancelledError, ConnectionClosed):
                await writer
            log.info("conn.closed")

    def _receive(self, conn: Connection, frame: str | bytes) -> None:
        received = conn.session.receive(frame)
        if isinstance(received, Answer):
            conn.send(received.message)
            return
        try:
            self._dispatch(conn, received)
        except Exception:
            self.log.exception("conn.failure", conn=conn.id, message_type=_message_type(received))
            conn.send(m.Error(code=ErrorCode.INTERNAL, message="the server failed on that message"))

    def _dispatch(self, conn: Connection, request: Request) -> None:
        match request:
            case m.ListGames():
                games = [r.summary() for r in self.rooms.values() if r.invite is None]
                conn.send(m.GameList(games=games))
            case m.CreateGame():
                self._create(conn, request.options)
            case m.GetRecord():
                self._record(conn, request.game)
            case JoinByInvite():
                game_id = self.invites.get(request.invite)
                if game_id is None:
                    conn.send(
                        m.Error(code=ErrorCode.UNKNOWN_GAME, message="no game has that invite code")
                    )
                else:
                    self._to_room(conn, game_id, request.message)
            case ForGame():
                self._to_room(conn, request.game, request.message)

    def _not_open(self, game_id: str) -> m.Error:
        """Why no room holds ``game_id``: never made, or closed (its ``detail``: ``over``,
        played out, or ``unfinished``, left)."""
        stored = self.store.load(game_id)
        if stored is None:
            return m.Error(
                code=ErrorCode.UNKNOWN_GAME, message=f"there is no game {game_id!r}", game=game_id
            )
        if is_played_out(stored):
            return m.Error(
                code=ErrorCode.UNKNOWN_GAME,
                message=f"game {game_id!r} is over and closed; its record is public (get_record)",
                detail="over",
                game=game_id,
            )
        return m.Error(
            code=ErrorCode.UNKNOWN_GAME,
            message=f"game {game_id!r} was closed unfinished, after everyone had left it",
            detail="unfinished",
            game=game_id,
        )

    def _record(self, conn: Connection, game_id: str) -> None:
        """Send a finished game's record; a game still played (or abandoned) is refused
        without a word of it."""
        stored = self.store.load(game_id)
        if stored is None:
            conn.send(
                m.Error(
                    code=ErrorCode.UNKNOWN_GAME,
                    message=f"there is no game {game_id!r}",
                    game=game_id,
                )
            )
        elif not is_played_out(stored):
            conn.send(
                m.Error(
                    code=ErrorCode.GAME_NOT_OVER,
                    message=f"game {game_id!r} is not over; its record is public once it ends",
                    game=game_id,
                )
            )
        else:
            conn.send(game_record(stored))

    def _to_room(self, conn: Connection, game_id: str, message: GameMessage) -> None:
        room = self.rooms.get(game_id)
        if room is None:
            conn.send(self._not_open(game_id))
            return
        conn.rooms.add(game_id)
        room.submit(conn, message)

    def _create(self, conn: Connection, options: m.GameOptions) -> None:
        """Create a game, at once when its board is quick to make, else once a task has made
        it off the event loop (a balanced or fair board)."""
        problem = _bot_problem(options.bots)
        if problem is not None:
            conn.send(m.Error(code=ErrorCode.BAD_OPTIONS, message=problem))
            return
        seed = secrets.randbits(63)
        if options.board in ("balanced", "fair"):
            task = asyncio.create_task(self._create_later(conn, options, seed), name="board")
            self._tasks.add(task)
            task.add_done_callback(self._tasks.discard)
            return
        try:
            options = with_board(options, seed)
        except engine.ConfigError as exc:
            conn.send(m.Error(code=ErrorCode.BAD_OPTIONS, message=str(exc)))
            return
        self._open(conn, options, seed)

    async def _create_later(self, conn: Connection, options: m.GameOptions, seed: int) -> None:
        try:
            options = await asyncio.to_thread(with_board, options, seed)
        except engine.ConfigError as exc:
            conn.send(m.Error(code=ErrorCode.BAD_OPTIONS, message=str(exc)))
            return
        self._open(conn, options, seed)

    def _open(self, conn: Connection, options: m.GameOptions, seed: int) -> None:
        """Store and open a game whose options are complete (its board made)."""
        try:
            game_config(options)
        except engine.ConfigError as exc:
            conn.send(m.Error(code=ErrorCode.BAD_OPTIONS, message=str(exc)))
            return
        game_id = "".join(secrets.choice(_ID_LETTERS) for _ in range(10))
        invite = secrets.token_hex(3).upper() if options.private else None
        self.store.create_game(game_id, options, seed, seed_hash(seed), invite)
        self._add_room(
            GameRoom(
                game_id,
                options,
                seed,
                conn,
                self.store,
                invite,
                away_grace=self.away_grace,
                launcher=self._launch_bot,
            )
        )
        self.log.info("game.created", game=game_id, players=options.players)
        conn.send(m.GameCreated(game=game_id, invite=invite, seed_hash=seed_hash(seed)))

    def _launch_bot(self, game: str, token: str, kind: str, name: str) -> None:
        task = asyncio.create_task(self._bot_process(game, token, kind, name), name=f"bot-{name}")
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def _bot_process(self, game: str, token: str, kind: str, name: str) -> None:
        """Run one bot as its own process until it exits (or the server stops), then tell
        its room, which starts it again or plays the seat itself."""
        proc = await asyncio.create_subprocess_exec(
            *bot_command(self.url, game, token, kind, name),
            stdin=asyncio.subprocess.DEVNULL,
            stdout=asyncio.subprocess.DEVNULL,
            stderr=asyncio.subprocess.PIPE,
        )
        self.log.info("bot.started", game=game, kind=kind, pid=proc.pid)
        try:
            _, err = await proc.communicate()
        except asyncio.CancelledError:
            if proc.returncode is None:
                proc.terminate()
                with contextlib.suppress(ProcessLookupError):
                    await asyncio.wait_for(proc.wait(), 5)
            raise
        code = proc.returncode
        assert code is not None
        if code == 0:
            self.log.info("bot.exited", game=game, kind=kind, code=code)
        else:
            tail = err.decode(errors="replace").strip().splitlines()[-5:]
            self.log.warning("bot.failed", game=game, kind=kind, code=code, stderr=tail)
        room = self.rooms.get(game)
        if room is not None:
            room.submit(SERVER_PEER, ProcessExited(token=token, code=code))

    def _add_room(self, room: GameRoom) -> None:
        self.rooms[room.id] = room
        if room.invite is not None:
            self.invites[room.invite] = room.id
        task = asyncio.create_task(room.run(), name=f"room-{room.id}")
        self._tasks.add(task)
        self._rooms_tasks[room.id] = task
        task.add_done_callback(self._tasks.discard)

    async def _reap_idle(self) -> None:
        """Close games nobody has touched for ``idle_timeout`` with nobody connected, and
        finished games once their players are gone. Closed games stay in the store."""
        while True:
            await asyncio.sleep(min(60.0, max(0.05, self.idle_timeout / 4)))
            now = time.monotonic()
            for room in list(self.rooms.values()):
                if room.connected():
                    continue
                if room.over or now - room.last_active > self.idle_timeout:
                    self._close_room(room)

    def _close_room(self, room: GameRoom) -> None:
        if not room.over:
            self.store.abandon_game(room.id)
        self.rooms.pop(room.id, None)
        if room.invite is not None:
            self.invites.pop(room.invite, None)
        task = self._rooms_tasks.pop(room.id, None)
        if task is not None:
            task.cancel()
        self.log.info("game.closed", game=room.id, finished=room.over)
