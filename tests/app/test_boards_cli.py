"""``hexhaven board`` through :func:`app.boards.register`: every subcommand, on tmp files."""

from __future__ import annotations

import argparse
import importlib.util
import json
from pathlib import Path
from typing import Any

import pytest

from app.boards import main, register, score_report
from boards.fairness import FairnessParams
from boards.files import load_board
from boards.options import BalanceOptions
from boards.presets import load_preset
from boards.search import search
from boards.validate import board_violations
from engine import GameConfig, new_game
from engine.board import check_board
from tests.boards.layouts import good_board


def write_good(path: Path) -> Path:
    path.write_text(json.dumps(good_board().to_dict()))
    return path


def test_register_adds_the_board_command() -> None:
    parser = argparse.ArgumentParser(prog="hexhaven")
    register(parser.add_subparsers(dest="command", required=True))
    commands = {
        "generate": [],
        "score": ["b.json"],
        "search": [],
        "render": ["b.json", "--out", "b.svg"],
        "presets": [],
        "topology": ["--radius", "5"],
    }
    for sub, rest in commands.items():
        args = parser.parse_args(["board", sub, *rest])
        assert callable(args.run)


def test_generate_writes_a_valid_board(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "b.json"
    assert main(["generate", "--seed", "5", "--out", str(out), "--time-limit", "5"]) == 0
    board = load_board(str(out))
    check_board(board)
    assert board_violations(board, BalanceOptions()) == []
    assert "seed 5" in capsys.readouterr().err
    again = tmp_path / "c.json"
    assert main(["generate", "--seed", "5", "--out", str(again), "--time-limit", "5"]) == 0
    assert again.read_text() == out.read_text()
    # to standard output when no --out is given
    assert main(["generate", "--seed", "5", "--time-limit", "5"]) == 0
    assert capsys.readouterr().out == out.read_text()


def test_generate_options_and_failures(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "b.json"
    args = ["generate", "--out", str(out), "--no-separate-terrain", "--max-pips", "none"]
    assert main([*args, "--max-token-sum", "22", "--time-limit", "5"]) == 0
    assert main(["generate", "--max-pips", "8", "--time-limit", "5"]) == 2
    err = capsys.readouterr().err
    assert "no radius-3 board keeps all these rules: terrain apart," in err
    assert "at most 8 pips at an intersection" in err  # the rules in words
    assert main(["generate", "--no-separate-reds", "--time-limit", "5"]) == 2


def test_generate_count(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["generate", "--count", "--limit", "20", "--time-limit", "5"]) == 0
    assert capsys.readouterr().out.startswith("layouts: at least 20 (stopped after ")
    good = write_good(tmp_path / "g.json")
    code = main(
        ["generate", "--count", "--terrain-of", str(good), "--limit", "5", "--time-limit", "5"]
    )
    assert code == 0
    assert capsys.readouterr().out.startswith("layouts: at least 5 ")


def test_score(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    good = write_good(tmp_path / "g.json")
    assert main(["score", str(good), "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert [p["seat"] for p in report["placements"]] == [1, 2, 3, 4, 4, 3, 2, 1]
    for key in ("fairness", "balance", "combined", "harbour_balance", "production_spread"):
        assert 0 <= report[key] <= 1
    assert report["combined"] == pytest.approx(
        (report["balance"] + report["fairness"]) / 2, abs=1e-5
    )
    assert main(["score", str(good), "--values", "grain=1.3,ore=1.2", "--players", "3"]) == 0
    text = capsys.readouterr().out
    assert "fairness" in text and "seat 3:" in text and "seat 4:" not in text
    assert main(["score", "random:3"]) == 0
    assert main(["score", str(tmp_path / "missing.json")]) == 2
    (tmp_path / "bad.json").write_text('{"terrain": [0]}')
    assert main(["score", str(tmp_path / "bad.json")]) == 2
    with pytest.raises(SystemExit):
        main(["score", str(good), "--values", "gold=2"])


def test_search(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "s.json"
    assert (
        main(["search", "--boards", "300", "--top", "2", "--workers", "1", "--out", str(out)]) == 0
    )
    data = json.loads(out.read_text())
    assert data["boards"] == 300 and len(data["fairest"]) == 2 and len(data["least_fair"]) == 2
    assert data["fairest"][0]["fairness"] >= data["fairest"][1]["fairness"]
    assert data["least_fair"][0]["fairness"] <= data["least_fair"][1]["fairness"]
    assert data["fairest"][1]["fairness"] >= data["least_fair"][1]["fairness"]
    assert "300/300 boards" in capsys.readouterr().err
    # every kept board is a board file of its own, and scores as recorded
    kept = tmp_path / "kept.json"
    kept.write_text(json.dumps(data["fairest"][0]))
    assert main(["score", str(kept), "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["fairness"] == data["fairest"][0]["fairness"]


def test_search_is_the_same_on_several_processes() -> None:
    one = search(240, 3, seed=4, workers=1, chunk_size=60, rank="combined")
    two = search(240, 3, seed=4, workers=2, chunk_size=60, rank="combined")
    assert one.fairest == two.fairest and one.least_fair == two.least_fair


def test_render(tmp_path: Path) -> None:
    good = write_good(tmp_path / "g.json")
    svg = tmp_path / "b.svg"
    assert main(["render", str(good), "--out", str(svg), "--picks"]) == 0
    text = svg.read_text()
    assert text.startswith("<svg") and text.rstrip().endswith("</svg>")
    assert text.count("<title>pick ") == 8 and "fairness" in text
    plain = tmp_path / "plain.svg"
    assert main(["render", str(good), "--out", str(plain), "--title", "x"]) == 0
    assert "<title>pick " not in plain.read_text()
    if importlib.util.find_spec("cairosvg") is not None:
        png = tmp_path / "b.png"
        assert main(["render", str(good), "--out", str(png), "--picks"]) == 0
        assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


@pytest.mark.parametrize(
    "args",
    [
        ["generate", "--time-limit", "5"],
        ["search", "--boards", "20", "--top", "2", "--workers", "1"],
        ["render", "preset:balanced-227"],
    ],
)
def test_out_into_a_missing_folder_is_one_clear_line(
    args: list[str], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    name = "b.svg" if args[0] == "render" else "b.json"
    target = tmp_path / "nope" / name
    assert main([*args, "--out", str(target)]) == 2
    err = capsys.readouterr().err
    # refused before any work: one line, no progress bar, no traceback
    assert err == (
        f"hexhaven board: cannot write {target}: the folder {target.parent} does not exist\n"
    )
    assert not target.parent.exists()


def test_out_onto_a_folder_is_refused(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["generate", "--time-limit", "5", "--out", str(tmp_path)]) == 2
    assert capsys.readouterr().err == f"hexhaven board: cannot write {tmp_path}: it is a folder\n"


@pytest.mark.parametrize("name", ["board.pdf", "board", "board.svg.txt"])
def test_render_refuses_what_is_not_svg_or_png(
    name: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    target = tmp_path / name
    assert main(["render", "preset:balanced-227", "--out", str(target)]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"hexhaven board: cannot write {target}: a picture is a .svg or .png")
    assert err.count("\n") == 1 and "wrote" not in err
    assert not target.exists()


def test_render_takes_an_upper_case_svg(tmp_path: Path) -> None:
    target = tmp_path / "BOARD.SVG"
    assert main(["render", "preset:balanced-227", "--out", str(target)]) == 0
    assert target.read_text().startswith("<svg")


def test_render_png_without_cairosvg_is_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    real = importlib.util.find_spec

    def without_cairosvg(name: str, *args: Any) -> Any:
        return None if name == "cairosvg" else real(name, *args)

    monkeypatch.setattr(importlib.util, "find_spec", without_cairosvg)  # as if not installed
    target = tmp_path / "b.png"
    assert main(["render", "preset:balanced-227", "--out", str(target)]) == 2
    assert capsys.readouterr().err == (
        "hexhaven board: PNG needs cairosvg (pip install '.[png]'); write .svg instead\n"
    )
    assert not target.exists()


def test_score_takes_a_search_output_and_its_entries(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "s.json"
    args = ["search", "--boards", "60", "--top", "2", "--workers", "1", "--quiet"]
    assert main([*args, "--out", str(out)]) == 0
    data = json.loads(out.read_text())
    capsys.readouterr()
    assert main(["score", str(out), "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["fairness"] == data["fairest"][0]["fairness"]
    worst = data["least_fair"][0]
    assert main(["score", f"{out}#{worst['index']}", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["fairness"] == worst["fairness"]
    assert main(["score", f"{out}#99999"]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"hexhaven board: {out} keeps no board #99999; it keeps #")


def test_score_random_seed_scores_the_games_board(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["score", "random:7", "--json"]) == 0
    from_spec = json.loads(capsys.readouterr().out)
    played = new_game(GameConfig(), 7).board
    assert from_spec == json.loads(json.dumps(score_report(played, FairnessParams())))


def test_terrain_of_keeps_the_terrain_and_the_harbours(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    preset = load_preset("balanced-227")
    out = tmp_path / "b.json"
    args = ["generate", "--seed", "3", "--time-limit", "5", "--out", str(out)]
    assert main([*args, "--terrain-of", "preset:balanced-227"]) == 0
    board = load_board(str(out))
    assert board.terrain == preset.terrain
    assert board.harbours == preset.harbours
    assert board_violations(board, BalanceOptions()) == []
    # seed 3 alone shuffles other harbours, so the ones kept came from the preset
    assert main([*args]) == 0
    assert load_board(str(out)).harbours != preset.harbours


def test_terrain_of_that_breaks_the_terrain_rules_says_which_and_how_to_lift_them(
    capsys: pytest.CaptureFixture[str],
) -> None:
    from boards.validate import layout_violations

    board = load_board("random:3")  # a random island: terrain side by side
    faults = layout_violations(board.terrain, board.tokens, 3, BalanceOptions())
    first = next(f for f in faults if f.rule in ("same_terrain", "brick_lumber"))
    args = ["generate", "--time-limit", "5", "--terrain-of", "random:3"]
    assert main(args) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith("hexhaven board: --terrain-of random:3: its terrain breaks the terrain")
    assert first.detail in err and "add --no-separate-" in err
    assert main([*args, "--no-separate-terrain", "--no-separate-brick-lumber"]) == 0
    made = json.loads(capsys.readouterr().out)
    assert made["terrain"] == [int(t) for t in board.terrain]  # lifted: the island is kept
    # Keeping the terrain rules, a good island with a bound no numbers can meet is blamed
    # on the rules, in words.
    tight = ["generate", "--time-limit", "5", "--terrain-of", "preset:balanced-227"]
    assert main([*tight, "--max-pips", "7"]) == 2
    err = capsys.readouterr().err
    assert "no radius-3 board on the given terrain keeps all these rules" in err


def test_help_names_every_kind_of_board(capsys: pytest.CaptureFixture[str]) -> None:
    for sub in ("score", "render"):
        with pytest.raises(SystemExit):
            main([sub, "--help"])
        text = " ".join(capsys.readouterr().out.split())
        for kind in ("random:SEED", "spiral:SEED", "preset:NAME", "FILE#N"):
            assert kind in text, (sub, kind)


@pytest.mark.parametrize(
    ("args", "says"),
    [
        (["--limit", "3"], "--limit goes with --count"),
        (["--terrain-only"], "--terrain-only goes with --count"),
        (["--limit", "3", "--terrain-only"], "--limit and --terrain-only go with --count"),
        (["--count", "--out", "c.json"], "--out goes without --count"),
        (["--count", "--seed", "4"], "--seed goes without --count"),
    ],
)
def test_generate_refuses_what_it_would_ignore(
    args: list[str], says: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "c.json"
    args = [str(out) if a == "c.json" else a for a in args]
    assert main(["generate", "--time-limit", "5", *args]) == 2
    captured = capsys.readouterr()
    assert captured.err.startswith("hexhaven board: ") and captured.err.count("\n") == 1
    assert says in captured.err
    assert captured.out == ""
    assert not out.exists()


@pytest.mark.parametrize(
    ("flag", "value"), [("--time-limit", "0"), ("--time-limit", "-1"), ("--limit", "0")]
)
def test_generate_refuses_limits_that_are_not_positive(
    flag: str, value: str, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit) as info:
        main(["generate", "--count", flag, value])
    assert info.value.code == 2
    err = capsys.readouterr().err
    assert f"argument {flag}: give " in err and f"not {value}" in err
