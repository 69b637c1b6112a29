"""A batch of statements runs in one transaction, in the order given, with each run of
consecutive statements of the same SQL as one ``executemany``: on a SQLite file, and on a
real PostgreSQL server through a connection and through the pool."""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any

import pytest

from storage import Database, Pool, Row, Statement, _rows_clause, _runs, connect

INSERT = "INSERT INTO t (k, v) VALUES (?, ?)"
UPDATE = "UPDATE t SET v = ? WHERE k = ?"
DELETE = "DELETE FROM t WHERE k = ?"

ORDERED: list[Statement] = [
    (INSERT, (1, "a")),
    (INSERT, (2, "b")),
    (UPDATE, ("a2", 1)),
    (INSERT, (3, "c")),
    (DELETE, (2,)),
    (INSERT, (2, "b2")),  # the key freed by the delete just before
    (INSERT, (4, "d")),
    (UPDATE, ("d2", 4)),
    (UPDATE, ("d3", 4)),  # the later of two updates of one row wins
]
"""Statements whose outcome depends on their order, within runs and across them."""
AFTER = [(1, "a2"), (2, "b2"), (3, "c"), (4, "d3")]


def test_runs_group_consecutive_statements_of_the_same_sql_in_order() -> None:
    assert _runs(ORDERED) == [
        (INSERT, [(1, "a"), (2, "b")]),
        (UPDATE, [("a2", 1)]),
        (INSERT, [(3, "c")]),
        (DELETE, [(2,)]),
        (INSERT, [(2, "b2"), (4, "d")]),
        (UPDATE, [("d2", 4), ("d3", 4)]),
    ]
    assert _runs([]) == []


Batch = Callable[[Sequence[Statement]], None]


EACH_WAY = pytest.mark.parametrize(
    ("db", "way"),
    [("sqlite", "connection"), ("postgres", "connection"), ("postgres", "pool")],
    indirect=["db"],
)
"""Each way a batch runs: a connection's, on either store, and a PostgreSQL pool's."""


@pytest.fixture
def database(db: str, way: str) -> Iterator[tuple[Database, Batch]]:
    """A table ``t`` in ``db``; a connection to read it, and a way to run a batch: the
    connection's, or (PostgreSQL) a pool's guarded batch."""
    conn = connect(db)
    conn.execute("CREATE TABLE t (k INTEGER PRIMARY KEY, v TEXT NOT NULL)")
    if way == "connection":
        yield conn, conn.batch
        conn.close()
        return
    pool = Pool(db)

    def guarded(statements: Sequence[Statement]) -> None:
        def made(rows: list[Row]) -> Sequence[Statement]:
            assert rows == [(1,)]
            return statements

        pool.guarded_batch(("SELECT 1", ()), made)

    yield conn, guarded
    pool.close()
    conn.close()


def _rows(conn: Database) -> list[Any]:
    return [tuple(r) for r in conn.execute("SELECT k, v FROM t ORDER BY k").fetchall()]


@EACH_WAY
def test_a_batch_runs_its_statements_in_order(database: tuple[Database, Batch]) -> None:
    conn, batch = database
    batch(ORDERED)
    assert _rows(conn) == AFTER


@EACH_WAY
def test_a_failing_statement_in_a_run_stores_nothing_of_the_batch(
    database: tuple[Database, Batch],
) -> None:
    """The third insert of a run takes a key already taken: the error is raised and no
    statement of the batch is stored, before the run or in it."""
    conn, batch = database
    batch([(INSERT, (9, "z"))])
    with pytest.raises(Exception, match=r"(?i)unique|duplicate"):
        batch([(UPDATE, ("y", 9)), (INSERT, (1, "a")), (INSERT, (2, "b")), (INSERT, (9, "x"))])
    assert _rows(conn) == [(9, "z")]
    batch(ORDERED)  # the connection is whole again
    assert _rows(conn) == [*AFTER, (9, "z")]


def test_a_batch_of_one_run_of_inserts_is_one_statement_and_stores_all_or_nothing(
    tmp_path: Path,
) -> None:
    """On SQLite a run of plain inserts goes as statements of many rows each (here three
    rows a statement, the limit lowered), in order; a key taken twice stores none of it."""
    conn = connect(tmp_path / "t.db")
    conn.execute("CREATE TABLE t (k INTEGER PRIMARY KEY, v TEXT NOT NULL)")
    conn._limit = 6  # two parameters a row: three rows a statement
    conn.batch([(INSERT, (k, f"v{k}")) for k in range(1, 8)])
    assert _rows(conn) == [(k, f"v{k}") for k in range(1, 8)]
    with pytest.raises(Exception, match=r"(?i)unique"):
        conn.batch([(INSERT, (k, "again")) for k in (20, 21, 22, 23, 3, 24)])
    assert _rows(conn) == [(k, f"v{k}") for k in range(1, 8)]
    with pytest.raises(Exception, match=r"(?i)unique"):
        conn.batch([(INSERT, (k, "again")) for k in (30, 30)])  # within one statement
    assert _rows(conn) == [(k, f"v{k}") for k in range(1, 8)]
    conn.close()


def test_only_plain_inserts_are_put_in_rows() -> None:
    assert _rows_clause(INSERT) == ("INSERT INTO t (k, v) VALUES ", "(?, ?)")
    for sql in (
        UPDATE,
        DELETE,
        "INSERT INTO t (k, v) VALUES (?, ?) ON CONFLICT (k) DO UPDATE SET v=excluded.v",
        "INSERT INTO t (k, v) VALUES (?, 1)",
        "INSERT INTO t (k, v) SELECT k, v FROM u",
    ):
        assert _rows_clause(sql) is None, sql
