"""Every rule number of the base game, and the small enums the engine is written in.

Nothing else in the engine spells a cost, a limit or a count: it reads them from here.
"""

from __future__ import annotations

from enum import IntEnum
from typing import Final

Seat = int
"""A player's seat, 0 .. players-1; turn order is seat order."""
HexId = int
VertexId = int
EdgeId = int


class Resource(IntEnum):
    """The five resources; the value is the index into every count vector."""

    BRICK = 0
    LUMBER = 1
    WOOL = 2
    GRAIN = 3
    ORE = 4


RESOURCES: Final = tuple(Resource)
N_RESOURCES: Final = 5


class Terrain(IntEnum):
    """Land hexes. The five producing terrains share their value with the resource they yield."""

    HILLS = 0  # brick
    FOREST = 1  # lumber
    PASTURE = 2  # wool
    FIELDS = 3  # grain
    MOUNTAINS = 4  # ore
    DESERT = 5


class DevCard(IntEnum):
    """Development cards; the value is the index into development-card count vectors."""

    KNIGHT = 0
    VICTORY_POINT = 1
    ROAD_BUILDING = 2
    YEAR_OF_PLENTY = 3
    MONOPOLY = 4


N_DEV_KINDS: Final = 5


class Award(IntEnum):
    """The two cards worth points to whoever holds them (:data:`SPECIAL_CARD_POINTS`)."""

    LONGEST_ROAD = 0
    LARGEST_ARMY = 1


HARBOUR_GENERIC: Final = 5
"""Harbour kind of a 3:1 harbour; kinds 0-4 are the 2:1 harbours of that resource."""

# --- the bank and the deck -------------------------------------------------------------
BANK_PER_RESOURCE: Final = 19
DEV_DECK: Final = (14, 5, 2, 2, 2)  # knights, victory points, road building, plenty, monopoly

# --- costs, as count vectors (brick, lumber, wool, grain, ore) ---------------------------
ROAD_COST: Final = (1, 1, 0, 0, 0)
SETTLEMENT_COST: Final = (1, 1, 1, 1, 0)
CITY_COST: Final = (0, 0, 0, 2, 3)
DEV_CARD_COST: Final = (0, 0, 1, 1, 1)

# --- pieces per player ---------------------------------------------------------------------
ROADS_PER_PLAYER: Final = 15
SETTLEMENTS_PER_PLAYER: Final = 5
CITIES_PER_PLAYER: Final = 4

# --- points and thresholds -----------------------------------------------------------------
DEFAULT_VICTORY_POINTS: Final = 10
MIN_VICTORY_POINTS: Final = 3
MAX_VICTORY_POINTS: Final = 20
LONGEST_ROAD_MIN: Final = 5
LARGEST_ARMY_MIN: Final = 3
SPECIAL_CARD_POINTS: Final = 2
DISCARD_LIMIT: Final = 7
MAX_ACTIONS: Final = 20_000
"""Where a game nobody can win ends without a winner (a high victory-point target with four
players can leave every seat short of it with no spot left to build): local play and the
server stop there. Games played to a win take a few hundred to a few thousand actions."""
"""A seven makes every player holding more than this many cards discard half (rounded down)."""
ROAD_BUILDING_ROADS: Final = 2
YEAR_OF_PLENTY_CARDS: Final = 2

MIN_PLAYERS: Final = 2
MAX_PLAYERS: Final = 4

# --- trade ratios -----------------------------------------------------------------------------
BANK_RATIO: Final = 4
GENERIC_HARBOUR_RATIO: Final = 3
RESOURCE_HARBOUR_RATIO: Final = 2

# --- the standard island (radius 3) -------------------------------------------------------------
STANDARD_RADIUS: Final = 3
STANDARD_TERRAIN: Final = {
    Terrain.HILLS: 3,
    Terrain.FOREST: 4,
    Terrain.PASTURE: 4,
    Terrain.FIELDS: 4,
    Terrain.MOUNTAINS: 3,
    Terrain.DESERT: 1,
}
STANDARD_TOKENS: Final = (2, 3, 3, 4, 4, 5, 5, 6, 6, 8, 8, 9, 9, 10, 10, 11, 11, 12)
SPIRAL_TOKENS: Final = (5, 2, 6, 3, 8, 10, 9, 12, 11, 4, 8, 10, 9, 4, 5, 6, 3, 11)
"""The rulebook's variable set-up: tokens laid in this order along the spiral, desert skipped."""
HARBOUR_VERTEX_RATIO: Final = 0.6
"""Thesis 4.3.8: the share of coastal intersections that touch a harbour."""
HARBOUR_LAYOUT_EVEN: Final = 1
"""The first harbour layout: slots evenly spaced round the coast from its first edge past
due east (games stored before harbours lay on the printed frame use it)."""
HARBOUR_LAYOUT_FRAME: Final = 2
"""The printed frame's harbour slots, spread the same way round larger islands."""
HARBOUR_LAYOUTS: Final = (HARBOUR_LAYOUT_EVEN, HARBOUR_LAYOUT_FRAME)
HARBOUR_LAYOUT: Final = HARBOUR_LAYOUT_FRAME
"""The harbour layout of new boards."""
SETUP_EDITION_FIRST: Final = 1
"""The first edition of the generated set-ups: the random set-up lays the 6s and 8s first-fit
on shuffled hexes, and both set-ups put the harbours on the evenly spaced slots (games stored
before the set-ups followed the printed rulebook use it)."""
SETUP_EDITION: Final = 2
"""The edition of the generated set-ups of new games: numbers drawn uniformly over the legal
layouts, harbours on the printed frame's slots."""
SETUP_EDITIONS: Final = (SETUP_EDITION_FIRST, SETUP_EDITION)

RED_TOKENS: Final = (6, 8)
"""The most likely numbers, which may not lie on neighbouring hexes."""

DICE_DOTS: Final = {2: 1, 3: 2, 4: 3, 5: 4, 6: 5, 7: 6, 8: 5, 9: 4, 10: 3, 11: 2, 12: 1}
"""Ways to roll each total with two dice, out of 36 (the dots printed on a token)."""
