"""``hexhaven bot``: one built-in bot plays one seat over the protocol. A person who starts
it by hand is told its seat and how to bring it back (its token saved where ``--save-token``
says, else shown once), the result, or why it has no seat; the server, which starts its own
bots the same way (the token on standard input), ignores the output."""

from __future__ import annotations

import argparse
import asyncio
import shlex
import ssl
import sys
from pathlib import Path
from typing import Any

from websockets.exceptions import WebSocketException

from app.tokens import STDIN, TokenError, save_token
from clients.sdk import Agent, ConnectionLost, SeatDeclined, Table, play
from clients.tls import tls_problem
from protocol import messages as m


class TellingAgent(Agent):
    """Plays as ``inner`` does, printing its seat once it has one (with the way back to
    it: the file its token was read from or saved to) and keeping it, and the last refusal
    the server sent."""

    def __init__(
        self, inner: Agent, *, token_file: str | None = None, save_to: Path | None = None
    ) -> None:
        self.inner = inner
        self.name = inner.name
        self.seat: int | None = None
        self.refusal: m.Error | None = None
        self.token_file = token_file
        """Where the token came from (``-``: standard input), if the seat was rejoined."""
        self.save_to = save_to
        """Where to save the token of the seat taken."""

    def choose(self, prompt: m.Prompt, table: Table) -> Any:
        return self.inner.choose(prompt, table)

    def on_seated(self, table: Table) -> None:
        self.inner.on_seated(table)
        self.seat = table.seat
        way_back = self._way_back(table)
        print(f"{self.name}: seat {table.seat} of game {table.game}; {way_back}", flush=True)

    def _way_back(self, table: Table) -> str:
        """How to come back to the seat: with the file that holds its token (saved there
        now, with ``save_to``), or the token itself when no file holds it."""
        back = f"back to it with --game {shlex.quote(table.game)} --token-file"
        if self.save_to is not None and table.token is not None:
            try:
                save_token(self.save_to, table.token)
            except TokenError as exc:
                print(f"hexhaven bot: {exc}", file=sys.stderr)
            else:
                return f"{back} {shlex.quote(str(self.save_to))}"
        if self.token_file is not None:
            if self.token_file == STDIN:
                return f"{back} - (its token on standard input)"
            return f"{back} {shlex.quote(self.token_file)}"
        return (
            f"its token is {table.token} (keep it secret): {back} FILE holding it, "
            "or - to give it on standard input"
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


def run_bot(
    args: argparse.Namespace, agent: Agent, token: str | None, tls: ssl.SSLContext | None = None
) -> int:
    """Play ``agent`` in the seat ``args`` name (by invite, or the game with ``token``, read
    from ``args.token_file``), verifying a ``wss://`` server with ``tls`` (None: the
    system's trust store); 0 when the game was played to its end, 1 when the seat was
    refused or lost, 2 when the server cannot be reached."""
    save_to = Path(args.save_token) if args.save_token else None
    told = TellingAgent(agent, token_file=args.token_file, save_to=save_to)
    try:
        over = asyncio.run(
            play(told, args.url, args.game, token=token, invite=args.invite, tls=tls)
        )
    except (ConnectionLost, SeatDeclined) as exc:
        print(f"hexhaven bot: {exc}", file=sys.stderr)
        return 1
    except (OSError, TimeoutError, WebSocketException) as exc:
        why = tls_problem(exc, args.url) or exc
        print(f"hexhaven bot: cannot reach the server at {args.url}: {why}", file=sys.stderr)
        return 2
    if over is None:
        why = told.refusal.message if told.refusal is not None else "no reason given"
        print(f"hexhaven bot: the server refused the seat: {why}", file=sys.stderr)
        return 1
    print(result_line(told.name, over, told.seat), flush=True)
    return 0
