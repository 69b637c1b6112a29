"""Ladders run end to end on the process backend, through the command line: games stored
once each, the leaderboard, resume after a kill, a stop by a signal that says how to go on,
a changed file refused, the A/B test."""

from __future__ import annotations

import contextlib
import json
import os
import queue
import shlex
import signal
import sqlite3
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import IO

import pytest

from app.cli import main
from tournament.ladder.config import load_config
from tournament.ladder.ratings import Outcome, leaderboard
from tournament.ladder.schedule import make_ladder_schedule
from tournament.ladder.store import open_store

REPO = Path(__file__).resolve().parents[3]
STDIO_AGENT = REPO / "examples" / "stdio" / "agent.py"

LADDER = f"""
[ladder]
name = "small"
games = {{games}}
seed = 11
players = 4
victory_points = {{vp}}

[[entrant]]
name = "random"
bot = "random"

[[entrant]]
name = "heuristic"
bot = "heuristic"

[[entrant]]
name = "uct-20"
bot = "uct"
params = {{{{ rollouts = 20 }}}}

[[entrant]]
name = "stdio"
command = "{sys.executable} {STDIO_AGENT} {{{{seed}}}}"
budget = "no search"

[[entrant]]
name = "heuristic-2"
bot = "heuristic"
"""


def _write(tmp_path: Path, games: int = 8, vp: int = 5) -> Path:
    path = tmp_path / "small.toml"
    path.write_text(LADDER.format(games=games, vp=vp), encoding="utf-8")
    return path


def _cli(args: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    code = main(["ladder", *args])
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def test_a_ladder_runs_stores_every_game_once_and_shows_its_leaderboard(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    config_path = _write(tmp_path)
    db = str(tmp_path / "games.db")
    code, out, err = _cli(["run", str(config_path), "--db", db, "--workers", "2"], capsys)
    assert code == 0, err
    lines = out.splitlines()
    assert "8 to play" in lines[0] and "2 workers" in lines[0]
    per_game = [line for line in lines if line.startswith("[")]
    assert len(per_game) == 8  # not a terminal: one plain line per game, with the rate
    assert all(("games/s" in line or "games/h" in line) and " left]" in line for line in per_game)
    assert per_game[-1].startswith("[8/8 ")

    config = load_config(config_path)
    schedule = make_ladder_schedule(5, 4, 8, seed=11)
    with open_store(db) as store:
        games = store.games("small")
        assert [g.index for g in games] == list(range(8))
        for game, planned in zip(games, schedule, strict=True):
            assert game.labels == tuple(config.entrant[e].name for e in planned.seating)
            assert game.seed == planned.seed and game.agent_seeds == planned.agent_seeds
            assert game.config == {"players": 4, "victory_points": 5, "board": "random"}
            assert game.backend == "process"
            if game.winner is not None:
                assert game.points[game.winner] >= 5 and game.ranks[game.winner] == 1
            assert game.decisions is not None and all(d > 0 for d in game.decisions)
        assert store.budgets("small")["uct-20"] == "20 rollouts"
        outcomes = [
            Outcome(g.labels, g.points, g.winner, g.decisions, g.decision_seconds) for g in games
        ]
    expected = leaderboard(outcomes, config.budgets())
    for row in expected:  # the printed leaderboard names every entrant with its budget
        assert any(line.split()[1:3] == [row.label, row.budget.split()[0]] for line in lines)

    code, out, _ = _cli(["show", "small", "--db", db, "--json"], capsys)
    assert code == 0
    shown = json.loads(out)
    assert shown["games"] == 8
    assert [r["label"] for r in shown["rows"]] == [r.label for r in expected]
    assert sum(r["games"] for r in shown["rows"]) == 32  # one per seat
    assert [r["wins"] for r in shown["rows"]] == [r.wins for r in expected]
    assert "seats" not in shown
    code, out, _ = _cli(["show", "small", "--db", db, "--json", "--seats"], capsys)
    seats = json.loads(out)["seats"]
    assert list(seats) == [*dict.fromkeys(x for g in games for x in g.labels), "(all)"]
    for row in expected:
        assert sum(r["games"] for r in seats[row.label]) == row.games
        assert sum(r["wins"] for r in seats[row.label]) == row.wins
        assert [r["games"] for r in seats[row.label]] == [
            sum(g.labels[seat] == row.label for g in games) for seat in range(4)
        ]
    assert [r["games"] for r in seats["(all)"]] == [8, 8, 8, 8]
    assert [r["wins"] for r in seats["(all)"]] == [
        sum(g.winner == seat for g in games) for seat in range(4)
    ]
    code, out, _ = _cli(["show", "small", "--db", db, "--seats"], capsys)
    assert code == 0 and "wins by seat" in out and out.rstrip().splitlines()[-1].startswith("(all)")
    plot = tmp_path / "ratings.png"
    code, out, _ = _cli(["show", str(config_path), "--db", db, "--plot", str(plot)], capsys)
    assert code == 0 and out.startswith("ladder small: 8 game(s)")
    assert plot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"

    # Run again: nothing to play. More games extend the ladder without touching the first.
    code, out, _ = _cli(["run", str(config_path), "--db", db, "--workers", "1"], capsys)
    assert code == 0 and "0 to play" in out and "0 game(s) played" in out
    code, out, _ = _cli(
        ["run", str(config_path), "--db", db, "--workers", "1", "--games", "10"], capsys
    )
    assert code == 0 and "8 stored, 2 to play" in out
    with open_store(db) as store:
        again = store.games("small")
    assert [g.index for g in again] == list(range(10))
    assert again[:8] == games


def test_a_changed_file_is_refused_unless_fresh(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    db = str(tmp_path / "games.db")
    code, _, _ = _cli(["run", str(_write(tmp_path, games=4)), "--db", db, "--workers", "1"], capsys)
    assert code == 0
    changed = _write(tmp_path, games=4, vp=4)
    code, _, err = _cli(["run", str(changed), "--db", db], capsys)
    assert code == 2
    assert "victory_points was 5, now 4" in err and "--fresh" in err
    code, out, _ = _cli(["run", str(changed), "--db", db, "--workers", "1", "--fresh"], capsys)
    assert code == 0 and "0 stored, 4 to play" in out
    with open_store(db) as store:
        assert {g.config["victory_points"] for g in store.games("small")} == {4}


def test_bad_files_and_options_are_reported(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    bad = tmp_path / "bad.toml"
    bad.write_text('[ladder]\nname = "b"\ngames = 2\n[[entrant]]\nname = "a"\nbot = "random"\n')
    code, _, err = _cli(["run", str(bad), "--db", str(tmp_path / "g.db")], capsys)
    assert code == 2 and "[[entrant]]: a ladder needs at least two [[entrant]] tables" in err
    code, _, err = _cli(["show", "nothing", "--db", str(tmp_path / "g.db")], capsys)
    assert code == 2 and "no store at" in err and not (tmp_path / "g.db").exists()
    code, _, err = _cli(["show", "nothing", "--db", str(tmp_path / "nodir" / "g.db")], capsys)
    assert code == 2 and "no store at" in err and not (tmp_path / "nodir").exists()
    _cli(["run", str(_write(tmp_path, games=1)), "--db", str(tmp_path / "g.db")], capsys)
    code, _, err = _cli(["show", "nothing", "--db", str(tmp_path / "g.db")], capsys)
    assert code == 2 and "no ladder 'nothing'" in err
    connects = tmp_path / "connects.toml"
    connects.write_text(
        '[ladder]\nname = "c"\ngames = 2\nplayers = 2\n'
        '[[entrant]]\nname = "a"\nbot = "random"\n'
        '[[entrant]]\nname = "x"\nconnect = "prog {url} {invite}"\nbudget = "1 s"\n'
    )
    code, _, err = _cli(["run", str(connects), "--db", str(tmp_path / "g.db")], capsys)
    assert code == 2 and "x connect(s) to a server itself: run with --server URL" in err
    assert "run again" not in err  # it would fail the same way
    code, _, err = _cli(["run", str(connects), "--games", "0"], capsys)
    assert code == 2 and err.strip() == "hexhaven ladder: --games must be at least 1"
    code, _, err = _cli(["run", str(connects), "--address", "auto"], capsys)
    assert code == 2 and "--address is for --backend ray" in err
    for url in ("127.0.0.1:8765", "ws://h:abc"):
        code, _, err = _cli(["run", str(connects), "--server", url], capsys)
        assert code == 2 and f"{url!r} is not a server URL" in err


def test_a_ladder_killed_mid_run_resumes_with_every_game_exactly_once(tmp_path: Path) -> None:
    config_path = _write(tmp_path, games=20, vp=6)
    db = tmp_path / "games.db"
    command = [sys.executable, "-m", "app.cli", "ladder", "run", str(config_path)]
    command += ["--db", str(db), "--workers", "1"]
    proc = subprocess.Popen(
        command,
        cwd=REPO,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
    )
    try:
        deadline = time.monotonic() + 120
        stored = 0
        while stored < 3:  # kill it once some games are stored, mid-way through others
            assert proc.poll() is None, "the ladder ended before it was killed"
            assert time.monotonic() < deadline, "no games were stored"
            time.sleep(0.2)
            if db.exists():
                with sqlite3.connect(db) as conn:
                    try:
                        stored = conn.execute("SELECT COUNT(*) FROM ladder_game").fetchone()[0]
                    except sqlite3.OperationalError:  # the tables are not made yet
                        stored = 0
    finally:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait()
    with open_store(str(db)) as store:
        before = store.games("small")
    assert 3 <= len(before) < 20
    done = subprocess.run(command, cwd=REPO, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    assert f"{len(before)} stored, {20 - len(before)} to play" in done.stdout
    with open_store(str(db)) as store:
        after = store.games("small")
    assert [g.index for g in after] == list(range(20))
    assert [g for g in after if g.index in {b.index for b in before}] == before
    with sqlite3.connect(db) as conn:
        seats = conn.execute("SELECT COUNT(*), COUNT(DISTINCT idx) FROM ladder_seat").fetchone()
    assert tuple(seats) == (80, 20)


def _read_lines(stream: IO[str]) -> queue.Queue[str | None]:
    """The lines of ``stream`` as they come, read in a thread (None at its end)."""
    lines: queue.Queue[str | None] = queue.Queue()

    def read() -> None:
        for line in stream:
            lines.put(line)
        lines.put(None)

    threading.Thread(target=read, daemon=True).start()
    return lines


BOTS_LADDER = """
[ladder]
name = "small"
games = 20
seed = 11
players = 4
victory_points = 6

[[entrant]]
name = "random"
bot = "random"

[[entrant]]
name = "heuristic"
bot = "heuristic"

[[entrant]]
name = "uct-20"
bot = "uct"
params = { rollouts = 20 }
"""
"""Built-in bots only: how a program entrant takes a game dropped under it (its pipes
closed) is its own affair."""


@pytest.mark.parametrize(
    ("sig", "to_group", "workers"),
    [(signal.SIGINT, True, 2), (signal.SIGTERM, False, 1)],
    ids=["ctrl-c-workers", "sigterm-in-process"],
)
def test_a_ladder_stopped_by_a_signal_prints_its_summary_and_how_to_go_on(
    tmp_path: Path, sig: signal.Signals, to_group: bool, workers: int
) -> None:
    """Ctrl-C reaches the whole process group (the worker processes too); ``kill`` sends
    SIGTERM to the ladder's process alone (here playing its games itself). Either way the
    run stops at once, without a traceback, with the leaderboard of the games stored, and
    the command it prints plays the rest."""
    config_path = tmp_path / "small.toml"
    config_path.write_text(BOTS_LADDER, encoding="utf-8")
    db = tmp_path / "games.db"
    command = [sys.executable, "-m", "app.cli", "ladder", "run", str(config_path)]
    command += ["--db", str(db), "--workers", str(workers)]
    proc = subprocess.Popen(
        command,
        cwd=REPO,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
    )
    assert proc.stdout is not None and proc.stderr is not None
    try:
        lines, errors = _read_lines(proc.stdout), _read_lines(proc.stderr)
        deadline = time.monotonic() + 120
        while True:  # stop it once two games are stored, others under way
            line = lines.get(timeout=max(0.0, deadline - time.monotonic()))
            assert line is not None, "the ladder ended before it was stopped"
            if line.startswith("[2/20 "):
                break
        if to_group:
            os.killpg(proc.pid, sig)
        else:
            proc.send_signal(sig)
        proc.wait(timeout=60)
        out = "".join(iter(lambda: lines.get(timeout=10), None))
        err = "".join(iter(lambda: errors.get(timeout=10), None))
    finally:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(proc.pid, signal.SIGKILL)
        proc.wait()
    assert proc.returncode == 128 + sig
    assert f"hexhaven ladder: stopped by {sig.name}" in err
    assert "Traceback" not in err, err
    with open_store(str(db)) as store:
        before = store.games("small")
    assert 2 <= len(before) < 20
    assert f"{len(before)} game(s) played in this run, {len(before)} of 20 stored" in out
    assert "#  entrant" in out  # the leaderboard
    [resume] = [line for line in out.splitlines() if "go on with: " in line]
    again = shlex.split(resume.split("go on with: ", 1)[1])
    assert again[:3] == ["hexhaven", "ladder", "run"] and "--fresh" not in again
    done = subprocess.run(
        [sys.executable, "-m", "app.cli", *again[1:]],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr
    assert f"{len(before)} stored, {20 - len(before)} to play" in done.stdout
    with open_store(str(db)) as store:
        assert [g.index for g in store.games("small")] == list(range(20))


def test_ab_decides_for_the_stronger_entrant_and_resumes_decided(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "ab.toml"
    path.write_text(
        '[ladder]\nname = "duel"\ngames = 2\nplayers = 2\nvictory_points = 5\nseed = 3\n'
        '[[entrant]]\nname = "heuristic"\nbot = "heuristic"\n'
        '[[entrant]]\nname = "random"\nbot = "random"\n'
    )
    db = str(tmp_path / "games.db")
    args = ["ab", str(path), "heuristic", "random", "--p0", "0.5", "--p1", "0.8", "--db", db]
    code, out, err = _cli([*args, "--workers", "1", "--max-games", "60"], capsys)
    assert code == 0, err
    lines = out.splitlines()
    assert "H1 accepted: heuristic is stronger than random" in lines[-1]
    game_lines = [line for line in lines if line.startswith("[")]
    assert game_lines and all("LLR" in line and "in [-2.94, 2.94]" in line for line in game_lines)
    assert "decided H1" in game_lines[-1] and "decided" not in game_lines[-2]
    with open_store(db) as store:
        games = store.games("duel:ab:heuristic:random")
    assert len(games) == len(game_lines)
    assert [g.labels for g in games[:2]] == [("heuristic", "random"), ("random", "heuristic")]
    code, out, _ = _cli([*args, "--workers", "1"], capsys)
    assert code == 0
    assert f"{len(games)} game(s) stored" in out and "H1 accepted" in out
    assert not any(line.startswith("[") for line in out.splitlines())


def test_ab_without_a_difference_accepts_h0_or_runs_out(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "same.toml"
    path.write_text(
        '[ladder]\nname = "same"\ngames = 2\nplayers = 4\nvictory_points = 4\n'
        '[[entrant]]\nname = "r1"\nbot = "random"\n'
        '[[entrant]]\nname = "r2"\nbot = "random"\n'
    )
    code, out, err = _cli(
        [
            "ab",
            str(path),
            "r1",
            "r2",
            "--elo0",
            "0",
            "--elo1",
            "400",
            "--max-games",
            "24",
            "--workers",
            "1",
            "--db",
            str(tmp_path / "g.db"),
        ],
        capsys,
    )
    assert code == 0, err
    assert "H1 accepted" not in out
    assert "H0 accepted" in out or "no decision after 24 games" in out
    with open_store(str(tmp_path / "g.db")) as store:
        games = store.games("same:ab:r1:r2")
    assert all(sorted(g.labels) == ["r1", "r1", "r2", "r2"] for g in games)


def test_a_stored_game_replays_exactly_from_its_seeds() -> None:
    from tournament.ladder.config import parse_config
    from tournament.ladder.games import make_tasks, play_game

    config = parse_config(
        {
            "ladder": {"name": "x", "games": 2, "players": 2, "victory_points": 4},
            "entrant": [
                {"name": "u", "bot": "uct", "params": {"rollouts": 20}},
                {"name": "h", "bot": "heuristic"},
            ],
        }
    )
    task = make_tasks(config, make_ladder_schedule(2, 2, 2, seed=1), config.entrant)[1]
    first, second = play_game(task), play_game(task)
    assert (first.points, first.winner, first.actions, first.decisions) == (
        second.points,
        second.winner,
        second.actions,
        second.decisions,
    )
    assert first.seating == (1, 0) and first.index == 1


def test_default_workers_leave_room_for_search_processes(monkeypatch: pytest.MonkeyPatch) -> None:
    from tournament.ladder.config import parse_config
    from tournament.ladder.run import default_workers

    monkeypatch.setattr(os, "cpu_count", lambda: 8)
    entrants: list[dict[str, object]] = [{"name": "r", "bot": "random"}]
    plain = parse_config(
        {
            "ladder": {"name": "x", "games": 1},
            "entrant": [*entrants, {"name": "u", "bot": "uct", "params": {"rollouts": 5}}],
        }
    )
    assert default_workers(plain) == 8
    hard = parse_config(
        {
            "ladder": {"name": "x", "games": 1},
            "entrant": [*entrants, {"name": "u", "bot": "uct", "params": {"strength": "hard"}}],
        }
    )
    assert default_workers(hard) == 4  # hard searches 10 trees in 2 processes


def test_a_ladder_runs_and_resumes_on_either_store(
    db: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "tiny.toml"
    path.write_text(
        '[ladder]\nname = "tiny"\ngames = 6\nplayers = 2\nvictory_points = 4\n'
        '[[entrant]]\nname = "random"\nbot = "random"\n'
        '[[entrant]]\nname = "heuristic"\nbot = "heuristic"\n'
        '[[entrant]]\nname = "uct-5"\nbot = "uct"\nparams = { rollouts = 5 }\n',
        encoding="utf-8",
    )
    code, out, err = _cli(["run", str(path), "--games", "4", "--workers", "1", "--db", db], capsys)
    assert code == 0, err
    code, out, err = _cli(["run", str(path), "--workers", "1", "--db", db], capsys)
    assert code == 0, err
    assert "4 stored, 2 to play" in out
    code, out, _ = _cli(["show", "tiny", "--db", db, "--json"], capsys)
    assert code == 0
    shown = json.loads(out)
    assert shown["games"] == 6 and sum(r["games"] for r in shown["rows"]) == 12
    assert {r["label"]: r["budget"] for r in shown["rows"]} == {
        "random": "no search",
        "heuristic": "no search",
        "uct-5": "5 rollouts",
    }
    with open_store(db) as store:
        assert [g.index for g in store.games("tiny")] == list(range(6))


def test_progress_counts_rate_and_time_left(capsys: pytest.CaptureFixture[str]) -> None:
    from tournament.ladder.run import Progress

    lines: list[str] = []
    plain = Progress(10, 4, bar=False, out=lines.append)
    plain.start -= 2.0  # two seconds ago
    plain.advance("game 5")
    plain.advance("game 6")
    assert plain.rate() == pytest.approx(1.0, rel=0.05)  # 2 games in this run's 2 s
    left = plain.left()
    assert left is not None and left == pytest.approx(4.0, rel=0.05)
    assert lines[-1].startswith("[6/10  1.0") and lines[-1].endswith("left]  game 6")
    bar = Progress(3, 0, bar=True)  # the rich bar, drawn to a non-terminal here
    bar.advance("game 1")
    bar.close()
    assert "game 1" in capsys.readouterr().out


def test_slow_ladders_show_their_rate_per_hour() -> None:
    from tournament.ladder.run import Progress, speed

    assert speed(0.5) == "0.50 games/s"
    assert speed(35 / 3600) == "35.0 games/h"  # 0.01 games/s would say nothing
    assert speed(0.0) == "0.00 games/s"
    lines: list[str] = []
    slow = Progress(200, 50, bar=False, out=lines.append)
    slow.start -= 200.0  # one game in 200 s: 18 an hour, 149 left in about 8.3 hours
    slow.advance("game 51")
    assert lines[0].startswith("[51/200  18.0 games/h  8h1") and lines[0].endswith("left]  game 51")


def _run_text(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], text: str, workers: int = 1
) -> tuple[int, str, str, str]:
    """Run the ladder file ``text`` in a new store: (exit code, out, err, the store)."""
    path = tmp_path / "ladder.toml"
    path.write_text(text, encoding="utf-8")
    db = str(tmp_path / "games.db")
    code, out, err = _cli(["run", str(path), "--workers", str(workers), "--db", db], capsys)
    return code, out, err, db


@pytest.mark.parametrize(
    ("command", "said"),
    [
        ("{missing}", ["stopped: game ", "cannot start", "run again to go on"]),
        # A Python agent whose file is not where the command says: python starts and exits
        # at once. A broken command, not a string of lost games.
        (
            "{{python}} no/such/agent.py {{seed}}",
            [
                "entrant 'ghost': its program (",
                "no/such/agent.py",
                "exited with code 2 before it answered a single prompt",
            ],
        ),
    ],
    ids=["cannot-start", "ends-at-once"],
)
def test_a_game_that_cannot_be_played_stops_the_run_and_says_why(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], command: str, said: list[str]
) -> None:
    program = command.format(missing=tmp_path / "no-such-program")
    text = (
        '[ladder]\nname = "broken"\ngames = 4\nplayers = 2\nvictory_points = 4\n'
        '[[entrant]]\nname = "random"\nbot = "random"\n'
        f'[[entrant]]\nname = "ghost"\ncommand = "{program}"\nbudget = "none"\n'
    )
    code, _, err, db = _run_text(tmp_path, capsys, text, workers=2)
    assert code == 1
    assert all(part in err for part in said), err
    with open_store(db) as store:
        assert store.games("broken") == []


@pytest.mark.parametrize("board", ["balanced", "fair", "preset:balanced-227"])
def test_every_block_plays_on_one_board_of_the_kind_asked_for(board: str) -> None:
    from boards.fairness import FairnessParams, FairnessScorer
    from boards.options import BalanceOptions
    from boards.presets import load_preset
    from boards.validate import layout_violations
    from tournament.ladder.config import parse_config
    from tournament.ladder.games import make_tasks, play_game

    ladder: dict[str, object] = {
        "name": "b",
        "games": 4,
        "players": 2,
        "victory_points": 3,
        "board": board,
    }
    if board == "fair":
        ladder["min_fairness"] = 0.96
    config = parse_config(
        {
            "ladder": ladder,
            "entrant": [{"name": "r", "bot": "random"}, {"name": "h", "bot": "heuristic"}],
        }
    )
    tasks = make_tasks(config, make_ladder_schedule(2, 2, 4, seed=5), config.entrant)
    boards = [t.engine_config().make_board(t.game.seed) for t in tasks]
    assert boards[0] == boards[1] and boards[2] == boards[3]  # a block shares its board
    for b in boards:
        if board == "balanced":
            assert layout_violations(b.terrain, b.tokens, 3, BalanceOptions()) == []
        elif board == "fair":
            scorer = FairnessScorer(3, FairnessParams(players=2))
            assert scorer.fairness(b.terrain, b.tokens, b.harbours) >= 0.96
        else:
            assert b == load_preset("balanced-227")
    if board != "preset:balanced-227":
        assert boards[0] != boards[2]  # the next block draws another
    record = play_game(tasks[0])
    assert record.winner is not None
    assert tasks[0].config_json["board"] == board


def test_a_self_play_ladder_says_its_counts_are_per_seat(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    text = (
        '[ladder]\nname = "pair"\ngames = 2\nplayers = 4\nvictory_points = 4\n'
        '[[entrant]]\nname = "r1"\nbot = "random"\n[[entrant]]\nname = "r2"\nbot = "random"\n'
    )
    code, out, _, db = _run_text(tmp_path, capsys, text)
    assert code == 0 and "self-play: some entrants held several seats" in out
    code, out, _ = _cli(["show", "pair", "--db", db], capsys)
    assert code == 0 and "self-play:" in out
