"""``hexhaven arena``: bots against bots, seats rotated, results with confidence intervals.

Entrants are agent specs (``kind`` or ``kind:name=value,...``). Games come in blocks of as
many games as there are entrants, all on one game seed (board and dice): block ``b`` plays
on seed ``S + b`` and in its game ``j`` seat ``s`` holds entrant ``(j + s) mod E``, so every
entrant sits in every seat once per block and the luck of the dice and of the seat order
cancels out. Each seat's agent gets a seed derived from ``S``, the block and the seat, so a
run is reproducible.

Locally every game is played in this process by :func:`tournament.local.play_local`, which gives
each agent what a server and the SDK would (prompts with views, events in the wire form its seat may
see, its table kept up to date) and times its decisions. With a server URL the same
schedule is played on a real server, each agent in its own ``hexhaven bot`` process; the
server picks the game seeds.

Ranks: 1 for the winner, the others by victory points, tied seats sharing the better rank.
An entrant that fills several seats of a game counts one game per seat.
"""

from __future__ import annotations

import asyncio
import json
import sys
import time
import traceback
from collections.abc import Callable, Sequence
from functools import partial
from pathlib import Path
from typing import Any, Literal, cast

from websockets.exceptions import WebSocketException

import engine
from bots import make_agent
from clients.narrate import plural
from protocol import messages as m
from tournament.entrants import (
    Entrant,
    check_entrants,
    close_agent,
    make_entrants,
    split_agents,
)
from tournament.local import MAX_ACTIONS, RefusedAction, play_local
from tournament.records import (
    ArenaError,
    GameRecord,
    ScheduledGame,
    make_schedule,
)
from tournament.server_runner import play_server_games
from tournament.stats import Standing, percent, standings

BOARDS = ("random", "spiral")

BoardSetup = Literal["random", "spiral"]


def play_local_games(
    entrants: Sequence[Entrant],
    schedule: Sequence[ScheduledGame],
    config: engine.GameConfig,
    on_record: Callable[[GameRecord], None],
) -> None:
    """Play the schedule in this process (:func:`tournament.local.play_local`), one record
    per game to ``on_record``; an unfinished game has no winner. Raises ArenaError as it
    does."""
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
                close_agent(agent)
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


def format_table(rows: Sequence[Standing], title: str) -> list[str]:
    """One line per standing under a header: games, wins, win rate with its 95% Wilson
    interval, mean victory points, mean rank and milliseconds per decision."""
    width = max(len(title), *(len(r.name) for r in rows))
    lines = [
        f"{title:<{width}}  games   wins  win rate  95% CI            "
        "mean VP  mean rank  ms/decision"
    ]
    for r in rows:
        t = r.totals
        low, high = t.interval
        ms = t.ms_per_decision
        lines.append(
            f"{r.name:<{width}}  {t.games:>5}  {t.wins:>5}  {percent(t.win_rate):>8}  "
            f"[{percent(low):>6}, {percent(high):>6}]  {t.mean_points:>7.2f}  {t.mean_rank:>9.2f}  "
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
        f"{where}; {blocks} full block{'' if blocks == 1 else 's'} of {plural(block, 'game')}"
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
