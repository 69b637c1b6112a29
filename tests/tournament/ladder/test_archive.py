"""Ladder archives: export then import gives back the same ladder, in either store kind; an
import adds only the games a store lacks, so a ladder goes on in another store; a file
that is not an archive, or disagrees with the store, is refused whole; a reader that goes
away (`| head`) ends the command quietly."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from app.cli import main
from tournament.ladder.archive import (
    ArchiveError,
    dump_archive,
    export_ladder,
    import_ladder,
    read_archive,
    write_archive,
)
from tournament.ladder.store import StoreError, open_store
from tournament.records import GameRecord

IDENTITY = {"ladder": {"name": "l", "players": 2}, "entrants": [{"name": "a"}, {"name": "b"}]}
ENTRANTS = {"a": ({"name": "a", "bot": "random"}, "no search"), "b": ({"name": "b"}, "5 ms")}


def _fill(db: str, indexes: range, *, name: str = "l", first_wins: bool = True) -> None:
    """Ladder ``name`` in ``db`` holding the games ``indexes``."""
    with open_store(db) as store:
        store.open_ladder(name, IDENTITY, ENTRANTS)
        for i in indexes:
            record = GameRecord(
                index=i,
                block=i // 2,
                seed=100 + i // 2,
                seating=(i % 2, 1 - i % 2),
                winner=0 if first_wins else None,
                points=(10, 3 + i % 5) if first_wins else (7, 7),
                actions=200 + i,
                elapsed=1.25 * i,
                decisions=(40, 41) if i % 3 else None,
                decision_seconds=(0.25, 0.5) if i % 3 else None,
            )
            labels = ("a", "b") if i % 2 == 0 else ("b", "a")
            store.add_game(name, record, labels, (i, i + 1), {"players": 2}, "process")


def test_export_then_import_gives_back_the_same_ladder(db: str, tmp_path: Path) -> None:
    source = str(tmp_path / "source.db")
    _fill(source, range(5))
    path = tmp_path / "l.jsonl"
    with open_store(source) as store:
        archive = export_ladder(store, "l")
        write_archive(archive, path)
        games = store.games("l")
    assert len(path.read_text().splitlines()) == 1 + 5  # the ladder, then a game per line

    with open_store(db) as store:
        assert import_ladder(store, read_archive(path)) == (5, 0)
        assert store.games("l") == games  # every field, to the finishing times
        assert store.ladder_config("l") == IDENTITY
        assert store.entrants("l") == {k: (dict(c), b) for k, (c, b) in ENTRANTS.items()}
        # The imported ladder is the ladder: a run with the same identity goes on after it.
        assert store.open_ladder("l", IDENTITY, ENTRANTS) == 5
        assert store.done("l") == set(range(5))


def test_an_import_adds_only_what_the_store_lacks(db: str, tmp_path: Path) -> None:
    source = str(tmp_path / "source.db")
    _fill(source, range(6))
    _fill(db, range(2))
    with open_store(source) as store:
        archive = export_ladder(store, "l")
    with open_store(db) as store:
        assert import_ladder(store, archive) == (4, 2)
        assert store.done("l") == set(range(6))
        assert import_ladder(store, archive) == (0, 6)
        assert len(store.games("l")) == 6


def test_a_disagreeing_store_refuses_the_whole_file(db: str, tmp_path: Path) -> None:
    source = str(tmp_path / "source.db")
    _fill(source, range(4))
    with open_store(source) as store:
        archive = export_ladder(store, "l")
    # The store's game 1 ended otherwise: nothing of the file goes in, not even games 2-3.
    _fill(db, range(2), first_wins=False)
    with open_store(db) as store:
        before = store.games("l")
        with pytest.raises(StoreError, match=r"game 0 .* played differently.*nothing was"):
            import_ladder(store, archive)
        assert store.games("l") == before
    # Another configuration under the same name, with games of its own, is refused before
    # any game is looked at; one with no game yet takes the archive's.
    other = str(tmp_path / "other.db")
    three = {**IDENTITY, "ladder": {"name": "l", "players": 3}}
    with open_store(other) as store:
        store.open_ladder("l", three, ENTRANTS)
        assert import_ladder(store, archive) == (4, 0)
    with open_store(str(tmp_path / "third.db")) as store:
        store.open_ladder("l", three, ENTRANTS)
        kept = GameRecord(0, 0, 100, (0, 1), 0, (10, 3), 200, 1.0, None, None)
        store.add_game("l", kept, ("a", "b"), (0, 1), {"players": 3}, "process")
        with pytest.raises(StoreError, match=r"players was 3, now 2\); nothing was imported"):
            import_ladder(store, archive)
        assert len(store.games("l")) == 1


def _lines(tmp_path: Path) -> list[dict[str, object]]:
    source = str(tmp_path / "source.db")
    _fill(source, range(3))
    with open_store(source) as store:
        return [json.loads(line) for line in dump_archive(export_ladder(store, "l")).splitlines()]


@pytest.mark.parametrize(
    ("line", "field", "value", "message"),
    [
        (0, "format", "something-else", r"line 1 is not a ladder archive's: format: Input should"),
        (
            2,
            "points",
            ["ten", 3],
            r"line 3: not a game: points\.0: Input should be a valid integer",
        ),
        (1, "labels", ["a", "nobody"], r"game 0: seats an unknown entrant nobody"),
        (1, "ranks", [2, 1], r"game 0: the ranks do not follow from the points"),
        (2, "index", 0, r"game 0: the index is negative or given twice"),
        (3, "winner", 2, r"game 2: the winner 2 is not a seat"),
        (3, "agent_seeds", [1, 2, 3], r"game 2: labels, points and agent_seeds differ in length"),
        (
            0,
            "identity",
            {**IDENTITY, "ladder": {"name": "l", "players": 2, "victory_points": 11}},
            r"game 0: the winner has 10 points, fewer than the 11 to win",
        ),
        (0, "surprise", True, r"line 1 .* surprise: Extra inputs are not permitted"),
    ],
)
def test_a_spoilt_archive_is_refused_and_says_where(
    tmp_path: Path, line: int, field: str, value: object, message: str
) -> None:
    lines = _lines(tmp_path)
    lines[line][field] = value
    path = tmp_path / "spoilt.jsonl"
    path.write_text("\n".join(json.dumps(one) for one in lines) + "\n")
    with pytest.raises(ArchiveError, match=message):
        read_archive(path)


@pytest.mark.parametrize(
    ("content", "message"),
    [
        (b"", r"is empty"),
        (b"\xff\xfe not json\n", r"line 1 is not a ladder archive's: Invalid JSON"),
        (b'{"format": "hexhaven-ladder"}\n', r"name: Field required"),
    ],
)
def test_what_is_not_an_archive_at_all_is_refused(
    tmp_path: Path, content: bytes, message: str
) -> None:
    path = tmp_path / "x.jsonl"
    path.write_bytes(content)
    with pytest.raises(ArchiveError, match=message):
        read_archive(path)
    with pytest.raises(ArchiveError, match=r"cannot read .*missing"):
        read_archive(tmp_path / "missing.jsonl")


LADDER = """
entrant = [
    { name = "random", bot = "random" },
    { name = "heuristic", bot = "heuristic" },
    { name = "heuristic-2", bot = "heuristic" },
]

[ladder]
name = "carried"
games = 6
seed = 5
players = 3
victory_points = 4
"""


def test_a_ladder_goes_on_in_another_store_through_the_command_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    config = tmp_path / "carried.toml"
    config.write_text(LADDER, encoding="utf-8")
    first, second = str(tmp_path / "first.db"), str(tmp_path / "second.db")
    archive = str(tmp_path / "carried.jsonl")

    assert main(["ladder", "run", str(config), "--db", first, "--games", "3"]) == 0
    assert main(["ladder", "export", str(config), "--db", first, "-o", archive]) == 0
    assert "3 game(s) written" in capsys.readouterr().out
    assert main(["ladder", "import", archive, "--db", second]) == 0
    assert "3 game(s) added" in capsys.readouterr().out
    assert main(["ladder", "run", str(config), "--db", second, "--workers", "1"]) == 0
    assert "3 game(s) played in this run" in capsys.readouterr().out

    with open_store(first) as one, open_store(second) as two:
        carried = one.games("carried")
        assert two.games("carried")[:3] == carried
        assert two.done("carried") == set(range(6))
    # Printed without -o, the archive is the file's text.
    assert main(["ladder", "export", "carried", "--db", second]) == 0
    assert len(capsys.readouterr().out.splitlines()) == 1 + 6

    # A second import of the shorter file into the longer ladder adds nothing.
    assert main(["ladder", "import", archive, "--db", second]) == 0
    out = capsys.readouterr().out
    assert "0 game(s) added" in out and "3 already held" in out


def test_the_command_line_reports_bad_archives_and_unknown_ladders(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    db = str(tmp_path / "games.db")
    assert main(["ladder", "export", "nothing", "--db", db]) == 2  # a mistyped store
    assert "no store at" in capsys.readouterr().err
    assert not Path(db).exists()  # reading creates nothing
    with open_store(db):
        pass
    assert main(["ladder", "export", "nothing", "--db", db]) == 2
    assert "no ladder 'nothing'" in capsys.readouterr().err
    bad = tmp_path / "bad.jsonl"
    bad.write_text("[1, 2]\n")
    assert main(["ladder", "import", str(bad), "--db", db]) == 2
    assert "line 1 is not a ladder archive's" in capsys.readouterr().err
    with open_store(db) as store:
        assert store.ladders() == []


def test_a_reader_that_stopped_early_ends_the_command_without_a_traceback(
    tmp_path: Path,
) -> None:
    db = str(tmp_path / "games.db")
    _fill(db, range(3))
    read, write = os.pipe()
    os.close(read)  # the reader has gone, as `| head -1` goes after its line
    try:
        export = subprocess.run(
            [sys.executable, "-m", "app.cli", "ladder", "export", "l", "--db", db],
            stdout=write,
            stderr=subprocess.PIPE,
            timeout=60,
            check=False,
        )
    finally:
        os.close(write)
    assert (export.returncode, export.stderr) == (1, b"")
