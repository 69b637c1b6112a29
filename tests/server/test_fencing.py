"""Every PostgreSQL commit is fenced by the leases: it writes a game only while, by the
database's clock and in the same transaction, this process holds the game's lease. A
process that lost a lease without knowing (paused, cut off) writes nothing more of that
game, and its room hands the game over, as when a renewal finds the lease gone."""

from __future__ import annotations

import asyncio

import pytest
from structlog.testing import capture_logs

from protocol import SUBPROTOCOL_MSGPACK
from protocol import messages as m
from server.app import HexhavenServer
from server.store import (
    LeaseLost,
    Store,
    WriteFailed,
    chat_said,
    game_created,
    lease_taken,
)
from server.verify import verify_game
from storage import connect
from tests.server.client import Client
from tests.server.test_failover import rejoin
from tests.server.test_play import seated_game
from tests.server.test_restart import finished_as_replayed
from tests.server.test_store_writer import (
    Heard,
    HeldStore,
    _action_of,
    _stored_actions,
    first_prompt,
    serving,
    until,
)

ELSEWHERE = "ws://elsewhere.example:8765"


def set_lease(db: str, game: str, owner: str, url: str, seconds: float) -> None:
    """Give ``game``'s lease to ``owner`` (reached at ``url``) until ``seconds`` from now
    by the database's clock (negative: lapsed), on a connection of the test's own."""
    conn = connect(db)
    try:
        conn.execute(
            "INSERT INTO leases (game, owner, url, expires) "
            "VALUES (?, ?, ?, extract(epoch FROM clock_timestamp()) + ?) "
            "ON CONFLICT (game) DO UPDATE SET owner=excluded.owner, url=excluded.url, "
            "expires=excluded.expires",
            (game, owner, url, seconds),
        )
    finally:
        conn.close()


def chat_lines(db: str) -> list[tuple[str, str]]:
    conn = connect(db)
    try:
        rows = conn.execute("SELECT game, text FROM chat ORDER BY text").fetchall()
    finally:
        conn.close()
    return [(str(g), str(t)) for g, t in rows]


async def test_a_commit_writes_only_the_games_whose_lease_is_held(postgres_url: str) -> None:
    """One batch of four games: the one held is written; the one another process holds,
    the one whose lease lapsed and the one with no lease are not, and fail with where each
    is played; a later write of a lost game is refused until the game is taken afresh. A
    new game's lease and the game go in, whether or not in one commit."""
    store = Store(postgres_url)
    store.holder = "me:1"
    options = m.GameOptions(players=2)
    for game in ("held", "taken", "lapsed", "none"):
        store.create_game(game, options, 1, "h", None)
    set_lease(postgres_url, "held", "me:1", "ws://me", 60)
    set_lease(postgres_url, "taken", "other:2", ELSEWHERE, 60)
    set_lease(postgres_url, "lapsed", "me:1", "ws://me", -1)
    with capture_logs() as logs:
        async with store.writing():
            said = {game: Heard() for game in ("held", "taken", "lapsed", "none")}
            for game, heard in said.items():
                store.queue(chat_said(game, 0, "p0", f"{game} 1"), heard)
            outcomes = [await heard.settled() for heard in said.values()]
            later = Heard()
            store.queue(chat_said("taken", 0, "p0", "taken 2"), later)
            refused = await later.settled()
            set_lease(postgres_url, "taken", "me:1", "ws://me", 60)
            assert await store.call(store.take, "taken") is not None
            again, lease = Heard(), Heard()
            store.queue(chat_said("taken", 0, "p0", "taken 3"), again)
            store.queue(lease_taken("new", "me:1", "ws://me", 60), lease)
            # the lease in a commit before the game's
            assert await again.settled() is None and await lease.settled() is None
            created = Heard()
            store.queue(game_created("new", options, 2, "h", None), created)
            assert await created.settled() is None
    assert outcomes[0] is None
    lost = outcomes[1:]
    assert all(isinstance(e, LeaseLost) for e in lost)
    assert [e.url for e in lost if isinstance(e, LeaseLost)] == [ELSEWHERE, None, None]
    assert isinstance(refused, WriteFailed) and "earlier write" in str(refused)
    assert chat_lines(postgres_url) == [("held", "held 1"), ("taken", "taken 3")]
    assert store.load("new") is not None
    store.close()
    gone = sorted(e["game"] for e in logs if e["event"] == "store.lease_lost")
    assert gone == ["lapsed", "none", "taken"]


@pytest.mark.parametrize("how", ["taken", "lapsed"])
async def test_an_action_of_a_game_whose_lease_went_is_not_written(
    postgres_url: str, how: str
) -> None:
    """The lease of a game goes while its first action waits to be committed (as for a
    process paused past its lease): taken by another process, or lapsed by the database's
    clock. The action is not written, no event of it leaves, and the players are told to
    rejoin where the game is played. A lapsed lease nobody took is this process's again at
    its next renewal: the game resumes here from what was stored."""
    store = HeldStore(postgres_url)
    with capture_logs() as logs:
        async with serving(store) as (srv, port):
            game, players = await seated_game(port, SUBPROTOCOL_MSGPACK, players=2)
            actor, act = await first_prompt(srv, game, players)
            store.hold()
            await actor.send(act)
            await store.until_queued(_action_of(game, 0))
            await store.until_held()
            if how == "taken":
                set_lease(postgres_url, game, "other:2", ELSEWHERE, 60)
            else:
                set_lease(postgres_url, game, srv.leases.owner, srv.url, -1)
            store.release()
            where = ELSEWHERE if how == "taken" else srv.url
            for c in players:
                told = await c.expect(m.Error)
                assert (told.code, told.game) == (m.ErrorCode.INTERNAL, game)
                assert f"another server plays this game now ({where})" in told.message
                assert not [x for x in c.received if isinstance(x, m.Events)]
            assert _stored_actions(postgres_url, game) == 0
            if how == "lapsed":
                await until(lambda: game in srv.rooms and srv.rooms[game].table.state_id == 0)
                back = await rejoin(port, game, players[0].token())
                assert isinstance(back, Client)
                assert (await back.expect(m.GameView)).view.state_id == 0
                await back.close()
            for c in players:
                await c.close()
    store.close()
    assert [(e["game"], e["now_at"]) for e in logs if e["event"] == "game.lost"] == [(game, where)]
    assert any(e["event"] == "store.lease_lost" and e["game"] == game for e in logs)


async def test_a_process_stuck_past_its_lease_writes_nothing_after_another_took_the_game(
    postgres_url: str,
) -> None:
    """Two servers on one database. A's writer is stuck with the first action of A's game
    (as a process paused mid-commit), so A renews no lease either; the lease lapses and B
    takes the game over from what was stored. Once A goes on, its commit is fenced: the
    action is not written, A's players are sent to B, and there they play the game to an
    end that its stored actions replay to. (Unfenced, A's late action would be stored
    under B's game, and B's own first action refused.)"""
    stuck = HeldStore(postgres_url)
    b = HexhavenServer(Store(postgres_url))
    with capture_logs() as logs:
        async with serving(stuck) as (a, port_a), b.running("127.0.0.1", 0) as at_b:
            port_b = b.port_of(at_b)
            game, players = await seated_game(port_a, SUBPROTOCOL_MSGPACK, players=2)
            actor, act = await first_prompt(a, game, players)
            stuck.hold()
            await actor.send(act)
            await stuck.until_queued(_action_of(game, 0))
            await stuck.until_held()
            await until(lambda: game in b.rooms)  # A's lease lapsed: B has taken the game
            stuck.release()
            tokens = [c.token() for c in players]
            for c in players:
                told = await c.expect(m.Error)
                assert f"another server plays this game now ({b.url})" in told.message
                await c.close()
            assert _stored_actions(postgres_url, game) == 0
            back: list[Client] = []
            for token in tokens:
                seated = await rejoin(port_b, game, token)
                assert isinstance(seated, Client), seated
                back.append(seated)
            overs = await asyncio.gather(
                *(c.play_randomly(game, seed=i) for i, c in enumerate(back))
            )
            for seated in back:
                await seated.close()
    b.store.close()
    stuck.close()
    assert overs[0] == overs[1]
    assert verify_game(finished_as_replayed(postgres_url, game, overs[0])).ok
    assert [e["now_at"] for e in logs if e["event"] == "game.lost"] == [b.url]
