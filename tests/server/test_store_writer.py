"""The store's writer: one thread holds the connection and commits whatever has queued, from
every game, in one transaction; an action's messages leave only once it is committed, in
the order the room made them; a write that fails stops its game alone, logged; and the
server's shutdown commits what was queued. On SQLite and on a real PostgreSQL server."""

from __future__ import annotations

import asyncio
import contextlib
import threading
from collections.abc import AsyncIterator, Callable, Sequence
from pathlib import Path
from typing import Any

from structlog.testing import capture_logs
from websockets.exceptions import ConnectionClosed

import engine
from protocol import SUBPROTOCOL_MSGPACK
from protocol import messages as m
from server.app import HexhavenServer
from server.store import (
    Store,
    Write,
    WriteFailed,
    WriteListener,
    action_played,
    chat_said,
    game_created,
    seat_freed,
)
from storage import connect
from tests.server.client import Client
from tests.server.test_play import seated_game

WAIT = 10.0


class HeldStore(Store):
    """A store whose group commits the test can hold, and which remembers every write
    queued and every batch committed."""

    def __init__(self, path: str | Path) -> None:
        super().__init__(path)
        self.gate = threading.Event()
        self.gate.set()
        self.at_gate = threading.Event()
        """Set by the writer when it waits at the closed gate with a batch."""
        self.batches: list[list[Write]] = []
        self.queued: list[Write] = []
        self.refused: set[str] = set()
        """Games whose writes the database refuses (a batch holding one fails)."""
        self._news = asyncio.Event()
        self.draining = asyncio.Event()
        """Set when the block run with the writer ends: the writer is being drained."""

    @contextlib.asynccontextmanager
    async def writing(self) -> AsyncIterator[None]:
        async with super().writing():
            try:
                yield
            finally:
                self.draining.set()

    def hold(self) -> None:
        """Hold the next commit (and every later one) until :meth:`release`."""
        self.at_gate.clear()
        self.gate.clear()

    def release(self) -> None:
        self.gate.set()

    def queue(self, write: Write, listener: WriteListener | None = None) -> bool:
        self.queued.append(write)
        self._news.set()
        return super().queue(write, listener)

    def commit(self, writes: Sequence[Write], lost: dict[str, str | None]) -> None:
        if not self.gate.is_set():
            self.at_gate.set()
            assert self.gate.wait(30), "the test never released the store"
        self.batches.append(list(writes))
        refused = [w.what for w in writes if w.game in self.refused]
        if refused:
            raise RuntimeError(f"the test's database refuses {refused}")
        super().commit(writes, lost)

    async def until_queued(self, wanted: Callable[[list[Write]], bool]) -> None:
        """Wait until the writes queued so far are as ``wanted``."""
        async with asyncio.timeout(WAIT):
            while not wanted(self.queued):
                self._news.clear()
                await self._news.wait()

    async def until_held(self) -> None:
        """Wait until the writer waits at the gate with a batch."""
        assert await asyncio.to_thread(self.at_gate.wait, WAIT)


class Heard:
    """A listener of the store's commits, as a room is, that remembers what it is told."""

    def __init__(self) -> None:
        self.told: list[tuple[int, WriteFailed | None]] = []
        self._news = asyncio.Event()

    def stored(self, count: int, failure: WriteFailed | None) -> None:
        self.told.append((count, failure))
        self._news.set()

    @property
    def committed(self) -> int:
        return sum(count for count, _ in self.told)

    @property
    def failure(self) -> WriteFailed | None:
        return next((f for _, f in self.told if f is not None), None)

    async def settled(self, writes: int = 1) -> WriteFailed | None:
        """Wait until ``writes`` writes of it are committed, or one has failed; the
        failure, if any."""
        async with asyncio.timeout(WAIT):
            while self.committed < writes and self.failure is None:
                self._news.clear()
                await self._news.wait()
        return self.failure


def _action_of(game: str, index: int) -> Callable[[list[Write]], bool]:
    return lambda ws: any(w.game == game and w.what.startswith(f"action {index} ") for w in ws)


def _stored_actions(db: str, game: str) -> int:
    """The actions of ``game`` in the database, read on a connection of the test's own."""
    conn = connect(db)
    try:
        row = conn.execute("SELECT COUNT(*) FROM actions WHERE game=?", (game,)).fetchone()
    finally:
        conn.close()
    return int(row[0])


@contextlib.asynccontextmanager
async def serving(store: HeldStore) -> AsyncIterator[tuple[HexhavenServer, int]]:
    """A server on ``store``; the store's commits are let go when the block ends, however
    it ends, so that the server's shutdown can commit what is queued."""
    srv = HexhavenServer(store)
    async with srv.running("127.0.0.1", 0) as ws_server:
        try:
            yield srv, srv.port_of(ws_server)
        finally:
            store.release()


async def first_prompt(
    srv: HexhavenServer, game: str, clients: list[Client]
) -> tuple[Client, m.Act]:
    """The client of the seat that acts first, and its answer to its prompt (the first
    action listed)."""
    actor = clients[engine.seats_to_act(srv.rooms[game].state)[0]]
    prompt = await actor.expect(m.Prompt)
    return actor, m.Act(game=game, state_id=prompt.state_id, action=prompt.actions[0])


async def until(condition: Callable[[], bool]) -> None:
    """Wait until ``condition()`` holds."""
    async with asyncio.timeout(WAIT):
        while not condition():
            await asyncio.sleep(0.01)


def _after_the_start(message: Any) -> bool:
    """Whether a message says anything of the game after its start (the state before the
    first action, id 0): events, chat, a prompt or view of a later state, a ``joined``."""
    match message:
        case m.Events() | m.ChatMessage() | m.Joined():
            return True
        case m.Prompt():
            return message.state_id > 0
        case m.GameView():
            return message.view.state_id > 0
    return False


async def pinged(c: Client, nonce: int) -> list[Any]:
    """What ``c`` receives up to the answer to a ping: everything the server had queued
    for it before."""
    start = len(c.received)
    await c.send(m.Ping(nonce=nonce))
    assert (await c.expect(m.Pong)).nonce == nonce
    return c.received[start:-1]


async def test_the_writer_commits_what_has_queued_in_one_transaction() -> None:
    """Without a server: writes queued while the writer is busy go in its next commit
    together, a read queued behind them sees them, and the in-memory store works."""
    store = HeldStore(":memory:")
    options = m.GameOptions(players=2)
    async with store.writing():
        store.hold()
        first = Heard()
        assert store.queue(game_created("g0", options, 1, "h", None), first)
        await store.until_held()
        rest = Heard()
        for i in (1, 2, 3):
            assert store.queue(game_created(f"g{i}", options, i, "h", None), rest)
        seen = asyncio.ensure_future(store.call(store.load, "g3"))
        assert not seen.done() and not first.told and not rest.told
        store.release()
        assert await first.settled() is None and await rest.settled(3) is None
        assert (await seen) is not None
        assert first.told == [(1, None)]
        assert rest.told == [(3, None)]  # one word for the whole batch
        assert [sorted(w.game for w in b) for b in store.batches] == [
            ["g0"],
            ["g1", "g2", "g3"],
        ]
    assert store.load("g2") is not None  # the writer is gone: the connection is ours again
    store.close()


async def test_one_commit_holds_the_actions_of_several_games(db: str) -> None:
    store = HeldStore(db)
    async with serving(store) as (srv, port):
        game_a, table_a = await seated_game(port, SUBPROTOCOL_MSGPACK, players=2)
        game_b, table_b = await seated_game(port, SUBPROTOCOL_MSGPACK, players=2)
        actor_a, act_a = await first_prompt(srv, game_a, table_a)
        actor_b, act_b = await first_prompt(srv, game_b, table_b)
        store.hold()
        await table_a[0].send(m.Chat(game=game_a, text="the writer is busy with this"))
        await store.until_held()
        await actor_a.send(act_a)
        await actor_b.send(act_b)
        await store.until_queued(lambda ws: _action_of(game_a, 0)(ws) and _action_of(game_b, 0)(ws))
        store.release()
        for c in (*table_a, *table_b):
            assert (await c.expect(m.Events)).state_id == 1
        together = [
            b for b in store.batches if _action_of(game_a, 0)(b) and _action_of(game_b, 0)(b)
        ]
        assert len(together) == 1  # one transaction, two games
        assert _stored_actions(db, game_a) == _stored_actions(db, game_b) == 1
        for c in (*table_a, *table_b):
            await c.close()
    store.close()


async def test_nothing_of_an_action_leaves_before_it_is_stored(db: str) -> None:
    """While the commit is held the game moves on but says nothing: not the action's events,
    not a chat line said after it, not a newcomer's ``joined``; once released they arrive in
    the order they were made, with the action in the database."""
    store = HeldStore(db)
    async with serving(store) as (srv, port):
        game, players = await seated_game(port, SUBPROTOCOL_MSGPACK, players=2)
        actor, act = await first_prompt(srv, game, players)
        [other] = [c for c in players if c is not actor]
        room = srv.rooms[game]
        store.hold()
        await actor.send(act)
        await store.until_queued(_action_of(game, 0))
        await actor.send(m.Chat(game=game, text="after my move"))
        await store.until_queued(lambda ws: any(w.what == "a chat line" for w in ws))
        late = await Client.open(port, SUBPROTOCOL_MSGPACK)
        await late.hello()
        await late.send(m.Watch(game=game))
        await until(lambda: bool(room.spectators))
        assert room.table.state_id == 1  # the game has moved on...
        for i, c in enumerate((*players, late)):
            said = await pinged(c, i)  # ...but nothing of it has left the server
            assert not [x for x in said if _after_the_start(x)]
        assert _stored_actions(db, game) == 0
        store.release()
        events = await other.expect(m.Events)
        assert _stored_actions(db, game) == 1  # in the database before its events arrived
        assert events.state_id == 1
        await other.expect(m.ChatMessage)
        kinds = [type(x) for x in other.received if isinstance(x, m.Events | m.ChatMessage)]
        assert kinds == [m.Events, m.ChatMessage]
        assert (await late.expect(m.Joined)).seat is None
        assert (await late.expect(m.GameView)).view.state_id == 1
        for c in (*players, late):
            await c.close()
    store.close()


async def test_a_failed_write_stops_its_game_and_the_others_play_on(db: str) -> None:
    """Game A's first action cannot be stored (a row already holds its place), in the same
    commit as game B's: A's players are told and A takes no more actions, while B's action
    is stored and B plays to its end; the failure is logged with the game and the action."""
    store = HeldStore(db)
    with capture_logs() as logs:
        async with serving(store) as (srv, port):
            game_a, table_a = await seated_game(port, SUBPROTOCOL_MSGPACK, players=2)
            game_b, table_b = await seated_game(port, SUBPROTOCOL_MSGPACK, players=2)
            planted = "INSERT INTO actions (game, idx, seat, action) VALUES (?, 0, 0, 'x')"
            await store.call(store._execute, planted, (game_a,))
            actor_a, act_a = await first_prompt(srv, game_a, table_a)
            actor_b, act_b = await first_prompt(srv, game_b, table_b)
            store.hold()
            await table_b[0].send(m.Chat(game=game_b, text="the writer is busy with this"))
            await store.until_held()
            await actor_a.send(act_a)
            await actor_b.send(act_b)
            await store.until_queued(
                lambda ws: _action_of(game_a, 0)(ws) and _action_of(game_b, 0)(ws)
            )
            store.release()
            for c in table_a:
                stopped = await c.expect(m.Error)
                assert (stopped.code, stopped.game) == (m.ErrorCode.INTERNAL, game_a)
            await actor_a.send(act_a)  # a stopped game takes nothing
            assert (await actor_a.expect(m.Error)).game == game_a
            overs = await asyncio.gather(
                *(c.play_randomly(game_b, seed=i) for i, c in enumerate(table_b))
            )
            assert overs[0].winner is not None
            for c in table_a:
                await pinged(c, 5)
                assert not [x for x in c.received if _after_the_start(x) and x.type != "joined"]
            for c in (*table_a, *table_b):
                await c.close()
    stored_b = store.load(game_b)
    store.close()
    assert _stored_actions(db, game_a) == 1  # the planted row alone
    assert stored_b is not None and stored_b.finished and len(stored_b.actions) > 1
    failed = [e for e in logs if e["event"] == "store.write_failed"]
    assert [(e["game"], e["write"].split(" (")[0]) for e in failed] == [(game_a, "action 0")]
    assert any(e["event"] == "store.batch_failed" and game_b in e["games"] for e in logs)
    [stop] = [e for e in logs if e["event"] == "room.stopped"]
    assert stop["game"] == game_a and stop["write"].startswith("action 0 ")


async def test_with_the_database_gone_games_stop_and_the_server_serves_on(
    tmp_path: Path,
) -> None:
    """The SQLite database goes away under a running server: the game whose action cannot
    be stored stops, its players told, and the server goes on answering (the lobby; a new
    game, refused, as it cannot be stored); the failure is logged with the game and the
    action. (A PostgreSQL server that goes away is waited for:
    tests/server/test_database_restart.py.)"""
    store = HeldStore(tmp_path / "games.db")
    with capture_logs() as logs:
        async with serving(store) as (srv, port):
            game, players = await seated_game(port, SUBPROTOCOL_MSGPACK, players=2)
            actor, act = await first_prompt(srv, game, players)
            await store.call(store.db.close)  # the database is gone
            await actor.send(act)
            for c in players:
                stopped = await c.expect(m.Error)
                assert (stopped.code, stopped.game) == (m.ErrorCode.INTERNAL, game)
                assert not [x for x in c.received if isinstance(x, m.Events)]
            newcomer = await Client.open(port, SUBPROTOCOL_MSGPACK)
            await newcomer.hello()
            await newcomer.send(m.ListGames())
            assert [g.game for g in (await newcomer.expect(m.GameList)).games] == [game]
            await newcomer.send(m.CreateGame(options=m.GameOptions(players=2)))
            assert (await newcomer.expect(m.Error)).code == m.ErrorCode.INTERNAL  # not stored
            assert not [x for x in newcomer.received if isinstance(x, m.GameCreated)]
            for c in (*players, newcomer):
                await c.close()
    store.close()
    assert any(
        e["event"] == "store.write_failed" and e["game"] == game and "action 0" in e["write"]
        for e in logs
    )


async def test_shutdown_commits_what_was_queued(tmp_path: Path) -> None:
    """The server stops while an action's commit is held: its connections close, and it
    ends only once the writer has committed the action."""
    db = str(tmp_path / "games.db")
    store = HeldStore(db)
    srv = HexhavenServer(store)
    stop = asyncio.Event()
    port: asyncio.Future[int] = asyncio.get_running_loop().create_future()

    async def serve() -> None:
        async with srv.running("127.0.0.1", 0) as ws_server:
            port.set_result(srv.port_of(ws_server))
            await stop.wait()

    server = asyncio.create_task(serve())
    game, players = await seated_game(await port, SUBPROTOCOL_MSGPACK, players=2)
    actor, act = await first_prompt(srv, game, players)
    store.hold()
    await actor.send(act)
    await store.until_queued(_action_of(game, 0))
    await store.until_held()
    stop.set()
    try:
        async with asyncio.timeout(WAIT):
            while True:
                await actor.recv()
    except ConnectionClosed as closed:
        assert closed.rcvd is not None and closed.rcvd.code == 1001
    await store.draining.wait()
    assert not server.done()  # closed to clients, but waiting for the store
    assert _stored_actions(db, game) == 0
    store.release()
    await asyncio.wait_for(server, WAIT)
    stored = store.load(game)
    store.close()
    assert stored is not None and len(stored.actions) == 1
    for c in players:
        await c.close()


async def test_each_listener_hears_once_a_batch_with_its_own_count() -> None:
    """Writes of two listeners, interleaved with writes nobody listens to, all in one
    commit: each listener is told once, of exactly its writes, and nobody else is told."""
    store = HeldStore(":memory:")
    options = m.GameOptions(players=2)
    with capture_logs() as logs:
        async with store.writing():
            store.hold()
            busy = Heard()
            store.queue(game_created("g0", options, 1, "h", None), busy)
            await store.until_held()
            one, two = Heard(), Heard()
            store.queue(game_created("g1", options, 1, "h", None), one)
            store.queue(chat_said("g0", None, "watcher", "nobody waits for this"))
            store.queue(game_created("g2", options, 2, "h", None), two)
            store.queue(chat_said("g1", 0, "p0", "one"), one)
            store.queue(chat_said("g0", None, "watcher", "nor this"), None)
            store.queue(chat_said("g2", 0, "p0", "two"), two)
            store.queue(chat_said("g1", 1, "p1", "one again"), one)
            store.release()
            assert await one.settled(3) is None and await two.settled(2) is None
            lines = await store.call(lambda: store._execute("SELECT COUNT(*) FROM chat").fetchone())
    assert (one.told, two.told, busy.told) == ([(3, None)], [(2, None)], [(1, None)])
    assert [len(b) for b in store.batches] == [1, 7]
    assert lines == (5,)
    assert not [e for e in logs if e["log_level"] in ("warning", "error")]
    store.close()


async def test_a_failed_write_is_never_followed_by_another_of_its_game() -> None:
    """A record never has a gap: once a game's write fails, its later writes are refused."""
    store = Store(":memory:")
    options = m.GameOptions(players=2)
    async with store.writing():
        ok, again, after, other = Heard(), Heard(), Heard(), Heard()
        store.queue(game_created("g1", options, 1, "h", None), ok)
        assert await ok.settled() is None
        store.queue(game_created("g1", options, 1, "h", None), again)  # the id is taken
        store.queue(Write("g1", "a seat", "DELETE FROM seats WHERE game=?", ("g1",)), after)
        store.queue(game_created("g2", options, 2, "h", None), other)
        results = [await heard.settled() for heard in (again, after, other)]
    assert isinstance(results[0], WriteFailed) and "the game was not stored" in str(results[0])
    assert isinstance(results[1], WriteFailed) and "earlier write" in str(results[1])
    assert results[2] is None
    assert again.told == [(0, results[0])]
    store.close()


async def test_a_listener_hears_once_a_batch_up_to_its_first_failure() -> None:
    """Writes of two listeners in one commit, one of whose writes fails: each listener is
    told once, the first of how many of its writes were stored before the failure and of
    the failure (none after it is counted), the other of all of its writes."""
    store = HeldStore(":memory:")
    options = m.GameOptions(players=2)
    async with store.writing():
        store.hold()
        busy = Heard()
        store.queue(game_created("g0", options, 1, "h", None), busy)
        await store.until_held()
        failing, fine = Heard(), Heard()
        store.queue(game_created("g1", options, 1, "h", None), failing)
        store.queue(game_created("g2", options, 2, "h", None), fine)
        store.queue(game_created("g1", options, 1, "h", None), failing)  # the id is taken
        store.queue(seat_freed("g1", 0), failing)
        store.queue(seat_freed("g2", 0), fine)
        store.release()
        failure = await failing.settled(3)
        assert await fine.settled(2) is None
    assert failing.told == [(1, failure)]
    assert failure is not None and "g1: the game was not stored" in str(failure)
    assert fine.told == [(2, None)]
    assert busy.told == [(1, None)]
    assert store.load("g1") is not None and store.load("g2") is not None
    store.close()


async def test_a_batch_of_actions_with_a_clash_is_retried_write_by_write(db: str) -> None:
    """Actions of three games in one commit, the same statement in a row (one
    ``executemany``), and one of them takes a place already stored: the commit fails, each
    write is tried alone, and only that game's writes fail, from the clash on; a write
    nobody listens to is stored; each listener is told once, with its count."""
    store = HeldStore(db)
    options = m.GameOptions(players=2)
    for game in ("g1", "g2", "g3"):
        store.create_game(game, options, 1, "h", None)
    state = engine.new_game(engine.GameConfig(players=2), 7)
    played = []
    for _ in range(4):
        action = engine.legal_actions(state)[0]
        engine.apply(state, action)
        played.append(action)
    store.append_action("g2", 1, played[1], None)  # the place g2's second action will want
    async with store.writing():
        store.hold()
        busy = Heard()
        store.queue(chat_said("g1", 0, "p0", "the writer is busy with this"), busy)
        await store.until_held()
        heard = {game: Heard() for game in ("g1", "g2", "g3")}
        for i, action in enumerate(played):
            for game in ("g1", "g2", "g3"):
                store.queue(action_played(game, i, action, (3, 4) if i == 2 else None), heard[game])
        store.queue(chat_said("g3", None, "watcher", "nobody waits for this"))
        store.release()
        clash = await heard["g2"].settled(4)
        assert await heard["g1"].settled(4) is None and await heard["g3"].settled(4) is None
    sizes = [sum(bool(w.game) for w in b) for b in store.batches]  # (not PostgreSQL's mark)
    assert sizes[-12:] == [13] + [1] * 11  # the failed commit, then each write alone (but
    # g2's two after the clash: refused untried)
    assert heard["g1"].told == heard["g3"].told == [(4, None)]
    assert heard["g2"].told == [(1, clash)]
    kind = type(played[1]).__name__
    assert clash is not None and f"game g2: action 1 ({kind}, seat " in str(clash)
    assert clash.write.what.startswith(f"action 1 ({kind}, seat ")
    stored = {game: store.load(game) for game in ("g1", "g2", "g3")}
    store.close()
    for game in ("g1", "g3"):
        got = stored[game]
        assert got is not None and got.actions == played and got.dice == [(2, (3, 4))]
    g2 = stored["g2"]
    assert g2 is not None and g2.actions == played[:2] and not g2.dice  # the planted row


async def test_one_commit_releases_what_each_room_held_in_order(db: str) -> None:
    """Two games' actions, each followed by a chat line, wait for one commit: once it is
    made each room hears of it once, for both its writes, and each player gets the
    action's events and then the chat line."""
    store = HeldStore(db)
    async with serving(store) as (srv, port):
        game_a, table_a = await seated_game(port, SUBPROTOCOL_MSGPACK, players=2)
        game_b, table_b = await seated_game(port, SUBPROTOCOL_MSGPACK, players=2)
        actor_a, act_a = await first_prompt(srv, game_a, table_a)
        actor_b, act_b = await first_prompt(srv, game_b, table_b)
        heard: dict[str, list[tuple[int, WriteFailed | None]]] = {}
        for game in (game_a, game_b):
            heard[game] = _overheard(srv.rooms[game])
        store.hold()
        await table_a[0].send(m.Chat(game=game_a, text="the writer is busy with this"))
        await store.until_held()
        for actor, act, game in ((actor_a, act_a, game_a), (actor_b, act_b, game_b)):
            await actor.send(act)
            await actor.send(m.Chat(game=game, text=f"after the move in {game}"))
        await store.until_queued(
            lambda ws: sum(w.game in (game_a, game_b) and w.what == "a chat line" for w in ws) == 3
        )
        store.release()
        for game, table in ((game_a, table_a), (game_b, table_b)):
            for c in table:
                while (await c.expect(m.ChatMessage)).text != f"after the move in {game}":
                    pass
                said = [
                    x.type if isinstance(x, m.Events) else x.text
                    for x in c.received
                    if isinstance(x, m.Events | m.ChatMessage)
                ]
                assert said[-2:] == ["events", f"after the move in {game}"]
        assert heard[game_a] == [(1, None), (2, None)]  # the busy batch, then the next
        assert heard[game_b] == [(2, None)]
        [batch] = [b for b in store.batches if _action_of(game_a, 0)(b)]
        assert _action_of(game_b, 0)(batch)
        for c in (*table_a, *table_b):
            await c.close()
    store.close()


def _overheard(room: Any) -> list[tuple[int, WriteFailed | None]]:
    """What the store tells ``room`` of its commits from now on (the room still hears it)."""
    heard: list[tuple[int, WriteFailed | None]] = []
    told = room.outbox.stored

    def stored(count: int, failure: WriteFailed | None) -> None:
        heard.append((count, failure))
        told(count, failure)

    room.outbox.stored = stored
    return heard


async def test_a_stopped_game_ends_its_bot_processes(db: str) -> None:
    """A game with a bot seat whose next write cannot be stored stops, and the bot
    process playing its seat is ended (it would otherwise hold its seat, and keep the game
    from being closed, until the server stopped)."""
    store = HeldStore(db)
    with capture_logs() as logs:
        async with serving(store) as (_, port):
            me = await Client.open(port, SUBPROTOCOL_MSGPACK)
            await me.hello()
            options = m.GameOptions(players=2, bots=[m.BotSeat(kind="random")])
            await me.send(m.CreateGame(options=options))
            game = (await me.expect(m.GameCreated)).game
            await me.send(m.JoinGame(game=game, name="me"))
            await me.expect(m.Joined)
            await me.send(m.StartGame(game=game))
            while True:  # until the bot's process has taken its seat
                roster = (await me.expect(m.Players)).players
                if len(roster) == 2 and all(p.connected for p in roster):
                    break
            store.refused.add(game)  # the game's writes fail from now on
            await me.send(m.Chat(game=game, text="anyone?"))  # a write: it cannot be stored
            stopped = await me.expect(m.Error)
            assert (stopped.code, stopped.game) == (m.ErrorCode.INTERNAL, game)
            await until(
                lambda: any(e["event"] == "bot.stopped" and e["game"] == game for e in logs)
            )
            await me.close()
    store.close()
    started = [e for e in logs if e["event"] == "bot.started" and e["game"] == game]
    ended = [e for e in logs if e["event"] == "bot.stopped" and e["game"] == game]
    seat = [(e.get("pid"), e.get("bot")) for e in started]  # a process, or a host's seat
    assert len(started) == 1 and [(e.get("pid"), e.get("bot")) for e in ended] == seat
