"""Hexhaven's rules engine: the complete base game of the hex-island trading game.

Pure: no I/O, no asyncio, no logging set-up, and no imports from the rest of the project.
Start a game with :func:`new_game`, ask :func:`legal_actions`, :func:`apply` actions, and
show each seat its :func:`view`.
"""

from engine.actions import *  # noqa: F403
from engine.actions import ACTION_TYPES, Action, Counts, counts_of
from engine.board import (
    Board,
    check_board,
    prepare_random_boards,
    random_board,
    spiral_board,
    terrain_counts,
    token_counts,
)
from engine.constants import DevCard, Resource, Seat, Terrain
from engine.defaults import default_action
from engine.errors import BoardError, ConfigError, EngineError, IllegalActionError
from engine.events import *  # noqa: F403
from engine.events import EVENT_TYPES, PUBLIC_EVENT_TYPES, Event
from engine.longest import longest_road
from engine.notation import NotationError, format_view, parse_view
from engine.notation import format as format_position
from engine.notation import parse as parse_position
from engine.replay import replay
from engine.rng import Rng
from engine.rules import (
    advance,
    apply,
    check,
    is_legal,
    legal_actions,
    seats_to_act,
)
from engine.state import Answer, GameConfig, GameState, Phase, new_game
from engine.tables import action_tables
from engine.topology import Topology, topology
from engine.view import PlayerView, TradeView, View, view

__all__ = [
    "ACTION_TYPES",
    "EVENT_TYPES",
    "PUBLIC_EVENT_TYPES",
    "Action",
    "Answer",
    "Board",
    "BoardError",
    "ConfigError",
    "Counts",
    "DevCard",
    "EngineError",
    "Event",
    "GameConfig",
    "GameState",
    "IllegalActionError",
    "NotationError",
    "Phase",
    "PlayerView",
    "Resource",
    "Rng",
    "Seat",
    "Terrain",
    "Topology",
    "TradeView",
    "View",
    "action_tables",
    "advance",
    "apply",
    "check",
    "check_board",
    "counts_of",
    "default_action",
    "format_position",
    "format_view",
    "is_legal",
    "legal_actions",
    "longest_road",
    "new_game",
    "parse_position",
    "parse_view",
    "prepare_random_boards",
    "random_board",
    "replay",
    "seats_to_act",
    "spiral_board",
    "terrain_counts",
    "token_counts",
    "topology",
    "view",
]
__all__ += [kind.__name__ for kind in ACTION_TYPES]  # every action and event class too
__all__ += [kind.__name__ for kind in EVENT_TYPES]
