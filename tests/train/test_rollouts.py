"""Positions labelled by games played on from each move (:mod:`learn.value.rollouts`): the
labels' shape and sense, the common seeds, the held-out games left alone, the run resumed,
and a network trained on games and labels together."""

from __future__ import annotations

import json
import random
import shutil
from pathlib import Path

import numpy as np
import pytest
import torch

from bots.value.load import shipped
from bots.value.net import ValueNet
from engine.actions import OfferTrade
from engine.rules import legal_actions
from engine.state import GameConfig, GameState, Phase
from learn.core import acting_seat
from learn.value import __main__ as cli
from learn.value.fit import Fit, model_of, own_chance, score, train
from learn.value.games import Game, read_shard, replay_states, shards, split
from learn.value.positions import load
from learn.value.rollouts import (
    Choices,
    Rollouts,
    choice_figures,
    choices,
    is_held_out,
    is_labels,
    label,
    label_path,
    load_choices,
    load_labels,
    play_on,
)
from learn.value.selfplay import HeuristicMover, SelfPlay, generate

RUN = SelfPlay(players=3, games=10, shard_games=1, seed=4, offers=True)
SETTINGS = Rollouts(rate=0.02, moves=3, rollouts=3, seed=1)


def quiet(_: str) -> None:
    pass


@pytest.fixture(scope="module")
def games(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("games")
    generate(RUN, folder, progress=quiet)
    return folder


@pytest.fixture(scope="module")
def labels(games: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("labels")
    label(games, folder, SETTINGS, progress=quiet)
    return folder


def _main_state(games: Path) -> tuple[GameState, Game]:
    _, stored = read_shard(shards(games)[0])
    for state in replay_states(GameConfig(players=3), stored[0]):
        if state.phase == Phase.MAIN and len(legal_actions(state, acting_seat(state))) > 2:
            return state.copy(), stored[0]
    raise AssertionError("no main-phase decision in the game")


def test_a_game_played_on_is_the_same_from_the_same_seed(games: Path) -> None:
    state, _ = _main_state(games)
    ends = [play_on(state, RUN, k) for k in (7, 7, 8, 9, 10, 11)]
    assert all(e is not None and e.is_over for e in ends)
    a, b, *rest = ends
    assert a is not None and b is not None
    assert (a.winner, a.turn, a.hand) == (b.winner, b.turn, b.hand)
    assert any(e is not None and (e.turn, e.hand) != (a.turn, a.hand) for e in rest)
    assert not state.is_over  # the state itself is left as it was


def test_the_moves_looked_at_are_the_policys_then_other_legal_ones(games: Path) -> None:
    state, _ = _main_state(games)
    seat = acting_seat(state)
    legal = legal_actions(state, seat)
    picked = choices(state, RUN, Rollouts(moves=3), random.Random(3))
    assert len(picked) == 3 and len(set(picked)) == 3
    policy = HeuristicMover(random.Random(0), True).move(state.copy(), seat, list(legal))
    assert type(picked[0]) is type(policy)
    assert all(a in legal for a in picked[1:])
    assert all(a in legal or isinstance(a, OfferTrade) for a in picked)
    assert len(choices(state, RUN, Rollouts(moves=1), random.Random(3))) == 1


def test_labels_are_shares_of_the_games_played_on_from_each_seat(games: Path, labels: Path) -> None:
    train_paths, held = split([games])
    assert held and all(not label_path(labels, p).exists() for p in held)
    assert all(label_path(labels, p).exists() for p in train_paths)
    record = json.loads((labels / "run.json").read_text())
    assert record["labels"] == {
        "rate": 0.02,
        "moves": 3,
        "rollouts": 3,
        "seed": 1,
        "held_out": False,
    }
    assert record["positions"] > 0 and record["afterstates"] >= record["positions"]
    assert record["afterstates"] <= 3 * record["positions"]
    assert record["rows"] == 3 * record["afterstates"]
    assert record["games"] <= 3 * record["afterstates"]
    data = load_labels([labels])
    assert len(data) == record["rows"]
    assert np.allclose(data.win.sum(axis=1), 1.0)
    assert np.allclose(data.win * 3, np.round(data.win * 3))  # shares of three games
    # Each state's three rows are the same shares, each from its seat's side.
    for k in range(0, len(data), 3):
        block = data.win[k : k + 3]
        for q in range(3):
            assert np.allclose(block[q], np.roll(block[0], -q))
        assert (data.turns_left[k : k + 3] >= 0).all()
        assert len(set(data.turns_left[k : k + 3].tolist())) == 1
        assert (data.points[k : k + 3] >= 2).all()
    # The rows differ by seat: each reads its own view.
    assert any((data.x[k] != data.x[k + 1]).any() for k in range(0, len(data), 3))
    assert len(load_labels([labels], [0.0])) == 0


def test_a_stopped_labelling_goes_on_and_other_settings_are_refused(
    games: Path, labels: Path, tmp_path: Path
) -> None:
    train_paths, _ = split([games])
    folder = tmp_path / "labels"
    shutil.copytree(labels, folder)
    label_path(folder, train_paths[-1]).unlink()  # as if stopped before the last shard
    first = label_path(folder, train_paths[0]).read_bytes()
    said: list[str] = []
    record = label(games, folder, SETTINGS, progress=said.append)
    count = len(train_paths)
    assert f"{count - 1} of {count} shards there, 1 to label" in said[0]
    assert label_path(folder, train_paths[0]).read_bytes() == first
    made, kept = label_path(folder, train_paths[-1]), label_path(labels, train_paths[-1])
    with np.load(made) as again, np.load(kept) as was:
        assert np.array_equal(again["win"], was["win"])  # the same labels made again
    assert record["positions"] > json.loads((labels / "run.json").read_text())["positions"]
    assert is_labels(folder) and not is_labels(games)
    with pytest.raises(ValueError, match="made otherwise"):
        label(games, folder, Rollouts(rate=0.02, moves=2, rollouts=3, seed=1), progress=quiet)
    with pytest.raises(ValueError, match="at least 1"):
        label(games, tmp_path / "x", Rollouts(rollouts=0), progress=quiet)


def test_games_of_the_expert_policy_are_not_labelled(tmp_path: Path) -> None:
    source = tmp_path / "e"
    source.mkdir()
    (source / "run.json").write_text(json.dumps({"settings": {"policy": "expert"}}))
    with pytest.raises(ValueError, match="expert policy"):
        label(source, tmp_path / "l", SETTINGS, progress=quiet)


def test_a_network_trains_on_games_and_labels_and_is_held_out_on_games_alone(
    games: Path, labels: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    settings = Fit(hidden=(8,), epochs=1, rate=0.2)
    plain = train([games], tmp_path / "a.hvn", settings, progress=quiet)
    both = train([games, labels], tmp_path / "b.hvn", settings, progress=quiet)
    rows = len(load_labels([labels]))
    assert both["positions"] == plain["positions"] + rows
    assert both["held_out_positions"] == plain["held_out_positions"]
    assert both["data"][1]["rate"] == 1.0 and both["data"][1]["labels"]["rollouts"] == 3
    figures = score([games, labels], [tmp_path / "b.hvn"], rate=0.2)[str(tmp_path / "b.hvn")]
    assert figures["cross_entropy"] == pytest.approx(both["held_out"]["cross_entropy"], abs=1e-4)
    train_paths, _ = split([games])
    assert len(load(train_paths, 0.2, 0)) + rows == both["positions"]
    # Going on from a network file: its layers and outputs are the start.
    again = Fit(epochs=1, rate=0.2, init=str(tmp_path / "b.hvn"))
    more = train([games, labels], tmp_path / "c.hvn", again, progress=quiet)
    assert list(more["fit"]["hidden"]) == [8] and more["positions"] == both["positions"]
    start = model_of(ValueNet.load(tmp_path / "b.hvn"))
    went_on = model_of(ValueNet.load(tmp_path / "c.hvn"))
    x = torch.from_numpy(load_labels([labels]).x[:50])
    with torch.no_grad():
        before, after = start(x).numpy(), went_on(x).numpy()
    assert not np.allclose(before, after) and np.abs(before - after).mean() < 1.0
    with pytest.raises(ValueError, match="other games"):
        train([games], tmp_path / "d.hvn", Fit(epochs=1, init=str(shipped(4))), progress=quiet)
    with pytest.raises(ValueError, match="folder of games"):
        train([labels], tmp_path / "d.hvn", Fit(epochs=1), progress=quiet)
    out = tmp_path / "cli"
    argv = ["label", str(games), str(out), "--rate", "0.02", "--moves", "2", "--rollouts", "2"]
    capsys.readouterr()
    assert cli.main([*argv, "--shards", "1"]) == 0
    assert "positions" in capsys.readouterr().out
    assert json.loads((out / "run.json").read_text())["labels"]["moves"] == 2
    assert cli.main(["label", str(games), str(out), "--rollouts", "0"]) == 2


def test_choices_are_scored_by_the_share_the_pick_lost_against_the_best() -> None:
    # Point 0: the policy's move won 0.5, the others 0.25 and 0.75; point 1: 0.6 and 0.2.
    moves = Choices(
        x=np.zeros((5, 1), np.uint8),
        point=np.array([0, 0, 0, 1, 1]),
        move=np.array([0, 1, 2, 0, 1]),
        share=np.array([0.5, 0.25, 0.75, 0.6, 0.2], np.float32),
    )
    by_value = choice_figures(moves, np.array([0.3, 0.1, 0.4, 0.2, 0.9]))
    assert by_value["points"] == 2
    assert by_value["regret"] == pytest.approx((0.0 + 0.4) / 2)
    assert by_value["agreement"] == pytest.approx(0.5)
    assert by_value["policy_regret"] == pytest.approx((0.25 + 0.0) / 2)
    # The bot's rule: point 0's pick (0.4) beats the policy's (0.3) by 0.1, point 1's by 0.7.
    assert by_value["kept_regret"] == pytest.approx((0.0 + 0.4) / 2)
    kept = choice_figures(moves, np.array([0.3, 0.1, 0.4, 0.2, 0.9]), margin=0.5)
    assert kept["kept_regret"] == pytest.approx((0.25 + 0.4) / 2)
    kept = choice_figures(moves, np.array([0.3, 0.1, 0.4, 0.2, 0.9]), margin=1.0)
    assert kept["kept_regret"] == pytest.approx(kept["policy_regret"])
    perfect = choice_figures(moves, moves.share.astype(np.float64))
    assert perfect["regret"] == 0.0 and perfect["agreement"] == 1.0


def test_held_out_labels_score_a_networks_choices_and_are_never_trained_on(
    games: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = tmp_path / "held"
    settings = Rollouts(rate=0.05, moves=3, rollouts=2, seed=2, held_out=True)
    label(games, folder, settings, progress=quiet)
    _, held = split([games])
    assert [p.name for p in folder.glob("labels-*.npz")] == [label_path(folder, held[0]).name]
    assert is_held_out(folder)
    net = tmp_path / "n.hvn"
    with pytest.raises(ValueError, match="held-out games"):
        train([games, folder], net, Fit(hidden=(8,), epochs=1), progress=quiet)
    train([games], net, Fit(hidden=(8,), epochs=1, rate=0.2), progress=quiet)
    figures = score([games, folder], [net], rate=0.2)[str(net)]
    moves = load_choices([folder])
    assert set(moves.move.tolist()) <= {0, 1, 2} and (moves.move == 0).any()
    want = choice_figures(moves, own_chance(model_of(ValueNet.load(net)), moves.x))
    assert figures["points"] == want["points"] > 0
    assert figures["regret"] == pytest.approx(want["regret"])
    assert 0.0 <= figures["regret"] <= 1.0 and 0.0 <= figures["policy_regret"] <= 1.0
    assert figures["positions"] > 0  # and the held-out games' figures beside them
    capsys.readouterr()
    assert cli.main(["score", str(folder), "--weights", str(net)]) == 0
    assert "labelled decision points" in capsys.readouterr().out
