"""``hexhaven serve --tls-cert --tls-key``, a real server process: a game with one of its
bot processes (which trust exactly its certificate) is played to the end by an SDK client
trusting the test CA; clients that do not trust it are refused with a sentence that says
so; ``/healthz`` and ``/metrics`` answer over https; plain ``ws://`` to its port fails
cleanly; certificate and key files it cannot use are refused at start."""

from __future__ import annotations

import asyncio
import http.client
import json
import os
import signal
import ssl
import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
from websockets.exceptions import InvalidMessage

from app.cli import main
from bots.random_player import RandomAgent
from clients.sdk import play
from clients.tls import trusting
from protocol import SUBPROTOCOL_JSON
from protocol import messages as m
from tests.certs import Certs, make_certs
from tests.server.client import Client
from tests.server.test_restart import free_port

ROOT = Path(__file__).resolve().parents[2]
START_TIMEOUT = 60.0


@dataclass(frozen=True)
class TLSServer:
    port: int
    url: str
    """``wss://localhost:PORT``: the name its certificate carries."""
    log: Path
    """Its log (JSON lines)."""
    certs: Certs


def _https_get(port: int, path: str, cafile: Path) -> tuple[int, str, str]:
    """Status, content type and body of ``GET path`` over https to localhost."""
    context = ssl.create_default_context(cafile=str(cafile))
    conn = http.client.HTTPSConnection("localhost", port, context=context, timeout=10)
    try:
        conn.request("GET", path)
        response = conn.getresponse()
        return response.status, response.getheader("Content-Type", ""), response.read().decode()
    finally:
        conn.close()


@pytest.fixture(scope="module")
def certs(tmp_path_factory: pytest.TempPathFactory) -> Certs:
    return make_certs(tmp_path_factory.mktemp("certs"))


@pytest.fixture(scope="module")
def tls_server(certs: Certs, tmp_path_factory: pytest.TempPathFactory) -> Iterator[TLSServer]:
    """``hexhaven serve`` with TLS on 127.0.0.1, once healthy; stopped after the tests."""
    folder = tmp_path_factory.mktemp("tls-server")
    port = free_port()
    log = folder / "server.log"
    serve = [
        *("serve", "--host", "127.0.0.1", "--port", str(port), "--db", str(folder / "g.db")),
        *("--tls-cert", str(certs.cert), "--tls-key", str(certs.key), "--log-level", "info"),
    ]
    with log.open("w") as err:
        proc = subprocess.Popen(
            [sys.executable, "-m", "app.cli", *serve],
            cwd=ROOT,
            stdout=subprocess.DEVNULL,
            stderr=err,
        )
    try:
        deadline = time.monotonic() + START_TIMEOUT
        while True:
            assert proc.poll() is None, f"the server exited: {log.read_text()}"
            try:
                if _https_get(port, "/healthz", certs.ca)[0] == 200:
                    break
            except OSError:
                assert time.monotonic() < deadline, "the server did not start"
                time.sleep(0.05)
        yield TLSServer(port, f"wss://localhost:{port}", log, certs)
    finally:
        if proc.poll() is None:
            proc.send_signal(signal.SIGTERM)
            proc.wait(timeout=30)


def _logged(log: Path, event: str, game: str) -> list[dict[str, object]]:
    lines = [json.loads(line) for line in log.read_text().splitlines() if line.startswith("{")]
    return [x for x in lines if x.get("event") == event and x.get("game") == game]


async def test_a_game_with_a_bot_process_is_played_to_its_end_over_tls(
    tls_server: TLSServer,
) -> None:
    """An SDK client trusting the test CA plays a server's bot process to the end. The bot
    reaches the server at 127.0.0.1, a name its certificate does not carry, trusting that
    certificate alone; it plays its seat over its own connection and exits cleanly."""
    url, ca = tls_server.url, tls_server.certs.ca
    host = await Client.open(0, SUBPROTOCOL_JSON, url=url, tls=trusting(ca))
    await host.hello()
    options = m.GameOptions(players=2, victory_points=5, bots=[m.BotSeat(kind="random")])
    await host.send(m.CreateGame(options=options))
    game = (await host.expect(m.GameCreated)).game
    await host.send(m.Watch(game=game))
    playing = asyncio.create_task(play(RandomAgent(seed=7), url, game, cafile=ca))
    try:
        while not any(p.name == "random" for p in (await host.expect(m.Players)).players):
            pass
        await host.send(m.StartGame(game=game))
        over = await asyncio.wait_for(playing, 120)
    finally:
        playing.cancel()
    assert over is not None and over.winner is not None
    assert await host.expect(m.GameOver) == over  # the spectator saw the same end
    rosters = [x.players for x in host.received if isinstance(x, m.Players)]
    assert [p.bot for p in rosters[-1]] == [False, True]
    assert any(all(p.connected for p in roster) for roster in rosters)  # the bot's own link
    await host.close()
    async with asyncio.timeout(30):
        while not _logged(tls_server.log, "bot.exited", game):
            await asyncio.sleep(0.05)
    assert [x["code"] for x in _logged(tls_server.log, "bot.exited", game)] == [0]
    assert _logged(tls_server.log, "bot.failed", game) == []


def _bot(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    """``hexhaven bot`` asking for a seat by an invite code no game has."""
    return subprocess.run(
        [sys.executable, "-m", "app.cli", "bot", "--invite=NOSUCHCODE", *args],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=60,
        env=env,
    )


def _env_without_trust(**extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in ("SSL_CERT_FILE", "SSL_CERT_DIR")}
    return {**env, **extra}


async def test_a_client_that_does_not_trust_the_server_is_refused_clearly(
    tls_server: TLSServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Without the test CA, the SDK and ``hexhaven bot`` refuse the server, and the bot says
    how to trust it; with ``--cafile``, or ``SSL_CERT_FILE`` as in Python's ssl, they reach
    it (and are told the invite code is unknown). A bot trusting another certificate of the
    same CA by ``--server-cert`` is refused too."""
    monkeypatch.delenv("SSL_CERT_FILE", raising=False)
    monkeypatch.delenv("SSL_CERT_DIR", raising=False)
    url, certs = tls_server.url, tls_server.certs
    with pytest.raises(ssl.SSLCertVerificationError):
        await play(RandomAgent(), url, "nosuchgame")
    refused = _bot(f"--url={url}", env=_env_without_trust())
    assert refused.returncode == 2
    assert refused.stderr.strip() == (
        f"hexhaven bot: cannot reach the server at {url}: the server's certificate is not "
        "trusted (unable to get local issuer certificate): give the CA certificate that "
        "signed it with --cafile FILE, or add it to the system's trust store"
    )
    loopback = f"wss://127.0.0.1:{tls_server.port}"
    pinned_other = _bot(f"--url={loopback}", f"--server-cert={certs.other}")
    assert pinned_other.returncode == 2 and "certificate is not trusted" in pinned_other.stderr
    for reached in (
        _bot(f"--url={url}", f"--cafile={certs.ca}", env=_env_without_trust()),
        _bot(f"--url={url}", env=_env_without_trust(SSL_CERT_FILE=str(certs.ca))),
        _bot(f"--url={loopback}", f"--server-cert={certs.cert}"),
    ):
        assert reached.returncode == 1, reached.stderr
        assert reached.stderr.strip() == (
            "hexhaven bot: the server refused the seat: no game has that invite code"
        )


async def test_health_and_metrics_answer_over_https_and_plain_ws_fails_cleanly(
    tls_server: TLSServer,
) -> None:
    port, ca = tls_server.port, tls_server.certs.ca
    assert await asyncio.to_thread(_https_get, port, "/healthz", ca) == (
        200,
        "text/plain; charset=utf-8",
        "ok\n",
    )
    status, kind, body = await asyncio.to_thread(_https_get, port, "/metrics", ca)
    assert status == 200 and kind.startswith("text/plain") and "hexhaven_connections" in body
    plain = f"ws://localhost:{port}"
    with pytest.raises(InvalidMessage):
        await play(RandomAgent(), plain, "nosuchgame")
    refused = _bot(f"--url={plain}")
    assert refused.returncode == 2
    assert refused.stderr.strip() == (
        f"hexhaven bot: cannot reach the server at {plain}: no websocket answer (did not "
        "receive a valid HTTP response): if the server serves TLS, its URL starts with wss://"
    )
    # The server is unharmed: it still answers.
    assert (await asyncio.to_thread(_https_get, port, "/healthz", ca))[0] == 200


@pytest.mark.parametrize(
    ("files", "said"),
    [
        (("--tls-cert", "cert"), "--tls-cert needs --tls-key too"),
        (("--tls-key", "key"), "--tls-key needs --tls-cert too"),
        (
            ("--tls-cert", "missing", "--tls-key", "key"),
            "cannot read the certificate file {missing}: No such file or directory",
        ),
        (
            ("--tls-cert", "key", "--tls-key", "key"),
            "the certificate file {key} holds no PEM certificate",
        ),
        (
            ("--tls-cert", "cert", "--tls-key", "cert"),
            "the key file {cert} holds no PEM private key",
        ),
        (
            ("--tls-cert", "cert", "--tls-key", "other_key"),
            "the key {other_key} is not the key of the certificate in {cert}",
        ),
        (
            ("--tls-cert", "cert", "--tls-key", "encrypted_key"),
            "the key {encrypted_key} is encrypted: give it unencrypted, in a file readable "
            "by the server's user alone",
        ),
    ],
)
def test_serve_refuses_certificate_files_it_cannot_use(
    files: tuple[str, ...],
    said: str,
    certs: Certs,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    paths = {
        "cert": certs.cert,
        "key": certs.key,
        "other_key": certs.other_key,
        "encrypted_key": certs.encrypted_key,
        "missing": certs.cert.with_name("missing.pem"),
    }
    argv = [str(paths[x]) if x in paths else x for x in files]
    db = tmp_path / "g.db"
    assert main(["serve", "--port", "0", "--db", str(db), *argv]) == 2
    assert capsys.readouterr().err.strip() == "hexhaven serve: " + said.format(**paths)
    assert list(tmp_path.iterdir()) == []  # refused before anything was made
