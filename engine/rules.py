"""The rules: what may be done (:func:`legal_actions`, :func:`is_legal`, :func:`check`),
doing it (:func:`apply`, :func:`advance`) and who must act (:func:`seats_to_act`).

Each rule lives in one handler per action type (``_do_*``, picked by :func:`_run`) that
both :func:`apply` and :func:`advance` run; :func:`check` holds the legality rules with a
reason for each refusal (``_check_*``, named by :data:`_CHECKERS`). Pieces go on the board through
:mod:`engine.pieces`; road lengths come from :mod:`engine.longest`.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Final, TypeGuard, cast

from engine.actions import (
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
    shape_error,
)
from engine.constants import (
    CITY_COST,
    DEV_CARD_COST,
    LARGEST_ARMY_MIN,
    N_DEV_KINDS,
    N_RESOURCES,
    ROAD_BUILDING_ROADS,
    ROAD_COST,
    SETTLEMENT_COST,
    YEAR_OF_PLENTY_CARDS,
    Award,
    DevCard,
    Resource,
    Seat,
)
from engine.errors import IllegalActionError
from engine.events import (
    CityBuilt,
    DevCardBought,
    DevCardPlayed,
    DiceRolled,
    Discarded,
    DiscardsOwed,
    Event,
    GameWon,
    LargestArmyChanged,
    MaritimeTraded,
    MonopolyTaken,
    Produced,
    RoadBuilt,
    RobberMoved,
    SettlementBuilt,
    StartingResources,
    Stolen,
    TradeAnswered,
    TradeClosed,
    TradeCompleted,
    TradeOffered,
    TurnStarted,
    YearOfPlentyTaken,
)
from engine.longest import award_longest_road, longest_road, road_length_after
from engine.pieces import place_road, place_settlement, set_award, upgrade_city
from engine.rng import draw_split, draw_two_split
from engine.state import Answer, GameState, Phase
from engine.tables import SeatActions

# Plain ints for the hot path (enum attribute lookups cost more than locals). ``Final``
# lets the compiled build read them as C constants instead of looking them up by name.
# Likewise, list items are updated as ``x[i] = x[i] + d``: compiled, ``x[i] += d`` takes
# the interpreter's generic path for the addition.
_SETUP_SETTLEMENT: Final = int(Phase.SETUP_SETTLEMENT)
_SETUP_ROAD: Final = int(Phase.SETUP_ROAD)
_PRE_ROLL: Final = int(Phase.PRE_ROLL)
_DISCARD: Final = int(Phase.DISCARD)
_MOVE_ROBBER: Final = int(Phase.MOVE_ROBBER)
_MAIN: Final = int(Phase.MAIN)
_ROAD_BUILDING: Final = int(Phase.ROAD_BUILDING)
_TRADE: Final = int(Phase.TRADE)
_GAME_OVER: Final = int(Phase.GAME_OVER)
_KNIGHT: Final = int(DevCard.KNIGHT)
_LARGEST_ARMY: Final = int(Award.LARGEST_ARMY)
_VP_CARD: Final = int(DevCard.VICTORY_POINT)
_ROAD_BUILDING_CARD: Final = int(DevCard.ROAD_BUILDING)
_PLENTY: Final = int(DevCard.YEAR_OF_PLENTY)
_MONOPOLY: Final = int(DevCard.MONOPOLY)
_PENDING: Final = int(Answer.PENDING)
_ACCEPTED: Final = int(Answer.ACCEPTED)
_DECLINED: Final = int(Answer.DECLINED)
_COUNTERED: Final = int(Answer.COUNTERED)
_NOT_ASKED: Final = int(Answer.NOT_ASKED)
_R: Final = N_RESOURCES
# Hands and development cards are both 5-wide count vectors, so ``seat * _R`` indexes both.
assert N_DEV_KINDS == N_RESOURCES
_RES: Final = tuple(Resource)
_DICE: Final = tuple((d1, d2) for d1 in range(1, 7) for d2 in range(1, 7))
"""Every roll of the two dice, made once: ``_DICE[(d1 - 1) * 6 + d2 - 1] == (d1, d2)``."""
_DEVS: Final = tuple(DevCard)

Events = list[Event] | None


# ======================================================================================
# Who acts
# ======================================================================================


def seats_to_act(state: GameState) -> tuple[Seat, ...]:
    """The seats that owe an action now: several while discarding after a seven or while a
    domestic offer is open (the offerer and every seat yet to answer), none once it is over."""
    phase = state.phase
    if phase == _DISCARD:
        return tuple(p for p in range(state.n) if state.owed[p])
    if phase == _TRADE:
        pending = [p for p in range(state.n) if state.answers[p] == _PENDING]
        return (state.current, *pending)
    if phase == _GAME_OVER:
        return ()
    return (state.current,)


def setup_order(players: int) -> tuple[Seat, ...]:
    """The snake order of the set-up placements: 0, 1, ..., n-1, n-1, ..., 0."""
    return tuple(range(players)) + tuple(reversed(range(players)))


# ======================================================================================
# Spots on the board
# ======================================================================================


def road_spots(state: GameState, seat: Seat) -> list[int]:
    """Edges where ``seat`` may build a road now: free, touching its network at a vertex
    that no opponent's building occupies."""
    return _ascending(_road_candidates(state, seat))


def _road_candidates(state: GameState, seat: Seat) -> list[int]:
    """The edges of :func:`road_spots`, in no order and some more than once (a list
    costs less than a set)."""
    sides = state.topo.edge_sides
    vowner = state.vowner
    eowner = state.eowner
    spots: list[int] = []
    for e in state.proads[seat]:
        for v, others in sides[e]:
            o = vowner[v]
            if o < 0 or o == seat:
                for f in others:
                    if eowner[f] < 0:
                        spots.append(f)
    return spots


def settlement_spots(state: GameState, seat: Seat) -> list[int]:
    """Vertices where ``seat`` may build a settlement now: at the end of one of its roads,
    with no building on or next to it."""
    return _ascending(_settlement_candidates(state, seat))


def _settlement_candidates(state: GameState, seat: Seat) -> list[int]:
    """The vertices of :func:`settlement_spots`, in no order and some more than once."""
    ev = state.topo.edge_vertices
    blocked = state.vblocked
    spots: list[int] = []
    for e in state.proads[seat]:
        a, b = ev[e]
        if not blocked[a]:
            spots.append(a)
        if not blocked[b]:
            spots.append(b)
    return spots


def _ascending(spots: list[int]) -> list[int]:
    """The candidate ``spots`` in ascending order, once each (sorts ``spots`` in place)."""
    spots.sort()
    out: list[int] = []
    last = -1
    for x in spots:
        if x != last:
            out.append(x)
            last = x
    return out


def _add_spots(out: list[Action], table: tuple[Action, ...], spots: list[int]) -> None:
    """Append ``table``'s action for each of ``spots`` (candidates, sorted here in place),
    in ascending order and once each."""
    spots.sort()
    last = -1
    for x in spots:
        if x != last:
            out.append(table[x])
            last = x


def setup_settlement_spots(state: GameState) -> list[int]:
    """Vertices where a set-up settlement may go (the distance rule only)."""
    return [v for v, b in enumerate(state.vblocked) if not b]


def robber_victims(state: GameState, hex_id: int, thief: Seat) -> list[Seat]:
    """Seats that the robber on ``hex_id`` could rob: opponents with a building on the hex,
    with cards in hand or not."""
    mask = _victim_masks(state, thief)[hex_id]
    return [q for q in range(state.n) if mask >> q & 1]


def _victim_masks(state: GameState, thief: Seat) -> list[int]:
    """Per hex, a bit mask of the seats ``thief`` could rob there (walking the opponents'
    buildings rather than every hex)."""
    vertex_hexes = state.topo.vertex_hexes
    masks = [0] * state.topo.n_hexes
    for q in range(state.n):
        if q != thief:
            bit = 1 << q
            for v in state.pbuild[q]:
                for h in vertex_hexes[v]:
                    masks[h] = masks[h] | bit
    return masks


# ======================================================================================
# Legal actions
# ======================================================================================


def legal_actions(state: GameState, seat: Seat | None = None) -> list[Action]:
    """Every legal action of the seats that must act (only ``seat``'s when given).

    Listed: every enumerable action. Discards are listed one card at a time (``is_legal``
    also takes several at once). Not listed: domestic offers and counter-offers, which are
    too many to enumerate; ``is_legal`` checks any of them.
    """
    phase = state.phase
    if seat is not None and seat != state.current and phase != _DISCARD and phase != _TRADE:
        return []
    # Tested commonest first, so that compiled code calls each lister directly.
    if phase == _MAIN:
        return _main_actions(state, seat)
    if phase == _PRE_ROLL:
        return _pre_roll_actions(state, seat)
    if phase == _DISCARD:
        return _discard_actions(state, seat)
    if phase == _MOVE_ROBBER:
        return _robber_actions(state, seat)
    if phase == _ROAD_BUILDING:
        return _free_road_actions(state, seat)
    if phase == _TRADE:
        return _trade_actions(state, seat)
    if phase == _SETUP_SETTLEMENT:
        return _setup_settlement_actions(state, seat)
    if phase == _SETUP_ROAD:
        return _setup_road_actions(state, seat)
    return []


def _pre_roll_actions(state: GameState, seat: Seat | None) -> list[Action]:
    p = state.current
    t = state.acts[p]
    out: list[Action] = [t.roll]
    _add_dev_card_actions(state, p, t, out)
    return out


def _add_dev_card_actions(state: GameState, p: Seat, t: SeatActions, out: list[Action]) -> None:
    """Append the development cards ``p`` may play now (before or after the roll)."""
    dev = state.dev
    base = p * _R
    if not state.dev_played and (
        dev[base] or dev[base + 2] or dev[base + 3] or dev[base + 4]  # any playable kind
    ):
        new = state.dev_new
        if dev[base + _KNIGHT] > new[_KNIGHT]:
            out.append(t.knight)
        if (
            dev[base + _ROAD_BUILDING_CARD] > new[_ROAD_BUILDING_CARD]
            and state.roads_left[p]
            and _road_candidates(state, p)
        ):
            out.append(t.road_building)
        if dev[base + _PLENTY] > new[_PLENTY]:
            out.extend(_plenty_actions(state, t.year_of_plenty))
        if dev[base + _MONOPOLY] > new[_MONOPOLY]:
            out.extend(t.monopoly)


def _discard_actions(state: GameState, seat: Seat | None) -> list[Action]:
    out: list[Action] = []
    if seat is not None:
        if state.owed[seat]:
            _add_discards(state, seat, out)
        return out
    owed = state.owed
    for q in range(state.n):
        if owed[q]:
            _add_discards(state, q, out)
    return out


def _add_discards(state: GameState, q: Seat, out: list[Action]) -> None:
    """Append ``q``'s discards of one card, one per resource it holds."""
    one = state.acts[q].discard_one
    hand = state.hand
    b = q * _R
    if hand[b]:
        out.append(one[0])
    if hand[b + 1]:
        out.append(one[1])
    if hand[b + 2]:
        out.append(one[2])
    if hand[b + 3]:
        out.append(one[3])
    if hand[b + 4]:
        out.append(one[4])


def _free_road_actions(state: GameState, seat: Seat | None) -> list[Action]:
    p = state.current
    out: list[Action] = []
    _add_spots(out, state.acts[p].build_road, _road_candidates(state, p))
    return out


def _setup_settlement_actions(state: GameState, seat: Seat | None) -> list[Action]:
    ps = state.acts[state.current].place_settlement
    return [ps[v] for v in setup_settlement_spots(state)]


def _setup_road_actions(state: GameState, seat: Seat | None) -> list[Action]:
    pr = state.acts[state.current].place_road
    eowner = state.eowner
    return [pr[e] for e in state.topo.vertex_edges[state.last_vertex] if eowner[e] < 0]


def _main_actions(state: GameState, seat: Seat | None) -> list[Action]:
    p = state.current
    t = state.acts[p]
    hand = state.hand
    base = p * _R
    b = hand[base]
    lu = hand[base + 1]
    w = hand[base + 2]
    g = hand[base + 3]
    o = hand[base + 4]
    out: list[Action] = [t.end_turn]
    if b and lu:
        if state.roads_left[p]:
            _add_spots(out, t.build_road, _road_candidates(state, p))
        if w and g and state.settlements_left[p]:
            _add_spots(out, t.build_settlement, _settlement_candidates(state, p))
    if g >= 2 and o >= 3 and state.cities_left[p]:
        bc = t.build_city
        vlevel = state.vlevel
        for v in state.pbuild[p]:
            if vlevel[v] == 1:
                out.append(bc[v])
    if w and g and o:
        deck = state.deck
        if deck[0] or deck[1] or deck[2] or deck[3] or deck[4]:
            out.append(t.buy_dev)
    _add_dev_card_actions(state, p, t, out)
    if b < 2 and lu < 2 and w < 2 and g < 2 and o < 2:
        return out
    # Maritime trades: every ratio is 2 or more, so only piles of 2 or more are looked at.
    ratio = state.ratio
    maritime = t.maritime
    if b >= 2 and b >= ratio[base]:
        _add_trades(state, maritime[ratio[base]][0], out)
    if lu >= 2 and lu >= ratio[base + 1]:
        _add_trades(state, maritime[ratio[base + 1]][1], out)
    if w >= 2 and w >= ratio[base + 2]:
        _add_trades(state, maritime[ratio[base + 2]][2], out)
    if g >= 2 and g >= ratio[base + 3]:
        _add_trades(state, maritime[ratio[base + 3]][3], out)
    if o >= 2 and o >= ratio[base + 4]:
        _add_trades(state, maritime[ratio[base + 4]][4], out)
    return out


def _add_trades(state: GameState, trades: tuple[MaritimeTrade, ...], out: list[Action]) -> None:
    """Append the maritime ``trades`` of one pile whose resource the bank can give."""
    bank = state.bank
    if bank[0] > 0 and bank[1] > 0 and bank[2] > 0 and bank[3] > 0 and bank[4] > 0:
        out.extend(trades)
    else:
        out.extend([m for m in trades if bank[m.get]])


def _plenty_actions(state: GameState, choices: tuple[PlayYearOfPlenty, ...]) -> list[Action]:
    bank = state.bank
    b0, b1, b2, b3, b4 = bank[0], bank[1], bank[2], bank[3], bank[4]
    if b0 >= 2 and b1 >= 2 and b2 >= 2 and b3 >= 2 and b4 >= 2:  # any two cards
        return list(choices)
    total = b0 + b1 + b2 + b3 + b4
    if total >= YEAR_OF_PLENTY_CARDS:
        return [c for c in choices if all(bank[r] >= c.cards[r] for r in range(_R))]
    if total == 0:
        return []
    # Fewer than two cards left in the bank: take what there is.
    owner = choices[0].seat
    return [PlayYearOfPlenty(owner, (bank[0], bank[1], bank[2], bank[3], bank[4]))]


def _robber_actions(state: GameState, seat: Seat | None) -> list[Action]:
    p = state.current
    table = state.acts[p].robber_moves  # [hex][victim mask] -> the moves
    robber = state.robber
    out: list[Action] = []
    for h, mask in enumerate(_victim_masks(state, p)):
        if h != robber:
            moves = table[h][mask]
            if len(moves) == 1:
                out.append(moves[0])
            else:
                out.extend(moves)
    return out


def _trade_actions(state: GameState, seat: Seat | None) -> list[Action]:
    tables = state.acts
    out: list[Action] = []
    p = state.current
    offer = state.offer
    assert offer is not None
    if seat is None or seat == p:
        t = tables[p]
        for q in range(state.n):
            if state.answers[q] in (_ACCEPTED, _COUNTERED) and _trade_terms(state, q) is not None:
                out.append(t.confirm[q])
        out.append(t.cancel)
    for q in range(state.n):
        if state.answers[q] == _PENDING and (seat is None or seat == q):
            t = tables[q]
            if _holds(state, q, offer[1]):
                out.append(t.accept)
            out.append(t.decline)
    return out


# ======================================================================================
# Checking an action, with a reason
# ======================================================================================


def _refuse(code: str, message: str) -> IllegalActionError:
    return IllegalActionError(code, message)


def _holds(state: GameState, seat: Seat, cards: tuple[int, ...]) -> bool:
    base = seat * _R
    hand = state.hand
    return all(hand[base + r] >= cards[r] for r in range(_R))


def _is_index(x: object, size: int) -> TypeGuard[int]:
    """True for an int (not a bool) in ``[0, size)``."""
    return isinstance(x, int) and not isinstance(x, bool) and 0 <= x < size


def _kind_of(action: object) -> str:
    """An action's kind as the protocol spells it: ``BuildCity`` -> ``build_city``."""
    name = type(action).__name__
    return "".join("_" + c.lower() if c.isupper() else c for c in name).lstrip("_")


def _check_turn(state: GameState, action: Action, *phases: int) -> None:
    seat = action.seat
    if not _is_index(seat, state.n):
        raise _refuse("bad_seat", f"there is no seat {seat!r} in this game")
    if state.phase == _GAME_OVER:
        raise _refuse("game_over", "the game is over")
    if state.phase not in phases:
        names = " or ".join(Phase(ph).name.lower() for ph in phases)
        raise _refuse(
            "wrong_phase",
            f"{_kind_of(action)} is only possible in phase {names}; "
            f"the game is in phase {Phase(state.phase).name.lower()}",
        )
    if seat not in seats_to_act(state):
        raise _refuse("not_your_turn", f"seat {seat} has nothing to do now")


def _check_cost(state: GameState, seat: Seat, cost: tuple[int, ...], what: str) -> None:
    if not _holds(state, seat, cost):
        raise _refuse("cannot_afford", f"seat {seat} cannot afford {what}")


def _check_vertex(state: GameState, v: object) -> int:
    if not _is_index(v, state.topo.n_vertices):
        raise _refuse("bad_location", f"there is no intersection {v!r} on this board")
    return v


def _check_edge(state: GameState, e: object) -> int:
    if not _is_index(e, state.topo.n_edges):
        raise _refuse("bad_location", f"there is no path {e!r} on this board")
    return e


def _check_dev_card(state: GameState, seat: Seat, card: int) -> None:
    name = DevCard(card).name.lower().replace("_", " ")
    if state.dev_played:
        raise _refuse("card_already_played", "only one development card may be played per turn")
    held = state.dev[seat * _R + card]
    if not held:
        raise _refuse("no_such_card", f"seat {seat} holds no {name} card")
    if held <= state.dev_new[card]:
        raise _refuse(
            "card_too_new", f"a {name} card bought this turn cannot be played until the next"
        )


def _check_trade_terms(give: Counts, get: Counts, who: str) -> None:
    # Well-formed counts are guaranteed by the shape check in ``check``.
    if not any(give) or not any(get):
        raise _refuse("bad_trade", f"{who} must give and get at least one card: no gifts")
    if any(give[r] and get[r] for r in range(_R)):
        raise _refuse("bad_trade", "the same resource cannot be on both sides of a trade")


def check(state: GameState, action: Action) -> None:
    """Raise :class:`IllegalActionError` naming why ``action`` is illegal now; return
    quietly when it is legal."""
    checker = _CHECKERS.get(type(action))
    if checker is None:
        raise _refuse("unknown_action", f"{_kind_of(action)} is not an action of this game")
    problem = shape_error(action)
    if problem is not None:
        raise _refuse("bad_action", problem)
    checker(state, action)


def is_legal(state: GameState, action: Action) -> bool:
    """True when ``action`` may be applied to ``state`` now."""
    try:
        check(state, action)
    except IllegalActionError:
        return False
    return True


def _check_place_settlement(state: GameState, a: PlaceSettlement) -> None:
    _check_turn(state, a, _SETUP_SETTLEMENT)
    v = _check_vertex(state, a.vertex)
    if state.vowner[v] >= 0:
        raise _refuse("occupied", f"intersection {v} already has a building")
    if state.vblocked[v]:
        raise _refuse("distance_rule", f"intersection {v} is next to a building")


def _check_place_road(state: GameState, a: PlaceRoad) -> None:
    _check_turn(state, a, _SETUP_ROAD)
    e = _check_edge(state, a.edge)
    if state.eowner[e] >= 0:
        raise _refuse("occupied", f"path {e} already has a road")
    if state.last_vertex not in state.topo.edge_vertices[e]:
        raise _refuse(
            "not_connected", f"the set-up road must touch the settlement on {state.last_vertex}"
        )


def _check_roll(state: GameState, a: RollDice) -> None:
    _check_turn(state, a, _PRE_ROLL)


def _check_discard(state: GameState, a: Discard) -> None:
    _check_turn(state, a, _DISCARD)
    if not any(a.cards):
        raise _refuse("bad_discard", "a discard gives back at least one card")
    owed = state.owed[a.seat]
    if sum(a.cards) > owed:
        raise _refuse("bad_discard", f"seat {a.seat} owes only {owed} more cards")
    if not _holds(state, a.seat, a.cards):
        raise _refuse("cannot_afford", f"seat {a.seat} does not hold those cards")


def _check_move_robber(state: GameState, a: MoveRobber) -> None:
    _check_turn(state, a, _MOVE_ROBBER)
    h = a.hex
    if not _is_index(h, state.topo.n_hexes):
        raise _refuse("bad_location", f"there is no hex {h!r} on this board")
    if h == state.robber:
        raise _refuse("robber_must_move", "the robber must move to a different hex")
    victims = robber_victims(state, h, a.seat)
    if a.victim is None:
        if victims:
            raise _refuse("victim_required", f"choose whom to rob on hex {h}: one of {victims}")
    elif a.victim not in victims:
        raise _refuse(
            "bad_victim", f"seat {a.victim!r} cannot be robbed on hex {h}; choose from {victims}"
        )


def _check_build_road(state: GameState, a: BuildRoad) -> None:
    _check_turn(state, a, _MAIN, _ROAD_BUILDING)
    e = _check_edge(state, a.edge)
    if state.phase == _MAIN:
        _check_cost(state, a.seat, ROAD_COST, "a road")
    if not state.roads_left[a.seat]:
        raise _refuse("no_pieces", f"seat {a.seat} has no roads left")
    if state.eowner[e] >= 0:
        raise _refuse("occupied", f"path {e} already has a road")
    if e not in road_spots(state, a.seat):
        raise _refuse("not_connected", f"path {e} does not join seat {a.seat}'s roads")


def _check_build_settlement(state: GameState, a: BuildSettlement) -> None:
    _check_turn(state, a, _MAIN)
    v = _check_vertex(state, a.vertex)
    _check_cost(state, a.seat, SETTLEMENT_COST, "a settlement")
    if not state.settlements_left[a.seat]:
        raise _refuse("no_pieces", f"seat {a.seat} has no settlements left")
    if state.vowner[v] >= 0:
        raise _refuse("occupied", f"intersection {v} already has a building")
    if state.vblocked[v]:
        raise _refuse("distance_rule", f"intersection {v} is next to a building")
    if not any(state.eowner[e] == a.seat for e in state.topo.vertex_edges[v]):
        raise _refuse(
            "not_connected", f"intersection {v} is not at the end of seat {a.seat}'s road"
        )


def _check_build_city(state: GameState, a: BuildCity) -> None:
    _check_turn(state, a, _MAIN)
    v = _check_vertex(state, a.vertex)
    _check_cost(state, a.seat, CITY_COST, "a city")
    if not state.cities_left[a.seat]:
        raise _refuse("no_pieces", f"seat {a.seat} has no cities left")
    if state.vowner[v] != a.seat or state.vlevel[v] != 1:
        raise _refuse("not_your_settlement", f"intersection {v} has no settlement of seat {a.seat}")


def _check_buy_dev(state: GameState, a: BuyDevCard) -> None:
    _check_turn(state, a, _MAIN)
    _check_cost(state, a.seat, DEV_CARD_COST, "a development card")
    if not any(state.deck):
        raise _refuse("deck_empty", "no development cards are left")


def _check_knight(state: GameState, a: PlayKnight) -> None:
    _check_turn(state, a, _PRE_ROLL, _MAIN)
    _check_dev_card(state, a.seat, _KNIGHT)


def _check_road_building(state: GameState, a: PlayRoadBuilding) -> None:
    _check_turn(state, a, _PRE_ROLL, _MAIN)
    _check_dev_card(state, a.seat, _ROAD_BUILDING_CARD)
    if not state.roads_left[a.seat] or not _road_candidates(state, a.seat):
        raise _refuse("no_road_spot", f"seat {a.seat} has no road it could build")


def _check_plenty(state: GameState, a: PlayYearOfPlenty) -> None:
    _check_turn(state, a, _PRE_ROLL, _MAIN)
    _check_dev_card(state, a.seat, _PLENTY)
    want = min(YEAR_OF_PLENTY_CARDS, sum(state.bank))
    if want == 0:
        raise _refuse("bank_empty", "the bank has no cards to take")
    if sum(a.cards) != want:
        raise _refuse("bad_cards", f"year of plenty takes exactly {want} cards")
    if any(state.bank[r] < a.cards[r] for r in range(_R)):
        raise _refuse("bank_short", "the bank does not have those cards")


def _check_monopoly(state: GameState, a: PlayMonopoly) -> None:
    _check_turn(state, a, _PRE_ROLL, _MAIN)
    _check_dev_card(state, a.seat, _MONOPOLY)
    if not _is_index(a.resource, _R):
        raise _refuse("bad_resource", f"{a.resource!r} is not a resource")


def _check_maritime(state: GameState, a: MaritimeTrade) -> None:
    _check_turn(state, a, _MAIN)
    if not _is_index(a.give, _R) or not _is_index(a.get, _R):
        raise _refuse("bad_resource", "a maritime trade names two resources")
    if a.give == a.get:
        raise _refuse("bad_trade", "a maritime trade must get a different resource")
    best = state.ratio[a.seat * _R + a.give]
    if a.ratio != best:
        raise _refuse(
            "bad_ratio", f"seat {a.seat} trades {Resource(a.give).name.lower()} at {best}:1"
        )
    if state.hand[a.seat * _R + a.give] < best:
        raise _refuse(
            "cannot_afford", f"seat {a.seat} needs {best} {Resource(a.give).name.lower()}"
        )
    if not state.bank[a.get]:
        raise _refuse("bank_short", f"the bank has no {Resource(a.get).name.lower()}")


def _check_offer(state: GameState, a: OfferTrade) -> None:
    _check_turn(state, a, _MAIN)
    _check_trade_terms(a.give, a.get, "the offerer")
    if not _holds(state, a.seat, a.give):
        raise _refuse("cannot_afford", f"seat {a.seat} does not hold the cards it offers")
    if a.to is not None and (
        not isinstance(a.to, tuple)
        or not a.to
        or len(set(a.to)) != len(a.to)
        or any(not _is_index(q, state.n) or q == a.seat for q in a.to)
    ):
        raise _refuse("bad_trade", "an offer goes to one or more other seats of the game")


def _check_answer(state: GameState, a: AcceptTrade | DeclineTrade | CounterTrade) -> None:
    _check_turn(state, a, _TRADE)
    if state.answers[a.seat] != _PENDING:
        raise _refuse("not_asked", f"seat {a.seat} has no offer to answer")


def _check_accept(state: GameState, a: AcceptTrade) -> None:
    _check_answer(state, a)
    assert state.offer is not None
    if not _holds(state, a.seat, state.offer[1]):
        raise _refuse("cannot_afford", f"seat {a.seat} does not hold the cards asked for")


def _check_counter(state: GameState, a: CounterTrade) -> None:
    _check_answer(state, a)
    _check_trade_terms(a.give, a.get, "the counter-offer")
    if not _holds(state, a.seat, a.give):
        raise _refuse("cannot_afford", f"seat {a.seat} does not hold the cards it offers")


def _check_confirm(state: GameState, a: ConfirmTrade) -> None:
    _check_turn(state, a, _TRADE)
    if a.seat != state.current:
        raise _refuse("not_offerer", "only the seat that made the offer completes it")
    q = a.partner
    if not _is_index(q, state.n) or state.answers[q] not in (_ACCEPTED, _COUNTERED):
        raise _refuse("not_accepted", f"seat {q!r} has not accepted the offer")
    if _trade_terms(state, q) is None:
        raise _refuse("cannot_afford", "one side no longer holds the cards of the trade")


def _check_cancel(state: GameState, a: CancelTrade) -> None:
    _check_turn(state, a, _TRADE)
    if a.seat != state.current:
        raise _refuse("not_offerer", "only the seat that made the offer cancels it")


def _check_end_turn(state: GameState, a: EndTurn) -> None:
    _check_turn(state, a, _MAIN)


# ======================================================================================
# Applying
# ======================================================================================


def apply(state: GameState, action: Action) -> list[Event]:
    """Check ``action`` and apply it to ``state``; returns the events it caused, chance
    outcomes included. Raises :class:`IllegalActionError` (state unchanged) when illegal."""
    check(state, action)
    events: list[Event] = []
    _run(state, action, events)
    state.actions_taken += 1
    return events


def advance(state: GameState, action: Action) -> None:
    """Apply an action taken from ``legal_actions(state)`` without checking it and without
    recording events: the search's fast path. Anything else may corrupt the state."""
    _run(state, action, None)
    state.actions_taken += 1


def _run(state: GameState, a: Action, events: Events) -> None:
    """Run the action's handler: the one dispatch on an action's kind, shared by :func:`apply`
    and :func:`advance`. The kinds are compared commonest first with ``Final`` aliases of
    their classes, so that compiled code calls each handler directly (a call through a
    table costs the compiled build a generic call per action; the casts only inform the
    type checker).

    Handlers of actions that only the seat to move may take read the seat as
    ``state.current`` (equal to the action's, checked by :func:`check` or given by
    :func:`legal_actions`): the compiled build reads an action's fields through the
    interpreter."""
    kind = type(a)
    if kind is _END_TURN_KIND:
        _do_end_turn(state, cast(EndTurn, a), events)
    elif kind is _ROLL_DICE_KIND:
        _do_roll(state, cast(RollDice, a), events)
    elif kind is _MARITIME_TRADE_KIND:
        _do_maritime(state, cast(MaritimeTrade, a), events)
    elif kind is _DISCARD_KIND:
        _do_discard(state, cast(Discard, a), events)
    elif kind is _BUILD_ROAD_KIND:
        _do_build_road(state, cast(BuildRoad, a), events)
    elif kind is _MOVE_ROBBER_KIND:
        _do_move_robber(state, cast(MoveRobber, a), events)
    elif kind is _BUILD_SETTLEMENT_KIND:
        _do_build_settlement(state, cast(BuildSettlement, a), events)
    elif kind is _BUILD_CITY_KIND:
        _do_build_city(state, cast(BuildCity, a), events)
    elif kind is _BUY_DEV_CARD_KIND:
        _do_buy_dev(state, cast(BuyDevCard, a), events)
    elif kind is _PLAY_KNIGHT_KIND:
        _do_knight(state, cast(PlayKnight, a), events)
    elif kind is _PLACE_SETTLEMENT_KIND:
        _do_place_settlement(state, cast(PlaceSettlement, a), events)
    elif kind is _PLACE_ROAD_KIND:
        _do_place_road(state, cast(PlaceRoad, a), events)
    elif kind is _PLAY_ROAD_BUILDING_KIND:
        _do_road_building(state, cast(PlayRoadBuilding, a), events)
    elif kind is _PLAY_YEAR_OF_PLENTY_KIND:
        _do_plenty(state, cast(PlayYearOfPlenty, a), events)
    elif kind is _PLAY_MONOPOLY_KIND:
        _do_monopoly(state, cast(PlayMonopoly, a), events)
    elif kind is _OFFER_TRADE_KIND:
        _do_offer(state, cast(OfferTrade, a), events)
    elif kind is _ACCEPT_TRADE_KIND:
        _do_accept(state, cast(AcceptTrade, a), events)
    elif kind is _DECLINE_TRADE_KIND:
        _do_decline(state, cast(DeclineTrade, a), events)
    elif kind is _COUNTER_TRADE_KIND:
        _do_counter(state, cast(CounterTrade, a), events)
    elif kind is _CONFIRM_TRADE_KIND:
        _do_confirm(state, cast(ConfirmTrade, a), events)
    elif kind is _CANCEL_TRADE_KIND:
        _do_cancel(state, cast(CancelTrade, a), events)
    else:
        raise _refuse("unknown_action", f"{_kind_of(a)} is not an action of this game")


def _five(counts: list[int], base: int) -> int:
    """The sum of the five counts from ``base``: a hand, the bank or the deck (``sum`` of a
    slice costs a call and a list in the compiled build)."""
    return counts[base] + counts[base + 1] + counts[base + 2] + counts[base + 3] + counts[base + 4]


def _draw(state: GameState, n: int) -> int:
    state.rng_hi, state.rng_lo, out = draw_split(state.rng_hi, state.rng_lo, n)
    return out


def _pay(state: GameState, seat: Seat, cost: Counts) -> None:
    # Five named counts: compiled, a fixed-length tuple travels unboxed, where indexing
    # it by a variable would build a tuple object for every payment.
    c0, c1, c2, c3, c4 = cost
    hand = state.hand
    bank = state.bank
    base = seat * _R
    if c0:
        hand[base] = hand[base] - c0
        bank[0] = bank[0] + c0
    if c1:
        hand[base + 1] = hand[base + 1] - c1
        bank[1] = bank[1] + c1
    if c2:
        hand[base + 2] = hand[base + 2] - c2
        bank[2] = bank[2] + c2
    if c3:
        hand[base + 3] = hand[base + 3] - c3
        bank[3] = bank[3] + c3
    if c4:
        hand[base + 4] = hand[base + 4] - c4
        bank[4] = bank[4] + c4


def _do_place_settlement(state: GameState, a: PlaceSettlement, events: Events) -> None:
    seat, v = a.seat, a.vertex
    place_settlement(state, seat, v)
    state.last_vertex = v
    state.phase = _SETUP_ROAD
    if events is not None:
        events.append(SettlementBuilt(seat, v, True))
    if state.setup_step >= state.n:
        # The second settlement pays one card per neighbouring producing hex.
        board = state.board
        gains = [0] * _R
        for h in state.topo.vertex_hexes[v]:
            r = board.terrain[h]
            if r < _R and state.bank[r]:
                gains[r] = gains[r] + 1
                state.bank[r] = state.bank[r] - 1
                state.hand[seat * _R + r] = state.hand[seat * _R + r] + 1
        if events is not None:
            events.append(
                StartingResources(seat, (gains[0], gains[1], gains[2], gains[3], gains[4]))
            )


def _do_place_road(state: GameState, a: PlaceRoad, events: Events) -> None:
    seat = a.seat
    place_road(state, seat, a.edge)
    if events is not None:
        events.append(RoadBuilt(seat, a.edge, True))
    state.road_len[seat] = road_length_after(state, seat, a.edge)
    state.setup_step += 1
    order_len = 2 * state.n
    if state.setup_step < order_len:
        i = state.setup_step
        state.current = i if i < state.n else order_len - 1 - i
        state.phase = _SETUP_SETTLEMENT
    else:
        state.current = 0
        state.turn = 1
        state.phase = _PRE_ROLL
        if events is not None:
            events.append(TurnStarted(0, 1))


def _do_roll(state: GameState, a: RollDice, events: Events) -> None:
    state.rng_hi, state.rng_lo, a1, a2 = draw_two_split(state.rng_hi, state.rng_lo, 6)
    d1 = a1 + 1
    d2 = a2 + 1
    state.dice = _DICE[a1 * 6 + a2]
    state.rolled = True
    total = d1 + d2
    if events is not None:
        events.append(DiceRolled(a.seat, (d1, d2)))
    if total == 7:
        limit = state.config.discard_limit
        hand = state.hand
        owed = state.owed
        anyone = False
        for q in range(state.n):
            size = _five(hand, q * _R)
            if size > limit:
                owed[q] = size // 2
                anyone = True
        if anyone:
            state.phase = _DISCARD
            if events is not None:
                events.append(DiscardsOwed(tuple(owed)))
        else:
            state.phase = _MOVE_ROBBER
        return
    _produce(state, total, events)
    state.phase = _MAIN


def _produce(state: GameState, total: int, events: Events) -> None:
    if events is None:
        # Pay everyone at once, with no list of who is owed what; a bank left short of
        # something (rare) takes the payment back and rations it below.
        if _pay_out(state, total, 1):
            return
        _pay_out(state, total, -1)
    vlevel = state.vlevel
    robber = state.robber
    due: list[tuple[int, int, int]] = []  # (seat, resource, cards)
    cards = 0
    for h, r, corners in state.board.producing[total]:
        if h != robber:
            for v in corners:
                level = vlevel[v]
                if level:
                    due.append((state.vowner[v], r, level))
                    cards += level
    short: list[Resource] = []
    if due:
        bank = state.bank
        hand = state.hand
        # The bank may run short of something (``min(bank)``, without the call).
        if (
            cards > bank[0]
            or cards > bank[1]
            or cards > bank[2]
            or cards > bank[3]
            or cards > bank[4]
        ):
            owed = [0] * _R
            for _, r, d in due:
                owed[r] = owed[r] + d
            short = [_RES[r] for r in range(_R) if owed[r] > bank[r]]
            if short:
                due = _ration(due, bank, short)
        for o, r, d in due:
            hand[o * _R + r] = hand[o * _R + r] + d
            bank[r] = bank[r] - d
    if events is not None:
        flat = [0] * (state.n * _R)
        for o, r, d in due:
            flat[o * _R + r] = flat[o * _R + r] + d
        gains = tuple(
            (flat[b], flat[b + 1], flat[b + 2], flat[b + 3], flat[b + 4])
            for b in range(0, state.n * _R, _R)
        )
        events.append(Produced(gains, tuple(short)))


def _pay_out(state: GameState, total: int, sign: int) -> bool:
    """Pay (``sign`` 1) or take back (-1) every building's cards for a roll of ``total``;
    True when the bank covered them all."""
    vlevel = state.vlevel
    vowner = state.vowner
    robber = state.robber
    hand = state.hand
    bank = state.bank
    for h, r, corners in state.board.producing[total]:
        if h != robber:
            for v in corners:
                level = vlevel[v]
                if level:
                    d = sign * level
                    i = vowner[v] * _R + r
                    hand[i] = hand[i] + d
                    bank[r] = bank[r] - d
    return bank[0] >= 0 and bank[1] >= 0 and bank[2] >= 0 and bank[3] >= 0 and bank[4] >= 0


def _ration(
    due: list[tuple[int, int, int]], bank: list[int], short: list[Resource]
) -> list[tuple[int, int, int]]:
    """What is paid of ``due`` when the bank is short of some resources: nobody gets a
    short resource, unless a single seat is owed it, who takes what is left."""
    out = []
    for o, r, d in due:
        if r not in short:
            out.append((o, r, d))
        elif len({q for q, rr, _ in due if rr == r}) == 1 and not any(x[1] == r for x in out):
            out.append((o, r, bank[r]))
    return out


def _do_discard(state: GameState, a: Discard, events: Events) -> None:
    seat = a.seat
    cards = a.cards
    _pay(state, seat, cards)
    state.owed[seat] = state.owed[seat] - (cards[0] + cards[1] + cards[2] + cards[3] + cards[4])
    if events is not None:
        events.append(Discarded(seat, cards))
    for owed in state.owed:
        if owed:
            return
    state.phase = _MOVE_ROBBER


def _do_move_robber(state: GameState, a: MoveRobber, events: Events) -> None:
    seat = state.current
    hex_id = a.hex
    state.robber = hex_id
    victim = a.victim
    if events is not None:
        events.append(RobberMoved(seat, hex_id, victim))
    if victim is not None:
        hand = state.hand
        vb = victim * _R
        size = _five(hand, vb)
        if size:  # a victim with no cards gives nothing
            k = _draw(state, size)
            r = 0
            while k >= hand[vb + r]:
                k -= hand[vb + r]
                r += 1
            hand[vb + r] = hand[vb + r] - 1
            hand[seat * _R + r] = hand[seat * _R + r] + 1
            if events is not None:
                events.append(Stolen(seat, victim, _RES[r]))
    state.phase = _MAIN if state.rolled else _PRE_ROLL


def _do_build_road(state: GameState, a: BuildRoad, events: Events) -> None:
    seat = state.current
    free = state.phase == _ROAD_BUILDING
    if not free:
        _pay(state, seat, ROAD_COST)
    place_road(state, seat, a.edge)
    if events is not None:
        events.append(RoadBuilt(seat, a.edge, free))
    state.road_len[seat] = road_length_after(state, seat, a.edge)
    award_longest_road(state, events)
    if free:
        state.free_roads -= 1
        if state.free_roads <= 0 or not state.roads_left[seat] or not _road_candidates(state, seat):
            state.free_roads = 0
            state.phase = _MAIN if state.rolled else _PRE_ROLL
    _check_win(state, events)


def _do_build_settlement(state: GameState, a: BuildSettlement, events: Events) -> None:
    seat, v = state.current, a.vertex
    _pay(state, seat, SETTLEMENT_COST)
    place_settlement(state, seat, v)
    if events is not None:
        events.append(SettlementBuilt(seat, v, False))
    # A settlement may cut an opponent's road that runs through this vertex.
    eowner = state.eowner
    cut = {eowner[e] for e in state.topo.vertex_edges[v] if eowner[e] >= 0 and eowner[e] != seat}
    if cut:
        for q in cut:
            state.road_len[q] = longest_road(state, q)
        award_longest_road(state, events)
    _check_win(state, events)


def _do_build_city(state: GameState, a: BuildCity, events: Events) -> None:
    seat, v = state.current, a.vertex
    _pay(state, seat, CITY_COST)
    upgrade_city(state, seat, v)
    if events is not None:
        events.append(CityBuilt(seat, v))
    _check_win(state, events)


def _do_buy_dev(state: GameState, a: BuyDevCard, events: Events) -> None:
    seat = state.current
    _pay(state, seat, DEV_CARD_COST)
    deck = state.deck
    k = _draw(state, _five(deck, 0))
    card = 0
    while k >= deck[card]:
        k -= deck[card]
        card += 1
    deck[card] = deck[card] - 1
    state.dev[seat * _R + card] = state.dev[seat * _R + card] + 1
    state.dev_new[card] = state.dev_new[card] + 1
    if events is not None:
        events.append(DevCardBought(seat, _DEVS[card]))
    if card == _VP_CARD:
        _check_win(state, events)


def _play_card(state: GameState, seat: Seat, card: int, events: Events) -> None:
    state.dev[seat * _R + card] = state.dev[seat * _R + card] - 1
    state.dev_played = True
    if events is not None:
        events.append(DevCardPlayed(seat, _DEVS[card]))


def _do_knight(state: GameState, a: PlayKnight, events: Events) -> None:
    seat = state.current
    _play_card(state, seat, _KNIGHT, events)
    state.knights[seat] = state.knights[seat] + 1
    k = state.knights[seat]
    holder = state.army_holder
    if holder != seat and k >= LARGEST_ARMY_MIN and (holder < 0 or k > state.knights[holder]):
        set_award(state, _LARGEST_ARMY, seat)
        if events is not None:
            events.append(LargestArmyChanged(seat, k))
    state.phase = _MOVE_ROBBER
    _check_win(state, events)


def _do_road_building(state: GameState, a: PlayRoadBuilding, events: Events) -> None:
    _play_card(state, a.seat, _ROAD_BUILDING_CARD, events)
    state.free_roads = min(ROAD_BUILDING_ROADS, state.roads_left[a.seat])
    state.phase = _ROAD_BUILDING


def _do_plenty(state: GameState, a: PlayYearOfPlenty, events: Events) -> None:
    seat = a.seat
    _play_card(state, seat, _PLENTY, events)
    base = seat * _R
    for r in range(_R):
        c = a.cards[r]
        if c:
            state.bank[r] = state.bank[r] - c
            state.hand[base + r] = state.hand[base + r] + c
    if events is not None:
        events.append(YearOfPlentyTaken(seat, a.cards))


def _do_monopoly(state: GameState, a: PlayMonopoly, events: Events) -> None:
    seat = a.seat
    r = int(a.resource)
    _play_card(state, seat, _MONOPOLY, events)
    hand = state.hand
    taken = [0] * state.n
    for q in range(state.n):
        if q != seat:
            c = hand[q * _R + r]
            if c:
                taken[q] = c
                hand[q * _R + r] = 0
                hand[seat * _R + r] = hand[seat * _R + r] + c
    if events is not None:
        events.append(MonopolyTaken(seat, _RES[r], tuple(taken)))


def _do_maritime(state: GameState, a: MaritimeTrade, events: Events) -> None:
    seat = state.current
    # Plain ints: arithmetic on the ``Resource`` members goes through the interpreter.
    give: int = a.give
    get: int = a.get
    k: int = a.ratio
    hand = state.hand
    bank = state.bank
    base = seat * _R
    hand[base + give] = hand[base + give] - k
    bank[give] = bank[give] + k
    hand[base + get] = hand[base + get] + 1
    bank[get] = bank[get] - 1
    if events is not None:
        events.append(MaritimeTraded(seat, _RES[give], k, _RES[get]))


def _do_offer(state: GameState, a: OfferTrade, events: Events) -> None:
    to = tuple(q for q in range(state.n) if q != a.seat) if a.to is None else tuple(sorted(a.to))
    state.offer = (tuple(a.give), tuple(a.get))
    for q in range(state.n):
        state.answers[q] = _PENDING if q in to else _NOT_ASKED
        state.counters[q] = None
    state.phase = _TRADE
    if events is not None:
        events.append(TradeOffered(a.seat, a.give, a.get, to))


def _close_offer(state: GameState) -> None:
    state.offer = None
    for q in range(state.n):
        state.answers[q] = _NOT_ASKED
        state.counters[q] = None
    state.phase = _MAIN


def _after_answer(state: GameState, events: Events) -> None:
    asked = [a for a in state.answers if a != _NOT_ASKED]
    if all(a == _DECLINED for a in asked):
        _close_offer(state)
        if events is not None:
            events.append(TradeClosed(state.current, "declined"))


def _do_accept(state: GameState, a: AcceptTrade, events: Events) -> None:
    state.answers[a.seat] = _ACCEPTED
    if events is not None:
        events.append(TradeAnswered(a.seat, "accept"))


def _do_decline(state: GameState, a: DeclineTrade, events: Events) -> None:
    state.answers[a.seat] = _DECLINED
    if events is not None:
        events.append(TradeAnswered(a.seat, "decline"))
    _after_answer(state, events)


def _do_counter(state: GameState, a: CounterTrade, events: Events) -> None:
    state.answers[a.seat] = _COUNTERED
    state.counters[a.seat] = (tuple(a.give), tuple(a.get))
    if events is not None:
        events.append(TradeAnswered(a.seat, "counter", a.give, a.get))


def _trade_terms(state: GameState, partner: Seat) -> tuple[tuple[int, ...], tuple[int, ...]] | None:
    """(what the offerer gives, what it gets) with ``partner``, if both hold their side."""
    offer = state.offer
    assert offer is not None
    if state.answers[partner] == _COUNTERED:
        counter = state.counters[partner]
        assert counter is not None
        give, get = counter[1], counter[0]
    else:
        give, get = offer
    if _holds(state, state.current, give) and _holds(state, partner, get):
        return give, get
    return None


def _do_confirm(state: GameState, a: ConfirmTrade, events: Events) -> None:
    terms = _trade_terms(state, a.partner)
    assert terms is not None
    give, get = terms
    hand = state.hand
    pb, qb = a.seat * _R, a.partner * _R
    for r in range(_R):
        hand[pb + r] = hand[pb + r] + get[r] - give[r]
        hand[qb + r] = hand[qb + r] + give[r] - get[r]
    _close_offer(state)
    if events is not None:
        events.append(TradeCompleted(a.seat, a.partner, _as_counts(give), _as_counts(get)))


def _as_counts(c: tuple[int, ...]) -> Counts:
    return (c[0], c[1], c[2], c[3], c[4])


def _do_cancel(state: GameState, a: CancelTrade, events: Events) -> None:
    _close_offer(state)
    if events is not None:
        events.append(TradeClosed(a.seat, "cancelled"))


def _do_end_turn(state: GameState, a: EndTurn, events: Events) -> None:
    dn = state.dev_new
    if dn[0] or dn[1] or dn[2] or dn[3] or dn[4]:
        dn[0] = dn[1] = dn[2] = dn[3] = dn[4] = 0
    state.dev_played = False
    state.rolled = False
    state.dice = None
    nxt = state.current + 1
    state.current = 0 if nxt == state.n else nxt
    state.turn += 1
    state.phase = _PRE_ROLL
    if events is not None:
        events.append(TurnStarted(state.current, state.turn))
    # Points gained on another's turn (a road cut elsewhere) win at the start of one's own.
    _check_win(state, events)


def _check_win(state: GameState, events: Events) -> None:
    p = state.current
    if state.vp[p] + state.dev[p * _R + _VP_CARD] >= state.config.victory_points:
        state.winner = p
        state.phase = _GAME_OVER
        if events is not None:
            events.append(
                GameWon(
                    p,
                    tuple(state.victory_points(q) for q in range(state.n)),
                    tuple(state.dev[q * _R + _VP_CARD] for q in range(state.n)),
                )
            )


# ======================================================================================
# Dispatch tables
# ======================================================================================

# ``Final`` aliases of the action classes, for :func:`_run`: compiled code reads a ``Final``
# name as a C static, where an imported class is looked up by name at each use.
_END_TURN_KIND: Final = EndTurn
_ROLL_DICE_KIND: Final = RollDice
_MARITIME_TRADE_KIND: Final = MaritimeTrade
_DISCARD_KIND: Final = Discard
_BUILD_ROAD_KIND: Final = BuildRoad
_MOVE_ROBBER_KIND: Final = MoveRobber
_BUILD_SETTLEMENT_KIND: Final = BuildSettlement
_BUILD_CITY_KIND: Final = BuildCity
_BUY_DEV_CARD_KIND: Final = BuyDevCard
_PLAY_KNIGHT_KIND: Final = PlayKnight
_PLACE_SETTLEMENT_KIND: Final = PlaceSettlement
_PLACE_ROAD_KIND: Final = PlaceRoad
_PLAY_ROAD_BUILDING_KIND: Final = PlayRoadBuilding
_PLAY_YEAR_OF_PLENTY_KIND: Final = PlayYearOfPlenty
_PLAY_MONOPOLY_KIND: Final = PlayMonopoly
_OFFER_TRADE_KIND: Final = OfferTrade
_ACCEPT_TRADE_KIND: Final = AcceptTrade
_DECLINE_TRADE_KIND: Final = DeclineTrade
_COUNTER_TRADE_KIND: Final = CounterTrade
_CONFIRM_TRADE_KIND: Final = ConfirmTrade
_CANCEL_TRADE_KIND: Final = CancelTrade

_CHECKERS: Final[dict[type, Callable[[GameState, object], None]]] = {
    PlaceSettlement: _check_place_settlement,  # type: ignore[dict-item]
    PlaceRoad: _check_place_road,  # type: ignore[dict-item]
    RollDice: _check_roll,  # type: ignore[dict-item]
    Discard: _check_discard,  # type: ignore[dict-item]
    MoveRobber: _check_move_robber,  # type: ignore[dict-item]
    BuildRoad: _check_build_road,  # type: ignore[dict-item]
    BuildSettlement: _check_build_settlement,  # type: ignore[dict-item]
    BuildCity: _check_build_city,  # type: ignore[dict-item]
    BuyDevCard: _check_buy_dev,  # type: ignore[dict-item]
    PlayKnight: _check_knight,  # type: ignore[dict-item]
    PlayRoadBuilding: _check_road_building,  # type: ignore[dict-item]
    PlayYearOfPlenty: _check_plenty,  # type: ignore[dict-item]
    PlayMonopoly: _check_monopoly,  # type: ignore[dict-item]
    MaritimeTrade: _check_maritime,  # type: ignore[dict-item]
    OfferTrade: _check_offer,  # type: ignore[dict-item]
    AcceptTrade: _check_accept,  # type: ignore[dict-item]
    DeclineTrade: _check_answer,  # type: ignore[dict-item]
    CounterTrade: _check_counter,  # type: ignore[dict-item]
    ConfirmTrade: _check_confirm,  # type: ignore[dict-item]
    CancelTrade: _check_cancel,  # type: ignore[dict-item]
    EndTurn: _check_end_turn,  # type: ignore[dict-item]
}

__all__ = [
    "advance",
    "apply",
    "check",
    "is_legal",
    "legal_actions",
    "road_spots",
    "robber_victims",
    "seats_to_act",
    "settlement_spots",
    "setup_order",
]
