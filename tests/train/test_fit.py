"""The value network's pipeline end to end on a tiny data set: self-play games into shards
(resumable, refused with other settings), positions replayed from them, a network trained
(PyTorch, the ``train`` extra) and written, and the bots' reader giving the trained
model's outputs."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
import torch

from bots.value.net import ValueNet
from bots.value_agent import shipped
from engine import GameConfig
from engine.actions import OfferTrade
from learn.value import __main__ as cli
from learn.value.fit import Fit, model_of, score, train
from learn.value.games import decode_move, read_shard, replay_states, shards
from learn.value.positions import load
from learn.value.selfplay import SelfPlay, generate, play_game


def quiet(_: str) -> None:
    pass


def test_games_replay_to_their_recorded_outcome(tmp_path: Path) -> None:
    run = SelfPlay(players=3, games=4, shard_games=2, seed=3)
    generate(run, tmp_path, progress=quiet)
    for path in shards(tmp_path):
        header, games = read_shard(path)
        assert header["run"]["players"] == 3
        for game in games:
            *_, last = replay_states(GameConfig(players=3), game)
            assert last.winner == game.winner
            assert [last.victory_points(q) for q in range(3)] == game.points
            assert last.turn == game.turns


def test_a_stopped_run_goes_on_and_other_settings_are_refused(tmp_path: Path) -> None:
    run = SelfPlay(players=2, games=6, shard_games=2, seed=1)
    generate(run, tmp_path, progress=quiet)
    first = shards(tmp_path)[0].read_bytes()
    shards(tmp_path)[-1].unlink()  # as if stopped before the last shard
    said: list[str] = []
    record = generate(run, tmp_path, progress=said.append)
    assert "2 of 3 shards there, 1 to play" in said[0]
    assert len(shards(tmp_path)) == 3
    assert shards(tmp_path)[0].read_bytes() == first  # kept, not played again
    assert record["games"] >= 6
    with pytest.raises(ValueError, match="other settings"):
        generate(SelfPlay(players=2, games=6, shard_games=2, seed=2), tmp_path, progress=quiet)


def test_the_expert_plays_itself_into_a_shard(tmp_path: Path) -> None:
    """Expert iteration's data: the shipped network's bot at every seat, each from its own
    view; the game replays to its outcome."""
    run = SelfPlay(
        players=4,
        policy="expert",
        weights=str(shipped(4)),
        params="time_ms=20,offers=1,setup_rollouts=2",
        games=1,
        explore=0.0,
        seed=4,
    )
    record = generate(run, tmp_path, progress=quiet)
    assert record["games"] == 1 and record["settings"]["policy"] == "expert"
    _, (game,) = read_shard(shards(tmp_path)[0])
    *_, last = replay_states(GameConfig(players=4), game)
    assert last.winner == game.winner >= 0
    with pytest.raises(ValueError, match="no parameter"):
        SelfPlay(policy="expert", weights=str(shipped(4)), params="rollouts=3").check()


def test_a_mixed_table_seats_the_expert_where_its_game_says() -> None:
    """With ``experts=1`` one seat, rotating by game, plays the expert: only that seat makes
    domestic offers (the heuristic's rules at the others never offer)."""
    run = SelfPlay(
        players=4,
        policy="expert",
        weights=str(shipped(4)),
        params="time_ms=20,setup_rollouts=2",
        experts=1,
        explore=0.0,
    )
    for game_index in (1, 2):
        game = play_game(run, game_index)
        assert game is not None
        offerers: set[int] = set()
        states = replay_states(GameConfig(players=4), game)
        for state, move in zip(states, game.moves, strict=False):
            if isinstance(decode_move(state, move), OfferTrade):
                offerers.add(state.current)
        assert offerers == {game_index % 4}
    with pytest.raises(ValueError, match="experts"):
        SelfPlay(players=2, policy="expert", weights="w", experts=3).check()
    with pytest.raises(ValueError, match="expert policy"):
        SelfPlay(experts=1).check()


def test_heuristic_tables_with_offers_trade_as_the_heuristic_bot_does() -> None:
    """With ``offers`` the heuristic's seats make its 1:1 offers on the engine: only on
    their own turn, at most two a turn, never the same twice, none after one nobody took;
    some are taken, and the game replays to its outcome. Without, nobody offers."""
    from engine.actions import CancelTrade, ConfirmTrade
    from engine.rules import legal_actions

    config = GameConfig(players=4)
    confirmed = 0
    for seed in (1, 2):
        game = play_game(SelfPlay(offers=True, explore=0.0), seed)
        assert game is not None
        made: dict[int, list[tuple[object, object]]] = {}
        closed_unanswered: set[int] = set()
        states = replay_states(config, game)
        for state, move in zip(states, game.moves, strict=False):
            action = decode_move(state, move)
            if isinstance(action, OfferTrade):
                assert action.seat == state.current and action.to is None
                assert sum(action.give) == sum(action.get) == 1
                assert state.turn not in closed_unanswered
                offers = made.setdefault(state.turn, [])
                assert (action.give, action.get) not in offers
                offers.append((action.give, action.get))
                assert len(offers) <= 2
            elif isinstance(action, ConfirmTrade):
                confirmed += 1
            elif isinstance(action, CancelTrade):
                assert not any(isinstance(a, ConfirmTrade) for a in legal_actions(state))
                closed_unanswered.add(state.turn)
        *_, last = replay_states(config, game)
        assert last.winner == game.winner
        assert made
    assert confirmed > 0
    plain = play_game(SelfPlay(explore=0.0), 1)
    assert plain is not None and not any(isinstance(m, list) for m in plain.moves)


def test_a_run_from_before_a_setting_was_added_goes_on(tmp_path: Path) -> None:
    run = SelfPlay(players=2, games=4, shard_games=2, seed=1)
    generate(run, tmp_path, progress=quiet)
    record = json.loads((tmp_path / "run.json").read_text())
    del record["settings"]["offers"]  # written before the setting was there
    (tmp_path / "run.json").write_text(json.dumps(record))
    shards(tmp_path)[-1].unlink()
    said: list[str] = []
    generate(run, tmp_path, progress=said.append)
    assert "1 of 2 shards there, 1 to play" in said[0]
    with pytest.raises(ValueError, match="other settings"):
        generate(SelfPlay(players=2, games=4, shard_games=2, seed=1, offers=True), tmp_path)


def test_the_set_up_share_is_its_own(tmp_path: Path) -> None:
    """``setup_rate`` takes the set-up positions alone at its rate: at 1 and the rest at 0,
    every set-up state of every game once from each seat (two settlements and two roads a
    player), at 0 none."""
    generate(SelfPlay(players=3, games=2, shard_games=2, seed=6), tmp_path, progress=quiet)
    paths = shards(tmp_path)
    assert len(load(paths, 0.0, 0, setup_rate=1.0)) == 2 * (4 * 3) * 3
    assert len(load(paths, 0.0, 0, setup_rate=0.0)) == 0
    assert len(load(paths, 0.5, 0, setup_rate=0.0)) > 0


def test_the_same_seed_plays_the_same_games() -> None:
    run = SelfPlay(players=4, seed=5)
    a, b = play_game(run, 77), play_game(run, 77)
    assert a is not None and b is not None
    assert a.moves == b.moves


def _printed(capsys: pytest.CaptureFixture[str], argv: list[str]) -> str:
    capsys.readouterr()
    assert cli.main(argv) == 0
    return capsys.readouterr().out


def test_a_network_trains_end_to_end_and_reads_as_trained(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    data = tmp_path / "data"
    assert (
        cli.main(["selfplay", str(data), "--games", "12", "--shard-games", "4", "--players", "3"])
        == 0
    )
    out = tmp_path / "net.hvn"
    argv = ["fit", f"{data}@0.3", "--out", str(out), "--hidden", "8", "--epochs", "2"]
    assert cli.main(argv) == 0
    manifest = json.loads(Path(str(out) + ".json").read_text())
    assert manifest["players"] == 3 and manifest["steps"] > 0
    assert manifest["positions"] > 0 and manifest["command"].startswith("python -m learn.value fit")
    assert manifest["data"][0]["settings"]["games"] == 12
    assert manifest["data"][0]["rate"] == 0.3  # the folder's own share of positions
    net = ValueNet.load(out)
    # The file gives what the trained model gives, on positions of those games.
    torch.manual_seed(0)
    positions = load(shards(data)[:1], 0.2, 0)
    settings = Fit(hidden=(8,), epochs=1, rate=0.2)
    model_file = tmp_path / "again.hvn"
    made = train([data], model_file, settings, progress=quiet)
    # `score` reads the held-out games as the fit did: the file's figures are its manifest's.
    figures = score([data], [model_file, out], rate=0.2)[str(model_file)]
    assert figures["positions"] == made["held_out_positions"]
    for key in ("cross_entropy", "accuracy", "brier"):
        assert figures[key] == pytest.approx(made["held_out"][key], abs=1e-4)
    said = _printed(capsys, ["score", str(data), "--weights", str(model_file), "--rate", "0.2"])
    assert f"{figures['cross_entropy']:.4f}" in said
    assert cli.main(["score", str(data), "--weights", str(tmp_path / "none.hvn")]) == 2
    again = ValueNet.load(model_file)
    assert again.players == 3
    model = model_of(again)
    with torch.no_grad():
        want = model(torch.from_numpy(positions.x[:20])).numpy()
    got = np.array([again.raw(row.astype(np.float64).tolist()) for row in positions.x[:20]])
    assert np.allclose(got, want, atol=1e-4)
    assert len(net.weights) == 2


def test_fit_refuses_a_folder_without_games(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert cli.main(["fit", str(tmp_path), "--out", str(tmp_path / "x.hvn")]) == 2
    assert "no shards of games" in capsys.readouterr().err
