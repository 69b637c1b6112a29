"""Balanced boards from a constraint model, solved with OR-Tools CP-SAT.

The model follows the constraint-model reference (terrain apart, brick and lumber apart,
6 and 8 apart and on different resources, each resource's numbers different, a bound on
the numbers around every intersection) with two differences: it is laid on the engine's
real hex adjacency for any radius (the reference's square grid also forbade some pairs of
hexes that do not touch), and terrain and numbers are solved together in one model.

Variables are booleans: ``x[h][t]`` (hex ``h`` has terrain ``t``) and ``y[h][n]`` (hex ``h``
carries number ``n``); where a rule couples the two, ``w[h][t][n] = x[h][t] and y[h][n]``.
Every variable is fixed by the layout, so counting solutions counts layouts.

Seeding: the solver branches on the variables in an order shuffled by the seed, always
trying "true" first, with one worker, so one seed gives one board and different seeds give
different boards; an order that does not reach a board within a budget of deterministic
time is replaced by the seed's next one (see :func:`solve_layout`).
"""

from __future__ import annotations

import itertools
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from boards.errors import InvalidBoard, NoBoardFound, ORToolsMissing

try:
    from ortools.sat.python import cp_model
except ModuleNotFoundError as missing:  # the boards extra is not installed
    raise ORToolsMissing from missing
from boards.options import (
    DESERT_TOKEN_VALUE,
    SEA_TOKEN_VALUE,
    BalanceOptions,
    red_cap,
    token_cap,
)
from boards.validate import layout_violations
from engine.board import Board, check_board, terrain_counts, token_counts
from engine.constants import DICE_DOTS, N_RESOURCES, RED_TOKENS, Terrain
from engine.rng import Rng
from engine.topology import harbour_kinds, topology

NUMBERS = (2, 3, 4, 5, 6, 8, 9, 10, 11, 12)
_TERRAINS = tuple(Terrain)
_HARBOUR_STREAM = 1
_ORDER_STREAM = 2  # attempt k branches in the order of stream 2 + k
_FIRST_BUDGET = 1.0
"""Deterministic time (CP-SAT's machine-independent measure, about a second) of the first
attempt; most boards of radius 3 take 0.15."""


@dataclass(frozen=True)
class Layout:
    """Terrain and number token per hex (0 on deserts), as in :class:`engine.board.Board`."""

    radius: int
    terrain: tuple[int, ...]
    tokens: tuple[int, ...]


@dataclass(frozen=True)
class CountResult:
    """Solutions found by :func:`count_layouts`; ``complete`` when the search was exhaustive."""

    count: int
    complete: bool
    seconds: float


@dataclass
class _Model:
    model: cp_model.CpModel
    x: list[list[cp_model.IntVar]]
    y: list[list[cp_model.IntVar]] = field(default_factory=list)


def build_model(
    radius: int,
    options: BalanceOptions,
    *,
    terrain: Sequence[int] | None = None,
    fixed_terrain: Mapping[int, int] | None = None,
    fixed_tokens: Mapping[int, int] | None = None,
    with_tokens: bool = True,
) -> _Model:
    """The CP-SAT model of the balanced boards of a radius.

    ``terrain`` fixes every hex's terrain (the reference's second model: numbers for a
    given island), ``fixed_terrain`` and ``fixed_tokens`` the terrain and number of some
    hexes (hex id to value, 0 for a desert's number); ``with_tokens=False`` leaves numbers
    out altogether (terrain layouts only; the number rules are ignored). Raises
    ``ValueError`` when ``terrain`` has the wrong length.
    """
    topo = topology(radius)
    n_hexes = topo.n_hexes
    m = cp_model.CpModel()
    x = [[m.new_bool_var(f"x{h}_{t}") for t in _TERRAINS] for h in range(n_hexes)]
    for h in range(n_hexes):
        m.add_exactly_one(x[h])
    for t, count in terrain_counts(radius).items():
        m.add(sum(x[h][t] for h in range(n_hexes)) == count)
    for t in _TERRAINS:
        if t not in terrain_counts(radius):
            m.add(sum(x[h][t] for h in range(n_hexes)) == 0)
    if terrain is not None:
        if len(terrain) != n_hexes:
            raise ValueError(f"radius {radius} has {n_hexes} hexes, not {len(terrain)}")
        fixed_terrain = {**dict(enumerate(terrain)), **(fixed_terrain or {})}
    for h, fixed in (fixed_terrain or {}).items():
        m.add(x[h][fixed] == 1)

    pairs = [(h, g) for h in range(n_hexes) for g in topo.hex_neighbours[h] if h < g]
    if options.separate_terrain:
        for h, g in pairs:
            for t in _TERRAINS:
                m.add_at_most_one(x[h][t], x[g][t])
    if options.separate_brick_lumber:
        brick, lumber = Terrain.HILLS, Terrain.FOREST
        for h, g in pairs:
            m.add_at_most_one(x[h][brick], x[g][lumber])
            m.add_at_most_one(x[h][lumber], x[g][brick])
    if not with_tokens:
        return _Model(m, x)

    y = [[m.new_bool_var(f"y{h}_{n}") for n in NUMBERS] for h in range(n_hexes)]
    index = {n: i for i, n in enumerate(NUMBERS)}
    desert = Terrain.DESERT
    for h in range(n_hexes):
        # a desert carries no number, any other hex exactly one
        m.add(sum(y[h]) + x[h][desert] == 1)
    counts = token_counts(radius)
    for n in NUMBERS:
        m.add(sum(y[h][index[n]] for h in range(n_hexes)) == counts[n])
    for h, n in (fixed_tokens or {}).items():
        if n == 0:
            m.add(x[h][desert] == 1)
        else:
            m.add(y[h][index[n]] == 1)

    reds = [y[h][index[6]] + y[h][index[8]] for h in range(n_hexes)]
    if options.separate_reds:
        for h, g in pairs:
            m.add(reds[h] + reds[g] <= 1)
    if options.spread_reds or options.distinct_tokens:
        both = _conjunctions(m, x, y, n_hexes)
        for res in range(N_RESOURCES):
            if options.spread_reds:
                m.add(
                    sum(both[h][res][index[r]] for h in range(n_hexes) for r in RED_TOKENS)
                    <= red_cap(radius)
                )
            if options.distinct_tokens:
                for n in NUMBERS:
                    m.add(
                        sum(both[h][res][index[n]] for h in range(n_hexes)) <= token_cap(radius, n)
                    )

    pips = [sum(DICE_DOTS[n] * y[h][index[n]] for n in NUMBERS) for h in range(n_hexes)]
    face = [
        sum(n * y[h][index[n]] for n in NUMBERS) + DESERT_TOKEN_VALUE * x[h][desert]
        for h in range(n_hexes)
    ]
    for hexes in topo.vertex_hexes:
        if options.max_pips is not None:
            m.add(sum(pips[h] for h in hexes) <= options.max_pips)
        if options.min_pips is not None and len(hexes) == 3:
            m.add(sum(pips[h] for h in hexes) >= options.min_pips)
        if options.max_token_sum is not None:
            sea = SEA_TOKEN_VALUE * (3 - len(hexes))
            m.add(sum(face[h] for h in hexes) + sea <= options.max_token_sum)
    return _Model(m, x, y)


def _conjunctions(
    m: cp_model.CpModel,
    x: list[list[cp_model.IntVar]],
    y: list[list[cp_model.IntVar]],
    n_hexes: int,
) -> list[list[list[cp_model.IntVar]]]:
    """``w[h][t][i]`` equal to ``x[h][t] and y[h][i]`` for the producing terrains."""
    w = []
    for h in range(n_hexes):
        per_terrain = []
        for t in range(N_RESOURCES):
            row = []
            for i in range(len(NUMBERS)):
                v = m.new_bool_var(f"w{h}_{t}_{i}")
                m.add_implication(v, x[h][t])
                m.add_implication(v, y[h][i])
                m.add_bool_or(v, ~x[h][t], ~y[h][i])
                row.append(v)
            per_terrain.append(row)
        w.append(per_terrain)
    return w


def _read_layout(
    radius: int, mod: _Model, value: cp_model.CpSolver | cp_model.CpSolverSolutionCallback
) -> Layout:
    terrain = tuple(next(t for t in _TERRAINS if value.boolean_value(v[t])) for v in mod.x)
    tokens = tuple(
        next((n for n, v in zip(NUMBERS, row, strict=True) if value.boolean_value(v)), 0)
        for row in mod.y
    )
    return Layout(radius, tuple(int(t) for t in terrain), tokens)


def solve_layout(
    seed: int,
    radius: int = 3,
    options: BalanceOptions | None = None,
    *,
    time_limit: float = 20.0,
    terrain: Sequence[int] | None = None,
) -> Layout:
    """One layout of the model, the same for the same seed on any machine (unless the
    ``time_limit`` in seconds cuts the search short).

    The search runs in attempts, each branching in its own seeded order within a budget of
    the solver's deterministic time (1, 1, 2, 1, 1, 2, 4, ... units: the Luby restart
    sequence), so an unlucky order is dropped early and the board does not depend on the
    machine's speed.

    Raises :class:`NoBoardFound` when the model is infeasible or no layout was found in
    ``time_limit`` seconds. The layout is not validated here: :func:`generate_board` does.
    """
    options = options or BalanceOptions()
    started = time.perf_counter()
    for attempt in itertools.count():
        left = time_limit - (time.perf_counter() - started)
        if left <= 0:
            break
        mod = build_model(radius, options, terrain=terrain)
        rng = Rng(seed, _ORDER_STREAM + attempt)
        hexes = list(range(len(mod.x)))
        rng.shuffle(hexes)
        order: list[cp_model.IntVar] = []
        for group in (mod.x, mod.y):
            for h in hexes:
                choices = list(group[h])
                rng.shuffle(choices)
                order.extend(choices)
        mod.model.add_decision_strategy(order, cp_model.CHOOSE_FIRST, cp_model.SELECT_MAX_VALUE)
        solver = cp_model.CpSolver()
        solver.parameters.search_branching = cp_model.FIXED_SEARCH
        solver.parameters.num_workers = 1
        solver.parameters.random_seed = (seed + attempt) % (1 << 31)
        solver.parameters.max_time_in_seconds = left
        solver.parameters.max_deterministic_time = _FIRST_BUDGET * _luby(attempt + 1)
        status = solver.solve(mod.model)
        if status == cp_model.INFEASIBLE:
            on = " on the given terrain" if terrain is not None else ""
            raise NoBoardFound(
                f"no radius-{radius} board{on} keeps all these rules: {options.describe()}"
            )
        if status in (cp_model.OPTIMAL, cp_model.FEASIBLE):
            return _read_layout(radius, mod, solver)
    raise NoBoardFound(f"no board found within {time_limit:g} s; allow more time")


def _luby(i: int) -> int:
    """The i-th term (from 1) of the Luby sequence 1, 1, 2, 1, 1, 2, 4, 1, ..."""
    k = 1
    while (1 << k) - 1 < i:
        k += 1
    if i == (1 << k) - 1:
        return 1 << (k - 1)
    return _luby(i - (1 << (k - 1)) + 1)


def generate_board(
    seed: int,
    radius: int = 3,
    options: BalanceOptions | None = None,
    *,
    time_limit: float = 20.0,
    terrain: Sequence[int] | None = None,
    harbours: Sequence[int] | None = None,
) -> Board:
    """A balanced board: the model's layout for ``seed``, checked by the validator and the
    engine, with ``harbours`` (harbour kind per slot) or else the radius's harbour kinds
    shuffled over the harbour slots by the seed. ``terrain`` fixes every hex's terrain, as
    in :func:`build_model`.

    Raises :class:`NoBoardFound` as :func:`solve_layout`, :class:`InvalidBoard` when the
    layout breaks a rule (which would be a bug in the model), ``engine.errors.BoardError``
    when ``harbours`` are not the radius's harbours, and ``ValueError`` when ``options``
    lets 6 and 8 touch (the game does not allow it on a board for play).
    """
    options = options or BalanceOptions()
    if not options.separate_reds:
        raise ValueError("a board for play keeps 6 and 8 apart; use count_layouts to explore")
    layout = solve_layout(seed, radius, options, time_limit=time_limit, terrain=terrain)
    faults = layout_violations(layout.terrain, layout.tokens, radius, options)
    if faults:
        raise InvalidBoard([str(f) for f in faults])
    if harbours is None:
        kinds = harbour_kinds(radius)
        Rng(seed, _HARBOUR_STREAM).shuffle(kinds)
        harbours = kinds
    board = Board.from_layout(layout.terrain, layout.tokens, harbours, radius)
    check_board(board)
    return board


class _Counter(cp_model.CpSolverSolutionCallback):
    def __init__(self, limit: int | None) -> None:
        super().__init__()
        self.count = 0
        self.limit = limit

    def on_solution_callback(self) -> None:
        self.count += 1
        if self.limit is not None and self.count >= self.limit:
            self.stop_search()


def count_layouts(
    radius: int = 3,
    options: BalanceOptions | None = None,
    *,
    time_limit: float = 10.0,
    limit: int | None = None,
    terrain: Sequence[int] | None = None,
    fixed_terrain: Mapping[int, int] | None = None,
    fixed_tokens: Mapping[int, int] | None = None,
    with_tokens: bool = True,
) -> CountResult:
    """Count the layouts of a model, up to ``time_limit`` seconds or ``limit`` layouts.

    ``complete`` is true when every layout was counted. The arguments that fix parts of the
    board are those of :func:`build_model`; fixing most of a board makes a count exhaustive.
    """
    options = options or BalanceOptions()
    mod = build_model(
        radius,
        options,
        terrain=terrain,
        fixed_terrain=fixed_terrain,
        fixed_tokens=fixed_tokens,
        with_tokens=with_tokens,
    )
    solver = cp_model.CpSolver()
    solver.parameters.enumerate_all_solutions = True
    solver.parameters.num_workers = 1
    solver.parameters.max_time_in_seconds = time_limit
    counter = _Counter(limit)
    start = time.perf_counter()
    status = solver.solve(mod.model, counter)
    seconds = time.perf_counter() - start
    complete = status in (cp_model.OPTIMAL, cp_model.INFEASIBLE) and (
        limit is None or counter.count < limit
    )
    return CountResult(counter.count, complete, seconds)
