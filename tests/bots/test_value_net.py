"""The value network's file and its evaluation without numpy, against a dense numpy forward
pass, and the network shipped for four players on positions whose answer is known."""

from __future__ import annotations

import itertools
import random
from pathlib import Path

import numpy as np
import pytest

from bots.value.net import MAGIC, NetFileError, ValueNet, input_size, softmax, write, write_inputs
from bots.value_agent import network, shipped
from engine import GameConfig, new_game
from engine.rules import advance, legal_actions
from engine.state import GameState


def random_net(tmp_path: Path, players: int = 3, seed: int = 0) -> tuple[Path, list[np.ndarray]]:
    """A network file of random weights, and its layers as numpy arrays (w, b, w, b, ...)."""
    rng = np.random.default_rng(seed)
    sizes = [input_size(players), 12, 7, 2 * players + 1]
    arrays: list[np.ndarray] = []
    layers = []
    for a, b in itertools.pairwise(sizes):
        w = rng.normal(0, 0.2, (b, a)).astype(np.float32)
        bias = rng.normal(0, 0.2, b).astype(np.float32)
        arrays += [w, bias]
        layers.append((w.tolist(), bias.tolist()))
    path = tmp_path / "net.hvn"
    write(path, {"players": players, "radius": 3, "points_scale": 10.0, "turn_cap": 255}, layers)
    return path, arrays


def dense(arrays: list[np.ndarray], x: np.ndarray) -> np.ndarray:
    h = x.astype(np.float64)
    for i in range(0, len(arrays), 2):
        h = arrays[i].astype(np.float64) @ h + arrays[i + 1]
        if i + 2 < len(arrays):
            h = np.maximum(h, 0.0)
    return h


def played(players: int, seed: int, moves: int) -> GameState:
    state = new_game(GameConfig(players=players), seed)
    rnd = random.Random(seed)
    for _ in range(moves):
        if state.is_over:
            break
        legal = legal_actions(state)
        advance(state, legal[rnd.randrange(len(legal))])
    return state


def test_the_network_evaluates_as_a_dense_forward_pass(tmp_path: Path) -> None:
    path, arrays = random_net(tmp_path)
    net = ValueNet.load(path)
    for seed, moves in ((1, 0), (2, 40), (3, 200), (3, 400)):
        state = played(3, seed, moves)
        for seat in range(3):
            x = [0.0] * input_size(3)
            write_inputs(state, seat, x)
            want = dense(arrays, np.array(x))
            # with and without the board's share kept between calls
            assert net.raw(x) == pytest.approx(want.tolist(), abs=1e-4)
            assert net.raw(x, state.board) == pytest.approx(want.tolist(), abs=1e-4)
            assert net.state_win(state, seat) == pytest.approx(softmax(want[:3].tolist()), abs=1e-5)
    win, points, _ = net.outputs(x)
    assert sum(win) == pytest.approx(1.0)
    assert points == pytest.approx([10 * p for p in want[3:6]], abs=1e-3)


def test_the_board_share_follows_the_board(tmp_path: Path) -> None:
    path, arrays = random_net(tmp_path)
    net = ValueNet.load(path)
    for seed in (5, 6, 5):  # another board, then the first again
        state = played(3, seed, 30)
        x = [0.0] * input_size(3)
        write_inputs(state, 0, x)
        assert net.raw(x, state.board) == pytest.approx(
            dense(arrays, np.array(x)).tolist(), abs=1e-4
        )


def test_turns_beyond_the_cap_read_as_the_cap(tmp_path: Path) -> None:
    path, _ = random_net(tmp_path)
    net = ValueNet.load(path)
    x = [0.0] * input_size(3)
    x[net.turn_index] = 255.0
    capped = net.raw(x)
    x[net.turn_index] = 900.0
    assert net.raw(x) == capped


@pytest.mark.parametrize(
    ("mangle", "says"),
    [
        (lambda b: b"NOPE" + b[4:], "not a value-network file"),  # another magic
        (lambda b: b[:-4], "numbers, not the"),
        (lambda b: MAGIC + b[4:8] + b"\xff" + b[9:], "not JSON"),
    ],
)
def test_a_broken_file_is_refused_saying_why(tmp_path: Path, mangle, says: str) -> None:  # type: ignore[no-untyped-def]
    path, _ = random_net(tmp_path)
    bad = tmp_path / "bad.hvn"
    bad.write_bytes(mangle(path.read_bytes()))
    with pytest.raises(NetFileError, match=says) as caught:
        ValueNet.load(bad)
    assert str(bad) in str(caught.value)


def test_a_network_for_other_players_is_refused(tmp_path: Path) -> None:
    path, _ = random_net(tmp_path, players=3)
    with pytest.raises(ValueError, match="for 3 players, not 4"):
        network(str(path), 4)


# --- the shipped network -----------------------------------------------------------------


def test_the_shipped_network_is_small_and_has_its_manifest() -> None:
    path = shipped(4)
    assert path.stat().st_size < 4_000_000
    manifest = Path(str(path) + ".json")
    assert manifest.exists() and "command" in manifest.read_text()


def heuristic_game(seed: int) -> tuple[list[GameState], int]:
    """The states of a game of four ``heuristic`` players, and its winner."""
    from bots.playout import heuristic_move
    from learn.core import acting_seat

    state = new_game(GameConfig(players=4), seed)
    rnd = random.Random(seed)
    states = []
    while not state.is_over:
        states.append(state.copy())
        seat = acting_seat(state)
        advance(state, heuristic_move(state, seat, legal_actions(state, seat), rnd))
    return states, state.winner


def test_the_shipped_network_sees_the_winner_coming() -> None:
    """Near the end of games it never saw, the network gives the seat about to win the
    best chance, from that seat's view and from the others'; at the start it gives no
    seat much more than its share."""
    net = network("", 4)
    late_own: list[float] = []
    agree = 0
    looked = 0
    for seed in range(10_000, 10_012):
        states, winner = heuristic_game(seed)
        start = net.state_win(states[0], 0)
        assert max(start) < 0.45
        for state in states[-6:-1]:
            late_own.append(net.state_win(state, winner)[0])
            for q in range(4):
                looked += 1
                chances = net.state_win(state, q)
                agree += max(range(4), key=chances.__getitem__) == (winner - q) % 4
    assert sum(late_own) / len(late_own) > 0.45  # parity is 0.25
    assert agree / looked > 0.6  # by chance: 0.25
