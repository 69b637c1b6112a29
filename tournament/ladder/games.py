"""One ladder game as a unit of work: a picklable task, and how it is played.

:func:`play_game` plays a task in the calling process (a process-pool worker, a Ray task,
or the driver itself) with :func:`tournament.local.play_local`: built-in bots are made from
their kind and parameters, ``command`` entrants are started as child processes and
seated through the stdio bridge (:class:`clients.bridge.ProgramAgent`), exactly as
``hexhaven agent`` seats them on a server. :func:`seat_command` gives the command line
that plays a seat on a server instead.
"""

from __future__ import annotations

import logging
import os
import shlex
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

import structlog

import engine
from boards.play import DEFAULT_MIN_FAIRNESS, BoardUnavailable, board_for_game
from bots import make_agent
from clients.bridge import BridgeError, ProgramAgent
from clients.sdk import Agent
from protocol import messages as m
from protocol.process import hexhaven_command
from tournament.entrants import Entrant
from tournament.ladder.config import EntrantConfig, LadderConfig
from tournament.local import RefusedAction, play_local
from tournament.records import GameRecord, ScheduledGame
from tournament.server_runner import bot_command


def quiet_logs(level: int = logging.WARNING) -> None:
    """Let only structlog events at ``level`` and above through (the bridge logs every
    program it starts at info): set in the driver and in every worker process."""
    structlog.configure(wrapper_class=structlog.make_filtering_bound_logger(level))


class GameError(Exception):
    """A game that could not be played to its end: a bot raised or chose an action a
    server would refuse, a program could not be started, a server gave up."""


@dataclass(frozen=True)
class SeatSpec:
    """What plays a seat: the entrant's label and how it plays (``bot``: ``kind`` with
    ``params``; ``command`` or ``connect``: ``argv``, with ``{name}``, ``{seed}``,
    ``{url}`` and ``{invite}`` still to fill in)."""

    label: str
    way: Literal["bot", "command", "connect"]
    kind: str = ""
    params: tuple[tuple[str, str], ...] = ()
    argv: tuple[str, ...] = ()
    timeout: float = 10.0

    @classmethod
    def of(cls, entrant: EntrantConfig) -> SeatSpec:
        if entrant.bot is not None:
            return cls(
                entrant.name, "bot", kind=entrant.bot, params=tuple(entrant.str_params.items())
            )
        text = entrant.command if entrant.command is not None else entrant.connect
        assert text is not None
        argv = tuple(shlex.split(text))
        return cls(entrant.name, entrant.way, argv=argv, timeout=entrant.timeout)

    def fill(self, **values: object) -> list[str]:
        """The program's argv with each ``{key}`` in it replaced by ``values[key]``, and
        ``{python}`` by the Python running this (the project's virtualenv, active or not)."""
        argv = []
        for piece in self.argv:
            for key, value in {"python": sys.executable, **values}.items():
                piece = piece.replace("{" + key + "}", str(value))
            argv.append(piece)
        return argv


@dataclass(frozen=True)
class GameTask:
    """One scheduled game with everything needed to play it anywhere."""

    game: ScheduledGame
    seats: tuple[SeatSpec, ...]
    players: int
    victory_points: int
    board: str
    min_fairness: float | None = None

    @property
    def labels(self) -> tuple[str, ...]:
        return tuple(s.label for s in self.seats)

    @property
    def config_json(self) -> dict[str, object]:
        """The game's options as stored with it."""
        out: dict[str, object] = {
            "players": self.players,
            "victory_points": self.victory_points,
            "board": self.board,
        }
        if self.min_fairness is not None:
            out["min_fairness"] = self.min_fairness
        return out

    def engine_config(self) -> engine.GameConfig:
        """The engine's configuration of this game: a ``balanced``, ``fair`` or preset board
        is made here from the block's seed, so every game of a block plays on the same one.
        Raises :class:`GameError` when no such board can be had."""
        if self.board in ("random", "spiral"):
            return engine.GameConfig(
                players=self.players,
                victory_points=self.victory_points,
                board_setup=self.board,  # type: ignore[arg-type]
            )
        kind, _, preset = self.board.partition(":")
        try:
            chosen = board_for_game(
                kind,
                self.game.seed,
                players=self.players,
                min_fairness=(
                    DEFAULT_MIN_FAIRNESS if self.min_fairness is None else self.min_fairness
                ),
                preset=preset or None,
            )
        except BoardUnavailable as exc:
            raise GameError(f"game {self.game.index + 1}: {exc}") from None
        return engine.GameConfig.with_board(
            chosen.board, players=self.players, victory_points=self.victory_points
        )


def make_tasks(
    config: LadderConfig, schedule: Sequence[ScheduledGame], entrants: Sequence[EntrantConfig]
) -> list[GameTask]:
    """A task per scheduled game, ``seating`` indexing ``entrants``."""
    specs = [SeatSpec.of(e) for e in entrants]
    section = config.ladder
    return [
        GameTask(
            game=game,
            seats=tuple(specs[e] for e in game.seating),
            players=section.players,
            victory_points=section.victory_points,
            board=section.board,
            min_fairness=section.min_fairness,
        )
        for game in schedule
    ]


def _make_agent(spec: SeatSpec, seed: int) -> Agent:
    if spec.way == "bot":
        return make_agent(spec.kind, seed, dict(spec.params))
    if spec.way == "command":
        argv = spec.fill(name=spec.label, seed=seed)
        agent = ProgramAgent(argv, name=spec.label, timeout=spec.timeout)
        agent.start()
        return agent
    raise GameError(
        f"{spec.label} connects to a server itself (connect = ...): run the ladder with "
        "--server URL"
    )


def _never_answered(agent: ProgramAgent) -> str:
    """Why a program entrant's game is not a result: it ended without a single answer,
    which is a broken command (a wrong path, a missing library), not a way of playing."""
    code = agent.proc.poll() if agent.proc is not None else None
    return (
        f"entrant {agent.name!r}: its program ({shlex.join(agent.argv)}, run in {os.getcwd()}) "
        "exited"
        + (f" with code {code}" if code is not None else "")
        + " before it answered a single prompt; the game is not stored. Check the command "
        "(its error output is above)"
    )


def play_game(task: GameTask) -> GameRecord:
    """Play the task's game here and now; raises :class:`GameError` if it cannot be
    played to its end (a game still going after the action limit ends without winner)."""
    game = task.game
    config = task.engine_config()
    start = time.perf_counter()
    agents: list[Agent] = []
    over: m.GameOver | None = None
    try:
        for spec, seed in zip(task.seats, game.agent_seeds, strict=True):
            agents.append(_make_agent(spec, seed))
        played = play_local(agents, config, game.seed, names=list(task.labels))
        for agent in agents:
            if isinstance(agent, ProgramAgent) and agent.gone == "exited" and not agent.lines_read:
                raise GameError(f"game {game.index + 1}: {_never_answered(agent)}")
        over = played.over
    except RefusedAction as exc:
        raise GameError(f"game {game.index + 1}: {exc}") from None
    except BridgeError as exc:
        raise GameError(f"game {game.index + 1}: {exc}") from None
    except GameError:
        raise
    except Exception as exc:  # a bot's bug, reported with the game it happened in
        raise GameError(f"game {game.index + 1} failed: {type(exc).__name__}: {exc}") from exc
    finally:
        for agent in agents:
            if isinstance(agent, ProgramAgent):
                agent.finish(over)
                agent.stop()
            close = getattr(agent, "close", None)
            if callable(close):
                close()
    assert over is not None  # a game played here always ends with its game_over
    return GameRecord(
        index=game.index,
        block=game.block,
        seed=game.seed,
        seating=game.seating,
        winner=over.winner,
        points=tuple(over.points),
        actions=played.state.actions_taken,
        elapsed=time.perf_counter() - start,
        decisions=tuple(played.decisions),
        decision_seconds=tuple(played.seconds),
    )


def seat_command(spec: SeatSpec, url: str, invite: str, seed: int) -> list[str]:
    """The command line of a process that takes a seat on the server at ``url`` with
    ``invite`` and plays it to the end: ``hexhaven bot`` for a built-in bot, ``hexhaven
    agent --cmd`` (the stdio bridge) for a ``command`` entrant, and the entrant's own
    command for a ``connect`` entrant."""
    if spec.way == "bot":
        entrant = Entrant(spec.label, spec.label, spec.kind, spec.params)
        return bot_command(url, invite, entrant, seed)
    if spec.way == "command":
        return hexhaven_command(
            "agent",
            f"--url={url}",
            f"--invite={invite}",
            f"--name={spec.label}",
            f"--timeout={spec.timeout}",
            "--log-level=warning",
            "--cmd=" + shlex.join(spec.fill(name=spec.label, seed=seed)),
        )
    return spec.fill(url=url, invite=invite, name=spec.label, seed=seed)
