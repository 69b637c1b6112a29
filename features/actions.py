"""Every action of the base game as an integer, from the acting seat's side, with a mask of
the legal ones.

:func:`action_index` gives the :class:`ActionIndex` of a board radius and a player count.
Its ranges, in order (``docs/learning.md`` has the table):

======================  =========  ==========================================================
range                   size       action
======================  =========  ==========================================================
``settlement``          V          a settlement on intersection v (set-up or built)
``road``                E          a road on path e (set-up, built, or free by road building)
``city``                V          a city on intersection v
``roll``                1          roll the dice
``discard``             5          discard one card of a resource (after a seven)
``robber``              H x n      the robber to hex h, robbing relative seat k (k = 0: nobody)
``buy_development``     1          buy a development card
``knight``              1          play a knight
``road_building``       1          play road building
``year_of_plenty``      20         play year of plenty: the 15 pairs, then the 5 single cards
                                   (taken when the bank holds only one card)
``monopoly``            5          play monopoly on a resource
``maritime``            20         trade with the bank, give g for get w (w != g) at the
                                   seat's best ratio for g
``offer``               60         offer everyone a bounded trade (:data:`TRADE_SHAPES`)
``accept``              1          accept the open offer
``decline``             1          decline it
``counter``             60         answer it with a bounded counter-offer
``confirm``             n - 1      complete the open offer with relative seat k (1 .. n-1)
``cancel``              1          withdraw the open offer
``end_turn``            1          end the turn
======================  =========  ==========================================================

Relative seat ``k`` is seat ``(seat + k) % n``. A bounded trade (offer or counter) is one
of :data:`TRADE_SHAPES` for each ordered pair of different resources ``(a, b)``: give one
``a`` for one ``b``, two ``a`` for one ``b``, or one ``a`` for two ``b``. Offers and
counter-offers of other terms exist in the game (and over the protocol) but have no index.
"""

from __future__ import annotations

from array import array
from collections.abc import MutableSequence, Sequence
from dataclasses import dataclass
from functools import cache
from typing import Final

from engine.actions import (
    YEAR_OF_PLENTY_CHOICES,
    AcceptTrade,
    Action,
    BuildCity,
    BuildRoad,
    BuildSettlement,
    BuyDevCard,
    CancelTrade,
    ConfirmTrade,
    CounterTrade,
    Counts,
    DeclineTrade,
    Discard,
    EndTurn,
    MaritimeTrade,
    MoveRobber,
    OfferTrade,
    PlaceRoad,
    PlaceSettlement,
    PlayKnight,
    PlayMonopoly,
    PlayRoadBuilding,
    PlayYearOfPlenty,
    RollDice,
    counts_of,
)
from engine.constants import N_RESOURCES, Resource
from engine.rules import legal_actions
from engine.state import Answer, GameState, Phase
from engine.tables import action_tables
from engine.topology import topology

_R: Final = N_RESOURCES
PAIRS: Final = tuple((a, b) for a in range(_R) for b in range(_R) if a != b)
"""Ordered pairs of different resources, in the order the trade ranges use."""
TRADE_SHAPES: Final = ((1, 1), (2, 1), (1, 2))
"""Bounded trades: (cards of ``a`` given, cards of ``b`` got) for each pair ``(a, b)``."""
BOUNDED_TRADES: Final[tuple[tuple[Counts, Counts], ...]] = tuple(
    (counts_of(*[a] * give), counts_of(*[b] * get)) for give, get in TRADE_SHAPES for a, b in PAIRS
)
"""The (give, get) of each bounded trade, in index order: shape by shape, pair by pair."""
_BOUNDED: Final = len(BOUNDED_TRADES)
_TRADE_OF: Final[dict[tuple[tuple[int, ...], tuple[int, ...]], int]] = {
    terms: i for i, terms in enumerate(BOUNDED_TRADES)
}
_SINGLE_CARDS: Final = tuple(counts_of(r) for r in range(_R))
_PLENTY: Final = (*YEAR_OF_PLENTY_CHOICES, *_SINGLE_CARDS)
_PLENTY_OF: Final[dict[tuple[int, ...], int]] = {cards: i for i, cards in enumerate(_PLENTY)}
_SETUP: Final = (int(Phase.SETUP_SETTLEMENT), int(Phase.SETUP_ROAD))
_MAIN: Final = int(Phase.MAIN)
_TRADE: Final = int(Phase.TRADE)
_PENDING: Final = int(Answer.PENDING)


@dataclass(frozen=True)
class Range:
    """One kind of action: indices ``[start, start + size)``."""

    name: str
    start: int
    size: int


class ActionIndex:
    """The action index of one board radius and player count (build it with
    :func:`action_index`, which makes each once)."""

    def __init__(self, radius: int, players: int) -> None:
        topo = topology(radius)
        self.radius = radius
        self.players = players
        n, h, v, e = players, topo.n_hexes, topo.n_vertices, topo.n_edges
        sizes = (
            ("settlement", v),
            ("road", e),
            ("city", v),
            ("roll", 1),
            ("discard", _R),
            ("robber", h * n),
            ("buy_development", 1),
            ("knight", 1),
            ("road_building", 1),
            ("year_of_plenty", len(_PLENTY)),
            ("monopoly", _R),
            ("maritime", len(PAIRS)),
            ("offer", len(BOUNDED_TRADES)),
            ("accept", 1),
            ("decline", 1),
            ("counter", len(BOUNDED_TRADES)),
            ("confirm", n - 1),
            ("cancel", 1),
            ("end_turn", 1),
        )
        ranges: list[Range] = []
        start = 0
        for name, size in sizes:
            ranges.append(Range(name, start, size))
            start += size
        self.ranges: tuple[Range, ...] = tuple(ranges)
        self.size = start
        self.start = {r.name: r.start for r in ranges}
        self._kind_of = [r.name for r in ranges for _ in range(r.size)]
        # The engine's interned actions (what legal_actions lists) by id, per seat: listing
        # a mask then costs a dict look-up per legal action.
        self._interned: list[dict[int, int]] = []
        for seat, table in enumerate(action_tables(radius)[:n]):
            ids: dict[int, int] = {}
            for action in _interned_actions(table):
                if isinstance(action, ConfirmTrade) and action.partner >= n:
                    continue
                if isinstance(action, MoveRobber) and (
                    action.victim is not None and action.victim >= n
                ):
                    continue
                index = self.index_of(action, seat)
                if index is not None:
                    ids[id(action)] = index
            self._interned.append(ids)
        # Every index's action per seat, in the set-up and after it, made once (a
        # maritime trade's ratio is the seat's of the moment: None, made on each call).
        self._decoded: list[tuple[list[Action | None], ...]] = [
            tuple(
                [
                    None if self._kind_of[i] == "maritime" else self.action(i, seat, ph, ())
                    for i in range(self.size)
                ]
                for ph in (_MAIN, _SETUP[0])
            )
            for seat in range(n)
        ]

    def kind(self, index: int) -> str:
        """The name of the range ``index`` falls in."""
        return self._kind_of[index]

    # --- action to index --------------------------------------------------------------
    def index_of(self, action: Action, seat: int | None = None) -> int | None:
        """The index of ``action`` as its seat (or ``seat``) takes it; None for an action
        with no index (an offer or counter-offer of other terms, a discard of several
        cards, an offer to chosen seats). Raises ValueError for another seat's action."""
        me = action.seat if seat is None else seat
        if action.seat != me:
            raise ValueError(f"the action is seat {action.seat}'s, not seat {me}'s")
        n = self.players
        s = self.start
        match action:
            case PlaceSettlement(vertex=vertex) | BuildSettlement(vertex=vertex):
                return s["settlement"] + vertex
            case PlaceRoad(edge=edge) | BuildRoad(edge=edge):
                return s["road"] + edge
            case BuildCity(vertex=vertex):
                return s["city"] + vertex
            case RollDice():
                return s["roll"]
            case Discard(cards=cards):
                if sum(cards) != 1:
                    return None
                return s["discard"] + cards.index(1)
            case MoveRobber(hex=hx, victim=victim):
                k = 0 if victim is None else (victim - me) % n
                return s["robber"] + hx * n + k
            case BuyDevCard():
                return s["buy_development"]
            case PlayKnight():
                return s["knight"]
            case PlayRoadBuilding():
                return s["road_building"]
            case PlayYearOfPlenty(cards=cards):
                i = _PLENTY_OF.get(tuple(cards))
                return None if i is None else s["year_of_plenty"] + i
            case PlayMonopoly(resource=resource):
                return s["monopoly"] + int(resource)
            case MaritimeTrade(give=give, get=get):
                return s["maritime"] + PAIRS.index((int(give), int(get)))
            case OfferTrade(give=give, get=get, to=to):
                if to is not None and len(to) != n - 1:
                    return None
                i = _TRADE_OF.get((tuple(give), tuple(get)))
                return None if i is None else s["offer"] + i
            case AcceptTrade():
                return s["accept"]
            case DeclineTrade():
                return s["decline"]
            case CounterTrade(give=give, get=get):
                i = _TRADE_OF.get((tuple(give), tuple(get)))
                return None if i is None else s["counter"] + i
            case ConfirmTrade(partner=partner):
                k = (partner - me) % n
                return None if k == 0 else s["confirm"] + k - 1
            case CancelTrade():
                return s["cancel"]
            case EndTurn():
                return s["end_turn"]
        raise ValueError(f"{type(action).__name__} is not an action of this game")

    # --- index to action --------------------------------------------------------------
    def action(self, index: int, seat: int, phase: int | str, ratios: Sequence[int]) -> Action:
        """The action ``index`` means for ``seat`` in ``phase`` (a :class:`Phase` or its
        name), whose bank ratios are ``ratios`` (a view's ``trade_ratios``). Whether it is
        legal is the mask's question. Raises ValueError for an index out of range."""
        if not 0 <= index < self.size:
            raise ValueError(f"action index {index} is outside 0..{self.size - 1}")
        ph = Phase[phase.upper()] if isinstance(phase, str) else int(phase)
        kind = self._kind_of[index]
        i = index - self.start[kind]
        n = self.players
        match kind:
            case "settlement":
                return PlaceSettlement(seat, i) if ph in _SETUP else BuildSettlement(seat, i)
            case "road":
                return PlaceRoad(seat, i) if ph in _SETUP else BuildRoad(seat, i)
            case "city":
                return BuildCity(seat, i)
            case "roll":
                return RollDice(seat)
            case "discard":
                return Discard(seat, counts_of(i))
            case "robber":
                hx, k = divmod(i, n)
                return MoveRobber(seat, hx, None if k == 0 else (seat + k) % n)
            case "buy_development":
                return BuyDevCard(seat)
            case "knight":
                return PlayKnight(seat)
            case "road_building":
                return PlayRoadBuilding(seat)
            case "year_of_plenty":
                return PlayYearOfPlenty(seat, _PLENTY[i])
            case "monopoly":
                return PlayMonopoly(seat, Resource(i))
            case "maritime":
                give, get = PAIRS[i]
                return MaritimeTrade(seat, Resource(give), Resource(get), int(ratios[give]))
            case "offer":
                give_c, get_c = BOUNDED_TRADES[i]
                return OfferTrade(seat, give_c, get_c)
            case "accept":
                return AcceptTrade(seat)
            case "decline":
                return DeclineTrade(seat)
            case "counter":
                give_c, get_c = BOUNDED_TRADES[i]
                return CounterTrade(seat, give_c, get_c)
            case "confirm":
                return ConfirmTrade(seat, (seat + i + 1) % n)
            case "cancel":
                return CancelTrade(seat)
        return EndTurn(seat)

    def state_action(self, state: GameState, seat: int, index: int) -> Action:
        """:meth:`action` in a game: its phase and the seat's ratios read from ``state``."""
        if 0 <= index < self.size:
            made = self._decoded[seat][1 if state.phase in _SETUP else 0][index]
            if made is not None:
                return made
        b = seat * _R
        return self.action(index, seat, state.phase, state.ratio[b : b + _R])

    # --- masks ------------------------------------------------------------------------
    def mask(
        self, state: GameState, seat: int, out: MutableSequence[int] | None = None, base: int = 0
    ) -> MutableSequence[int]:
        """The legal actions of ``seat`` now as 1s at their indices (a new list, or written
        into ``out[base : base + size]``, which must hold zeros): ``legal_actions`` and the
        bounded offers and counter-offers the seat may make."""
        x: MutableSequence[int] = [0] * self.size if out is None else out
        ids = self._interned[seat]
        for action in legal_actions(state, seat):
            i = ids.get(id(action))
            if i is None:  # a year of plenty of the bank's last card, made anew
                i = self.index_of(action, seat)
                assert i is not None
            x[base + i] = 1
        phase = state.phase
        if phase == _MAIN and seat == state.current:
            self._bounded(state.hand, seat, base + self.start["offer"], x)
        elif phase == _TRADE and state.answers[seat] == _PENDING:
            self._bounded(state.hand, seat, base + self.start["counter"], x)
        return x

    def mask_of(
        self,
        legal: Sequence[Action],
        seat: int,
        phase: int | str,
        hand: Sequence[int] | None,
        pending: bool,
        out: MutableSequence[int] | None = None,
    ) -> MutableSequence[int]:
        """The mask from a list of legal actions (a prompt's), the phase, the seat's hand and
        whether it has an offer to answer: what an agent over the protocol knows."""
        x: MutableSequence[int] = [0] * self.size if out is None else out
        for action in legal:
            i = self.index_of(action, seat)
            if i is not None:
                x[i] = 1
        ph = Phase[phase.upper()] if isinstance(phase, str) else int(phase)
        if hand is not None:
            cards = [0] * (seat * _R) + list(hand)
            if ph == _MAIN and any(isinstance(a, EndTurn) for a in legal):
                self._bounded(cards, seat, self.start["offer"], x)
            elif ph == _TRADE and pending:
                self._bounded(cards, seat, self.start["counter"], x)
        return x

    @staticmethod
    def _bounded(hand: Sequence[int], seat: int, start: int, x: MutableSequence[int]) -> None:
        """1s for the bounded trades whose cards the seat holds."""
        b = seat * _R
        key = 0
        for r in range(_R):
            c = hand[b + r]
            key = key * 3 + (c if c < 2 else 2)
        try:  # an int8 buffer, a numpy array or a list: one copy
            x[start : start + _BOUNDED] = _AFFORDABLE_ROWS[key]
        except (TypeError, ValueError):  # a buffer of another format: entry by entry
            for j in _AFFORDABLE[key]:
                x[start + j] = 1


def _affordable() -> tuple[tuple[int, ...], ...]:
    """Per hand pattern (each resource's count capped at 2, read as a base-3 number), the
    bounded trades the hand can give, as offsets into a trade range."""
    out = []
    for key in range(3**_R):
        held = []
        k = key
        for _ in range(_R):
            held.append(k % 3)
            k //= 3
        held.reverse()
        out.append(
            tuple(
                i
                for i, (give, _) in enumerate(BOUNDED_TRADES)
                if all(held[r] >= give[r] for r in range(_R))
            )
        )
    return tuple(out)


_AFFORDABLE: Final = _affordable()
_AFFORDABLE_ROWS: Final = tuple(
    memoryview(array("b", [1 if j in row else 0 for j in range(len(BOUNDED_TRADES))]))
    for row in _AFFORDABLE
)
"""The same as int8 rows over a trade range, to copy whole."""


def _interned_actions(table: object) -> list[Action]:
    """Every action object an engine action table holds (its fields, flattened)."""
    out: list[Action] = []

    def walk(value: object) -> None:
        if isinstance(value, tuple):
            for item in value:
                walk(item)
        elif value is not None and not isinstance(value, int | str):
            out.append(value)  # type: ignore[arg-type]

    for name in table.__dataclass_fields__:  # type: ignore[attr-defined]
        walk(getattr(table, name))
    return out


@cache
def action_index(radius: int = 3, players: int = 4) -> ActionIndex:
    """The :class:`ActionIndex` of a board radius and player count, made once."""
    if not 2 <= players <= 4:
        raise ValueError(f"players must be 2 to 4, not {players}")
    return ActionIndex(radius, players)


__all__ = ["BOUNDED_TRADES", "PAIRS", "TRADE_SHAPES", "ActionIndex", "Range", "action_index"]
