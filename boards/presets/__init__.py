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


RETIRED = frozenset({"balanced-126", "balanced-226", "balanced-236", "balanced-262"})
"""Presets shipped when the harbours lay on the evenly spaced slots; the presets were chosen
again for the printed frame's slots."""


def unknown_preset(name: str) -> str:
    """The sentence refusing a preset name that is not shipped, naming the presets there are."""
    there = ", ".join(preset_names())
    if name in RETIRED:
        return (
            f"preset {name!r} is no longer shipped (the presets were chosen again with the "
            f"harbours on the printed frame's slots); there are {there}"
        )
    return f"no preset {name!r}; there are {there}"


def load_preset(name: str) -> Board:
    """A shipped board by name. Raises ``KeyError`` for an unknown name, with
    :func:`unknown_preset`'s sentence."""
    if name not in preset_names():
        raise KeyError(unknown_preset(name))
    text = resources.files(__package__).joinpath(f"{name}.json").read_text()
    return board_from_dict(json.loads(text))
