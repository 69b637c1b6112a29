"""The ``hexhaven`` command: the parser, made of the subcommands that register themselves,
and :func:`main`."""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Sequence

from app import boards
from app.commands import arena, demo, mcp, position, seat, serve, terminal
from engine import ConfigError
from tournament.ladder import cli as ladder

COMMANDS = (demo, serve, seat, mcp, arena, terminal, boards, position, ladder)
"""The modules whose ``register`` adds subcommands, in the order ``--help`` lists them."""


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="hexhaven", description="Hexhaven: the hex-island trading game, with bots."
    )
    sub = parser.add_subparsers(dest="command", required=True)
    for command in COMMANDS:
        command.register(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
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
