"""``hexhaven position``: show and check a position written in the engine's notation, write
a seat's form of it, or write the position of a stored game."""

from __future__ import annotations

import argparse
from typing import Any


def _position(args: argparse.Namespace) -> int:
    from app.position import run_position

    return run_position(args)


def register(sub: Any) -> None:
    """Add ``position``."""
    position = sub.add_parser(
        "position",
        help="show and check a position written in the engine's notation",
        description="Show a position written in the engine's notation (docs/engine.md) and "
        "check it, or write the notation of a stored game's position.",
    )
    position.add_argument(
        "text",
        nargs="*",
        help="the position (its twelve fields; quoted as one argument or not)",
    )
    position.add_argument(
        "--seat",
        type=int,
        default=None,
        metavar="N",
        help="write seat N's form of the position: only what that seat may see",
    )
    position.add_argument(
        "--from-game",
        default=None,
        metavar="GAME",
        help="write the position of the stored game GAME instead (with --db)",
    )
    position.add_argument(
        "--db",
        default="hexhaven.db",
        help="the games database of --from-game, as serve's --db (default ./hexhaven.db)",
    )
    position.add_argument(
        "--at",
        type=int,
        default=None,
        metavar="STATE",
        help="with --from-game: the position after the game's first STATE actions "
        "(default: its latest)",
    )
    position.set_defaults(run=_position)
