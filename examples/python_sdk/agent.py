"""A Hexhaven agent written with the Python SDK (clients/sdk.py).

The SDK connects, takes the seat, answers each prompt with its state id, keeps the line
alive and comes back after a lost connection; the agent only chooses. This one builds a
city or a settlement when it can, declines other players' offers, and otherwise picks a
random listed action. docs/agents.md ("The Python SDK") walks through it. Run it with the
project's virtualenv, where the SDK is installed:

    python3 examples/python_sdk/agent.py ws://127.0.0.1:8765 --invite CODE [--token-file FILE]
    python3 examples/python_sdk/agent.py ws://127.0.0.1:8765 --game GAME --token-file FILE

(and ``--name NAME``, ``--seed N``). The token is the seat: it is kept in a file readable by
its owner alone, never on a command line.
"""

from __future__ import annotations

import argparse
import asyncio
import logging
import os
import random
import sys
from typing import Any

import structlog

from clients.sdk import Agent, ConnectionLost, Table, play
from protocol import messages as m


class BuilderAgent(Agent):
    """Builds a city or a settlement when it can, says no to offers, and otherwise plays a
    listed action at random."""

    name = "sdk-builder"

    def __init__(self, seed: int | None = None, token_file: str | None = None) -> None:
        self.rng = random.Random(seed)
        self.refusal: m.Error | None = None
        self.token_file = token_file

    def on_error(self, error: m.Error, table: Table) -> None:
        self.refusal = error  # the last refusal: why the seat was refused, if it was

    def on_seated(self, table: Table) -> None:
        game, file = table.game, self.token_file
        if file is None:
            kept = "its token is not kept: --token-file FILE keeps it"
        else:  # readable by its owner alone
            with os.fdopen(os.open(file, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600), "w") as f:
                f.write(f"{table.token}\n")
            kept = f"its token is in {file}: rejoin with --game {game} --token-file {file}"
        print(f"seat {table.seat} in game {game} ({kept})", file=sys.stderr)

    def choose(self, prompt: m.Prompt, table: Table) -> Any:
        for action in prompt.actions:
            if action.kind == "decline_trade":  # another player's offer: say no
                return action
        builds = [a for a in prompt.actions if a.kind in ("build_city", "build_settlement")]
        return self.rng.choice(builds or prompt.actions)


def main() -> int:
    parser = argparse.ArgumentParser(description="A Hexhaven agent written with the SDK.")
    parser.add_argument("url", help="the server, e.g. ws://127.0.0.1:8765")
    seat = parser.add_mutually_exclusive_group(required=True)
    seat.add_argument("--invite", help="an invite code to join with")
    seat.add_argument("--game", help="the game of a seat to come back to (with --token-file)")
    parser.add_argument(
        "--token-file", help="the file that keeps the seat's token (read to come back)"
    )
    parser.add_argument("--name", default="sdk", help="the name to sit under")
    parser.add_argument("--seed", type=int, default=None, help="random seed of the choices")
    args = parser.parse_args()
    if args.game is not None and args.token_file is None:
        parser.error("--game needs --token-file, the file that holds the seat's token")
    # The SDK logs with structlog: show only its warnings (a lost connection), on stderr.
    structlog.configure(
        wrapper_class=structlog.make_filtering_bound_logger(logging.WARNING),
        logger_factory=structlog.PrintLoggerFactory(sys.stderr),
    )
    agent = BuilderAgent(args.seed, args.token_file)
    agent.name = args.name
    try:
        if args.invite is not None:
            over = asyncio.run(play(agent, args.url, invite=args.invite))
        else:
            with open(args.token_file) as file:
                token = file.readline().strip()
            over = asyncio.run(play(agent, args.url, args.game, token=token))
    except ConnectionLost as exc:
        print(f"gave up: {exc}", file=sys.stderr)
        return 1
    if over is None:  # the server refused the seat: on_error has the reason
        why = agent.refusal.message if agent.refusal is not None else "no reason given"
        print(f"the server refused the seat: {why}", file=sys.stderr)
        return 1
    print(f"game over: winner {over.winner}, points {over.points}, seed {over.seed}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
