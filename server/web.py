"""The web client, served over plain HTTP on the server's own port.

A browser's GET that is not a websocket handshake gets the page or one of its assets; the
page then speaks the protocol like any other client. The files are the built client shipped
as package data (``server/webclient/``, written by ``npm --prefix web run build``), read
once. Only those files are served, by name: the page at any path ending in ``/`` and each
asset by the last segment of its path, so the page works behind a reverse proxy under a
path prefix (``/a/``) with its relative asset URLs. Besides the built files, ``options.json``
tells the page's new-game form what this server offers: the boards it makes, its shipped
board presets and the bot kinds with their strengths. Anything else is a 404.

Only GET and HEAD are answered (a HEAD with the GET's headers and no body); any other
method is 405 with ``Allow: GET, HEAD``. Every answer ends its connection
(``Connection: close``): a request pipelined behind another is not answered.
"""

from __future__ import annotations

import functools
import json
from dataclasses import dataclass
from importlib import resources

from boards.presets import load_preset, preset_names
from protocol import messages as m

CONTENT_TYPES: dict[str, str] = {
    ".html": "text/html; charset=utf-8",
    ".js": "text/javascript; charset=utf-8",
    ".css": "text/css; charset=utf-8",
    ".svg": "image/svg+xml",
    ".ico": "image/x-icon",
    ".json": "application/json",
}
"""The content type of each kind of file the client ships (its build record,
``build.json``, is not served)."""

METHODS = ("GET", "HEAD")
"""The HTTP methods the server answers; any other gets 405."""
ALLOW = ", ".join(METHODS)
"""The ``Allow`` header of a 405."""
INDEX = "index.html"
OPTIONS = "options.json"
BOARDS_MADE = ("random", "spiral", "balanced", "fair")
"""The boards the server makes itself for a new game (``GameOptions.board``), presets aside."""

CSP = (
    "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
    "connect-src 'self'; manifest-src 'self'; base-uri 'none'; form-action 'none'; "
    "frame-ancestors 'none'"
)
"""The page's Content-Security-Policy: its own files, and the websocket back to where it came
from (``'self'`` covers ``ws:`` and ``wss:`` on the page's host)."""

HEADERS: dict[str, str] = {
    "Content-Security-Policy": CSP,
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "no-referrer",
    "Cache-Control": "no-cache",
}
"""Headers of every file served (and of a 404)."""


@dataclass(frozen=True)
class WebFile:
    """One file of the client: its bytes and content type."""

    body: bytes
    content_type: str


@functools.cache
def files() -> dict[str, WebFile]:
    """The shipped client's files by name (empty when the package holds no build)."""
    out: dict[str, WebFile] = {}
    root = resources.files("server") / "webclient"
    if not root.is_dir():
        return out
    for entry in root.iterdir():
        kind = CONTENT_TYPES.get("." + entry.name.rpartition(".")[2])
        if entry.is_file() and kind is not None and not entry.name.startswith("."):
            out[entry.name] = WebFile(entry.read_bytes(), kind)
    out.pop("build.json", None)
    if out:
        out[OPTIONS] = WebFile(offered(), CONTENT_TYPES[".json"])
    return out


def offered() -> bytes:
    """``options.json``: the boards, presets (name and radius) and bot kinds with their
    strengths that a new game may ask this server for."""
    presets = [{"name": name, "radius": load_preset(name).radius} for name in preset_names()]
    bots = {kind: list(strengths) for kind, strengths in m.BOT_KINDS.items()}
    return json.dumps({"boards": list(BOARDS_MADE), "presets": presets, "bots": bots}).encode()


def lookup(path: str) -> WebFile | None:
    """The file a request path names, or None: the page for a path ending in ``/`` (or for
    ``index.html``), an asset by its name after the last ``/``. A path with a ``..``
    segment, a backslash or a percent sign names nothing."""
    path = path.partition("?")[0].partition("#")[0]
    if not path.startswith("/") or "\\" in path or "%" in path:
        return None
    if any(part in (".", "..") for part in path.split("/")):
        return None
    name = path.rpartition("/")[2] or INDEX
    return files().get(name)


__all__ = [
    "ALLOW",
    "BOARDS_MADE",
    "CONTENT_TYPES",
    "CSP",
    "HEADERS",
    "INDEX",
    "METHODS",
    "OPTIONS",
    "WebFile",
    "files",
    "lookup",
    "offered",
]
