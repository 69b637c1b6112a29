"""The stdio bridge: what it makes of a program's lines, and whole games through a server
with a good program, a misbehaving one and a silent one."""

from __future__ import annotations

import asyncio
import json
import random
import re
import sys
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

import engine
from app.cli import main
from clients.bridge import (
    LOGGED_LINE,
    MAX_LINE,
    MAX_OFFERS_PER_TURN,
    ProgramAgent,
    default_action,
    read_answer,
)
from clients.sdk import Table
from protocol import action_from_engine, action_to_engine, view_from_engine
from protocol import messages as m
from protocol.payloads import OfferTrade
from server.store import hash_token, token_matches
from tests.agents.helpers import (
    REPO,
    AgentProcess,
    Proxy,
    Served,
    cut_when,
    doc_command,
    open_game,
    play_seat,
    start_and_watch,
    wait_seated,
)

PROGRAMS = Path(__file__).parent / "programs"

# --- judging answer lines (no server) ----------------------------------------------------


def _prompt(state: engine.GameState, seat: int) -> m.Prompt:
    actions = [action_from_engine(a) for a in engine.legal_actions(state, seat)]
    return m.Prompt(
        game="g",
        state_id=state.actions_taken,
        seat=seat,
        actions=actions,
        view=view_from_engine(engine.view(state, seat)),
    )


def _main_phase_state() -> engine.GameState:
    """A 2-player game at seat 0's main phase, seat 0 holding two or more of one resource
    and none of another, with nothing to build (seeded random play until then)."""
    state = engine.new_game(engine.GameConfig(players=2, victory_points=5), 7)
    rng = random.Random(7)
    builds = (engine.BuildCity, engine.BuildSettlement)
    while True:
        hand = state.hand_of(0)
        if (
            state.phase == engine.Phase.MAIN
            and state.current == 0
            and max(hand) >= 2
            and min(hand) == 0
            and not any(isinstance(a, builds) for a in engine.legal_actions(state, 0))
        ):
            return state
        actions = engine.legal_actions(state)
        ends = [a for a in actions if isinstance(a, engine.EndTurn)]
        engine.apply(state, ends[0] if ends and rng.random() < 0.7 else rng.choice(actions))


def _offer(state: engine.GameState) -> tuple[str, str]:
    names = ("brick", "lumber", "wool", "grain", "ore")
    hand = state.hand_of(0)
    return names[hand.index(max(hand))], names[hand.index(0)]


def test_listed_actions_are_taken_with_or_without_the_state_id() -> None:
    prompt = _prompt(_main_phase_state(), 0)
    listed = prompt.actions[-1].model_dump(mode="json")
    assert read_answer(json.dumps(listed), prompt).action == prompt.actions[-1]
    again = read_answer(json.dumps({**listed, "state_id": prompt.state_id}), prompt)
    assert again.action == prompt.actions[-1]
    older = read_answer(json.dumps({**listed, "state_id": prompt.state_id - 1}), prompt)
    assert older.ignore and older.action is None  # an answer to an older prompt
    assert read_answer("   \n", prompt).ignore


@pytest.mark.parametrize(
    ("line", "problem"),
    [
        ("end my turn", "not_json"),
        ("[1, 2]", "not_an_action"),
        ('{"kind": "fly"}', "not_an_action"),
        ('{"kind": "end_turn", "state_id": "7"}', "not_an_action"),
        ('{"kind": "build_city", "vertex": 99999}', "not_listed"),
        ('{"kind": "accept_trade"}', "not_listed"),
        ("null", "cannot_wait"),
        ('{"kind": "counter_trade", "give": {"ore": 1}, "get": {"wool": 1}}', "bad_counter"),
        ('{"kind": "discard", "cards": {"ore": 1}}', "bad_discard"),
    ],
)
def test_bad_answers_are_named(line: str, problem: str) -> None:
    prompt = _prompt(_main_phase_state(), 0)
    answer = read_answer(line, prompt)
    assert answer.problem == problem and answer.action is None and answer.message


def test_offers_are_checked_against_the_hand_and_the_seats() -> None:
    state = _main_phase_state()
    prompt = _prompt(state, 0)
    spare, lacking = _offer(state)

    def offer(give: dict[str, int], get: dict[str, int], to: list[int] | None = None) -> str:
        return json.dumps({"kind": "offer_trade", "give": give, "get": get, "to": to})

    good = read_answer(offer({spare: 1}, {lacking: 1}), prompt)
    assert good.action is not None and good.action.kind == "offer_trade"
    assert read_answer(offer({spare: 1}, {lacking: 1}, [1]), prompt).action is not None
    for bad in (
        offer({lacking: 1}, {spare: 1}),  # not held
        offer({spare: 1}, {}),  # a gift
        offer({spare: 1}, {spare: 1}),  # both sides
        offer({spare: 1}, {lacking: 1}, [0]),  # to oneself
        offer({spare: 1}, {lacking: 1}, [3]),  # no such seat
        offer({spare: 1}, {lacking: 1}, []),
    ):
        assert read_answer(bad, prompt).problem == "bad_offer", bad
    capped = read_answer(offer({spare: 1}, {lacking: 1}), prompt, MAX_OFFERS_PER_TURN)
    assert capped.problem == "bad_offer"


def test_an_offerer_may_wait_only_while_answers_are_pending() -> None:
    state = _main_phase_state()
    spare, lacking = _offer(state)
    names = ("brick", "lumber", "wool", "grain", "ore")
    give = engine.counts_of(names.index(spare))
    get = engine.counts_of(names.index(lacking))
    engine.apply(state, engine.OfferTrade(0, give, get, None))
    offerer, answerer = _prompt(state, 0), _prompt(state, 1)
    assert read_answer("null", offerer).wait
    assert default_action(offerer).kind == "cancel_trade"
    assert default_action(answerer).kind == "decline_trade"
    counter = json.dumps({"kind": "counter_trade", "give": {lacking: 1}, "get": {spare: 1}})
    judged = read_answer(counter, answerer)
    holds = state.hand_of(1)[names.index(lacking)] >= 1
    assert (judged.action is not None) == holds
    engine.apply(state, engine.DeclineTrade(1))
    assert read_answer("null", _prompt(state, 0)).problem == "cannot_wait"  # nobody to wait for


def test_default_actions_end_the_turn_roll_or_take_the_first_listed() -> None:
    state = _main_phase_state()
    assert default_action(_prompt(state, 0)).kind == "end_turn"
    fresh = engine.new_game(engine.GameConfig(players=2), 1)
    setup = _prompt(fresh, 0)
    assert default_action(setup) == setup.actions[0]


def test_a_program_offers_and_waits_for_answers_through_the_bridge() -> None:
    """The example program, driven prompt by prompt: its offer is passed on, and its null
    while the offer awaits answers sends nothing."""
    state = _main_phase_state()
    agent = ProgramAgent([sys.executable, str(REPO / "examples" / "stdio" / "agent.py"), "1"])
    agent.start()
    try:
        table = Table(game="g", seat=0)
        offer = agent.choose(_prompt(state, 0), table)
        assert isinstance(offer, OfferTrade) and offer.to is None
        engine.apply(state, action_to_engine(offer, 0))
        assert agent.choose(_prompt(state, 0), table) is None  # waiting: seat 1 is pending
        assert agent.choose(_prompt(state, 1), table).kind == "decline_trade"
        assert agent.defaults == 0
    finally:
        assert agent.finish(None) == 0
        agent.stop()


class _Log:
    """A stand-in for the bridge's structlog logger that keeps what it is told."""

    def __init__(self) -> None:
        self.lines: list[dict[str, Any]] = []

    def bind(self, **values: Any) -> _Log:
        return self

    def _keep(self, event: str, **values: Any) -> None:
        self.lines.append({"event": event, **values})

    info = warning = error = exception = _keep


def test_a_line_too_long_is_logged_by_its_start() -> None:
    """A line over MAX_LINE bytes gets the default, and the log quotes the start of that
    line (not a marker); the program is told, and its next answer is taken as usual."""
    long_line = '{"kind": "end_turn", "note": "' + "x" * 70000 + '"}'
    program = (
        "import json, sys\n"
        "sys.stdin.readline()\n"
        f"print({long_line!r}, flush=True)\n"
        "notice = json.loads(sys.stdin.readline())\n"
        "if notice['reason'] != 'too_long':\n"
        "    sys.exit(5)\n"
        "sys.stdin.readline()\n"
        "print(json.dumps({'kind': 'end_turn'}), flush=True)\n"
    )
    prompt = _prompt(_main_phase_state(), 0)
    log = _Log()
    agent = ProgramAgent([sys.executable, "-c", program], log=log, timeout=30)
    agent.start()
    try:
        table = Table(game="g", seat=0)
        assert agent.choose(prompt, table) == default_action(prompt)
        assert agent.choose(prompt, table).kind == "end_turn"  # told, then answered well
        assert agent.defaults == 1
    finally:
        assert agent.finish(None) == 0
        agent.stop()
    [default] = [line for line in log.lines if line["event"] == "bridge.default"]
    assert default["reason"] == "too_long" and default["state_id"] == prompt.state_id
    assert default["line"] == long_line[:LOGGED_LINE]
    assert f"over {MAX_LINE} bytes ({len(long_line) + 1} bytes)" in default["detail"]


def test_a_program_that_cannot_start_is_reported(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr("app.log.configure_logging", lambda level: None)  # keep logs as is
    code = main(
        ["agent", "--url=ws://127.0.0.1:9", "--invite=x", "--cmd=/nonexistent/program --go"]
    )
    assert code == 2
    assert "cannot start '/nonexistent/program'" in capsys.readouterr().err


# --- whole games -------------------------------------------------------------------------


def _reasons(proc: AgentProcess) -> Counter[str]:
    return Counter(e["reason"] for e in proc.log_events() if e["event"] == "bridge.default")


def _events(proc: AgentProcess, name: str) -> list[dict[str, object]]:
    return [e for e in proc.log_events() if e["event"] == name]


async def test_the_example_program_plays_a_game_through_the_bridge_and_a_cut(
    served: Served, tmp_path: Path
) -> None:
    host, created = await open_game(served.port)
    async with Proxy(served.port) as proxy:
        url = f"ws://127.0.0.1:{proxy.port}"
        argv = doc_command("hexhaven agent", url=url, code=str(created.invite))
        proc = await AgentProcess.start(argv, tmp_path, "bridge")
        try:
            await wait_seated(served, created.game, 1)
            cut = asyncio.create_task(cut_when(served, created.game, proxy, 20))
            over = await start_and_watch(host, created.game)
            assert cut.done()  # the bridge's connection dropped mid-game
            assert await proc.exit_code() == 0, proc.err
        finally:
            await proc.stop()
    assert over.winner is not None
    assert proxy.connections >= 2 and _events(proc, "agent.reconnecting")
    room = served.server.rooms[created.game]
    assert room.state.is_over and not room.away  # nobody had to stand in for it
    assert _reasons(proc) == Counter(), proc.err  # every answer was taken
    [done] = _events(proc, "bridge.over")
    assert done["winner"] == over.winner and done["seat"] == 0 and done["defaults"] == 0
    assert f"winner {over.winner}, points {over.points}" in proc.err  # it saw game_over
    # Joined by invite: the lines name the game and the seat from the moment it is seated,
    # and none carries the seat's token (its hash is all the server keeps, so look for
    # any value of any line that hashes to it).
    events = proc.log_events()
    seated = [i for i, e in enumerate(events) if e["event"] == "agent.seated"]
    assert seated and all("game" not in e and "seat" not in e for e in events[: seated[0]])
    slot = served.server.rooms[created.game].seats[0]
    assert slot is not None
    assert "token" not in events[seated[0]]
    words = {w for e in events for v in e.values() for w in re.findall(r"[\w-]+", str(v))}
    assert not any(hash_token(w) == slot.token_hash for w in words)
    for event in events[seated[0] :]:
        assert (event["game"], event["seat"]) == (created.game, 0), event
    assert {"agent.connection_lost", "agent.reconnecting"} <= {e["event"] for e in events}


async def test_a_misbehaving_program_gets_defaults_and_the_game_finishes(
    served: Served, tmp_path: Path
) -> None:
    host, created = await open_game(served.port)
    timeout = 1.5
    argv = [
        sys.executable,
        "-m",
        "app.cli",
        "agent",
        f"--url={served.url}",
        f"--invite={created.invite}",
        f"--cmd={sys.executable} {PROGRAMS / 'misbehaving.py'} {timeout}",
        f"--timeout={timeout}",
        "--name=chaos",
        f"--save-token={tmp_path / 'seat.token'}",
    ]
    over, proc = await play_seat(served, host, created.game, argv, tmp_path, "misbehaving")
    assert over.winner is not None
    room = served.server.rooms[created.game]
    assert room.state.is_over and not room.away
    saved = tmp_path / "seat.token"  # the way back to the seat, for its owner alone
    assert saved.stat().st_mode & 0o777 == 0o600
    slot = room.seats[0]
    assert slot is not None and token_matches(slot.token_hash, saved.read_text().strip())
    assert saved.read_text().strip() not in proc.err
    reasons = _reasons(proc)
    for reason in ("not_json", "not_an_action", "not_listed", "cannot_wait", "timeout"):
        assert reasons[reason] >= 1, (reason, reasons)
    assert reasons["not_an_action"] >= 2  # a wrong kind, and a list
    assert reasons["exited"] >= 1  # after the crash, every prompt
    [exited] = _events(proc, "bridge.program_exited")
    assert exited["returncode"] == 3 and exited["seat"] == 0
    assert len(_events(proc, "bridge.late_answer")) >= 2  # the late answer, the stray line
    [done] = _events(proc, "bridge.over")
    assert done["defaults"] == sum(reasons.values())
    for seen in ("not_json", "not_an_action", "not_listed", "cannot_wait", "timeout"):
        assert f"seen default_played {seen}" in proc.err  # the program was told


async def test_a_silent_program_is_stopped_and_its_seat_played_to_the_end(
    served: Served, tmp_path: Path
) -> None:
    host, created = await open_game(served.port, private=False)
    await host.send(m.JoinGame(game=created.game, name="quiet"))
    joined = await host.expect(m.Joined)
    token_file = tmp_path / "quiet.token"
    token_file.write_text(f"{joined.token}\n")
    argv = [
        sys.executable,
        "-m",
        "app.cli",
        "agent",
        f"--url={served.url}",
        f"--game={created.game}",
        f"--token-file={token_file}",
        f"--cmd={sys.executable} {PROGRAMS / 'silent.py'}",
        "--timeout=1",
    ]
    proc = await AgentProcess.start(argv, tmp_path, "silent")
    try:
        over = await start_and_watch(host, created.game)
        assert await proc.exit_code() == 0, proc.err
    finally:
        await proc.stop()
    assert over.winner is not None
    reasons = _reasons(proc)
    assert reasons["timeout"] == 3 and reasons["stopped"] >= 1, reasons
    [stopped] = _events(proc, "bridge.stopped")
    assert "3 prompts in a row" in str(stopped["reason"])
    assert served.server.rooms[created.game].state.is_over


async def test_a_refused_seat_ends_the_bridge(served: Served, tmp_path: Path) -> None:
    host, created = await open_game(served.port, private=False)
    token_file = tmp_path / "wrong.token"
    token_file.write_text("not-a-seat\n")
    argv = [
        sys.executable,
        "-m",
        "app.cli",
        "agent",
        f"--url={served.url}",
        f"--game={created.game}",
        f"--token-file={token_file}",
        f"--cmd={sys.executable} {PROGRAMS / 'silent.py'}",
    ]
    proc = await AgentProcess.start(argv, tmp_path, "refused")
    try:
        assert await proc.exit_code() == 1
    finally:
        await proc.stop()
    [refused] = _events(proc, "bridge.not_seated")
    assert refused["code"] == "bad_token"
    await host.close()


def test_the_programs_are_where_the_tests_say() -> None:
    assert (REPO / "examples" / "stdio" / "agent.py").is_file()
    assert (PROGRAMS / "misbehaving.py").is_file() and (PROGRAMS / "silent.py").is_file()
