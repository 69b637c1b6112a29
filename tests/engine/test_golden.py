"""Golden counts ("perft" for this game): how many actions ``legal_actions`` lists in fixed
positions, and how many leaf positions a few plies of listed actions reach.

The set-up counts follow from the board's graph and are derived here; the deeper counts
are recorded regression values. A deterministic walk reaches each position: it sorts the
listed actions into a canonical order (so the walk does not depend on the order in which
``legal_actions`` happens to list them) and takes a fixed pattern of indices, or takes
``default_action``. Chance (dice, steals, draws) comes from the game's seeded RNG, so a
walk is the same on every run.
"""

from __future__ import annotations

from dataclasses import astuple

import pytest

from engine import (
    Action,
    GameConfig,
    GameState,
    Phase,
    PlaceRoad,
    PlaceSettlement,
    apply,
    default_action,
    legal_actions,
    new_game,
    seats_to_act,
    topology,
)


def _flat(value: object) -> tuple[int, ...]:
    if value is None:
        return (-1,)
    if isinstance(value, tuple):
        return tuple(x for v in value for x in _flat(v))
    assert isinstance(value, int)
    return (int(value),)


def canonical(actions: list[Action]) -> list[Action]:
    """The actions sorted by type name, then by their fields as ints."""
    return sorted(actions, key=lambda a: (type(a).__name__, _flat(astuple(a))))


def pattern_walk(config: GameConfig, seed: int, steps: int) -> tuple[GameState, list[int]]:
    """Play ``steps`` actions, taking ``canonical(legal_actions)[(7 * i + 3) % len]`` at step
    ``i``; returns the state reached and the number of listed actions at each step."""
    state = new_game(config, seed)
    counts = []
    for i in range(steps):
        actions = canonical(legal_actions(state))
        counts.append(len(actions))
        if not actions:
            break
        apply(state, actions[(7 * i + 3) % len(actions)])
    return state, counts


def default_walk(config: GameConfig, seed: int, steps: int) -> tuple[GameState, list[int]]:
    """Play ``steps`` actions, each ``default_action`` of the first seat to act."""
    state = new_game(config, seed)
    counts = []
    for _ in range(steps):
        counts.append(len(legal_actions(state)))
        if state.is_over:
            break
        apply(state, default_action(state, seats_to_act(state)[0]))
    return state, counts


def perft(state: GameState, depth: int) -> int:
    """Leaf positions after ``depth`` plies of listed actions (the last ply counted, not
    played). Chance outcomes follow the state's own RNG, so each action has one outcome."""
    actions = legal_actions(state)
    if depth == 1:
        return len(actions)
    total = 0
    for a in actions:
        child = state.copy()
        apply(child, a)
        total += perft(child, depth - 1) if not child.is_over else 0
    return total


# ======================================================================================
# Derived by reasoning from the board's graph
# ======================================================================================


def degrees(radius: int) -> list[int]:
    return [len(vs) for vs in topology(radius).vertex_vertices]


@pytest.mark.parametrize("radius", [3, 4])
def test_board_graph_sizes(radius: int) -> None:
    # 6R^2 intersections and 9R^2 - 3R paths; the 6R coastal corners meet two paths, every
    # other intersection three.
    deg = degrees(radius)
    assert len(deg) == 6 * radius**2
    assert sum(deg) == 2 * (9 * radius**2 - 3 * radius)
    assert deg.count(2) == 6 * radius
    assert deg.count(3) == len(deg) - 6 * radius


def test_setup_perft_from_the_start_standard_board() -> None:
    state = new_game(GameConfig(players=4), seed=1)
    # Ply 1: any of the 54 intersections.
    assert perft(state, 1) == 54
    # Ply 2: a road on any path from the settlement: the sum of the degrees, twice the 72
    # paths.
    assert perft(state, 2) == 2 * 72 == 144
    # Ply 3: the next seat may settle anywhere but the settlement and its neighbours:
    # sum over v of deg(v) * (54 - 1 - deg(v)) = 18 * 2 * 51 + 36 * 3 * 50.
    deg = degrees(3)
    assert perft(state, 3) == sum(d * (53 - d) for d in deg) == 18 * 2 * 51 + 36 * 3 * 50
    # Ply 4: a road from the second settlement w; all of w's paths are free (the first
    # road ends next to v, and w is not next to v).
    vv = topology(3).vertex_vertices
    ply4 = sum(
        deg[v] * sum(deg[w] for w in range(54) if w != v and w not in vv[v]) for v in range(54)
    )
    assert perft(state, 4) == ply4 == 19_248


@pytest.mark.parametrize("players", [2, 3])
def test_setup_perft_radius_four(players: int) -> None:
    state = new_game(GameConfig(players=players, radius=4, board_setup="spiral"), seed=3)
    deg = degrees(4)
    assert perft(state, 1) == 96
    assert perft(state, 2) == 2 * 132
    assert perft(state, 3) == sum(d * (95 - d) for d in deg)


def _free_spots(state: GameState) -> int:
    """Intersections with no building on or next to them, from the board alone."""
    vv = state.topo.vertex_vertices
    return sum(
        1
        for v in range(state.topo.n_vertices)
        if state.vowner[v] < 0 and all(state.vowner[w] < 0 for w in vv[v])
    )


@pytest.mark.parametrize("seed", [1, 2, 3])
@pytest.mark.parametrize("players", [2, 3, 4])
def test_setup_counts_follow_the_distance_rule(seed: int, players: int) -> None:
    """Through the whole set-up of the pattern walk: every settlement count is the number
    of intersections clear of buildings, every road count the settlement's free paths; the
    snake order holds; the first turn offers only the roll."""
    state = new_game(GameConfig(players=players), seed)
    order = [*range(players), *reversed(range(players))]
    topo = state.topo
    for i in range(4 * players):
        actions = canonical(legal_actions(state))
        if i % 2 == 0:
            assert state.phase == Phase.SETUP_SETTLEMENT
            assert len(actions) == _free_spots(state)
            assert all(isinstance(a, PlaceSettlement) for a in actions)
        else:
            assert state.phase == Phase.SETUP_ROAD
            v = state.last_vertex
            free = [e for e in topo.vertex_edges[v] if state.eowner[e] < 0]
            assert len(actions) == len(free)
            assert len(actions) == len(topo.vertex_vertices[v])  # nothing touches it yet
            assert all(isinstance(a, PlaceRoad) for a in actions)
        assert {a.seat for a in actions} == {order[i // 2]}
        apply(state, actions[(7 * i + 3) % len(actions)])
    assert state.phase == Phase.PRE_ROLL and state.current == 0 and state.turn == 1
    assert len(legal_actions(state)) == 1  # the roll; nobody holds a knight yet
    # 2 settlements and 2 roads each: 54 - clear spots; every seat has its second
    # settlement's starting cards.
    assert [len(b) for b in state.pbuild] == [2] * players
    assert [len(r) for r in state.proads] == [2] * players


def test_first_settlement_then_road_then_next_seat() -> None:
    """The brief's hand-derived start: 54 spots; after a settlement on a three-path
    intersection, 3 roads; then 54 - 4 = 50 spots for the next seat. On a two-path coastal
    corner: 2 roads and 51 spots."""
    deg = degrees(3)
    inner = deg.index(3)
    corner = deg.index(2)
    for v, roads, spots in ((inner, 3, 50), (corner, 2, 51)):
        state = new_game(GameConfig(players=3), seed=2)
        assert len(legal_actions(state)) == 54
        apply(state, PlaceSettlement(0, v))
        assert len(legal_actions(state)) == roads
        apply(state, legal_actions(state)[0])
        assert state.current == 1
        assert len(legal_actions(state)) == spots


# ======================================================================================
# Recorded regression values
# ======================================================================================

# Recorded regression values (perft): the number of listed actions at each of the first
# 160 steps of the pattern walk (canonical order, index (7 * i + 3) % len at step i) of a
# 4-player standard game with random set-up, seeds 1, 2 and 3.
PATTERN_COUNTS = {
    1: (
        "54 3 50 3 46 2 43 3 41 3 37 2 34 2 31 3 1 19 2 1 1 1 1 1 1 1 19 6 1 1 1 1 1 1 1 6 "
        "1 6 2 1 9 5 1 20 1 1 19 1 1 19 2 1 5 1 1 1 1 1 1 8 5 1 1 20 5 1 1 5 1 1 5 1 1 5 2 "
        "1 8 1 20 1 1 1 1 6 2 1 16 12 5 1 1 1 1 1 1 6 2 1 1 1 5 2 1 1 1 1 2 1 1 6 1 5 1 1 1 "
        "5 1 1 20 1 1 20 7 6 1 1 1 1 1 1 5 1 1 5 1 1 1 1 9 11 7 8 1 1 1 1 1 1 1 1 19 2 2 1 "
        "1 1 1 1 19 7"
    ),
    2: (
        "54 3 50 3 46 2 43 3 41 3 37 2 34 2 31 3 1 1 1 1 1 1 1 19 1 1 5 1 1 1 1 1 12 2 1 1 "
        "5 1 1 1 1 1 2 2 2 1 19 1 1 5 1 1 5 1 1 1 1 5 8 1 1 1 1 5 2 1 20 1 1 1 1 1 1 2 1 1 "
        "5 1 14 1 1 5 2 6 2 20 1 1 5 1 1 9 5 10 1 1 5 1 5 1 1 3 2 2 2 20 1 1 19 1 1 5 1 1 1 "
        "1 1 1 1 9 6 1 1 1 1 1 1 18 1 1 5 1 1 1 1 5 1 1 19 5 12 1 1 1 1 1 4 4 4 3 3 19 1 1 "
        "1 1 1 1 1 1"
    ),
    3: (
        "54 3 50 3 46 2 43 3 41 3 37 2 34 2 31 3 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 8 1 "
        "1 19 1 1 5 1 19 1 1 19 1 1 5 6 1 19 5 5 8 1 1 1 1 20 1 1 20 6 1 1 1 1 1 1 20 1 1 1 "
        "1 1 1 5 1 1 5 1 5 1 1 1 1 4 4 4 3 19 1 1 5 1 1 1 1 1 1 1 1 1 1 1 1 2 1 5 1 1 1 1 "
        "20 5 1 6 1 19 5 1 1 1 5 1 1 3 3 3 3 19 6 1 1 5 1 20 1 1 1 1 2 1 1 5 1 1 1 1 2 19 1 "
        "1 1 6 6 6 6"
    ),
}

# Recorded regression values (perft): listed actions at each of the first 100 steps of
# the default-action walk (default_action of the first seat to act), 3 players, spiral
# set-up, seeds 1, 2 and 3.
DEFAULT_COUNTS = {
    1: (
        "54 3 50 3 46 3 43 3 39 3 35 3 1 19 1 1 1 1 1 1 5 1 19 1 1 1 1 5 1 1 1 1 1 9 1 8 "
        "5 19 2 1 20 1 1 1 1 2 1 1 1 3 19 3 1 2 1 1 1 7 1 3 19 6 1 1 1 1 1 13 1 7 1 3 1 "
        "13 1 18 1 3 1 13 1 22 1 7 1 17 1 23 1 11 1 17 1 13 10 5 20 11 1 10"
    ),
    2: (
        "54 3 50 3 46 3 42 3 38 3 35 3 1 1 1 9 1 13 1 19 2 1 1 1 13 1 13 1 1 1 13 1 13 1 "
        "9 1 14 1 14 9 5 19 9 1 9 1 2 1 9 1 9 1 2 1 9 4 19 9 1 11 1 10 1 9 1 9 4 18 9 1 "
        "10 1 1 1 15 1 10 1 1 1 15 1 10 1 9 5 19 2 1 18 9 1 2 1 2 1 9 1 14 1"
    ),
    3: (
        "54 3 50 3 46 3 42 3 38 3 35 3 1 6 1 2 1 1 1 6 1 6 1 13 1 10 1 6 1 13 1 11 1 11 6 "
        "3 18 2 1 9 1 19 7 1 18 2 1 18 9 1 7 1 3 18 8 1 9 1 7 1 12 1 3 18 9 1 7 1 2 1 13 "
        "1 7 1 2 1 21 1 9 4 19 7 1 6 1 9 1 9 1 6 1 13 1 9 1 12 1 13 1 12"
    ),
}

# Recorded regression values (perft): leaf positions after 1 to 5 plies of listed actions
# from the position the pattern walk of a 4-player random-set-up game (seed, as above)
# reaches after `steps` steps; the phase of that position in the comment.
PERFT_FROM_WALK: list[tuple[int, int, tuple[int, ...]]] = [
    (1, 16, (1, 19, 21, 21, 21)),  # PRE_ROLL
    (1, 90, (1, 1, 1, 1, 1)),  # PRE_ROLL
    (1, 140, (7, 47, 47, 47, 47)),  # MAIN
    (2, 62, (1, 5, 13, 32, 108)),  # PRE_ROLL
    (2, 147, (4, 14, 44, 128, 2432)),  # DISCARD
    (3, 46, (19, 19, 19, 244, 925)),  # MOVE_ROBBER
    (3, 241, (1, 1, 1, 1, 19)),  # MAIN
]


@pytest.mark.parametrize("seed", sorted(PATTERN_COUNTS))
def test_pattern_walk_counts(seed: int) -> None:
    _, counts = pattern_walk(GameConfig(players=4), seed, 160)
    assert " ".join(map(str, counts)) == PATTERN_COUNTS[seed]


@pytest.mark.parametrize("seed", sorted(DEFAULT_COUNTS))
def test_default_walk_counts(seed: int) -> None:
    _, counts = default_walk(GameConfig(players=3, board_setup="spiral"), seed, 100)
    assert " ".join(map(str, counts)) == DEFAULT_COUNTS[seed]


@pytest.mark.parametrize(("seed", "steps", "expected"), PERFT_FROM_WALK)
def test_perft_from_walk_positions(seed: int, steps: int, expected: tuple[int, ...]) -> None:
    state, _ = pattern_walk(GameConfig(players=4), seed, steps)
    assert tuple(perft(state, d) for d in range(1, 6)) == expected
