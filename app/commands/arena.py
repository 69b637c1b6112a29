"""``hexhaven arena``: bots against bots with seats rotated, win rates with intervals."""

from __future__ import annotations

import argparse
from typing import Any

from app.commands.common import bad_url


def _arena(args: argparse.Namespace) -> int:
    from tournament.arena import arena_command

    if args.server is not None and bad_url("arena", args.server):
        return 2
    return arena_command(
        agents=args.agents,
        agent=args.agent,
        games=args.games,
        seed=args.seed,
        players=args.players,
        vp=args.vp,
        board=args.board,
        quiet=args.quiet,
        json_path=args.json,
        server=args.server,
    )


def register(sub: Any) -> None:
    """Add ``arena``."""
    arena = sub.add_parser(
        "arena",
        help="measure bots: games between agents with rotated seats, win rates with CIs",
        description="Play bots against each other with seats rotated and print, per entrant "
        "and per distinct spec: games, wins, win rate with its 95% Wilson interval, mean "
        "victory points, mean rank (1 for the winner, the others by points; ties share the "
        "better rank) and milliseconds per decision. Games come in blocks of as many games as "
        "entrants on one game seed (block b plays seed SEED+b); in game j of a block seat s "
        "holds entrant (j+s) mod entrants, so each entrant sits in each seat once per block. "
        "Games run in this process with the prompts, views and events a server sends; a game "
        "still going after the action limit has no winner. The same command gives the same "
        "results, timings aside.",
    )
    arena.add_argument(
        "--agents",
        metavar="SPECS",
        help="the entrants: specs 'kind' or 'kind:name=value,...' separated by ',' or ';'. "
        "A ',' followed by a name=value piece (an '=' with no ':' before it) continues the "
        "previous spec's parameters: 'uct:rollouts=1000,cp=0.5,heuristic' is two entrants. "
        "';' always separates. A spec given twice is two entrants (heuristic#1, heuristic#2)",
    )
    arena.add_argument(
        "--agent",
        action="append",
        default=[],
        metavar="SPEC",
        help="one more entrant, taken whole (repeatable; after those of --agents)",
    )
    arena.add_argument("--games", type=int, default=None, help="games to play (default: one block)")
    arena.add_argument(
        "--seed", type=int, default=1, help="first game seed; agent seeds derive from it"
    )
    arena.add_argument(
        "--players",
        type=int,
        default=None,
        help="2 to 4 seats (default: one per entrant; with fewer entrants than seats an "
        "entrant fills several seats, with more some sit each game out)",
    )
    arena.add_argument("--vp", type=int, default=10, help="victory points to win")
    arena.add_argument("--board", choices=["random", "spiral"], default="random")
    arena.add_argument("--quiet", action="store_true", help="no line per finished game")
    arena.add_argument("--json", metavar="FILE", help="also write the results as JSON")
    arena.add_argument(
        "--server",
        metavar="URL",
        help="play on this server, one 'hexhaven bot' process per seat (the server picks "
        "the game seeds; decision times are not measured)",
    )
    arena.set_defaults(run=_arena)
