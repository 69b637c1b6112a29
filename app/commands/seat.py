"""``hexhaven bot`` and ``hexhaven agent``: a seat on a server played by one of the bots, or
by any program that speaks JSON lines. A seat is come back to with its token read from a
file or standard input (``--token-file``), never from the command line."""

from __future__ import annotations

import argparse
import os
import sys
from typing import Any

from app.commands.common import add_cafile, bad_url, client_tls, name_values

TOKEN_FILE_HELP = "the file holding the seat's token, to come back to it (-: standard input)"


def _token(args: argparse.Namespace) -> str | None:
    """The token in the file ``--token-file`` names (None without it). Raises
    :class:`app.tokens.TokenError` when it cannot be had, or is given without ``--game``."""
    from app.tokens import TokenError, read_token

    if args.token_file is None:
        return None
    if not args.game:
        raise TokenError("--token-file needs --game")
    return read_token(args.token_file)


def _bot(args: argparse.Namespace) -> int:
    from app.log import configure_logging
    from app.tokens import TokenError
    from bots import make_agent
    from clients.tls import TrustError

    if bad_url("bot", args.url):
        return 2
    try:
        token = _token(args)
        tls = client_tls(args.url, args.cafile, args.server_cert)
    except (TokenError, TrustError) as exc:
        print(f"hexhaven bot: {exc}", file=sys.stderr)
        return 2
    configure_logging("warning")
    params = name_values("bot", "--param", args.param)
    if params is None:
        return 2
    if args.strength:
        params.setdefault("strength", args.strength)
    try:
        agent = make_agent(args.kind, args.seed, params)
    except ValueError as exc:
        print(f"hexhaven bot: {exc}", file=sys.stderr)
        return 2
    if args.name:
        agent.name = args.name
    from app.bot import run_bot

    return run_bot(args, agent, token, tls)


def _bot_host(args: argparse.Namespace) -> int:
    import asyncio

    from app.log import configure_logging, stderr_to_log_file
    from clients.tls import TrustError

    if bad_url("bot-host", args.url):
        return 2
    if args.workers < 1 or not args.search_seconds > 0:
        print(
            "hexhaven bot-host: --workers takes a count of 1 or more and --search-seconds "
            "a number of seconds above 0",
            file=sys.stderr,
        )
        return 2
    try:
        tls = client_tls(args.url, None, args.server_cert)
    except TrustError as exc:
        print(f"hexhaven bot-host: {exc}", file=sys.stderr)
        return 2
    stderr_to_log_file()  # started by `hexhaven play`: its log file, not the person's terminal
    configure_logging(args.log_level)
    from app.bot_host import host_seats

    asyncio.run(host_seats(args.url, args.workers, args.search_seconds, tls))
    return 0


def _agent(args: argparse.Namespace) -> int:
    import asyncio
    import shlex
    from pathlib import Path

    from websockets.exceptions import WebSocketException

    from app.log import configure_logging
    from app.tokens import TokenError, save_token
    from clients.bridge import BridgeError, run_bridge
    from clients.sdk import Table
    from clients.tls import TrustError, tls_problem

    configure_logging(args.log_level)
    if bad_url("agent", args.url):
        return 2
    if not (args.invite or args.game):
        print(
            "hexhaven agent: give --invite CODE, or --game GAME (with --token-file)",
            file=sys.stderr,
        )
        return 2
    if not args.timeout > 0:
        print("hexhaven agent: --timeout takes a number of seconds above 0", file=sys.stderr)
        return 2
    try:
        argv = shlex.split(args.cmd)
    except ValueError as exc:  # unbalanced quotes
        print(f"hexhaven agent: --cmd: {exc}", file=sys.stderr)
        return 2
    try:
        token = _token(args)
        tls = client_tls(args.url, args.cafile)
    except (TokenError, TrustError) as exc:
        print(f"hexhaven agent: {exc}", file=sys.stderr)
        return 2

    def seated(table: Table) -> None:
        """Keep the seat's token where ``--save-token`` asked (not in a log)."""
        if args.save_token and table.token is not None:
            try:
                save_token(Path(args.save_token), table.token)
            except TokenError as exc:
                print(f"hexhaven agent: {exc}", file=sys.stderr)

    try:
        over = asyncio.run(
            run_bridge(
                args.url,
                argv,
                game=args.game,
                token=token,
                invite=args.invite,
                name=args.name,
                timeout=args.timeout,
                on_seated=seated,
                tls=tls,
            )
        )
    except BridgeError as exc:
        print(f"hexhaven agent: {exc}", file=sys.stderr)
        return 2
    except (OSError, WebSocketException) as exc:
        why = tls_problem(exc, args.url) or exc
        print(f"hexhaven agent: cannot reach {args.url}: {why}", file=sys.stderr)
        return 1
    return 0 if over is not None else 1


def register(sub: Any) -> None:
    """Add ``bot`` and ``agent``."""
    # No abbreviated options: `--token SECRET` must not be taken for `--token-file SECRET`.
    bot = sub.add_parser(
        "bot", help="play a seat with a bot, over the protocol", allow_abbrev=False
    )
    bot.add_argument("--url", required=True, help="the server, e.g. ws://127.0.0.1:8765")
    bot.add_argument("--game", default="", help="the game id")
    seat = bot.add_mutually_exclusive_group(required=True)
    seat.add_argument("--token-file", metavar="FILE", help=TOKEN_FILE_HELP + "; with --game")
    seat.add_argument("--invite", help="an invite code to join with")
    bot.add_argument(
        "--save-token",
        metavar="FILE",
        default=None,
        help="write the token of the seat taken to FILE (readable by you alone), for "
        "--token-file to come back with",
    )
    bot.add_argument(
        "--kind",
        default="random",
        help="the bot kind: random, heuristic, uct, catanatron or policy",
    )
    bot.add_argument(
        "--strength",
        default=None,
        help="a named strength of the kind (uct: easy, quick, medium, hard)",
    )
    bot.add_argument(
        "--param",
        action="append",
        default=[],
        metavar="NAME=VALUE",
        help="a parameter of the bot (repeatable), e.g. rollouts=1000, cp=0.25, trees=4; "
        "catanatron: player=module:Class",
    )
    trust = bot.add_mutually_exclusive_group()
    add_cafile(trust)
    trust.add_argument(
        "--server-cert",
        default=None,
        metavar="FILE",
        help="trust exactly the first certificate in FILE (the server's own), whatever "
        "address the server is reached by; how a server's own bots reach it over TLS",
    )
    bot.add_argument("--name", default="", help="the name to sit under")
    bot.add_argument("--seed", type=int, default=None, help="the bot's own random seed")
    bot.set_defaults(run=_bot)
    host = sub.add_parser(
        "bot-host",
        allow_abbrev=False,
        help="play many bot seats in one process (the server starts it)",
        description="Play the bot seats a server writes on standard input, one JSON line "
        "each (the game, the seat's token, the bot), every seat over its own connection; "
        "the uct seats' searches share --workers worker processes. A line on standard "
        "output tells of each seat's end. The server starts and restarts this process "
        "itself (docs/hosting.md).",
    )
    host.add_argument("--url", required=True, help="the server, e.g. ws://127.0.0.1:8765")
    host.add_argument(
        "--workers",
        type=int,
        default=os.cpu_count() or 1,
        help="search worker processes shared by every seat (default: one a core)",
    )
    host.add_argument(
        "--search-seconds",
        type=float,
        default=10.0,
        metavar="SECONDS",
        help="the longest one decision's search may take, when no turn timer ends it "
        "sooner (default 10)",
    )
    host.add_argument(
        "--server-cert",
        default=None,
        metavar="FILE",
        help="trust exactly the first certificate in FILE (the server's own)",
    )
    host.add_argument("--log-level", default="warning", choices=["debug", "info", "warning"])
    host.set_defaults(run=_bot_host)
    agent_cmd = sub.add_parser(
        "agent",
        allow_abbrev=False,
        help="play a seat with any program that speaks JSON lines on stdin/stdout",
        description="Start PROGRAM and play a seat for it: it reads the prompts, events and "
        "errors of its seat as JSON lines on its standard input and answers each prompt with "
        "one JSON action line on its standard output (docs/agents.md). A program that answers "
        "badly, late or not at all, or exits, gets the default action and a log line; the "
        "game goes on. Logs are JSON lines on standard error.",
    )
    agent_cmd.add_argument("--url", required=True, help="the server, e.g. ws://127.0.0.1:8765")
    agent_seat = agent_cmd.add_mutually_exclusive_group()
    agent_seat.add_argument("--invite", help="an invite code to join with")
    agent_seat.add_argument("--token-file", metavar="FILE", help=TOKEN_FILE_HELP + "; with --game")
    agent_cmd.add_argument("--game", default="", help="the game id")
    agent_cmd.add_argument(
        "--save-token",
        metavar="FILE",
        default=None,
        help="write the token of the seat taken to FILE (readable by you alone), for "
        "--token-file to come back with",
    )
    agent_cmd.add_argument(
        "--cmd", required=True, metavar="'PROGRAM ARGS'", help="the program, as one string"
    )
    add_cafile(agent_cmd)
    agent_cmd.add_argument("--name", default="agent", help="the name to sit under")
    agent_cmd.add_argument(
        "--timeout",
        type=float,
        default=10.0,
        metavar="SECONDS",
        help="seconds the program has to answer a prompt (default 10)",
    )
    agent_cmd.add_argument("--log-level", default="info", choices=["debug", "info", "warning"])
    agent_cmd.set_defaults(run=_agent)
