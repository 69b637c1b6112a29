"""docs/engine.md's opening example runs as written and plays a game to its end; the
package exports every action and event class, as the page says."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import engine
from tests.engine.test_notation import EXAMPLE

DOC = Path(__file__).resolve().parents[1] / "docs" / "engine.md"


def test_the_opening_example_plays_a_game_to_its_end() -> None:
    code = re.findall(r"```python\n(.*?)```", DOC.read_text(encoding="utf-8"), re.S)[0]
    code += "\nassert state.is_over and state.winner >= 0\n"
    ran = subprocess.run(
        [sys.executable, "-c", code],
        cwd=DOC.parents[1],
        capture_output=True,
        text=True,
        timeout=120,  # an example that never ends fails here instead of hanging
        check=False,
    )
    assert ran.returncode == 0, ran.stderr[-2000:]
    last = ran.stdout.rstrip().splitlines()[-1]
    assert last.startswith("View(") and "seat=0" in last


def test_a_star_import_brings_every_action_and_event() -> None:
    scope: dict[str, Any] = {}
    exec("from engine import *", scope)
    for kind in (*engine.ACTION_TYPES, *engine.EVENT_TYPES):
        assert scope[kind.__name__] is kind
    assert scope["new_game"] is engine.new_game


def test_the_notation_example_is_the_tests_and_reads_back() -> None:
    section = DOC.read_text(encoding="utf-8").split("## Position notation", 1)[1]
    example = re.findall(r"```\n(.*?)\n```", section, re.S)[0]
    assert example == EXAMPLE
    assert engine.format_position(engine.parse_position(example)) == example
