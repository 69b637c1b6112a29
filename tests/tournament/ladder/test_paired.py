"""Paired comparisons of two ladders (``hexhaven ladder paired``): the games split into
both won / only A / only B / neither as their winners say, McNemar's exact test behaves as a
sign test must, games that are not the same game are refused, and the command reads both a
store and exported files."""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from app.cli import main
from tournament.ladder.archive import export_ladder, write_archive
from tournament.ladder.paired import (
    LadderSide,
    Paired,
    PairingError,
    Side,
    compared_label,
    format_paired,
    pair,
    sign_test,
)
from tournament.ladder.store import StoredGame, open_store
from tournament.records import GameRecord

Entrant = tuple[dict[str, Any], str]
FIELD: dict[str, Entrant] = {"h1": ({"name": "h1", "bot": "heuristic"}, "no search")}
BOT: Entrant = ({"name": "bot", "bot": "uct", "params": {"rollouts": 100}}, "100 rollouts")
VARIANT: Entrant = ({"name": "bot", "bot": "uct", "params": {"rollouts": 300}}, "300 rollouts")


def _game(index: int, bot_seat: int, winner: int | None, *, seed: int = 0) -> StoredGame:
    labels = ("bot", "h1") if bot_seat == 0 else ("h1", "bot")
    points = tuple(10 if seat == winner else 5 for seat in range(2))
    ranks = tuple(1 if seat == winner else (1 if winner is None else 2) for seat in range(2))
    return StoredGame(
        index=index,
        block=index // 2,
        seed=seed or 100 + index // 2,
        labels=labels,
        agent_seeds=(index, index + 1),
        winner=winner,
        points=points,
        ranks=ranks,
        actions=100,
        elapsed=1.0,
        finished=0.0,
        backend="process",
        config={"players": 2},
        decisions=None,
        decision_seconds=None,
    )


def _ladder(name: str, winners: list[bool | None], entrant: Entrant) -> LadderSide:
    """Ladder ``name``: game i has the compared entrant in seat i % 2 and it won, lost
    (the other seat won) or nobody won, as ``winners[i]`` is True, False or None."""
    games = []
    for i, won in enumerate(winners):
        seat = i % 2
        winner = None if won is None else (seat if won else 1 - seat)
        games.append(_game(i, seat, winner))
    return name, "bot", {"bot": entrant, **FIELD}, games


def test_the_games_split_as_their_winners_say() -> None:
    a = [True, True, False, False, True, None, True, False]
    b = [True, False, True, False, False, False, None, False]
    result = pair(_ladder("one", a, BOT), _ladder("two", b, VARIANT))
    assert (result.both, result.only_a, result.only_b, result.neither) == (1, 3, 1, 3)
    assert (result.a.wins, result.b.wins, result.games, result.unpaired) == (4, 2, 8, 0)
    assert result.difference == pytest.approx(2 / 8)
    low, high = result.difference_interval
    assert low < 2 / 8 < high
    assert result.z == pytest.approx(2 / 2)
    assert result.p_value == pytest.approx(sign_test(3, 1))


def test_games_held_by_one_ladder_only_are_left_out() -> None:
    result = pair(_ladder("one", [True] * 6, BOT), _ladder("two", [False] * 4, VARIANT))
    assert (result.games, result.unpaired, result.only_a, result.a.wins) == (4, 2, 4, 4)


def test_the_exact_test_gives_known_values() -> None:
    assert sign_test(0, 5) == pytest.approx(2 / 32)
    assert sign_test(1, 9) == pytest.approx(2 * (1 + 10) / 1024)
    assert sign_test(4, 4) == 1.0
    assert sign_test(0, 0) == 1.0


@given(st.integers(0, 60), st.integers(0, 60))
def test_the_exact_test_is_a_symmetric_probability(k: int, m: int) -> None:
    p = sign_test(k, m)
    assert 0.0 < p <= 1.0
    assert p == sign_test(m, k)
    if k < m:  # a split one game more even is never less likely
        assert sign_test(k + 1, m - 1) >= p


def test_a_difference_interval_is_empty_only_without_discordant_games() -> None:
    side = Side("l", "bot", 3, 10)
    level = Paired(side, side, both=3, only_a=0, only_b=0, neither=7, unpaired=0)
    assert level.difference_interval == (0.0, 0.0)
    assert level.z == 0.0 and level.p_value == 1.0


@pytest.mark.parametrize(
    ("change", "why"),
    [
        ({"seed": 999}, "another seed"),
        ({"config": {"players": 2, "victory_points": 8}}, "other game options"),
        ({"labels": ("bot", "h1")}, "not in the same seats"),
        ({"agent_seeds": (77, 78)}, "seeded otherwise"),
    ],
)
def test_games_that_are_not_the_same_game_are_refused(change: dict[str, Any], why: str) -> None:
    name, label, entrants, kept = _ladder("two", [True, False, True], VARIANT)
    games = list(kept)
    games[1] = replace(games[1], **change)
    with pytest.raises(PairingError, match=f"game 1 .*{why}"):
        pair(_ladder("one", [True, False, True], BOT), (name, label, entrants, games))


def test_ladders_with_another_field_or_no_common_game_are_refused() -> None:
    name, label, _, games = _ladder("two", [True], VARIANT)
    other_field = {"bot": VARIANT, "h1": ({"name": "h1", "bot": "random"}, "no search")}
    with pytest.raises(PairingError, match=r"other entrants differ.*h1"):
        pair(_ladder("one", [True], BOT), (name, label, other_field, games))
    with pytest.raises(PairingError, match="no game of the same index"):
        pair(_ladder("one", [True], BOT), ("two", "bot", {"bot": VARIANT, **FIELD}, []))
    with pytest.raises(PairingError, match="no entrant 'nobody'"):
        pair(_ladder("one", [True], BOT), ("two", "nobody", {"bot": VARIANT, **FIELD}, games))


def test_the_compared_entrant_is_the_one_the_other_ladder_lacks() -> None:
    mine = {"bot": BOT, **FIELD}
    assert compared_label(mine, {"bot": VARIANT, **FIELD}, "one") == "bot"
    assert compared_label(mine, {"other": VARIANT, **FIELD}, "one") == "bot"
    with pytest.raises(PairingError, match="found: none"):
        compared_label(mine, mine, "one")
    with pytest.raises(PairingError, match="found: bot, h1"):
        compared_label(mine, {"bot": VARIANT}, "one")


def _store_ladder(db: str, name: str, entrant: Entrant, wins: list[int]) -> None:
    """A two-seat ladder in ``db`` whose entrant ``bot`` won the games ``wins``."""
    with open_store(db) as store:
        store.open_ladder(name, {"ladder": {"name": name}}, {"bot": entrant, **FIELD})
        for i in range(6):
            seat = i % 2
            winner = seat if i in wins else 1 - seat
            record = GameRecord(
                index=i,
                block=i // 2,
                seed=100 + i // 2,
                seating=(seat, 1 - seat),
                winner=winner,
                points=tuple(10 if s == winner else 4 for s in range(2)),
                actions=100,
                elapsed=1.0,
            )
            labels = ("bot", "h1") if seat == 0 else ("h1", "bot")
            store.add_game(name, record, labels, (i, i + 1), {"players": 2}, "process")


def test_the_command_compares_stored_and_exported_ladders(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    db = str(tmp_path / "games.db")
    _store_ladder(db, "one", BOT, wins=[0, 1, 2])
    _store_ladder(db, "two", VARIANT, wins=[2, 3, 4, 5])
    exported = tmp_path / "two.jsonl"
    with open_store(db) as store:
        write_archive(export_ladder(store, "two"), exported)

    for b in ("two", str(exported)):
        assert main(["ladder", "paired", "one", b, "--db", db, "--json"]) == 0
        document = json.loads(capsys.readouterr().out)
        assert (document["a"]["wins"], document["b"]["wins"]) == (3, 4)
        split = [document[k] for k in ("both", "only_a", "only_b", "neither")]
        assert split == [1, 2, 3, 0]

    assert main(["ladder", "paired", "one", "two", "--db", db]) == 0
    out = capsys.readouterr().out
    assert "both won 1, only A 2, only B 3, neither 0" in out
    assert "A - B: -16.7 points" in out


def test_the_command_names_what_it_cannot_compare(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    db = str(tmp_path / "games.db")
    _store_ladder(db, "one", BOT, wins=[0])
    assert main(["ladder", "paired", "one", "missing", "--db", db]) == 2
    assert "no ladder 'missing'" in capsys.readouterr().err
    assert main(["ladder", "paired", "one", "one", "--db", db]) == 2
    assert "differ from the other in one entrant" in capsys.readouterr().err
    assert main(["ladder", "paired", "one", str(tmp_path / "none.jsonl"), "--db", db]) == 2
    assert "cannot read" in capsys.readouterr().err


def test_the_kept_ten_thousand_rollout_rows_are_the_same_games(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """docs/results.md compares the Table I rows at 10,000 rollouts game by game."""
    root = Path(__file__).resolve().parents[3] / "ladders" / "table1-10k" / "results"
    pair_of = [str(root / "mp-uct.jsonl"), str(root / "mp-ensemble.jsonl")]
    assert main(["ladder", "paired", *pair_of, "--json"]) == 0
    document = json.loads(capsys.readouterr().out)
    assert (document["games"], document["unpaired"]) == (200, 0)
    assert (document["a"]["entrant"], document["b"]["entrant"]) == ("mp-uct-10k", "mp-ensemble-10k")
    assert document["only_a"] + document["both"] == document["a"]["wins"]


def test_games_neither_compared_entrant_sat_in_are_left_out() -> None:
    """A ladder with more entrants than seats: some blocks seat neither compared entrant."""
    name, label, entrants, kept = _ladder("one", [True, False, True, True], BOT)
    _, _, variant_entrants, variant_kept = _ladder("two", [False, False, True, False], VARIANT)
    field = {**FIELD, "h2": ({"name": "h2", "bot": "random"}, "no search")}

    def without_bot(games: Sequence[StoredGame]) -> list[StoredGame]:
        # games 2 and 3 seat h1 and h2 instead, the same in both ladders
        return [*games[:2], *(replace(g, labels=("h1", "h2")) for g in games[2:])]

    result = pair(
        (name, label, {**entrants, **field}, without_bot(kept)),
        ("two", "bot", {**variant_entrants, **field}, without_bot(variant_kept)),
    )
    assert (result.games, result.sat_out, result.unpaired) == (2, 2, 0)
    assert (result.only_a, result.neither) == (1, 1)
    assert "(2 in which neither played: left out)" in format_paired(result)[0]
