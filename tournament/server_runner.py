"""Playing scheduled games on a real server: per game, a private game is created, one
``hexhaven bot`` process per seat takes its seat by invite code, the game is started and
watched to its end. The server picks the game seeds; decision times are not measured."""

from __future__ import annotations

import asyncio
import contextlib
import tempfile
import time
from collections.abc import Callable, Sequence
from typing import IO, Any

from websockets.asyncio.client import ClientConnection
from websockets.exceptions import ConnectionClosed

from clients.reconnect import RECONNECT, ConnectionLost, Connections
from protocol import SUBPROTOCOL_MSGPACK
from protocol import messages as m
from protocol.client_session import ClientSession, NewGame
from protocol.payloads import WireModel
from protocol.process import hexhaven_command
from tournament.entrants import Entrant
from tournament.records import ArenaError, GameRecord, ScheduledGame

POLL = 0.2
"""Seconds between checks on the bot processes while waiting for the server."""
SEAT_TIMEOUT = 60.0
"""Seconds a bot process has to take its seat on the server."""
GAME_TIMEOUT = 3600.0
"""Seconds a game on a server may last before the arena gives up on it."""
EXIT_GRACE = 10.0
"""Seconds bot processes have to exit after the game is over before they are stopped."""


async def _created(host: _Host, options: m.GameOptions, until: float) -> m.GameCreated:
    """Have ``host`` create the game; refused for one of :data:`WAIT_FOR` (the runner's other
    games not started yet count against them), ask again every :data:`CREATE_RETRY` seconds
    until the monotonic time ``until``."""
    while True:
        await host.open()
        try:
            created: m.GameCreated = await host.expect(m.GameCreated)
            return created
        except _Refused as refused:
            error = refused.error
            limited = error.code == m.ErrorCode.LIMIT_REACHED and error.detail in WAIT_FOR
            if not limited or time.monotonic() + CREATE_RETRY > until:
                raise
        await asyncio.sleep(CREATE_RETRY)
        host.session = _session(options)


def _session(options: m.GameOptions) -> ClientSession:
    """The client session of the arena's own connection: create the game and watch it."""
    return ClientSession(NewGame(options), client="hexhaven-arena", subprotocol=SUBPROTOCOL_MSGPACK)


def bot_command(url: str, invite: str, entrant: Entrant, seed: int) -> list[str]:
    """The ``hexhaven bot`` command line for an entrant's seat (values as ``--opt=value``,
    so none is taken for an option)."""
    return hexhaven_command(
        "bot",
        f"--url={url}",
        f"--invite={invite}",
        f"--kind={entrant.kind}",
        f"--name={entrant.label[:32]}",
        f"--seed={seed}",
        *(f"--param={name}={value}" for name, value in entrant.params),
    )


class _BotProcess:
    """A bot's process, its stderr kept in a temporary file for error reports."""

    def __init__(self, proc: asyncio.subprocess.Process, stderr: IO[bytes], label: str) -> None:
        self.proc = proc
        self.stderr = stderr
        self.label = label
        self.exit_problem: str | None = None

    @classmethod
    async def start(cls, command: Sequence[str], label: str) -> _BotProcess:
        stderr = tempfile.TemporaryFile()  # noqa: SIM115 (closed by stop())
        proc = await asyncio.create_subprocess_exec(
            *command,
            stdin=asyncio.subprocess.DEVNULL,
            stdout=asyncio.subprocess.DEVNULL,
            stderr=stderr,
        )
        return cls(proc, stderr, label)

    def failure(self) -> str | None:
        """What went wrong if the process has exited with an error, else None."""
        code = self.proc.returncode
        if code is None or code == 0:
            return None
        self.stderr.seek(0)
        tail = self.stderr.read().decode(errors="replace").strip().splitlines()[-5:]
        return f"the bot process of {self.label} exited with code {code}: " + " | ".join(tail)

    async def stop(self, grace: float) -> None:
        """Wait up to ``grace`` seconds for it to exit, then terminate (and kill) it. If it
        exited by itself with an error, :attr:`exit_problem` says so."""
        try:
            if self.proc.returncode is None:
                try:
                    await asyncio.wait_for(self.proc.wait(), grace)
                except TimeoutError:
                    self.proc.terminate()
                    try:
                        await asyncio.wait_for(self.proc.wait(), 5)
                    except TimeoutError:
                        self.proc.kill()
                        await self.proc.wait()
                    return  # stopped by us: its exit code says nothing of it
            if self.proc.returncode:
                self.exit_problem = self.failure()
        finally:
            if self.proc.returncode is None:
                with contextlib.suppress(ProcessLookupError):
                    self.proc.kill()
            self.stderr.close()


class _Refused(ArenaError):
    """The server refused what the arena's connection asked."""

    def __init__(self, error: m.Error) -> None:
        super().__init__(f"the server refused: {error.message} ({error.code})")
        self.error = error


WAIT_FOR: frozenset[str] = frozenset(
    {"unstarted_per_connection", "unstarted_per_address", "games_per_address", "creates"}
)
"""Caps a new game may be refused for while the runner's other games are being seated
(a server counts them as any client's): the runner asks again a little later."""
CREATE_RETRY = 1.0
"""Seconds between asks for a game refused for one of :data:`WAIT_FOR`."""


class _Host:
    """The arena's own connection: creates the game, watches it (its client session does
    both once welcomed), starts it. A lost connection is made again by the clients' one
    reconnect loop (:class:`clients.reconnect.Connections`), which watches the game again."""

    def __init__(self, connections: Connections, bots: list[_BotProcess]) -> None:
        self.connections = connections
        self.ws: ClientConnection | None = None
        self.bots = bots
        self.actions = 0

    @property
    def session(self) -> ClientSession:
        return self.connections.session

    @session.setter
    def session(self, session: ClientSession) -> None:
        self.connections.session = session

    async def connect(self) -> None:
        """The next connection of the loop. Raises ArenaError when the game cannot be
        watched again."""
        try:
            self.ws = await anext(self.connections)
        except StopAsyncIteration:
            refusal = self.session.refusal
            assert refusal is not None
            raise _Refused(refusal) from None
        except ConnectionLost as lost:
            raise ArenaError(str(lost)) from lost

    async def open(self) -> None:
        """Say hello; the session asks for the rest as the answers come."""
        assert self.ws is not None
        for frame in self.session.connect(self.ws.subprotocol):
            await self.ws.send(frame)

    async def send(self, message: WireModel) -> None:
        assert self.ws is not None
        await self.ws.send(self.session.encode(message))

    async def next(self) -> Any:
        """The next server message; raises ArenaError for a refusal or a failed bot."""
        while True:
            assert self.ws is not None
            try:
                async with asyncio.timeout(POLL):
                    frame = await self.ws.recv()
            except TimeoutError:
                for bot in self.bots:
                    problem = bot.failure()
                    if problem is not None:
                        raise ArenaError(problem) from None
                continue
            except ConnectionClosed as exc:
                self.connections.lost(str(exc))
                await self.connect()  # the game is watched again on the new connection
                await self.open()
                continue
            received = self.session.receive(frame)
            for reply in received.send:  # the create, then the watch
                await self.ws.send(reply)
            message = received.message
            if message is None:
                continue  # a type this client does not know
            if isinstance(message, m.Error):
                raise _Refused(message)
            if isinstance(message, m.Events):
                self.actions = max(self.actions, message.state_id)
            return message

    async def expect(self, kind: type[Any]) -> Any:
        while not isinstance(message := await self.next(), kind):
            pass
        return message


async def _server_game(
    url: str,
    entrants: Sequence[Entrant],
    game: ScheduledGame,
    options: m.GameOptions,
    game_timeout: float,
) -> GameRecord:
    """Play one scheduled game on the server; raises ArenaError if it cannot be finished."""
    labels = [entrants[e].label for e in game.seating]

    def command(seat: int, invite: str) -> list[str]:
        return bot_command(url, invite, entrants[game.seating[seat]], game.agent_seeds[seat])

    return await server_game(url, labels, command, game, options, game_timeout)


async def server_game(
    url: str,
    labels: Sequence[str],
    command: Callable[[int, str], Sequence[str]],
    game: ScheduledGame,
    options: m.GameOptions,
    game_timeout: float = GAME_TIMEOUT,
    check_names: Sequence[bool] | None = None,
) -> GameRecord:
    """Play one game on the server at ``url``: create a private game, start the process
    ``command(seat, invite)`` for each seat in turn and wait for it to take the seat
    (under the name ``labels[seat]``, cut to 32 characters and numbered by the server where
    an earlier seat has it, where ``check_names`` says so: by default every seat), start
    the game and wait for its end. Raises ArenaError if it cannot be finished."""
    checks = list(check_names) if check_names is not None else [True] * len(labels)
    start = time.perf_counter()
    bots: list[_BotProcess] = []
    over: m.GameOver | None = None
    connections = Connections(url, _session(options), policy=RECONNECT, needs_seat=False)
    host = _Host(connections, bots)
    await host.connect()
    try:
        try:
            async with asyncio.timeout(game_timeout):
                created = await _created(host, options, time.monotonic() + SEAT_TIMEOUT)
                if created.invite is None:
                    raise ArenaError("the server gave the private game no invite code")
                await host.expect(m.Joined)  # watching it
                for seat, label in enumerate(labels):
                    argv = command(seat, created.invite)
                    bots.append(await _BotProcess.start(argv, label))
                    try:
                        async with asyncio.timeout(SEAT_TIMEOUT):
                            while True:
                                roster: m.Players = await host.expect(m.Players)
                                names = {p.seat: p.name for p in roster.players}
                                if seat in names:
                                    break
                    except TimeoutError:
                        raise ArenaError(
                            f"{label} did not take seat {seat} within {SEAT_TIMEOUT:.0f}s"
                        ) from None
                    before = (names[s] for s in range(seat) if s in names)
                    if checks[seat] and names[seat] != m.unique_name(label[:32], before):
                        raise ArenaError(f"seat {seat} went to {names[seat]!r}, not to our bot")
                await host.send(m.StartGame(game=created.game))
                lost_bot: str | None = None  # a seat the roster says lost its bot
                while True:
                    message = await host.next()
                    if isinstance(message, m.GameOver):
                        over = message
                        break
                    if isinstance(message, m.Players):
                        lost = [p for p in message.players if p.away or not p.connected]
                        lost_bot = (
                            f"seat {lost[0].seat} ({lost[0].name}) lost its bot before the "
                            "end; the server would play it"
                            if lost
                            else None
                        )
                    elif lost_bot is not None and isinstance(message, m.Events | m.Prompt):
                        # The game went on without it (watching again after the end, the
                        # roster of bots gone home comes just before the game's end).
                        raise ArenaError(lost_bot)
        except TimeoutError:
            raise ArenaError(
                f"game {game.index + 1} did not end within {game_timeout:.0f}s"
            ) from None
        finally:
            # After the end the bots leave on their own; after a failure they are stopped.
            grace = EXIT_GRACE if over is not None else 0.0
            await asyncio.gather(*(b.stop(grace) for b in bots))
    finally:
        await connections.aclose()
    assert over is not None
    for bot in bots:  # one that failed by itself (a program that never answered): no result
        if bot.exit_problem is not None:
            raise ArenaError(f"game {game.index + 1}: {bot.exit_problem}")
    return GameRecord(
        index=game.index,
        block=game.block,
        seed=over.seed,
        seating=game.seating,
        winner=over.winner,
        points=tuple(over.points),
        actions=host.actions,
        elapsed=time.perf_counter() - start,
        server_game=created.game,
    )


async def play_server_games(
    url: str,
    entrants: Sequence[Entrant],
    schedule: Sequence[ScheduledGame],
    options: m.GameOptions,
    on_record: Callable[[GameRecord], None],
    game_timeout: float = GAME_TIMEOUT,
) -> None:
    """Play the schedule on the server at ``url``: per game, create a private game, start
    one ``hexhaven bot`` process per seat in seat order (each waits to be seated), start
    it and wait for the game's end. The server picks the game seeds; decision times are
    not measured. Raises ArenaError when a game cannot be played to its end."""
    for game in schedule:
        on_record(await _server_game(url, entrants, game, options, game_timeout))
