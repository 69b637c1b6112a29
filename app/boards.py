"""The ``hexhaven board`` command: ``generate``, ``score``, ``search`` and ``render``.

:func:`register` adds it to the ``hexhaven`` parser; each subcommand sets ``run`` to a
function of the parsed arguments returning the exit code, as the other commands do.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from typing import Any

from boards.balance import balance_of, combined_index
from boards.errors import BoardLabError, ORToolsMissing
from boards.fairness import RESOURCE_NAMES, FairnessParams, FairnessScorer, player_score
from boards.files import board_json, check_output, load_board, write_output
from boards.options import BalanceOptions
from boards.presets import load_preset, preset_names
from boards.validate import layout_violations
from engine.board import Board
from engine.constants import HARBOUR_GENERIC
from engine.errors import BoardError

_RULE_FLAGS = (
    ("separate_terrain", "no two neighbouring hexes of the same terrain"),
    ("separate_brick_lumber", "no hills next to forest (default: on for radius 3 only)"),
    ("separate_reds", "no 6 or 8 next to another (needed for a board to play on)"),
    ("spread_reds", "the 6s and 8s on different resources"),
    ("distinct_tokens", "different numbers on the hexes of one resource"),
)
_BOARD_SPEC = (
    "a board file; random:SEED[:RADIUS] or spiral:SEED[:RADIUS], the board a game with that "
    "seed plays on; preset:NAME, a shipped board (board presets lists them); or the output "
    "of board search: FILE for its best board, FILE#N for its board #N"
)


def register(subparsers: Any) -> argparse.ArgumentParser:
    """Add the ``board`` command and its subcommands to ``subparsers`` (the object
    ``ArgumentParser.add_subparsers`` returns); returns the ``board`` parser."""
    board: argparse.ArgumentParser = subparsers.add_parser(
        "board",
        help="balanced and fair boards: generate, score, search, render",
        description="The board lab: balanced boards from a constraint model (CP-SAT), "
        "fairness by simulating the starting placements, searches over random boards, "
        "and pictures.",
    )
    sub = board.add_subparsers(dest="board_command", required=True)

    gen = sub.add_parser(
        "generate",
        help="a balanced board from the constraint model (or --count its layouts)",
        description="Solve the constraint model for a seed and write the board as JSON "
        "(to --out, else to standard output). The same seed gives the same board. Every "
        "board is checked by an independent validator and the engine before it is written.",
    )
    gen.add_argument(
        "--seed", type=int, default=None, help="the seed (board and harbours; default 0)"
    )
    gen.add_argument("--radius", type=int, default=3, help="board radius (3 is standard)")
    gen.add_argument("--out", metavar="FILE", help="write the board here")
    gen.add_argument(
        "--time-limit",
        type=_positive_seconds,
        default=20.0,
        metavar="SECONDS",
        help="seconds the solver may take (default 20)",
    )
    for name, text in _RULE_FLAGS:
        gen.add_argument(
            "--" + name.replace("_", "-"),
            action=argparse.BooleanOptionalAction,
            default=None,
            help=text if "default" in text else f"{text} (default: on)",
        )
    gen.add_argument(
        "--max-pips",
        type=_optional_int,
        default=11,
        metavar="N|none",
        help="most dice dots around any intersection (default 11)",
    )
    gen.add_argument(
        "--min-pips",
        type=_optional_int,
        default=None,
        metavar="N|none",
        help="fewest dice dots where three land hexes meet (default none)",
    )
    gen.add_argument(
        "--max-token-sum",
        type=_optional_int,
        default=None,
        metavar="N|none",
        help="largest sum of the numbers around an intersection, a desert counting 7 and "
        "the sea 1 (the reference's measure; default none)",
    )
    gen.add_argument(
        "--terrain-of",
        metavar="BOARD",
        help="keep this board's terrain and harbours; place numbers only. BOARD is " + _BOARD_SPEC,
    )
    gen.add_argument(
        "--count",
        action="store_true",
        help="count the model's layouts (until --time-limit or --limit) instead",
    )
    gen.add_argument(
        "--limit", type=_positive_int, default=None, metavar="N", help="with --count: stop at N"
    )
    gen.add_argument(
        "--terrain-only", action="store_true", help="with --count: count terrain layouts only"
    )
    gen.set_defaults(run=_generate)

    score = sub.add_parser(
        "score",
        help="fairness, balance and the simulated placements of a board",
        description="Simulate the starting placements on a board and print its fairness, "
        "its balance components, the combined index, every placement and each player's "
        "score.",
    )
    score.add_argument("board", metavar="BOARD", help=_BOARD_SPEC)
    _scoring_arguments(score)
    score.add_argument("--json", action="store_true", help="print JSON instead")
    score.set_defaults(run=_score)

    search = sub.add_parser(
        "search",
        help="score many random boards; keep the fairest and least fair",
        description="Draw N boards of the official random set-up (board i from the seed's "
        "stream i), score them on all cores, and write the K fairest and K least fair as "
        "JSON (to --out, else standard output). Progress goes to standard error. Any "
        "command taking a BOARD takes the file: FILE for the best board kept, FILE#N for board "
        "#N of the search.",
    )
    search.add_argument("--boards", type=int, default=10_000, help="boards to score")
    search.add_argument("--top", type=int, default=10, help="boards to keep at each end")
    search.add_argument("--seed", type=int, default=0)
    search.add_argument("--radius", type=int, default=3)
    search.add_argument(
        "--workers", type=int, default=os.cpu_count() or 1, help="processes (default: cores)"
    )
    search.add_argument(
        "--rank", choices=("fairness", "combined"), default="fairness", help="what to rank by"
    )
    search.add_argument("--out", metavar="FILE", help="write the JSON here")
    search.add_argument("--quiet", action="store_true", help="no progress line")
    _scoring_arguments(search)
    search.set_defaults(run=_search)

    render = sub.add_parser(
        "render",
        help="draw a board as SVG (or PNG with cairosvg)",
        description="Draw BOARD with its terrain, numbers and harbours; with --picks, also "
        "the simulated starting placements numbered in order.",
    )
    render.add_argument("board", metavar="BOARD", help=_BOARD_SPEC)
    render.add_argument("--out", required=True, metavar="FILE", help="a .svg or .png file")
    render.add_argument("--picks", action="store_true", help="draw the simulated placements")
    render.add_argument("--title", default=None, help="a title (default: the scores)")
    _scoring_arguments(render)
    render.set_defaults(run=_render)

    presets = sub.add_parser(
        "presets",
        help="the shipped boards, with their scores",
        description="List the shipped fair, balanced boards. Play one with "
        "hexhaven play --board preset:NAME, or show it with hexhaven board score preset:NAME.",
    )
    presets.set_defaults(run=_presets)

    topo = sub.add_parser(
        "topology",
        help="which hexes, intersections and paths touch which, by id, as JSON",
        description="Print the island's adjacency tables for a radius, by the ids the "
        "protocol's views and actions use (docs/protocol.md, 'Board ids'). The standard "
        "island's are in docs/topology/radius-3.json.",
    )
    topo.add_argument(
        "--radius", type=_radius, default=3, help="board radius, 3 to 8 (3 is standard)"
    )
    topo.set_defaults(run=_topology)
    return board


def _radius(text: str) -> int:
    from protocol.topology import MAX_RADIUS, MIN_RADIUS

    try:
        radius = int(text)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number") from exc
    if not MIN_RADIUS <= radius <= MAX_RADIUS:
        raise argparse.ArgumentTypeError(f"give {MIN_RADIUS} to {MAX_RADIUS}, not {text}")
    return radius


def _topology(args: argparse.Namespace) -> int:
    from protocol.topology import render, topology_tables

    sys.stdout.write(render(topology_tables(args.radius)))
    return 0


def _scoring_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--values",
        type=_values,
        default=(1.0,) * 5,
        metavar="SPEC",
        help="relative resource values: five numbers (brick,lumber,wool,grain,ore) or "
        "name=value pairs, e.g. grain=1.3,ore=1.2 (default: all 1.0)",
    )
    parser.add_argument("--players", type=int, default=4, help="2 to 4 players")


def _optional_int(text: str) -> int | None:
    if text.lower() == "none":
        return None
    try:
        return int(text)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number or 'none'") from exc


def _positive_seconds(text: str) -> float:
    try:
        seconds = float(text)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number of seconds") from exc
    if not seconds > 0:  # also refuses nan
        raise argparse.ArgumentTypeError(f"give more than 0 seconds, not {text}")
    return seconds


def _positive_int(text: str) -> int:
    try:
        number = int(text)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number") from exc
    if number < 1:
        raise argparse.ArgumentTypeError(f"give 1 or more, not {text}")
    return number


def _values(text: str) -> tuple[float, ...]:
    parts = [p.strip() for p in text.split(",") if p.strip()]
    try:
        if all("=" not in p for p in parts):
            if len(parts) != 5:
                raise argparse.ArgumentTypeError("give five values or name=value pairs")
            return tuple(float(p) for p in parts)
        values = [1.0] * 5
        for p in parts:
            name, _, number = p.partition("=")
            if name.strip() not in RESOURCE_NAMES:
                raise argparse.ArgumentTypeError(
                    f"unknown resource {name!r}; one of {', '.join(RESOURCE_NAMES)}"
                )
            values[RESOURCE_NAMES.index(name.strip())] = float(number)
        return tuple(values)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(f"bad value in {text!r}") from exc


def _params(args: argparse.Namespace) -> FairnessParams:
    return FairnessParams(values=args.values, players=args.players)


def _options(args: argparse.Namespace) -> BalanceOptions:
    base = BalanceOptions.for_radius(args.radius)
    flags = {
        name: getattr(args, name) for name, _ in _RULE_FLAGS if getattr(args, name) is not None
    }
    return BalanceOptions(
        separate_terrain=flags.get("separate_terrain", base.separate_terrain),
        separate_brick_lumber=flags.get("separate_brick_lumber", base.separate_brick_lumber),
        separate_reds=flags.get("separate_reds", base.separate_reds),
        spread_reds=flags.get("spread_reds", base.spread_reds),
        distinct_tokens=flags.get("distinct_tokens", base.distinct_tokens),
        max_pips=args.max_pips,
        min_pips=args.min_pips,
        max_token_sum=args.max_token_sum,
    )


_TERRAIN_RULES = {
    "same_terrain": "--no-separate-terrain",
    "brick_lumber": "--no-separate-brick-lumber",
}
"""The rules on terrain alone, and the flag that lifts each."""


def _terrain_faults(board: Board, options: BalanceOptions) -> str | None:
    """How a given island's terrain breaks the terrain rules of ``options`` (no numbers
    can mend that), as a sentence naming the first fault and the flags that lift the rules;
    None when it keeps them."""
    faults = [
        f
        for f in layout_violations(board.terrain, board.tokens, board.radius, options)
        if f.rule in _TERRAIN_RULES
    ]
    if not faults:
        return None
    more = f" (and {len(faults) - 1} more)" if len(faults) > 1 else ""
    flags = " and ".join(sorted({_TERRAIN_RULES[f.rule] for f in faults}))
    return f"its terrain breaks the terrain rules: {faults[0].detail}{more}; add {flags}"


def _fail(message: str) -> int:
    print(f"hexhaven board: {message}", file=sys.stderr)
    return 2


def _ignored_by_generate(args: argparse.Namespace) -> str | None:
    """What ``board generate`` would silently ignore in ``args``, as a sentence, or None."""
    if args.count:
        if args.out:
            return "--count prints how many layouts there are; --out goes without --count"
        if args.seed is not None:
            return "--count counts every layout; --seed goes without --count"
        return None
    alone = [
        flag
        for flag, given in (("--limit", args.limit), ("--terrain-only", args.terrain_only))
        if given
    ]
    if alone:
        return f"{' and '.join(alone)} {'go' if len(alone) > 1 else 'goes'} with --count"
    return None


def _generate(args: argparse.Namespace) -> int:
    try:
        from boards.constraint import count_layouts, generate_board
    except ORToolsMissing as exc:
        return _fail(str(exc))

    ignored = _ignored_by_generate(args)
    if ignored:
        return _fail(ignored)
    seed = 0 if args.seed is None else args.seed
    try:
        if args.out:
            check_output(args.out)
        options = _options(args)
        terrain = harbours = None
        if args.terrain_of:
            given = load_board(args.terrain_of)
            if given.radius != args.radius:
                return _fail(f"--terrain-of gives a radius-{given.radius} board; add --radius")
            terrain = [int(t) for t in given.terrain]
            harbours = list(given.harbours)
            broken = _terrain_faults(given, options)
            if broken:
                return _fail(f"--terrain-of {args.terrain_of}: {broken}")
        if args.count:
            result = count_layouts(
                args.radius,
                options,
                time_limit=args.time_limit,
                limit=args.limit,
                terrain=terrain,
                with_tokens=not args.terrain_only,
            )
            what = "terrain layouts" if args.terrain_only else "layouts"
            if result.complete:
                print(f"{what}: {result.count} (all of them, {result.seconds:.1f} s)")
            else:
                print(f"{what}: at least {result.count} (stopped after {result.seconds:.1f} s)")
            return 0
        started = time.perf_counter()
        board = generate_board(
            seed,
            args.radius,
            options,
            time_limit=args.time_limit,
            terrain=terrain,
            harbours=harbours,
        )
        seconds = time.perf_counter() - started
        text = board_json(board)
        if args.out:
            write_output(args.out, text)
        else:
            sys.stdout.write(text)
    except (BoardLabError, BoardError, ValueError) as exc:
        return _fail(str(exc))
    fairness = FairnessScorer(board.radius).simulate(board).fairness
    balance = balance_of(
        board.terrain, board.tokens, board.harbours, board.radius, board.harbour_layout
    ).balance
    print(
        f"seed {seed}: radius-{board.radius} board in {seconds:.2f} s, "
        f"fairness {fairness:.3f}, balance {balance:.3f}"
        + (f", written to {args.out}" if args.out else ""),
        file=sys.stderr,
    )
    return 0


def _describe_vertex(board: Board, v: int) -> str:
    parts = []
    for h in board.topo.vertex_hexes[v]:
        t = int(board.terrain[h])
        parts.append(f"{board.tokens[h]} {RESOURCE_NAMES[t]}" if t < 5 else "desert")
    for slot, kind in zip(board.harbour_slots, board.harbours, strict=True):
        if v in board.topo.edge_vertices[slot]:
            parts.append(
                "3:1 harbour" if kind == HARBOUR_GENERIC else f"2:1 {RESOURCE_NAMES[kind]}"
            )
    return ", ".join(parts)


def score_report(board: Board, params: FairnessParams) -> dict[str, Any]:
    """Everything ``board score`` prints, as JSON-ready data."""
    result = FairnessScorer(board.radius, params).simulate(board)
    bal = balance_of(
        board.terrain, board.tokens, board.harbours, board.radius, board.harbour_layout
    )
    held: dict[int, list[int]] = {}
    for p in result.placements:
        held.setdefault(p.seat, []).append(p.vertex)
    players = []
    for seat in range(params.players):
        s = player_score(board, held[seat], params)
        players.append(
            {
                "seat": seat + 1,
                "vertices": held[seat],
                "production": {
                    RESOURCE_NAMES[r]: round(x, 4) for r, x in enumerate(s.production) if x
                },
                "number_bonus": round(s.number_bonus, 4),
                "resource_bonus": round(s.resource_bonus, 4),
                "robber_tax": round(s.robber_tax, 4),
                "total": round(s.total, 4),
            }
        )
    return {
        "fairness": round(result.fairness, 6),
        "spread": round(result.spread, 6),
        "balance": round(bal.balance, 6),
        "resource_clustering": round(bal.resource_clustering, 6),
        "number_clustering": round(bal.number_clustering, 6),
        "harbour_balance": round(bal.harbour_balance, 6),
        "production_spread": round(bal.production_spread, 6),
        "combined": round(combined_index(bal.balance, result.fairness), 6),
        "placements": [
            {
                "pick": i + 1,
                "seat": p.seat + 1,
                "round": p.round,
                "vertex": p.vertex,
                "score": round(p.score, 4),
                "hexes": _describe_vertex(board, p.vertex),
            }
            for i, p in enumerate(result.placements)
        ],
        "players": players,
    }


def _score(args: argparse.Namespace) -> int:
    try:
        board = load_board(args.board)
        report = score_report(board, _params(args))
    except (BoardLabError, ValueError) as exc:
        return _fail(str(exc))
    if args.json:
        print(json.dumps(report, indent=2))
        return 0
    print(f"board: {args.board} (radius {board.radius})")
    print(f"fairness  {report['fairness']:.3f}  (spread {report['spread']:.2f})")
    print(f"balance   {report['balance']:.3f}")
    for name in ("resource_clustering", "number_clustering", "harbour_balance"):
        print(f"  {name.replace('_', ' '):<20} {report[name]:.3f}")
    print(f"  {'production spread':<20} {report['production_spread']:.3f}")
    print(f"combined  {report['combined']:.3f}")
    print("placements:")
    for p in report["placements"]:
        print(
            f"  {p['pick']}. seat {p['seat']}  intersection {p['vertex']:>3}  "
            f"score {p['score']:6.2f}  ({p['hexes']})"
        )
    print("players:")
    for s in report["players"]:
        prod = ", ".join(f"{k} {v:.2f}" for k, v in s["production"].items())
        print(
            f"  seat {s['seat']}: {s['total']:.2f} = {prod}; numbers +{s['number_bonus']:.2f}, "
            f"resources +{s['resource_bonus']:.2f}, robber tax -{s['robber_tax']:.2f}"
        )
    return 0


def _search(args: argparse.Namespace) -> int:
    from boards.search import search

    started = time.perf_counter()

    def progress(done: int, total: int) -> None:
        if args.quiet:
            return
        elapsed = time.perf_counter() - started
        rate = done / elapsed if elapsed > 0 else 0.0
        eta = (total - done) / rate if rate > 0 else 0.0
        width = 30
        filled = width * done // total
        print(
            f"\r[{'#' * filled}{'.' * (width - filled)}] {done:,}/{total:,} boards "
            f"{rate:,.0f}/s eta {eta:.0f} s",
            end="" if done < total else "\n",
            file=sys.stderr,
            flush=True,
        )

    try:
        if args.out:
            check_output(args.out)
        result = search(
            args.boards,
            args.top,
            seed=args.seed,
            radius=args.radius,
            params=_params(args),
            workers=args.workers,
            rank=args.rank,
            progress=progress,
        )
        text = result.to_json()
        if args.out:
            write_output(args.out, text)
        else:
            sys.stdout.write(text)
    except (BoardLabError, BoardError, ValueError) as exc:
        return _fail(str(exc))
    best, worst = result.fairest[0], result.least_fair[0]
    print(
        f"{result.boards:,} boards in {result.seconds:.1f} s "
        f"({result.boards / max(result.seconds, 1e-9):,.0f}/s); fairest #{best.index} "
        f"{best.fairness:.3f}, least fair #{worst.index} {worst.fairness:.3f}"
        + (f"; written to {args.out}" if args.out else ""),
        file=sys.stderr,
    )
    return 0


def _presets(args: argparse.Namespace) -> int:
    print(f"{'preset':<16} {'fairness':>8} {'balance':>8} {'combined':>8}")
    for name in preset_names():
        report = score_report(load_preset(name), FairnessParams())
        print(
            f"{name:<16} {report['fairness']:>8.3f} {report['balance']:>8.3f} "
            f"{report['combined']:>8.3f}"
        )
    print("play one: hexhaven play --board preset:NAME")
    return 0


def _render(args: argparse.Namespace) -> int:
    from boards.render import board_svg, check_picture_path, write_picture

    try:
        check_picture_path(args.out)
        board = load_board(args.board)
        params = _params(args)
        result = FairnessScorer(board.radius, params).simulate(board)
        bal = balance_of(
            board.terrain, board.tokens, board.harbours, board.radius, board.harbour_layout
        )
        title = args.title
        if title is None:
            title = (
                f"fairness {result.fairness:.2f}  balance {bal.balance:.2f}  "
                f"combined {combined_index(bal.balance, result.fairness):.2f}"
            )
        svg = board_svg(board, result.placements if args.picks else (), title)
        write_picture(svg, args.out)
    except (BoardLabError, ValueError) as exc:
        return _fail(str(exc))
    print(f"wrote {args.out}", file=sys.stderr)
    return 0


def main(argv: list[str] | None = None) -> int:
    """Run ``hexhaven board ...`` on its own (``python -m app.boards generate ...``)."""
    parser = argparse.ArgumentParser(prog="hexhaven")
    register(parser.add_subparsers(dest="command", required=True))
    args = parser.parse_args(["board", *(sys.argv[1:] if argv is None else argv)])
    code: int = args.run(args)
    return code


if __name__ == "__main__":
    sys.exit(main())
