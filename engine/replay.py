"""Replaying a game from its config, seed and actions."""

from __future__ import annotations

from collections.abc import Iterable

from engine.actions import Action
from engine.events import Event
from engine.rules import apply
from engine.state import GameConfig, GameState, new_game


def replay(
    config: GameConfig, seed: int, actions: Iterable[Action]
) -> tuple[GameState, list[Event]]:
    """Play ``actions`` from the start of the game ``(config, seed)``; returns the final
    state and every event in order. Raises IllegalActionError at the first illegal action."""
    state = new_game(config, seed)
    events: list[Event] = []
    for action in actions:
        events.extend(apply(state, action))
    return state, events
