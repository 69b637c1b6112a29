"""The commands that open the terminal UI: ``play``, ``host``, ``join``, ``watch`` and
``replay`` (their work is in :mod:`app.play`)."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from app.board_choice import BOARD_HELP
from app.commands.common import add_cafile, bad_url, client_tls
from app.engine_build import warn_if_interpreted

if TYPE_CHECKING:
    import ssl

    from protocol.messages import GameOptions


def _trust(command: str, url: str, cafile: str | None) -> ssl.SSLContext | Literal[False] | None:
    """The context ``--cafile`` asks for (None: the system's trust store), or False after
    saying on stderr why it cannot be had."""
    from clients.tls import TrustError

    try:
        return client_tls(url, cafile)
    except TrustError as exc:
        print(f"hexhaven {command}: {exc}", file=sys.stderr)
        return False


def _tui_options(args: argparse.Namespace, *, private: bool = False) -> GameOptions:
    from app.play import game_options

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
        offer_window=args.offer_window,
        private=private,
        min_fairness=args.min_fairness,
        balance=args.balance,
    )


def _play(args: argparse.Namespace) -> int:
    from app.play import local_agents, play

    if args.bots is None:
        args.bots = max(0, 3 - len(args.agent))
    try:
        local_agents(args.agent)  # a spec that makes no agent fails here, before any game
        if args.players is None:
            args.players = args.bots + 1 + len(args.agent)
        elif args.agent and args.players != args.bots + 1 + len(args.agent):
            raise ValueError(
                f"{args.players} seats are not you, {args.bots} bots and "
                f"{len(args.agent)} agents (--players, --bots, --agent)"
            )
        options = _tui_options(args)
    except ValueError as exc:
        print(f"hexhaven play: {exc}", file=sys.stderr)
        return 2
    warn_if_interpreted()
    db = Path(args.db) if args.db else None
    return play(options=options, name=args.name, resume=args.resume, db=db, agents=args.agent)


def _host(args: argparse.Namespace) -> int:
    if bad_url("host", args.url):
        return 2
    from app.play import host

    tls = _trust("host", args.url, args.cafile)
    if tls is False:
        return 2
    try:
        options = _tui_options(args, private=True)
    except ValueError as exc:
        print(f"hexhaven host: {exc}", file=sys.stderr)
        return 2
    return host(url=args.url, options=options, name=args.name, tls=tls, cafile=args.cafile)


def _join(args: argparse.Namespace) -> int:
    if bad_url("join", args.url):
        return 2
    if args.token_file == "-" and not sys.stdin.isatty():
        print(
            "hexhaven join: --token-file - asks for the token on the terminal, and standard "
            "input is not one (the game needs it for your keys): give a file instead",
            file=sys.stderr,
        )
        return 2
    tls = _trust("join", args.url, args.cafile)
    if tls is False:
        return 2
    from app.play import join

    return join(
        url=args.url,
        code=args.code,
        name=args.name,
        token_file=args.token_file,
        tls=tls,
        cafile=args.cafile,
    )


def _watch(args: argparse.Namespace) -> int:
    if bad_url("watch", args.url):
        return 2
    tls = _trust("watch", args.url, args.cafile)
    if tls is False:
        return 2
    from app.play import watch

    return watch(url=args.url, game=args.game, tls=tls)


def _replay(args: argparse.Namespace) -> int:
    from app.play import replay

    target = list(args.target)
    url = None
    tls: ssl.SSLContext | None = None
    if len(target) == 2 or (target and "://" in target[0]):
        url = target.pop(0)  # URL GAME, or a URL alone
        if bad_url("replay", url):
            return 2
        trusted = _trust("replay", url, args.cafile)
        if trusted is False:
            return 2
        tls = trusted
    elif args.cafile is not None:
        print(
            "hexhaven replay: --cafile is for a game fetched from a server (URL GAME)",
            file=sys.stderr,
        )
        return 2
    if len(target) > 1:
        print("hexhaven replay: give [URL] GAME", file=sys.stderr)
        return 2
    game = target[0] if target else None
    db = Path(args.db) if args.db else None
    return replay(game=game, url=url, db=db, seat=args.seat, tls=tls)


def _add_game_options(p: argparse.ArgumentParser, bots: int, *, host: bool = False) -> None:
    p.add_argument("--name", default="host" if host else "you", help="your name at the table")
    p.add_argument(
        "--players",
        type=int,
        default=None,
        help="seats at the table, 2 to 4 (default: "
        + ("4, whatever --bots says)" if host else "one more than the bots and agents)"),
    )
    p.add_argument(
        "--bots",
        type=int,
        default=bots,
        help="how many bots the game has (default 0): when you start, they take the seats "
        "still empty, at most this many; the game cannot start with more seats empty"
        if host
        else "seats played by the server's bots (default 3, less one for each --agent)",
    )
    p.add_argument(
        "--bot-kind",
        default=None,
        choices=["random", "heuristic", "uct"],
        help="the bots' kind (default uct, the search bot)",
    )
    p.add_argument(
        "--strength",
        default=None,
        choices=["easy", "quick", "medium", "hard"],
        help="uct bots' strength (default quick: medium's play within a second a move)",
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
    p.add_argument(
        "--offer-window",
        type=float,
        default=None,
        metavar="SECONDS",
        help="seconds the players asked by an offer have to answer it (default 20); one who "
        "has not answered by then has declined",
    )


def register(sub: Any) -> None:
    """Add ``play``, ``host``, ``join``, ``watch`` and ``replay``."""
    play = sub.add_parser(
        "play",
        help="play against bots in the terminal (an embedded server, nothing to set up)",
        description="Play a game against bots in the terminal UI. An embedded server runs on "
        "127.0.0.1 with its games in the data directory ($XDG_DATA_HOME/hexhaven or "
        "~/.local/share/hexhaven); the bots are processes it starts. Press ? in the game "
        "for the keys.",
    )
    _add_game_options(play, bots=3)
    play.set_defaults(bots=None)  # 3, less one for each --agent
    play.add_argument(
        "--agent",
        action="append",
        default=[],
        metavar="SPEC",
        help="a seat played in this process by a bot of any kind, as hexhaven arena takes "
        "them: 'heuristic', 'uct:rollouts=200', 'policy:weights=policy.npz' (repeatable; "
        "the server's bots take the other seats)",
    )
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
    add_cafile(host_cmd)
    _add_game_options(host_cmd, bots=0, host=True)
    host_cmd.set_defaults(run=_host)
    join_cmd = sub.add_parser(
        "join", help="take a seat in a game by its invite code", allow_abbrev=False
    )
    join_cmd.add_argument("url", help="the server, e.g. ws://HOST:8765")
    join_cmd.add_argument("code", help="the invite code (or the game id)")
    add_cafile(join_cmd)
    join_cmd.add_argument("--name", default="guest", help="your name at the table")
    join_cmd.add_argument(
        "--token-file",
        default=None,
        metavar="FILE",
        help="the file holding your seat's token, to come back to it from another machine "
        "(CODE is then the game id; -: type the token, unseen). Without it, a seat this "
        "machine holds in that game is taken back with the token kept in the data directory",
    )
    join_cmd.set_defaults(run=_join)
    watch_cmd = sub.add_parser("watch", help="watch a game as a spectator")
    watch_cmd.add_argument("url", help="the server, e.g. ws://HOST:8765")
    watch_cmd.add_argument("game", help="the game id")
    add_cafile(watch_cmd)
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
    add_cafile(replay_cmd)
    replay_cmd.add_argument(
        "--seat", type=int, default=None, help="see the game as this seat saw it (its hand)"
    )
    replay_cmd.set_defaults(run=_replay)
