"""Lines of the seat's own certain moves that win this turn (``win_check``)."""

from __future__ import annotations

from engine import rules
from engine.actions import (
    Action,
    BuildCity,
    BuildRoad,
    BuildSettlement,
    MaritimeTrade,
    PlayKnight,
    PlayRoadBuilding,
    PlayYearOfPlenty,
)
from engine.state import GameState, Phase

_MAIN = int(Phase.MAIN)
_ROAD_BUILDING = int(Phase.ROAD_BUILDING)
_OVER = int(Phase.GAME_OVER)
WIN_LINE_NODES = 4000
"""How many positions :func:`winning_move` may look at before it gives up."""
WIN_LINE_REACH = 4
""":func:`winning_move` looks only when the seat is at most this many points from the
target: more than any line of builds and awards could plausibly bring in one turn."""
_LINE_ORDER = {
    BuildCity: 0,
    BuildSettlement: 1,
    PlayKnight: 2,
    PlayYearOfPlenty: 3,
    PlayRoadBuilding: 4,
    BuildRoad: 5,
    MaritimeTrade: 6,
}
"""The seat's own moves whose outcome is certain (a knight only when it wins at once: the
steal after it is chance), in the order :func:`winning_move` tries them."""


def winning_move(state: GameState, seat: int, max_nodes: int = WIN_LINE_NODES) -> Action | None:
    """The first move of a line of the seat's own certain moves (builds, bank and harbour
    trades, year of plenty, road building, a knight that takes the largest army) that wins
    the game this turn, or None when it found none within ``max_nodes`` positions. Only
    its own cards and the public board count, so any guess at the hidden cards will do.
    Beyond the paper: the search values a win now and a likely win later alike."""
    if state.phase not in (_MAIN, _ROAD_BUILDING) or state.current != seat:
        return None
    if state.victory_points(seat) + WIN_LINE_REACH < state.config.victory_points:
        return None
    b = seat * 5
    seen: set[tuple[object, ...]] = set()
    left = [max_nodes]

    def first(s: GameState) -> Action | None:
        moves = [a for a in rules.legal_actions(s, seat) if type(a) in _LINE_ORDER]
        moves.sort(key=lambda a: _LINE_ORDER[type(a)])
        for a in moves:
            if left[0] <= 0:
                return None
            left[0] -= 1
            c = s.copy()
            rules.advance(c, a)
            if c.phase == _OVER:
                if c.winner == seat:
                    return a
                continue
            if type(a) is PlayKnight or c.phase not in (_MAIN, _ROAD_BUILDING):
                continue
            key = (
                c.phase,
                tuple(c.hand[b : b + 5]),
                tuple(c.dev[b : b + 5]),
                c.dev_played,
                c.free_roads,
                frozenset(c.proads[seat]),
                tuple((v, c.vlevel[v]) for v in c.pbuild[seat]),
            )
            if key in seen:
                continue
            seen.add(key)
            if first(c) is not None:
                return a
        return None

    return first(state)  # each move is tried on a copy
