"""A reasonable move for a seat that must act and has not (:func:`default_action`): the
server plays it when a turn timer runs out or a player is away.

One chooser per phase, in :data:`_CHOOSERS`: the set-up settlement on the most dots, the
first listed set-up road or free road, the roll, a discard from the largest piles, the
robber where it harms the leader most and the seat least, a declined or cancelled offer, and
otherwise the end of the turn.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Final

from engine.actions import Action, Discard, MoveRobber
from engine.constants import N_RESOURCES, Seat
from engine.errors import IllegalActionError
from engine.rules import legal_actions, seats_to_act, setup_settlement_spots
from engine.state import GameState, Phase

_R: Final = N_RESOURCES


def default_action(state: GameState, seat: Seat) -> Action:
    """A legal, reasonable action for a seat that must act and has not (turn timer,
    disconnected player). Raises :class:`IllegalActionError` when the seat owes nothing."""
    if seat not in seats_to_act(state):
        raise IllegalActionError("not_your_turn", f"seat {seat} has nothing to do now")
    return _CHOOSERS[state.phase](state, seat)


def _vertex_dots(state: GameState, v: int) -> int:
    board = state.board
    return sum(board.dots(h) for h in state.topo.vertex_hexes[v])


def _best_setup_settlement(state: GameState, seat: Seat) -> Action:
    spots = setup_settlement_spots(state)
    best = max(spots, key=lambda v: (_vertex_dots(state, v), -v))
    return state.acts[seat].place_settlement[best]


def _first_listed(state: GameState, seat: Seat) -> Action:
    return legal_actions(state, seat)[0]


def _roll(state: GameState, seat: Seat) -> Action:
    return state.acts[seat].roll


def _discard_largest(state: GameState, seat: Seat) -> Action:
    """Everything owed at once, always from the largest pile."""
    left = list(state.hand_of(seat))
    give = [0] * _R
    for _ in range(state.owed[seat]):
        r = max(range(_R), key=lambda r: (left[r], -r))
        left[r] = left[r] - 1
        give[r] = give[r] + 1
    return Discard(seat, (give[0], give[1], give[2], give[3], give[4]))


def _least_harmful_robber(state: GameState, seat: Seat) -> Action:
    """Off the seat's own hexes, robbing the seat with the most points, on the most dots."""
    moves = [a for a in legal_actions(state, seat) if isinstance(a, MoveRobber)]

    def harm(a: MoveRobber) -> tuple[int, int, int]:
        own = any(state.vowner[v] == seat for v in state.topo.hex_vertices[a.hex])
        victim_pts = state.vp[a.victim] if a.victim is not None else -1
        return (0 if own else 1, victim_pts, state.board.dots(a.hex))

    return max(moves, key=harm)


def _close_or_decline(state: GameState, seat: Seat) -> Action:
    t = state.acts[seat]
    return t.cancel if seat == state.current else t.decline


def _end_turn(state: GameState, seat: Seat) -> Action:
    return state.acts[seat].end_turn


_CHOOSERS: Final[dict[int, Callable[[GameState, Seat], Action]]] = {
    Phase.SETUP_SETTLEMENT: _best_setup_settlement,
    Phase.SETUP_ROAD: _first_listed,
    Phase.PRE_ROLL: _roll,
    Phase.DISCARD: _discard_largest,
    Phase.MOVE_ROBBER: _least_harmful_robber,
    Phase.MAIN: _end_turn,
    Phase.ROAD_BUILDING: _first_listed,
    Phase.TRADE: _close_or_decline,
}
"""The default chooser of each phase in which someone must act."""
