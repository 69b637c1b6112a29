"""Rollouts draw their random choices as ``random.Random.choice`` does, in both builds; the
set-up by the ``heuristic`` player's rules at engine level."""

from __future__ import annotations

import random

import pytest
from hypothesis import given
from hypothesis import strategies as st

from bots.heuristic import HeuristicAgent
from bots.playout import choice, resource_dots, road_reach, rollout, setup_move, spot_worth
from clients.sdk import Table
from engine import (
    EndTurn,
    GameConfig,
    Phase,
    PlaceRoad,
    PlaceSettlement,
    apply,
    new_game,
)
from engine.actions import Action
from engine.constants import DICE_DOTS, HARBOUR_GENERIC
from protocol.payloads import action_to_engine
from tests.bots.prompts import prompt_for
from tests.engine.positions import assert_conserved, config, setup_game


@given(seed=st.integers(0, 2**64), size=st.integers(1, 300), draws=st.integers(1, 5))
def test_choice_draws_what_random_choice_draws(seed: int, size: int, draws: int) -> None:
    items: list[Action] = [EndTurn(seat) for seat in range(size)]
    ours = random.Random(seed)
    theirs = random.Random(seed)
    for _ in range(draws):
        assert choice(ours, items) is theirs.choice(items)
    assert ours.getstate() == theirs.getstate()


def test_choice_from_nothing_is_an_index_error() -> None:
    rnd = random.Random(1)
    before = rnd.getstate()
    with pytest.raises(IndexError):
        choice(rnd, [])
    assert rnd.getstate() == before


def test_a_rollout_is_a_function_of_its_seed() -> None:
    for seed in range(3):
        ends = []
        for _ in range(2):
            state = setup_game(config(), seed)
            rnd = random.Random(seed)
            state.rng = rnd.getrandbits(64)
            winner = rollout(state, rnd, prune=True)
            assert winner == state.winner and state.is_over
            assert_conserved(state)
            ends.append((winner, state.actions_taken, tuple(state.hand), rnd.random()))
        assert ends[0] == ends[1]


@pytest.mark.parametrize(("players", "seed"), [(4, 0), (4, 5), (3, 11), (2, 3)])
def test_setup_move_places_as_the_heuristic_player_does(players: int, seed: int) -> None:
    state = new_game(GameConfig(players=players), seed)
    heuristic = HeuristicAgent(seed)
    rnd = random.Random(seed)
    while state.phase in (Phase.SETUP_SETTLEMENT, Phase.SETUP_ROAD):
        seat = state.current
        ours = setup_move(state, rnd)
        prompt = prompt_for(state, seat)
        theirs = action_to_engine(heuristic.choose(prompt, Table(game="t", seat=seat)), seat)
        if isinstance(ours, PlaceSettlement):
            assert ours == theirs
        else:  # roads tie often and both break ties at random: the same reach will do
            assert isinstance(ours, PlaceRoad) and isinstance(theirs, PlaceRoad)
            dots = resource_dots(state, seat)
            assert road_reach(state, dots, ours.edge) == road_reach(state, dots, theirs.edge)
        apply(state, theirs)
    assert state.phase == Phase.PRE_ROLL


def test_spot_worth_counts_dots_new_resources_and_harbours() -> None:
    state = new_game(GameConfig(), 2)
    topo, board = state.topo, state.board
    harboured = [v for v in range(topo.n_vertices) if board.vertex_harbour[v] >= 0]
    assert harboured
    for v in range(topo.n_vertices):
        hexes = [h for h in topo.vertex_hexes[v] if board.terrain[h] < 5]
        kinds = {board.terrain[h] for h in hexes}
        dots = sum(DICE_DOTS.get(board.tokens[h], 0) for h in hexes)
        generic = 1.5 if board.vertex_harbour[v] == HARBOUR_GENERIC else 0.0
        assert spot_worth(state, [0] * 5, v) == dots + 2.5 * len(kinds) + generic
        # a seat already making every resource gains no variety, but a 2:1 harbour pays
        rich = [9] * 5
        specific = 2.5 if 0 <= board.vertex_harbour[v] < 5 else 0.0
        assert spot_worth(state, rich, v) == dots + generic + specific
