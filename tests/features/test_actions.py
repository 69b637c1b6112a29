"""The action index: every legal action has an index that decodes to it, and the mask is
exactly the legal indices, from the state or from what a prompt tells an agent."""

from __future__ import annotations

import pytest

from engine import EngineError, GameState, is_legal, legal_actions
from engine.state import Answer
from features import action_index
from tests.features.play import positions


def _legal_indices(state: GameState, seat: int) -> list[int]:
    """Every index whose action the engine accepts for ``seat`` now, asked one by one."""
    index = action_index(state.board.radius, state.n)
    out = []
    for i in range(index.size):
        try:
            action = index.state_action(state, seat, i)
        except (ValueError, EngineError):
            continue
        if is_legal(state, action):
            out.append(i)
    return out


@pytest.mark.parametrize("players", [2, 3, 4])
def test_masks_are_the_engines_legal_actions_in_random_positions(players: int) -> None:
    index = action_index(3, players)
    checked = 0
    kinds: set[str] = set()
    for k, (state, seat) in enumerate(positions(players, seed=20 + players, games=2)):
        if k % 6:
            continue
        q = seat if k % 12 else (seat + 1) % players  # now and then a seat not to act
        mask = index.mask(state, q)
        legal = _legal_indices(state, q)
        assert [i for i, bit in enumerate(mask) if bit] == legal, (state.actions_taken, q)
        kinds.update(index.kind(i) for i in legal)
        checked += 1
    assert checked >= 334  # 1,000 and more over the three player counts
    assert {"settlement", "road", "roll", "robber", "end_turn", "offer", "maritime"} <= kinds


@pytest.mark.parametrize("players", [2, 3, 4])
def test_every_legal_action_round_trips_through_its_index(players: int) -> None:
    index = action_index(3, players)
    for state, seat in positions(players, seed=30 + players):
        for action in legal_actions(state, seat):
            i = index.index_of(action, seat)
            assert i is not None, action
            assert index.state_action(state, seat, i) == action


@pytest.mark.parametrize("players", [2, 4])
def test_a_prompts_mask_equals_the_states(players: int) -> None:
    index = action_index(3, players)
    for k, (state, seat) in enumerate(positions(players, seed=40 + players)):
        if k % 5:
            continue
        hand = state.hand[seat * 5 : seat * 5 + 5]
        pending = state.answers[seat] == Answer.PENDING
        told = index.mask_of(legal_actions(state, seat), seat, state.phase, hand, pending)
        assert list(told) == list(index.mask(state, seat)), state.actions_taken


def test_ranges_tile_the_index_and_bad_indices_are_refused() -> None:
    index = action_index(3, 4)
    starts = sorted(index.start.values())
    assert starts[0] == 0
    assert [index.kind(i) for i in starts] == sorted(index.start, key=index.start.__getitem__)
    assert index.kind(index.size - 1) == "end_turn"
    with pytest.raises(ValueError, match="outside"):
        index.action(index.size, 0, "main", [4] * 5)
    with pytest.raises(ValueError, match="outside"):
        index.action(-1, 0, "main", [4] * 5)
