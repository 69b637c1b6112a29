"""``hexhaven arena``: bots against bots, seats rotated, results with confidence intervals.

Entrants are agent specs (``kind`` or ``kind:name=value,...``). Games come in blocks of as
many games as there are entrants, all on one game seed (board and dice): block ``b`` plays
on seed ``S + b`` and in its game ``j`` seat ``s`` holds entrant ``(j + s) mod E``, so every
entrant sits in every seat once per block and the luck of the dice and of the seat order
cancels out. Each seat's agent gets a seed derived from ``S``, the block and the seat, so a
run is reproducible.

Locally every game is played in this process by :func:`bots.local.play_local`, which gives
each agent what a server and the SDK would (prompts with views, events in the wire form its seat may
see, its table kept up to date) and times its decisions. With a server URL the same
schedule is played on a real server, each agent in its own ``hexhaven bot`` process; the
server picks the game seeds.

Ranks: 1 for the winner, the others by victory points, tied seats sharing the better rank.
An entrant that fills several seats of a game counts one game per seat.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import json
import math
import sys
import tempfile
import time
import traceback
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import IO, Any, Literal, cast

from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import WebSocketException
from websockets.typing import Subprotocol

import engine
from bots import KINDS, make_agent, parse_spec
from bots.local import MAX_ACTIONS, RefusedAction, play_local
from clients.narrate import plural
from clients.sdk import Agent
from protocol import PROTOCOL_VERSION, SUBPROTOCOL_MSGPACK, Codec
from protocol import messages as m
from protocol.payloads import (
    WireModel,
)

Z95 = 1.959963984540054
"""The two-sided 95% quantile of the standard normal distribution."""
POLL = 0.2
"""Seconds between checks on the bot processes while waiting for the server."""
SEAT_TIMEOUT = 60.0
"""Seconds a bot process has to take its seat on the server."""
GAME_TIMEOUT = 3600.0
"""Seconds a game on a server may last before the arena gives up on it."""
EXIT_GRACE = 10.0
"""Seconds bot processes have to exit after the game is over before they are stopped."""
BOARDS = ("random", "spiral")

BoardSetup = Literal["random", "spiral"]


class ArenaError(Exception):
    """A run that cannot go on: a bot process died or never took its seat, a bot chose an
    action the server would refuse or raised, or a server refused or stopped answering."""


# --- entrants ---------------------------------------------------------------------------


def _continues(piece: str) -> bool:
    """Whether a comma-separated piece is a ``name=value`` parameter (an ``=`` with no
    ``:`` before it) rather than the start of a new spec."""
    eq = piece.find("=")
    colon = piece.find(":")
    return eq >= 0 and not 0 <= colon < eq


def split_agents(text: str) -> list[str]:
    """The specs in an ``--agents`` value. ``;`` always separates entrants; a ``,`` does
    too, except before a ``name=value`` piece (an ``=`` with no ``:`` before it), which
    continues the parameters of the spec before it. So ``uct:rollouts=1000,cp=0.5,heuristic``
    is two entrants. Raises ValueError for a parameter with no spec to belong to."""
    specs: list[str] = []
    for group in text.split(";"):
        group_start = len(specs)
        for raw in group.split(","):
            piece = raw.strip()
            if not piece:
                continue
            if piece.endswith(":"):
                raise ValueError(f"{piece!r} has no parameters after ':'; leave out the ':'")
            if not _continues(piece):
                specs.append(piece)
                continue
            if len(specs) == group_start:
                raise ValueError(f"parameter {piece!r} has no agent before it; write kind:{piece}")
            if ":" not in specs[-1]:
                raise ValueError(
                    f"parameter {piece!r} follows {specs[-1]!r}, which has no ':'; "
                    f"write {specs[-1]}:{piece}"
                )
            specs[-1] = f"{specs[-1]},{piece}"
    return specs


@dataclass(frozen=True)
class Entrant:
    """One player of the arena: its label (unique), its spec (shared by copies) and what
    the spec says."""

    label: str
    spec: str
    kind: str
    params: tuple[tuple[str, str], ...]


def canonical_spec(kind: str, params: dict[str, str]) -> str:
    """A spec written one way: the kind, then its parameters sorted by name."""
    if not params:
        return kind
    return kind + ":" + ",".join(f"{k}={v}" for k, v in sorted(params.items()))


def make_entrants(specs: Sequence[str]) -> list[Entrant]:
    """Entrants for specs in order; a spec given more than once gets labels ``spec#1``,
    ``spec#2``... Raises ValueError for a malformed spec or an unknown kind."""
    parsed: list[tuple[str, dict[str, str]]] = []
    for spec in specs:
        kind, params = parse_spec(spec)
        if kind not in KINDS:
            raise ValueError(
                f"unknown bot kind {kind!r} in {spec!r}; known kinds: {', '.join(KINDS)}"
            )
        parsed.append((kind, params))
    canon = [canonical_spec(kind, params) for kind, params in parsed]
    seen: dict[str, int] = {}
    entrants: list[Entrant] = []
    for (kind, params), spec in zip(parsed, canon, strict=True):
        seen[spec] = seen.get(spec, 0) + 1
        label = spec if canon.count(spec) == 1 else f"{spec}#{seen[spec]}"
        entrants.append(Entrant(label, spec, kind, tuple(sorted(params.items()))))
    return entrants


def check_entrants(entrants: Sequence[Entrant]) -> None:
    """Build each distinct spec's agent once, so a bad parameter or a kind that cannot be
    loaded is reported before any game; raises ValueError."""
    for entrant in {e.spec: e for e in entrants}.values():
        try:
            agent = make_agent(entrant.kind, 0, dict(entrant.params))
        except ImportError as exc:
            raise ValueError(f"the {entrant.kind} bot cannot be loaded: {exc}") from exc
        _close(agent)


# --- the schedule -----------------------------------------------------------------------


@dataclass(frozen=True)
class ScheduledGame:
    """One game of the schedule: its 0-based index, block, game seed, the entrant index
    at each seat and each seat's agent seed."""

    index: int
    block: int
    seed: int
    seating: tuple[int, ...]
    agent_seeds: tuple[int, ...]


def agent_seed(seed: int, block: int, seat: int) -> int:
    """The seed of the agent at ``seat`` in every game of ``block`` (a hash, so nearby
    runs do not share agent seeds)."""
    digest = hashlib.sha256(f"hexhaven-arena:{seed}:{block}:{seat}".encode()).digest()
    return int.from_bytes(digest[:8], "big") >> 1


def make_schedule(entrants: int, players: int, games: int, seed: int) -> list[ScheduledGame]:
    """``games`` games in blocks of ``entrants`` games: block ``b`` on game seed
    ``seed + b``, and in its game ``j`` seat ``s`` holds entrant ``(j + s) % entrants``.
    With fewer entrants than players an entrant fills several seats of a game; with more,
    some sit each game out. Raises ValueError for empty or negative counts."""
    if entrants < 1 or players < 1 or games < 1:
        raise ValueError("an arena needs at least one entrant, one seat and one game")
    schedule: list[ScheduledGame] = []
    for index in range(games):
        block, j = divmod(index, entrants)
        schedule.append(
            ScheduledGame(
                index=index,
                block=block,
                seed=seed + block,
                seating=tuple((j + s) % entrants for s in range(players)),
                agent_seeds=tuple(agent_seed(seed, block, s) for s in range(players)),
            )
        )
    return schedule


# --- results ----------------------------------------------------------------------------


def wilson_interval(wins: int, games: int, z: float = Z95) -> tuple[float, float]:
    """The Wilson score interval for a win rate (95% by default); (0, 1) with no games."""
    if games <= 0:
        return 0.0, 1.0
    p = wins / games
    z2 = z * z
    denom = 1 + z2 / games
    center = (p + z2 / (2 * games)) / denom
    half = z / denom * math.sqrt(p * (1 - p) / games + z2 / (4 * games * games))
    low = 0.0 if wins <= 0 else max(0.0, center - half)  # exact at the ends, not 1e-17 off
    high = 1.0 if wins >= games else min(1.0, center + half)
    return low, high


def ranks(points: Sequence[int], winner: int | None) -> list[int]:
    """Each seat's rank: 1 for the winner, the others by points; tied seats share the
    better rank (1, 2, 2, 4). With no winner all seats are ranked by points."""

    def key(seat: int) -> tuple[bool, int]:
        return seat == winner, points[seat]

    return [1 + sum(key(t) > key(s) for t in range(len(points))) for s in range(len(points))]


@dataclass(frozen=True)
class GameRecord:
    """A finished (or abandoned) game: ``winner`` is a seat or None, ``points`` per seat;
    decisions and their total seconds per seat are None when not measured (server)."""

    index: int
    block: int
    seed: int
    seating: tuple[int, ...]
    winner: int | None
    points: tuple[int, ...]
    actions: int
    elapsed: float
    decisions: tuple[int, ...] | None = None
    decision_seconds: tuple[float, ...] | None = None
    server_game: str | None = None
    """The game's id on the server that played it (``hexhaven verify``, ``replay``)."""

    @property
    def ranks(self) -> list[int]:
        return ranks(self.points, self.winner)


class WinRate:
    """For a record of ``wins`` out of ``games``: the win rate and its Wilson interval."""

    wins: int
    games: int

    @property
    def win_rate(self) -> float:
        return self.wins / self.games if self.games else 0.0

    @property
    def interval(self) -> tuple[float, float]:
        return wilson_interval(self.wins, self.games)


@dataclass
class Standing(WinRate):
    """Totals for an entrant or a spec (its ``entrants``): one game per seat played."""

    name: str
    spec: str
    entrants: list[str]
    games: int = 0
    wins: int = 0
    points: int = 0
    rank_sum: int = 0
    decisions: int = 0
    decision_seconds: float = 0.0
    timed: bool = True

    def add(self, record: GameRecord, seat: int) -> None:
        self.games += 1
        self.wins += record.winner == seat
        self.points += record.points[seat]
        self.rank_sum += record.ranks[seat]
        if record.decisions is None or record.decision_seconds is None:
            self.timed = False
        else:
            self.decisions += record.decisions[seat]
            self.decision_seconds += record.decision_seconds[seat]

    @property
    def mean_points(self) -> float:
        return self.points / self.games if self.games else 0.0

    @property
    def mean_rank(self) -> float:
        return self.rank_sum / self.games if self.games else 0.0

    @property
    def ms_per_decision(self) -> float | None:
        if not self.timed or not self.decisions:
            return None
        return 1000.0 * self.decision_seconds / self.decisions

    def to_json(self) -> dict[str, Any]:
        low, high = self.interval
        return {
            "name": self.name,
            "spec": self.spec,
            "entrants": self.entrants,
            "games": self.games,
            "wins": self.wins,
            "win_rate": self.win_rate,
            "ci95": [low, high],
            "mean_vp": self.mean_points,
            "mean_rank": self.mean_rank,
            "decisions": self.decisions if self.timed else None,
            "ms_per_decision": self.ms_per_decision,
        }


def standings(
    entrants: Sequence[Entrant], records: Sequence[GameRecord]
) -> tuple[list[Standing], list[Standing]]:
    """Totals per entrant (in entrant order) and per distinct spec (in order of first
    appearance)."""
    by_label = {e.label: Standing(e.label, e.spec, [e.label]) for e in entrants}
    by_spec: dict[str, Standing] = {}
    for e in entrants:
        by_spec.setdefault(e.spec, Standing(e.spec, e.spec, [])).entrants.append(e.label)
    for record in records:
        for seat, index in enumerate(record.seating):
            entrant = entrants[index]
            by_label[entrant.label].add(record, seat)
            by_spec[entrant.spec].add(record, seat)
    return list(by_label.values()), list(by_spec.values())


# --- playing locally --------------------------------------------------------------------


def _close(agent: Agent) -> None:
    """Let an agent release what it holds (search worker processes), if it says how."""
    close = getattr(agent, "close", None)
    if callable(close):
        close()


def play_local_games(
    entrants: Sequence[Entrant],
    schedule: Sequence[ScheduledGame],
    config: engine.GameConfig,
    on_record: Callable[[GameRecord], None],
) -> None:
    """Play the schedule in this process (:func:`bots.local.play_local`), one record per game to
    ``on_record``; an unfinished game has no winner. Raises ArenaError as it does."""
    for game in schedule:
        start = time.perf_counter()
        agents = [
            make_agent(entrants[e].kind, seed, dict(entrants[e].params))
            for e, seed in zip(game.seating, game.agent_seeds, strict=True)
        ]
        names = [entrants[e].label for e in game.seating]
        try:
            played = play_local(agents, config, game.seed, names=names)
        except RefusedAction as exc:
            raise ArenaError(str(exc)) from exc
        except Exception as exc:  # a bot's bug: the games so far are still reported
            raise ArenaError(f"game {game.index + 1} failed: {type(exc).__name__}: {exc}") from exc
        finally:
            for agent in agents:
                _close(agent)
        state, decisions, seconds = played.state, played.decisions, played.seconds
        on_record(
            GameRecord(
                index=game.index,
                block=game.block,
                seed=game.seed,
                seating=game.seating,
                winner=state.winner if state.is_over and state.winner >= 0 else None,
                points=tuple(state.victory_points(q) for q in range(config.players)),
                actions=state.actions_taken,
                elapsed=time.perf_counter() - start,
                decisions=tuple(decisions),
                decision_seconds=tuple(seconds),
            )
        )


# --- playing on a server ----------------------------------------------------------------


def bot_command(url: str, invite: str, entrant: Entrant, seed: int) -> list[str]:
    """The ``hexhaven bot`` command line for an entrant's seat (values as ``--opt=value``,
    so none is taken for an option)."""
    return [
        sys.executable,
        "-m",
        "clients.cli",
        "bot",
        f"--url={url}",
        f"--invite={invite}",
        f"--kind={entrant.kind}",
        f"--name={entrant.label[:32]}",
        f"--seed={seed}",
        *(f"--param={name}={value}" for name, value in entrant.params),
    ]


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


class _Host:
    """The arena's own connection: creates the game, watches it, starts it."""

    def __init__(self, ws: ClientConnection, bots: list[_BotProcess]) -> None:
        self.ws = ws
        self.codec = Codec(ws.subprotocol)
        self.bots = bots
        self.actions = 0

    async def send(self, message: WireModel) -> None:
        await self.ws.send(self.codec.encode(message))

    async def next(self) -> Any:
        """The next server message; raises ArenaError for a refusal or a failed bot."""
        while True:
            try:
                async with asyncio.timeout(POLL):
                    frame = await self.ws.recv()
            except TimeoutError:
                for bot in self.bots:
                    problem = bot.failure()
                    if problem is not None:
                        raise ArenaError(problem) from None
                continue
            message = self.codec.read_server(frame)
            if message is None:
                continue  # a type this client does not know
            if isinstance(message, m.Error):
                raise ArenaError(f"the server refused: {message.message} ({message.code})")
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
    (under the name ``labels[seat]``, cut to 32 characters, where ``check_names`` says so:
    by default every seat), start the game and wait for its end. Raises ArenaError if it
    cannot be finished."""
    checks = list(check_names) if check_names is not None else [True] * len(labels)
    start = time.perf_counter()
    bots: list[_BotProcess] = []
    over: m.GameOver | None = None
    async with connect(url, subprotocols=[Subprotocol(SUBPROTOCOL_MSGPACK)]) as ws:
        host = _Host(ws, bots)
        try:
            async with asyncio.timeout(game_timeout):
                await host.send(m.Hello(protocol=PROTOCOL_VERSION, client="hexhaven-arena"))
                await host.expect(m.Welcome)
                await host.send(m.CreateGame(options=options))
                created: m.GameCreated = await host.expect(m.GameCreated)
                if created.invite is None:
                    raise ArenaError("the server gave the private game no invite code")
                await host.send(m.Watch(game=created.game))
                await host.expect(m.Joined)
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
                    if checks[seat] and names[seat] != label[:32]:
                        raise ArenaError(f"seat {seat} went to {names[seat]!r}, not to our bot")
                await host.send(m.StartGame(game=created.game))
                while True:
                    message = await host.next()
                    if isinstance(message, m.GameOver):
                        over = message
                        break
                    if isinstance(message, m.Players):
                        lost = [p for p in message.players if p.away or not p.connected]
                        if lost:
                            raise ArenaError(
                                f"seat {lost[0].seat} ({lost[0].name}) lost its bot before "
                                "the end; the server would play it"
                            )
        except TimeoutError:
            raise ArenaError(
                f"game {game.index + 1} did not end within {game_timeout:.0f}s"
            ) from None
        finally:
            # After the end the bots leave on their own; after a failure they are stopped.
            grace = EXIT_GRACE if over is not None else 0.0
            await asyncio.gather(*(b.stop(grace) for b in bots))
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


# --- the command ------------------------------------------------------------------------


def percent(x: float) -> str:
    """A rate as a percentage with one decimal: 0.3975 -> "39.8%"."""
    return f"{100 * x:.1f}%"


def format_table(rows: Sequence[Standing], title: str) -> list[str]:
    """One line per standing under a header: games, wins, win rate with its 95% Wilson
    interval, mean victory points, mean rank and milliseconds per decision."""
    width = max(len(title), *(len(r.name) for r in rows))
    lines = [
        f"{title:<{width}}  games   wins  win rate  95% CI            "
        "mean VP  mean rank  ms/decision"
    ]
    for r in rows:
        low, high = r.interval
        ms = r.ms_per_decision
        lines.append(
            f"{r.name:<{width}}  {r.games:>5}  {r.wins:>5}  {percent(r.win_rate):>8}  "
            f"[{percent(low):>6}, {percent(high):>6}]  {r.mean_points:>7.2f}  {r.mean_rank:>9.2f}  "
            + (f"{ms:>11.3f}" if ms is not None else f"{'n/a':>11}")
        )
    return lines


def progress_line(entrants: Sequence[Entrant], record: GameRecord, games: int) -> str:
    """One line for a finished game: its number, seed, seating, winner and time taken."""
    seating = ", ".join(entrants[e].label for e in record.seating)
    if record.winner is None:
        winner = "none (unfinished)"
    else:
        winner = f"{entrants[record.seating[record.winner]].label} (seat {record.winner})"
    on_server = "" if record.server_game is None else f"  server game {record.server_game}"
    return (
        f"game {record.index + 1}/{games}  seed {record.seed}  seats {seating}  "
        f"winner {winner}  {record.elapsed:.2f}s{on_server}"
    )


def record_json(entrants: Sequence[Entrant], record: GameRecord) -> dict[str, Any]:
    """A game record as JSON: labels at each seat, the winner's label, per-seat numbers."""
    return {
        "game": record.index + 1,
        "block": record.block,
        "seed": record.seed,
        "seating": [entrants[e].label for e in record.seating],
        "winner": None if record.winner is None else entrants[record.seating[record.winner]].label,
        "winner_seat": record.winner,
        "points": list(record.points),
        "ranks": record.ranks,
        "actions": record.actions,
        "elapsed": record.elapsed,
        **({} if record.server_game is None else {"server_game": record.server_game}),
    }


def results_json(entrants: Sequence[Entrant], records: Sequence[GameRecord]) -> dict[str, Any]:
    """The standings per entrant and per spec, and every game's record, as JSON."""
    per_entrant, per_spec = standings(entrants, records)
    return {
        "entrants": [s.to_json() for s in per_entrant],
        "specs": [s.to_json() for s in per_spec],
        "records": [record_json(entrants, r) for r in records],
    }


def _check_writable(path: str) -> None:
    """Raise ValueError if a file cannot be written at ``path`` (checked before any game,
    so a long run does not lose its results at the end)."""
    target = Path(path)
    if target.is_dir():
        raise ValueError(f"--json {path} is a folder; give a file name")
    if not target.parent.is_dir():
        raise ValueError(f"--json {path}: no folder {target.parent}")


def arena_command(
    *,
    agents: str | None,
    agent: Sequence[str],
    games: int | None,
    seed: int,
    players: int | None,
    vp: int,
    board: str,
    quiet: bool,
    json_path: str | None,
    server: str | None,
    out: Callable[[str], None] = print,
    err: Callable[[str], None] | None = None,
) -> int:
    """Run ``hexhaven arena``: 0 on success, 1 if a game failed (a bot process died, a bot
    chose an action the server would refuse; the games played so far are still reported),
    2 for bad arguments. The table goes to ``out``, problems to ``err`` (standard error)."""
    if err is None:
        err = partial(print, file=sys.stderr)
    try:
        if games is not None and games < 1:
            raise ValueError(f"--games is 1 or more, not {games}")
        if json_path is not None:
            _check_writable(json_path)
        specs = [*split_agents(agents or ""), *agent]
        entrants = make_entrants(specs)
        if not entrants:
            raise ValueError("name the agents with --agents or --agent")
        check_entrants(entrants)
        if board not in BOARDS:
            raise ValueError(f"unknown board {board!r}; boards: {', '.join(BOARDS)}")
        setup = cast(BoardSetup, board)
        if players is None and len(entrants) < 2:
            raise ValueError("name at least two agents, or give --players for self-play")
        seats = len(entrants) if players is None else players
        config = engine.GameConfig(players=seats, victory_points=vp, board_setup=setup)
        total = len(entrants) if games is None else games
        schedule = make_schedule(len(entrants), seats, total, seed)
    except (ValueError, engine.ConfigError) as exc:
        err(f"arena: {exc}")
        return 2
    records: list[GameRecord] = []

    def on_record(record: GameRecord) -> None:
        records.append(record)
        if not quiet:
            out(progress_line(entrants, record, total))

    failure: str | None = None
    if server is None:
        try:
            play_local_games(entrants, schedule, config, on_record)
        except ArenaError as exc:
            failure = str(exc)
            if exc.__cause__ is not None:
                traceback.print_exception(exc.__cause__, file=sys.stderr)
    else:
        options = m.GameOptions(
            players=seats,
            victory_points=vp,
            board=setup,
            private=True,
            bots=[],
        )
        try:
            asyncio.run(play_server_games(server, entrants, schedule, options, on_record))
        except (ArenaError, OSError, WebSocketException) as exc:
            failure = str(exc) or type(exc).__name__
    if failure is not None and not records:
        err(f"arena: no game played: {failure}")
        return 1
    block = len(entrants)
    blocks, rest = divmod(len(records), block)
    where = f"on {server} (game seeds chosen by the server)" if server else f"seed {seed}"
    out(
        f"arena: {len(records)} games, {seats} players, first to {vp} points, {board} board, "
        f"{where}; {blocks} full {plural(blocks, 'block')} of {plural(block, 'game')}"
        + (f" and a partial block of {rest} (its seats are not balanced)" if rest else "")
    )
    per_entrant, per_spec = standings(entrants, records)
    for line in format_table(per_entrant, "entrant"):
        out(line)
    if len(per_spec) < len(per_entrant):
        out("")
        for line in format_table(per_spec, "spec"):
            out(line)
    if seats > len(entrants) or len(per_spec) < len(per_entrant):
        out(
            "(games and wins count seats: an entrant in several seats of a game, or a spec "
            "with several entrants, plays it more than once, and its interval is too narrow)"
        )
    unfinished = sum(r.winner is None for r in records)
    if unfinished:
        out(f"no winner: {unfinished} game(s) unfinished after {MAX_ACTIONS} actions")
    if json_path is not None:
        document = {
            "mode": "local" if server is None else "server",
            "server": server,
            "seed": seed,
            "players": seats,
            "victory_points": vp,
            "board": board,
            "games": len(records),
            "games_scheduled": total,
            "block_size": block,
            "partial_block": rest,
            "no_winner": unfinished,
            "error": failure,
            **results_json(entrants, records),
        }
        try:
            with open(json_path, "w", encoding="utf-8") as f:
                json.dump(document, f, indent=2)
                f.write("\n")
        except OSError as exc:
            err(f"arena: cannot write {json_path}: {exc}")
            return 1
    if failure is not None:
        err(f"arena: stopped after {len(records)} of {total} games: {failure}")
        return 1
    return 0
