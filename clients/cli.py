"""The ``hexhaven`` command."""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from clients.board_choice import BOARD_HELP
from engine import ConfigError, GameConfig

if TYPE_CHECKING:
    from protocol.messages import GameOptions
    from server.store import Store

URL_EXAMPLE = "ws://127.0.0.1:8765"
"""A server URL as commands show it in their messages (``hexhaven serve``'s default)."""


def _parses(url: str) -> bool:
    from websockets.exceptions import InvalidURI
    from websockets.uri import parse_uri

    if any(c.isspace() for c in url):
        return False  # websockets takes "ws://a b", but no host has a space
    try:
        parse_uri(url)
    except (InvalidURI, ValueError):
        return False
    return True


def server_url_problem(url: str) -> str | None:
    """Why ``url`` cannot name a server, as one sentence naming it and showing the form
    that works; None when it can (``ws://HOST:PORT`` or ``wss://HOST:PORT``)."""
    from urllib.parse import urlparse

    from websockets.exceptions import InvalidURI
    from websockets.uri import parse_uri

    scheme, sep, rest = url.partition("://")
    if not sep or scheme.lower() not in ("ws", "wss"):
        example = f"{'wss' if sep and scheme.lower() == 'https' else 'ws'}://{rest if sep else url}"
        if not _parses(example):
            example = URL_EXAMPLE
        return f"{url!r} is not a server URL: it must start with ws:// or wss://, e.g. {example}"
    try:
        parse_uri(url)
    except InvalidURI as exc:
        why = "it names no host" if urlparse(url).hostname is None else exc.msg
    except ValueError:  # urllib's: a port that is not a number, or out of range
        why = "its port must be a number from 1 to 65535"
    else:
        return None
    return f"{url!r} is not a server URL: {why}; the form is {URL_EXAMPLE}"


def _bad_url(command: str, url: str) -> bool:
    """Whether ``url`` cannot name a server; if so, say why on stderr."""
    problem = server_url_problem(url)
    if problem is not None:
        print(f"hexhaven {command}: {problem}", file=sys.stderr)
    return problem is not None


def _store_problem(path: Path, exc: Exception) -> str:
    if path.is_dir():
        return "it is a folder, not a file"
    folder = path.parent
    if not folder.exists():
        return f"the folder {folder} does not exist"
    if not folder.is_dir():
        return f"{folder} is not a folder"
    if not path.exists() and not os.access(folder, os.W_OK):
        return f"no permission to create a file in {folder}"
    return str(exc)


def open_store(command: str, path: str | Path, *, must_exist: bool = False) -> Store | None:
    """The games database at ``path`` (created unless ``must_exist``), or None after
    saying on stderr why it cannot be opened: no such file (with ``must_exist``: nothing is
    created), a missing folder, a file that is not a database, a PostgreSQL server that
    cannot be reached..."""
    import sqlite3

    from server.store import Store, StoreError, is_postgres

    if is_postgres(str(path)):
        try:
            return Store(path)
        except StoreError as exc:
            print(f"hexhaven {command}: {exc}", file=sys.stderr)
            return None
    file = Path(path)
    if must_exist and not file.is_file():
        why = "it is a folder, not a file" if file.is_dir() else "no such file"
        print(f"hexhaven {command}: {why}: {file}", file=sys.stderr)
        return None
    try:
        return Store(file)
    except sqlite3.Error as exc:
        why = _store_problem(file, exc)
        print(f"hexhaven {command}: cannot open the database {file}: {why}", file=sys.stderr)
        return None


def _port(text: str) -> int:
    """An argparse type: a TCP port number, 0 to 65535."""
    try:
        port = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"a port is a number, not {text!r}") from None
    if not 0 <= port <= 65535:
        raise argparse.ArgumentTypeError(f"a port is 0 to 65535, not {port}")
    return port


def _listen_problem(exc: OSError) -> str:
    import errno
    import socket

    if isinstance(exc, socket.gaierror):
        return f"unknown host name ({exc.strerror or exc})"
    match exc.errno:
        case errno.EADDRINUSE:
            return "the port is already in use (by another server?); choose another with --port"
        case errno.EADDRNOTAVAIL:
            return "this machine has no such address (--host)"
        case errno.EACCES:
            return "permission denied (ports below 1024 need special rights)"
    return exc.strerror or str(exc)


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


def _serve(args: argparse.Namespace) -> int:
    import asyncio
    import signal

    from server.app import HexhavenServer
    from server.log import configure_logging

    configure_logging(args.log_level)
    from server.store import is_postgres

    made = not is_postgres(args.db) and not Path(args.db).exists()
    store = open_store("serve", args.db)
    if store is None:
        return 2
    listening = False

    async def run() -> None:
        nonlocal listening
        stop = asyncio.Event()
        loop = asyncio.get_running_loop()
        for sig in (signal.SIGINT, signal.SIGTERM):
            loop.add_signal_handler(sig, stop.set)
        async with HexhavenServer(store).running(args.host, args.port):
            listening = True
            await stop.wait()

    problem = None
    try:
        asyncio.run(run())
    except OSError as exc:
        if listening:
            raise
        problem = _listen_problem(exc)
    finally:
        store.close()
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


def _bot(args: argparse.Namespace) -> int:
    from bots import make_agent
    from server.log import configure_logging

    if _bad_url("bot", args.url):
        return 2
    if args.token and not args.game:
        print("hexhaven bot: --token needs --game", file=sys.stderr)
        return 2
    configure_logging("warning")
    params: dict[str, str] = {}
    for item in args.param:
        name, eq, value = item.partition("=")
        if not eq or not name:
            print(f"hexhaven bot: --param takes NAME=VALUE, not {item!r}", file=sys.stderr)
            return 2
        params[name] = value
    if args.strength:
        params.setdefault("strength", args.strength)
    try:
        agent = make_agent(args.kind, args.seed, params)
    except ValueError as exc:
        print(f"hexhaven bot: {exc}", file=sys.stderr)
        return 2
    if args.name:
        agent.name = args.name
    from clients.bot_cli import run_bot

    return run_bot(args, agent)


def _agent(args: argparse.Namespace) -> int:
    import asyncio
    import shlex

    from clients.bridge import BridgeError, run_bridge
    from server.log import configure_logging

    configure_logging(args.log_level)
    if _bad_url("agent", args.url):
        return 2
    if args.token and not args.game:
        print("hexhaven agent: --token needs --game", file=sys.stderr)
        return 2
    if not (args.invite or args.game):
        print("hexhaven agent: give --invite CODE, or --game GAME (with --token)", file=sys.stderr)
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
        over = asyncio.run(
            run_bridge(
                args.url,
                argv,
                game=args.game,
                token=args.token,
                invite=args.invite,
                name=args.name,
                timeout=args.timeout,
            )
        )
    except BridgeError as exc:
        print(f"hexhaven agent: {exc}", file=sys.stderr)
        return 2
    except OSError as exc:
        print(f"hexhaven agent: cannot reach {args.url}: {exc}", file=sys.stderr)
        return 1
    return 0 if over is not None else 1


def _arena(args: argparse.Namespace) -> int:
    from bots.arena import arena_command

    if args.server is not None and _bad_url("arena", args.server):
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


def _tui_options(args: argparse.Namespace, *, private: bool = False) -> GameOptions:
    from clients.tui.launch import game_options

    players = args.players
    if players is None:
        players = 4 if args.command == "host" else args.bots + 1
    return game_options(
        players=players,
        bots=args.bots,
        bot_kind=args.bot_kind,
        strength=args.strength,
        vp=args.vp,
        board=args.board,
        timer=args.timer,
        private=private,
        min_fairness=args.min_fairness,
        balance=args.balance,
    )


def _play(args: argparse.Namespace) -> int:
    from clients.tui.launch import play

    try:
        options = _tui_options(args)
    except ValueError as exc:
        print(f"hexhaven play: {exc}", file=sys.stderr)
        return 2
    db = Path(args.db) if args.db else None
    return play(options=options, name=args.name, resume=args.resume, db=db)


def _host(args: argparse.Namespace) -> int:
    if _bad_url("host", args.url):
        return 2
    from clients.tui.launch import host

    try:
        options = _tui_options(args, private=True)
    except ValueError as exc:
        print(f"hexhaven host: {exc}", file=sys.stderr)
        return 2
    return host(url=args.url, options=options, name=args.name)


def _join(args: argparse.Namespace) -> int:
    if _bad_url("join", args.url):
        return 2
    from clients.tui.launch import join

    return join(url=args.url, code=args.code, name=args.name, token=args.token)


def _watch(args: argparse.Namespace) -> int:
    if _bad_url("watch", args.url):
        return 2
    from clients.tui.launch import watch

    return watch(url=args.url, game=args.game)


def _replay(args: argparse.Namespace) -> int:
    from clients.tui.launch import replay

    target = list(args.target)
    url = None
    if len(target) == 2 or (target and "://" in target[0]):
        url = target.pop(0)  # URL GAME, or a URL alone
        if _bad_url("replay", url):
            return 2
    if len(target) > 1:
        print("hexhaven replay: give [URL] GAME", file=sys.stderr)
        return 2
    game = target[0] if target else None
    db = Path(args.db) if args.db else None
    return replay(game=game, url=url, db=db, seat=args.seat)


def _add_game_options(p: argparse.ArgumentParser, bots: int, *, host: bool = False) -> None:
    p.add_argument("--name", default="host" if host else "you", help="your name at the table")
    p.add_argument(
        "--players",
        type=int,
        default=None,
        help="seats at the table, 2 to 4 (default: "
        + ("4, whatever --bots says)" if host else "one more than the bots)"),
    )
    p.add_argument(
        "--bots",
        type=int,
        default=bots,
        help="how many bots the game has (default 0): when you start, they take the seats "
        "still empty, at most this many; the game cannot start with more seats empty"
        if host
        else "seats played by bots",
    )
    p.add_argument(
        "--bot-kind",
        default="heuristic",
        choices=["random", "heuristic", "uct"],
        help="the bots' kind",
    )
    p.add_argument(
        "--strength", default=None, choices=["easy", "medium", "hard"], help="uct bots' strength"
    )
    p.add_argument("--vp", type=int, default=10, help="victory points to win")
    p.add_argument("--board", default="random", metavar="BOARD", help=BOARD_HELP)
    p.add_argument(
        "--min-fairness",
        type=float,
        default=None,
        metavar="X",
        help="with --board fair: the fairness the board reaches, 0 to 0.99 (default 0.95)",
    )
    p.add_argument(
        "--balance",
        action="append",
        default=[],
        metavar="RULE=VALUE",
        help="with --board balanced: a constraint, e.g. max_pips=12 or separate_terrain=false "
        "(repeat for more; docs/boards.md)",
    )
    p.add_argument(
        "--timer", type=float, default=None, metavar="SECONDS", help="seconds per action"
    )


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="hexhaven", description="Hexhaven: the hex-island trading game, with bots."
    )
    sub = parser.add_subparsers(dest="command", required=True)
    demo = sub.add_parser("demo", help="watch a match between heuristic bots in the terminal")
    demo.add_argument("--seed", type=int, default=1, help="game seed (board and dice)")
    demo.add_argument("--players", type=int, default=4, help="2 to 4 players")
    demo.add_argument("--vp", type=int, default=10, help="victory points to win")
    demo.add_argument("--board", choices=["random", "spiral"], default="random")
    demo.add_argument("--radius", type=int, default=3, help="board radius (3 is standard)")
    demo.add_argument("--quiet", action="store_true", help="print only the result")
    demo.set_defaults(run=_demo)
    serve = sub.add_parser("serve", help="run a game server")
    serve.add_argument("--host", default="127.0.0.1", help="address to listen on")
    serve.add_argument(
        "--port", type=_port, default=8765, help="port to listen on (0: any free one)"
    )
    serve.add_argument(
        "--db",
        default="hexhaven.db",
        help="the games database: a SQLite file (created; default ./hexhaven.db) or a "
        "postgresql://USER:PASSWORD@HOST/DB URL (pip install 'hexhaven[postgres]')",
    )
    serve.add_argument("--log-level", default="info", choices=["debug", "info", "warning"])
    serve.set_defaults(run=_serve)
    verify = sub.add_parser("verify", help="check a finished game's dice against its seed")
    verify.add_argument("game", help="the game id")
    verify.add_argument(
        "--db",
        default="hexhaven.db",
        help="the server's games database, as serve's --db (default ./hexhaven.db)",
    )
    verify.set_defaults(run=_verify)
    bot = sub.add_parser("bot", help="play a seat with a bot, over the protocol")
    bot.add_argument("--url", required=True, help="the server, e.g. ws://127.0.0.1:8765")
    bot.add_argument("--game", default="", help="the game id")
    seat = bot.add_mutually_exclusive_group(required=True)
    seat.add_argument("--token", help="the seat token to play (rejoin)")
    seat.add_argument("--invite", help="an invite code to join with")
    bot.add_argument(
        "--kind", default="random", help="the bot kind: random, heuristic, uct or catanatron"
    )
    bot.add_argument(
        "--strength", default=None, help="a named strength of the kind (uct: easy, medium, hard)"
    )
    bot.add_argument(
        "--param",
        action="append",
        default=[],
        metavar="NAME=VALUE",
        help="a parameter of the bot (repeatable), e.g. rollouts=1000, cp=0.25, trees=4; "
        "catanatron: player=module:Class",
    )
    bot.add_argument("--name", default="", help="the name to sit under")
    bot.add_argument("--seed", type=int, default=None, help="the bot's own random seed")
    bot.set_defaults(run=_bot)
    agent_cmd = sub.add_parser(
        "agent",
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
    agent_seat.add_argument("--token", help="the seat token to play (rejoin; with --game)")
    agent_cmd.add_argument("--game", default="", help="the game id")
    agent_cmd.add_argument(
        "--cmd", required=True, metavar="'PROGRAM ARGS'", help="the program, as one string"
    )
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
    play = sub.add_parser(
        "play",
        help="play against bots in the terminal (an embedded server, nothing to set up)",
        description="Play a game against bots in the terminal UI. An embedded server runs on "
        "127.0.0.1 with its games in the data directory ($XDG_DATA_HOME/hexhaven or "
        "~/.local/share/hexhaven); the bots are processes it starts. Press ? in the game "
        "for the keys.",
    )
    _add_game_options(play, bots=3)
    play.add_argument(
        "--resume", action="store_true", help="go on with the game you left unfinished"
    )
    play.add_argument("--db", default=None, help="the SQLite file for games (default: data dir)")
    play.set_defaults(run=_play)
    host_cmd = sub.add_parser(
        "host",
        help="create a game on a running server and invite friends",
        description="Create a private game on a running server, print the invite code and "
        "the command friends type, and open the terminal UI for your seat. The game has "
        "--players seats (default 4) and --bots bots (default 0): it starts when you press s "
        "once PLAYERS - BOTS people, you included, have sat, and the bots then take the seats "
        "still empty. With --players 3 --bots 1, say, wait for one friend; with --players 2 "
        "--bots 1 you can start at once.",
    )
    host_cmd.add_argument("url", help="the server, e.g. ws://HOST:8765")
    _add_game_options(host_cmd, bots=0, host=True)
    host_cmd.set_defaults(run=_host)
    join_cmd = sub.add_parser("join", help="take a seat in a game by its invite code")
    join_cmd.add_argument("url", help="the server, e.g. ws://HOST:8765")
    join_cmd.add_argument("code", help="the invite code (or the game id)")
    join_cmd.add_argument("--name", default="guest", help="your name at the table")
    join_cmd.add_argument("--token", default=None, help="your seat token, to come back to it")
    join_cmd.set_defaults(run=_join)
    watch_cmd = sub.add_parser("watch", help="watch a game as a spectator")
    watch_cmd.add_argument("url", help="the server, e.g. ws://HOST:8765")
    watch_cmd.add_argument("game", help="the game id")
    watch_cmd.set_defaults(run=_watch)
    replay_cmd = sub.add_parser(
        "replay",
        help="step through a finished game, move by move (no game: list the finished ones)",
        description="Step through a finished game in the terminal UI, forward and back: "
        "the board, the players and the log as they were after each action. The game comes "
        "from the local store that hexhaven play writes (--db), or from a server "
        "(hexhaven replay ws://HOST:8765 GAME). With no game, list the finished games of "
        "the store. Keys: right/left (n/p) one action, Shift+right/left (PgDn/PgUp) one "
        "turn, Home/End, l the log, q quit.",
    )
    replay_cmd.add_argument(
        "target", nargs="*", metavar="[URL] GAME", help="the game id, after a server's URL"
    )
    replay_cmd.add_argument(
        "--db", default=None, help="the SQLite file of games (default: hexhaven play's)"
    )
    replay_cmd.add_argument(
        "--seat", type=int, default=None, help="see the game as this seat saw it (its hand)"
    )
    replay_cmd.set_defaults(run=_replay)
    from boards.cli import register as register_board

    register_board(sub)
    from bots.ladder.cli import register as register_ladder

    register_ladder(sub)
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
