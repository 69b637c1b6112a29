"""Board files: the JSON of :meth:`engine.board.Board.to_dict`, read back through
:meth:`engine.board.Board.from_layout`, and the files the board lab writes.

A file holds ``{"radius": 3, "terrain": [...], "tokens": [...], "harbours": [...],
"harbour_layout": 2}``: terrain per hex (0 hills, 1 forest, 2 pasture, 3 fields,
4 mountains, 5 desert), number token per hex (0 on a desert), harbour kind per harbour slot
(0-4 a 2:1 harbour of that resource, 5 a 3:1 harbour), and which slots those are: layout 2,
the printed frame's, for every board made now; layout 1, the evenly spaced slots, when the
file does not say (files written before boards said it). An entry of ``board search``'s
output (a ``board`` key beside its scores) reads as well, and so does the whole output:
``FILE`` gives its best board (the first of ``fairest``, best by the search's rank),
``FILE#N`` its board ``#N`` (the kept entry whose ``index`` is N).
"""

from __future__ import annotations

import errno
import json
from pathlib import Path

from boards.errors import BoardFileError, OutputError
from engine.board import Board
from engine.constants import HARBOUR_LAYOUT_EVEN
from engine.errors import BoardError, ConfigError
from engine.state import GameConfig

_SHOWN_INDICES = 10
"""How many of a search's board indices an error message lists."""


def board_from_dict(data: object) -> Board:
    """The board a decoded board file describes. Raises :class:`BoardFileError`."""
    if isinstance(data, dict) and "board" in data and "terrain" not in data:
        data = data["board"]
    if not isinstance(data, dict):
        raise BoardFileError("a board is a JSON object with terrain, tokens and harbours")
    try:
        return Board.from_layout(
            data["terrain"],
            data["tokens"],
            data["harbours"],
            int(data.get("radius", 3)),
            reds_may_touch=data.get("reds_may_touch") is True,
            harbour_layout=int(data.get("harbour_layout", HARBOUR_LAYOUT_EVEN)),
        )
    except KeyError as exc:
        raise BoardFileError(f"a board file needs {exc.args[0]!r}") from exc
    except (BoardError, TypeError, ValueError) as exc:
        raise BoardFileError(f"not a legal board: {exc}") from exc


def load_board(spec: str) -> Board:
    """A board from a file path (a board file, or ``board search``'s output as ``FILE`` or
    ``FILE#N``), ``random:SEED[:RADIUS]`` / ``spiral:SEED[:RADIUS]`` for the board a game
    with that seed plays (``engine.new_game`` with that set-up and radius), or
    ``preset:NAME`` for a shipped board (:mod:`boards.presets`).
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
            s, r = int(seed), int(radius or 3)
        except ValueError as exc:
            raise BoardFileError(f"{spec!r}: seed and radius are integers") from exc
        try:
            if kind == "spiral":
                return GameConfig(board_setup="spiral", radius=r).make_board(s)
            return GameConfig(board_setup="random", radius=r).make_board(s)
        except (BoardError, ConfigError) as exc:
            raise BoardFileError(f"{spec}: {exc}") from exc
    path, entry = _split_entry(spec)
    try:
        text = Path(path).read_text()
    except OSError as exc:
        raise BoardFileError(f"cannot read {path}: {exc.strerror}") from exc
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise BoardFileError(f"{path} is not JSON: {exc}") from exc
    if _is_search_output(data):
        return board_from_dict(_search_entry(data, entry, path))
    if entry is not None:
        raise BoardFileError(
            f"{path} is a single board, not board search's output; drop the #{entry}"
        )
    return board_from_dict(data)


def _split_entry(spec: str) -> tuple[str, int | None]:
    """``FILE#N`` as ``(FILE, N)``; anything else (or a file really named so) as is."""
    path, sep, entry = spec.rpartition("#")
    if not sep or not path or Path(spec).exists():
        return spec, None
    if entry.isdigit():
        return path, int(entry)
    if Path(path).exists():
        raise BoardFileError(
            f"{spec}: after the # give the index of a board the search kept, as in {path}#N"
        )
    return spec, None


def _is_search_output(data: object) -> bool:
    return isinstance(data, dict) and "fairest" in data and "terrain" not in data


def _search_entry(data: dict[str, object], entry: int | None, path: str) -> object:
    """The entry of a search's output that ``entry`` names (None: the first, the best)."""
    kept: list[dict[str, object]] = []
    for key in ("fairest", "least_fair"):
        entries = data.get(key)
        if isinstance(entries, list):
            kept += [e for e in entries if isinstance(e, dict)]
    if not kept:
        raise BoardFileError(f"{path} is board search's output but keeps no boards")
    if entry is None:
        return kept[0]
    for e in kept:
        if e.get("index") == entry:
            return e
    indices = sorted({i for e in kept if isinstance(i := e.get("index"), int)})
    shown = ", ".join(f"#{i}" for i in indices[:_SHOWN_INDICES])
    more = f" and {len(indices) - _SHOWN_INDICES} more" if len(indices) > _SHOWN_INDICES else ""
    raise BoardFileError(
        f"{path} keeps no board #{entry}; it keeps {shown}{more} (give one as {path}#N)"
    )


def board_json(board: Board) -> str:
    """A board as the text of a board file."""
    return json.dumps(board.to_dict()) + "\n"


def check_output(path: str | Path) -> None:
    """Raise :class:`OutputError` when ``path`` plainly cannot be written: its folder does
    not exist or is not a folder, or the path itself is a folder."""
    target = Path(path)
    folder = target.parent
    if target.is_dir():
        raise OutputError(f"cannot write {path}: it is a folder")
    if not folder.exists():
        raise OutputError(f"cannot write {path}: the folder {folder} does not exist")
    if not folder.is_dir():
        raise OutputError(f"cannot write {path}: {folder} is not a folder")


def write_output(path: str | Path, data: str | bytes) -> None:
    """Write ``data`` (text or bytes) to ``path``. Raises :class:`OutputError` naming the
    path and the reason when it cannot be written."""
    check_output(path)
    target = Path(path)
    try:
        if isinstance(data, bytes):
            target.write_bytes(data)
        else:
            target.write_text(data)
    except OSError as exc:
        if exc.errno == errno.ENOENT:
            reason = f"the folder {target.parent} does not exist"
        else:
            reason = (exc.strerror or str(exc)).lower()
        raise OutputError(f"cannot write {path}: {reason}") from exc
