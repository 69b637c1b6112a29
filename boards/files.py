"""Board files: the JSON of :meth:`engine.board.Board.to_dict`, read back through
:meth:`engine.board.Board.from_layout`.

A file holds ``{"radius": 3, "terrain": [...], "tokens": [...], "harbours": [...]}``:
terrain per hex (0 hills, 1 forest, 2 pasture, 3 fields, 4 mountains, 5 desert), number
token per hex (0 on a desert), harbour kind per harbour slot (0-4 a 2:1 harbour of that
resource, 5 a 3:1 harbour). An entry of ``board search``'s output (a ``board`` key beside
its scores) reads as well.
"""

from __future__ import annotations

import json
from pathlib import Path

from boards.errors import BoardFileError
from engine.board import Board, random_board, spiral_board
from engine.errors import BoardError
from engine.rng import Rng


def board_from_dict(data: object) -> Board:
    """The board a decoded board file describes. Raises :class:`BoardFileError`."""
    if isinstance(data, dict) and "board" in data and "terrain" not in data:
        data = data["board"]
    if not isinstance(data, dict):
        raise BoardFileError("a board is a JSON object with terrain, tokens and harbours")
    try:
        return Board.from_layout(
            data["terrain"], data["tokens"], data["harbours"], int(data.get("radius", 3))
        )
    except KeyError as exc:
        raise BoardFileError(f"a board file needs {exc.args[0]!r}") from exc
    except (BoardError, TypeError, ValueError) as exc:
        raise BoardFileError(f"not a legal board: {exc}") from exc


def load_board(spec: str) -> Board:
    """A board from a file path, ``random:SEED[:RADIUS]`` / ``spiral:SEED[:RADIUS]`` for
    the engine's set-ups, or ``preset:NAME`` for a shipped board (:mod:`boards.presets`).
    Raises :class:`BoardFileError`."""
    kind, _, rest = spec.partition(":")
    if kind == "preset" and rest:
        from boards.presets import load_preset

        try:
            return load_preset(rest)
        except KeyError as exc:
            raise BoardFileError(str(exc.args[0])) from exc
    if kind in ("random", "spiral") and rest:
        seed, _, radius = rest.partition(":")
        try:
            rng, r = Rng(int(seed)), int(radius or 3)
        except ValueError as exc:
            raise BoardFileError(f"{spec!r}: seed and radius are integers") from exc
        make = random_board if kind == "random" else spiral_board
        try:
            return make(rng, r)
        except BoardError as exc:
            raise BoardFileError(str(exc)) from exc
    try:
        text = Path(spec).read_text()
    except OSError as exc:
        raise BoardFileError(f"cannot read {spec}: {exc.strerror}") from exc
    try:
        return board_from_dict(json.loads(text))
    except json.JSONDecodeError as exc:
        raise BoardFileError(f"{spec} is not JSON: {exc}") from exc


def board_json(board: Board) -> str:
    """A board as the text of a board file."""
    return json.dumps(board.to_dict()) + "\n"
