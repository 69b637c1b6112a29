"""The one reconnect loop's decisions, with no socket and no real waiting: the session is
fed frames by hand, connections are stand-ins, and the clock moves only when the loop
sleeps."""

from __future__ import annotations

import math
from typing import Any, cast

import pytest
from websockets.asyncio.client import ClientConnection

from clients.reconnect import (
    FOREVER,
    MAX_MOVES,
    ConnectionLost,
    Connections,
    Reconnect,
    Retry,
)
from protocol import PROTOCOL_VERSION, SUBPROTOCOL_JSON, Codec, ErrorCode
from protocol import messages as m
from protocol.client_session import ClientSession, JoinSeat, WatchGame

ENTRY = "ws://entry"
WIRE = Codec(SUBPROTOCOL_JSON)


class FakeWs:
    """A connection that is open until closed."""

    def __init__(self, url: str) -> None:
        self.url = url
        self.subprotocol = SUBPROTOCOL_JSON
        self.close_code: int | None = None
        self.close_reason = ""
        self.closed = False

    async def close(self) -> None:
        self.closed = True


class World:
    """The injected clock, sleep and connector, and what the loop did with them."""

    def __init__(self) -> None:
        self.now = 100.0
        self.sleeps: list[float] = []
        self.urls: list[str] = []
        self.down: set[str] = set()  # URLs that refuse connections
        self.retries: list[Retry] = []
        self.failing = 0  # how many of the next connections fail

    def clock(self) -> float:
        return self.now

    async def sleep(self, seconds: float) -> None:
        self.sleeps.append(seconds)
        self.now += seconds

    async def connect(self, url: str, **options: Any) -> ClientConnection:
        self.urls.append(url)
        assert options["subprotocols"] == [SUBPROTOCOL_JSON]
        if url in self.down or self.failing > 0:
            self.failing -= 1
            raise ConnectionRefusedError(111, "refused")
        return cast(ClientConnection, FakeWs(url))

    def loop(self, session: ClientSession, **kwargs: Any) -> Connections:
        return Connections(
            ENTRY,
            session,
            clock=self.clock,
            sleep=self.sleep,
            connector=self.connect,
            on_retry=self.retries.append,
            **kwargs,
        )


def new_session(goal: Any = None) -> ClientSession:
    return ClientSession(
        goal or JoinSeat(name="ana", game="g1"), client="test", subprotocol=SUBPROTOCOL_JSON
    )


def feed(session: ClientSession, *messages: Any) -> None:
    session.connect()
    session.receive(WIRE.encode(m.Welcome(protocol=PROTOCOL_VERSION, server="test")))
    for message in messages:
        session.receive(WIRE.encode(message))


SEATED = m.Joined(game="g1", seat=0, token="tok")


def refused(code: ErrorCode, detail: str | None = None) -> m.Error:
    return m.Error(code=code, message="no", detail=detail)


async def test_moved_is_followed_at_once_and_only_so_many_times_in_a_row() -> None:
    world, session = World(), new_session()
    connections = world.loop(session)
    await anext(connections)
    for n in range(MAX_MOVES):
        feed(session, refused(ErrorCode.MOVED, f"ws://server-{n}"))
        await anext(connections)
    assert world.urls == [ENTRY, *(f"ws://server-{n}" for n in range(MAX_MOVES))]
    assert world.sleeps == []  # no waiting to follow moved
    feed(session, refused(ErrorCode.MOVED, "ws://yet-another"))
    with pytest.raises(StopAsyncIteration):  # refused before it was ever taken: play ends
        await anext(connections)


async def test_a_seat_lost_comes_back_to_the_entry_with_doubling_waits() -> None:
    world, session = World(), new_session()
    policy = Reconnect(attempts=10, first_delay=0.5, max_delay=3.0, give_up_after=math.inf)
    connections = world.loop(session, policy=policy)
    first = await anext(connections)
    feed(session, refused(ErrorCode.MOVED, "ws://other"))
    await anext(connections)
    feed(session, SEATED)  # seated at the server that plays it; then the line drops
    world.down.add(ENTRY)
    world.now += 1
    with pytest.raises(ConnectionLost) as lost:
        await anext(connections)
    assert cast(Any, first).closed
    assert world.sleeps == [0.5, 1.0, 2.0, 3.0, 3.0, 3.0, 3.0, 3.0, 3.0, 3.0]
    assert set(world.urls[2:]) == {ENTRY}  # after a loss: the entry, which knows the way
    assert lost.value.attempts == 10 and lost.value.refusal is None
    assert [r.attempt for r in world.retries] == list(range(1, 11))
    assert "could not rejoin game g1 (10 tries" in str(lost.value)


async def test_it_gives_up_when_its_time_runs_out_and_never_waits_past_it() -> None:
    world, session = World(), new_session()
    policy = Reconnect(attempts=100, first_delay=0.4, max_delay=10.0, give_up_after=1.0)
    connections = world.loop(session, policy=policy)
    await anext(connections)
    feed(session, SEATED)
    world.down.add(ENTRY)
    with pytest.raises(ConnectionLost) as lost:
        await anext(connections)
    assert world.sleeps == [0.4, pytest.approx(0.6)]  # the last wait ends at the limit
    assert lost.value.attempts == 2


async def test_a_rejoin_that_succeeds_starts_the_count_afresh() -> None:
    world, session = World(), new_session()
    connections = world.loop(session, policy=Reconnect(attempts=2, first_delay=1.0))
    await anext(connections)
    for _ in range(3):  # each loss takes both tries the policy allows, then is back
        feed(session, SEATED)
        world.failing = 1
        await anext(connections)
        assert connections.attempts == 2
    assert world.sleeps == [1.0, 2.0] * 3


async def test_without_a_policy_a_loss_ends_at_once() -> None:
    world, session = World(), new_session()
    connections = world.loop(session, policy=None)
    await anext(connections)
    feed(session, SEATED)
    with pytest.raises(ConnectionLost) as lost:
        await anext(connections)
    assert lost.value.attempts == 0 and world.urls == [ENTRY] and world.sleeps == []


async def test_a_refusal_ends_the_loop_before_a_loss_and_raises_after_one() -> None:
    world, session = World(), new_session()
    connections = world.loop(session)
    await anext(connections)
    feed(session, refused(ErrorCode.GAME_FULL))
    with pytest.raises(StopAsyncIteration):
        await anext(connections)
    assert session.refusal is not None and session.refusal.code == ErrorCode.GAME_FULL

    world, session = World(), new_session()
    connections = world.loop(session)
    await anext(connections)
    feed(session, SEATED)
    await anext(connections)  # lost, back at once after the first wait
    feed(session, refused(ErrorCode.BAD_TOKEN))
    with pytest.raises(ConnectionLost) as lost:
        await anext(connections)
    assert lost.value.refusal is not None and lost.value.refusal.code == ErrorCode.BAD_TOKEN
    assert "refused the rejoin of game g1" in str(lost.value)


async def test_a_game_between_servers_is_asked_for_again_after_a_wait() -> None:
    world, session = World(), new_session()
    connections = world.loop(session, policy=Reconnect(first_delay=0.25))
    await anext(connections)
    feed(session, SEATED)
    await anext(connections)
    feed(session, refused(ErrorCode.UNKNOWN_GAME, "moving"))
    await anext(connections)
    assert world.sleeps == [0.25, 0.5] and world.urls == [ENTRY] * 3
    assert world.retries[-1].why == "the game is between servers"


async def test_a_loss_before_any_seat_ends_the_loop_unless_none_is_needed() -> None:
    world, session = World(), new_session(JoinSeat(name="ana", invite="ABC"))
    connections = world.loop(session)
    await anext(connections)
    feed(session)  # welcomed, the join asked; then the line drops
    with pytest.raises(ConnectionLost) as lost:
        await anext(connections)
    assert not lost.value.seated and "the game of invite code ABC" in str(lost.value)

    world, session = World(), new_session(WatchGame(game="g1"))
    connections = world.loop(session, needs_seat=False)
    await anext(connections)
    await anext(connections)
    assert world.urls == [ENTRY, ENTRY] and world.sleeps == [0.2]


async def test_a_first_connection_that_fails_is_raised_unless_told_to_retry() -> None:
    world, session = World(), new_session()
    world.down.add(ENTRY)
    with pytest.raises(ConnectionRefusedError):
        await anext(world.loop(session))
    with pytest.raises(ConnectionLost) as lost:
        await anext(world.loop(session, retry_first=True, policy=Reconnect(attempts=2)))
    assert lost.value.attempts == 2 and "ConnectionRefusedError" in str(lost.value)


def test_the_terminal_policy_waits_its_own_steps_and_never_gives_up() -> None:
    assert [FOREVER.delay(n) for n in range(1, 8)] == [0.5, 1.0, 2.0, 3.0, 5.0, 5.0, 5.0]
    assert FOREVER.attempts == math.inf and FOREVER.give_up_after == math.inf
    assert [Reconnect().delay(n) for n in (1, 2, 3, 10)] == [0.2, 0.4, 0.8, 5.0]
