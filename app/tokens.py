"""Seat tokens on a person's machine. A token is the seat, so it never goes on a command
line (any local user can read those): commands read it from a file, or from standard input
(``-``), and write the one a seat was given to a file only its owner can read."""

from __future__ import annotations

import contextlib
import getpass
import os
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

from websockets.exceptions import InvalidURI
from websockets.uri import parse_uri

STDIN = "-"
"""The token file that means standard input."""
MAX_TOKEN = 128
"""The longest token the protocol carries."""


class TokenError(Exception):
    """A token that cannot be read or saved, with the reason in words."""


def read_token(source: str) -> str:
    """The seat token in the file ``source``, or on standard input for ``-`` (asked for
    without echo when standard input is a terminal): its first line, without the spaces
    around it. Raises :class:`TokenError` when there is none to read, it is empty or longer
    than a token can be, or the file cannot be read."""
    if source == STDIN:
        if sys.stdin is None:
            raise TokenError("no standard input to read the token from")
        tty = sys.stdin.isatty()
        line = getpass.getpass("seat token: ") if tty else sys.stdin.readline()
        where = "standard input"
    else:
        try:
            with open(source, encoding="utf-8") as file:
                line = file.readline()
        except (OSError, UnicodeDecodeError) as exc:
            why = exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc)
            raise TokenError(f"cannot read the token from {source}: {why}") from exc
        where = source
    token = line.strip()
    if not token:
        raise TokenError(f"no token in {where} (its first line is empty)")
    if len(token) > MAX_TOKEN:
        raise TokenError(f"the first line of {where} is not a token (too long)")
    return token


def write_private(path: Path, text: str) -> None:
    """Write ``text`` to ``path``, readable and writable by its owner alone, creating the
    folder if need be. The file is replaced whole (written beside it, then renamed), so a
    reader finds the old file or the new one, never a part. Raises ``OSError``."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, temp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.")  # mode 0600
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as file:
            file.write(text)
            file.flush()
            os.fsync(file.fileno())
        os.replace(temp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(temp)
        raise


def save_token(path: Path, token: str) -> None:
    """Write ``token`` to ``path`` (one line) with :func:`write_private`. Raises
    :class:`TokenError` if it cannot be written."""
    try:
        write_private(path, token + "\n")
    except OSError as exc:
        raise TokenError(f"cannot save the token to {path}: {exc.strerror or exc}") from exc


def _seats() -> Path:
    """The folder of kept seats' tokens, in the data directory (imported here: a bot's
    process has no use for the storage package)."""
    from storage import data_dir

    return data_dir() / "seats"


def seat_file(game: str, seat: int) -> Path:
    """Where the terminal client keeps the token of a seat a person holds:
    ``seats/GAME-SEAT.token`` in the data directory (a game id's characters other than
    letters, digits, ``-`` and ``_`` as ``_``: the server names the game, not the path)."""
    safe = "".join(c if c.isascii() and (c.isalnum() or c in "-_") else "_" for c in game)
    return _seats() / f"{safe}-{seat}.token"


@dataclass(frozen=True)
class KeptSeat:
    """A seat whose token the terminal client keeps: the file, the token, the server it
    was taken on, the game, and the code it was joined by (an invite code or the game id)."""

    path: Path
    token: str
    url: str
    game: str
    code: str


def keep_seat(url: str, game: str, seat: int, token: str, code: str) -> Path:
    """Keep the token of ``seat`` in ``game`` on the server at ``url``, taken by ``code``,
    in :func:`seat_file` (only its owner can read it): the token on the first line, as
    ``--token-file`` reads it, then where it belongs, for :func:`kept_seat`. Returns the
    file; raises :class:`TokenError` if it cannot be written."""
    path = seat_file(game, seat)
    lines = [token, f"url {url}", f"game {game}", f"code {code}"]
    try:
        write_private(path, "\n".join(lines) + "\n")
    except OSError as exc:
        raise TokenError(f"cannot save the token to {path}: {exc.strerror or exc}") from exc
    return path


def _server(url: str) -> tuple[bool, str, int, str] | None:
    """What makes two URLs name the same server, or None for one that is not a URL."""
    try:
        uri = parse_uri(url)
    except InvalidURI:
        return None
    return (uri.secure, uri.host.lower().rstrip("."), uri.port, uri.path or "/")


def kept_seat(url: str, code: str) -> KeptSeat | None:
    """The seat kept (:func:`keep_seat`) for the game ``code`` names (its invite code or
    its id) on the server at ``url``; the newest if there are several. None when none is
    kept."""
    server = _server(url)
    folder = _seats()
    found: list[tuple[float, KeptSeat]] = []
    for path in folder.glob("*.token") if folder.is_dir() else ():
        try:
            lines = path.read_text(encoding="utf-8").splitlines()
            when = path.stat().st_mtime
        except (OSError, UnicodeDecodeError):
            continue
        if not lines or not lines[0].strip():
            continue
        said = dict(line.partition(" ")[::2] for line in lines[1:])
        game, at = said.get("game", ""), said.get("url", "")
        if not game or server is None or _server(at) != server:
            continue
        if code in (game, said.get("code")):
            seat = KeptSeat(path, lines[0].strip(), at, game, said.get("code") or game)
            found.append((when, seat))
    return max(found, key=lambda x: x[0])[1] if found else None
