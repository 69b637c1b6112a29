"""A server connection without a socket (tests/server/wire.py): its handshake, its frames,
its bounds on what waits unsent, its backpressure, its rate pauses, its keepalive and its
deadlines, on an injected clock."""

from __future__ import annotations

import asyncio

import msgpack
from websockets.frames import Opcode
from websockets.protocol import State

from protocol import messages as m
from protocol.server_session import ForGame, Limits
from server.connection import FLOOD_STRIKES, Timing, Turn
from tests.server.wire import Host, Pipe


def _chat(text: str) -> m.ChatMessage:
    return m.ChatMessage(game="g", seat=None, name="spectator", text=text)


def test_a_handshake_opens_the_connection_with_its_subprotocol() -> None:
    pipe = Pipe(subprotocol="hexhaven.v1.json")
    response = pipe.handshake()
    assert response.status_code == 101
    assert response.headers["Sec-WebSocket-Protocol"] == "hexhaven.v1.json"
    assert pipe.conn.is_open and pipe.conn.session is not None
    assert pipe.conn.session.subprotocol == "hexhaven.v1.json"
    pipe.client.send_text(b'{"type": "hello", "protocol": 1}')
    pipe.push()
    pipe.pull()
    assert [f.opcode for f in pipe.frames] == [Opcode.TEXT]
    assert b'"welcome"' in pipe.frames[0].data


def test_a_plain_request_gets_the_hosts_answer_and_the_socket_ends() -> None:
    pipe = Pipe()
    pipe.conn.data_received(b"GET /nowhere HTTP/1.1\r\nHost: x\r\n\r\n")
    answer = pipe.transport.take()
    assert answer.startswith(b"HTTP/1.1 404") and answer.endswith(b"not found\n")
    assert pipe.transport.eof and pipe.conn.session is None and not pipe.conn.is_open


def test_a_refused_handshake_opens_nothing() -> None:
    pipe = Pipe(subprotocol="chat.v9")
    response = pipe.handshake()
    assert response.status_code == 400 and pipe.conn.session is None
    assert pipe.transport.eof


def test_a_reader_too_slow_is_cut_off_by_the_bytes_it_leaves_waiting() -> None:
    pipe = Pipe(max_bytes=4000)
    pipe.hello()
    chat = _chat("x" * 400)
    sent = 0
    while not pipe.transport.aborted:
        pipe.conn.send(chat)
        sent += 1
        assert sent < 100, "never cut off"
    frame = pipe.conn.handed // sent
    assert (sent - 1) * frame <= 4000 < sent * frame  # cut at the first frame past the bound
    assert pipe.conn.closing and pipe.host.gone == [pipe.conn]
    handed = pipe.conn.handed
    pipe.conn.send(chat)  # after the cut, nothing is written any more
    assert pipe.conn.handed == handed


def test_a_reader_that_takes_nothing_for_the_stall_limit_is_stalled() -> None:
    pipe = Pipe()
    pipe.hello()
    conn, chat = pipe.conn, _chat("x" * 40)
    assert not conn.stalled(0.0, 10)  # nothing waits
    conn.send(chat)
    assert not conn.stalled(1.0, 10)  # waiting since 1.0
    conn.send(chat)  # more sent, nothing taken: still stuck since 1.0
    assert not conn.stalled(10.5, 10)
    pipe.pull(5)  # the reader takes a little: the clock starts again
    assert not conn.stalled(11.0, 10)
    assert not conn.stalled(20.5, 10)
    assert conn.stalled(21.0, 10)
    pipe.pull()  # it caught up
    assert not conn.stalled(40.0, 10)
    conn.send(chat)
    assert not conn.stalled(45.0, 10) and not conn.stalled(54.0, 10)
    assert conn.stalled(55.0, 10)


def test_a_client_that_asks_faster_than_it_reads_is_not_read_until_it_catches_up() -> None:
    """Over half of ``max_bytes`` unread: reading pauses, and what was read meanwhile waits
    its turn (backpressure, not a cut); once the client reads, it is handled in order."""
    pipe = Pipe(max_bytes=4000)
    pipe.hello()
    while pipe.transport.get_write_buffer_size() <= 2000:
        pipe.conn.send(_chat("x" * 400))
    assert not pipe.transport.reading and not pipe.transport.aborted
    for nonce in range(3):
        pipe.send({"type": "ping", "nonce": nonce})
    assert pipe.host.requests == []  # nothing handled, nothing answered meanwhile
    pipe.pull()
    assert pipe.transport.reading
    pongs = [x["nonce"] for x in pipe.messages() if x["type"] == "pong"]
    pipe.pull()
    pongs += [x["nonce"] for x in pipe.messages() if x["type"] == "pong"]
    assert pongs == [0, 1, 2]


def test_messages_for_games_go_to_the_host_whole_even_in_fragments() -> None:
    pipe = Pipe()
    pipe.hello()
    data = msgpack.packb({"type": "leave", "game": "abc"})
    pipe.client.send_binary(data[:3], fin=False)
    pipe.client.send_continuation(data[3:7], fin=False)
    pipe.push()
    assert pipe.host.requests == []
    pipe.client.send_continuation(data[7:], fin=True)
    pipe.push()
    assert pipe.host.requests == [ForGame(game="abc", message=m.Leave(game="abc"))]


def test_a_text_frame_that_is_not_utf8_closes_the_connection_1007() -> None:
    pipe = Pipe(subprotocol="hexhaven.v1.json")
    pipe.handshake()
    pipe.client.send_text(b'{"type": "\xff"}')
    pipe.push()
    pipe.pull()
    assert pipe.client.close_rcvd is not None and pipe.client.close_rcvd.code == 1007
    assert pipe.conn.closing and pipe.host.requests == []


def test_a_quiet_connection_is_pinged_and_dropped_only_if_it_never_answers() -> None:
    timing = Timing(ping_interval=20, ping_timeout=20)
    pipe = Pipe(timing=timing)
    pipe.hello()
    clock, conn = pipe.host.clock, pipe.conn
    for now in (1.0, 10.0, 20.0):
        clock.now = now
        conn.tick(now)
    conn.tick(21.5)  # 20 s since the client was last heard (at 1.0, after its hello)
    pipe.pull()
    assert [f.opcode for f in pipe.frames] == [Opcode.PING]
    pipe.push()  # the client's pong
    for now in (22.0, 45.0, 61.0):
        conn.tick(now)
    assert pipe.conn.is_open  # it answered: quiet again from 22.0, pinged at 42.0
    pipe.pull()
    assert [f.opcode for f in pipe.frames] == [Opcode.PING, Opcode.PING]
    conn.tick(62.5)  # 40 s since it was last heard, no answer to the second ping
    assert pipe.transport.aborted and pipe.host.gone == [conn]


def test_a_socket_that_never_finishes_its_handshake_is_dropped() -> None:
    pipe = Pipe(timing=Timing(open_timeout=10))
    pipe.conn.data_received(b"GET / HTTP/1.1\r\n")  # and nothing more
    pipe.conn.tick(9.0)
    assert not pipe.transport.aborted
    pipe.conn.tick(10.0)
    assert pipe.transport.aborted and pipe.conn.session is None


def test_a_close_is_a_handshake_and_a_client_that_does_not_answer_is_dropped() -> None:
    answered, silent = Pipe(), Pipe(timing=Timing(close_timeout=10))
    for pipe in (answered, silent):
        pipe.hello()
        pipe.conn.close(1001)
        pipe.conn.send(_chat("too late"))  # nothing is sent after the close
        pipe.pull()
        assert pipe.client.close_rcvd is not None and pipe.client.close_rcvd.code == 1001
        assert pipe.messages() == []
    answered.push()  # the client's close frame: the server ends the socket
    assert answered.transport.eof
    answered.conn.connection_lost(None)
    assert answered.host.gone == [answered.conn]
    silent.conn.tick(9.0)
    assert not silent.transport.aborted
    silent.conn.tick(10.0)
    assert silent.transport.aborted and silent.host.gone == [silent.conn]


def test_the_clients_own_close_is_answered() -> None:
    pipe = Pipe()
    pipe.hello()
    pipe.client.send_close(1000, "bye")
    pipe.push()
    pipe.pull()
    assert pipe.client.state is State.CLOSED or pipe.client.close_rcvd is not None
    assert pipe.transport.eof and pipe.conn.closing


async def test_over_its_rate_a_connection_is_not_read_for_a_while_and_a_flood_is_cut() -> None:
    """Past its burst a frame is refused ``rate_limited`` and reading pauses until the
    rate allows more (the frames read meanwhile wait); refused again right after pause
    upon pause, it is cut off."""
    host = Host(limits=Limits(rate=2000.0, burst=5.0))
    pipe = Pipe(host)
    pipe.hello()
    for nonce in range(8):
        pipe.client.send_binary(msgpack.packb({"type": "ping", "nonce": nonce}))
    pipe.push()  # one read holding all eight
    pipe.pull()
    kinds = [x["type"] for x in pipe.messages()]
    assert kinds == ["pong"] * 4 + ["error"]  # hello and 4 pings spent the burst
    assert not pipe.transport.reading
    host.clock.now += 1.0  # the rate refills meanwhile
    async with asyncio.timeout(5):
        while not pipe.transport.reading:
            await asyncio.sleep(0.001)
    pipe.pull()
    assert [x["nonce"] for x in pipe.messages() if x["type"] == "pong"] == [5, 6, 7]
    # A flood: the clock does not move, so every refusal comes right after a pause.
    refused = 0
    async with asyncio.timeout(10):
        while not pipe.transport.aborted:
            if pipe.transport.reading:
                pipe.send({"type": "ping", "nonce": 0})
                refused += 1
            await asyncio.sleep(0.001)
    assert refused >= FLOOD_STRIKES - 1 and pipe.host.gone == [pipe.conn]


def test_a_lost_connection_is_told_once_and_sends_nothing() -> None:
    pipe = Pipe()
    pipe.hello()
    pipe.transport.close()
    assert pipe.host.gone == [pipe.conn] and pipe.conn.lost
    pipe.conn.send(_chat("hello?"))
    assert pipe.transport.out == b""


class _Writes(list[bytes]):
    """What a transport was handed, write by write."""


async def test_frames_sent_in_one_turn_are_written_together_at_its_end() -> None:
    turn = Turn()
    pipe = Pipe(turn=turn)
    pipe.hello()
    writes = _Writes()
    real = pipe.transport.write

    def write(data: bytes | bytearray | memoryview) -> None:
        writes.append(bytes(data))
        real(data)

    pipe.transport.write = write  # type: ignore[method-assign]
    for text in ("one", "two", "three"):
        pipe.conn.send(_chat(text))
    assert writes == [] and pipe.conn.waiting > 0  # held for the end of the turn
    await asyncio.sleep(0)
    assert len(writes) == 1
    pipe.pull()
    assert [x["text"] for x in pipe.messages()] == ["one", "two", "three"]
    pipe.conn.send(_chat("last"))
    pipe.conn.close(1000)  # what was sent goes before the close frame
    pipe.pull()
    assert [x["text"] for x in pipe.messages()] == ["last"]
    assert pipe.client.close_rcvd is not None


async def test_a_connection_cut_off_in_a_turn_writes_nothing_of_it() -> None:
    turn = Turn()
    pipe = Pipe(turn=turn, max_bytes=4000)
    pipe.hello()
    while not pipe.transport.aborted:
        pipe.conn.send(_chat("x" * 400))  # over the bound before anything is written
    await asyncio.sleep(0)
    assert pipe.transport.out == b"" and pipe.host.gone == [pipe.conn]


async def test_a_connection_that_ends_in_a_turn_keeps_no_other_from_its_frames() -> None:
    """Frames wait for the end of the turn for two connections; one's client ends its
    socket meanwhile (the server answers with its own end): its frames are dropped, the
    other's are written."""
    turn = Turn()
    gone, stays = Pipe(turn=turn), Pipe(turn=turn)
    for pipe in (gone, stays):
        pipe.hello()
        pipe.conn.send(_chat("for you"))
    gone.conn.eof_received()  # the end of its socket: the server ends its side too
    assert gone.transport.eof
    await asyncio.sleep(0)  # the turn ends
    assert stays.transport.out and stays.conn.waiting == len(stays.transport.out)  # written
    stays.pull()
    assert [x["text"] for x in stays.messages()] == ["for you"]
