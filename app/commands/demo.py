"""``hexhaven demo``: a match between heuristic bots, told in the terminal."""

from __future__ import annotations

import argparse
from typing import Any

from engine import GameConfig


def _config(args: argparse.Namespace) -> GameConfig:
    return GameConfig(
        players=args.players,
        victory_points=args.vp,
        board_setup=args.board,
        radius=args.radius,
    )


def _demo(args: argparse.Namespace) -> int:
    from app.demo import play_demo

    play_demo(args.seed, _config(args), quiet=args.quiet)
    return 0


def register(sub: Any) -> None:
    """Add ``demo``."""
    demo = sub.add_parser("demo", help="watch a match between heuristic bots in the terminal")
    demo.add_argument("--seed", type=int, default=1, help="game seed (board and dice)")
    demo.add_argument("--players", type=int, default=4, help="2 to 4 players")
    demo.add_argument("--vp", type=int, default=10, help="victory points to win")
    demo.add_argument("--board", choices=["random", "spiral"], default="random")
    demo.add_argument("--radius", type=int, default=3, help="board radius (3 is standard)")
    demo.add_argument("--quiet", action="store_true", help="print only the result")
    demo.set_defaults(run=_demo)
