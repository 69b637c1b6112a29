"""Rollouts, and the ``heuristic`` player's policy on engine states.

A rollout is a game played on from a search state to its end by a fixed policy. This is
where the search spends nearly all its time, so the module is compiled with the engine in
the optimized build (``setup.py``), where its calls into the rules are direct. Random
choices draw from the caller's :class:`random.Random` exactly as
:meth:`random.Random.choice` does, so both builds play the same rollout from the same seed.

The ``heuristic`` player's rules are written here once, on engine states:
:func:`heuristic_move` is the player's every move (the ``heuristic`` bot plays it on a
state rebuilt from its view), and the planned rollouts play the same priorities, chores
and set-up, picking at random where the player weighs equal options (which road, which
card to play) to stay fast.
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable, Sequence
from typing import Final

from engine.actions import (
    AcceptTrade,
    Action,
    BuildCity,
    BuildRoad,
    BuildSettlement,
    BuyDevCard,
    CancelTrade,
    ConfirmTrade,
    DeclineTrade,
    Discard,
    MaritimeTrade,
    MoveRobber,
    PlaceRoad,
    PlaceSettlement,
    PlayKnight,
    PlayMonopoly,
    PlayRoadBuilding,
    PlayYearOfPlenty,
    RollDice,
)
from engine.constants import (
    CITY_COST,
    DEV_CARD_COST,
    DICE_DOTS,
    DISCARD_LIMIT,
    HARBOUR_GENERIC,
    N_RESOURCES,
    SETTLEMENT_COST,
)
from engine.rules import advance, legal_actions, settlement_spots
from engine.state import GameState, Phase

_MAIN: Final = int(Phase.MAIN)
_DISCARD: Final = int(Phase.DISCARD)
_PRE_ROLL: Final = int(Phase.PRE_ROLL)
_MOVE_ROBBER: Final = int(Phase.MOVE_ROBBER)
_SETUP_SETTLEMENT: Final = int(Phase.SETUP_SETTLEMENT)
_SETUP_ROAD: Final = int(Phase.SETUP_ROAD)
_ROAD_BUILDING: Final = int(Phase.ROAD_BUILDING)
_TRADE: Final = int(Phase.TRADE)
_R: Final = N_RESOURCES
_OVER: Final = int(Phase.GAME_OVER)
# Classes as C statics for the compiled build (an imported name is looked up at each use).
_BUILD_CITY: Final = BuildCity
_BUILD_SETTLEMENT: Final = BuildSettlement
MAX_ROLLOUT_ACTIONS: Final = 5000
VARIETY_BONUS: Final = 2.5
"""A spot's worth (in dice dots) for each resource its seat does not produce yet."""
GENERIC_HARBOUR_BONUS: Final = 1.5
"""A spot's worth for a 3:1 harbour."""
SPECIFIC_HARBOUR_BONUS: Final = 2.5
"""A spot's worth for a 2:1 harbour of a resource the seat makes :data:`HARBOUR_NEED`
dots of."""
HARBOUR_NEED: Final = 5
"""A rollout that has not ended after this many actions counts as nobody's win."""


def choice(rnd: random.Random, seq: list[Action]) -> Action:
    """``rnd.choice(seq)``, drawing the same bits from ``rnd`` (and raising the same
    IndexError on an empty list), without the interpreted call."""
    return _pick(rnd.getrandbits, seq)


def _pick(bits: Callable[[int], int], seq: list[Action]) -> Action:
    """:func:`choice` with ``rnd.getrandbits`` looked up once by the caller."""
    n = len(seq)
    if not n:
        raise IndexError("Cannot choose from an empty sequence")
    k = n.bit_length()
    r = bits(k)
    while r >= n:
        r = bits(k)
    return seq[r]


def rollout(
    state: GameState,
    rnd: random.Random,
    prune: bool,
    greedy: bool = False,
    turns: int = 0,
    planned: bool = False,
    chores: bool = False,
) -> int:
    """Play random (pruned) actions to the end; the winner, or -1 past the action limit
    (with ``turns``, -2 once that many turns have passed without a winner).
    ``greedy`` (beyond the paper): in the main phase, after the pruning, play a
    development card half the time, buy one 60% of the time, build a road half the time,
    trade with the bank only when holding more than seven cards, else end the turn.
    ``planned`` (beyond the paper, before ``greedy``): in the main phase, the heuristic
    player's priorities (:func:`_planned`). ``chores`` (with ``planned``): the robber,
    discards and knights before the roll by the heuristic's rules (:func:`_chore`)."""
    stop = state.turn + turns if turns else -1
    bits = rnd.getrandbits
    for _ in range(MAX_ROLLOUT_ACTIONS):
        phase = state.phase
        if phase == _OVER:
            return state.winner
        if state.turn == stop:
            return -2
        actions = legal_actions(state)
        if prune and phase == _MAIN and len(actions) > 1:
            if planned:
                advance(state, _planned_main(state, actions, rnd))
                continue
            best = _affordable_builds(state, actions)
            if best:
                actions = best
            elif greedy:
                advance(state, _greedy(state, actions, rnd))
                continue
        elif chores and phase != _MAIN and len(actions) > 1:
            chore = _chore(state, phase, actions)
            if chore is not None:
                advance(state, chore)
                continue
        advance(state, _pick(bits, actions))
    return state.winner if state.phase == _OVER else -1


_PLAYS: Final = (PlayKnight, PlayRoadBuilding, PlayYearOfPlenty, PlayMonopoly)


def policy_move(state: GameState, actions: list[Action], rnd: random.Random) -> Action | None:
    """The move the planned rollout policy with its chores makes in ``state`` (a live
    state; ``actions`` its legal actions): the ``heuristic`` player's priorities in the
    main phase, its rules for the robber, discards and a knight before the roll; None
    where it has no rule (set-up, road building), which the caller decides otherwise."""
    if len(actions) == 1:
        return actions[0]
    phase = state.phase
    if phase == _MAIN:
        return _planned_main(state, actions, rnd)
    return _chore(state, phase, actions)


def heuristic_move(
    state: GameState, seat: int, actions: list[Action], rnd: random.Random
) -> Action:
    """The ``heuristic`` player's move for ``seat`` in ``state`` (``actions``: its legal
    actions there, none of them an offer): the set-up by :func:`setup_move`; an answer to
    an open offer that brings its next build closer accepted, else declined (as the
    offerer: confirm with the first seat that can, else cancel); free roads toward the
    best spot (:func:`road_reach`); in the main phase the planned policy's priorities
    (:func:`_planned_main`), weighing the spots, roads and cards the rollouts pick at
    random; the robber, discards and a knight before the roll by :func:`_chore`."""
    if len(actions) == 1:
        return actions[0]
    phase = state.phase
    if phase in (_SETUP_SETTLEMENT, _SETUP_ROAD):
        return setup_move(state, rnd)
    if phase == _TRADE:
        return _answer(state, seat, actions)
    if phase == _ROAD_BUILDING:
        return _best_road(state, actions, rnd)
    if phase == _MAIN:
        return _planned_main(state, actions, rnd, True)
    move = _chore(state, phase, actions)
    return actions[0] if move is None else move


def _answer(state: GameState, seat: int, actions: list[Action]) -> Action:
    """The ``heuristic`` player's part in an open offer (see :func:`heuristic_move`)."""
    accept: Action | None = None
    decline: Action | None = None
    for a in actions:
        kind = type(a)
        if kind is ConfirmTrade:
            return a
        if kind is AcceptTrade:
            accept = a
        elif kind is DeclineTrade:
            decline = a
    if decline is None:
        return next(a for a in actions if type(a) is CancelTrade)
    offer = state.offer
    if accept is None or offer is None:
        return decline
    gain, pay = offer  # the offerer's terms: what it gives, what it gets
    return accept if brings_closer(state, seat, pay, gain) else decline


def brings_closer(state: GameState, seat: int, give: Sequence[int], get: Sequence[int]) -> bool:
    """Whether ``seat`` giving ``give`` for ``get`` leaves it lacking fewer cards for its
    next build (:func:`_target`): the ``heuristic`` player's reason to take a trade."""
    b = seat * _R
    hand = state.hand[b : b + _R]
    after = [hand[r] + get[r] - give[r] for r in range(_R)]
    target = _target(state, seat)
    return _lacking(after, target) < _lacking(hand, target)


def _lacking(hand: Sequence[int], cost: Sequence[int]) -> int:
    """How many cards ``hand`` lacks of ``cost``."""
    return sum(c - h for h, c in zip(hand, cost, strict=True) if c > h)


def _needs(cost: Sequence[int]) -> tuple[tuple[int, int], ...]:
    """The (resource, count) pairs of a price, its zero counts left out."""
    return tuple((r, c) for r, c in enumerate(cost) if c)


_CITY_NEEDS: Final = _needs(CITY_COST)
_SETTLEMENT_NEEDS: Final = _needs(SETTLEMENT_COST)


def _affordable_builds(state: GameState, actions: list[Action]) -> list[Action] | None:
    """The cities the seat to move can build if it can pay for one, else the settlements
    if it can pay for one; None when it can pay for neither (or the board has no spot)."""
    b = state.current * _R
    hand = state.hand
    best: list[Action] | None = None
    for r, c in _CITY_NEEDS:
        if hand[b + r] < c:
            break
    else:
        best = [a for a in actions if type(a) is _BUILD_CITY]
    if not best:
        for r, c in _SETTLEMENT_NEEDS:
            if hand[b + r] < c:
                return None
        best = [a for a in actions if type(a) is _BUILD_SETTLEMENT]
    return best or None


def _planned_main(
    state: GameState, actions: list[Action], rnd: random.Random, careful: bool = False
) -> Action:
    """The planned policy's main-phase move: a city, else a settlement, on the spot with
    the most dice dots when one is affordable (``careful``, as the player: a settlement on
    the spot of most :func:`spot_worth`), else :func:`_planned`."""
    best = _affordable_builds(state, actions)
    if best:
        if careful and type(best[0]) is _BUILD_SETTLEMENT:
            dots = resource_dots(state, state.current)
            return max(best, key=lambda a: spot_worth(state, dots, _vertex(a)))
        return max(best, key=lambda a: _spot_dots(state, _vertex(a)))
    return _planned(state, actions, rnd, careful)


def _vertex(action: Action) -> int:
    """The vertex a city or settlement goes on."""
    assert isinstance(action, (BuildCity, BuildSettlement))
    return action.vertex


def _spot_dots(state: GameState, v: int) -> int:
    """The dice dots of the hexes around a vertex, the robber's hex not counted."""
    tokens = state.board.tokens
    robber = state.robber
    return sum(DICE_DOTS.get(tokens[h], 0) for h in state.topo.vertex_hexes[v] if h != robber)


def _planned(
    state: GameState, actions: list[Action], rnd: random.Random, careful: bool = False
) -> Action:
    """The planned policy's main-phase move when no city or settlement is affordable: a
    development card played (a knight only with the robber next to one of the seat's
    buildings), a card bought when the next build lacks more than two cards, a road when
    no settlement spot is left, a bank trade toward the next build, else a card bought,
    else the end of the turn (``actions[0]``). The card and the road are picked at random,
    or with ``careful`` as the player picks them (:func:`_best_play`, :func:`_best_road`)."""
    p = state.current
    b = p * _R
    hand = state.hand[b : b + _R]
    target = _target(state, p)
    buy: Action | None = None
    roads: list[Action] = []
    trade: Action | None = None
    plays: list[Action] = []
    knight: bool | None = None  # whether the robber is next to one of the seat's buildings
    for a in actions:
        kind = type(a)
        if kind is BuildRoad:
            roads.append(a)
        elif kind is BuyDevCard:
            buy = a
        elif isinstance(a, MaritimeTrade):
            if (
                trade is None
                and hand[a.get] < target[a.get]
                and hand[a.give] - a.ratio >= target[a.give]
            ):
                trade = a
        elif kind is PlayKnight:
            if knight is None:
                vowner = state.vowner
                knight = any(vowner[v] == p for v in state.topo.hex_vertices[state.robber])
            if knight:
                plays.append(a)
        elif kind in _PLAYS:
            plays.append(a)
    if plays:
        return _best_play(plays, hand, target) if careful else choice(rnd, plays)
    if buy is not None and _lacking(hand, target) > 2:
        return buy
    if (
        roads
        and (target != CITY_COST or state.settlements_left[p])
        and not settlement_spots(state, p)
    ):
        return _best_road(state, roads, rnd) if careful else choice(rnd, roads)
    if trade is not None:
        return trade
    if buy is not None:
        return buy
    return actions[0]


def _best_play(plays: list[Action], hand: list[int], target: Sequence[int]) -> Action:
    """The card the ``heuristic`` player plays of ``plays``: a knight, else the year of
    plenty that takes most of what ``target`` lacks, else the monopoly of the resource it
    lacks most, else road building."""
    lacking = [max(0, target[r] - hand[r]) for r in range(_R)]
    want = max(range(_R), key=lambda r: target[r] - hand[r])
    best = plays[0]
    rank = -1
    for a in plays:
        if isinstance(a, PlayKnight):
            return a
        if isinstance(a, PlayYearOfPlenty):
            score = 2 * _R + sum(min(x, y) for x, y in zip(a.cards, lacking, strict=True))
        elif isinstance(a, PlayMonopoly):
            score = _R + int(a.resource == want)
        else:
            score = 0
        if score > rank:
            best, rank = a, score
    return best


def _best_road(state: GameState, roads: list[Action], rnd: random.Random) -> Action:
    """The road toward the best free spot (:func:`road_reach` for the seat to move), near
    ties broken at random."""
    dots = resource_dots(state, state.current)
    best = roads[0]
    top = -math.inf
    for a in roads:
        reach = road_reach(state, dots, _edge(a)) + rnd.random() * 1e-3
        if reach > top:
            top = reach
            best = a
    return best


def _edge(action: Action) -> int:
    """The edge a road goes on."""
    assert isinstance(action, (BuildRoad, PlaceRoad))
    return action.edge


def _target(state: GameState, seat: int) -> Sequence[int]:
    """The price of the seat's next build, as the ``heuristic`` player saves for it: a city
    while it has a settlement to upgrade, else a settlement, else a development card."""
    if state.cities_left[seat] and any(state.vlevel[v] == 1 for v in state.pbuild[seat]):
        return CITY_COST
    if state.settlements_left[seat]:
        return SETTLEMENT_COST
    return DEV_CARD_COST


def _chore(state: GameState, phase: int, actions: list[Action]) -> Action | None:
    """The ``heuristic`` player's rule for a robber move (the hex that harms the others
    most, weighted by their points, never one's own; a victim worth more the more points it
    has), a discard (the card most beyond the next build's needs) or a knight before the
    roll (when the robber blocks a hex of three or more dots next to one's own building);
    None elsewhere (the caller picks at random)."""
    if phase == _MOVE_ROBBER:
        me = state.current
        points = state.vp
        tokens = state.board.tokens
        vertex_hexes = state.topo.vertex_hexes
        vlevel = state.vlevel
        harm: dict[int, float] = {}  # hex: the harm to others, before the victim
        mine: set[int] = set()
        for seat in range(state.n):
            for v in state.pbuild[seat]:
                if seat == me:
                    mine.update(vertex_hexes[v])
                    continue
                weight = vlevel[v] * (1 + points[seat])
                for h in vertex_hexes[v]:
                    harm[h] = harm.get(h, 0.0) + weight * DICE_DOTS.get(tokens[h], 0)
        best: Action | None = None
        top = -math.inf
        for a in actions:
            assert isinstance(a, MoveRobber)
            if a.hex in mine:
                score = -100.0
            else:
                score = harm.get(a.hex, 0.0)
                if a.victim is not None:
                    score += 5.0 + points[a.victim]
            if score > top:
                top = score
                best = a
        return best
    if phase == _DISCARD:
        seat = actions[0].seat
        need = _target(state, seat)
        hand = state.hand
        b = seat * _R
        spare = [hand[b + r] - need[r] for r in range(_R)]
        return max(actions, key=lambda a: spare[_card(a)])
    if phase == _PRE_ROLL:
        robber = state.robber
        if DICE_DOTS.get(state.board.tokens[robber], 0) >= 3 and any(
            state.vowner[v] == state.current for v in state.topo.hex_vertices[robber]
        ):
            for a in actions:
                if type(a) is PlayKnight:
                    return a
        for a in actions:
            if type(a) is RollDice:
                return a
    return None


def _card(action: Action) -> int:
    """The resource a one-card discard gives back."""
    assert isinstance(action, Discard)
    return action.cards.index(1)


def _greedy(
    state: GameState,
    actions: list[Action],
    rnd: random.Random,
) -> Action:
    """The greedy rollout policy's main-phase move (see :func:`rollout`); ``actions`` is
    the legal list, which starts with the end of the turn."""
    plays = [a for a in actions if type(a) in _PLAYS]
    if plays and rnd.random() < 0.5:
        return choice(rnd, plays)
    buy = [a for a in actions if type(a) is BuyDevCard]
    if buy and rnd.random() < 0.6:
        return buy[0]
    roads: list[Action] = [a for a in actions if type(a) is BuildRoad]
    if roads and rnd.random() < 0.5:
        return choice(rnd, roads)
    p = state.current * _R
    if sum(state.hand[p : p + _R]) > DISCARD_LIMIT:
        trades: list[Action] = [a for a in actions if type(a) is MaritimeTrade]
        if trades:
            return choice(rnd, trades)
    return actions[0]


# --- the set-up, by the ``heuristic`` player's rules --------------------------------------


def setup_move(state: GameState, rnd: random.Random) -> Action:
    """The ``heuristic`` player's set-up move for the seat to place (a live set-up state):
    the settlement on the spot of most :func:`spot_worth`; the road toward the best free
    spot within two steps of its far end (worth over one plus the distance), near-ties
    broken at random."""
    seat = state.current
    dots = resource_dots(state, seat)
    actions = legal_actions(state)
    best = actions[0]
    top = -math.inf
    if state.phase == _SETUP_SETTLEMENT:
        for a in actions:
            assert isinstance(a, PlaceSettlement)
            worth = spot_worth(state, dots, a.vertex)
            if worth > top:
                top = worth
                best = a
        return best
    for a in actions:
        assert isinstance(a, PlaceRoad)
        reach = road_reach(state, dots, a.edge) + rnd.random() * 1e-3
        if reach > top:
            top = reach
            best = a
    return best


def road_reach(state: GameState, dots: Sequence[int], edge: int) -> float:
    """What a road leads to for a seat making ``dots``: the best :func:`spot_worth` of a
    free spot within two steps of either end, over one plus its distance."""
    topo = state.topo
    blocked = state.vblocked
    reach = 0.0
    for end in topo.edge_vertices[edge]:
        frontier = {end}
        for dist in range(3):
            for v in frontier:
                if not blocked[v]:
                    reach = max(reach, spot_worth(state, dots, v) / (1 + dist))
            frontier = {w for v in frontier for w in topo.vertex_vertices[v]}
    return reach


def resource_dots(state: GameState, seat: int) -> list[int]:
    """The dice dots the seat's buildings make of each resource (cities twice), the
    robber's hex not counted."""
    out = [0] * _R
    board = state.board
    robber = state.robber
    vlevel = state.vlevel
    for v in state.pbuild[seat]:
        for h in state.topo.vertex_hexes[v]:
            r = board.terrain[h]
            if r < _R and h != robber:
                out[r] += vlevel[v] * DICE_DOTS.get(board.tokens[h], 0)
    return out


def spot_worth(state: GameState, dots: Sequence[int], v: int) -> float:
    """A settlement spot's worth to a seat making ``dots`` of each resource, as the
    ``heuristic`` player reckons it: the dice dots of its hexes, :data:`VARIETY_BONUS` for
    each resource new to the seat, and a harbour's bonus."""
    board = state.board
    worth = 0.0
    new: set[int] = set()
    for h in state.topo.vertex_hexes[v]:
        r = board.terrain[h]
        if r < _R:
            worth += DICE_DOTS.get(board.tokens[h], 0)
            if not dots[r]:
                new.add(r)
    worth += VARIETY_BONUS * len(new)
    kind = board.vertex_harbour[v]
    if kind == HARBOUR_GENERIC:
        worth += GENERIC_HARBOUR_BONUS
    elif 0 <= kind < _R and dots[kind] >= HARBOUR_NEED:
        worth += SPECIFIC_HARBOUR_BONUS
    return worth
