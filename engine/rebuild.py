"""A full game state from one seat's view plus a guess at what the view hides.

A search bot sees only its seat's :class:`~engine.view.View`. To search it fills in the hidden
part (the other seats' hands and development cards, the deck's contents, the dice to come)
with a guess drawn from its beliefs, and plays on the state this module builds. With the
true hidden part the result is the real game as far as any seat can tell: every seat's view
of it and every seat's legal actions are those of the real game.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import lru_cache
from typing import Any, cast

from engine.board import Board
from engine.constants import HARBOUR_LAYOUT, Award
from engine.pieces import place_road, place_settlement, set_award, upgrade_city
from engine.state import Answer, GameConfig, GameState, Phase, empty_state
from engine.view import View


@lru_cache(maxsize=16)
def _config(
    radius: int,
    terrain: tuple[int, ...],
    tokens: tuple[int, ...],
    harbours: tuple[int, ...],
    harbour_layout: int,
    players: int,
    victory_points: int,
    discard_limit: int,
    reds_may_touch: bool = False,
) -> GameConfig:
    board = Board.from_layout(
        terrain,
        tokens,
        harbours,
        radius,
        harbour_layout=harbour_layout,
        reds_may_touch=reds_may_touch,
    )
    return GameConfig.with_board(
        board, players=players, victory_points=victory_points, discard_limit=discard_limit
    )


def config_of(view: View, discard_limit: int = 7) -> GameConfig:
    """The configuration of the viewed game (the board as an explicit one). The discard
    limit is not part of a view; 7 is the rulebook's."""
    b = cast(dict[str, Any], view.board)
    return _config(
        int(b["radius"]),
        tuple(b["terrain"]),
        tuple(b["tokens"]),
        tuple(b["harbours"]),
        int(b.get("harbour_layout", HARBOUR_LAYOUT)),
        view.players,
        view.victory_points,
        discard_limit,
        bool(b.get("reds_may_touch", False)),
    )


def state_from_view(
    view: View,
    hands: Sequence[Sequence[int]],
    development: Sequence[Sequence[int]],
    deck: Sequence[int],
    *,
    development_new: Sequence[int] = (0, 0, 0, 0, 0),
    seed: int = 0,
    discard_limit: int = 7,
) -> GameState:
    """The game ``view`` shows, with every seat's hand and development cards, the deck's
    contents by kind and the current seat's cards bought this turn filled in. ``seed``
    seeds the chance still to come. Raises ValueError when the guess contradicts the view
    (a hand or development card count, or the deck size)."""
    n = view.players
    if len(hands) != n or len(development) != n:
        raise ValueError(f"need a hand and development cards for each of {n} seats")
    for q, p in enumerate(view.seats):
        if sum(hands[q]) != p.resource_cards:
            raise ValueError(f"seat {q} holds {p.resource_cards} cards, not {sum(hands[q])}")
        if sum(development[q]) != p.development_cards:
            raise ValueError(f"seat {q} holds {p.development_cards} development cards")
    if sum(deck) != view.development_deck:
        raise ValueError(f"the deck holds {view.development_deck} cards, not {sum(deck)}")
    config = config_of(view, discard_limit)
    board = config.board
    assert board is not None
    topo = board.topo
    s = empty_state(config, board, seed)
    for v, q in view.settlements:
        place_settlement(s, q, v)
    for v, q in view.cities:
        place_settlement(s, q, v)
        upgrade_city(s, q, v)
    for e, q in view.roads:
        place_road(s, q, e)
    s.hand = [c for h in hands for c in h]
    s.bank = list(view.bank)
    s.deck = list(deck)
    s.dev = [c for d in development for c in d]
    s.dev_new = list(development_new)
    seats = view.seats
    s.knights = [p.knights for p in seats]
    s.road_len = [p.longest_road for p in seats]
    set_award(s, Award.LONGEST_ROAD, next((p.seat for p in seats if p.has_longest_road), -1))
    set_award(s, Award.LARGEST_ARMY, next((p.seat for p in seats if p.has_largest_army), -1))
    s.robber = view.robber
    phase = Phase[view.phase.upper()]
    s.phase = phase
    s.current = view.current
    in_setup = phase in (Phase.SETUP_SETTLEMENT, Phase.SETUP_ROAD)
    s.setup_step = len(view.roads) if in_setup else 2 * n
    if phase == Phase.SETUP_ROAD:
        # The settlement the next road must touch: the current seat's one without a road.
        mine = set(s.proads[view.current])
        s.last_vertex = next(
            v for v in s.pbuild[view.current] if not mine & set(topo.vertex_edges[v])
        )
    # The dice show from the roll to the end of the turn; a knight or road building may
    # come before the roll.
    s.rolled = phase in (Phase.DISCARD, Phase.MAIN, Phase.TRADE) or (
        phase in (Phase.MOVE_ROBBER, Phase.ROAD_BUILDING) and view.dice is not None
    )
    s.dev_played = view.dev_card_played
    s.owed = [p.discards_owed for p in seats]
    s.free_roads = view.free_roads
    if view.trade is not None:
        t = view.trade
        s.offer = (tuple(t.give), tuple(t.get))
        s.answers = [int(Answer[a.upper()]) for a in t.answers]
        s.counters = [None if c is None else (tuple(c[0]), tuple(c[1])) for c in t.counters]
    s.dice = view.dice
    s.turn = view.turn
    s.winner = -1 if view.winner is None else view.winner
    s.actions_taken = view.state_id
    return s
