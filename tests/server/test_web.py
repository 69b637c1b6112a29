"""The server's port answers a browser with the web client: the page and its assets with
their content types and a Content-Security-Policy, under any path prefix, and 404 for
anything else (no way out of the client's files); a websocket handshake at the same paths
still opens a session. The shipped build matches the client's sources (web/)."""

from __future__ import annotations

import asyncio
import hashlib
import http.client
import json
from pathlib import Path

import pytest

from boards.presets import preset_names
from protocol import SUBPROTOCOL_MSGPACK
from protocol import messages as m
from server import web
from server.app import HexhavenServer
from tests.server.client import Client
from tests.server.test_restart import free_port, server_process

ROOT = Path(__file__).resolve().parents[2]


def get(port: int, path: str) -> tuple[int, dict[str, str], bytes]:
    """A plain HTTP GET sent as written (no normalising of the path)."""
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    try:
        conn.request("GET", path)
        reply = conn.getresponse()
        return reply.status, dict(reply.getheaders()), reply.read()
    finally:
        conn.close()


@pytest.fixture
async def port() -> object:
    srv = HexhavenServer()
    async with srv.running("127.0.0.1", 0) as ws_server:
        yield srv.port_of(ws_server)


async def test_the_page_and_its_assets_are_served_under_any_prefix(port: int) -> None:
    shipped = web.files()
    for prefix in ("/", "/a/", "/hexhaven/b/"):
        status, headers, body = await asyncio.to_thread(get, port, prefix)
        assert status == 200
        assert headers["Content-Type"] == "text/html; charset=utf-8"
        assert body == shipped["index.html"].body
        assert headers["Content-Security-Policy"] == web.CSP
        assert "connect-src 'self'" in web.CSP and "default-src 'none'" in web.CSP
        assert headers["X-Content-Type-Options"] == "nosniff"
        for name, kind in (("app.js", "text/javascript"), ("app.css", "text/css")):
            status, headers, body = await asyncio.to_thread(get, port, prefix + name)
            assert status == 200 and headers["Content-Type"].startswith(kind)
            assert body == shipped[name].body and int(headers["Content-Length"]) == len(body)
    status, _, body = await asyncio.to_thread(get, port, "/?invite=ABC#x")
    assert status == 200 and body == shipped["index.html"].body


async def test_the_page_refers_to_its_assets_by_relative_urls() -> None:
    page = web.files()["index.html"].body.decode()
    assert 'src="app.js"' in page and 'href="app.css"' in page
    assert "http" not in page.replace("http-equiv", "")


@pytest.mark.parametrize(
    "path",
    [
        "/nothing.js",
        "/../server/app.py",
        "/a/../app.py",
        "/%2e%2e/pyproject.toml",
        "/..%2fapp.js",
        "/app.py",
        "/web.py",
        "/__init__.py",
        "/.%2e/etc/passwd",
        "/a\\..\\app.js",
        "/./app.js",
        "/build.json",
        "/a/build.json",
    ],
)
async def test_anything_else_is_not_found(port: int, path: str) -> None:
    status, headers, body = await asyncio.to_thread(get, port, path)
    assert status == 404, path
    assert body == b"not found\n"
    assert headers["Content-Security-Policy"] == web.CSP


async def test_the_new_game_options_the_server_offers_are_served_beside_the_page(
    port: int,
) -> None:
    for path in ("/options.json", "/a/options.json"):
        status, headers, body = await asyncio.to_thread(get, port, path)
        assert status == 200 and headers["Content-Type"] == "application/json"
        assert headers["Content-Security-Policy"] == web.CSP
        offered = json.loads(body)
        assert offered["boards"] == ["random", "spiral", "balanced", "fair"]
        assert [p["name"] for p in offered["presets"]] == preset_names()
        assert {p["radius"] for p in offered["presets"]} == {3}
        assert offered["bots"] == {k: list(v) for k, v in m.BOT_KINDS.items()}
        # Every board and bot offered is one a new game may ask for.
        for board in offered["boards"]:
            assert m.GameOptions(board=board).board == board
        m.GameOptions(bots=[m.BotSeat(kind="uct", strength=s) for s in offered["bots"]["uct"]])


async def test_a_websocket_opens_at_the_pages_path(port: int) -> None:
    for path in ("/", "/a/"):
        client = await Client.open(port, SUBPROTOCOL_MSGPACK, path=path)
        await client.hello()
        await client.send(m.Ping(nonce=7))
        assert (await client.expect(m.Pong)).nonce == 7
        await client.close()


async def test_hexhaven_serve_serves_the_page(tmp_path: Path) -> None:
    port = free_port()
    async with server_process(tmp_path / "games.db", port):
        status, headers, body = await asyncio.to_thread(get, port, "/")
    assert status == 200 and headers["Content-Type"].startswith("text/html")
    assert body == web.files()["index.html"].body


def source_hash(web_dir: Path) -> str:
    """The sources' hash as web/build.mjs records it: each file's path (from web/) and
    SHA-256, in path order."""
    files = [p for p in (web_dir / "src").rglob("*") if p.is_file()]
    files += [web_dir / name for name in ("package.json", "package-lock.json", "build.mjs")]
    names = sorted(p.relative_to(web_dir).as_posix() for p in files)
    digest = {n: hashlib.sha256((web_dir / n).read_bytes()).hexdigest() for n in names}
    text = "".join(f"{n}\n{digest[n]}\n" for n in names)
    return hashlib.sha256(text.encode()).hexdigest()


def test_the_shipped_build_matches_the_source() -> None:
    """The built client in server/webclient/ was built from web/ as it is (run
    ``npm --prefix web ci && npm --prefix web run build`` after changing it), and nothing
    shipped was changed by hand since."""
    shipped = ROOT / "server" / "webclient"
    record = json.loads((shipped / "build.json").read_text())
    assert record["source"] == source_hash(ROOT / "web"), "rebuild the web client"
    names = sorted(p.name for p in shipped.iterdir() if p.name != "build.json")
    assert names == sorted(record["files"]) == ["app.css", "app.js", "index.html"]
    for name in names:
        assert hashlib.sha256((shipped / name).read_bytes()).hexdigest() == record["files"][name]
