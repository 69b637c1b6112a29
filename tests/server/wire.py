"""A server connection without a socket: :class:`server.connection.Connection` on a stand-in
transport, with websockets' sans-I/O client protocol at the other end. What the server
writes waits in the stand-in's buffer until the test lets the client take it, so slow
readers, backpressure, timeouts and closes are tested with an injected clock."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field
from typing import Any

import msgpack
from websockets.client import ClientProtocol
from websockets.frames import Frame, Opcode
from websockets.http11 import Request, Response
from websockets.protocol import State
from websockets.server import ServerProtocol
from websockets.typing import Subprotocol
from websockets.uri import parse_uri

from protocol import SUBPROTOCOL_MSGPACK, SUBPROTOCOLS
from protocol import messages as m
from protocol.server_session import Answer, Limits, ServerSession
from server.connection import Connection, Timing, Turn


class Clock:
    """A clock a test moves."""

    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


class Transport(asyncio.Transport):
    """A socket's transport whose peer reads only when told (:meth:`take`)."""

    def __init__(self, protocol: asyncio.Protocol) -> None:
        super().__init__()
        self.protocol = protocol
        self.out = bytearray()
        """Written and not taken by the peer yet."""
        self.high = 64 * 1024
        self.low = 16 * 1024
        self.paused_writing = False
        self.reading = True
        self.aborted = False
        self.closed = False
        self.eof = False
        self.lost = False

    # what the connection calls
    def write(self, data: bytes | bytearray | memoryview) -> None:
        if self.eof:
            raise RuntimeError("Cannot call write() after write_eof()")  # as asyncio's
        if self.closed or self.aborted:
            return
        self.out += data
        if not self.paused_writing and len(self.out) > self.high:
            self.paused_writing = True
            self.protocol.pause_writing()

    def get_write_buffer_size(self) -> int:
        return len(self.out)

    def set_write_buffer_limits(self, high: int | None = None, low: int | None = None) -> None:
        self.high = high if high is not None else self.high
        self.low = low if low is not None else self.high // 4

    def pause_reading(self) -> None:
        self.reading = False

    def resume_reading(self) -> None:
        self.reading = True

    def is_reading(self) -> bool:
        return self.reading

    def can_write_eof(self) -> bool:
        return True

    def write_eof(self) -> None:
        self.eof = True

    def close(self) -> None:
        if not self.closed:
            self.closed = True
            self._lose()

    def abort(self) -> None:
        if not self.aborted:
            self.aborted = True
            self.closed = True
            self.out.clear()
            self._lose()

    def is_closing(self) -> bool:
        return self.closed

    def get_extra_info(self, name: str, default: Any = None) -> Any:
        return ("127.0.0.1", 40000) if name == "peername" else default

    # what the test calls
    def take(self, n: int | None = None) -> bytes:
        """The peer reads ``n`` bytes (all, by default)."""
        n = len(self.out) if n is None else n
        taken = bytes(self.out[:n])
        del self.out[:n]
        if self.paused_writing and len(self.out) <= self.low:
            self.paused_writing = False
            self.protocol.resume_writing()
        return taken

    def _lose(self) -> None:
        if not self.lost:
            self.lost = True
            self.protocol.connection_lost(None)


@dataclass
class Host:
    """A server that answers hellos and pings (its sessions' own answers) and records the
    rest."""

    clock: Clock = field(default_factory=Clock)
    limits: Limits = field(default_factory=Limits)
    requests: list[Any] = field(default_factory=list)
    gone: list[Connection] = field(default_factory=list)
    sockets: list[Connection] = field(default_factory=list)

    def accepted(self, conn: Connection) -> None:
        self.sockets.append(conn)

    def respond(self, protocol: ServerProtocol, request: Request) -> Response | None:
        if "websocket" in request.headers.get("Upgrade", "").lower():
            return None
        return protocol.reject(404, "not found\n")

    def opened(self, conn: Connection, request: Request) -> ServerSession:
        return ServerSession(
            conn.subprotocol, clock=self.clock, server_name="t", limits=self.limits
        )

    def received(self, conn: Connection, payload: bytes | str) -> bool:
        assert conn.session is not None
        got = conn.session.receive(payload)
        if isinstance(got, Answer):
            conn.send(got.message)
            return isinstance(got.message, m.Error) and got.message.code == m.ErrorCode.RATE_LIMITED
        self.requests.append(got)
        return False

    def closed(self, conn: Connection) -> None:
        self.gone.append(conn)


class Pipe:
    """A connection and a client talking through a :class:`Transport`."""

    def __init__(
        self,
        host: Host | None = None,
        *,
        max_bytes: int = 8 * 1024 * 1024,
        timing: Timing | None = None,
        subprotocol: str = SUBPROTOCOL_MSGPACK,
        conn: Connection | None = None,
        turn: Turn | None = None,
    ) -> None:
        """A pipe to a new connection of ``host`` (a :class:`Host` by default), or to
        ``conn``, one a real server made."""
        self.host = host if host is not None else Host()
        self.conn = conn or Connection(
            self.host,
            subprotocols=[Subprotocol(p) for p in SUBPROTOCOLS],
            max_message=1024 * 1024,
            max_bytes=max_bytes,
            clock=self.host.clock,
            timing=timing or Timing(),
            turn=turn,
        )
        self.transport = Transport(self.conn)
        self.conn.connection_made(self.transport)
        self.client = ClientProtocol(
            parse_uri("ws://127.0.0.1/"), subprotocols=[Subprotocol(subprotocol)]
        )
        self.frames: list[Frame] = []

    def handshake(self) -> Response:
        """The opening handshake; returns the server's response."""
        request = self.client.connect()
        self.client.send_request(request)
        self.push()
        events = self.pull()
        assert events and isinstance(events[0], Response), events
        return events[0]

    def push(self) -> None:
        """What the client has to send, read by the server."""
        for data in self.client.data_to_send():
            if data and not self.transport.closed:
                self.conn.data_received(data)
            elif not data:
                self.conn.eof_received()

    def pull(self, n: int | None = None) -> list[Any]:
        """The client reads ``n`` of the bytes waiting (all by default), once the event
        loop's turn is over; its events."""
        self.conn.write_out()  # the turn is over (a no-op when frames are written at once)
        data = self.transport.take(n)
        if data:
            self.client.receive_data(data)
        if self.transport.eof and not self.transport.out:
            self.client.receive_eof()
        events = self.client.events_received()
        self.frames.extend(e for e in events if isinstance(e, Frame))
        return events

    def send(self, message: dict[str, Any]) -> None:
        self.client.send_binary(msgpack.packb(message))
        self.push()

    def messages(self) -> list[dict[str, Any]]:
        """The messages the client has read so far (binary frames, decoded), then
        forgotten."""
        out = [msgpack.unpackb(f.data) for f in self.frames if f.opcode is Opcode.BINARY]
        self.frames = [f for f in self.frames if f.opcode is not Opcode.BINARY]
        return out

    def hello(self) -> None:
        self.handshake()
        self.send({"type": "hello", "protocol": m.PROTOCOL_VERSION})
        self.pull()
        assert [x["type"] for x in self.messages()] == ["welcome"]

    @property
    def open(self) -> bool:
        return self.client.state is State.OPEN and not self.transport.closed
