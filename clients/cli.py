"""The ``hexhaven`` command."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

from engine import ConfigError, GameConfig


def _config(args: argparse.Namespace) -> GameConfig:
    return GameConfig(
        players=args.players,
        victory_points=args.vp,
        board_setup=args.board,
        radius=args.radius,
    )


def _demo(args: argparse.Namespace) -> int:
    from clients.demo import play_demo

    play_demo(args.seed, _config(args), quiet=args.quiet)
    return 0


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="hexhaven", description="Hexhaven: the hex-island trading game, with bots."
    )
    sub = parser.add_subparsers(dest="command", required=True)
    demo = sub.add_parser("demo", help="watch a match between simple bots in the terminal")
    demo.add_argument("--seed", type=int, default=1, help="game seed (board and dice)")
    demo.add_argument("--players", type=int, default=4, help="2 to 4 players")
    demo.add_argument("--vp", type=int, default=10, help="victory points to win")
    demo.add_argument("--board", choices=["random", "spiral"], default="random")
    demo.add_argument("--radius", type=int, default=3, help="board radius (3 is standard)")
    demo.add_argument("--quiet", action="store_true", help="print only the result")
    demo.set_defaults(run=_demo)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        code: int = args.run(args)
    except ConfigError as exc:
        parser.error(str(exc))
    return code


if __name__ == "__main__":
    sys.exit(main())
