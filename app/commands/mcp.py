"""``hexhaven mcp``: a seat on a server for a language-model agent, served over the Model
Context Protocol on standard input and output. A seat is come back to with its token read
from a file (``--token-file``: standard input carries MCP), never from the command line."""

from __future__ import annotations

import argparse
import os
import sys
from typing import Any

from app.commands.common import add_cafile, bad_url, client_tls


def _mcp(args: argparse.Namespace) -> int:
    import asyncio
    from pathlib import Path

    from pydantic import ValidationError

    from app.log import configure_logging
    from app.tokens import STDIN, TokenError, read_token, save_token
    from clients.tls import TrustError
    from protocol import messages as m
    from protocol.client_session import Goal, JoinSeat, ResumeSeat, WatchGame

    configure_logging(args.log_level)  # on standard error: standard output speaks MCP
    if bad_url("mcp", args.url):
        return 2
    goal: Goal
    try:
        tls = client_tls(args.url, args.cafile)
        if args.watch:
            goal = WatchGame(game=args.watch)
        elif args.invite:
            goal = JoinSeat(name=args.name, invite=args.invite)
        elif args.token_file is not None:
            if not args.game:
                raise TokenError("--token-file needs --game")
            if args.token_file == STDIN:
                raise TokenError(
                    "--token-file - cannot be used here: standard input carries the Model "
                    "Context Protocol; give the file that holds the token"
                )
            goal = ResumeSeat(game=args.game, token=read_token(args.token_file))
        elif args.game:
            goal = JoinSeat(name=args.name, game=args.game)
        else:
            raise TokenError("give --invite CODE, --game GAME --token-file FILE, or --watch GAME")
    except (TokenError, TrustError) as exc:
        print(f"hexhaven mcp: {exc}", file=sys.stderr)
        return 2
    try:  # what the server would refuse, refused here in words
        m.JoinGame(game="g", name=args.name)
        if args.game or args.watch:
            m.Watch(game=args.watch or args.game)
    except ValidationError as exc:
        where = "--name" if exc.title == "JoinGame" else "the game id"
        print(f"hexhaven mcp: {where}: {exc.errors()[0]['msg']}", file=sys.stderr)
        return 2
    try:
        from clients.mcp import serve
    except ImportError as exc:  # the mcp extra is not installed
        print(
            f"hexhaven mcp: needs the mcp library ({exc}): pip install '.[mcp]'",
            file=sys.stderr,
        )
        return 2

    def seated(game: str, seat: int, token: str) -> None:
        """Keep the seat's token where ``--save-token`` asked (not in a log)."""
        if args.save_token is not None:
            try:
                save_token(Path(args.save_token), token)
            except TokenError as exc:
                print(f"hexhaven mcp: {exc}", file=sys.stderr)

    seat = asyncio.run(serve(args.url, goal, name=args.name, tls=tls, on_seated=seated))
    if sys.stdout.closed:  # the MCP transport closes it once the host has gone
        sys.stdout = open(os.devnull, "w")  # noqa: SIM115 (for the interpreter's last flush)
    if seat.failure is not None:
        print(f"hexhaven mcp: {seat.failure}", file=sys.stderr)
        return 1
    return 0


def register(sub: Any) -> None:
    """Add ``mcp``."""
    # No abbreviated options: `--token SECRET` must not be taken for `--token-file SECRET`.
    cmd = sub.add_parser(
        "mcp",
        allow_abbrev=False,
        help="serve a seat to a language-model agent over the Model Context Protocol (stdio)",
        description="Hold one seat (or a watch) of a game on a Hexhaven server and serve it "
        "over the Model Context Protocol on standard input and output, for a model host to "
        "start: tools for the position, the legal actions, acting, offers, chat and waiting "
        "for your turn; resources for the rules and the protocol (docs/agents.md). Logs are "
        "JSON lines on standard error.",
    )
    cmd.add_argument("--url", required=True, help="the server, e.g. ws://127.0.0.1:8765")
    place = cmd.add_mutually_exclusive_group()
    place.add_argument("--invite", help="an invite code to join with")
    place.add_argument(
        "--token-file",
        metavar="FILE",
        help="the file holding the seat's token, to come back to it; with --game (not -: "
        "standard input carries MCP)",
    )
    place.add_argument("--watch", metavar="GAME", help="watch the game GAME, without a seat")
    cmd.add_argument("--game", default="", help="the game id")
    cmd.add_argument(
        "--save-token",
        metavar="FILE",
        default=None,
        help="write the token of the seat taken to FILE (readable by you alone), for "
        "--token-file to come back with",
    )
    add_cafile(cmd)
    cmd.add_argument("--name", default="model", help="the name to sit under")
    cmd.add_argument("--log-level", default="warning", choices=["debug", "info", "warning"])
    cmd.set_defaults(run=_mcp)
