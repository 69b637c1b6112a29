"""``hexhaven serve`` (a game server) and ``hexhaven verify`` (a finished game's dice
against its seed)."""

from __future__ import annotations

import argparse
import asyncio
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from app.collector import short_collections
from app.commands.common import listen_problem, name_values, open_store, port
from app.engine_build import warn_if_interpreted

EVENT_LOOPS = ("uvloop", "asyncio")
"""The event loops a server runs on: uvloop's (libuv: sockets and timers handled in C, the
default where it is installed) or asyncio's own."""


def event_loop(name: str) -> Callable[[], asyncio.AbstractEventLoop] | None:
    """The factory of the event loop ``name`` (None: asyncio's own). uvloop asked for where
    it is not installed falls back to asyncio's, with a line on stderr."""
    if name == "asyncio":
        return None
    try:
        import uvloop
    except ImportError:
        print(
            "hexhaven serve: uvloop is not installed; serving on asyncio's event loop",
            file=sys.stderr,
        )
        return None
    return uvloop.new_event_loop


def _serve(args: argparse.Namespace) -> int:
    import signal

    from app.log import configure_logging
    from server.app import HexhavenServer, trusted_proxies
    from server.limits import ServerLimits
    from server.store import is_postgres
    from server.tls import ServerTLS, TLSError

    if args.bot_workers is not None and args.bot_workers < 1:
        print("hexhaven serve: --bot-workers takes a count of 1 or more", file=sys.stderr)
        return 2
    if args.bot_search_seconds is not None and not args.bot_search_seconds > 0:
        print("hexhaven serve: --bot-search-seconds takes seconds above 0", file=sys.stderr)
        return 2
    if not args.away_grace >= 0:
        print("hexhaven serve: --away-grace takes seconds, 0 or more", file=sys.stderr)
        return 2
    settings = name_values("serve", "--limit", args.limit)
    if settings is None:
        return 2
    try:
        limits = ServerLimits().with_settings(
            {name.strip(): value.strip() for name, value in settings.items()}
        )
    except ValueError as exc:
        print(f"hexhaven serve: --limit: {exc}", file=sys.stderr)
        return 2
    try:
        proxies = trusted_proxies(args.trusted_proxy)
    except ValueError as exc:
        print(f"hexhaven serve: --trusted-proxy: {exc}", file=sys.stderr)
        return 2
    if (args.tls_cert is None) != (args.tls_key is None):
        given, missing = "--tls-cert", "--tls-key"
        if args.tls_cert is None:
            given, missing = missing, given
        print(f"hexhaven serve: {given} needs {missing} too", file=sys.stderr)
        return 2
    tls = None
    if args.tls_cert is not None:
        try:
            tls = ServerTLS(args.tls_cert, args.tls_key)
        except TLSError as exc:
            print(f"hexhaven serve: {exc}", file=sys.stderr)
            return 2
    warn_if_interpreted()
    configure_logging(args.log_level)
    made = not is_postgres(args.db) and not Path(args.db).exists()
    store = open_store("serve", args.db)
    if store is None:
        if tls is not None:
            tls.close()
        return 2
    listening = False

    async def run() -> None:
        nonlocal listening
        stop = asyncio.Event()
        loop = asyncio.get_running_loop()
        for sig in (signal.SIGINT, signal.SIGTERM):
            loop.add_signal_handler(sig, stop.set)
        server = HexhavenServer(
            store,
            limits=limits,
            proxies=proxies,
            public_url=args.public_url,
            tls=tls,
            bot_workers=args.bot_workers,
            bot_launcher="process" if args.bot_processes else "host",
            bot_search_seconds=args.bot_search_seconds,
            away_grace=args.away_grace,
        )
        async with server.running(args.host, args.port):
            listening = True
            short_collections()
            await stop.wait()

    problem = None
    try:
        with asyncio.Runner(loop_factory=event_loop(args.event_loop)) as runner:
            runner.run(run())
    except OSError as exc:
        if listening:
            raise
        problem = listen_problem(exc)
    finally:
        store.close()
        if tls is not None:
            tls.close()
    if problem is None:
        return 0
    where = f"[{args.host}]:{args.port}" if ":" in args.host else f"{args.host}:{args.port}"
    print(f"hexhaven serve: cannot listen on {where}: {problem}", file=sys.stderr)
    if made:  # it served nothing: leave no empty database behind
        for suffix in ("", "-wal", "-shm"):
            Path(f"{args.db}{suffix}").unlink(missing_ok=True)
    return 1


def _verify(args: argparse.Namespace) -> int:
    from server.verify import verify_game

    store = open_store("verify", args.db, must_exist=True)
    if store is None:
        return 2
    try:
        stored = store.load(args.game)
    finally:
        store.close()
    if stored is None:
        print(f"hexhaven verify: no game {args.game!r} in {store.where}", file=sys.stderr)
        return 2
    verdict = verify_game(stored)
    if verdict.ok:
        print(
            f"game {verdict.game}: seed matches its published hash; "
            f"{verdict.actions} actions replayed, all {verdict.rolls} rolls match"
        )
        return 0
    for problem in verdict.problems:
        print(f"game {verdict.game}: {problem}")
    return 1


def register(sub: Any) -> None:
    """Add ``serve`` and ``verify``."""
    serve = sub.add_parser("serve", help="run a game server")
    serve.add_argument("--host", default="127.0.0.1", help="address to listen on")
    serve.add_argument(
        "--port", type=port, default=8765, help="port to listen on (0: any free one)"
    )
    serve.add_argument(
        "--db",
        default="hexhaven.db",
        help="the games database: a SQLite file (created; default ./hexhaven.db) or a "
        "postgresql://USER:PASSWORD@HOST/DB URL (pip install '.[postgres]')",
    )
    serve.add_argument("--log-level", default="info", choices=["debug", "info", "warning"])
    serve.add_argument(
        "--limit",
        action="append",
        default=[],
        metavar="NAME=VALUE",
        help="change one of the server's limits (repeatable), e.g. games=500, chat=10/3 "
        "(a budget: per minute/at once), address.joins=40/20; docs/protocol.md lists them",
    )
    serve.add_argument(
        "--public-url",
        default=None,
        metavar="URL",
        help="how players reach this process (ws://HOST:PORT or wss://...), given to them "
        "when they ask another process sharing the PostgreSQL database for one of this "
        "one's games; default: the address it listens on",
    )
    serve.add_argument(
        "--tls-cert",
        default=None,
        metavar="FILE",
        help="serve TLS (wss://, and https:// for /healthz and /metrics) with the "
        "certificate in FILE (PEM: the server's certificate, then its chain); with --tls-key",
    )
    serve.add_argument(
        "--tls-key",
        default=None,
        metavar="FILE",
        help="the certificate's private key (PEM, unencrypted); with --tls-cert",
    )
    serve.add_argument(
        "--trusted-proxy",
        action="append",
        default=[],
        metavar="ADDRESS",
        help="a reverse proxy in front of the server (an address or a network such as "
        "10.0.0.0/8; repeatable): for connections from it, the client's address, which the "
        "per-address limits count, is taken from X-Forwarded-For",
    )
    serve.add_argument(
        "--bot-workers",
        type=int,
        default=None,
        metavar="N",
        help="search worker processes of the bot host, which plays every bot seat of the "
        "server in one process (default: one a core)",
    )
    serve.add_argument(
        "--bot-search-seconds",
        type=float,
        default=None,
        metavar="SECONDS",
        help="the longest one decision of a bot in the bot host may search, when the "
        "game's turn timer does not end it sooner (default 10)",
    )
    serve.add_argument(
        "--away-grace",
        type=float,
        default=30.0,
        metavar="SECONDS",
        help="how long a person who lost their connection to a started game keeps their "
        "seat to themselves before a stand-in bot plays it (default 30)",
    )
    serve.add_argument(
        "--event-loop",
        choices=EVENT_LOOPS,
        default="uvloop",
        help="the event loop: uvloop's (default, where installed) or asyncio's own",
    )
    serve.add_argument(
        "--bot-processes",
        action="store_true",
        help="run each bot seat as a process of its own (hexhaven bot) instead of in the bot host",
    )
    serve.set_defaults(run=_serve)
    verify = sub.add_parser("verify", help="check a finished game's dice against its seed")
    verify.add_argument("game", help="the game id")
    verify.add_argument(
        "--db",
        default="hexhaven.db",
        help="the server's games database, as serve's --db (default ./hexhaven.db)",
    )
    verify.set_defaults(run=_verify)
