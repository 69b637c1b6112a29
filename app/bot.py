"""``hexhaven bot``: one built-in bot plays one seat over the protocol. A person who starts
it by hand is told its seat and token (to bring it back with), the result, or why it has no
seat; the server, which starts its own bots the same way, ignores the output."""

from __future__ import annotations

import argparse
import asyncio
import sys
from typing import Any

from websockets.exceptions import WebSocketException

from clients.sdk import Agent, ConnectionLost, SeatDeclined, Table, play
from protocol import messages as m


class TellingAgent(Agent):
    """Plays as ``inner`` does, printing its seat once it has one and keeping it, and the
    last refusal the server sent."""

    def __init__(self, inner: Agent) -> None:
        self.inner = inner
        self.name = inner.name
        self.seat: int | None = None
        self.refusal: m.Error | None = None

    def choose(self, prompt: m.Prompt, table: Table) -> Any:
        return self.inner.choose(prompt, table)

    def on_seated(self, table: Table) -> None:
        self.inner.on_seated(table)
        self.seat = table.seat
        print(
            f"{self.name}: seat {table.seat} of game {table.game}; "
            f"back to it with --game {table.game} --token {table.token}",
            flush=True,
        )

    def on_event(self, event: Any, table: Table) -> None:
        self.inner.on_event(event, table)

    def on_error(self, error: m.Error, table: Table) -> None:
        self.refusal = error
        self.inner.on_error(error, table)


def result_line(name: str, over: m.GameOver, seat: int | None) -> str:
    """``"heuristic: game g1 over: seat 2 (this bot) won; points 10, 7, 5"``."""
    if over.winner is None:
        who = "nobody won"
    else:
        who = f"seat {over.winner}" + (" (this bot)" if over.winner == seat else "") + " won"
    points = ", ".join(str(p) for p in over.points)
    return f"{name}: game {over.game} over: {who}; points {points}"


def run_bot(args: argparse.Namespace, agent: Agent) -> int:
    """Play ``agent`` in the seat ``args`` name (by invite, or game and token); 0 when the
    game was played to its end, 1 when the seat was refused or lost, 2 when the server
    cannot be reached."""
    told = TellingAgent(agent)
    try:
        over = asyncio.run(play(told, args.url, args.game, token=args.token, invite=args.invite))
    except (ConnectionLost, SeatDeclined) as exc:
        print(f"hexhaven bot: {exc}", file=sys.stderr)
        return 1
    except (OSError, TimeoutError, WebSocketException) as exc:
        print(f"hexhaven bot: cannot reach the server at {args.url}: {exc}", file=sys.stderr)
        return 2
    if over is None:
        why = told.refusal.message if told.refusal is not None else "no reason given"
        print(f"hexhaven bot: the server refused the seat: {why}", file=sys.stderr)
        return 1
    print(result_line(told.name, over, told.seat), flush=True)
    return 0
