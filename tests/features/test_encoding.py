"""The encoding of a seat's view: both writers agree, every entry stays in its block's
bounds, and nothing the seat cannot see changes it."""

from __future__ import annotations

import random

import numpy as np
import pytest

from engine import GameConfig, GameState, new_game, view
from features import encoding
from features.encoding import Kept
from learn.spaces import writable
from tests.features.play import positions


def encode(state: GameState, seat: int) -> list[float]:
    enc = encoding(state.board.radius, state.n)
    out = [0.0] * enc.size
    enc.encode_state(state, seat, out)
    return out


@pytest.mark.parametrize("players", [2, 3, 4])
def test_the_view_and_the_state_give_the_same_vector_within_bounds(players: int) -> None:
    enc = encoding(3, players)
    highs = np.asarray(enc.highs)
    checked = 0
    for k, (state, _) in enumerate(positions(players, seed=players)):
        if k % 3:
            continue
        for seat in range(players):
            from_view = enc.encode_view(view(state, seat))
            from_state = encode(state, seat)
            assert from_view == from_state, (state.actions_taken, seat)
            x = np.asarray(from_state)
            assert (x >= 0).all() and (x <= highs).all(), enc.named(x)
            checked += 1
    assert checked > 100


def test_blocks_tile_the_vector_and_name_what_the_view_shows() -> None:
    enc = encoding(3, 4)
    ends = [b.offset + b.size for b in enc.blocks]
    assert [b.offset for b in enc.blocks] == [0, *ends[:-1]]
    assert ends[-1] == enc.size == len(enc.highs)
    state, _ = next(p for p in positions(4, seed=9) if p[0].actions_taken == 120)
    seat = state.current
    named = enc.named(np.asarray(encode(state, seat), dtype=np.float32))
    seen = view(state, seat)
    assert named["hand"].tolist() == list(seen.hand or ())
    assert named["robber"].argmax() == seen.robber
    assert named["bank"].tolist() == list(seen.bank)
    # row 0 of a per-seat block is the encoded seat itself
    assert named["seats"][0, 0] == seen.seats[seat].points
    assert named["current"][0] == 1.0
    assert named["phase"].sum() == 1.0


def _swap_hidden(state: GameState, seat: int, rng: random.Random) -> bool:
    """Change what ``seat`` cannot see, keeping everything it can: swap resource cards
    between two other seats (their counts and the bank unchanged), swap a development card
    of another seat with one of the deck, and reseed the dice. False if nothing could be
    swapped here."""
    changed = False
    others = [q for q in range(state.n) if q != seat]
    hand = state.hand
    if len(others) >= 2:
        a, b = rng.sample(others, 2)
        ra = [r for r in range(5) if hand[a * 5 + r]]
        rb = [r for r in range(5) if hand[b * 5 + r]]
        pairs = [(x, y) for x in ra for y in rb if x != y]
        if pairs:
            x, y = rng.choice(pairs)
            hand[a * 5 + x] -= 1
            hand[a * 5 + y] += 1
            hand[b * 5 + y] -= 1
            hand[b * 5 + x] += 1
            changed = True
    for q in others:
        held = [
            k
            for k in range(5)
            if state.dev[q * 5 + k] > (state.dev_new[k] if q == state.current else 0)
        ]
        deck = [k for k in range(5) if state.deck[k]]
        pairs = [(x, y) for x in held for y in deck if x != y]
        if pairs:
            x, y = rng.choice(pairs)
            state.dev[q * 5 + x] -= 1
            state.dev[q * 5 + y] += 1
            state.deck[y] -= 1
            state.deck[x] += 1
            changed = True
            break
    state.rng_hi ^= 0x5A5A5A5A
    return changed


@pytest.mark.parametrize("players", [3, 4])
def test_scrambling_what_a_seat_cannot_see_leaves_its_observation(players: int) -> None:
    rng = random.Random(players)
    scrambled = 0
    for k, (state, _) in enumerate(positions(players, seed=10 + players)):
        if k % 7:
            continue
        for seat in range(players):
            before = encode(state, seat)
            twin = state.copy()
            if _swap_hidden(twin, seat, rng):
                scrambled += 1
                assert view(twin, seat) == view(state, seat)
                assert encode(twin, seat) == before, (state.actions_taken, seat)
                # and the seat that holds the swapped cards does see the change
                assert any(encode(twin, q) != encode(state, q) for q in range(players))
    assert scrambled > 50


def test_bad_views_are_refused() -> None:
    state = new_game(GameConfig(players=3), 1)
    with pytest.raises(ValueError, match="spectator"):
        encoding(3, 3).encode_view(view(state, None))
    with pytest.raises(ValueError, match="3 players, not 4"):
        encoding(3, 4).encode_view(view(state, 0))
    with pytest.raises(ValueError, match="radius"):
        encoding(2, 3).encode_view(view(state, 0))


def test_every_kind_of_buffer_gets_the_same_vector() -> None:
    state, seat = next(p for p in positions(3, seed=12) if p[0].actions_taken == 200)
    enc = encoding(3, 3)
    expected = encode(state, seat)
    for dtype in (np.float32, np.float64):
        array = np.zeros(enc.size, dtype=dtype)
        enc.encode_state(state, seat, array)
        assert array.tolist() == expected
        buffer = np.zeros(enc.size + 5, dtype=dtype)
        enc.encode_state(state, seat, writable(buffer), base=5)
        assert buffer[:5].tolist() == [0.0] * 5 and buffer[5:].tolist() == expected


@pytest.mark.parametrize("players", [2, 4])
def test_an_updated_buffer_is_always_the_vector_written_afresh(players: int) -> None:
    """``update`` writes only what changed since its last write into the buffer; after
    every action, for the acting seat or another one, and across games, the buffer is
    exactly the vector written whole; ``forget`` makes it write the whole vector again."""
    enc = encoding(3, players)
    rng = random.Random(players)
    buffer = np.zeros(enc.size, dtype=np.float32)
    out = writable(buffer)
    kept = Kept()
    checked = 0
    for state, seat in positions(players, seed=30 + players, games=2):
        q = seat if rng.random() < 0.7 else rng.randrange(players)
        enc.update(state, q, out, kept)
        assert buffer.tolist() == encode(state, q), (state.actions_taken, q)
        if rng.random() < 0.01:
            buffer[rng.randrange(enc.size)] = 7.0  # written by someone else...
            kept.forget()  # ...who says so
        checked += 1
    assert checked > 500
