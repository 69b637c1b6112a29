"""What clients trust over TLS, against an in-process server serving the test CA's
certificate for ``localhost``: the CA file (by name), exactly the server's certificate
(by any address, as the server's bots do) and nothing else; the terminal client's link and
record fetch over ``wss://``; the commands' ``--cafile`` mistakes, ``wss://`` to a server
without TLS, and what ``hexhaven host`` and ``join`` say to type with a CA file."""

from __future__ import annotations

import asyncio
import ssl
from collections.abc import AsyncIterator
from pathlib import Path
from types import SimpleNamespace
from typing import cast

import pytest

from app.cli import main
from app.play import _farewell, invite_lines
from bots.random_player import RandomAgent
from clients.sdk import play
from clients.tls import TrustError, connect_options, pinned, tls_problem, trusting
from clients.tui.app import HexhavenApp
from clients.tui.link import Link, Seating, SeatLost, fetch_record
from protocol import messages as m
from server.app import HexhavenServer
from server.tls import ServerTLS
from tests.certs import Certs, make_certs
from tests.threaded_server import server_in_thread


@pytest.fixture(scope="module")
def certs(tmp_path_factory: pytest.TempPathFactory) -> Certs:
    return make_certs(tmp_path_factory.mktemp("certs"))


@pytest.fixture
async def port(certs: Certs) -> AsyncIterator[int]:
    """A server on 127.0.0.1 serving TLS with the test certificate."""
    tls = ServerTLS(certs.cert, certs.key)
    srv = HexhavenServer(tls=tls)
    try:
        async with srv.running("127.0.0.1", 0) as ws_server:
            assert srv.url.startswith("wss://127.0.0.1:")
            yield srv.port_of(ws_server)
    finally:
        tls.close()


async def test_the_ca_file_trusts_the_server_by_the_name_its_certificate_carries(
    port: int, certs: Certs
) -> None:
    """Joining an unknown game returns None (the seat refused): the connection was made."""
    by_name, by_address = f"wss://localhost:{port}", f"wss://127.0.0.1:{port}"
    assert await play(RandomAgent(), by_name, "nosuchgame", cafile=certs.ca) is None
    with pytest.raises(ssl.SSLCertVerificationError, match="IP address mismatch") as refused:
        await play(RandomAgent(), by_address, "nosuchgame", cafile=certs.ca)
    assert tls_problem(refused.value, by_address) == (
        f"the server's certificate does not carry the name in {by_address} (IP address "
        "mismatch, certificate is not valid for '127.0.0.1'.): connect by a name it carries"
    )
    with pytest.raises(ValueError, match="not both"):
        await play(RandomAgent(), by_name, "g", cafile=certs.ca, tls=trusting())


async def test_a_pinned_certificate_is_trusted_by_any_address_and_no_other_is(
    port: int, certs: Certs
) -> None:
    """How the server's bots reach it: the one certificate, at an address it does not name.
    Another certificate of the same CA, for the same name, is not trusted, nor is the CA's
    own certificate taken for the server's."""
    loopback = f"wss://127.0.0.1:{port}"
    assert await play(RandomAgent(), loopback, "nosuchgame", tls=pinned(certs.cert)) is None
    with pytest.raises(ssl.SSLCertVerificationError):
        await play(RandomAgent(), loopback, "nosuchgame", tls=pinned(certs.other))
    with pytest.raises(ssl.SSLCertVerificationError) as refused:
        await play(RandomAgent(), loopback, "nosuchgame", tls=pinned(certs.ca))
    assert tls_problem(refused.value, loopback) == (  # the CA signed it, but it is not the one
        "the server's certificate is not trusted (not the certificate trusted): give the CA "
        "certificate that signed it with --cafile FILE, or add it to the system's trust store"
    )


def test_the_server_gives_its_bots_a_copy_of_exactly_its_own_certificate(certs: Certs) -> None:
    tls = ServerTLS(certs.cert, certs.key)
    copy = tls.bots_trust
    text = copy.read_text()
    assert text.count("BEGIN CERTIFICATE") == 1 and certs.cert.read_text().startswith(text)
    tls.close()
    assert not copy.exists()


async def test_the_terminal_client_links_and_fetches_records_over_wss(
    port: int, certs: Certs
) -> None:
    url = f"wss://localhost:{port}"
    link = Link(url, Seating("watch", game="nosuchgame"), tls=trusting(certs.ca))
    with pytest.raises(SeatLost) as lost:
        await link.open()
    assert lost.value.error.code == m.ErrorCode.UNKNOWN_GAME
    with pytest.raises(SeatLost) as lost:
        await fetch_record(url, "nosuchgame", tls=trusting(certs.ca))
    assert lost.value.error.code == m.ErrorCode.UNKNOWN_GAME
    with pytest.raises(ssl.SSLCertVerificationError):
        await Link(url, Seating("watch", game="nosuchgame")).open()


def test_a_context_goes_only_to_wss_urls() -> None:
    context = trusting()
    assert connect_options("wss://play.example.org/", context) == {"ssl": context}
    assert connect_options("WSS://play.example.org/", context) == {"ssl": context}
    assert connect_options("ws://127.0.0.1:8765", context) == {}
    assert connect_options("wss://play.example.org/", None) == {}


def test_files_that_hold_no_certificate_are_refused_by_name(certs: Certs, tmp_path: Path) -> None:
    with pytest.raises(TrustError, match=f"^{certs.key} holds no PEM certificate$"):
        trusting(certs.key)
    with pytest.raises(TrustError, match=f"^{certs.key} holds no PEM certificate$"):
        pinned(certs.key)
    missing = tmp_path / "missing.pem"
    with pytest.raises(TrustError, match=f"^cannot read {missing}: No such file"):
        trusting(missing)


@pytest.mark.parametrize(
    ("argv", "said"),
    [
        (
            ["join", "ws://127.0.0.1:1", "CODE", "--cafile", "{ca}"],
            "hexhaven join: --cafile is for a server that serves TLS, whose URL starts with wss://",
        ),
        (
            ["watch", "wss://127.0.0.1:1", "g1", "--cafile", "{missing}"],
            "hexhaven watch: --cafile: cannot read {missing}: No such file or directory",
        ),
        (
            ["host", "wss://127.0.0.1:1", "--cafile", "{key}"],
            "hexhaven host: --cafile: {key} holds no PEM certificate",
        ),
        (
            ["bot", "--url=wss://127.0.0.1:1", "--invite=C", "--server-cert={missing}"],
            "hexhaven bot: --server-cert: cannot read {missing}: No such file or directory",
        ),
        (
            ["agent", "--url=ws://127.0.0.1:1", "--invite=C", "--cmd=true", "--cafile={ca}"],
            "hexhaven agent: --cafile is for a server that serves TLS, whose URL starts with "
            "wss://",
        ),
        (
            ["replay", "g1", "--cafile", "{ca}"],
            "hexhaven replay: --cafile is for a game fetched from a server (URL GAME)",
        ),
    ],
)
def test_commands_say_what_is_wrong_with_a_cafile(
    argv: list[str],
    said: str,
    certs: Certs,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    paths = {"ca": certs.ca, "key": certs.key, "missing": tmp_path / "missing.pem"}
    assert main([arg.format(**paths) for arg in argv]) == 2
    assert capsys.readouterr().err.strip() == said.format(**paths)


def test_wss_to_a_server_without_tls_says_which_scheme_it_takes(
    capsys: pytest.CaptureFixture[str],
) -> None:
    with server_in_thread() as (url, _):
        wss = url.replace("ws://", "wss://")
        assert main(["bot", f"--url={wss}", "--invite=CODE"]) == 2
    said = capsys.readouterr().err.strip()
    # The reason in brackets is the TLS library's (the server answers the TLS hello with an
    # HTTP 400): what matters is the failed handshake and the scheme to use instead.
    assert said.startswith(f"hexhaven bot: cannot reach the server at {wss}: the TLS handshake")
    assert said.endswith("if the server does not serve TLS, its URL starts with ws://")


def test_a_host_trusting_a_ca_file_tells_friends_and_itself_to_give_it_too(
    capsys: pytest.CaptureFixture[str],
) -> None:
    url = "wss://play.example.org:8765"
    lines = invite_lines(url, "K7", m.GameOptions(), "certs/ca.pem")
    assert lines[:2] == [
        f"  hexhaven join {url} K7 --name NAME --cafile CA_FILE",
        "  (CA_FILE: a copy of certs/ca.pem, the CA certificate that signed the server's)",
    ]
    assert invite_lines(url, "K7", m.GameOptions())[0] == f"  hexhaven join {url} K7 --name NAME"
    left = SimpleNamespace(model=SimpleNamespace(over=None, game="g1", token="secret"))
    _farewell(
        cast(HexhavenApp, left), url, Path("g1.token"), code="K7", ours=True, cafile="certs/ca.pem"
    )
    assert capsys.readouterr().out == (
        "Your seat is kept. Back with:\n"
        f"  hexhaven join {url} K7 --cafile certs/ca.pem\n"
        "(from another machine, with a copy of its token file:\n"
        f"  hexhaven join {url} g1 --cafile certs/ca.pem --token-file FILE)\n"
        "The token is in g1.token.\n"
    )
    _farewell(
        cast(HexhavenApp, left), url, Path("g1.token"), code="K7", ours=False, cafile="ca.pem"
    )
    assert capsys.readouterr().out == (
        "Your seat is kept. Back with:\n"
        f"  hexhaven join {url} g1 --cafile ca.pem --token-file g1.token\n"
    )


async def test_a_failed_tls_handshake_leaves_no_connection_behind(certs: Certs) -> None:
    """A client that does not speak TLS is dropped in the TLS handshake; the server keeps
    nothing of it (nor waits for it when it stops)."""
    tls = ServerTLS(certs.cert, certs.key)
    srv = HexhavenServer(tls=tls)
    try:
        async with srv.running("127.0.0.1", 0) as listener:
            reader, writer = await asyncio.open_connection("127.0.0.1", srv.port_of(listener))
            writer.write(b"GET / HTTP/1.1\r\nHost: x\r\n\r\n")  # plain text, not a handshake
            async with asyncio.timeout(30):
                while await reader.read(4096):  # until the server ends the socket
                    pass
            writer.close()
            assert srv.router.connections == set()
            by_name = f"wss://localhost:{srv.port_of(listener)}"
            assert await play(RandomAgent(), by_name, "nosuchgame", cafile=certs.ca) is None
    finally:
        tls.close()
