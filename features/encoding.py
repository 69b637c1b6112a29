"""A seat's view of a game as a fixed-size vector of floats, and as named arrays.

:func:`encoding` gives the :class:`Encoding` of a board radius and a player count: its
blocks (name, shape, meaning) laid end to end, the board's blocks first. Two writers make
the same vector:

- :meth:`Encoding.encode_view` reads an :class:`engine.view.View` (what a seat is sent:
  the adapter over the protocol uses it);
- :meth:`Encoding.encode_state` reads a :class:`engine.state.GameState` for one seat, but
  only the fields that seat's view shows (the fast path of the environments; the tests
  check it against the first on every position of random games, and check that scrambling
  what the seat cannot see leaves it unchanged).

Seats are relative: row ``k`` of a per-seat block is seat ``(seat + k) % players``, so row 0
is always the encoded seat. Counts are raw numbers (cards, pieces, points), flags and
one-hot entries are 0 or 1; ``docs/learning.md`` lists every block.
"""

from __future__ import annotations

import importlib
from array import array
from collections.abc import MutableSequence, Sequence
from dataclasses import dataclass, fields
from functools import cache, lru_cache
from typing import Any, Final

from engine.board import Board
from engine.constants import (
    BANK_PER_RESOURCE,
    DEV_DECK,
    DICE_DOTS,
    HARBOUR_GENERIC,
    MAX_ACTIONS,
    MAX_VICTORY_POINTS,
    N_DEV_KINDS,
    N_RESOURCES,
    DevCard,
    Terrain,
)
from engine.rebuild import config_of
from engine.rules import seats_to_act
from engine.state import Answer, GameState, Phase
from engine.topology import topology
from engine.view import PlayerView, View

_R: Final = N_RESOURCES
_TERRAINS: Final = len(Terrain)
_PHASES: Final = len(Phase)
_ANSWERS: Final = ("not_asked", "pending", "accepted", "declined", "countered")
"""The answer states of an open offer, in the order of the ``trade_answers`` columns."""
_ANSWER_COLUMN: Final = {int(Answer[a.upper()]): i for i, a in enumerate(_ANSWERS)}
_PHASE_NAMES: Final = {p.name.lower(): int(p) for p in Phase}
_SEAT_FIELDS: Final = tuple(f.name for f in fields(PlayerView) if f.name != "seat")
"""The columns of the ``seats`` block: a :class:`engine.view.PlayerView`'s fields but its
seat, in order."""
_ALL_CARDS: Final = BANK_PER_RESOURCE * N_RESOURCES


@dataclass(frozen=True)
class Block:
    """One named part of the vector: ``shape`` entries from ``offset``, row-major."""

    name: str
    shape: tuple[int, ...]
    offset: int
    high: float
    """The largest value an entry can take (1 for flags and one-hot entries)."""
    meaning: str

    @property
    def size(self) -> int:
        out = 1
        for d in self.shape:
            out *= d
        return out


class Encoding:
    """The vector layout for one board radius and player count (build it with
    :func:`encoding`, which makes each once)."""

    def __init__(self, radius: int, players: int) -> None:
        topo = topology(radius)
        self.radius = radius
        self.players = players
        self.topo = topo
        n, h, v, e = players, topo.n_hexes, topo.n_vertices, topo.n_edges
        max_dots = 3 * max(DICE_DOTS[t] for t in DICE_DOTS if t != 7)
        specs: list[tuple[str, tuple[int, ...], float, str]] = [
            # the board: the same for every seat and all game long
            (
                "hex_terrain",
                (h, _TERRAINS),
                1,
                "terrain one-hot: hills, forest, pasture, fields, mountains, desert",
            ),
            (
                "hex_token",
                (h, 11),
                1,
                "number token one-hot, column t-2 for token t (7 never set; none on a desert)",
            ),
            ("hex_dots", (h,), 5, "the token's dots: rolls in 36 that produce (0 on a desert)"),
            (
                "vertex_harbour",
                (v, _R + 1),
                1,
                "harbour at the intersection: brick, lumber, wool, grain, ore (2:1), any (3:1)",
            ),
            (
                "vertex_dots",
                (v, _R),
                max_dots,
                "dots of the touching hexes, by the resource they yield",
            ),
            # the game as the seat sees it
            ("robber", (h,), 1, "the robber's hex, one-hot"),
            ("vertex_settlement", (v, n), 1, "a settlement of relative seat k"),
            ("vertex_city", (v, n), 1, "a city of relative seat k"),
            ("edge_road", (e, n), 1, "a road of relative seat k"),
            ("hand", (_R,), _ALL_CARDS, "own resource cards: brick, lumber, wool, grain, ore"),
            (
                "development",
                (N_DEV_KINDS,),
                max(DEV_DECK),
                "own development cards held (bought this turn included): knight, victory "
                "point, road building, year of plenty, monopoly",
            ),
            (
                "development_new",
                (N_DEV_KINDS,),
                max(DEV_DECK),
                "own development cards bought this turn (not yet playable)",
            ),
            (
                "own_points",
                (1,),
                MAX_VICTORY_POINTS + 10,
                "own points, hidden victory cards included",
            ),
            ("trade_ratios", (_R,), 4, "own bank ratio per resource (4, 3 or 2)"),
            (
                "seats",
                (n, len(_SEAT_FIELDS)),
                _ALL_CARDS,
                "per relative seat: " + ", ".join(_SEAT_FIELDS),
            ),
            ("bank", (_R,), BANK_PER_RESOURCE, "the bank's resource cards"),
            ("development_deck", (1,), sum(DEV_DECK), "development cards left in the deck"),
            ("phase", (_PHASES,), 1, "phase one-hot: " + ", ".join(p.name.lower() for p in Phase)),
            ("current", (n,), 1, "the relative seat whose turn it is, one-hot"),
            ("to_act", (n,), 1, "the relative seats that owe an action"),
            ("turn", (1,), MAX_ACTIONS, "the turn number"),
            (
                "dice",
                (11,),
                1,
                "the roll this turn, one-hot, column t-2 for total t (none before the roll)",
            ),
            ("development_played", (1,), 1, "a development card was played this turn"),
            ("free_roads", (1,), 2, "free roads of road building still to lay"),
            ("victory_points", (1,), MAX_VICTORY_POINTS, "points that win the game"),
            ("trade_open", (1,), 1, "a domestic offer is open"),
            ("trade_offerer", (n,), 1, "the relative seat that made it, one-hot"),
            ("trade_give", (_R,), _ALL_CARDS, "what the offerer gives"),
            ("trade_get", (_R,), _ALL_CARDS, "what the offerer asks for"),
            (
                "trade_answers",
                (n, len(_ANSWERS)),
                1,
                "per relative seat, one-hot: " + ", ".join(_ANSWERS),
            ),
            (
                "trade_counters",
                (n, 2 * _R),
                _ALL_CARDS,
                "per relative seat, its counter-offer: what it gives, then what it gets",
            ),
            (
                "winner",
                (n,),
                1,
                "the relative seat that won, one-hot (none while the game goes on)",
            ),
        ]
        blocks: list[Block] = []
        offset = 0
        for name, shape, high, meaning in specs:
            block = Block(name, shape, offset, float(high), meaning)
            blocks.append(block)
            offset += block.size
        self.blocks: tuple[Block, ...] = tuple(blocks)
        self.size = offset
        by = {b.name: b.offset for b in blocks}
        self.offsets = by
        self.board_size = by["robber"]
        """The board's blocks come first: entries ``[0, board_size)`` are fixed for a game."""
        self.highs: tuple[float, ...] = tuple(b.high for b in blocks for _ in range(b.size))
        self._board: Board | None = None
        self._board_row = memoryview(array("f"))
        """The last board written, and its blocks as float32 (copied whole into buffers
        that take them)."""
        # Offsets of the dynamic blocks, as attributes for the writers' hot path.
        self._robber = by["robber"]
        self.pieces: tuple[int, int] = (by["vertex_settlement"], by["hand"])
        """The entries of the pieces' blocks (settlements, cities, roads), ``[start, end)``."""
        self._settlement = by["vertex_settlement"]
        self._city = by["vertex_city"]
        self._road = by["edge_road"]
        self._hand = by["hand"]
        self._dev = by["development"]
        self._dev_new = by["development_new"]
        self._own_points = by["own_points"]
        self._ratios = by["trade_ratios"]
        self._seats = by["seats"]
        self._bank = by["bank"]
        self._deck = by["development_deck"]
        self._phase = by["phase"]
        self._current = by["current"]
        self._to_act = by["to_act"]
        self._turn = by["turn"]
        self._dice = by["dice"]
        self._played = by["development_played"]
        self._free_roads = by["free_roads"]
        self._vp = by["victory_points"]
        self._trade_open = by["trade_open"]
        self._offerer = by["trade_offerer"]
        self._give = by["trade_give"]
        self._get = by["trade_get"]
        self._answers = by["trade_answers"]
        self._counters = by["trade_counters"]
        self._winner = by["winner"]
        self.tail_size = offset - by["hand"]
        """The entries from the ``hand`` block to the end: those that may change with any
        action (:meth:`update` compares them with what it wrote last)."""

    def block(self, name: str) -> Block:
        """The block called ``name``; KeyError if there is none."""
        for b in self.blocks:
            if b.name == name:
                return b
        raise KeyError(f"no block {name!r}; blocks: {', '.join(b.name for b in self.blocks)}")

    # --- the board ------------------------------------------------------------------------
    def board(self, board: Board) -> list[float]:
        """The board's blocks (entries ``[0, board_size)``), the same for every seat."""
        if board.radius != self.radius:
            raise ValueError(f"the board has radius {board.radius}, not {self.radius}")
        return list(_board_blocks(board, self.board_size))

    # --- writers --------------------------------------------------------------------------
    def encode_view(self, view: View, out: Any = None) -> Any:
        """The vector of a seat's ``view`` (a new list, or written into ``out``, which must
        hold :attr:`size` zeros). Raises ValueError for a spectator's view or one of
        another shape."""
        if view.seat is None:
            raise ValueError("a spectator's view has no seat to encode for")
        n = self.players
        if view.players != n:
            raise ValueError(f"the view has {view.players} players, not {n}")
        board = config_of(view).board
        assert board is not None  # the viewed game's board, made explicit
        if board.radius != self.radius:
            raise ValueError(f"the board has radius {board.radius}, not {self.radius}")
        x: MutableSequence[float] = [0.0] * self.size if out is None else out
        self._write_board(board, x, 0)
        me = view.seat
        x[self._robber + view.robber] = 1.0
        for vertex, q in view.settlements:
            x[self._settlement + vertex * n + (q - me) % n] = 1.0
        for vertex, q in view.cities:
            x[self._city + vertex * n + (q - me) % n] = 1.0
        for edge, q in view.roads:
            x[self._road + edge * n + (q - me) % n] = 1.0
        _put_all(x, self._hand, view.hand or ())
        _put_all(x, self._dev, view.development or ())
        _put_all(x, self._dev_new, view.development_new or ())
        x[self._own_points] = float(view.own_points or 0)
        _put_all(x, self._ratios, view.trade_ratios or ())
        width = len(_SEAT_FIELDS)
        for p in view.seats:
            row = self._seats + ((p.seat - me) % n) * width
            for i, name in enumerate(_SEAT_FIELDS):
                x[row + i] = float(getattr(p, name))
        _put_all(x, self._bank, view.bank)
        x[self._deck] = float(view.development_deck)
        x[self._phase + _PHASE_NAMES[view.phase]] = 1.0
        x[self._current + (view.current - me) % n] = 1.0
        for q in view.to_act:
            x[self._to_act + (q - me) % n] = 1.0
        x[self._turn] = float(view.turn)
        if view.dice is not None:
            x[self._dice + view.dice[0] + view.dice[1] - 2] = 1.0
        x[self._played] = float(view.dev_card_played)
        x[self._free_roads] = float(view.free_roads)
        x[self._vp] = float(view.victory_points)
        t = view.trade
        if t is not None:
            x[self._trade_open] = 1.0
            x[self._offerer + (t.offerer - me) % n] = 1.0
            _put_all(x, self._give, t.give)
            _put_all(x, self._get, t.get)
            for q, answer in enumerate(t.answers):
                k = (q - me) % n
                x[self._answers + k * len(_ANSWERS) + _ANSWERS.index(answer)] = 1.0
                counter = t.counters[q]
                if counter is not None:
                    _put_all(x, self._counters + k * 2 * _R, counter[0])
                    _put_all(x, self._counters + k * 2 * _R + _R, counter[1])
        if view.winner is not None:
            x[self._winner + (view.winner - me) % n] = 1.0
        return x

    def encode_state(self, state: GameState, seat: int, out: Any, base: int = 0) -> None:
        """Write ``seat``'s vector into ``out[base : base + size]``, which must hold zeros,
        reading only what ``view(state, seat)`` shows. ``out`` is a list, a numpy array or
        a memoryview (of a float32 array: the fastest)."""
        self._write_board(state.board, out, base)
        out[base + self._robber + state.robber] = 1.0
        self._pieces(state, seat, out, base)
        self._tail(state, seat, None, out, base + self._hand, False)

    def update(self, state: GameState, seat: int, out: Any, kept: Kept) -> None:
        """Make ``out`` (a memoryview of a float32 array of :attr:`size` entries)
        ``seat``'s vector, whatever it holds, writing only the entries that changed since
        this method last wrote it. ``kept`` is the record of that write, one per buffer:
        nothing else may write into ``out`` while it is used, or call :meth:`Kept.forget`
        after. The first write for a game (or after ``forget``) writes the whole vector."""
        built = _pieces_key(state)
        if kept.state is not state:
            out[:] = _zeros(self.size)
            self._write_board(state.board, out, 0)
            out[self._robber + state.robber] = 1.0
            self._pieces(state, seat, out, 0)
            kept.tail = [0] * self.tail_size
            kept.trade_open = False
            kept.state = state
        else:
            if state.robber != kept.robber:
                out[self._robber + kept.robber] = 0.0
                out[self._robber + state.robber] = 1.0
            if seat != kept.seat or built != kept.built:
                start, end = self.pieces
                out[start:end] = _zeros(end - start)
                self._pieces(state, seat, out, 0)
        kept.trade_open = self._tail(state, seat, kept.tail, out, self._hand, kept.trade_open)
        kept.seat = seat
        kept.built = built
        kept.robber = state.robber

    def _pieces(self, state: GameState, seat: int, out: Any, base: int) -> None:
        """Write the pieces' blocks (over zeros)."""
        n = self.players
        me = seat
        vlevel = state.vlevel
        s_off = base + self._settlement
        c_off = base + self._city
        for q in range(n):
            k = q - me if q >= me else q - me + n
            for vertex in state.pbuild[q]:
                if vlevel[vertex] == 1:
                    out[s_off + vertex * n + k] = 1.0
                else:
                    out[c_off + vertex * n + k] = 1.0
            r_off = base + self._road + k
            for edge in state.proads[q]:
                out[r_off + edge * n] = 1.0

    def _tail(
        self, state: GameState, seat: int, x: list[int] | None, out: Any, o: int, was_open: bool
    ) -> bool:
        """Bring ``seat``'s entries from the ``hand`` block to the end up to date in ``out``
        (from ``out[o]``), where ``x`` holds what they are there now (as ints; ``None``:
        all zeros, as in a fresh vector): each entry whose value changed is written into
        both. These are the blocks that may change with any action. ``was_open``: the
        trade blocks hold an offer (else they are all zeros and stay so while none is
        open). Returns whether an offer is open now."""
        n = self.players
        me = seat
        h = self._hand
        hand = state.hand
        dev = state.dev
        hb = me * _R
        d = self._dev - h
        for r in range(_R):
            _put(x, out, o, r, hand[hb + r])
            _put(x, out, o, d + r, dev[hb + r])
        new = state.dev_new
        d = self._dev_new - h
        mine = seat == state.current
        for r in range(_R):
            _put(x, out, o, d + r, new[r] if mine else 0)
        _put(x, out, o, self._own_points - h, state.vp[me] + dev[hb + _VP_CARD])
        ratio = state.ratio
        d = self._ratios - h
        for r in range(_R):
            _put(x, out, o, d + r, ratio[hb + r])
        width = len(_SEAT_FIELDS)
        longest = state.longest_holder
        army = state.army_holder
        seats = self._seats - h
        for q in range(n):
            k = q - me if q >= me else q - me + n
            row = seats + k * width
            qb = q * _R
            _put(x, out, o, row, state.vp[q])
            held = hand[qb] + hand[qb + 1] + hand[qb + 2] + hand[qb + 3] + hand[qb + 4]
            _put(x, out, o, row + 1, held)
            cards = dev[qb] + dev[qb + 1] + dev[qb + 2] + dev[qb + 3] + dev[qb + 4]
            _put(x, out, o, row + 2, cards)
            _put(x, out, o, row + 3, state.knights[q])
            _put(x, out, o, row + 4, state.roads_left[q])
            _put(x, out, o, row + 5, state.settlements_left[q])
            _put(x, out, o, row + 6, state.cities_left[q])
            _put(x, out, o, row + 7, state.road_len[q])
            _put(x, out, o, row + 8, 1 if longest == q else 0)
            _put(x, out, o, row + 9, 1 if army == q else 0)
            _put(x, out, o, row + 10, state.owed[q])
        bank = state.bank
        d = self._bank - h
        for r in range(_R):
            _put(x, out, o, d + r, bank[r])
        deck = state.deck
        _put(x, out, o, self._deck - h, deck[0] + deck[1] + deck[2] + deck[3] + deck[4])
        cur = state.current
        rel_cur = cur - me if cur >= me else cur - me + n
        rel_win = (state.winner - me) % n if state.winner >= 0 else -1
        dice = state.dice
        if x is None:  # a fresh vector: the one-hot entries that are set, and no others
            out[o + self._phase - h + state.phase] = 1
            out[o + self._current - h + rel_cur] = 1
            if rel_win >= 0:
                out[o + self._winner - h + rel_win] = 1
            if dice is not None:
                out[o + self._dice - h + dice[0] + dice[1] - 2] = 1
        else:
            d = self._phase - h
            phase = state.phase
            for p in range(_PHASES):
                _put(x, out, o, d + p, 1 if p == phase else 0)
            d = self._current - h
            w = self._winner - h
            for k in range(n):
                _put(x, out, o, d + k, 1 if k == rel_cur else 0)
                _put(x, out, o, w + k, 1 if k == rel_win else 0)
            total = dice[0] + dice[1] - 2 if dice is not None else -1
            d = self._dice - h
            for j in range(11):
                _put(x, out, o, d + j, 1 if j == total else 0)
        acting = seats_to_act(state)
        t = self._to_act - h
        for k in range(n):
            _put(x, out, o, t + k, 1 if (k + me) % n in acting else 0)
        _put(x, out, o, self._turn - h, state.turn)
        _put(x, out, o, self._played - h, 1 if state.dev_played else 0)
        _put(x, out, o, self._free_roads - h, state.free_roads)
        _put(x, out, o, self._vp - h, state.config.victory_points)
        offer = state.offer
        if offer is None and not was_open:
            return False
        _put(x, out, o, self._trade_open - h, 0 if offer is None else 1)
        d = self._offerer - h
        for k in range(n):
            _put(x, out, o, d + k, 1 if offer is not None and k == rel_cur else 0)
        give = offer[0] if offer is not None else _NONE
        get = offer[1] if offer is not None else _NONE
        d = self._give - h
        g = self._get - h
        for r in range(_R):
            _put(x, out, o, d + r, give[r])
            _put(x, out, o, g + r, get[r])
        answers = state.answers
        counters = state.counters
        na = len(_ANSWERS)
        for q in range(n):
            k = q - me if q >= me else q - me + n
            column = _ANSWER_COLUMN[answers[q]] if offer is not None else -1
            d = self._answers - h + k * na
            for j in range(na):
                _put(x, out, o, d + j, 1 if j == column else 0)
            counter = counters[q] if offer is not None else None
            cg, ct = counter if counter is not None else (_NONE, _NONE)
            d = self._counters - h + k * 2 * _R
            for r in range(_R):
                _put(x, out, o, d + r, cg[r])
                _put(x, out, o, d + _R + r, ct[r])
        return offer is not None

    def _write_board(self, board: Board, out: Any, base: int) -> None:
        if board is not self._board:
            self._board_row = memoryview(array("f", _board_blocks(board, self.board_size)))
            self._board = board
        try:  # a float32 buffer, a numpy array or a list: one copy
            out[base : base + self.board_size] = self._board_row
        except (TypeError, ValueError):  # a buffer of another format: entry by entry
            for i, value in enumerate(self._board_row):
                if value:
                    out[base + i] = value

    def named(self, vector: Any) -> dict[str, Any]:
        """The blocks of a vector as named arrays of their shapes (views into ``vector``
        where it is a numpy array; ``vector`` may also have a leading batch axis)."""
        np: Any = importlib.import_module("numpy")  # not a dependency of the compiled build
        arr = np.asarray(vector)
        lead = arr.shape[:-1]
        return {
            b.name: arr[..., b.offset : b.offset + b.size].reshape(*lead, *b.shape)
            for b in self.blocks
        }


class Kept:
    """What :meth:`Encoding.update` last wrote into one buffer: for which game state and
    seat, after which builds, with the robber where, and the values of the entries from
    the ``hand`` block on."""

    def __init__(self) -> None:
        self.state: GameState | None = None
        self.seat = -1
        self.built = -1
        self.robber = -1
        self.tail: list[int] = []
        self.trade_open = False

    def forget(self) -> None:
        """The buffer was written by someone else: the next update writes it whole."""
        self.state = None


def _pieces_key(state: GameState) -> int:
    """A number that changes with every piece built (each build takes one from a seat's
    pieces left, and a city gives its settlement back)."""
    total = 0
    for q in range(state.n):
        total += state.roads_left[q] + 64 * state.settlements_left[q] + 4096 * state.cities_left[q]
    return total


@cache
def _zeros(size: int) -> memoryview:
    """``size`` float32 zeros, to clear a buffer's slice in one copy."""
    return memoryview(array("f", bytes(4 * size)))


_VP_CARD: Final = int(DevCard.VICTORY_POINT)


def _put(x: list[int] | None, out: Any, o: int, i: int, v: int) -> None:
    """Entry ``i`` of the tail is ``v``: written into ``out[o + i]`` and ``x[i]`` if it
    was not (with no ``x``: ``out`` holds zeros there)."""
    if x is None:
        if v:
            out[o + i] = v
    elif x[i] != v:
        x[i] = v
        out[o + i] = v


_NONE: Final = (0,) * _R


def _put_all(x: MutableSequence[float], offset: int, values: Sequence[int]) -> None:
    for i, c in enumerate(values):
        if c:
            x[offset + i] = float(c)


@lru_cache(maxsize=1024)
def _board_blocks(board: Board, size: int) -> tuple[float, ...]:
    """The board's blocks, made once per board."""
    topo = board.topo
    h, v = topo.n_hexes, topo.n_vertices
    x = [0.0] * size
    o_terrain = 0
    o_token = o_terrain + h * _TERRAINS
    o_dots = o_token + h * 11
    o_harbour = o_dots + h
    o_vdots = o_harbour + v * (_R + 1)
    for hx in range(h):
        terrain = int(board.terrain[hx])
        x[o_terrain + hx * _TERRAINS + terrain] = 1.0
        token = board.tokens[hx]
        if token:
            x[o_token + hx * 11 + token - 2] = 1.0
            x[o_dots + hx] = float(DICE_DOTS[token])
    for vx in range(v):
        kind = board.vertex_harbour[vx]
        if kind >= 0:
            x[o_harbour + vx * (_R + 1) + (_R if kind == HARBOUR_GENERIC else kind)] = 1.0
        for hx in topo.vertex_hexes[vx]:
            token = board.tokens[hx]
            if token:
                x[o_vdots + vx * _R + int(board.terrain[hx])] += float(DICE_DOTS[token])
    return tuple(x)


@cache
def encoding(radius: int = 3, players: int = 4) -> Encoding:
    """The :class:`Encoding` of a board radius and player count, made once."""
    if not 2 <= players <= 4:
        raise ValueError(f"players must be 2 to 4, not {players}")
    return Encoding(radius, players)


__all__ = ["Block", "Encoding", "Kept", "encoding"]
