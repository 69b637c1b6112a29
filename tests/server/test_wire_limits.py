"""What the server takes on the wire below the protocol: frames bounded in bytes and in the
time they take to arrive, plain HTTP requests answered once and by method, and frames
written together with the client's close still taking effect. Against a real server on
127.0.0.1 with raw sockets, and on tests/server/wire.py's stand-in transport with an
injected clock."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import AsyncIterator, Callable, Mapping, Sequence
from contextlib import asynccontextmanager
from typing import Any

import msgpack
import pytest
from structlog.testing import capture_logs
from websockets.client import ClientProtocol
from websockets.frames import Close, Frame, Opcode
from websockets.http11 import Response
from websockets.protocol import Event
from websockets.typing import Subprotocol
from websockets.uri import parse_uri

from protocol import SUBPROTOCOL_MSGPACK, Codec
from protocol import messages as m
from protocol.payloads import WireModel
from protocol.server_session import MAX_FRAME, ForGame, Limits
from server.app import HexhavenServer
from server.connection import Timing, read_limit
from server.limits import ServerLimits
from tests.server.client import Client
from tests.server.wire import Host, Pipe

TIMEOUT = 20.0
"""How long a condition may take before the test fails as hung (none waits it out when the
server works)."""

GET = b"GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n"


# --- helpers ----------------------------------------------------------------------------------
@asynccontextmanager
async def serving(**options: Any) -> AsyncIterator[tuple[HexhavenServer, int]]:
    """A real server on 127.0.0.1 made with ``options``; yields it and its port."""
    srv = HexhavenServer(**options)
    async with srv.running("127.0.0.1", 0) as listener:
        yield srv, srv.port_of(listener)


async def until(condition: Callable[[], bool]) -> None:
    """Wait until ``condition`` holds (failing after :data:`TIMEOUT`)."""
    async with asyncio.timeout(TIMEOUT):
        while not condition():
            await asyncio.sleep(0.01)


class Raw:
    """A websocket client on a raw socket: websockets' sans-I/O client protocol, whose
    output the test writes when it says, in one write (several frames together)."""

    def __init__(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.reader = reader
        self.writer = writer
        self.protocol = ClientProtocol(
            parse_uri("ws://127.0.0.1/"), subprotocols=[Subprotocol(SUBPROTOCOL_MSGPACK)]
        )
        self.codec = Codec(SUBPROTOCOL_MSGPACK)

    @classmethod
    async def open(cls, port: int) -> Raw:
        """Connected, its handshake done and its hello welcomed."""
        raw = cls(*await asyncio.open_connection("127.0.0.1", port))
        raw.protocol.send_request(raw.protocol.connect())
        raw.flush()
        events = await raw.events()
        assert isinstance(events[0], Response) and events[0].status_code == 101, events
        raw.queue(m.Hello(protocol=m.PROTOCOL_VERSION, client="raw"))
        raw.flush()
        await raw.expect(m.Welcome)
        return raw

    def queue(self, message: WireModel) -> None:
        """Frame a message, to be written by the next :meth:`flush`."""
        data = self.codec.encode(message)
        assert isinstance(data, bytes)
        self.protocol.send_binary(data)

    def flush(self) -> None:
        """Write what the client protocol has to send, in one write."""
        data = b"".join(self.protocol.data_to_send())
        if data:
            self.writer.write(data)

    async def events(self) -> list[Event]:
        """The events of the next read that gives any (none at the end of the socket)."""
        while True:
            async with asyncio.timeout(TIMEOUT):
                data = await self.reader.read(65536)
            if data:
                self.protocol.receive_data(data)
            else:
                self.protocol.receive_eof()
            events = self.protocol.events_received()
            if events or not data:
                return events

    async def expect(self, kind: type[Any]) -> Any:
        """The next message of this type (others skipped)."""
        while True:
            events = await self.events()
            assert events, f"the socket ended before a {kind.__name__}"
            for event in events:
                if isinstance(event, Frame) and event.opcode is Opcode.BINARY:
                    message = self.codec.decode_server(bytes(event.data))
                    if isinstance(message, kind):
                        return message

    async def closed(self) -> Close | None:
        """Read to the end of the socket; the close frame the server sent, if any."""
        while await self.events():
            pass
        self.writer.close()
        return self.protocol.close_rcvd


async def http(port: int, data: bytes) -> bytes:
    """Write ``data`` to the server in one write; everything it answers, to its end."""
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    try:
        writer.write(data)
        async with asyncio.timeout(TIMEOUT):
            return await reader.read()
    finally:
        writer.close()


def headers_of(reply: bytes) -> tuple[str, dict[str, str], bytes]:
    """A reply's status line, its headers (names in lower case) and its body."""
    head, _, body = reply.partition(b"\r\n\r\n")
    status, *lines = head.decode("latin-1").split("\r\n")
    fields = dict(line.split(": ", 1) for line in lines)
    return status, {k.lower(): v for k, v in fields.items()}, body


async def client(port: int) -> Client:
    c = await Client.open(port, SUBPROTOCOL_MSGPACK)
    await c.hello()
    return c


def errors(caplog: pytest.LogCaptureFixture, logs: Sequence[Mapping[str, Any]]) -> list[str]:
    """Errors and tracebacks logged, by the standard library's logging (asyncio's
    "Fatal error" among them) or structlog."""
    found = [r.getMessage() for r in caplog.records if r.levelno >= logging.ERROR]
    found += [str(e) for e in logs if e.get("log_level") in ("error", "critical")]
    return found + [str(e) for e in logs if "exc_info" in e or "exception" in e]


def frame_bytes(size: int) -> bytes:
    """A masked binary frame of ``size`` bytes, as a client writes it."""
    return Frame(Opcode.BINARY, bytes(size)).serialize(mask=True)


def leave(game: str) -> bytes:
    return bytes(msgpack.packb({"type": "leave", "game": game}))


def together(pipe: Pipe) -> None:
    """What the pipe's client has to send, read by the server in one read."""
    pipe.conn.data_received(b"".join(pipe.client.data_to_send()))


def fill_outbox(pipe: Pipe) -> None:
    """Send the pipe's client more than it reads, until the server stops reading it."""
    chat = m.ChatMessage(game="g", seat=None, name="spectator", text="x" * 400)
    while pipe.transport.reading:
        pipe.conn.send(chat)
    assert not pipe.transport.aborted


def games(pipe: Pipe) -> list[str]:
    """The games of the messages the pipe's host was handed, in order."""
    return [r.game for r in pipe.host.requests if isinstance(r, ForGame)]


# --- a frame's bytes and time --------------------------------------------------------------
async def test_a_frame_that_never_arrives_whole_is_closed_1008_and_others_play_on() -> None:
    """A frame announced a little over the frame limit (so it is buffered), sent but for
    its last kilobyte and then trickled a byte at a time (so the keepalive is content): at
    its deadline the server closes it 1008 and drops the socket, while another connection
    is answered throughout."""
    async with serving(timing=Timing(frame_timeout=0.5)) as (srv, port):
        other = await client(port)
        raw = await Raw.open(port)
        await until(lambda: srv.census().connections == 2)
        data = frame_bytes(MAX_FRAME + 1000)
        raw.writer.write(data[:-1024])

        async def trickle() -> None:
            for byte in data[-1024:]:
                raw.writer.write(bytes([byte]))
                await asyncio.sleep(0.05)

        trickling = asyncio.create_task(trickle())
        try:
            await other.send(m.Ping(nonce=1))
            assert (await other.expect(m.Pong)).nonce == 1
            close = await raw.closed()
        finally:
            trickling.cancel()
        assert close is not None and close.code == 1008
        await until(lambda: srv.census().connections == 1)
        await other.send(m.Ping(nonce=2))
        assert (await other.expect(m.Pong)).nonce == 2
        await other.close()


async def test_a_frame_over_the_limit_is_refused_and_one_over_twice_it_closes_1009() -> None:
    """What websockets buffers follows the server's frame limit: a frame a little over it
    is read and refused ``too_large`` (the connection kept); one announced over twice the
    limit closes the connection 1009 on its header alone, its payload never read."""
    limits = ServerLimits(connection=Limits(max_frame=1000))
    assert read_limit(1000) == 2000
    async with serving(limits=limits) as (srv, port):
        raw = await Raw.open(port)
        raw.writer.write(frame_bytes(1500))
        refused = await raw.expect(m.Error)
        assert refused.code == m.ErrorCode.TOO_LARGE
        raw.queue(m.Ping(nonce=3))
        raw.flush()
        assert (await raw.expect(m.Pong)).nonce == 3
        raw.writer.write(frame_bytes(2001)[:8])  # its header and mask, no payload
        close = await raw.closed()
        assert close is not None and close.code == 1009
        await until(lambda: srv.census().connections == 0)


async def test_a_frame_announced_at_a_mebibyte_closes_1009_at_once(server_port: int) -> None:
    raw = await Raw.open(server_port)
    raw.writer.write(frame_bytes(1024 * 1024)[:14])  # its header and mask, no payload
    close = await raw.closed()
    assert close is not None and close.code == 1009


def test_a_partial_frame_fails_1008_at_its_deadline_though_bytes_trickle_in() -> None:
    pipe = Pipe(timing=Timing(frame_timeout=10))
    pipe.hello()
    clock, conn = pipe.host.clock, pipe.conn
    pipe.client.send_binary(leave("abc") + bytes(3000))
    data = b"".join(pipe.client.data_to_send())
    clock.now = 1.0
    conn.data_received(data[:1000])
    conn.tick(1.0)
    clock.now = 8.0
    conn.data_received(data[1000:1001])  # a byte more: heard, and still not whole
    for now in (8.0, 10.9):
        conn.tick(now)
    assert pipe.open
    conn.tick(11.0)  # 10 s after the read that began it
    pipe.pull()
    assert pipe.client.close_rcvd is not None and pipe.client.close_rcvd.code == 1008
    assert pipe.transport.closed and not pipe.transport.aborted  # the close frame went out
    assert pipe.host.gone == [conn] and pipe.host.requests == []


def test_a_frame_whole_in_time_is_handled_and_stops_its_clock() -> None:
    pipe = Pipe(timing=Timing(frame_timeout=10))
    pipe.hello()
    clock, conn = pipe.host.clock, pipe.conn
    pipe.client.send_binary(leave("abc"))
    data = b"".join(pipe.client.data_to_send())
    clock.now = 1.0
    conn.data_received(data[:3])
    conn.tick(1.0)
    clock.now = 10.5
    conn.data_received(data[3:])
    assert games(pipe) == ["abc"]
    for now in (10.5, 11.0, 30.0):
        conn.tick(now)
    assert pipe.open and not pipe.transport.closed


def test_a_fragmented_message_is_due_whole_by_its_first_fragments_deadline() -> None:
    """Each fragment arrives whole and in time; the message does not: it fails 1008 at the
    deadline of its first fragment."""
    pipe = Pipe(timing=Timing(frame_timeout=10))
    pipe.hello()
    clock, conn = pipe.host.clock, pipe.conn
    data = leave("abc")
    clock.now = 1.0
    pipe.client.send_binary(data[:2], fin=False)
    pipe.push()
    conn.tick(1.0)
    for now, part in ((4.0, data[2:4]), (7.0, data[4:6])):
        clock.now = now
        pipe.client.send_continuation(part, fin=False)
        pipe.push()
        conn.tick(now)
    conn.tick(10.9)
    assert pipe.open
    conn.tick(11.0)
    pipe.pull()
    assert pipe.client.close_rcvd is not None and pipe.client.close_rcvd.code == 1008
    assert pipe.host.requests == []


def test_seconds_the_server_does_not_read_do_not_count_against_a_frame() -> None:
    """A frame begun before the server stopped reading (its client reads too slowly) is
    not failed while it is not read; its seconds start again once reading resumes."""
    pipe = Pipe(max_bytes=4000, timing=Timing(frame_timeout=10))
    pipe.hello()
    clock, conn = pipe.host.clock, pipe.conn
    pipe.client.send_binary(leave("abc"))
    data = b"".join(pipe.client.data_to_send())
    clock.now = 1.0
    conn.data_received(data[:3])
    fill_outbox(pipe)
    for now in (1.0, 20.0, 30.0):
        conn.tick(now)
    assert not pipe.transport.closed
    pipe.pull()  # the client reads: the server reads again
    assert pipe.transport.reading
    conn.tick(39.9)
    assert not pipe.transport.closed
    conn.tick(40.0)
    assert pipe.transport.closed and pipe.host.gone == [conn]


# --- plain HTTP -------------------------------------------------------------------------------
async def test_pipelined_requests_get_the_first_answer_and_a_clean_end(
    server_port: int, caplog: pytest.LogCaptureFixture
) -> None:
    with capture_logs() as logs:
        reply = await http(server_port, GET + GET)
    status, headers, body = headers_of(reply)
    assert status == "HTTP/1.1 200 OK" and headers["connection"] == "close"
    assert body == b"ok\n" and reply.count(b"HTTP/1.1") == 1
    assert errors(caplog, logs) == []
    reply = await http(server_port, GET)  # the server answers on
    assert headers_of(reply)[0] == "HTTP/1.1 200 OK"


async def test_head_gets_the_headers_alone_and_other_methods_405(server_port: int) -> None:
    for path in (b"/healthz", b"/"):
        got = headers_of(await http(server_port, b"GET " + path + b" HTTP/1.1\r\n\r\n"))
        head = headers_of(await http(server_port, b"HEAD " + path + b" HTTP/1.1\r\n\r\n"))
        assert head[0] == got[0] == "HTTP/1.1 200 OK"
        assert got[2] and head[2] == b""
        assert head[1]["content-length"] == got[1]["content-length"] == str(len(got[2]))
        assert head[1]["content-type"] == got[1]["content-type"]
    for method in (b"POST", b"PUT", b"DELETE", b"OPTIONS"):
        status, headers, body = headers_of(
            await http(server_port, method + b" /healthz HTTP/1.1\r\n\r\n")
        )
        assert status == "HTTP/1.1 405 Method Not Allowed", method
        assert headers["allow"] == "GET, HEAD" and method.decode() in body.decode()
    status, headers, _ = headers_of(
        await http(server_port, b"POST / HTTP/1.1\r\nContent-Length: 2\r\n\r\nhi")
    )
    assert status == "HTTP/1.1 400 Bad Request" and headers["connection"] == "close"


def test_a_plain_request_pipelined_behind_another_is_not_read() -> None:
    pipe = Pipe()
    pipe.conn.data_received(GET.replace(b"/healthz", b"/a") + GET)
    answer = pipe.transport.take()
    assert answer.startswith(b"HTTP/1.1 404") and answer.count(b"HTTP/1.1") == 1
    assert pipe.transport.eof and pipe.conn.closing and pipe.conn.session is None
    pipe.conn.data_received(GET)  # more of the same: not read
    pipe.conn.eof_received()
    assert pipe.transport.take() == b""


def test_a_handshake_a_ping_and_a_hello_in_one_read_are_answered_in_order() -> None:
    """The 101 first, then the pong and the welcome (a pong written before the 101 would
    break the client's parsing of the answer)."""
    pipe = Pipe()
    pipe.client.send_request(pipe.client.connect())
    hello = msgpack.packb({"type": "hello", "protocol": m.PROTOCOL_VERSION})
    pipe.conn.data_received(
        b"".join(pipe.client.data_to_send())
        + Frame(Opcode.PING, b"p").serialize(mask=True)
        + Frame(Opcode.BINARY, hello).serialize(mask=True)
    )
    events = pipe.pull()
    assert isinstance(events[0], Response) and events[0].status_code == 101
    assert [f.opcode for f in pipe.frames] == [Opcode.PONG, Opcode.BINARY]
    assert [x["type"] for x in pipe.messages()] == ["welcome"]


def test_a_handshake_followed_by_what_is_no_frame_is_refused_400() -> None:
    pipe = Pipe()
    pipe.client.send_request(pipe.client.connect())
    pipe.conn.data_received(b"".join(pipe.client.data_to_send()) + b"GET / HTTP/1.1\r\n\r\n")
    answer = pipe.transport.take()
    assert answer.startswith(b"HTTP/1.1 400") and pipe.conn.session is None
    assert pipe.transport.eof


# --- frames that come with the close --------------------------------------------------------
async def test_a_message_written_with_the_close_frame_takes_effect() -> None:
    """``create_game`` and the close frame in one write: the game is made (its answer
    cannot be sent, the close being under way), and others see it listed."""
    async with serving() as (srv, port):
        raw = await Raw.open(port)
        raw.queue(m.CreateGame(options=m.GameOptions(players=2)))
        raw.protocol.send_close(1000)
        raw.flush()
        close = await raw.closed()
        assert close is not None and close.code == 1000
        await until(lambda: len(srv.rooms) == 1)
        other = await client(port)
        await other.send(m.ListGames())
        listed = await other.expect(m.GameList)
        assert [g.game for g in listed.games] == list(srv.rooms)
        await other.close()


def test_messages_read_with_the_clients_close_go_to_the_host() -> None:
    pipe = Pipe()
    pipe.hello()
    pipe.client.send_binary(leave("a"))
    pipe.client.send_binary(leave("b"))
    pipe.client.send_close(1000)
    together(pipe)
    assert games(pipe) == ["a", "b"]
    assert pipe.conn.closing and pipe.transport.eof


def test_the_backlog_is_handed_over_when_the_client_closes() -> None:
    """Frames read while the server did not read (a full outbox) wait; the client's close
    hands them over at once, in order, before the frames read with it."""
    pipe = Pipe(max_bytes=4000)
    pipe.hello()
    fill_outbox(pipe)
    for game in ("a", "b"):
        pipe.send({"type": "leave", "game": game})
    assert pipe.host.requests == []
    pipe.client.send_binary(leave("c"))
    pipe.client.send_close(1000)
    together(pipe)
    assert games(pipe) == ["a", "b", "c"]
    assert pipe.transport.eof


async def test_the_backlog_handed_over_at_the_close_still_spends_the_rate() -> None:
    """Paused for the rate, a connection's later frames wait; its close hands them over at
    once (the pause not over), each handled while the rate allows and refused past it."""
    host = Host(limits=Limits(rate=0.01, burst=3.0))
    pipe = Pipe(host)
    pipe.hello()  # one of the three
    for game in ("a", "b", "c", "d", "e"):
        pipe.client.send_binary(leave(game))
    together(pipe)  # a and b spend the burst, c is refused and reading pauses 100 s
    assert games(pipe) == ["a", "b"] and not pipe.transport.reading
    host.clock.now += 100.0  # the rate has refilled one message
    pipe.client.send_close(1000)
    together(pipe)
    assert games(pipe) == ["a", "b", "d"]  # e refused: over the rate
    pipe.transport.close()
    assert host.gone == [pipe.conn]


def test_a_connection_cut_off_drops_its_backlog() -> None:
    pipe = Pipe(max_bytes=4000)
    pipe.hello()
    fill_outbox(pipe)
    pipe.send({"type": "leave", "game": "a"})
    pipe.conn.cut_off()
    assert pipe.host.requests == [] and pipe.host.gone == [pipe.conn]


def test_frames_after_the_servers_own_close_are_not_handed_over() -> None:
    pipe = Pipe()
    pipe.hello()
    pipe.conn.close(1001)
    pipe.send({"type": "leave", "game": "a"})
    assert pipe.host.requests == []
