"""The environments' bound on domestic offers: at most ``Rules.max_offers`` a turn."""

from __future__ import annotations

from typing import Any, Final

from engine.state import GameState, Phase
from features.actions import BOUNDED_TRADES, ActionIndex

_MAIN: Final = int(Phase.MAIN)


class OfferCount:
    """The offers made in the current turn of one game."""

    __slots__ = ("made", "turn")

    def __init__(self) -> None:
        self.turn = -1
        self.made = 0

    def count(self, state: GameState, index: ActionIndex, action: int) -> None:
        """Note ``action`` (an index), about to be taken in ``state``."""
        start = index.start["offer"]
        if start <= action < start + len(BOUNDED_TRADES):
            if state.turn != self.turn:
                self.turn, self.made = state.turn, 0
            self.made += 1

    def limit(self, state: GameState, max_offers: int, index: ActionIndex, mask: Any) -> None:
        """Clear the offer range of ``mask`` (a numpy array) once the turn's offers are
        used up."""
        if state.phase == _MAIN and state.turn == self.turn and self.made >= max_offers:
            start = index.start["offer"]
            mask[start : start + len(BOUNDED_TRADES)] = 0


__all__ = ["OfferCount"]
