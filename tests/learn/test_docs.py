"""docs/learning.md says what the code does: its tables are the encoding's blocks and the
index's ranges, and its examples run."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest

from features import action_index, encoding

DOC = Path(__file__).resolve().parents[2] / "docs" / "learning.md"
DASH = "\N{EN DASH}"


def _rows(first_header: str) -> list[list[str]]:
    """The cells of the table whose header starts with ``first_header``."""
    lines = DOC.read_text().splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith(first_header))
    rows = []
    for line in lines[start + 2 :]:
        if not line.startswith("|"):
            break
        rows.append([cell.strip() for cell in line.strip("|").split("|")])
    return rows


def test_the_observation_table_is_the_encodings_blocks() -> None:
    enc = encoding(3, 4)
    rows = _rows("| block |")
    assert [r[0].strip("`") for r in rows] == [b.name for b in enc.blocks]
    for row, block in zip(rows, enc.blocks, strict=True):
        assert row[2] == f"{block.offset}{DASH}{block.offset + block.size - 1}", block.name
        assert float(row[3]) == block.high, block.name
        assert row[4] == block.meaning, block.name


def test_the_action_table_is_the_indexs_ranges() -> None:
    index = action_index(3, 4)
    rows = _rows("| range |")
    assert [r[0].strip("`") for r in rows] == [r.name for r in index.ranges]
    for row, r in zip(rows, index.ranges, strict=True):
        assert row[2] == f"{r.start}{DASH}{r.start + r.size - 1}", r.name
    sizes = {players: action_index(3, players).size for players in (2, 3, 4)}
    text = DOC.read_text()
    assert f"{sizes[2]} actions for 2 players, {sizes[3]} for 3, {sizes[4]} for 4" in text
    entries = [f"{encoding(3, p).size:,}" for p in (2, 3, 4)]
    assert f"{entries[0]} entries\nfor 2 players, {entries[1]} for 3, {entries[2]} for 4" in text


@pytest.mark.parametrize("number", [0, 1])
def test_the_quick_start_examples_run(number: int) -> None:
    blocks = re.findall(r"```python\n(.*?)```", DOC.read_text(), re.S)
    scope: dict[str, Any] = {}
    exec(compile(blocks[number], f"{DOC}:python-{number}", "exec"), scope)
    if number == 0:
        assert scope["done"] is True
    else:
        assert scope["game"].unwrapped.game_state.winner >= 0
