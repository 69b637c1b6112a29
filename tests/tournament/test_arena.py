"""The arena: its schedule, spec splitting, statistics, and real runs (local and on a
server)."""

from __future__ import annotations

import asyncio
import dataclasses
import json
import math
import re
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from websockets.asyncio.client import connect
from websockets.typing import Subprotocol

from app.cli import main
from protocol import SUBPROTOCOL_MSGPACK, Codec
from protocol import messages as m
from server.app import HexhavenServer
from tests.threaded_server import server_in_thread
from tournament.entrants import Entrant, make_entrants, split_agents
from tournament.records import ArenaError, GameRecord, agent_seed, make_schedule, ranks
from tournament.server_runner import bot_command, play_server_games
from tournament.stats import Z95, wilson_interval

ROW = re.compile(
    r"^(?P<name>\S+)\s+(?P<games>\d+)\s+(?P<wins>\d+)\s+(?P<rate>[\d.]+)%\s+"
    r"\[\s*(?P<low>[\d.]+)%,\s*(?P<high>[\d.]+)%\]\s+(?P<vp>[\d.]+)\s+(?P<rank>[\d.]+)\s+"
    r"(?P<ms>\S+)$"
)


def _rows(lines: list[str], title: str) -> dict[str, dict[str, str]]:
    """The rows of the table headed ``title``, by name."""
    start = next(i for i, line in enumerate(lines) if line.startswith(title + " "))
    rows: dict[str, dict[str, str]] = {}
    for line in lines[start + 1 :]:
        match = ROW.match(line)
        if match is None:
            break
        rows[match["name"]] = match.groupdict()
    return rows


# --- the schedule -----------------------------------------------------------------------


@pytest.mark.parametrize(("entrants", "players"), [(4, 4), (3, 3), (2, 2), (2, 4), (4, 2)])
def test_every_entrant_sits_in_every_seat_once_per_block(entrants: int, players: int) -> None:
    games = make_schedule(entrants, players, 3 * entrants, seed=7)
    assert [g.index for g in games] == list(range(3 * entrants))
    for block in range(3):
        in_block = [g for g in games if g.block == block]
        assert len(in_block) == entrants
        assert {g.seed for g in in_block} == {7 + block}, "a block shares one game seed"
        for seat in range(players):
            assert sorted(g.seating[seat] for g in in_block) == list(range(entrants))
        seeds = {g.agent_seeds for g in in_block}
        assert len(seeds) == 1, "the agent at a seat has the same seed through a block"
        assert len(set(next(iter(seeds)))) == players, "each seat has its own agent seed"
    assert games[0].agent_seeds != games[entrants].agent_seeds


def test_seats_rotate_by_one_each_game_of_a_block() -> None:
    games = make_schedule(4, 4, 4, seed=1)
    assert [g.seating for g in games] == [(0, 1, 2, 3), (1, 2, 3, 0), (2, 3, 0, 1), (3, 0, 1, 2)]


def test_a_partial_last_block_and_reproducible_seeds() -> None:
    games = make_schedule(4, 4, 6, seed=10)
    assert [g.block for g in games] == [0, 0, 0, 0, 1, 1]
    assert [g.seed for g in games] == [10, 10, 10, 10, 11, 11]
    assert [g.seating for g in games[4:]] == [(0, 1, 2, 3), (1, 2, 3, 0)]
    assert make_schedule(4, 4, 6, seed=10) == games
    assert agent_seed(10, 1, 2) == agent_seed(10, 1, 2) != agent_seed(11, 1, 2)
    with pytest.raises(ValueError):
        make_schedule(4, 4, 0, seed=1)


# --- specs ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "specs"),
    [
        ("random,heuristic", ["random", "heuristic"]),
        (
            "uct:rollouts=1000,heuristic,heuristic,heuristic",
            ["uct:rollouts=1000", "heuristic", "heuristic", "heuristic"],
        ),
        (
            "uct:rollouts=1000,c=0.7,uct:rollouts=50,random",
            ["uct:rollouts=1000,c=0.7", "uct:rollouts=50", "random"],
        ),
        ("uct:rollouts=10;uct:rollouts=20", ["uct:rollouts=10", "uct:rollouts=20"]),
        ("uct:time=1:30,heuristic", ["uct:time=1:30", "heuristic"]),
        (" random , heuristic ,", ["random", "heuristic"]),
        ("", []),
    ],
)
def test_agents_split_on_commas_that_start_a_new_spec(text: str, specs: list[str]) -> None:
    assert split_agents(text) == specs


@pytest.mark.parametrize("text", ["rollouts=5,uct", "heuristic,depth=2", "uct:a=1;b=2"])
def test_a_parameter_without_a_spec_is_refused(text: str) -> None:
    with pytest.raises(ValueError, match="parameter"):
        split_agents(text)


def test_repeated_specs_are_separate_entrants_with_their_own_labels() -> None:
    entrants = make_entrants(["uct:b=2,a=1", "heuristic", "uct:a=1,b=2", "random", "heuristic"])
    assert [e.label for e in entrants] == [
        "uct:a=1,b=2#1",
        "heuristic#1",
        "uct:a=1,b=2#2",
        "random",
        "heuristic#2",
    ]
    assert [e.spec for e in entrants] == [
        "uct:a=1,b=2",
        "heuristic",
        "uct:a=1,b=2",
        "random",
        "heuristic",
    ]
    with pytest.raises(ValueError, match="known kinds"):
        make_entrants(["oracle"])


def test_the_bot_command_carries_kind_seed_and_parameters() -> None:
    (entrant,) = make_entrants(["uct:rollouts=100,c=0.5"])
    command = bot_command("ws://127.0.0.1:1", "ABC123", entrant, 42)
    assert command[1:5] == ["-P", "-m", "app.cli", "bot"]
    assert command[5:] == [
        "--url=ws://127.0.0.1:1",
        "--invite=ABC123",
        "--kind=uct",
        "--name=uct:c=0.5,rollouts=100",
        "--seed=42",
        "--param=c=0.5",
        "--param=rollouts=100",
    ]


# --- statistics -------------------------------------------------------------------------


def _wilson_by_quadratic(wins: int, n: int, z: float) -> tuple[float, float]:
    """The interval's ends as the roots of (p_hat - p)^2 = z^2 p (1 - p) / n."""
    p_hat = wins / n
    a = 1 + z * z / n
    b = -(2 * p_hat + z * z / n)
    c = p_hat * p_hat
    root = math.sqrt(b * b - 4 * a * c)
    return (-b - root) / (2 * a), (-b + root) / (2 * a)


@pytest.mark.parametrize(
    ("wins", "games", "expected"),
    [(0, 10, (0.0, 0.2775)), (5, 10, (0.2366, 0.7634)), (10, 10, (0.7225, 1.0))],
)
def test_wilson_interval_known_values(wins: int, games: int, expected: tuple[float, float]) -> None:
    low, high = wilson_interval(wins, games)
    assert low == pytest.approx(expected[0], abs=5e-5)
    assert high == pytest.approx(expected[1], abs=5e-5)


@pytest.mark.parametrize(("wins", "games"), [(1, 4), (3, 7), (17, 100), (250, 1000), (0, 1)])
def test_wilson_interval_matches_the_quadratic(wins: int, games: int) -> None:
    low, high = wilson_interval(wins, games)
    q_low, q_high = _wilson_by_quadratic(wins, games, Z95)
    assert low == pytest.approx(q_low, abs=1e-12)
    assert high == pytest.approx(q_high, abs=1e-12)
    assert low <= wins / games <= high


def test_wilson_interval_without_games_is_everything() -> None:
    assert wilson_interval(0, 0) == (0.0, 1.0)


def test_ranks_put_the_winner_first_and_share_ties() -> None:
    assert ranks([10, 7, 7, 3], winner=0) == [1, 2, 2, 4]
    assert ranks([3, 10, 3, 3], winner=1) == [2, 1, 2, 2]
    assert ranks([5, 9, 9], winner=2) == [3, 2, 1]
    assert ranks([5, 9, 9], winner=None) == [3, 1, 1]


# --- real runs ----------------------------------------------------------------------------


def _run(args: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, list[str]]:
    code = main(["arena", *args])
    return code, capsys.readouterr().out.splitlines()


def test_a_local_run_prints_a_table_that_agrees_with_its_json(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "arena.json"
    args = ["--agents", "random,heuristic,random,heuristic", "--games", "4", "--seed", "3"]
    code, lines = _run([*args, "--vp", "6", "--json", str(path)], capsys)
    assert code == 0
    assert [line.split()[1] for line in lines if line.startswith("game ")] == [
        "1/4",
        "2/4",
        "3/4",
        "4/4",
    ]
    assert "partial" not in "\n".join(lines)
    table = _rows(lines, "entrant")
    assert list(table) == ["random#1", "heuristic#1", "random#2", "heuristic#2"]
    assert all(row["games"] == "4" for row in table.values())
    by_spec = _rows(lines, "spec")
    assert list(by_spec) == ["random", "heuristic"]
    assert all(row["games"] == "8" for row in by_spec.values())

    document: dict[str, Any] = json.loads(path.read_text())
    records = document["records"]
    assert len(records) == 4
    with_winner = sum(r["winner"] is not None for r in records)
    assert sum(int(row["wins"]) for row in table.values()) == with_winner
    assert document["no_winner"] == 4 - with_winner
    for record in records:
        assert sorted(record["seating"]) == sorted(table)
        assert len(record["points"]) == 4 and record["actions"] > 0
        if record["winner"] is not None:
            assert record["seating"][record["winner_seat"]] == record["winner"]
            assert record["ranks"][record["winner_seat"]] == 1
            assert max(record["points"]) == record["points"][record["winner_seat"]] >= 6
    for entry in document["entrants"]:
        row = table[entry["name"]]
        assert (int(row["games"]), int(row["wins"])) == (entry["games"], entry["wins"])
        assert float(row["rate"]) == pytest.approx(100 * entry["win_rate"], abs=0.05)
        assert float(row["low"]) == pytest.approx(100 * entry["ci95"][0], abs=0.05)
        assert float(row["high"]) == pytest.approx(100 * entry["ci95"][1], abs=0.05)
        assert float(row["vp"]) == pytest.approx(entry["mean_vp"], abs=0.005)
        assert float(row["rank"]) == pytest.approx(entry["mean_rank"], abs=0.005)
        assert entry["decisions"] > 0 and entry["ms_per_decision"] > 0
    heuristic = next(s for s in document["specs"] if s["name"] == "heuristic")
    assert heuristic["entrants"] == ["heuristic#1", "heuristic#2"]
    assert heuristic["wins"] == int(table["heuristic#1"]["wins"]) + int(
        table["heuristic#2"]["wins"]
    )

    # The same command gives the same games (only the timings differ).
    code, again = _run([*args, "--vp", "6", "--quiet", "--json", str(path)], capsys)
    assert code == 0
    assert not any(line.startswith("game ") for line in again)
    assert {k: v["wins"] for k, v in _rows(again, "entrant").items()} == {
        k: v["wins"] for k, v in table.items()
    }

    def strip(rs: list[dict[str, Any]]) -> list[dict[str, Any]]:
        return [{k: v for k, v in r.items() if k != "elapsed"} for r in rs]

    assert strip(json.loads(path.read_text())["records"]) == strip(records)


def test_a_partial_block_and_more_seats_than_entrants(
    capsys: pytest.CaptureFixture[str],
) -> None:
    code, lines = _run(
        ["--agents", "heuristic;random", "--players", "3", "--games", "3", "--vp", "4"], capsys
    )
    assert code == 0
    assert "; 1 full block of 2 games and a partial block of 1 " in "\n".join(lines)
    table = _rows(lines, "entrant")
    # Game 1 seats H R H, game 2 R H R, game 3 H R H: one game per seat played.
    assert {k: v["games"] for k, v in table.items()} == {"heuristic": "5", "random": "4"}


def test_the_header_counts_full_blocks_in_words(capsys: pytest.CaptureFixture[str]) -> None:
    code, lines = _run(["--agents", "random,random", "--games", "4", "--vp", "3"], capsys)
    assert code == 0
    [header] = [line for line in lines if line.startswith("arena: ")]
    assert header.endswith("; 2 full blocks of 2 games"), header


def _refused(args: list[str], capsys: pytest.CaptureFixture[str]) -> str:
    """The one line on standard error of an arena refused before any game (nothing on
    standard output)."""
    code = main(["arena", *args])
    captured = capsys.readouterr()
    assert code == 2 and captured.out == "", captured.out
    [line] = captured.err.splitlines()
    return line


def test_bad_arguments_are_reported(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    assert _refused(["--agents", "random:x=1,heuristic"], capsys) == (
        "arena: the random bot takes no parameters, not x"
    )
    assert "known kinds" in _refused(["--agents", "oracle,random"], capsys)
    assert "at least two" in _refused(["--agent", "random"], capsys)
    assert "players" in _refused(["--agents", "random,random", "--players", "5"], capsys)
    assert "--games is 1 or more, not 0" in _refused(
        ["--agents", "random,random", "--games", "0"], capsys
    )
    assert "leave out the ':'" in _refused(["--agents", "uct:,heuristic"], capsys)
    # A --json that cannot be written is found before the first game, not after the last.
    missing = tmp_path / "nowhere" / "out.json"
    assert "no folder" in _refused(["--agents", "random,random", "--json", str(missing)], capsys)
    assert "is a folder" in _refused(["--agents", "random,random", "--json", str(tmp_path)], capsys)


# --- on a server --------------------------------------------------------------------------


@pytest.fixture
def server_url() -> Iterator[str]:
    """A real server on 127.0.0.1 on a free port, in its own thread and event loop (the
    arena runs its own loop), stopped after the test."""
    with server_in_thread("arena-test-server") as (url, _):
        yield url


def test_a_game_on_a_real_server_with_bot_processes(
    server_url: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "server.json"
    code, lines = _run(
        [
            "--agents",
            "random,heuristic",
            "--games",
            "2",
            "--vp",
            "4",
            "--server",
            server_url,
            "--json",
            str(path),
        ],
        capsys,
    )
    assert code == 0, lines
    table = _rows(lines, "entrant")
    assert list(table) == ["random", "heuristic"]
    assert all(row["games"] == "2" and row["ms"] == "n/a" for row in table.values())
    document = json.loads(path.read_text())
    assert document["mode"] == "server" and document["error"] is None
    records = document["records"]
    assert [r["seating"] for r in records] == [["random", "heuristic"], ["heuristic", "random"]]
    for record in records:
        assert record["winner"] in ("random", "heuristic")
        assert record["points"][record["winner_seat"]] >= 4
        assert record["actions"] > 0
    # Each game names its id on the server, for hexhaven verify and replay.
    ids = [r["server_game"] for r in records]
    assert len(set(ids)) == 2 and all(ids)
    assert all(any(f"server game {i}" in line for line in lines) for i in ids)
    wins = Counter(r["winner"] for r in records)
    assert {e["name"]: e["wins"] for e in document["entrants"]} == {
        "random": wins["random"],
        "heuristic": wins["heuristic"],
    }
    assert all(e["ms_per_decision"] is None for e in document["entrants"])


def test_a_bot_process_that_fails_stops_the_run_and_is_reported(server_url: str) -> None:
    # The random bot takes no parameters: its process exits with an error (whether the bot
    # command refuses --param or the bot refuses the parameter).
    entrants = [
        Entrant("random", "random", "random", ()),
        Entrant("broken", "random:x=1", "random", (("x", "1"),)),
    ]
    records: list[GameRecord] = []
    options = m.GameOptions(players=2, victory_points=4, private=True)
    with pytest.raises(ArenaError, match="broken exited with code"):
        asyncio.run(
            play_server_games(
                server_url, entrants, make_schedule(2, 2, 2, 1), options, records.append
            )
        )
    assert records == []


@pytest.mark.parametrize("games", [1, 7, 9, 10, 13, 14, 200])
def test_wilson_interval_is_exact_at_no_wins_and_all_wins(games: int) -> None:
    assert wilson_interval(0, games)[0] == 0.0  # not 1e-17: JSON shows it as it is
    assert wilson_interval(games, games)[1] == 1.0


def _refusals(srv: HexhavenServer, limit: str) -> float:
    """How many times the server has refused something for ``limit``."""
    for family in srv.metrics.refusals.collect():
        for sample in family.samples:
            wanted = {"code": "limit_reached", "limit": limit}
            if sample.name.endswith("_total") and sample.labels == wanted:
                return sample.value
    return 0.0


def test_a_game_refused_while_another_waits_to_start_is_asked_for_again() -> None:
    """A server counts the arena's games as any client's: with one game of the address
    waiting to start, the arena's is refused (``unstarted_per_address``) and asked for
    again until the other has started; then it is played."""
    with server_in_thread("arena-retry-server") as (url, srv):
        srv.limits = dataclasses.replace(srv.limits, unstarted_per_address=1)

        async def scenario() -> list[GameRecord]:
            records: list[GameRecord] = []
            async with connect(url, subprotocols=[Subprotocol(SUBPROTOCOL_MSGPACK)]) as ws:
                codec = Codec(SUBPROTOCOL_MSGPACK)
                await ws.send(codec.encode(m.Hello(protocol=1)))
                bots = [m.BotSeat(kind="random")]
                options = m.GameOptions(players=2, victory_points=3, bots=bots)
                await ws.send(codec.encode(m.CreateGame(options=options)))
                waiting = None
                while not isinstance(waiting, m.GameCreated):
                    waiting = codec.decode_server(await ws.recv())
                entrants = [Entrant("random", "random", "random", ())]
                arena = asyncio.create_task(
                    play_server_games(
                        url,
                        entrants,
                        make_schedule(1, 2, 1, 3),
                        m.GameOptions(players=2, victory_points=3, private=True),
                        records.append,
                    )
                )
                async with asyncio.timeout(60):
                    while _refusals(srv, "unstarted_per_address") < 1:  # the arena's, once
                        await asyncio.sleep(0.05)
                await ws.send(codec.encode(m.JoinGame(game=waiting.game, name="ana")))
                await ws.send(codec.encode(m.StartGame(game=waiting.game)))
                async with asyncio.timeout(120):
                    await arena
            return records

        records = asyncio.run(scenario())
    assert len(records) == 1 and records[0].winner is not None
