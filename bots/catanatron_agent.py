"""The ``catanatron`` bot kind: any ``catanatron`` ``Player`` in a Hexhaven seat.

``catanatron`` (the published Python engine, 3.x) has players with one method,
``decide(game, playable_actions)``. For every prompt this agent

1. guesses the cards its seat cannot see (the other seats' hands and development cards,
   the deck) with a :class:`bots.belief.HandTracker` sample: the player never sees the
   truth, only the seat's view and that guess;
2. rebuilds a catanatron ``Game`` of the position (:func:`rebuild_game`: the board on
   catanatron's numbering, :mod:`bots.catanatron_map`, the pieces, hands, bank, deck, turn
   flags and the prompt: set-up placements, roll, discard, robber, the turn, road building);
3. offers the player the prompt's legal actions in catanatron's form (:func:`to_catan`) as
   ``playable_actions``, which are also what the rebuilt game accepts (a player that
   searches by copying the game and executing actions works);
4. maps the choice back. The prompt is the authority: a choice that is not one of those
   actions, or a player that raises, gets the prompt's first action (``catanatron.fallback``
   in the log).

catanatron has no domestic trade: offers made to the seat are declined and the seat never
makes one. Its discard is one action ("half the hand at random"), answered here with a
uniformly random discard of what the seat owes. catanatron's players draw from the global
``random`` module; an agent given a seed reseeds it before each decision, so its games
replay. Only the standard island (radius 3) with 2 to 4 players can be rebuilt; other games
are refused when the seat is taken (:class:`UnsupportedGame`).
"""

from __future__ import annotations

import importlib
import importlib.util
import random
import sys
import time
from collections import defaultdict
from collections.abc import Mapping, Sequence
from pathlib import Path
from types import ModuleType
from typing import Any

import structlog
from catanatron.game import Game
from catanatron.models.board import STATIC_GRAPH
from catanatron.models.board import Board as CatanBoard
from catanatron.models.enums import CITY, ROAD, SETTLEMENT, ActionPrompt, ActionType
from catanatron.models.enums import Action as CAction
from catanatron.models.player import Color, Player, RandomPlayer
from catanatron.state import PLAYER_INITIAL_STATE, State

from bots.belief import HandTracker, Sample
from bots.catanatron_map import (
    DEV_NAME,
    RESOURCE_NAME,
    UnsupportedBoard,
    board_map,
    catan_map,
    to_freqdeck,
)
from bots.tracking import track
from clients.sdk import Agent, Table
from engine import actions as ea
from engine.constants import MAX_PLAYERS, MIN_PLAYERS, N_RESOURCES, DevCard
from engine.rebuild import config_of
from engine.view import View
from protocol import messages as m
from protocol.payloads import action_from_engine, action_to_engine, view_to_engine

COLORS: tuple[Color, ...] = (Color.RED, Color.BLUE, Color.ORANGE, Color.WHITE)
"""The catanatron colour of each seat, in seat (and turn) order."""
SHIPPED_PLAYERS: dict[str, str] = {
    "random": "catanatron.models.player:RandomPlayer",
    "weighted_random": "catanatron.players.weighted_random:WeightedRandomPlayer",
    "victory_point": "catanatron.players.search:VictoryPointPlayer",
}
"""Short names for the players the catanatron package ships (``player=weighted_random``)."""
DEFAULT_PLAYER = SHIPPED_PLAYERS["weighted_random"]

_TRADE_ANSWERS = (ea.DeclineTrade, ea.CancelTrade)
"""What the agent answers domestic trade prompts with, in order of preference."""


class UnsupportedGame(ValueError):
    """A game catanatron cannot play: not the standard island, or not 2 to 4 players."""


def load_player(path: str) -> type[Player]:
    """The catanatron ``Player`` class at ``path``: ``module:Class``, ``module.Class``,
    ``path/to/file.py:Class`` or a short name of :data:`SHIPPED_PLAYERS`. Raises ValueError
    saying what is wrong."""
    path = SHIPPED_PLAYERS.get(path, path)
    module_name, colon, name = path.rpartition(":")
    if not colon:
        module_name, _, name = path.rpartition(".")
    if not module_name or not name:
        raise ValueError(f"player={path!r}: write module:Class, e.g. {DEFAULT_PLAYER}")
    try:
        if module_name.endswith(".py"):
            module = _load_file(Path(module_name))
        else:
            module = importlib.import_module(module_name)
    except (ImportError, OSError) as exc:
        raise ValueError(f"player={path!r}: cannot import {module_name!r} ({exc})") from exc
    cls = getattr(module, name, None)
    if not isinstance(cls, type) or not issubclass(cls, Player):
        raise ValueError(f"player={path!r}: {name!r} is not a catanatron Player class")
    return cls


def _load_file(file: Path) -> ModuleType:
    """The module in a Python file (not on the import path)."""
    spec = importlib.util.spec_from_file_location(f"hexhaven_player_{file.stem}", file)
    if spec is None or spec.loader is None:
        raise ImportError(f"{file} is not a Python file")
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


def check_game(view: View) -> None:
    """Raises :class:`UnsupportedGame` unless catanatron can play the viewed game."""
    if not MIN_PLAYERS <= view.players <= min(MAX_PLAYERS, len(COLORS)):
        raise UnsupportedGame(f"catanatron plays 2 to 4 players, not {view.players}")
    try:
        catan_map(config_of(view).board)
    except UnsupportedBoard as exc:
        raise UnsupportedGame(str(exc)) from exc


# --- the position ----------------------------------------------------------------------------


def _rolled(view: View) -> bool:
    """Whether the current seat has rolled this turn (as :mod:`engine.rebuild` reads it)."""
    return view.phase in ("discard", "main", "road_building", "trade") or (
        view.phase == "move_robber" and view.dice is not None
    )


def _components(board: CatanBoard, color: Color, nodes: set[int]) -> list[set[int]]:
    """catanatron's road networks of ``color``: nodes joined by its roads, not through
    another colour's building (which ends a network and belongs to each one it ends)."""
    seen: set[int] = set()
    out: list[set[int]] = []
    for n in sorted(nodes):
        if n in seen or board.is_enemy_node(n, color):
            continue
        component = board.bfs_walk(n, color)
        out.append(component)
        seen |= component
    return out


def rebuild_game(
    view: View,
    sample: Sample,
    players: Sequence[Player],
    rng: random.Random,
) -> Game:
    """The viewed position as a catanatron game, deciding seat ``view.seat`` to move, with
    the hidden cards of ``sample`` (the view's own cards for the viewing seat).
    ``players[q]`` sits at seat ``q``. ``playable_actions`` is left empty for the caller.
    Raises :class:`UnsupportedGame`."""
    check_game(view)
    assert view.seat is not None and view.hand is not None and view.development is not None
    me = view.seat
    n = view.players
    bm = board_map()
    cmap = catan_map(config_of(view).board)
    colors = COLORS[:n]

    board = CatanBoard(cmap, initialize=False)
    board.map = cmap
    board.buildings = {}
    for level, pieces in ((SETTLEMENT, view.settlements), (CITY, view.cities)):
        for v, q in pieces:
            board.buildings[bm.vertex_node[v]] = (colors[q], level)
    board.roads = {}
    for e, q in view.roads:
        a, b = bm.edge_pair[e]
        board.roads[(a, b)] = board.roads[(b, a)] = colors[q]
    board.board_buildable_ids = set(cmap.land_nodes)
    for node in board.buildings:
        board.board_buildable_ids.discard(node)
        for other in STATIC_GRAPH.neighbors(node):
            board.board_buildable_ids.discard(other)
    board.connected_components = defaultdict(list)
    for q, color in enumerate(colors):
        nodes = {x for e, o in view.roads if o == q for x in bm.edge_pair[e]}
        nodes |= {node for node, (c, _) in board.buildings.items() if c == color}
        board.connected_components[color] = _components(board, color, nodes)
    board.road_lengths = defaultdict(int, {colors[p.seat]: p.longest_road for p in view.seats})
    holder = next((p for p in view.seats if p.has_longest_road), None)
    board.road_color = None if holder is None else colors[holder.seat]
    board.road_length = 0 if holder is None else holder.longest_road
    board.robber_coordinate = bm.hex_coord[view.robber]

    state = State([], None, initialize=False)
    state.players = list(players)
    state.colors = colors
    state.color_to_index = {c: q for q, c in enumerate(colors)}
    state.board = board
    state.discard_limit = 7
    state.resource_freqdeck = to_freqdeck(view.bank)
    deck = [DEV_NAME[k] for k in range(len(sample.deck)) for _ in range(sample.deck[k])]
    rng.shuffle(deck)
    state.development_listdeck = deck
    rolled = _rolled(view)
    ps: dict[str, Any] = {}
    for q, p in enumerate(view.seats):
        key = f"P{q}_"
        for name, value in PLAYER_INITIAL_STATE.items():
            ps[key + name] = value
        hand = view.hand if q == me else sample.hands[q]
        development = view.development if q == me else sample.development[q]
        for r in range(N_RESOURCES):
            ps[f"{key}{RESOURCE_NAME[r]}_IN_HAND"] = hand[r]
        for k, name in enumerate(DEV_NAME):
            ps[f"{key}{name}_IN_HAND"] = development[k]
        vp_cards = development[DevCard.VICTORY_POINT]
        ps[key + "VICTORY_POINTS"] = p.points
        ps[key + "ACTUAL_VICTORY_POINTS"] = (
            view.own_points if q == me and view.own_points is not None else p.points + vp_cards
        )
        ps[key + "ROADS_AVAILABLE"] = p.roads_left
        ps[key + "SETTLEMENTS_AVAILABLE"] = p.settlements_left
        ps[key + "CITIES_AVAILABLE"] = p.cities_left
        ps[key + "HAS_ROAD"] = p.has_longest_road
        ps[key + "HAS_ARMY"] = p.has_largest_army
        ps[key + "HAS_ROLLED"] = q == view.current and rolled
        ps[key + "HAS_PLAYED_DEVELOPMENT_CARD_IN_TURN"] = q == view.current and (
            view.dev_card_played
        )
        ps[key + "LONGEST_ROAD_LENGTH"] = p.longest_road
        ps[key + "PLAYED_KNIGHT"] = p.knights
    state.player_state = ps

    by_color: dict[Color, defaultdict[str, list[Any]]] = {c: defaultdict(list) for c in colors}
    for v, q in view.settlements:
        by_color[colors[q]][SETTLEMENT].append(bm.vertex_node[v])
    for v, q in view.cities:
        by_color[colors[q]][CITY].append(bm.vertex_node[v])
    for e, q in view.roads:
        by_color[colors[q]][ROAD].append(bm.edge_pair[e])
    state.buildings_by_color = by_color
    state.actions = []
    state.num_turns = view.turn
    state.current_player_index = me
    state.current_turn_index = view.current
    state.is_initial_build_phase = view.phase in ("setup_settlement", "setup_road")
    state.is_discarding = view.phase == "discard"
    state.is_moving_knight = view.phase == "move_robber"
    state.is_road_building = view.phase == "road_building"
    state.free_roads_available = view.free_roads if state.is_road_building else 0
    state.current_prompt = {
        "setup_settlement": ActionPrompt.BUILD_INITIAL_SETTLEMENT,
        "setup_road": ActionPrompt.BUILD_INITIAL_ROAD,
        "discard": ActionPrompt.DISCARD,
        "move_robber": ActionPrompt.MOVE_ROBBER,
    }.get(view.phase, ActionPrompt.PLAY_TURN)
    if view.phase == "setup_road":  # the settlement the road must touch goes last
        roads = {x for e, o in view.roads if o == view.current for x in bm.edge_pair[e]}
        mine = by_color[colors[view.current]][SETTLEMENT]
        mine.sort(key=lambda node: node not in roads)
    state.playable_actions = []

    game = Game([], None, None, initialize=False)
    game.seed = 0
    game.id = f"hexhaven-{view.state_id}"
    game.vps_to_win = view.victory_points
    game.state = state
    return game


# --- actions ---------------------------------------------------------------------------------


def to_catan(action: ea.Action, colors: Sequence[Color] = COLORS) -> CAction | None:
    """``action`` in catanatron's form (None for domestic trade, which it does not have).
    Every discard is catanatron's one discard action."""
    bm = board_map()
    color = colors[action.seat]
    match action:
        case ea.PlaceSettlement(vertex=v) | ea.BuildSettlement(vertex=v):
            return CAction(color, ActionType.BUILD_SETTLEMENT, bm.vertex_node[v])
        case ea.PlaceRoad(edge=e) | ea.BuildRoad(edge=e):
            return CAction(color, ActionType.BUILD_ROAD, bm.edge_pair[e])
        case ea.BuildCity(vertex=v):
            return CAction(color, ActionType.BUILD_CITY, bm.vertex_node[v])
        case ea.RollDice():
            return CAction(color, ActionType.ROLL, None)
        case ea.Discard():
            return CAction(color, ActionType.DISCARD, None)
        case ea.MoveRobber(hex=h, victim=victim):
            robbed = None if victim is None else colors[victim]
            return CAction(color, ActionType.MOVE_ROBBER, (bm.hex_coord[h], robbed, None))
        case ea.BuyDevCard():
            return CAction(color, ActionType.BUY_DEVELOPMENT_CARD, None)
        case ea.PlayKnight():
            return CAction(color, ActionType.PLAY_KNIGHT_CARD, None)
        case ea.PlayRoadBuilding():
            return CAction(color, ActionType.PLAY_ROAD_BUILDING, None)
        case ea.PlayYearOfPlenty(cards=cards):
            names = sorted(
                (RESOURCE_NAME[r] for r in range(N_RESOURCES) for _ in range(cards[r])),
                key=_catan_order,
            )
            return CAction(color, ActionType.PLAY_YEAR_OF_PLENTY, tuple(names))
        case ea.PlayMonopoly(resource=r):
            return CAction(color, ActionType.PLAY_MONOPOLY, RESOURCE_NAME[r])
        case ea.MaritimeTrade(give=give, get=get, ratio=ratio):
            offer = [RESOURCE_NAME[give]] * ratio + [None] * (4 - ratio) + [RESOURCE_NAME[get]]
            return CAction(color, ActionType.MARITIME_TRADE, tuple(offer))
        case ea.EndTurn():
            return CAction(color, ActionType.END_TURN, None)
    return None


def _catan_order(name: str) -> int:
    return ("WOOD", "BRICK", "SHEEP", "WHEAT", "ORE").index(name)


def _random_discard(hand: Sequence[int], owed: int, seat: int, rng: random.Random) -> ea.Discard:
    """``owed`` cards of ``hand`` drawn uniformly, as catanatron discards."""
    cards = [r for r in range(N_RESOURCES) for _ in range(hand[r])]
    gone = rng.sample(cards, min(owed, len(cards)))
    return ea.Discard(seat, ea.counts_of(*gone))


# --- the agent -------------------------------------------------------------------------------


class CatanatronAgent(Agent):
    """A catanatron ``Player`` at a Hexhaven seat (see the module docstring).

    ``decisions``, ``seconds`` (spent rebuilding and deciding) and ``fallbacks`` (prompts
    answered with their first action because the player chose something else or failed)
    count what it did; ``last_game`` and ``last_sample`` are the rebuilt game and the guess
    behind the latest decision."""

    name = "catanatron"

    def __init__(self, player: str = DEFAULT_PLAYER, seed: int | None = None) -> None:
        self.player_class = load_player(player)
        self.player_path = SHIPPED_PLAYERS.get(player, player)
        self.seed = seed
        self.rng = random.Random(seed)
        self.tracker: HandTracker | None = None
        self.player: Player | None = None
        self.others: dict[int, Player] = {}
        self.decisions = 0
        self.seconds = 0.0
        self.fallbacks = 0
        self.last_game: Game | None = None
        self.last_sample: Sample | None = None
        self.log = structlog.get_logger("hexhaven.catanatron").bind(player=self.player_path)

    @classmethod
    def from_params(cls, params: Mapping[str, str], seed: int | None = None) -> CatanatronAgent:
        """An agent from ``name=value`` parameters: ``player`` (module:Class or a short name
        of :data:`SHIPPED_PLAYERS`; default weighted_random). Raises ValueError."""
        params = dict(params)
        player = params.pop("player", DEFAULT_PLAYER)
        if params:
            raise ValueError(
                f"the catanatron bot takes only player=module:Class, not {', '.join(params)}"
            )
        return cls(player, seed)

    # --- what the seat sees ------------------------------------------------------------------
    def on_seated(self, table: Table) -> None:
        if table.view is not None:
            check_game(view_to_engine(table.view))

    def on_event(self, event: Any, table: Table) -> None:
        self.tracker = track(self.tracker, event, table)

    def choose(self, prompt: m.Prompt, table: Table) -> Any:
        payload = prompt.view or table.view
        if payload is None or payload.seat is None:
            return prompt.actions[0]
        view = view_to_engine(payload)
        seat = payload.seat
        check_game(view)
        if self.tracker is None:
            self.tracker = HandTracker(view)
        else:
            self.tracker.resync(view)
        legal = [action_to_engine(a, seat) for a in prompt.actions]
        for kind in _TRADE_ANSWERS:  # domestic trade: catanatron's players never trade
            for action in legal:
                if isinstance(action, kind):
                    return action_from_engine(action)
        start = time.perf_counter()
        try:
            action = self.decide(view, seat, legal)
        finally:
            self.seconds += time.perf_counter() - start
            self.decisions += 1
        return action_from_engine(action)

    # --- deciding ----------------------------------------------------------------------------
    def decide(self, view: View, seat: int, legal: list[ea.Action]) -> ea.Action:
        """The player's choice among ``legal`` (the prompt's first action if it fails)."""
        assert self.tracker is not None and view.hand is not None
        options: dict[CAction, ea.Action] = {}
        for action in legal:
            catan = to_catan(action)
            if (
                catan is not None
                and isinstance(action, ea.MoveRobber)
                and action.victim is not None
                and not view.seats[action.victim].resource_cards
            ):
                # Robbing an opponent without cards takes nothing; catanatron, which lets
                # the robber name only opponents with cards, calls that robbing nobody.
                catan = CAction(catan.color, catan.action_type, (catan.value[0], None, None))
            if catan is not None:
                options.setdefault(catan, action)
        if not options:
            return legal[0]
        sample = self.tracker.sample(self.rng)
        game = rebuild_game(view, sample, self._players(view.players, seat), self.rng)
        playable = list(options)
        game.state.playable_actions = playable
        self.last_game, self.last_sample = game, sample
        if self.seed is not None:
            random.seed(self.rng.getrandbits(64))
        try:
            choice = self.player.decide(game, playable) if self.player else None
        except Exception as exc:
            if self.fallbacks == 0:  # the whole story once, then one line each time
                self.log.exception("catanatron.fallback", reason="the player raised", seat=seat)
            else:
                self.log.warning("catanatron.fallback", reason="the player raised", error=repr(exc))
            self.fallbacks += 1
            return legal[0]
        picked = options.get(choice) if isinstance(choice, CAction) else None
        if picked is None:
            self.log.warning(
                "catanatron.fallback", reason="not a playable action", choice=repr(choice)
            )
            self.fallbacks += 1
            return legal[0]
        if isinstance(picked, ea.Discard):
            return _random_discard(view.hand, view.seats[seat].discards_owed, seat, self.rng)
        return picked

    def _players(self, n: int, seat: int) -> list[Player]:
        """One catanatron player per seat: this agent's at ``seat``, catanatron's random
        player at the others (for players that play games out)."""
        if self.player is None:
            self.player = self.player_class(COLORS[seat])
        for q in range(n):
            if q != seat and q not in self.others:
                self.others[q] = RandomPlayer(COLORS[q])
        return [self.player if q == seat else self.others[q] for q in range(n)]
