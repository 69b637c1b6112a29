"""The ladder store, on SQLite and on a real PostgreSQL: ladders, atomic games, resume
bookkeeping, refusal of a changed configuration."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from tournament.ladder.store import StoreError, default_db, open_store
from tournament.records import GameRecord

IDENTITY = {"ladder": {"name": "l", "players": 2}, "entrants": [{"name": "a"}, {"name": "b"}]}
ENTRANTS = {"a": ({"name": "a", "bot": "random"}, "no search"), "b": ({"name": "b"}, "5 ms")}


def _record(index: int, winner: int | None = 0) -> GameRecord:
    return GameRecord(
        index=index,
        block=index // 2,
        seed=100 + index // 2,
        seating=(index % 2, 1 - index % 2),
        winner=winner,
        points=(10, 7) if winner == 0 else (7, 7),
        actions=321,
        elapsed=1.5,
        decisions=(40, 41),
        decision_seconds=(0.25, 0.5),
    )


def test_games_are_stored_and_read_back(db: str) -> None:
    with open_store(db) as store:
        assert store.open_ladder("l", IDENTITY, ENTRANTS) == 0
        store.add_game("l", _record(1), ("b", "a"), (7, 8), {"players": 2}, "process")
        store.add_game("l", _record(0, None), ("a", "b"), (7, 8), {"players": 2}, "ray")
    with open_store(db) as store:
        assert store.ladders() == ["l"]
        assert store.open_ladder("l", IDENTITY, ENTRANTS) == 2
        assert store.done("l") == {0, 1}
        assert store.budgets("l") == {"a": "no search", "b": "5 ms"}
        first, second = store.games("l")
        assert (first.index, first.labels, first.winner, first.points) == (
            0,
            ("a", "b"),
            None,
            (7, 7),
        )
        assert first.ranks == (1, 1) and first.backend == "ray"
        assert (second.index, second.labels, second.winner, second.ranks) == (
            1,
            ("b", "a"),
            0,
            (1, 2),
        )
        assert second.decisions == (40, 41) and second.decision_seconds == (0.25, 0.5)
        assert second.agent_seeds == (7, 8) and second.config == {"players": 2}
        assert second.seed == 100 and second.actions == 321 and second.finished > 0


def test_a_game_index_is_stored_once(db: str) -> None:
    with open_store(db) as store:
        store.open_ladder("l", IDENTITY, ENTRANTS)
        store.add_game("l", _record(0), ("a", "b"), (1, 2), {}, "process")
        with pytest.raises(Exception, match=r"(?i)unique|duplicate"):
            store.add_game("l", _record(0), ("a", "b"), (1, 2), {}, "process")
        # The failed write left nothing behind, and the store goes on working.
        assert store.done("l") == {0}
        store.add_game("l", _record(1), ("b", "a"), (1, 2), {}, "process")
        assert [g.index for g in store.games("l")] == [0, 1]


def test_another_configuration_is_refused_unless_fresh(db: str) -> None:
    with open_store(db) as store:
        store.open_ladder("l", IDENTITY, ENTRANTS)
        store.add_game("l", _record(0), ("a", "b"), (1, 2), {}, "process")
        changed = {**IDENTITY, "ladder": {"name": "l", "players": 3}}
        with pytest.raises(StoreError, match=r"\[ladder\] players was 2, now 3.*--fresh"):
            store.open_ladder("l", changed, ENTRANTS)
        assert store.done("l") == {0}
        assert store.open_ladder("l", changed, ENTRANTS, fresh=True) == 0
        assert store.games("l") == []
        assert store.open_ladder("other", IDENTITY, ENTRANTS) == 0
        assert store.ladders() == ["l", "other"]


def test_a_ladder_with_no_game_yet_takes_a_corrected_configuration(db: str) -> None:
    """A run that failed before its first game (a server it could not reach) leaves
    nothing that a corrected file would contradict."""
    renamed = {"c": ENTRANTS["a"], "b": ENTRANTS["b"]}
    changed = {**IDENTITY, "ladder": {"name": "l", "players": 3}}
    with open_store(db) as store:
        store.open_ladder("l", IDENTITY, ENTRANTS)
        assert store.open_ladder("l", changed, renamed) == 0
        assert store.ladder_config("l") == changed and set(store.entrants("l")) == {"b", "c"}
        store.add_game("l", _record(0), ("c", "b"), (1, 2), {}, "process")
        with pytest.raises(StoreError):  # once a game is stored, it is kept
            store.open_ladder("l", IDENTITY, ENTRANTS)


def test_the_seat_table_answers_queries_by_entrant(tmp_path: Path) -> None:
    path = tmp_path / "games.db"
    with open_store(str(path)) as store:
        store.open_ladder("l", IDENTITY, ENTRANTS)
        for i in range(4):
            store.add_game(
                "l", _record(i), ("a", "b") if i % 2 == 0 else ("b", "a"), (1, 2), {}, "x"
            )
    rows = sqlite3.connect(path).execute(
        "SELECT label, SUM(won), COUNT(*) FROM ladder_seat WHERE ladder='l' "
        "GROUP BY label ORDER BY label"
    )
    assert rows.fetchall() == [("a", 2, 4), ("b", 2, 4)]


def test_the_default_store_is_the_play_data_directory(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from storage import data_dir

    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path))
    monkeypatch.delenv("HEXHAVEN_DB", raising=False)
    assert default_db() == str(data_dir() / "games.db")
    monkeypatch.setenv("HEXHAVEN_DB", "postgresql://u:secret@h/db")
    assert default_db() == "postgresql://u:secret@h/db"


def test_an_unreachable_postgres_is_a_store_error() -> None:
    with pytest.raises(StoreError, match="cannot connect") as info:
        open_store("postgresql://u:secret@127.0.0.1:1/none?connect_timeout=2")
    assert "secret" not in str(info.value)


def test_a_store_in_a_folder_that_does_not_exist_is_refused(tmp_path: Path) -> None:
    """A mistyped --db folder is an error, not a new, empty ladder somewhere else; the
    default store's folder (the data directory) is made the first time."""
    with pytest.raises(StoreError, match=r"no folder .*typo"):
        open_store(str(tmp_path / "typo" / "games.db"))
    assert not (tmp_path / "typo").exists()
    with open_store(str(tmp_path / "games.db")) as store:
        assert store.ladders() == []
