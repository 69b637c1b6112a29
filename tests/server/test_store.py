"""The games database, on SQLite and on a real PostgreSQL server: a game stored and read
back whole (a seed up to 2^63 - 1, seats replaced, actions with their dice, chat, the end),
and the lists the server resumes and replays from."""

from __future__ import annotations

import time

import pytest

import engine
from engine import GameConfig, apply, legal_actions, new_game
from protocol import messages as m
from server.store import Store, StoreError, hash_token, is_postgres, redact


def _play(actions: int) -> tuple[int, list[engine.Action], list[tuple[int, tuple[int, int]]]]:
    """A seeded game's first actions (the first listed each time) and its rolls."""
    seed = 2**63 - 1  # the largest seed the server draws
    state = new_game(GameConfig(players=3), seed)
    played: list[engine.Action] = []
    rolls: list[tuple[int, tuple[int, int]]] = []
    for i in range(actions):
        seat = engine.seats_to_act(state)[0]
        action = legal_actions(state, seat)[0]
        apply(state, action)
        played.append(action)
        if isinstance(action, engine.RollDice):
            assert state.dice is not None
            rolls.append((i, state.dice))
    return seed, played, rolls


def test_a_game_is_stored_and_read_back_whole(db: str) -> None:
    seed, played, rolls = _play(60)
    assert rolls  # the set-up is over and dice were rolled
    options = m.GameOptions(players=3, turn_timer=30.0)
    store = Store(db)
    before = time.time()
    store.create_game("g1", options, seed, "hash", "ABC123")
    store.set_seat("g1", 0, hash_token("t0"), "Ana")
    store.set_seat("g1", 1, hash_token("t1"), "Bo")
    store.set_seat("g1", 1, hash_token("t1b"), "Bo-bot", "heuristic")  # a holder replaced
    store.set_seat("g1", 2, hash_token("t2"), "Cy")
    store.free_seat("g1", 2)
    store.start_game("g1")
    dice = dict(rolls)
    for i, action in enumerate(played):
        store.append_action("g1", i, action, dice.get(i))
    store.add_chat("g1", 0, "Ana", "hello")
    assert [g.id for g in store.unfinished()] == ["g1"]
    assert store.played_out() == []
    store.close()

    store = Store(db)  # from the database, not from memory
    stored = store.load("g1")
    assert stored is not None
    assert (stored.options, stored.seed, stored.invite) == (options, seed, "ABC123")
    assert stored.seats == {
        0: (hash_token("t0"), "Ana", None),
        1: (hash_token("t1b"), "Bo-bot", "heuristic"),
    }
    assert stored.started and not stored.finished
    assert stored.actions == played and stored.dice == rolls
    store.finish_game("g1", 1, [3, 10, 2])
    store.abandon_game("g1")  # a game already over stays as it ended
    [(game, ended, winner, points)] = store.played_out()
    assert (game, winner, points) == ("g1", 1, [3, 10, 2])
    assert before <= ended <= time.time()  # the time, to the second
    assert list(store.unfinished()) == [] and store.load("nope") is None
    store.close()


def test_a_database_named_by_url_is_postgres_and_shown_without_its_password() -> None:
    url = "postgresql://ana:secret@db.example:5432/games"
    assert is_postgres(url) and is_postgres("postgres://x/y") and not is_postgres("games.db")
    assert redact(url) == "postgresql://ana@db.example:5432/games"
    with pytest.raises(StoreError) as info:
        Store("postgresql://ana:secret@127.0.0.1:9/games")  # nothing listens on port 9
    assert "cannot connect to postgresql://ana@127.0.0.1:9/games" in str(info.value)
    assert "secret" not in str(info.value)


def test_a_postgres_url_without_host_or_user_takes_them_from_libpq_variables(
    postgres_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``postgresql:///DB``: the host, user (and a password, were one needed) come from
    libpq's variables, for the migration's connection and for the pool's alike."""
    import psycopg

    info = psycopg.conninfo.conninfo_to_dict(postgres_url)
    monkeypatch.setenv("PGHOST", str(info["host"]))
    monkeypatch.setenv("PGUSER", str(info["user"]))
    store = Store(f"postgresql:///{info['dbname']}")
    store.create_game("g", m.GameOptions(players=2), 1, "h", None)
    assert store.db.postgres and store.load("g") is not None
    store.close()
