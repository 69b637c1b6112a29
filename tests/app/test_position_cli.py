"""``hexhaven position``: shows and checks a position, writes a seat's form, writes a stored
game's position, and refuses bad text with exit 2 and the error sentence."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

import engine
from app.cli import main
from protocol.options import game_config
from server.store import Store
from tests.clients.test_replay import store_game
from tests.engine.test_notation import EXAMPLE

ROOT = Path(__file__).resolve().parents[2]


def test_a_position_is_shown_in_sentences(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["position", EXAMPLE]) == 0
    out = capsys.readouterr().out
    assert "phase main, seat 0 to move; last roll 3+4." in out
    assert "0 desert (robber), 1 hills 12," in out
    assert "Seat 0: 3 public points; settlements 0; cities 6; roads 0, 25; " in out
    assert "hand 2 brick, 1 lumber, 1 grain;" in out
    assert "Development deck: 22 cards (12 knight, 4 victory point," in out
    assert "Seed 7; generator state 0123456789abcdef." in out


def test_the_fields_may_come_as_separate_arguments(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["position", *EXAMPLE.split()]) == 0
    assert "Seat 3:" in capsys.readouterr().out


def test_seat_writes_the_seats_form_and_it_shows(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["position", EXAMPLE, "--seat", "1"]) == 0
    form = capsys.readouterr().out.strip()
    assert engine.parse_view(form) == engine.view(engine.parse_position(EXAMPLE), 1)
    assert main(["position", form]) == 0
    out = capsys.readouterr().out
    assert "Seat 0: 3 public points; settlements 0; cities 6; roads 0, 25; 4 resource cards" in out
    assert "Seat 1: 1 public point; settlements 10; cities none; roads 12, 13; hand 1 ore" in out
    assert "Seed" not in out and "As seat 1 sees it." in out


def test_bad_text_exits_2_with_the_error_sentence() -> None:
    bad = EXAMPLE.replace("main@0", "main@9")
    ran = subprocess.run(
        [sys.executable, "-m", "app", "position", bad],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert ran.returncode == 2
    assert ran.stdout == ""
    at = bad.index("main@9") + 6  # the 9
    assert ran.stderr.strip() == (
        f"hexhaven position: at character {at} (phase): the seat to move must be 0 to 3, not 9"
    )


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["position"], "give a position"),
        (["position", EXAMPLE, "--seat", "4"], "there is no seat 4 in a game of 4"),
        (["position", EXAMPLE, "--at", "3"], "--at goes with --from-game"),
        (["position", "a b c"], "a position has 12 fields"),
    ],
)
def test_misuse_exits_2_saying_why(
    argv: list[str], message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(argv) == 2
    assert message in capsys.readouterr().err


def test_a_stored_games_position_is_written(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    db = tmp_path / "games.db"
    store = Store(db)
    store_game(store, "g1", seed=5, finish=False)
    stored = store.load("g1")
    store.close()
    assert stored is not None
    config = game_config(stored.options)
    assert main(["position", "--from-game", "g1", "--db", str(db)]) == 0
    latest, _ = engine.replay(config, stored.seed, stored.actions)
    text = capsys.readouterr().out.strip()
    assert text == engine.format_position(latest)
    assert engine.parse_position(text).snapshot() == latest.snapshot()

    assert main(["position", "--from-game", "g1", "--db", str(db), "--at", "9"]) == 0
    early, _ = engine.replay(config, stored.seed, stored.actions[:9])
    assert capsys.readouterr().out.strip() == engine.format_position(early)

    argv = ["position", "--from-game", "g1", "--db", str(db), "--at", "9", "--seat", "2"]
    assert main(argv) == 0
    assert engine.parse_view(capsys.readouterr().out.strip()) == engine.view(early, 2)


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        (["--from-game", "nope"], "no game 'nope'"),
        (["--from-game", "g1", "--at", "100000"], "game g1 has states 0 to"),
        (["--from-game", "g1", EXAMPLE], "not both"),
    ],
)
def test_a_stored_game_that_cannot_be_had_exits_2(
    extra: list[str], message: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    db = tmp_path / "games.db"
    store = Store(db)
    store_game(store, "g1", seed=5, finish=False)
    store.close()
    assert main(["position", "--db", str(db), *extra]) == 2
    assert message in capsys.readouterr().err


def test_a_missing_database_exits_2(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    argv = ["position", "--from-game", "g1", "--db", str(tmp_path / "none.db")]
    assert main(argv) == 2
    assert "no such file" in capsys.readouterr().err
