"""A board given as a layout is held to the rules of its radius, with a sentence naming the
fault; a layout may say that its 6s and 8s touch."""

from __future__ import annotations

import pytest

import engine
from protocol import messages as m
from protocol.options import game_config
from protocol.payloads import BoardPayload, board_from_payload, board_to_payload


def _touching_reds() -> BoardPayload:
    """A standard layout with a 6 moved beside an 8."""
    board = engine.new_game(engine.GameConfig(), seed=3).board
    topo = board.topo
    tokens = list(board.tokens)
    six = tokens.index(6)
    eight = next(h for h, n in enumerate(tokens) if n == 8)
    beside = next(n for n in topo.hex_neighbours[eight] if tokens[n] not in (0, 6, 8))
    tokens[six], tokens[beside] = tokens[beside], tokens[six]
    return board_to_payload({**board.to_dict(), "tokens": tokens})


def test_a_layout_with_a_six_beside_an_eight_is_refused_naming_the_hexes() -> None:
    layout = _touching_reds()
    with pytest.raises(engine.ConfigError, match=r"hexes \d+ and \d+ are neighbours"):
        game_config(m.GameOptions(board="layout", layout=layout))


def test_a_layout_may_let_its_reds_touch() -> None:
    layout = _touching_reds().model_copy(update={"reds_may_touch": True})
    config = game_config(m.GameOptions(board="layout", layout=layout))
    assert config.board is not None and config.board.reds_may_touch
    assert board_to_payload(config.board.to_dict()) == layout
    assert board_from_payload(layout)["reds_may_touch"] is True
