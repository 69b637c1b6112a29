"""Ladder files: what they may say, budgets, and errors that name the field."""

from __future__ import annotations

import re
import shutil
import subprocess
import tomllib
from pathlib import Path
from typing import Any

import pytest

from bots import parse_spec
from bots.uct import EXPERIMENTS_COMMIT, RENAMED, RETIRED
from tournament.ladder.archive import read_archive
from tournament.ladder.config import ConfigError, load_config, parse_config

REPO = Path(__file__).resolve().parents[3]


def _doc(*entrants: dict[str, Any], **ladder: Any) -> dict[str, Any]:
    return {"ladder": {"name": "t", "games": 4, **ladder}, "entrant": list(entrants)}


def test_a_full_file_is_read_with_defaults_and_budgets(tmp_path: Path) -> None:
    path = tmp_path / "l.toml"
    path.write_text(
        """
[ladder]
name = "mine"
games = 12

[[entrant]]
name = "u"
bot = "uct"
params = { rollouts = 50, trade_optimistic = true, cp = 0.5 }

[[entrant]]
name = "t"
bot = "uct"
params = { time_ms = 200, rollouts = 0, trees = 4 }

[[entrant]]
name = "h"
bot = "heuristic"

[[entrant]]
name = "p"
command = "python3 agent.py --seed {seed}"
budget = "about 5 ms"

[[entrant]]
name = "c"
connect = "python3 agent.py {url} --invite {invite}"
budget = "1 s"
""",
        encoding="utf-8",
    )
    config = load_config(path)
    assert (config.ladder.players, config.ladder.victory_points, config.ladder.board) == (
        4,
        10,
        "random",
    )
    assert config.ladder.workers is None and config.ladder.seed == 1
    assert [e.way for e in config.entrant] == ["bot", "bot", "bot", "command", "connect"]
    assert config.entrant[0].str_params == {
        "rollouts": "50",
        "trade_optimistic": "true",
        "cp": "0.5",
    }
    assert config.budgets() == {
        "u": "50 rollouts",
        "t": "200 ms over 4 trees",
        "h": "no search",
        "p": "about 5 ms",
        "c": "1 s",
    }


def test_the_strength_names_a_budget() -> None:
    config = parse_config(
        _doc(
            {"name": "a", "bot": "uct", "params": {"strength": "easy"}},
            {"name": "b", "bot": "random"},
        )
    )
    assert config.budgets()["a"] == "200 rollouts"


def test_identity_ignores_games_and_workers_but_not_the_rest() -> None:
    base = _doc({"name": "a", "bot": "random"}, {"name": "b", "bot": "heuristic"})
    one = parse_config(base)
    more = parse_config({**base, "ladder": {**base["ladder"], "games": 400, "workers": 3}})
    assert one.identity() == more.identity()
    other_vp = parse_config({**base, "ladder": {**base["ladder"], "victory_points": 8}})
    assert other_vp.identity() != one.identity()


@pytest.mark.parametrize(
    ("doc", "message"),
    [
        (_doc({"name": "a", "bot": "random"}), "[[entrant]]: a ladder needs at least two"),
        (
            _doc({"name": "a", "bot": "random", "param": {}}, {"name": "b", "bot": "random"}),
            "[[entrant]] 1 (a) param: no such key (did you mean 'params'?)",
        ),
        (
            _doc({"name": "a", "bot": "random", "command": "x"}, {"name": "b", "bot": "random"}),
            "[[entrant]] 1 (a): entrant 'a' needs exactly one of bot, command or connect, "
            "not bot and command",
        ),
        (
            _doc({"name": "a"}, {"name": "b", "bot": "random"}),
            "needs exactly one of bot, command or connect",
        ),
        (
            _doc({"name": "a", "bot": "oracle"}, {"name": "b", "bot": "random"}),
            "[[entrant]] 1 (a): unknown bot 'oracle'",
        ),
        (
            _doc({"name": "a", "command": "prog"}, {"name": "b", "bot": "random"}),
            "[[entrant]] 1 (a): entrant 'a': give the compute budget",
        ),
        (
            _doc({"name": "a", "bot": "random"}, {"name": "a", "bot": "heuristic"}),
            "entrant names must be unique: a given twice",
        ),
        (
            _doc({"name": "a b", "bot": "random"}, {"name": "b", "bot": "random"}),
            "[[entrant]] 1 (a b) name: an entrant name is",
        ),
        (
            _doc({"name": "a", "bot": "random"}, {"name": "b", "bot": "random"}, players=5),
            "[ladder] players: Input should be less than or equal to 4",
        ),
        (
            _doc({"name": "a", "bot": "random"}, {"name": "b", "bot": "random"}, board="hex"),
            "[ladder] board: board is one of random, spiral, balanced, fair or "
            "preset:NAME, not 'hex'",
        ),
        (
            _doc({"name": "a", "bot": "random"}, {"name": "b", "bot": "random"}, board="preset:x"),
            "[ladder] board: no preset 'x'",
        ),
        (
            _doc(
                {"name": "a", "bot": "random"},
                {"name": "b", "bot": "random"},
                board="preset:balanced-262",
            ),
            "[ladder] board: preset 'balanced-262' is no longer shipped",
        ),
        (
            _doc(
                {"name": "a", "bot": "random"},
                {"name": "b", "bot": "random"},
                board="balanced",
                min_fairness=0.9,
            ),
            'min_fairness goes with board = "fair"',
        ),
        (
            _doc({"name": "a", "bot": "random", "colour": "red"}, {"name": "b", "bot": "random"}),
            "[[entrant]] 1 (a) colour: no such key (one of: name, bot,",
        ),
        (
            _doc(
                {"name": "a", "connect": "p {url} {invite} {port}", "budget": "1"},
                {"name": "b", "bot": "random"},
            ),
            "unknown placeholder {port}",
        ),
        (
            _doc(
                {"name": "a", "connect": "p {url}", "budget": "1"}, {"name": "b", "bot": "random"}
            ),
            "a connect command needs {url} and {invite}",
        ),
        (
            _doc(
                {"name": "a", "bot": "uct", "params": {"rollout": 5}},
                {"name": "b", "bot": "random"},
            ),
            "entrant 'a' params: unknown search parameter 'rollout'",
        ),
        (
            _doc(
                {"name": "a", "bot": "random", "params": {"x": 1}}, {"name": "b", "bot": "random"}
            ),
            "entrant 'a' params: the random bot takes no parameters",
        ),
        ({"entrant": []}, "l.toml: [ladder]: Field required"),
        (
            {
                **_doc({"name": "a", "bot": "random"}, {"name": "b", "bot": "random"}),
                "ladder": {"name": "my ladder", "games": 2},
            },
            "[ladder] name: a ladder name is 1 to 64 letters, digits or _.:+- (no spaces)",
        ),
    ],
)
def test_errors_name_the_field(doc: dict[str, Any], message: str) -> None:
    with pytest.raises(ConfigError) as info:
        parse_config(doc, "l.toml")
    assert str(info.value).startswith("l.toml: ")
    assert message in str(info.value)


def test_a_file_that_is_not_toml_or_missing(tmp_path: Path) -> None:
    bad = tmp_path / "bad.toml"
    bad.write_text("[ladder\nname = 1\n", encoding="utf-8")
    with pytest.raises(ConfigError, match="not valid TOML"):
        load_config(bad)
    with pytest.raises(ConfigError, match="cannot read"):
        load_config(tmp_path / "none.toml")
    store = tmp_path / "games.db"  # a store given where the ladder file goes
    store.write_bytes(b"SQLite format 3\x00\xf8\x01\x02")
    with pytest.raises(ConfigError, match="is not a ladder file: not text"):
        load_config(store)


def _retired_names(path: Path) -> set[str]:
    """The retired or renamed search parameters a ladder file's entrants name."""
    data = tomllib.loads(path.read_text(encoding="utf-8"))
    named = {name for e in data.get("entrant", []) for name in e.get("params", {})}
    return named & (RETIRED | RENAMED.keys())


ALL_LADDERS = sorted((REPO / "ladders").rglob("*.toml"))
LADDERS = [p for p in ALL_LADDERS if not _retired_names(p)]
"""The ladder files that can be run on."""
KEPT_LADDERS = [p for p in ALL_LADDERS if _retired_names(p)]
"""The ladder files of experiments with retired or renamed parameters: kept results of
the version at commit ``EXPERIMENTS_COMMIT``, not run."""


def test_some_ladders_are_kept_results_of_retired_experiments() -> None:
    assert LADDERS and KEPT_LADDERS


@pytest.mark.parametrize("path", KEPT_LADDERS, ids=lambda p: str(p.relative_to(REPO / "ladders")))
def test_a_ladder_naming_a_retired_parameter_is_refused_naming_it_and_the_commit(
    path: Path,
) -> None:
    names = "|".join(_retired_names(path))
    refusal = rf"'({names})' (was retired.*{EXPERIMENTS_COMMIT}|is now)"
    with pytest.raises(ConfigError, match=refusal):
        load_config(path)


@pytest.mark.parametrize("path", LADDERS, ids=lambda p: str(p.relative_to(REPO / "ladders")))
def test_the_example_ladders_are_valid(path: Path) -> None:
    config = load_config(path)
    assert len(config.entrant) >= 2
    assert all(config.budgets().values())


@pytest.mark.parametrize(
    "path",
    [
        p
        for p in LADDERS
        if p.parent.name == "table1-10k"
        or (p.parent.name == "beyond" and "--agents" in p.read_text(encoding="utf-8"))
    ],
    ids=lambda p: f"{p.parent.name}/{p.name}",
)
def test_the_table_ladders_play_the_arena_games_their_comment_names(path: Path) -> None:
    """Each row of docs/results.md kept as a ladder is one uct entrant against three
    heuristic players (the 10,000-rollout column at 10,000 rollouts), and the arena command
    in its comment plays the same games (the same spec, seed and count)."""
    config = load_config(path)
    assert [e.bot for e in config.entrant] == ["uct", "heuristic", "heuristic", "heuristic"]
    if path.parent.name == "table1-10k":
        assert config.entrant[0].params["rollouts"] == 10000
    text = path.read_text(encoding="utf-8")
    spec = re.search(r'--agents "([^"]*)"', text)
    counts = re.search(r"--games (\d+) --seed (\d+)", text)
    assert spec and counts
    specs = [parse_spec(s) for s in spec.group(1).split(";")]
    assert specs[1:] == [("heuristic", {})] * 3
    assert specs[0] == ("uct", config.entrant[0].str_params)
    assert (int(counts.group(1)), int(counts.group(2))) == (config.ladder.games, config.ladder.seed)


@pytest.mark.parametrize(
    "path",
    sorted((REPO / "ladders").rglob("results/*.jsonl")),
    ids=lambda p: str(p.relative_to(REPO / "ladders")),
)
def test_kept_results_belong_to_their_ladder_file(path: Path) -> None:
    """A results file can be imported and its ladder run on: it carries the identity its
    ladder file has now (a renamed strength or changed parameter would fork the ladder).
    The results of a ladder with retired or renamed parameters only carry its name."""
    archive = read_archive(path)
    ladder = path.parent.parent / f"{path.stem}.toml"
    if ladder in KEPT_LADDERS:
        data = tomllib.loads(ladder.read_text(encoding="utf-8"))
        assert archive.name == data["ladder"]["name"] and archive.games
        return
    config = load_config(ladder)
    assert archive.name == config.ladder.name
    assert archive.identity == config.identity()
    assert len(archive.games) <= config.ladder.games


@pytest.mark.parametrize("path", KEPT_LADDERS, ids=lambda p: str(p.relative_to(REPO / "ladders")))
def test_a_kept_ladder_names_the_commit_where_it_still_runs(path: Path) -> None:
    assert f"git checkout {EXPERIMENTS_COMMIT}" in path.read_text(encoding="utf-8")


def _git(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        ["git", "-C", str(REPO), *args], capture_output=True, text=True, check=False
    )


def test_the_experiments_commit_still_has_every_retired_parameter() -> None:
    """The project is tested from a clone with its history (as CI clones it): the commit
    the docs name holds the retired code and the kept ladders."""
    assert shutil.which("git") is not None and (REPO / ".git").exists(), "not a git checkout"
    shallow = _git("rev-parse", "--is-shallow-repository").stdout.strip()
    assert shallow == "false", "a shallow clone lacks the history the docs point into"
    found = _git("cat-file", "-t", f"{EXPERIMENTS_COMMIT}^{{commit}}")
    assert found.stdout.strip() == "commit", found.stderr
    code = _git("show", f"{EXPERIMENTS_COMMIT}:bots/uct.py").stdout
    assert all(name in code for name in RETIRED)
    for path in KEPT_LADDERS:
        rel = path.relative_to(REPO).as_posix()
        assert _git("cat-file", "-e", f"{EXPERIMENTS_COMMIT}:{rel}").returncode == 0, rel
