"""The ``hexhaven ladder`` command: ``run``, ``show``, ``ab``, ``paired``, ``export`` and
``import``.

:func:`register` adds it to the ``hexhaven`` parser; each subcommand sets ``run`` to a
function of the parsed arguments returning the exit code (0 done, 1 a game or the store
failed, 2 bad arguments or configuration).
"""

from __future__ import annotations

import argparse
import json
import shlex
import signal
import sys
from collections.abc import Callable
from dataclasses import asdict
from pathlib import Path
from typing import Any

from tournament.ladder.config import ConfigError, LadderConfig, load_config
from tournament.ladder.store import ENV, LadderStore, StoreError, open_store

_DB_HELP = (
    "the store: a SQLite file or a postgresql:// URL (default: $"
    + ENV
    + ", else games.db in the data directory hexhaven play uses)"
)


def _err(text: str) -> None:
    print(f"hexhaven ladder: {text}", file=sys.stderr)


def _leaderboard(store: LadderStore, name: str, out: Callable[[str], None]) -> None:
    from tournament.ladder.ratings import (
        SELF_PLAY_NOTE,
        format_leaderboard,
        is_self_play,
        leaderboard,
    )
    from tournament.ladder.run import outcomes

    games = outcomes(store, name)
    for line in format_leaderboard(leaderboard(games, store.budgets(name))):
        out(line)
    if is_self_play(games):
        out(SELF_PLAY_NOTE)


def _backend_args(args: argparse.Namespace) -> dict[str, Any]:
    from clients.urls import server_url_problem

    backend = "server" if args.server else args.backend
    problem = server_url_problem(args.server) if args.server else None
    if problem is not None:
        raise ValueError(problem)
    if args.server and args.backend == "ray":
        raise ValueError("--server and --backend ray do not go together")
    if args.address and backend != "ray":
        raise ValueError("--address is for --backend ray")
    if args.workers is not None and args.workers < 1:
        raise ValueError("--workers must be at least 1")
    return {"backend": backend, "address": args.address, "server": args.server}


def _resume_command(args: argparse.Namespace, *head: str) -> str:
    """The command that goes on with a stopped ``ladder run`` or ``ladder ab`` (``head``:
    the subcommand and its positional arguments) as it was asked, less ``--fresh``."""
    words = ["hexhaven", "ladder", *head]
    options: list[tuple[str, object]] = [
        ("--games", getattr(args, "games", None)),
        ("--max-games", getattr(args, "max_games", None)),
        ("--workers", args.workers),
        ("--server", args.server),
        ("--backend", None if args.server or args.backend == "process" else args.backend),
        ("--address", args.address),
        ("--db", args.db),
    ]
    for flag, value in options:
        if value is not None:
            words += [flag, str(value)]
    if head[0] == "ab":
        defaults = {"alpha": 0.05, "beta": 0.05}
        for name in ("elo0", "elo1", "p0", "p1", "alpha", "beta"):
            value = getattr(args, name)
            if value is not None and value != defaults.get(name):
                words += [f"--{name}", str(value)]
    return shlex.join(words)


def _stopped(signum: int) -> int:
    """The exit code of a command a signal stopped: 128 and the signal's number."""
    return 128 + signum


def _run(args: argparse.Namespace) -> int:
    from tournament.ladder.games import quiet_logs
    from tournament.ladder.run import (
        LadderError,
        LadderRefused,
        LadderStopped,
        Signalled,
        default_workers,
        run_ladder,
        stop_on_signals,
    )

    quiet_logs()
    try:
        config = load_config(args.config)
        backend = _backend_args(args)
    except (ConfigError, ValueError) as exc:
        _err(str(exc))
        return 2
    resume = _resume_command(args, "run", args.config)
    try:
        with open_store(args.db) as store, stop_on_signals():
            try:
                result = run_ladder(
                    config,
                    store,
                    games=args.games,
                    workers=args.workers or config.ladder.workers or default_workers(config),
                    fresh=args.fresh,
                    **backend,
                )
            except LadderStopped as exc:
                name, stored = exc.result.name, len(store.done(exc.result.name))
                _err(f"stopped by {signal.Signals(exc.signum).name}")
                print(
                    f"ladder {name}: stopped; {stored - exc.result.before} game(s) played in "
                    f"this run, {stored} of {exc.result.planned} stored (a game under way "
                    "when it stopped is played again from its start)"
                )
                _leaderboard(store, name, print)
                print(f"ladder {name}: go on with: {resume}")
                return _stopped(exc.signum)
            print(f"ladder {result.name}: {result.played} game(s) played in this run")
            _leaderboard(store, config.ladder.name, print)
    except (StoreError, LadderRefused) as exc:
        _err(str(exc))
        return 2
    except LadderError as exc:
        _err(f"stopped: {exc} (the games finished so far are stored; run again to go on)")
        return 1
    except Signalled as exc:  # before any game: nothing more to tell
        _err(f"stopped by {signal.Signals(exc.signum).name}; go on with: {resume}")
        return _stopped(exc.signum)
    except KeyboardInterrupt:
        _err(f"interrupted; the games finished so far are stored; go on with: {resume}")
        return _stopped(signal.SIGINT)
    return 0


def _name_of(target: str) -> str:
    """A ladder name, or the name in a ladder file."""
    path = Path(target)
    if path.suffix == ".toml" or path.is_file():
        return load_config(path).ladder.name
    return target


def _show(args: argparse.Namespace) -> int:
    from tournament.ladder.ratings import leaderboard, rating_history, seat_records
    from tournament.ladder.run import outcomes

    try:
        name = _name_of(args.ladder)
    except ConfigError as exc:
        _err(str(exc))
        return 2
    try:
        with open_store(args.db, create=False) as store:
            if store.ladder_config(name) is None:
                known = store.ladders()
                _err(
                    f"no ladder {name!r} in {store.where}"
                    + (f"; ladders: {', '.join(known)}" if known else "")
                )
                return 2
            games = outcomes(store, name)
            budgets = store.budgets(name)
    except StoreError as exc:
        _err(str(exc))
        return 2
    rows = leaderboard(games, budgets)
    seats = seat_records(games) if args.seats else None
    if args.json:
        document: dict[str, Any] = {
            "ladder": name,
            "games": len(games),
            "rows": [asdict(r) for r in rows],
        }
        if seats is not None:
            document["seats"] = {
                label: [asdict(r) for r in records] for label, records in seats.items()
            }
        print(json.dumps(document, indent=2))
    else:
        from tournament.ladder.ratings import (
            SELF_PLAY_NOTE,
            format_leaderboard,
            format_seat_records,
            is_self_play,
        )

        print(f"ladder {name}: {len(games)} game(s)")
        for line in format_leaderboard(rows):
            print(line)
        if is_self_play(games):
            print(SELF_PLAY_NOTE)
        if seats is not None:
            print("\nwins by seat (seat 0 places first):")
            for line in format_seat_records(seats):
                print(line)
    if args.plot:
        from tournament.ladder.plot import plot_ratings

        if not games:
            _err("no games to plot yet")
            return 2
        try:
            plot_ratings(rating_history(games), Path(args.plot), f"ladder {name}")
        except (ImportError, OSError, ValueError) as exc:
            _err(f"cannot plot: {exc}")
            return 1
        if not args.json:
            print(f"ratings plotted to {args.plot}")
    return 0


def _export(args: argparse.Namespace) -> int:
    from tournament.ladder.archive import ArchiveError, dump_archive, export_ladder, write_archive

    try:
        name = _name_of(args.ladder)
        with open_store(args.db, create=False) as store:
            archive = export_ladder(store, name)
    except (ConfigError, StoreError, ArchiveError) as exc:
        _err(str(exc))
        return 2
    if args.output is None:
        print(dump_archive(archive), end="")
        return 0
    try:
        write_archive(archive, Path(args.output))
    except OSError as exc:
        _err(f"cannot write {args.output}: {exc.strerror or exc}")
        return 1
    print(f"ladder {name}: {len(archive.games)} game(s) written to {args.output}")
    return 0


def _import(args: argparse.Namespace) -> int:
    from tournament.ladder.archive import ArchiveError, import_ladder, read_archive

    try:
        archive = read_archive(Path(args.archive))
        with open_store(args.db) as store:
            added, held = import_ladder(store, archive)
            print(
                f"ladder {archive.name}: {added} game(s) added to {store.where}"
                + (f", {held} already held" if held else "")
            )
            _leaderboard(store, archive.name, print)
    except (ArchiveError, StoreError) as exc:
        _err(str(exc))
        return 2
    return 0


def _ab(args: argparse.Namespace) -> int:
    from tournament.ladder.ab import run_ab
    from tournament.ladder.games import quiet_logs
    from tournament.ladder.run import LadderError, LadderRefused, Signalled, stop_on_signals
    from tournament.ladder.sprt import DEFAULT_P0, DEFAULT_P1, SPRT, elo_to_p

    quiet_logs()
    try:
        config: LadderConfig = load_config(args.config)
        backend = _backend_args(args)
        if (args.elo0 is None) != (args.elo1 is None):
            raise ValueError("give both --elo0 and --elo1")
        if (args.p0 is None) != (args.p1 is None):
            raise ValueError("give both --p0 and --p1")
        if args.elo0 is not None and args.p0 is not None:
            raise ValueError("give the hypotheses as --elo0/--elo1 or as --p0/--p1, not both")
        if args.elo0 is not None:
            p0, p1 = elo_to_p(args.elo0), elo_to_p(args.elo1)
        else:
            p0 = DEFAULT_P0 if args.p0 is None else args.p0
            p1 = DEFAULT_P1 if args.p1 is None else args.p1
        test = SPRT(p0, p1, args.alpha, args.beta)
    except (ConfigError, ValueError) as exc:
        _err(str(exc))
        return 2
    resume = _resume_command(args, "ab", args.config, args.a, args.b)
    try:
        with open_store(args.db) as store, stop_on_signals():
            run_ab(
                config,
                store,
                args.a,
                args.b,
                test,
                max_games=args.max_games,
                workers=args.workers or config.ladder.workers or 1,
                fresh=args.fresh,
                **backend,
            )
    except (StoreError, LadderRefused) as exc:
        _err(str(exc))
        return 2
    except LadderError as exc:
        _err(str(exc))
        return 1
    except Signalled as exc:
        _err(
            f"stopped by {signal.Signals(exc.signum).name}; the games finished so far are "
            f"stored ({test.status()}); go on with: {resume}"
        )
        return _stopped(exc.signum)
    except KeyboardInterrupt:
        _err(f"interrupted; the games finished so far are stored; go on with: {resume}")
        return _stopped(signal.SIGINT)
    return 0


def _paired_side(
    target: str, store: Callable[[], LadderStore]
) -> tuple[str, dict[str, tuple[dict[str, Any], str]], list[Any]]:
    """A ladder to compare: (name, entrants, games), from an exported file (``.jsonl``) or
    from the store by name or ladder file."""
    if target.endswith(".jsonl"):
        from tournament.ladder.archive import read_archive

        archive = read_archive(Path(target))
        entrants = {e.label: (e.config, e.budget) for e in archive.entrants}
        return archive.name, entrants, list(archive.games)
    name = _name_of(target)
    opened = store()
    if opened.ladder_config(name) is None:
        raise StoreError(f"no ladder {name!r} in {opened.where}")
    return name, opened.entrants(name), opened.games(name)


def _paired(args: argparse.Namespace) -> int:
    from contextlib import ExitStack

    from tournament.ladder.archive import ArchiveError
    from tournament.ladder.paired import (
        PairingError,
        compared_label,
        format_paired,
        pair,
        paired_document,
    )

    with ExitStack() as stack:
        opened: list[LadderStore] = []

        def store() -> LadderStore:
            if not opened:
                opened.append(stack.enter_context(open_store(args.db, create=False)))
            return opened[0]

        try:
            a_name, a_entrants, a_games = _paired_side(args.a, store)
            b_name, b_entrants, b_games = _paired_side(args.b, store)
            a_label = args.entrant_a or compared_label(a_entrants, b_entrants, a_name)
            b_label = args.entrant_b or compared_label(b_entrants, a_entrants, b_name)
            result = pair(
                (a_name, a_label, a_entrants, a_games), (b_name, b_label, b_entrants, b_games)
            )
        except (ArchiveError, ConfigError, StoreError, PairingError) as exc:
            _err(str(exc))
            return 2
    if args.json:
        print(json.dumps(paired_document(result), indent=2))
    else:
        for line in format_paired(result):
            print(line)
    return 0


def _add_run_options(p: argparse.ArgumentParser, workers: str) -> None:
    p.add_argument("--workers", type=int, default=None, help=f"games at once (default: {workers})")
    p.add_argument(
        "--backend",
        choices=["process", "ray"],
        default="process",
        help="local processes (default) or Ray tasks",
    )
    p.add_argument(
        "--address",
        default=None,
        help="the Ray cluster (ray.init address; default: a local Ray instance)",
    )
    p.add_argument(
        "--server",
        metavar="URL",
        default=None,
        help="play through the server at URL, every seat its own process",
    )
    p.add_argument("--db", default=None, help=_DB_HELP)
    p.add_argument(
        "--fresh", action="store_true", help="delete the ladder's stored games and start again"
    )


def _stored_ladder_command(
    sub: Any, name: str, summary: str, description: str
) -> argparse.ArgumentParser:
    """A subcommand about one stored ladder: its name (or file) and the store."""
    command: argparse.ArgumentParser = sub.add_parser(name, help=summary, description=description)
    command.add_argument("ladder", help="the ladder's name, or its file")
    command.add_argument("--db", default=None, help=_DB_HELP)
    return command


def register(subparsers: Any) -> argparse.ArgumentParser:
    """Add the ``ladder`` command and its subcommands to ``subparsers`` (what
    ``ArgumentParser.add_subparsers`` returns); returns the ``ladder`` parser."""
    ladder: argparse.ArgumentParser = subparsers.add_parser(
        "ladder",
        help="bot tournaments: rotated seats, ratings, kept results, A/B tests",
        description="Play the entrants of a ladder file (TOML) against each other with seats "
        "rotated, keep every game in the store, rate them (openskill) and test one against "
        "another (SPRT). docs/ladder.md describes the file.",
    )
    sub = ladder.add_subparsers(dest="ladder_command", required=True)
    run = sub.add_parser(
        "run",
        help="play a ladder's games (resumes: stored games are not played again)",
        description="Play the games of the ladder file that the store does not hold yet, "
        "each stored when it finishes, then print the leaderboard. Run it again after an "
        "interruption to go on; changing the file's entrants or game options is refused "
        "unless --fresh.",
    )
    run.add_argument("config", help="the ladder file (TOML)")
    run.add_argument("--games", type=int, default=None, help="games in all (default: the file's)")
    _add_run_options(run, "the file's workers, else one per core")
    run.set_defaults(run=_run)
    show = _stored_ladder_command(
        sub,
        "show",
        "print a ladder's leaderboard",
        "The leaderboard of a stored ladder: per entrant its budget, games, wins, win rate "
        "with its 95% Wilson interval, mean victory points, mean rank, ms per decision and "
        "openskill rating (mu ± sigma; sorted by the ordinal mu - 3 sigma); with --seats also "
        "the wins in each seat.",
    )
    show.add_argument("--plot", metavar="OUT.png", help="also draw the ratings over games played")
    show.add_argument("--json", action="store_true", help="print the leaderboard as JSON")
    show.add_argument(
        "--seats",
        action="store_true",
        help="also each entrant's wins in each seat, and every entrant's together",
    )
    show.set_defaults(run=_show)
    ab = sub.add_parser(
        "ab",
        help="a sequential test between two entrants, stopping when it decides",
        description="Play entrant A against entrant B (alternating seats: two each in a "
        "four-player game) and print the log-likelihood ratio after each game; stop as soon "
        "as H1 (A beats B with probability p1) or H0 (with probability p0) is accepted. A "
        "game counts for A when A's best seat finishes ahead of B's. Games are stored under "
        "the ladder NAME:ab:A:B and a stopped test resumes. Default hypotheses: p0 0.5, p1 "
        "0.6.",
    )
    ab.add_argument("config", help="the ladder file (TOML)")
    ab.add_argument("a", metavar="A", help="an entrant's name")
    ab.add_argument("b", metavar="B", help="another entrant's name")
    ab.add_argument("--elo0", type=float, default=None, help="H0 as an Elo difference of A")
    ab.add_argument("--elo1", type=float, default=None, help="H1 as an Elo difference of A")
    ab.add_argument("--p0", type=float, default=None, help="H0: P(A ahead of B) (default 0.5)")
    ab.add_argument("--p1", type=float, default=None, help="H1: P(A ahead of B) (default 0.6)")
    ab.add_argument("--alpha", type=float, default=0.05, help="false H1 rate (default 0.05)")
    ab.add_argument("--beta", type=float, default=0.05, help="false H0 rate (default 0.05)")
    ab.add_argument(
        "--max-games", type=int, default=1000, help="give up undecided after this many games"
    )
    _add_run_options(ab, "the file's workers, else 1")
    ab.set_defaults(run=_ab)
    paired = sub.add_parser(
        "paired",
        help="compare two ladders' entrants game by game on the same games",
        description="Compare an entrant of ladder A with one of ladder B on the games both "
        "hold, when the ladders share their game seeds, seating and other entrants (a bot and "
        "its variant, each against the same field): each entrant's wins and win rate, how "
        "the games split (both won, only A, only B, neither), the difference in win rate with "
        "its 95% interval, and McNemar's test on the games only one of the two won. A "
        "ladder is a name in the store, a ladder file, or a file from `hexhaven ladder "
        "export` (.jsonl, read without a store).",
    )
    paired.add_argument("a", metavar="A", help="a ladder: its name, its file, or an export")
    paired.add_argument("b", metavar="B", help="the ladder to compare it with")
    paired.add_argument(
        "--entrant-a",
        metavar="LABEL",
        default=None,
        help="A's compared entrant (default: the one entrant B lacks)",
    )
    paired.add_argument(
        "--entrant-b",
        metavar="LABEL",
        default=None,
        help="B's compared entrant (default: the one entrant A lacks)",
    )
    paired.add_argument("--db", default=None, help=_DB_HELP)
    paired.add_argument("--json", action="store_true", help="print the comparison as JSON")
    paired.set_defaults(run=_paired)
    export = _stored_ladder_command(
        sub,
        "export",
        "write a ladder's stored games to a file (JSON Lines)",
        "Write everything the store keeps of a ladder (its configuration, entrants and "
        "games) as JSON Lines, for `hexhaven ladder import` into another store: to go on "
        "with a ladder on another machine, to keep a ladder's results beside its file, to "
        "move it from SQLite to PostgreSQL.",
    )
    export.add_argument(
        "-o", "--output", metavar="FILE", default=None, help="the file (default: print it)"
    )
    export.set_defaults(run=_export)
    imp = sub.add_parser(
        "import",
        help="add the games of an exported ladder to a store",
        description="Add the games of a file written by `hexhaven ladder export` to the store, "
        "creating the ladder if the store lacks it; games the store already holds are "
        "skipped, so `ladder run` then plays only the rest. A file whose configuration or "
        "games disagree with the store is refused whole.",
    )
    imp.add_argument("archive", metavar="FILE", help="a file from hexhaven ladder export")
    imp.add_argument("--db", default=None, help=_DB_HELP)
    imp.set_defaults(run=_import)
    return ladder
