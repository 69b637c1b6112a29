"""Boards: terrain, number tokens and harbours laid on a topology, and the ways to lay them.

Three set-ups: the official random set-up (:func:`random_board`), the rulebook's variable
set-up with tokens laid along a spiral (:func:`spiral_board`), and a board given explicitly
(:meth:`Board.from_layout`). Every board that leaves this module has passed
:func:`check_board`.

For radius > 3 the extra terrain, tokens and harbours follow the thesis's scaling rules
(sections 4.3.6-4.3.8): see :func:`terrain_counts`, :func:`token_counts` and
:func:`engine.topology.harbour_kinds`.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import cache
from typing import Final

from engine.constants import (
    DICE_DOTS,
    HARBOUR_GENERIC,
    HARBOUR_LAYOUT,
    HARBOUR_LAYOUT_EVEN,
    HARBOUR_LAYOUTS,
    N_RESOURCES,
    RED_TOKENS,
    SPIRAL_TOKENS,
    STANDARD_RADIUS,
    STANDARD_TERRAIN,
    STANDARD_TOKENS,
    HexId,
    Resource,
    Terrain,
    VertexId,
)
from engine.errors import BoardError
from engine.rng import Rng
from engine.topology import Topology, harbour_kinds, topology

_NON_SEVEN = (2, 3, 4, 5, 6, 8, 9, 10, 11, 12)
# Thesis 4.3.7: the five likeliest rolls, ties to the larger, and every roll but 2, 7 and 12.
_FIVE_LIKELIEST = (5, 6, 8, 9, 10)
_ALL_BUT_EXTREMES = (3, 4, 5, 6, 8, 9, 10, 11)
_TERRAINS: Final = tuple(Terrain)


def terrain_counts(radius: int) -> dict[Terrain, int]:
    """How many hexes of each terrain a board of this radius has (thesis 4.3.6)."""
    counts = Counter(STANDARD_TERRAIN)
    for ring in range(STANDARD_RADIUS, radius):
        size = 6 * ring
        for t in range(N_RESOURCES):
            counts[Terrain(t)] += size // N_RESOURCES
        rest = size % N_RESOURCES
        if rest == 3:
            for t in (Terrain.PASTURE, Terrain.FIELDS, Terrain.FOREST):
                counts[t] += 1
        else:
            counts[Terrain.DESERT] += rest
    return dict(counts)


def token_counts(radius: int) -> Counter[int]:
    """The number tokens of a board of this radius (thesis 4.3.7); deserts have none."""
    counts: Counter[int] = Counter(STANDARD_TOKENS)
    for ring in range(STANDARD_RADIUS, radius):
        size = 6 * ring
        for n in _NON_SEVEN:
            counts[n] += size // len(_NON_SEVEN)
        rest = size % len(_NON_SEVEN)
        if rest == 6:
            counts.update(_FIVE_LIKELIEST)
        elif rest == 8:
            counts.update(_ALL_BUT_EXTREMES)
        # rests 2 and 4 are deserts, which carry no token
    return counts


@dataclass(frozen=True, eq=False)
class Board:
    """An island: terrain and token per hex (token 0 on deserts), a harbour kind per slot.

    Harbour kinds are resources (2:1) or :data:`HARBOUR_GENERIC` (3:1), one per entry of
    :attr:`harbour_slots`, the slots of the board's ``harbour_layout`` (new boards have
    :data:`HARBOUR_LAYOUT`, the printed frame's). Build one with the set-up functions or
    :meth:`from_layout`.
    """

    radius: int
    terrain: tuple[Terrain, ...]
    tokens: tuple[int, ...]
    harbours: tuple[int, ...]
    topo: Topology = field(repr=False, compare=False)
    # derived tables, computed once per board
    # per dice total: (hex, resource, the hex's vertices) for every hex with that number
    producing: tuple[tuple[tuple[HexId, int, tuple[VertexId, ...]], ...], ...] = field(
        repr=False, compare=False
    )
    vertex_harbour: tuple[int, ...] = field(repr=False, compare=False)
    reds_may_touch: bool = False
    """The board allows a 6 or an 8 next to another (a variant); :func:`check_board` then
    does not refuse them."""
    harbour_layout: int = HARBOUR_LAYOUT
    """Which slots the harbours lie on (:data:`engine.constants.HARBOUR_LAYOUTS`)."""

    @property
    def harbour_slots(self) -> tuple[int, ...]:
        """The coast edges the harbours lie on, one per entry of ``harbours``."""
        return self.topo.harbour_slots_of(self.harbour_layout)

    @classmethod
    def from_layout(
        cls,
        terrain: Sequence[int],
        tokens: Sequence[int],
        harbours: Sequence[int],
        radius: int = STANDARD_RADIUS,
        reds_may_touch: bool = False,
        harbour_layout: int = HARBOUR_LAYOUT,
    ) -> Board:
        """A board given explicitly: terrain and token per hex, a harbour kind per harbour
        slot of ``harbour_layout``. Raises :class:`BoardError` naming what is wrong with the
        shape (lengths, unknown kinds, a token on a desert, an unknown harbour layout);
        :func:`check_board` checks the contents."""
        try:
            topo = topology(radius)
        except ValueError as exc:
            raise BoardError(str(exc)) from exc
        if len(terrain) != topo.n_hexes or len(tokens) != topo.n_hexes:
            raise BoardError(f"radius {radius} needs {topo.n_hexes} hexes of terrain and tokens")
        if len(harbours) != len(topo.harbour_slots):
            raise BoardError(f"radius {radius} has {len(topo.harbour_slots)} harbour slots")
        if harbour_layout not in HARBOUR_LAYOUTS:
            raise BoardError(
                f"unknown harbour layout {harbour_layout} "
                f"(one of {', '.join(map(str, HARBOUR_LAYOUTS))})"
            )
        try:
            terr = tuple(_terrain(t) for t in terrain)
        except ValueError as exc:
            raise BoardError(f"unknown terrain: {exc}") from exc
        toks = tuple(int(x) for x in tokens)
        for h, (t, n) in enumerate(zip(terr, toks, strict=True)):
            if t == Terrain.DESERT and n != 0:
                raise BoardError(f"hex {h} is a desert and cannot carry token {n}")
            if (t != Terrain.DESERT and n not in DICE_DOTS) or n == 7:
                raise BoardError(f"hex {h} needs a number token 2-6 or 8-12, not {n}")
        for k in harbours:
            if not 0 <= k <= HARBOUR_GENERIC:
                raise BoardError(f"unknown harbour kind {k}")
        producing: list[list[tuple[int, int, tuple[int, ...]]]] = [[] for _ in range(13)]
        for h, n in enumerate(toks):
            if n:
                producing[n].append((h, int(terr[h]), topo.hex_vertices[h]))
        vertex_harbour = [-1] * topo.n_vertices
        for slot, kind in zip(topo.harbour_slots_of(harbour_layout), harbours, strict=True):
            for v in topo.edge_vertices[slot]:
                vertex_harbour[v] = kind
        return cls(
            radius=radius,
            terrain=terr,
            tokens=toks,
            harbours=tuple(int(k) for k in harbours),
            topo=topo,
            producing=tuple(tuple(p) for p in producing),
            vertex_harbour=tuple(vertex_harbour),
            reds_may_touch=bool(reds_may_touch),
            harbour_layout=int(harbour_layout),
        )

    def deserts(self) -> list[HexId]:
        """The desert hexes, in id order."""
        return [h for h, t in enumerate(self.terrain) if t == Terrain.DESERT]

    def dots(self, h: HexId) -> int:
        """Expected production of a hex per 36 rolls (0 for a desert)."""
        return DICE_DOTS[self.tokens[h]] if self.tokens[h] else 0

    def red_tokens_adjacent(self) -> bool:
        """True when two hexes carrying a 6 or an 8 are neighbours."""
        return self.touching_reds() is not None

    def touching_reds(self) -> tuple[HexId, HexId] | None:
        """The first two neighbouring hexes that both carry a 6 or an 8, or None."""
        red = [t in RED_TOKENS for t in self.tokens]
        for h in range(len(red)):
            if red[h]:
                for n in self.topo.hex_neighbours[h]:
                    if n > h and red[n]:
                        return (h, n)
        return None

    def to_dict(self) -> dict[str, object]:
        """A plain description of the board (all of it is public), what :meth:`from_layout`
        takes; ``reds_may_touch`` only when set."""
        out: dict[str, object] = {
            "radius": self.radius,
            "terrain": [int(t) for t in self.terrain],
            "tokens": list(self.tokens),
            "harbours": list(self.harbours),
            "harbour_layout": self.harbour_layout,
        }
        if self.reds_may_touch:
            out["reds_may_touch"] = True
        return out

    def _key(self) -> tuple[int, tuple[Terrain, ...], tuple[int, ...], tuple[int, ...], bool, int]:
        """What makes two boards the same board."""
        return (
            self.radius,
            self.terrain,
            self.tokens,
            self.harbours,
            self.reds_may_touch,
            self.harbour_layout,
        )

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Board):
            return NotImplemented
        return self._key() == other._key()

    def __hash__(self) -> int:
        return hash(self._key())


def _terrain(t: int) -> Terrain:
    """``Terrain(t)``, without the enum's call for the values it has."""
    if isinstance(t, int) and 0 <= t < len(_TERRAINS):
        return _TERRAINS[t]
    return Terrain(t)


@cache
def _standard_contents(radius: int) -> tuple[list[Terrain], list[int], list[int]]:
    """The terrain, number tokens and harbour kinds of a radius, each sorted (read only)."""
    return (
        sorted(t for t, c in terrain_counts(radius).items() for _ in range(c)),
        sorted(token_counts(radius).elements()),
        sorted(harbour_kinds(radius)),
    )


def check_board(board: Board, *, standard_contents: bool = True) -> None:
    """Check a board against the rules every set-up follows; raises :class:`BoardError`
    naming the first fault.

    A legal board has no 6 or 8 next to another 6 or 8 (unless it says
    ``reds_may_touch``) and (with ``standard_contents``) exactly the terrain, number tokens
    and harbour kinds of its radius: the rulebook's for radius 3, the thesis's scaling for
    larger islands. Harbours lie on the coast by construction (one per harbour slot).
    """
    touching = board.touching_reds()
    if touching is not None and not board.reds_may_touch:
        a, b = touching
        raise BoardError(
            f"hexes {a} and {b} are neighbours and both carry a 6 or an 8 "
            f"({board.tokens[a]} and {board.tokens[b]})"
        )
    if not standard_contents:
        return
    terrain, tokens, harbours = _standard_contents(board.radius)
    if (
        sorted(board.terrain) == terrain
        and sorted([n for n in board.tokens if n]) == tokens
        and sorted(board.harbours) == harbours
    ):
        return
    have_t = Counter(board.terrain)
    for t, want in sorted(terrain_counts(board.radius).items()):
        if have_t[t] != want:
            raise BoardError(
                f"the board has {have_t[t]} {t.name.lower()} hexes; "
                f"radius {board.radius} has {want}"
            )
    have_n = Counter(n for n in board.tokens if n)
    want_n = token_counts(board.radius)
    for n in sorted(set(have_n) | set(want_n)):
        if have_n[n] != want_n[n]:
            raise BoardError(
                f"the board has {have_n[n]} number tokens {n}; radius {board.radius} has "
                f"{want_n[n]}"
            )
    have_h = Counter(board.harbours)
    want_h = Counter(harbour_kinds(board.radius))
    for k in sorted(set(have_h) | set(want_h)):
        if have_h[k] != want_h[k]:
            kind = "3:1" if k == HARBOUR_GENERIC else f"2:1 {Resource(k).name.lower()}"
            raise BoardError(
                f"the board has {have_h[k]} {kind} harbours; radius {board.radius} has {want_h[k]}"
            )


def _shuffled_terrain(radius: int, rng: Rng) -> list[Terrain]:
    tiles = [t for t, c in sorted(terrain_counts(radius).items()) for _ in range(c)]
    rng.shuffle(tiles)
    return tiles


def _shuffled_harbours(radius: int, rng: Rng) -> list[int]:
    kinds = harbour_kinds(radius)
    rng.shuffle(kinds)
    return kinds


@dataclass(frozen=True, eq=False)
class _RedCounts:
    """Counts of the ways to choose which hexes of a radius carry a 6 or an 8, no two of
    them neighbours, hex by hex in row order (built once per radius).

    ``ways(i, live)`` packs, per number ``k`` of reds still to place, the number of ways to
    lay them on the hexes from position ``i`` on into one integer (``bits`` bits per ``k``),
    given ``live``: the bit mask of the red hexes laid so far that neighbour a hex still to
    come. Building every count takes one addition and one shift of such integers per state
    (a few hundred thousand states at radius 8).
    """

    order: tuple[HexId, ...]
    after: tuple[int, ...]  # per position: mask of the laid hexes with a neighbour to come
    touching: tuple[int, ...]  # per hex: mask of its neighbours
    reds: int
    bits: int
    memo: dict[tuple[int, int], int] = field(default_factory=dict)

    def ways(self, i: int, live: int) -> int:
        """Per ``k`` (bits ``k * bits`` on): the ways to lay ``k`` reds from position ``i``."""
        key = (i, live)
        got = self.memo.get(key)
        if got is not None:
            return got
        if i == len(self.order):
            result = 1
        else:
            h = self.order[i]
            result = self.ways(i + 1, live & self.after[i])
            if not live & self.touching[h]:
                red = self.ways(i + 1, (live | 1 << h) & self.after[i])
                result += (red << self.bits) & ((1 << (self.reds + 1) * self.bits) - 1)
        self.memo[key] = result
        return result

    def count(self, i: int, live: int, k: int) -> int:
        """The ways to lay ``k`` reds from position ``i`` on, given ``live``."""
        return (self.ways(i, live) >> (k * self.bits)) & ((1 << self.bits) - 1)

    def draw(self, rng: Rng) -> list[HexId]:
        """The red hexes, uniform over every choice of them with no two neighbours."""
        r, live = self.reds, 0
        red_hexes: list[HexId] = []
        for i, h in enumerate(self.order):
            w_plain = self.count(i + 1, live & self.after[i], r)
            w_red = 0
            if r and not live & self.touching[h]:
                w_red = self.count(i + 1, (live | 1 << h) & self.after[i], r - 1)
            if rng.randbelow(w_plain + w_red) < w_plain:
                live &= self.after[i]
            else:
                red_hexes.append(h)
                r -= 1
                live = (live | 1 << h) & self.after[i]
        return red_hexes


_RED_COUNTS: dict[int, _RedCounts] = {}


def _red_counts(radius: int) -> _RedCounts:
    got = _RED_COUNTS.get(radius)
    if got is not None:
        return got
    topo = topology(radius)
    order = tuple(sorted(range(topo.n_hexes), key=lambda h: topo.hex_coords[h][::-1]))
    pos = {h: i for i, h in enumerate(order)}
    after = tuple(
        sum(1 << h for h in order[: i + 1] if any(pos[m] > i for m in topo.hex_neighbours[h]))
        for i in range(len(order))
    )
    tokens = token_counts(radius)
    reds = sum(tokens[n] for n in RED_TOKENS)
    made = _RedCounts(
        order=order,
        after=after,
        touching=tuple(sum(1 << m for m in ns) for ns in topo.hex_neighbours),
        reds=reds,
        # no count exceeds the ways to choose the reds' hexes with no rule at all
        bits=max(math.comb(topo.n_hexes, k) for k in range(reds + 1)).bit_length(),
    )
    made.ways(0, 0)
    _RED_COUNTS[radius] = made
    return made


def prepare_random_boards(radius: int) -> None:
    """Build, once per radius, the counts :func:`random_board` draws from (under a second
    at radius 8, instant after); call it off an event loop before a first random board of
    a large radius."""
    _red_counts(radius)


@cache
def _layout_pieces(
    radius: int,
) -> tuple[int, tuple[int, ...], tuple[int, ...], tuple[Terrain, ...]]:
    """What :func:`_uniform_layout` lays, in order before shuffling: the number of deserts,
    the 6s and 8s, the other tokens and the other terrain."""
    counts = token_counts(radius)
    return (
        terrain_counts(radius).get(Terrain.DESERT, 0),
        tuple(n for n in RED_TOKENS for _ in range(counts[n])),
        tuple(n for n, c in sorted(counts.items()) if n not in RED_TOKENS for _ in range(c)),
        tuple(
            t
            for t, c in sorted(terrain_counts(radius).items())
            if t != Terrain.DESERT
            for _ in range(c)
        ),
    )


def _uniform_layout(radius: int, rng: Rng) -> tuple[list[Terrain], list[int]]:
    """Terrain and tokens drawn uniformly over every layout with no 6 or 8 next to another.

    Every choice of red hexes (no two neighbours) leaves the same number of ways to lay the
    deserts and everything else, so drawing the red hexes uniformly from their exact count
    (:class:`_RedCounts`), then the deserts uniformly among the other hexes, then shuffling
    the other terrain and numbers over the hexes left makes every legal layout equally likely.
    """
    topo = topology(radius)
    red_hexes = _red_counts(radius).draw(rng)
    red_set = set(red_hexes)
    free = [h for h in range(topo.n_hexes) if h not in red_set]
    n_deserts, red_tokens, other_tokens, land_kinds = _layout_pieces(radius)
    rng.shuffle(free)
    desert_set = set(free[:n_deserts])
    reds = list(red_tokens)
    others = list(other_tokens)
    kinds = list(land_kinds)
    rng.shuffle(reds)
    rng.shuffle(others)
    rng.shuffle(kinds)
    terrain = [Terrain.DESERT] * topo.n_hexes
    tokens = [0] * topo.n_hexes
    land = [h for h in range(topo.n_hexes) if h not in desert_set]
    for h, t in zip(land, kinds, strict=True):
        terrain[h] = t
    for h, n in zip(red_hexes, reds, strict=True):
        tokens[h] = n
    for h, n in zip([h for h in land if h not in red_set], others, strict=True):
        tokens[h] = n
    return terrain, tokens


def _first_fit_tokens(terrain: Sequence[Terrain], topo: Topology, rng: Rng) -> list[int] | None:
    """Tokens of the first edition's random set-up: the 6s and 8s first-fit on shuffled
    producing hexes, the rest shuffled over the others; None when a try gets stuck."""
    counts = token_counts(topo.radius)
    reds = [n for n in RED_TOKENS for _ in range(counts[n])]
    others = [n for n, c in sorted(counts.items()) if n not in RED_TOKENS for _ in range(c)]
    land = [h for h, t in enumerate(terrain) if t != Terrain.DESERT]
    rng.shuffle(land)
    red_hexes: list[int] = []
    blocked: set[int] = set()
    for h in land:
        if len(red_hexes) == len(reds):
            break
        if h not in blocked:
            red_hexes.append(h)
            blocked.add(h)
            blocked.update(topo.hex_neighbours[h])
    if len(red_hexes) < len(reds):
        return None
    rng.shuffle(reds)
    rng.shuffle(others)
    tokens = [0] * len(terrain)
    for h, n in zip(red_hexes, reds, strict=True):
        tokens[h] = n
    rest = [h for h in land if h not in set(red_hexes)]
    for h, n in zip(rest, others, strict=True):
        tokens[h] = n
    return tokens


def first_random_board(rng: Rng, radius: int = STANDARD_RADIUS) -> Board:
    """The random set-up of the first edition (:data:`SETUP_EDITION_FIRST`), which games
    stored before the set-ups followed the printed rulebook were dealt: shuffled terrain,
    the 6s and 8s first-fit on shuffled hexes, shuffled harbour kinds over the evenly spaced
    harbour slots."""
    topo = topology(radius)
    while True:
        terrain = _shuffled_terrain(radius, rng)
        tokens = _first_fit_tokens(terrain, topo, rng)
        if tokens is not None:
            break
    board = Board.from_layout(
        terrain,
        tokens,
        _shuffled_harbours(radius, rng),
        radius,
        harbour_layout=HARBOUR_LAYOUT_EVEN,
    )
    check_board(board)
    return board


def random_board(rng: Rng, radius: int = STANDARD_RADIUS) -> Board:
    """The official random set-up: terrain and tokens drawn uniformly over the layouts with
    no 6 or 8 next to another, and shuffled harbour kinds over the fixed harbour slots."""
    terrain, tokens = _uniform_layout(radius, rng)
    board = Board.from_layout(terrain, tokens, _shuffled_harbours(radius, rng), radius)
    check_board(board)
    return board


def spiral_tokens(radius: int, rng: Rng | None = None) -> list[int]:
    """The order tokens are laid along the spiral.

    Radius 3 is the rulebook's sequence. Larger boards lay their extra tokens first, on the
    outer rings, in an order drawn from ``rng`` (the rulebook has none for them), then the
    rulebook's sequence on the inner rings.
    """
    extra = token_counts(radius) - Counter(SPIRAL_TOKENS)
    seq = sorted(extra.elements())
    if rng is not None:
        rng.shuffle(seq)
    return seq + list(SPIRAL_TOKENS)


def _separate_reds(tokens: list[int], topo: Topology, rng: Rng) -> bool:
    """Swap 6s and 8s that touch another 6 or 8 onto free hexes; False if it gets stuck."""
    red = set(RED_TOKENS)
    for _ in range(4 * topo.n_hexes):
        clashing = [
            h
            for h, n in enumerate(tokens)
            if n in red and any(tokens[m] in red for m in topo.hex_neighbours[h])
        ]
        if not clashing:
            return True
        h = clashing[rng.randrange(len(clashing))]
        free = [
            c
            for c, n in enumerate(tokens)
            if n
            and n not in red
            and not any(tokens[m] in red for m in topo.hex_neighbours[c] if m != h)
        ]
        if not free:
            return False
        c = free[rng.randrange(len(free))]
        tokens[h], tokens[c] = tokens[c], tokens[h]
    return False


def spiral_board(
    rng: Rng, radius: int = STANDARD_RADIUS, harbour_layout: int = HARBOUR_LAYOUT
) -> Board:
    """The rulebook's variable set-up: shuffled terrain and harbours, number tokens laid in
    the fixed order along a spiral from an outer corner inwards, skipping deserts.

    The start corner is drawn at random; if a layout puts a 6 next to an 8 (possible when the
    desert falls between them) the terrain is reshuffled. Larger boards, which have no
    rulebook sequence, instead move clashing 6s and 8s onto free hexes. The harbours lie on
    the slots of ``harbour_layout``.
    """
    topo = topology(radius)
    harbours = _shuffled_harbours(radius, rng)
    while True:
        terrain = _shuffled_terrain(radius, rng)
        sequence = spiral_tokens(radius, rng)
        path = topo.spiral(rng.randrange(6))
        tokens = [0] * topo.n_hexes
        it = iter(sequence)
        for h in path:
            if terrain[h] != Terrain.DESERT:
                tokens[h] = next(it)
        if radius > STANDARD_RADIUS and not _separate_reds(tokens, topo, rng):
            continue
        board = Board.from_layout(terrain, tokens, harbours, radius, harbour_layout=harbour_layout)
        if not board.red_tokens_adjacent():
            check_board(board)
            return board
