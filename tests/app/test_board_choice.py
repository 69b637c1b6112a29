"""``--board`` and its companions as game options (app.board_choice)."""

from __future__ import annotations

from pathlib import Path

import pytest

from app.board_choice import balance_rules, board_fields
from boards.files import board_json
from boards.presets import load_preset
from protocol import messages as m
from protocol.payloads import board_to_payload


def test_server_made_boards_pass_their_options_along() -> None:
    assert board_fields("random") == {"board": "random"}
    fair = board_fields("fair", min_fairness=0.97)
    assert fair == {"board": "fair", "min_fairness": 0.97}
    balanced = board_fields("balanced", balance=["max_pips=12", "separate-terrain=no"])
    assert balanced["balance"] == m.BalanceRules(max_pips=12, separate_terrain=False)
    m.GameOptions(**balanced)  # the fields make valid options


def test_presets_and_board_files(tmp_path: Path) -> None:
    assert board_fields("preset:balanced-227") == {"board": "preset", "preset": "balanced-227"}
    board = load_preset("balanced-229")
    path = tmp_path / "mine.json"
    path.write_text(board_json(board))
    fields = board_fields(str(path))
    assert fields == {"board": "layout", "layout": board_to_payload(board.to_dict()), "radius": 3}
    m.GameOptions(**fields)


@pytest.mark.parametrize(
    ("board", "kwargs", "says"),
    [
        ("random", {"balance": ["max_pips=12"]}, "--balance goes with --board balanced"),
        ("balanced", {"min_fairness": 0.9}, "--min-fairness goes with --board fair"),
        ("/no/such/board.json", {}, "no such board or file; --board takes random .*spiral"),
        ("nosuch", {}, r"preset:NAME .*\(presets: balanced-183"),
        ("preset:nope", {}, "no preset 'nope'; there are balanced-183"),
        ("preset:balanced-126", {}, "'balanced-126' is no longer shipped .*there are balanced-183"),
        ("balanced-236", {}, "--board balanced-236: .*no longer shipped .*there are balanced-183"),
        ("balanced", {"balance": ["max_pips"]}, "NAME=VALUE"),
        ("balanced", {"balance": ["wobble=3"]}, "no balance rule 'wobble'"),
        ("balanced", {"balance": ["max_pips=lots"]}, "whole number or none"),
        ("balanced", {"balance": ["spread_reds=maybe"]}, "true or false"),
        ("balanced", {"balance": ["max_pips=99"]}, "--balance max_pips"),
    ],
)
def test_mistakes_are_named(board: str, kwargs: dict[str, object], says: str) -> None:
    with pytest.raises(ValueError, match=says):
        board_fields(board, **kwargs)  # type: ignore[arg-type]


def test_a_bound_can_be_lifted() -> None:
    assert balance_rules(["max_pips=none", "min_pips=4"]) == m.BalanceRules(
        max_pips=None, min_pips=4
    )
