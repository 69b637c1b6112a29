"""The ``--board`` option of ``hexhaven play`` and ``hexhaven host``, as game options.

``random``, ``spiral``, ``balanced`` and ``fair`` are made by the server; ``preset:NAME`` names
a shipped board; anything else is a board file (``hexhaven board generate --out``), which
is read here and sent as the game's layout.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import fields
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from boards.errors import BoardFileError
from boards.files import load_board
from boards.options import BalanceOptions
from boards.presets import RETIRED, preset_names, unknown_preset
from protocol import messages as m
from protocol.payloads import board_to_payload

MADE_BY_SERVER = ("random", "spiral", "balanced", "fair")
BOARD_HELP = (
    "random (the official set-up), spiral (the rulebook's), balanced (a constraint model's "
    "board), fair (a random set-up that scores fair), preset:NAME (a shipped board: "
    "hexhaven board presets), or a board file"
)
_RULES = {f.name for f in fields(BalanceOptions)} - {"separate_reds"}


def _value(name: str, text: str) -> bool | int | None:
    """A ``--balance`` value: a flag's true/false, a bound's integer or ``none``."""
    low = text.strip().lower()
    if name.startswith("max_") or name.startswith("min_"):
        if low == "none":
            return None
        if not low.lstrip("-").isdigit():
            raise ValueError(f"--balance {name} takes a whole number or none, not {text!r}")
        return int(low)
    if low in ("true", "yes", "on", "1"):
        return True
    if low in ("false", "no", "off", "0"):
        return False
    raise ValueError(f"--balance {name} takes true or false, not {text!r}")


def balance_rules(pairs: Sequence[str]) -> m.BalanceRules:
    """The constraints given as ``NAME=VALUE`` pairs (the rest at their defaults). Raises
    ValueError naming the bad pair."""
    given: dict[str, Any] = {}
    for pair in pairs:
        name, eq, text = pair.partition("=")
        name = name.strip().replace("-", "_")
        if not eq:
            raise ValueError(f"--balance takes NAME=VALUE, not {pair!r}")
        if name not in _RULES:
            raise ValueError(f"no balance rule {name!r}; there are {', '.join(sorted(_RULES))}")
        given[name] = _value(name, text)
    try:
        return m.BalanceRules(**given)
    except ValidationError as exc:
        first = exc.errors()[0]
        raise ValueError(f"--balance {first['loc'][0]}: {first['msg']}") from exc


def board_fields(
    board: str, *, min_fairness: float | None = None, balance: Sequence[str] = ()
) -> dict[str, Any]:
    """The game options' board fields for a ``--board`` value. Raises ValueError with a
    sentence for the person (an unreadable board file, options that do not go together)."""
    if balance and board != "balanced":
        raise ValueError("--balance goes with --board balanced")
    if min_fairness is not None and board != "fair":
        raise ValueError("--min-fairness goes with --board fair")
    if board in MADE_BY_SERVER:
        out: dict[str, Any] = {"board": board}
        if balance:
            out["balance"] = balance_rules(balance)
        if min_fairness is not None:
            out["min_fairness"] = min_fairness
        return out
    if board.startswith("preset:"):
        name = board.removeprefix("preset:")
        if name not in preset_names():
            raise ValueError(unknown_preset(name))
        return {"board": "preset", "preset": name}
    try:
        loaded = load_board(board)
    except BoardFileError as exc:
        if not Path(board).exists():  # not a board this knows, nor a file
            if board in RETIRED:
                raise ValueError(f"--board {board}: {unknown_preset(board)}") from exc
            raise ValueError(
                f"--board {board}: no such board or file; --board takes {BOARD_HELP} "
                f"(presets: {', '.join(preset_names())})"
            ) from exc
        raise ValueError(f"--board {board}: {exc}") from exc
    layout = board_to_payload(loaded.to_dict())
    return {"board": "layout", "layout": layout, "radius": loaded.radius}
