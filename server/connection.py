"""One client connection: websockets' sans-I/O protocol on an asyncio transport.

A :class:`Connection` is the asyncio protocol of one accepted socket. Bytes read are fed to
websockets' :class:`~websockets.server.ServerProtocol`, which parses the opening handshake
and the frames and answers pings and closes; whole messages go to the server
(:class:`Host`) as they are parsed, in the event loop's turn that read them, with no task
or queue of the connection's own. What is sent is framed once per message (server frames
are not masked, so every recipient's frame is the same bytes) and handed to the
transport at once; what the socket has not taken yet waits in the transport's buffer,
bounded in bytes. The server's sweep (:meth:`Connection.tick`) pings quiet connections,
and drops those that answer nothing, never finish their handshake or their close, or
stop reading.

A connection whose read brought many messages at once hands over :data:`IN_A_ROW` of
them, then waits for its next turn of the event loop (behind every other connection's)
for the rest: a client that pipelines thousands of requests delays nobody else's.

What is read before a frame is whole is bounded twice. In bytes: websockets buffers at
most :func:`read_limit` bytes of one message (twice the protocol's frame limit, so a frame
a little over it is still answered ``too_large``); a frame or fragmented message
announced bigger fails the connection with 1009 at once. In time: a frame that is not
whole :data:`FRAME_TIMEOUT` seconds after the read that began it, or a fragmented message
not whole that long after its first fragment, fails the connection with 1008 (policy
violation), its buffer freed and its socket closed (a client that trickles a byte now and
then keeps the keepalive content, not this deadline). Seconds while the server does not
read the connection (a rate pause, a full outbox) do not count.

A plain HTTP request (not a websocket handshake) gets the host's answer, with
``Connection: close`` and no body for ``HEAD``, and the socket ends: anything sent after
the request, a second request pipelined behind it among them, is not read. Bytes that are
no HTTP request websockets takes (a body, a bad request line) are answered 400.

Every message read before the client's close frame goes to the host, in order, even in the
read that holds the close; its answer is not sent (nothing is sent once a close is under
way), but its effect happens. Frames read while reading was paused wait in a backlog;
when the client's close (or the end of its socket) comes, the backlog is handed over at
once, each frame still spending the message rate (one over it is refused, not played).
Once the server itself closes, fails or cuts off a connection, nothing more it sends is
handed over: a connection cut off for a flood loses its backlog.
"""

from __future__ import annotations

import asyncio
import secrets
from collections import OrderedDict, deque
from collections.abc import Callable
from dataclasses import dataclass
from http import HTTPStatus
from typing import Protocol, cast

import structlog
from websockets.exceptions import InvalidMessage
from websockets.frames import CloseCode, Frame, Opcode
from websockets.http11 import Request, Response
from websockets.protocol import SEND_EOF, Event, State
from websockets.server import ServerProtocol
from websockets.typing import Subprotocol

from protocol import messages as m
from protocol.codec import Frame as Payload
from protocol.messages import ErrorCode
from protocol.payloads import WireModel
from protocol.server_session import ServerSession

__all__ = [
    "CLOSE_TIMEOUT",
    "FLOOD_STRIKES",
    "FLOOD_WINDOW",
    "FRAME_TIMEOUT",
    "OPEN_TIMEOUT",
    "PING_INTERVAL",
    "PING_TIMEOUT",
    "READ_LIMIT_FACTOR",
    "Connection",
    "Host",
    "Refusals",
    "Timing",
    "Turn",
    "encoded",
    "framed",
    "read_limit",
]

OPEN_TIMEOUT = 10.0
"""Seconds a socket may take to finish its opening handshake (or a plain HTTP request)."""
CLOSE_TIMEOUT = 10.0
"""Seconds the server waits for a client to finish the closing handshake it began."""
PING_INTERVAL = 20.0
"""A connection the server has heard nothing from for this long is pinged..."""
PING_TIMEOUT = 20.0
"""...and dropped if it still says nothing this long after."""
FRAME_TIMEOUT = 10.0
"""Seconds a frame may take to arrive whole from the read that began it (and a fragmented
message from its first fragment to its last); past them the connection fails with 1008."""
READ_LIMIT_FACTOR = 2
"""websockets buffers at most this many times the frame limit of one message (see
:func:`read_limit`)."""
CONTROL_PAYLOAD = 125
"""The largest payload of a control frame (a close with its reason, a ping)."""
IN_A_ROW = 50
"""Messages of one connection handled in a row; the rest of what one read brought waits
for the connection's next turn of the event loop, behind everyone else's."""
READ_PAUSE_DIVISOR = 2
"""Reading from a connection pauses while more than ``max_bytes`` divided by this waits to
be sent to it (a client that asks faster than it reads waits, nobody else)."""
FLOOD_STRIKES = 10
FLOOD_WINDOW = 1.0
"""A connection refused ``rate_limited`` this many times, each within this many seconds of
the one before (it was over its rate again right after each pause), is cut off: a flood,
whose frames the server would otherwise hold until it had read them all."""


@dataclass(frozen=True, slots=True)
class Timing:
    """The connection's deadlines, in seconds (see the module's constants)."""

    open_timeout: float = OPEN_TIMEOUT
    close_timeout: float = CLOSE_TIMEOUT
    ping_interval: float = PING_INTERVAL
    ping_timeout: float = PING_TIMEOUT
    frame_timeout: float = FRAME_TIMEOUT


def read_limit(max_frame: int) -> int:
    """The most bytes of one message (a frame, or a fragmented message's frames together)
    websockets buffers before it is whole, for a protocol frame limit of ``max_frame``
    bytes: :data:`READ_LIMIT_FACTOR` times it (a frame a little over the limit is read and
    answered ``too_large``, the connection kept; one announced bigger fails it with 1009
    before its payload is read), and never under a control frame's payload."""
    return max(READ_LIMIT_FACTOR * max_frame, CONTROL_PAYLOAD)


class Host(Protocol):
    """The server as its connections see it."""

    def accepted(self, conn: Connection) -> None:
        """``conn`` has its socket (over TLS, once the TLS handshake is done)."""

    def respond(self, protocol: ServerProtocol, request: Request) -> Response | None:
        """A plain HTTP request's answer; None for a websocket handshake, accepted then."""

    def opened(self, conn: Connection, request: Request) -> ServerSession:
        """The handshake is done: the session for ``conn``'s rules (and its address set)."""

    def received(self, conn: Connection, payload: Payload) -> bool:
        """Handle one message; True when it was refused for the message rate."""

    def closed(self, conn: Connection) -> None:
        """``conn``'s socket is closed, whatever the reason (its handshake done or not; told
        only of a connection it was told was accepted)."""


class Refusals(Protocol):
    """Where refusals sent to connections are counted (the server's metrics)."""

    def refused(self, code: str, limit: str | None) -> None: ...


def framed(payload: Payload) -> bytes:
    """A message's websocket frame as the server sends it (binary for bytes, text for a
    string; not masked, so the same bytes go to every recipient)."""
    if isinstance(payload, str):
        return Frame(Opcode.TEXT, payload.encode()).serialize(mask=False)
    return Frame(Opcode.BINARY, payload).serialize(mask=False)


ENCODED_KEPT = 4
"""Messages whose frames are kept, per encoding: a message sent to several connections
(events everyone sees alike, ``players``, chat) is encoded and framed once, even when
another recipient's own form comes between."""
_encoded_recently: dict[str, deque[tuple[WireModel, bytes]]] = {}

HISTORY_KEPT = 64
"""``history``, ``view`` and ``players`` messages whose frames are kept (the table and the
room give the same message objects again until the game moves on, so what a newcomer is
given is not encoded again for the next)."""
_history_frames: OrderedDict[tuple[int, str], tuple[WireModel, bytes]] = OrderedDict()
_KEPT_TYPES = frozenset({m.History, m.GameView, m.Players})
"""The messages kept by :data:`HISTORY_KEPT` (those a newcomer is given)."""


def encoded(session: ServerSession, message: WireModel) -> bytes:
    """``message``'s frame for ``session``'s encoding, reusing one made for it before.
    Raises what encoding raises (a message that cannot be encoded)."""
    kind = session.codec.subprotocol
    recent = _encoded_recently.get(kind)
    if recent is None:
        recent = _encoded_recently[kind] = deque(maxlen=ENCODED_KEPT)
    for sent, frame in recent:
        if sent is message:
            return frame
    if type(message) not in _KEPT_TYPES:
        frame = framed(session.encode(message))
        recent.append((message, frame))
        return frame
    key = (id(message), kind)
    kept = _history_frames.get(key)
    if kept is not None and kept[0] is message:
        _history_frames.move_to_end(key)
        return kept[1]
    frame = framed(session.encode(message))
    _history_frames[key] = (message, frame)
    if len(_history_frames) > HISTORY_KEPT:
        _history_frames.popitem(last=False)
    return frame


class Turn:
    """The frames sent during one turn of the event loop, written at its end: each
    connection's together, in one write (a system call a connection a turn, not one a
    frame)."""

    def __init__(self) -> None:
        self._due: list[Connection] = []

    def add(self, conn: Connection) -> None:
        """``conn`` has frames waiting: write them at the end of this turn."""
        if not self._due:
            asyncio.get_running_loop().call_soon(self.flush)
        self._due.append(conn)

    def flush(self) -> None:
        """Write every connection's waiting frames now."""
        due, self._due = self._due, []
        for conn in due:
            try:
                conn.write_out()
            except Exception:  # one connection's failure keeps no other from its frames
                conn.log.exception("conn.write_failed")
                conn.cut_off()


class Connection(asyncio.Protocol):
    """One client connection (see the module). It is open once its handshake is done
    (:attr:`session` set) until it closes; :meth:`send` hands a message's frame to the
    socket, :meth:`close` begins the closing handshake, :meth:`cut_off` drops it."""

    def __init__(
        self,
        host: Host,
        *,
        subprotocols: list[Subprotocol],
        max_message: int,
        max_bytes: int,
        clock: Callable[[], float],
        timing: Timing = Timing(),
        metrics: Refusals | None = None,
        turn: Turn | None = None,
    ) -> None:
        """``max_message``: the most bytes of one message websockets buffers
        (:func:`read_limit`); ``turn``: where frames sent wait to be written at the end of
        the event loop's turn (None: each is written as it is sent)."""
        self.id = secrets.token_hex(8)
        self.rooms: set[str] = set()
        """Games this connection has sent messages to (told when it goes)."""
        self.closing = False
        """Closed, closing, or cut off: nothing more is sent."""
        self._deaf = False
        """The server closed, failed or cut off the connection (or answered its plain HTTP
        request): nothing more the client sends is handed to the host. A close the client
        began leaves it False: what it sent before its close is still handed over."""
        self.address = ""
        """The client's IP address (what the per-address limits count)."""
        self.session: ServerSession | None = None
        """The connection's rules, once its handshake is done."""
        self.max_bytes = max_bytes
        """Bytes that may wait unsent; past them the connection is cut off."""
        self.handed = 0
        """Bytes handed to the socket so far (frames with their headers)."""
        self.metrics = metrics
        """Where refusals sent to this connection are counted."""
        self.log = structlog.get_logger("hexhaven.server").bind(conn=self.id)
        """The connection's log (a logger of its own: one cached at import would keep the
        output of the logging set up then)."""
        self._host = host
        self._clock = clock
        self._timing = timing
        self._protocol = ServerProtocol(subprotocols=subprotocols, max_size=max_message)
        self._transport: asyncio.Transport | None = None
        self._turn = turn
        self._out: list[bytes] = []
        """Frames sent this turn of the event loop, not written yet..."""
        self._out_bytes = 0
        """...and their size."""
        self._fragments: list[bytes] = []
        """The parts of a fragmented message received so far..."""
        self._text = False
        """...and whether that message is text."""
        self._backlog: deque[Frame] = deque()
        """Frames parsed while reading was paused (a rate pause, or a full outbox)."""
        self._partial_since: float | None = None
        """When the read came after which a frame is not whole yet (None: none is known
        to be unfinished; see :meth:`_arrived`)..."""
        self._message_since: float | None = None
        """...and when the first fragment of a fragmented message not whole yet came."""
        self._rate_paused: asyncio.Handle | None = None
        """While reading waits: for the message rate, or for the connection's next turn
        (:data:`IN_A_ROW`)."""
        self._in_a_row = 0
        """Messages handed over since this connection's turn began."""
        self._write_paused = False
        self._strikes = 0
        self._last_strike = float("-inf")
        self._since = clock()
        """When the handshake began, the server last heard from the client, or the close
        began, by what :attr:`_deadline_kind` says."""
        self._heard = 0
        """Reads so far; :meth:`tick` compares them to notice silence without reading the
        clock at each read."""
        self._heard_at_tick = 0
        self._pinged = False
        self._taken = 0
        self._stuck_since: float | None = None
        self._lost = False

    # --- facts ------------------------------------------------------------------------------
    @property
    def is_open(self) -> bool:
        """Whether messages can be sent (handshake done, no close begun)."""
        return not self.closing and self._protocol.state is State.OPEN

    @property
    def lost(self) -> bool:
        """Whether the socket is closed."""
        return self._lost

    @property
    def wants_views(self) -> bool:
        """Whether prompts to this connection carry the seat's view (its hello asked)."""
        return self.session is not None and self.session.views

    @property
    def wants_event_views(self) -> bool:
        """Whether ``events`` to this connection carry the recipient's view (its hello
        asked)."""
        return self.session is not None and self.session.event_views

    @property
    def subprotocol(self) -> Subprotocol | None:
        return self._protocol.subprotocol

    @property
    def waiting(self) -> int:
        """Bytes sent to this connection that its socket has not taken yet."""
        transport = self._transport
        written = 0 if transport is None else transport.get_write_buffer_size()
        return written + self._out_bytes

    @property
    def close_code(self) -> int | None:
        return self._protocol.close_code

    # --- asyncio's protocol -------------------------------------------------------------
    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        transport = cast(asyncio.Transport, transport)  # a stream's (uvloop's is no subclass)
        self._transport = transport
        transport.set_write_buffer_limits(high=max(1, self.max_bytes // READ_PAUSE_DIVISOR))
        self._since = self._clock()
        self._host.accepted(self)

    def data_received(self, data: bytes) -> None:
        self._heard += 1
        self._in_a_row = 0 if self._rate_paused is None else self._in_a_row
        protocol = self._protocol
        if protocol.state is State.CONNECTING:
            if not self.closing:  # once a plain request is answered, nothing more is read
                self._connecting(data)
            return
        protocol.receive_data(data)
        events = protocol.events_received()
        self._flush()
        self._arrived(events)
        self._take(events)

    def eof_received(self) -> bool | None:
        if not (self.closing and self._protocol.state is State.CONNECTING):  # not answered
            self._protocol.receive_eof()
            self._flush()
        return None  # the transport closes

    def connection_lost(self, exc: Exception | None) -> None:
        self._lost = True
        self.closing = True
        if self._rate_paused is not None:
            self._rate_paused.cancel()
            self._rate_paused = None
        self._drain()  # what was read before the socket ended goes first
        self._host.closed(self)

    def pause_writing(self) -> None:
        """The outbox is over half full: read nothing more until it drains."""
        self._write_paused = True
        self._pause_reading()

    def resume_writing(self) -> None:
        self._write_paused = False
        self._resume()

    @property
    def peer(self) -> str:
        """The socket's peer address ("" when the socket does not say)."""
        transport = self._transport
        remote = None if transport is None else transport.get_extra_info("peername")
        return str(remote[0]) if isinstance(remote, tuple) and remote else ""

    # --- sending ------------------------------------------------------------------------
    def charge(self, budget: str, game: str | None = None) -> m.Error | None:
        """Spend one request of ``budget`` from this connection's and its address's
        allowances; the refusal when either has none left (None before the handshake)."""
        return None if self.session is None else self.session.charge(budget, game)

    def send(self, message: WireModel) -> None:
        """Send a message, encoded now (once for every connection of the same encoding it
        goes to next). A message that cannot be encoded is logged and dropped."""
        if self.closing:
            return
        if type(message) is m.Error and self.metrics is not None:
            limit = message.detail if message.code == ErrorCode.LIMIT_REACHED else None
            self.metrics.refused(message.code.value, limit)
        session = self.session
        assert session is not None, "a message sent before the handshake"
        try:
            frame = encoded(session, message)
        except Exception:
            self.log.exception("conn.unsendable", message_type=getattr(message, "type", "?"))
            return
        self.send_frame(frame)

    def send_frame(self, frame: bytes) -> None:
        """Hand a framed message (:func:`framed`) to the socket; a connection that leaves
        more than ``max_bytes`` unread is cut off (a slow reader loses its own connection,
        nobody else's)."""
        if self.closing or self._protocol.state is not State.OPEN:
            return
        transport = self._transport
        assert transport is not None
        size = len(frame)
        self.handed += size
        if self._turn is None:
            transport.write(frame)
        else:
            if not self._out:
                self._turn.add(self)
            self._out.append(frame)
            self._out_bytes += size
        waiting = self.waiting
        if waiting > self.max_bytes:
            self.log.warning("conn.too_slow", bytes=waiting)
            self.cut_off()

    def write_out(self) -> None:
        """Write the frames sent this turn (see :class:`Turn`), in one write."""
        out = self._out
        if not out:
            return
        data = out[0] if len(out) == 1 else b"".join(out)
        out.clear()
        self._out_bytes = 0
        transport = self._transport
        if (
            transport is None
            or self._lost
            or self._protocol.state is not State.OPEN
            or transport.is_closing()
        ):
            return  # closed meanwhile (the client's close, or its end of the socket)
        try:
            transport.write(data)
        except Exception as exc:  # a socket ending under us: it is dropped
            self.log.warning("conn.write_failed", error=repr(exc))
            self.cut_off()

    def close(self, code: int = CloseCode.NORMAL_CLOSURE, reason: str = "") -> None:
        """Begin the closing handshake after what was sent; the client has
        ``close_timeout`` seconds to finish it."""
        if self.closing:
            return
        self.write_out()  # what was sent before the close goes first
        self._deaf = True
        self.closing = True
        self._since = self._clock()
        protocol = self._protocol
        if protocol.state is State.OPEN:
            protocol.send_close(code, reason)
            self._flush()
        elif self._transport is not None:
            self._transport.close()

    def cut_off(self) -> None:
        """Drop the connection at once, with what waits to be sent to it (and what was read
        from it and not handed over yet)."""
        self._deaf = True
        self.closing = True
        self._out.clear()
        self._out_bytes = 0
        if self._transport is not None:
            self._transport.abort()

    # --- the server's sweep -------------------------------------------------------------
    def tick(self, now: float) -> None:
        """Asked about once a second: drop a connection whose handshake or close has taken
        too long, ping one the server has not heard from for a while and drop it if it
        still says nothing."""
        if self._lost:
            return
        timing = self._timing
        state = self._protocol.state
        if state is State.CONNECTING:
            if now - self._since >= timing.open_timeout:
                self.cut_off()
            return
        if self.closing or state is not State.OPEN:
            if now - self._since >= timing.close_timeout:
                self.cut_off()
            return
        if self._partial_since is not None or self._message_since is not None:
            if self._rate_paused is not None or self._write_paused:
                # not read meanwhile: the frame's seconds start again once reading resumes
                self._partial_since = None if self._partial_since is None else now
                self._message_since = None if self._message_since is None else now
            else:
                begun = min(t for t in (self._partial_since, self._message_since) if t is not None)
                if now - begun >= timing.frame_timeout:
                    self._too_slow(now - begun)
                    return
        if self._heard != self._heard_at_tick:
            self._heard_at_tick = self._heard
            self._since = now
            self._pinged = False
            return
        quiet = now - self._since
        if self._pinged:
            if quiet >= timing.ping_interval + timing.ping_timeout:
                self.log.info("conn.no_pong", quiet=round(quiet, 1))
                self.cut_off()
        elif quiet >= timing.ping_interval:
            self._pinged = True
            self._protocol.send_ping(secrets.token_bytes(4))
            self._flush()

    def stalled(self, now: float, limit: float) -> bool:
        """Whether bytes have waited for this connection's reader for ``limit`` seconds
        with none of them taken (asked now and then, at ``now``)."""
        waiting = self.waiting
        taken = self.handed - waiting
        if waiting == 0 or taken > self._taken:
            self._taken = max(self._taken, taken)
            self._stuck_since = None if waiting == 0 else now
            return False
        if self._stuck_since is None:
            self._stuck_since = now
        return now - self._stuck_since >= limit

    # --- what was read ------------------------------------------------------------------
    def _connecting(self, data: bytes) -> None:
        """Read the opening handshake or a plain HTTP request, and once a handshake is
        accepted the frames that came with it."""
        protocol = self._protocol
        protocol.receive_data(data)
        events = protocol.events_received()
        if not events or not isinstance(events[0], Request):
            if isinstance(protocol.handshake_exc, InvalidMessage):  # no request it takes
                response = protocol.reject(
                    HTTPStatus.BAD_REQUEST,
                    "not a request this server takes (GET or HEAD, with no body)\n",
                )
                self._answer(None, response)
            else:  # nothing whole yet, or websockets' own answer (a line too long)
                self._flush()
            return
        self._handshake(events[0])
        rest = events[1:]
        if rest and protocol.state is State.OPEN:
            self._arrived(rest)
            self._take(rest)

    def _handshake(self, request: Request) -> None:
        """Answer a request: the host's plain HTTP answer, or the websocket handshake's
        (101, the connection open; or a refusal)."""
        protocol = self._protocol
        response = self._host.respond(protocol, request)
        if response is None:
            if protocol.eof_sent:  # what followed the request broke websockets' parser
                response = protocol.reject(
                    HTTPStatus.BAD_REQUEST, "what followed the handshake request is no frame\n"
                )
            else:
                response = protocol.accept(request)
        if response.status_code != HTTPStatus.SWITCHING_PROTOCOLS:
            self._answer(request, response)
            return
        early = protocol.data_to_send()  # pongs to pings that came with the request
        protocol.send_response(response)
        self._flush()
        self._write_all(early)
        self.session = self._host.opened(self, request)
        self._since = self._clock()

    def _answer(self, request: Request | None, response: Response) -> None:
        """Send a plain HTTP answer (or a handshake refused) and end the socket: the answer
        says ``Connection: close`` and, to a ``HEAD``, has no body (its ``Content-Length``
        stays what a GET's would be); nothing sent after the request is read (a request
        pipelined behind it gets no answer). What websockets had to send (its end of data,
        when it failed on what followed the request) is not sent."""
        self._deaf = True
        self.closing = True
        self._protocol.data_to_send()
        if request is not None and request.method == "HEAD":
            response.body = b""
        headers = response.headers
        if headers.get("Connection", "").lower() != "close":
            if "Connection" in headers:
                del headers["Connection"]
            headers["Connection"] = "close"
        self._write_all([response.serialize(), SEND_EOF])

    def _arrived(self, events: list[Event]) -> None:
        """Note what a read parsed for the frame deadline (see :meth:`tick`).

        Whether websockets' parser is in the middle of a frame is not asked of it: its
        reader's buffer is empty while the parser waits for the payload of a header it has
        taken, and the parser's state is its own. Counting bytes against the frames parsed
        would go wrong as soon as a client encoded a length in more bytes than it needs
        (websockets accepts that). So a read in the open state that completes no frame
        leaves one unfinished, and the deadline runs from that read; a read that
        completes any frame stops it. A frame begun in the same read that completed
        another starts its clock at its next read: one read late at worst, and a client
        that then sends nothing is dropped by the keepalive. A fragmented message's clock
        runs from its first fragment to its last, whatever frames come between."""
        whole = False
        for event in events:
            if isinstance(event, Frame):
                whole = True
                opcode = event.opcode
                if opcode is Opcode.CONT:
                    if event.fin:
                        self._message_since = None
                elif not event.fin and (opcode is Opcode.TEXT or opcode is Opcode.BINARY):
                    self._message_since = self._clock()
        if whole:
            self._partial_since = None
        elif self._partial_since is None and self._protocol.state is State.OPEN:
            self._partial_since = self._clock()

    def _too_slow(self, seconds: float) -> None:
        """A frame (or a fragmented message) is not whole past its deadline: what was sent
        goes first, then the connection fails with 1008, what was read of it is freed and
        the socket closes."""
        self.log.info("conn.frame_timeout", seconds=round(seconds, 1))
        self.write_out()
        self._deaf = True
        self.closing = True
        self._since = self._clock()
        self._fragments.clear()
        self._partial_since = self._message_since = None
        self._protocol.fail(CloseCode.POLICY_VIOLATION, "a frame took too long to arrive")
        self._flush()  # the close frame and the end of data; websockets drops its buffer
        if self._transport is not None:
            self._transport.close()

    def _take(self, events: list[Event]) -> None:
        """Hand the frames a read parsed to the host in order; while reading is paused
        they wait in the backlog. Once the client's close has come, the backlog is handed
        over first, then these, paused or not (see the module)."""
        if self.closing:
            self._drain()
        backlog = self._backlog
        for event in events:
            if isinstance(event, Frame):
                if not self.closing and (
                    backlog or self._rate_paused is not None or self._write_paused
                ):
                    backlog.append(event)
                else:
                    self._frame(event)
                    self._counted()

    def _drain(self) -> None:
        """Hand over the backlog now, in order (nothing more will be read that it would
        wait for); a connection the server gave up on drops it."""
        backlog = self._backlog
        while backlog and not self._deaf:
            self._frame(backlog.popleft())
        backlog.clear()

    def _frame(self, frame: Frame) -> None:
        """Take one frame: a message (or its last fragment) goes to the server."""
        opcode = frame.opcode
        data: bytes = frame.data if isinstance(frame.data, bytes) else bytes(frame.data)
        if opcode is Opcode.BINARY or opcode is Opcode.TEXT or opcode is Opcode.CONT:
            if not frame.fin:
                self._fragments.append(data)
                if opcode is not Opcode.CONT:
                    self._text = opcode is Opcode.TEXT
                return
            if opcode is Opcode.CONT:
                data = b"".join([*self._fragments, data])
                self._fragments.clear()
                text = self._text
            else:
                text = opcode is Opcode.TEXT
            self._message(data, text)

    def _message(self, data: bytes, text: bool) -> None:
        if self.session is None or self._deaf:
            return
        payload: Payload
        if text:
            try:
                payload = data.decode()
            except UnicodeDecodeError as exc:
                self._protocol.fail(CloseCode.INVALID_DATA, f"{exc.reason} at position {exc.start}")
                self._deaf = True
                self.closing = True
                self._since = self._clock()
                self._flush()
                return
        else:
            payload = data
        if self._host.received(self, payload) and not self.closing:
            self._rate_pause()  # (closing, nothing more is read: there is nothing to pause)

    def _rate_pause(self) -> None:
        """The message was refused for the rate: read nothing more until the rate allows
        the next. Refused again and again right after each pause, it is a flood: cut off
        (what it sent and the server has not read yet goes with it)."""
        now = self._clock()
        session = self.session
        assert session is not None
        self._strikes = self._strikes + 1 if now - self._last_strike < FLOOD_WINDOW else 1
        self._last_strike = now
        if self._strikes >= FLOOD_STRIKES:
            self.log.warning("conn.flood", strikes=self._strikes)
            self.cut_off()
            return
        self._pause_reading()
        loop = asyncio.get_running_loop()
        self._rate_paused = loop.call_later(session.backoff(), self._rate_resume)

    def _rate_resume(self) -> None:
        self._rate_paused = None
        self._in_a_row = 0
        self._resume()

    def _counted(self) -> None:
        """One more message handed over in this turn: past :data:`IN_A_ROW`, the rest
        wait for the connection's next turn of the event loop (read on then), so that
        one connection that sent many messages at once holds up nobody else's."""
        self._in_a_row += 1
        if self._in_a_row < IN_A_ROW or self.closing or self._rate_paused is not None:
            return
        self._pause_reading()
        self._rate_paused = asyncio.get_running_loop().call_soon(self._rate_resume)

    def _pause_reading(self) -> None:
        transport = self._transport
        if transport is not None and not self._lost and transport.is_reading():
            transport.pause_reading()

    def _resume(self) -> None:
        """Take the frames read meanwhile, then read on (unless paused again)."""
        backlog = self._backlog
        while backlog and self._rate_paused is None and not self._write_paused:
            if self._deaf:
                backlog.clear()
                break
            self._frame(backlog.popleft())
            self._counted()
        transport = self._transport
        if (
            transport is not None
            and not self._lost
            and not self.closing
            and self._rate_paused is None
            and not self._write_paused
            and not transport.is_reading()
        ):
            transport.resume_reading()

    def _flush(self) -> None:
        """Write what websockets' protocol has to send (handshake answers, pongs, close
        frames); its end of data half-closes the socket, or closes it over TLS. A
        connection the protocol failed for what it read (a frame too big, a broken one)
        is closed once that is written: what the client still sends is not read (a
        client streaming a huge frame would otherwise be read to its end, to be thrown
        away)."""
        protocol = self._protocol
        self._write_all(protocol.data_to_send())
        if protocol.close_expected() and not self.closing:
            self.closing = True  # the client closed, or the protocol failed it
            self._since = self._clock()
        if protocol.parser_exc is not None and protocol.eof_sent:
            self._deaf = True
            transport = self._transport
            if transport is not None and not self._lost and not transport.is_closing():
                transport.close()

    def _write_all(self, writes: list[bytes]) -> None:
        """Write websockets' output: bytes, or :data:`SEND_EOF` for the end of data."""
        transport = self._transport
        if transport is None or self._lost:
            return
        for data in writes:
            if data:
                transport.write(data)
            elif transport.can_write_eof():
                try:
                    transport.write_eof()
                except Exception:  # a socket already gone; its loss follows
                    transport.abort()
            else:
                transport.close()
