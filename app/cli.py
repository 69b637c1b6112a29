"""The ``hexhaven`` command: the parser, made of the subcommands that register themselves,
and :func:`main`."""

from __future__ import annotations

import argparse
import importlib
import os
import sys
from collections.abc import Sequence

from engine import ConfigError

COMMANDS = (
    "app.commands.demo",
    "app.commands.serve",
    "app.commands.seat",
    "app.commands.mcp",
    "app.commands.arena",
    "app.commands.terminal",
    "app.boards",
    "app.commands.position",
    "tournament.ladder.cli",
)
"""The modules whose ``register`` adds subcommands, in the order ``--help`` lists them."""
LEAN = {"bot": "app.commands.seat", "bot-host": "app.commands.seat"}
"""Commands that bots run, by the module that registers them: for these only that module
is imported, so a bot's process loads what playing needs (no terminal UI, no board lab,
no ladder)."""


def build_parser(command: str | None = None) -> argparse.ArgumentParser:
    """The parser of every subcommand, or with ``command`` one of :data:`LEAN`, of those
    its module registers."""
    parser = argparse.ArgumentParser(
        prog="hexhaven", description="Hexhaven: the hex-island trading game, with bots."
    )
    sub = parser.add_subparsers(dest="command", required=True)
    names = (LEAN[command],) if command in LEAN else COMMANDS
    for name in names:
        importlib.import_module(name).register(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else list(argv)
    parser = build_parser(argv[0] if argv else None)
    args = parser.parse_args(argv)
    try:
        code: int = args.run(args)
        sys.stdout.flush()
    except ConfigError as exc:
        parser.error(str(exc))
    except BrokenPipeError:
        # Whoever read the output stopped early (``hexhaven ladder show NAME | head``): end
        # quietly as other command-line tools do, without a traceback, and keep the
        # interpreter's final flush from raising again.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 1
    return code


if __name__ == "__main__":
    sys.exit(main())
