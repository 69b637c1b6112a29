"""Prompts for a seat as a server would send them, made from an engine state."""

from __future__ import annotations

from engine import GameState, legal_actions, view
from protocol import messages as m
from protocol.payloads import action_from_engine, view_from_engine


def prompt_for(state: GameState, seat: int, deadline: float | None = None) -> m.Prompt:
    """The prompt ``seat`` gets in ``state``: its legal actions and its view."""
    return m.Prompt(
        game="t",
        state_id=state.actions_taken,
        seat=seat,
        actions=[action_from_engine(a) for a in legal_actions(state, seat)],
        deadline=deadline,
        view=view_from_engine(view(state, seat)),
    )
