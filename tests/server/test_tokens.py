"""Seat tokens are secrets: the database keeps only their hashes (a database of the first
schema, which kept them in clear, is migrated when opened, and its players still rejoin),
no log line carries one, and any string presented as a token is only a wrong token."""

from __future__ import annotations

import asyncio
import re
import secrets
import threading
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest
from structlog.testing import capture_logs

from bots.random_player import RandomAgent
from clients.sdk import play
from protocol import SUBPROTOCOL_JSON, SUBPROTOCOL_MSGPACK
from protocol import messages as m
from protocol.options import seed_hash, with_board
from protocol.payloads import WireModel
from server.app import HexhavenServer
from server.room import GameRoom
from server.store import MIGRATIONS, STORE_NAME, Store, StoreError, hash_token, is_postgres
from storage import connect, schema_version
from tests.server.client import Client
from tests.server.test_play import seated_game
from tests.server.test_restart import play_until

FIRST_SCHEMA = """
CREATE TABLE games (
    id TEXT PRIMARY KEY,
    options TEXT NOT NULL,
    seed BIGINT NOT NULL,
    seed_hash TEXT NOT NULL,
    invite TEXT,
    created DOUBLE PRECISION NOT NULL,
    started INTEGER NOT NULL DEFAULT 0,
    finished DOUBLE PRECISION,
    winner INTEGER,
    points TEXT
);
CREATE TABLE seats (
    game TEXT NOT NULL REFERENCES games(id),
    seat INTEGER NOT NULL,
    token TEXT NOT NULL,
    name TEXT NOT NULL,
    bot TEXT,
    PRIMARY KEY (game, seat)
);
CREATE TABLE actions (
    game TEXT NOT NULL REFERENCES games(id),
    idx INTEGER NOT NULL,
    seat INTEGER NOT NULL,
    action TEXT NOT NULL,
    dice TEXT,
    PRIMARY KEY (game, idx)
);
CREATE TABLE chat (
    game TEXT NOT NULL REFERENCES games(id),
    at DOUBLE PRECISION NOT NULL,
    seat INTEGER,
    name TEXT NOT NULL,
    text TEXT NOT NULL
)
"""
"""The games store as it was made before schema versions (seats with tokens in clear)."""


def _first_schema_database(db: str, game: str, tokens: list[str]) -> None:
    """A database of the first schema holding one started game whose seats (people) have
    ``tokens``, in clear."""
    conn = connect(db)
    for statement in FIRST_SCHEMA.split(";"):
        conn.execute(statement)
    seed = 123456789
    options = with_board(m.GameOptions(players=len(tokens)), seed)
    conn.execute(
        "INSERT INTO games (id, options, seed, seed_hash, created, started) VALUES (?,?,?,?,?,1)",
        (game, options.model_dump_json(), seed, seed_hash(seed), 0.0),
    )
    for seat, token in enumerate(tokens):
        conn.execute(
            "INSERT INTO seats (game, seat, token, name) VALUES (?,?,?,?)",
            (game, seat, token, f"p{seat}"),
        )
    conn.close()


def _everything_stored(store: Store) -> str:
    """Every row of the games store's tables, as text."""
    rows = [
        store._execute(f"SELECT * FROM {table}").fetchall()
        for table in ("games", "seats", "actions", "chat")
    ]
    return repr(rows)


def _database_files(db: str) -> bytes:
    """A SQLite database's bytes on disk, with its write-ahead log (nothing for PostgreSQL,
    whose files the test cannot read)."""
    if is_postgres(db):
        return b""
    files = [Path(db), Path(db + "-wal"), Path(db + "-shm")]
    return b"".join(f.read_bytes() for f in files if f.exists())


async def test_a_first_schema_database_is_migrated_and_its_players_rejoin(db: str) -> None:
    tokens = [f"first-schema-token-{seat}-{secrets.token_hex(8)}" for seat in range(2)]
    _first_schema_database(db, "g1", tokens)
    store = Store(db)
    assert schema_version(store.db, STORE_NAME) == len(MIGRATIONS) == 5
    stored = store.load("g1")
    assert stored is not None
    assert {seat: h for seat, (h, _, _) in stored.seats.items()} == {
        0: hash_token(tokens[0]),
        1: hash_token(tokens[1]),
    }
    kept = _everything_stored(store) + repr(_database_files(db))
    assert not any(t in kept for t in tokens)

    srv = HexhavenServer(store)
    async with srv.running("127.0.0.1", 0) as ws_server:
        port = srv.port_of(ws_server)
        back = [await Client.open(port, SUBPROTOCOL_MSGPACK) for _ in tokens]
        for seat, (c, token) in enumerate(zip(back, tokens, strict=True)):
            await c.hello()
            await c.send(m.Rejoin(game="g1", token=token))
            joined = await c.expect(m.Joined)
            assert (joined.seat, joined.token) == (seat, token)
        overs = await asyncio.gather(*(c.play_randomly("g1", i) for i, c in enumerate(back)))
        assert overs[0].winner is not None
        for c in back:
            await c.close()
    store.close()

    again = Store(db)  # up to date: opened again, nothing changes
    reloaded = again.load("g1")
    assert reloaded is not None and reloaded.seats == stored.seats and reloaded.finished
    assert schema_version(again.db, STORE_NAME) == 5
    again.close()


def test_processes_opening_a_first_schema_database_at_once_migrate_it_once(db: str) -> None:
    """Each token is hashed once, whichever opener migrates (hashed twice, no token would
    match)."""
    tokens = ["token-zero-0123456789abcdefghij", "token-one-0123456789abcdefghijk"]
    _first_schema_database(db, "g1", tokens)
    start = threading.Barrier(4)

    def open_store() -> dict[int, str]:
        start.wait()
        store = Store(db)
        try:
            stored = store.load("g1")
            assert stored is not None
            return {seat: h for seat, (h, _, _) in stored.seats.items()}
        finally:
            store.close()

    with ThreadPoolExecutor(4) as pool:
        seen = list(pool.map(lambda _: open_store(), range(4)))
    assert seen == [{0: hash_token(tokens[0]), 1: hash_token(tokens[1])}] * 4


def test_a_database_of_a_newer_schema_is_refused(db: str) -> None:
    store = Store(db)
    store._execute("UPDATE schema_version SET version=? WHERE store=?", (99, STORE_NAME))
    store.close()
    with pytest.raises(StoreError, match="version 99, newer than this program knows"):
        Store(db)


async def test_tokens_are_in_no_log_and_the_database_keeps_only_their_hashes(
    db: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A person plays with two server bots, drops, is stood in for by a bot process, and
    comes back with the SDK: none of the tokens given out (the person's, each bot
    process's, the stand-in's) is in a log line or in the database, which holds the
    hashes of the seats' tokens alone (never the stand-in's)."""
    issued: list[str] = []

    def token(n: int) -> str:
        issued.append(f"SeCrEt{len(issued):026d}")
        return issued[-1]

    monkeypatch.setattr(secrets, "token_urlsafe", token)
    store = Store(db)
    srv = HexhavenServer(store, away_grace=0.2)
    with capture_logs() as logs:
        async with srv.running("127.0.0.1", 0) as ws_server:
            me = await Client.open(srv.port_of(ws_server), SUBPROTOCOL_MSGPACK)
            await me.hello()
            options = m.GameOptions(players=3, bots=[m.BotSeat(kind="random")] * 2)
            await me.send(m.CreateGame(options=options))
            game = (await me.expect(m.GameCreated)).game
            await me.send(m.JoinGame(game=game, name="me"))
            my_token = (await me.expect(m.Joined)).token
            assert my_token is not None
            await me.send(m.StartGame(game=game))
            await play_until(me, game, 1, 20)
            await me.close()
            slot = srv.rooms[game].seats[0]
            assert slot is not None
            async with asyncio.timeout(30):  # away after the grace: a bot stands in
                while slot.standin is None:
                    await asyncio.sleep(0.05)
            standin_hash = slot.standin_hash
            over = await play(RandomAgent(7), srv.url, game, token=my_token)
            assert over is not None and over.winner is not None
    assert {e["event"] for e in logs} >= {"room.stand_in", "room.rejoined", "agent.seated"}
    logged = repr(logs)
    assert not any(t in logged for t in issued)

    stored = store.load(game)
    assert stored is not None
    hashes = {seat: h for seat, (h, _, _) in stored.seats.items()}
    assert hashes[0] == hash_token(my_token)
    assert set(hashes.values()) <= {hash_token(t) for t in issued}
    kept = _everything_stored(store) + repr(_database_files(db))
    assert not any(t in kept for t in issued)
    assert standin_hash is not None and standin_hash not in kept
    store.close()


async def test_any_string_presented_as_a_token_is_a_wrong_token(server_port: int) -> None:
    """Non-ASCII, control characters, a real token with more after it: ``bad_token``. An
    empty or enormous one is no token the protocol carries: ``bad_message``. Never
    ``internal``, nothing logged as a failure, and the connection goes on."""
    game, players = await seated_game(server_port, SUBPROTOCOL_JSON, players=2)
    c = await Client.open(server_port, SUBPROTOCOL_JSON)
    await c.hello()
    with capture_logs() as logs:
        for token in ("é", "☃" * 40, "\U0001f600", "t\x00ken", players[0].token() + "é"):
            await c.send(m.Rejoin(game=game, token=token))
            assert (await c.expect(m.Error)).code == m.ErrorCode.BAD_TOKEN, token
        for token in ("", "x" * 20_000):
            await c.send_raw(f'{{"type": "rejoin", "game": "{game}", "token": "{token}"}}')
            assert (await c.expect(m.Error)).code == m.ErrorCode.BAD_MESSAGE
        await c.send(m.Ping(nonce=9))
        assert (await c.expect(m.Pong)).nonce == 9
        await c.send(m.Rejoin(game=game, token=players[1].token()))
        assert (await c.expect(m.Joined)).seat == 1
    assert not [e for e in logs if e["log_level"] in ("error", "critical")]
    for p in (*players, c):
        await p.close()


class _Peer:
    id = "peer"
    wants_views = False
    wants_event_views = False

    def __init__(self) -> None:
        self.sent: list[WireModel] = []

    def send(self, message: WireModel) -> None:
        self.sent.append(message)

    def close(self) -> None:
        """Nothing to close."""


@pytest.mark.parametrize(
    "token",
    ["", "x" * 1_000_000, "é" * 24, "\ud800", "\x00"],
    ids=["empty", "a million characters", "non-ASCII", "a lone surrogate", "NUL"],
)
def test_the_room_answers_bad_token_to_any_string(token: str) -> None:
    """Below the protocol's checks too: the room compares the hash of whatever it is given."""
    seed = 5
    room = GameRoom("g1", with_board(m.GameOptions(players=2), seed), seed, None, Store())
    ana, stranger = _Peer(), _Peer()
    room._handle(ana, m.JoinGame(game="g1", name="ana"))
    real: Any = next(x for x in ana.sent if isinstance(x, m.Joined)).token
    room._handle(stranger, m.Rejoin.model_construct(game="g1", token=token, history=False))
    [error] = stranger.sent
    assert isinstance(error, m.Error) and error.code == m.ErrorCode.BAD_TOKEN
    room._handle(stranger, m.Rejoin(game="g1", token=real))
    assert isinstance(stranger.sent[1], m.Joined) and stranger.sent[1].seat == 0
    assert not re.search(re.escape(real), repr(room.seats))
