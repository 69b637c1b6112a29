"""A small curated set of fair, balanced boards of radius 3, shipped as board files.

Each ``balanced-SEED.json`` is ``hexhaven board generate --seed SEED`` with the default
options (so it can be made again), chosen as the five best by combined index (the mean of
balance and fairness) among seeds 0-299; see docs/boards.md.
"""

from __future__ import annotations

import json
from importlib import resources

from boards.files import board_from_dict
from engine.board import Board


def preset_names() -> list[str]:
    """The names of the shipped boards (file names without ``.json``), sorted."""
    return sorted(
        entry.name.removesuffix(".json")
        for entry in resources.files(__package__).iterdir()
        if entry.name.endswith(".json")
    )


def load_preset(name: str) -> Board:
    """A shipped board by name. Raises ``KeyError`` for an unknown name."""
    if name not in preset_names():
        raise KeyError(f"no preset {name!r}; there are {', '.join(preset_names())}")
    text = resources.files(__package__).joinpath(f"{name}.json").read_text()
    return board_from_dict(json.loads(text))
