"""Game configuration and the flat, cheaply copied game state."""

from __future__ import annotations

from dataclasses import dataclass
from enum import IntEnum
from typing import Final, Literal

from engine.board import Board, check_board, first_random_board, random_board, spiral_board
from engine.constants import (
    BANK_PER_RESOURCE,
    BANK_RATIO,
    CITIES_PER_PLAYER,
    DEFAULT_VICTORY_POINTS,
    DEV_DECK,
    DISCARD_LIMIT,
    HARBOUR_LAYOUT_EVEN,
    MAX_PLAYERS,
    MAX_VICTORY_POINTS,
    MIN_PLAYERS,
    MIN_VICTORY_POINTS,
    N_DEV_KINDS,
    N_RESOURCES,
    ROADS_PER_PLAYER,
    SETTLEMENTS_PER_PLAYER,
    SETUP_EDITION,
    SETUP_EDITION_FIRST,
    SETUP_EDITIONS,
    STANDARD_RADIUS,
    DevCard,
    Terrain,
)
from engine.errors import BoardError, ConfigError
from engine.rng import Rng, halves, seed_state, whole
from engine.tables import SeatActions, action_tables
from engine.topology import Topology

BoardSetup = Literal["random", "spiral", "explicit"]


class Phase(IntEnum):
    """What the game waits for."""

    SETUP_SETTLEMENT = 0
    SETUP_ROAD = 1
    PRE_ROLL = 2  # roll, or play a knight first
    DISCARD = 3  # seats owing discards after a seven
    MOVE_ROBBER = 4
    MAIN = 5  # build, trade, play a card, end the turn
    ROAD_BUILDING = 6  # free roads of a road building card
    TRADE = 7  # a domestic offer is open
    GAME_OVER = 8


class Answer(IntEnum):
    """A seat's answer to the open domestic offer."""

    NOT_ASKED = -1
    PENDING = 0
    ACCEPTED = 1
    DECLINED = 2
    COUNTERED = 3


@dataclass(frozen=True)
class GameConfig:
    """Everything that fixes a game's rules and board, apart from the seed.

    ``board_setup`` is ``"random"`` (the official random set-up), ``"spiral"`` (the rulebook's
    variable set-up) or ``"explicit"`` (``board`` given). ``setup_edition`` says how the
    generated set-ups deal the board (:data:`engine.constants.SETUP_EDITIONS`; the first for
    games stored before they followed the printed rulebook). Raises :class:`ConfigError`.
    """

    players: int = 4
    victory_points: int = DEFAULT_VICTORY_POINTS
    board_setup: BoardSetup = "random"
    radius: int = STANDARD_RADIUS
    board: Board | None = None
    discard_limit: int = DISCARD_LIMIT
    setup_edition: int = SETUP_EDITION

    def __post_init__(self) -> None:
        if not MIN_PLAYERS <= self.players <= MAX_PLAYERS:
            raise ConfigError(f"players must be {MIN_PLAYERS} to {MAX_PLAYERS}, not {self.players}")
        if not MIN_VICTORY_POINTS <= self.victory_points <= MAX_VICTORY_POINTS:
            raise ConfigError(
                f"victory points must be {MIN_VICTORY_POINTS} to {MAX_VICTORY_POINTS}, "
                f"not {self.victory_points}"
            )
        if self.board_setup not in ("random", "spiral", "explicit"):
            raise ConfigError(f"unknown board set-up {self.board_setup!r}")
        if self.radius < STANDARD_RADIUS:
            raise ConfigError(f"board radius must be at least {STANDARD_RADIUS}, not {self.radius}")
        if (self.board_setup == "explicit") != (self.board is not None):
            raise ConfigError("an explicit board set-up needs a board, and only it takes one")
        if self.board is not None and self.board.radius != self.radius:
            raise ConfigError(f"the board has radius {self.board.radius}, not {self.radius}")
        if self.board is not None:
            try:
                check_board(self.board)
            except BoardError as exc:
                raise ConfigError(f"the board is not a legal board: {exc}") from exc
        if self.discard_limit < 1:
            raise ConfigError("the discard limit must be at least 1")
        if self.setup_edition not in SETUP_EDITIONS:
            raise ConfigError(f"unknown set-up edition {self.setup_edition}")

    @classmethod
    def with_board(cls, board: Board, **options: int) -> GameConfig:
        """A configuration playing on a given board."""
        return cls(board_setup="explicit", board=board, radius=board.radius, **options)

    def make_board(self, seed: int) -> Board:
        """The board a game with this seed plays on."""
        if self.board is not None:
            return self.board
        rng = Rng(seed, stream=1)
        first = self.setup_edition == SETUP_EDITION_FIRST
        if self.board_setup == "spiral":
            if first:
                return spiral_board(rng, self.radius, harbour_layout=HARBOUR_LAYOUT_EVEN)
            return spiral_board(rng, self.radius)
        return first_random_board(rng, self.radius) if first else random_board(rng, self.radius)


_FIELDS: Final = (
    "actions_taken",
    "acts",
    "answers",
    "army_holder",
    "bank",
    "board",
    "cities_left",
    "config",
    "counters",
    "current",
    "deck",
    "dev",
    "dev_new",
    "dev_played",
    "dice",
    "eowner",
    "free_roads",
    "hand",
    "knights",
    "last_vertex",
    "longest_holder",
    "n",
    "offer",
    "owed",
    "pbuild",
    "phase",
    "proads",
    "ratio",
    "rng_hi",
    "rng_lo",
    "road_len",
    "roads_left",
    "robber",
    "rolled",
    "seed",
    "settlements_left",
    "setup_step",
    "topo",
    "turn",
    "vblocked",
    "vlevel",
    "vowner",
    "vp",
    "winner",
)
"""The fields of :class:`GameState`, named once for its slots and for :meth:`snapshot`."""
_COMPARED = tuple(f for f in _FIELDS if f not in ("config", "board", "topo", "acts"))
"""The fields :meth:`GameState.snapshot` compares (the shared, immutable ones left out)."""
_NESTED = frozenset({"proads", "pbuild"})
"""The fields that are lists of lists."""


class GameState:
    """The whole state of one game, flat: ints and lists of ints.

    Seats' hands and development cards are count vectors laid end to end (``hand[seat * 5 +
    resource]``). Mutate it only through :func:`engine.rules.apply`; read it freely. The board
    and config are shared by copies; :meth:`copy` duplicates the rest.
    """

    __slots__ = _FIELDS

    config: GameConfig
    board: Board
    topo: Topology
    acts: tuple[SeatActions, ...]  # the interned actions of each seat
    n: int
    seed: int
    rng_hi: int  # the RNG's state (engine.rng): its high 32 bits
    rng_lo: int  # and its low 32 bits
    vowner: list[int]  # seat owning a building on each vertex, -1 for none
    vlevel: list[int]  # 0 empty, 1 settlement, 2 city
    vblocked: list[int]  # buildings on or next to a vertex (distance rule)
    eowner: list[int]  # seat owning a road on each edge, -1 for none
    proads: list[list[int]]  # each seat's roads
    pbuild: list[list[int]]  # each seat's building vertices
    hand: list[int]  # n x 5 resource counts
    bank: list[int]
    deck: list[int]  # development cards not yet drawn, by kind
    dev: list[int]  # n x 5 development cards held (including bought this turn)
    dev_new: list[int]  # development cards the current seat bought this turn, by kind
    knights: list[int]
    roads_left: list[int]
    settlements_left: list[int]
    cities_left: list[int]
    ratio: list[int]  # n x 5 best maritime ratio per resource
    vp: list[int]  # public victory points (buildings, longest road, largest army)
    road_len: list[int]  # each seat's longest road
    longest_holder: int
    army_holder: int
    robber: int
    phase: int
    current: int
    setup_step: int
    last_vertex: int  # set-up: the settlement the next road must touch
    rolled: bool
    dev_played: bool
    owed: list[int]  # discards owed per seat
    free_roads: int
    offer: tuple[tuple[int, ...], tuple[int, ...]] | None  # (give, get) of the open offer
    answers: list[int]  # Answer per seat for the open offer
    counters: list[tuple[tuple[int, ...], tuple[int, ...]] | None]
    dice: tuple[int, int] | None
    turn: int
    winner: int
    actions_taken: int

    def copy(self) -> GameState:
        """An independent copy sharing the immutable board and config."""
        c = GameState.__new__(GameState)
        c.config = self.config
        c.board = self.board
        c.topo = self.topo
        c.acts = self.acts
        c.n = self.n
        c.seed = self.seed
        c.rng_hi = self.rng_hi
        c.rng_lo = self.rng_lo
        c.vowner = self.vowner[:]
        c.vlevel = self.vlevel[:]
        c.vblocked = self.vblocked[:]
        c.eowner = self.eowner[:]
        c.proads = [r[:] for r in self.proads]
        c.pbuild = [b[:] for b in self.pbuild]
        c.hand = self.hand[:]
        c.bank = self.bank[:]
        c.deck = self.deck[:]
        c.dev = self.dev[:]
        c.dev_new = self.dev_new[:]
        c.knights = self.knights[:]
        c.roads_left = self.roads_left[:]
        c.settlements_left = self.settlements_left[:]
        c.cities_left = self.cities_left[:]
        c.ratio = self.ratio[:]
        c.vp = self.vp[:]
        c.road_len = self.road_len[:]
        c.longest_holder = self.longest_holder
        c.army_holder = self.army_holder
        c.robber = self.robber
        c.phase = self.phase
        c.current = self.current
        c.setup_step = self.setup_step
        c.last_vertex = self.last_vertex
        c.rolled = self.rolled
        c.dev_played = self.dev_played
        c.owed = self.owed[:]
        c.free_roads = self.free_roads
        c.offer = self.offer
        c.answers = self.answers[:]
        c.counters = self.counters[:]
        c.dice = self.dice
        c.turn = self.turn
        c.winner = self.winner
        c.actions_taken = self.actions_taken
        return c

    def snapshot(self) -> tuple[object, ...]:
        """Every field as a comparable value (for tests and replay checks)."""
        out: list[object] = []
        for name in _COMPARED:
            v = getattr(self, name)
            if name in _NESTED:
                v = tuple(map(tuple, v))
            elif isinstance(v, list):
                v = tuple(v)
            out.append(v)
        return tuple(out)

    @property
    def rng(self) -> int:
        """The state of the game's RNG (:mod:`engine.rng`), a 64-bit int."""
        return whole(self.rng_hi, self.rng_lo)

    @rng.setter
    def rng(self, value: int) -> None:
        self.rng_hi, self.rng_lo = halves(value)

    # --- derived facts ------------------------------------------------------------------
    def hand_of(self, seat: int) -> tuple[int, ...]:
        """A seat's resource counts."""
        return tuple(self.hand[seat * N_RESOURCES : seat * N_RESOURCES + N_RESOURCES])

    def hand_size(self, seat: int) -> int:
        return sum(self.hand[seat * N_RESOURCES : seat * N_RESOURCES + N_RESOURCES])

    def dev_of(self, seat: int) -> tuple[int, ...]:
        """A seat's development cards held, by kind."""
        return tuple(self.dev[seat * N_DEV_KINDS : seat * N_DEV_KINDS + N_DEV_KINDS])

    def victory_points(self, seat: int) -> int:
        """A seat's points, hidden victory cards included."""
        return self.vp[seat] + self.dev[seat * N_DEV_KINDS + DevCard.VICTORY_POINT]

    @property
    def is_over(self) -> bool:
        return self.phase == Phase.GAME_OVER


def new_game(config: GameConfig, seed: int) -> GameState:
    """A game at its first set-up placement. The seed fixes the board (unless explicit),
    the dice and every other chance of the game."""
    try:
        board = config.make_board(seed)
    except BoardError as exc:  # pragma: no cover - generators only yield legal boards
        raise ConfigError(str(exc)) from exc
    return empty_state(config, board, seed)


def empty_state(config: GameConfig, board: Board, seed: int) -> GameState:
    """A game of ``config`` on ``board`` with nothing placed yet: every piece and card in
    the supply, the robber on the desert, the first seat to place its first settlement and
    the chances to come drawn from ``seed``. :func:`new_game`, the rebuild from a view and
    the position notation all start from it."""
    topo = board.topo
    n = config.players
    s = GameState.__new__(GameState)
    s.config = config
    s.board = board
    s.topo = topo
    s.acts = action_tables(topo.radius)
    s.n = n
    s.seed = seed
    s.rng = seed_state(seed, stream=2)
    s.vowner = [-1] * topo.n_vertices
    s.vlevel = [0] * topo.n_vertices
    s.vblocked = [0] * topo.n_vertices
    s.eowner = [-1] * topo.n_edges
    s.proads = [[] for _ in range(n)]
    s.pbuild = [[] for _ in range(n)]
    s.hand = [0] * (n * N_RESOURCES)
    s.bank = [BANK_PER_RESOURCE] * N_RESOURCES
    s.deck = list(DEV_DECK)
    s.dev = [0] * (n * N_DEV_KINDS)
    s.dev_new = [0] * N_DEV_KINDS
    s.knights = [0] * n
    s.roads_left = [ROADS_PER_PLAYER] * n
    s.settlements_left = [SETTLEMENTS_PER_PLAYER] * n
    s.cities_left = [CITIES_PER_PLAYER] * n
    s.ratio = [BANK_RATIO] * (n * N_RESOURCES)
    s.vp = [0] * n
    s.road_len = [0] * n
    s.longest_holder = -1
    s.army_holder = -1
    deserts = [h for h, t in enumerate(board.terrain) if t == Terrain.DESERT]
    s.robber = deserts[0] if deserts else -1
    s.phase = Phase.SETUP_SETTLEMENT
    s.current = 0
    s.setup_step = 0
    s.last_vertex = -1
    s.rolled = False
    s.dev_played = False
    s.owed = [0] * n
    s.free_roads = 0
    s.offer = None
    s.answers = [Answer.NOT_ASKED] * n
    s.counters = [None] * n
    s.dice = None
    s.turn = 0
    s.winner = -1
    s.actions_taken = 0
    return s
