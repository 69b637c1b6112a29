"""A catanatron player, written against the catanatron library alone, that Hexhaven seats
with ``hexhaven bot --kind catanatron --param player=examples/catanatron/player.py:BuilderPlayer``
(docs/agents.md, "Bring your catanatron bot")."""

from __future__ import annotations

import random
from typing import Any

from catanatron.models.enums import ActionType
from catanatron.models.player import Player

PREFERENCE = (
    ActionType.BUILD_CITY,
    ActionType.BUILD_SETTLEMENT,
    ActionType.BUY_DEVELOPMENT_CARD,
)


class BuilderPlayer(Player):
    """Settles where the dice pay most, then builds the best thing it can afford: a city, a
    settlement, a development card; otherwise it picks any playable action at random."""

    def decide(self, game: Any, playable_actions: Any) -> Any:
        state = game.state
        if state.is_initial_build_phase:
            settle = [a for a in playable_actions if a.action_type == ActionType.BUILD_SETTLEMENT]
            if settle:
                production = state.board.map.node_production
                return max(settle, key=lambda a: sum(production[a.value].values()))
        for kind in PREFERENCE:
            options = [a for a in playable_actions if a.action_type == kind]
            if options:
                return random.choice(options)
        return random.choice(playable_actions)
