"""How fair an island is: the starting placements simulated, as in the fair-boards reference.

Players place their first settlements in snake order (1-2-3-4-4-3-2-1 with four players);
each takes the free intersection (distance rule kept) that gives it the highest score:

- each hex around a settlement is worth its dots (cards per 36 rolls) times its resource's
  relative value (1.0 each by default);
- a 2:1 harbour multiplies the value of its resource by 1.4 for that player, a 3:1 harbour
  every resource by 1.1 (the better of the two when a player has both), on all of the
  player's production, both settlements;
- +0.3 for every distinct number the player touches (at most 0.9 per settlement, three hexes)
  and +0.31 for every distinct resource;
- from the second placement on, minus the robber tax: half of what the robber would take on
  the player's best hex, i.e. half the hex's value times the number of the player's
  settlements around it (so two settlements on one hex pay twice).

Ties go to the lowest intersection id (scores compared to 1e-9). Fairness is the spread
between the best and worst final score mapped to [0, 1]: ``1 - (best - worst) / best``
(1 when every player scores the same, 0 when someone scores nothing). The reference gives
the spread and its [0, 1] range but not its formula; this is ours.

:class:`FairnessScorer` holds the tables of one radius and scores boards fast (plain lists
and ints, candidates visited best-bound first and cut off by a bound);
:func:`player_score` is the plain statement of the score, used to explain it and to test
the fast path.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache

from engine.board import Board
from engine.constants import DICE_DOTS, HARBOUR_GENERIC, HARBOUR_LAYOUT, N_RESOURCES
from engine.topology import topology

RESOURCE_NAMES = ("brick", "lumber", "wool", "grain", "ore")
_EPS_DIGITS = 9
_CUTOFF_MARGIN = 1e-6
_POPCOUNT = tuple(bin(i).count("1") for i in range(1 << 13))


@dataclass(frozen=True)
class FairnessParams:
    """The simulation's numbers; the defaults are the reference's."""

    values: tuple[float, ...] = (1.0, 1.0, 1.0, 1.0, 1.0)
    players: int = 4
    specific_harbour: float = 1.4
    generic_harbour: float = 1.1
    number_bonus: float = 0.3
    resource_bonus: float = 0.31
    robber_tax: float = 0.5

    def __post_init__(self) -> None:
        if len(self.values) != N_RESOURCES:
            raise ValueError(f"give {N_RESOURCES} resource values, not {len(self.values)}")
        if any(v < 0 for v in self.values):
            raise ValueError("resource values cannot be negative")
        if not 2 <= self.players <= 4:
            raise ValueError("2 to 4 players")
        if self.specific_harbour < 1 or self.generic_harbour < 1:
            raise ValueError("harbour multipliers are at least 1")
        if min(self.number_bonus, self.resource_bonus, self.robber_tax) < 0:
            raise ValueError("bonuses and the robber tax cannot be negative")

    def snake(self) -> tuple[int, ...]:
        """The seats in placement order: 0..n-1 then n-1..0."""
        seats = tuple(range(self.players))
        return seats + seats[::-1]


@dataclass(frozen=True)
class Placement:
    """One simulated placement: who, where, and the player's score just after it."""

    seat: int
    vertex: int
    round: int  # 1 or 2
    score: float


@dataclass(frozen=True)
class FairnessResult:
    """Every placement in order, each seat's final score, the spread and the fairness."""

    placements: tuple[Placement, ...]
    scores: tuple[float, ...]
    spread: float
    fairness: float


@dataclass(frozen=True)
class PlayerScore:
    """A player's score and its parts (:func:`player_score`)."""

    production: tuple[float, ...]  # per resource: dots x value x harbour multiplier
    multipliers: tuple[float, ...]
    number_bonus: float
    resource_bonus: float
    robber_tax: float

    @property
    def total(self) -> float:
        return sum(self.production) + self.number_bonus + self.resource_bonus - self.robber_tax


@dataclass(frozen=True)
class _Tables:
    """What one radius contributes: padded vertex->hexes, neighbours, harbour vertices."""

    n_hexes: int
    n_vertices: int
    vertex_hexes: tuple[tuple[int, ...], ...]
    vertex_hexes3: tuple[tuple[int, int, int], ...]  # padded with n_hexes (a dry sea hex)
    neighbours: tuple[tuple[int, ...], ...]
    slot_vertices: tuple[tuple[int, int], ...]
    shared: tuple[dict[int, tuple[int, ...]], ...]  # u -> {v: hexes both touch}, v not adjacent


@cache
def _tables(radius: int) -> _Tables:
    topo = topology(radius)
    n = topo.n_hexes
    vhex = topo.vertex_hexes
    padded = tuple(tuple(hs) + (n,) * (3 - len(hs)) for hs in vhex)
    shared: list[dict[int, tuple[int, ...]]] = []
    for u in range(topo.n_vertices):
        near = set(topo.vertex_vertices[u]) | {u}
        row: dict[int, tuple[int, ...]] = {}
        for h in vhex[u]:
            for v in topo.hex_vertices[h]:
                if v not in near:
                    row[v] = tuple(sorted(set(vhex[u]) & set(vhex[v])))
        shared.append(row)
    return _Tables(
        n_hexes=n,
        n_vertices=topo.n_vertices,
        vertex_hexes=vhex,
        vertex_hexes3=tuple((p[0], p[1], p[2]) for p in padded),
        neighbours=topo.vertex_vertices,
        slot_vertices=tuple(topo.edge_vertices[e] for e in topo.harbour_slots),
        shared=tuple(shared),
    )


@cache
def _slot_vertices(radius: int, harbour_layout: int) -> tuple[tuple[int, int], ...]:
    """The two intersections of every harbour slot of a harbour layout."""
    topo = topology(radius)
    return tuple(topo.edge_vertices[e] for e in topo.harbour_slots_of(harbour_layout))


def vertex_harbours(
    radius: int, harbours: Sequence[int], harbour_layout: int = HARBOUR_LAYOUT
) -> list[int]:
    """The harbour kind at every intersection (-1 where there is none), the harbours lying
    on the slots of ``harbour_layout``."""
    kinds = [-1] * topology(radius).n_vertices
    for (a, b), kind in zip(_slot_vertices(radius, harbour_layout), harbours, strict=True):
        kinds[a] = kind
        kinds[b] = kind
    return kinds


def player_score(
    board: Board,
    settlements: Sequence[int],
    params: FairnessParams | None = None,
    *,
    taxed: bool | None = None,
) -> PlayerScore:
    """The score of a player holding ``settlements`` (intersection ids), part by part.

    The robber tax applies from the second settlement on (``taxed`` overrides that).
    """
    params = params or FairnessParams()
    topo = board.topo
    kinds = vertex_harbours(board.radius, board.harbours, board.harbour_layout)
    mult = [1.0] * N_RESOURCES
    for v in settlements:
        k = kinds[v]
        if k == HARBOUR_GENERIC:
            mult = [max(m, params.generic_harbour) for m in mult]
        elif k >= 0:
            mult[k] = max(mult[k], params.specific_harbour)
    production = [0.0] * N_RESOURCES
    on_hex: dict[int, int] = {}
    numbers: set[int] = set()
    resources: set[int] = set()
    number_bonus = 0.0
    for v in settlements:
        new_numbers = 0
        for h in topo.vertex_hexes[v]:
            n = board.tokens[h]
            if not n:
                continue
            r = int(board.terrain[h])
            production[r] += DICE_DOTS[n] * params.values[r] * mult[r]
            on_hex[h] = on_hex.get(h, 0) + 1
            resources.add(r)
            if n not in numbers:
                numbers.add(n)
                new_numbers += 1
        number_bonus += params.number_bonus * min(3, new_numbers)
    if taxed is None:
        taxed = len(settlements) >= 2
    tax = 0.0
    if taxed and on_hex:
        worst = max(
            c
            * DICE_DOTS[board.tokens[h]]
            * params.values[board.terrain[h]]
            * mult[board.terrain[h]]
            for h, c in on_hex.items()
        )
        tax = params.robber_tax * worst
    return PlayerScore(
        production=tuple(production),
        multipliers=tuple(mult),
        number_bonus=number_bonus,
        resource_bonus=params.resource_bonus * len(resources),
        robber_tax=tax,
    )


def fairness_of(scores: Sequence[float]) -> float:
    """The spread of the players' scores mapped to [0, 1]: ``1 - (best - worst) / best``."""
    best, worst = max(scores), min(scores)
    if best <= 0:
        return 1.0
    return min(1.0, max(0.0, 1.0 - (best - worst) / best))


class FairnessScorer:
    """Scores boards of one radius with one set of parameters; build once, call often."""

    def __init__(self, radius: int = 3, params: FairnessParams | None = None) -> None:
        self.radius = radius
        self.params = params or FairnessParams()
        self._t = _tables(radius)

    def fairness(
        self,
        terrain: Sequence[int],
        tokens: Sequence[int],
        harbours: Sequence[int],
        harbour_layout: int = HARBOUR_LAYOUT,
    ) -> float:
        """The fairness of a layout (see :func:`fairness_of`), its harbours on the slots of
        ``harbour_layout``."""
        scores, _ = self._simulate(terrain, tokens, harbours, harbour_layout)
        return fairness_of(scores)

    def simulate(self, board: Board) -> FairnessResult:
        """Every simulated placement of a board, and its fairness."""
        scores, picks = self._simulate(
            board.terrain, board.tokens, board.harbours, board.harbour_layout
        )
        snake = self.params.snake()
        n = self.params.players
        placements = []
        for i, (seat, (v, s)) in enumerate(zip(snake, picks, strict=True)):
            placements.append(Placement(seat, v, 1 if i < n else 2, s))
        return FairnessResult(
            placements=tuple(placements),
            scores=tuple(scores),
            spread=max(scores) - min(scores),
            fairness=fairness_of(scores),
        )

    def _simulate(
        self,
        terrain: Sequence[int],
        tokens: Sequence[int],
        harbours: Sequence[int],
        harbour_layout: int = HARBOUR_LAYOUT,
    ) -> tuple[list[float], list[tuple[int, float]]]:
        """Final scores per seat and the (vertex, score) of every placement in order."""
        t = self._t
        p = self.params
        values = p.values
        nb, rb, spec, gen, rtax = (
            p.number_bonus,
            p.resource_bonus,
            p.specific_harbour,
            p.generic_harbour,
            p.robber_tax,
        )
        pc = _POPCOUNT
        nh = t.n_hexes
        nv = t.n_vertices
        hv = [0.0] * (nh + 1)
        hres = [-1] * (nh + 1)
        nbit = [0] * (nh + 1)
        rbit = [0] * (nh + 1)
        for h in range(nh):
            k = tokens[h]
            if k:
                r = int(terrain[h])
                hv[h] = DICE_DOTS[k] * values[r]
                hres[h] = r
                nbit[h] = 1 << k
                rbit[h] = 1 << r
        v3 = t.vertex_hexes3
        vb = [hv[a] + hv[b] + hv[c] for a, b, c in v3]
        nm = [nbit[a] | nbit[b] | nbit[c] for a, b, c in v3]
        rm = [rbit[a] | rbit[b] | rbit[c] for a, b, c in v3]
        top = [max(hv[a], hv[b], hv[c]) for a, b, c in v3]
        s1 = [vb[v] + nb * pc[nm[v]] + rb * pc[rm[v]] for v in range(nv)]
        hk = [-1] * nv
        slots = (
            t.slot_vertices
            if harbour_layout == HARBOUR_LAYOUT
            else _slot_vertices(self.radius, harbour_layout)
        )
        for (a, b), kind in zip(slots, harbours, strict=True):
            hk[a] = kind
            hk[b] = kind
            for v in (a, b):
                if kind == HARBOUR_GENERIC:
                    s1[v] += (gen - 1.0) * vb[v]
                else:
                    s1[v] += (spec - 1.0) * sum(hv[h] for h in v3[v] if hres[h] == kind)
        order = sorted(range(nv), key=[-round(s, _EPS_DIGITS) for s in s1].__getitem__)

        blocked = [False] * nv
        nbrs = t.neighbours
        players = p.players
        first = [0] * players
        picks: list[tuple[int, float]] = []
        for seat in range(players):
            for v in order:
                if not blocked[v]:
                    break
            else:  # pragma: no cover - every radius has room for eight settlements
                raise RuntimeError("no free intersection")
            first[seat] = v
            picks.append((v, s1[v]))
            blocked[v] = True
            for w in nbrs[v]:
                blocked[w] = True

        scores = [0.0] * players
        for seat in range(players - 1, -1, -1):
            u = first[seat]
            ku = hk[u]
            hu = t.vertex_hexes[u]
            mult_u = _multipliers((ku,), spec, gen)
            per_res = [0.0] * N_RESOURCES
            for h in hu:
                if hres[h] >= 0:
                    per_res[hres[h]] += hv[h]
            if ku < 0:
                prod_u = vb[u]
                top_u = top[u]
            else:
                prod_u = sum(hv[h] * mult_u[hres[h]] for h in hu if hres[h] >= 0)
                top_u = max((hv[h] * mult_u[hres[h]] for h in hu if hres[h] >= 0), default=0.0)
            big_m = max(mult_u)
            # the most a harbour at the second settlement can add to the first one's cards
            gain = max(
                sum((max(m, gen) - m) * x for m, x in zip(mult_u, per_res, strict=True)),
                max((max(m, spec) - m) * x for m, x in zip(mult_u, per_res, strict=True)),
            )
            # every candidate scores at most bound_base + big_m * s1[v]
            bound_base = prod_u + nb * pc[nm[u]] + rb * pc[rm[u]] - rtax * top_u + gain
            shared_u = t.shared[u]
            nm_u = nm[u]
            rm_u = rm[u]
            best = -1e300
            best_v = -1
            best_f = 0.0
            for v in order:
                if blocked[v]:
                    continue
                if bound_base + big_m * s1[v] < best - _CUTOFF_MARGIN:
                    break
                if ku < 0 and hk[v] < 0:
                    worst = top_u if top_u > top[v] else top[v]
                    both = shared_u.get(v)
                    if both:
                        for h in both:
                            if 2.0 * hv[h] > worst:
                                worst = 2.0 * hv[h]
                    f = (
                        prod_u
                        + vb[v]
                        + nb * pc[nm_u | nm[v]]
                        + rb * pc[rm_u | rm[v]]
                        - rtax * worst
                    )
                else:
                    f = self._pair_score(u, v, ku, hk[v], hv, hres, nm_u | nm[v], rm_u | rm[v])
                fr = round(f, _EPS_DIGITS)
                if fr > best or (fr == best and v < best_v):
                    best = fr
                    best_v = v
                    best_f = f
            scores[seat] = best_f
            picks.append((best_v, best_f))
            blocked[best_v] = True
            for w in nbrs[best_v]:
                blocked[w] = True
        return scores, picks

    def _pair_score(
        self,
        u: int,
        v: int,
        ku: int,
        kv: int,
        hv: list[float],
        hres: list[int],
        numbers: int,
        resources: int,
    ) -> float:
        """Score of settlements ``u`` and ``v`` when a harbour is involved (the slow path)."""
        p = self.params
        mult = _multipliers((ku, kv), p.specific_harbour, p.generic_harbour)
        vh = self._t.vertex_hexes
        prod = 0.0
        count: dict[int, int] = {}
        for h in vh[u] + vh[v]:
            r = hres[h]
            if r >= 0:
                prod += hv[h] * mult[r]
                count[h] = count.get(h, 0) + 1
        worst = max((c * hv[h] * mult[hres[h]] for h, c in count.items()), default=0.0)
        return (
            prod
            + p.number_bonus * _POPCOUNT[numbers]
            + p.resource_bonus * _POPCOUNT[resources]
            - p.robber_tax * worst
        )


def _multipliers(kinds: Sequence[int], specific: float, generic: float) -> list[float]:
    mult = [1.0] * N_RESOURCES
    for k in kinds:
        if k == HARBOUR_GENERIC:
            mult = [max(m, generic) for m in mult]
        elif k >= 0:
            mult[k] = max(mult[k], specific)
    return mult
