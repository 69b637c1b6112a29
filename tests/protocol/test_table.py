"""The per-seat game table, without a socket: every recipient gets its own form of each
action (a spectator never a hidden card), stale, future and illegal actions are refused with
their codes and change nothing, the history comes in chunks, the end is told to everyone,
and a table rebuilt from its actions is the same table."""

from __future__ import annotations

import random
from functools import cache
from typing import Any

import pytest
from pydantic import ValidationError

import engine
from protocol import messages as m
from protocol.messages import ErrorCode
from protocol.payloads import (
    Cards,
    EndTurn,
    action_from_engine,
    action_to_engine,
    event_from_engine,
)
from protocol.table import HISTORY_CHUNK, ActionRefused, Delivery, Played, Table
from tests.engine.randomplay import random_steps
from tests.protocol.exact import assert_exactly, revalidated

CONFIG = engine.GameConfig(players=4, victory_points=6)


def random_action(table: Table, rnd: random.Random) -> engine.Action:
    """A random builder's legal action for any seat that must act."""
    acts = engine.legal_actions(table.state)
    busy = [
        a
        for a in acts
        if not isinstance(a, engine.EndTurn | engine.MaritimeTrade | engine.OfferTrade)
    ]
    return rnd.choice(busy if busy and rnd.random() < 0.85 else acts)


def play(table: Table, rnd: random.Random, actions: int | None = None) -> list[list[Delivery]]:
    """Play random legal actions (``actions`` of them, or to the end); what each one told."""
    told: list[list[Delivery]] = []
    while not table.over and (actions is None or len(told) < actions):
        action = random_action(table, rnd)
        told.append(table.act(action.seat, action))
    return told


@cache
def finished(seed: int = 3) -> tuple[Table, tuple[list[Delivery], ...]]:
    """A game played to its end by random builders (seed 3 buys cards and steals)."""
    table = Table("g", CONFIG, seed)
    told = play(table, random.Random(seed))
    return table, tuple(told)


def events_of(told: list[Delivery]) -> dict[int | None, list[Any]]:
    return {r: msg.events for r, msg in told if isinstance(msg, m.Events)}


def test_each_seat_gets_its_own_form_and_spectators_no_hidden_card() -> None:
    table, told = finished()
    bought = stolen = 0
    for delivered in told:
        forms = events_of(delivered)
        assert list(forms) == [0, 1, 2, 3, None]
        for i, public in enumerate(forms[None]):
            if public.kind == "dev_card_bought":
                bought += 1
                assert public.card is None
                for q in range(4):
                    assert (forms[q][i].card is not None) == (q == public.seat)
            if public.kind == "stolen":
                stolen += 1
                assert public.resource is None
                for q in range(4):
                    entitled = q in (public.thief, public.victim)
                    assert (forms[q][i].resource is not None) == entitled
            if public.kind not in ("dev_card_bought", "stolen"):
                assert all(forms[q][i] == public for q in range(4))
    assert bought and stolen, "the seeded game buys and steals"

    spectator = table.view(None)
    assert spectator.seat is None and spectator.hand is None and spectator.development is None
    for q in range(4):
        own = table.view(q)
        assert own.seat == q and own.hand == Cards.of(table.state.hand_of(q))


def test_a_spectator_view_mid_game_hides_every_hand() -> None:
    table = Table("g", CONFIG, 5)
    play(table, random.Random(5), actions=120)
    assert any(table.state.hand_size(q) for q in range(4))
    (view,) = table.welcome(None)
    assert isinstance(view, m.GameView) and view.view == table.view(None)
    assert view.view.hand is None and view.view.development is None
    assert table.view(2).hand == Cards.of(table.state.hand_of(2))


def test_stale_future_and_illegal_actions_are_refused_and_change_nothing() -> None:
    table = Table("g", CONFIG, 7)
    play(table, random.Random(7), actions=40)
    before, played = table.state.snapshot(), list(table.played)
    seat = engine.seats_to_act(table.state)[0]
    legal = action_from_engine(engine.legal_actions(table.state, seat)[0])

    with pytest.raises(ActionRefused) as stale:
        table.check(seat, m.Act(game="g", state_id=38, action=legal))
    assert stale.value.code == ErrorCode.STALE_STATE
    assert stale.value.message == "that action was chosen for state 38; the game is at state 40"
    with pytest.raises(ActionRefused) as future:
        table.check(seat, m.Act(game="g", state_id=41, action=legal))
    assert future.value.code == ErrorCode.STALE_STATE
    assert future.value.message == "that action names a future state 41; the game is at state 40"

    idle = next(q for q in range(4) if q not in engine.seats_to_act(table.state))
    with pytest.raises(engine.IllegalActionError) as engine_says:
        engine.check(table.state, engine.EndTurn(idle))
    with pytest.raises(ActionRefused) as illegal:
        table.check(idle, m.Act(game="g", state_id=40, action=EndTurn()))
    assert illegal.value.code == ErrorCode.ILLEGAL_ACTION
    assert illegal.value.message == engine_says.value.message
    assert illegal.value.detail == engine_says.value.code
    assert illegal.value.to_message() == m.Error(
        code=ErrorCode.ILLEGAL_ACTION,
        message=engine_says.value.message,
        detail=engine_says.value.code,
        game="g",
    )
    with pytest.raises(ActionRefused):
        table.act(idle, engine.EndTurn(idle))
    with pytest.raises(ValueError, match="seat"):
        table.act(seat, engine.EndTurn(idle))
    assert table.state.snapshot() == before and table.played == played

    action = table.check(seat, m.Act(game="g", state_id=40, action=legal))
    assert action == action_to_engine(legal, seat)
    assert table.state_id == 40  # checking is not playing


def test_a_prompt_lists_what_the_seat_may_do_now() -> None:
    table = Table("g", CONFIG, 11)
    play(table, random.Random(11), actions=25)
    seat = engine.seats_to_act(table.state)[0]
    prompt = table.prompt(seat, 12.5)
    assert (prompt.game, prompt.seat, prompt.state_id) == ("g", seat, 25)
    assert prompt.deadline == 12.5 and prompt.view is None and prompt.actions
    for payload in prompt.actions:  # every listed action is taken as it stands
        act = m.Act(game="g", state_id=prompt.state_id, action=payload)
        assert table.check(seat, act).seat == seat
    viewed = table.prompt(seat, with_view=True)
    assert viewed.view == table.view(seat) and viewed.deadline is None
    idle = next(q for q in range(4) if q not in engine.seats_to_act(table.state))
    assert table.prompt(idle).actions == []


def test_the_end_is_told_to_everyone_and_refuses_further_actions() -> None:
    table, told = finished()
    last = told[-1]
    assert [r for r, msg in last if isinstance(msg, m.GameOver)] == [0, 1, 2, 3, None]
    assert all(isinstance(msg, m.Events) for _, msg in last[:5])  # the events come first
    over = last[-1][1]
    assert isinstance(over, m.GameOver)
    assert over.winner == table.state.winner and over.seed == 3
    assert over.points[over.winner] >= CONFIG.victory_points
    assert all(not isinstance(msg, m.GameOver) for delivered in told[:-1] for _, msg in delivered)
    assert table.welcome(1)[-1] == over and table.welcome(None)[-1] == over

    with pytest.raises(ActionRefused) as refused:
        table.check(0, m.Act(game="g", state_id=table.state_id, action=EndTurn()))
    assert (refused.value.code, refused.value.message, refused.value.detail) == (
        ErrorCode.ILLEGAL_ACTION,
        "the game is over",
        "game_over",
    )


def test_a_game_nobody_wins_ends_at_the_action_limit() -> None:
    table = Table("g", CONFIG, 2, max_actions=30)
    with pytest.raises(ValueError, match="not over"):
        table.game_over()
    told = play(table, random.Random(2))
    assert len(told) == 30 and table.over and not table.state.is_over
    over = [msg for _, msg in told[-1] if isinstance(msg, m.GameOver)]
    assert len(over) == 5 and over[0].winner is None
    assert over[0].points == [table.state.victory_points(q) for q in range(4)]
    seat = engine.seats_to_act(table.state)[0]
    action = engine.legal_actions(table.state, seat)[0]
    with pytest.raises(ActionRefused, match="the game is over"):
        table.act(seat, action)  # the engine would take it; the table does not
    assert table.state_id == 30


def test_the_history_comes_in_chunks_in_the_recipients_form() -> None:
    table = Table("g", CONFIG, 20)
    told = play(table, random.Random(20), actions=2 * HISTORY_CHUNK + 50)
    chat = [m.ChatAt(state_id=4, seat=1, name="Bo", text="hello")]

    chunks = table.history(1, chat=chat)
    assert [len(h.batches) for h in chunks] == [HISTORY_CHUNK, HISTORY_CHUNK, 50]
    assert [h.more for h in chunks] == [True, True, False]
    assert [h.chat for h in chunks] == [chat, [], []]
    batches = [b for h in chunks for b in h.batches]
    live = [msg for delivered in told for r, msg in delivered if r == 1]
    assert [(b.state_id, b.events) for b in batches] == [
        (e.state_id, e.events) for e in live if isinstance(e, m.Events)
    ]

    (tail,) = table.history(None, from_state=400)
    assert [b.state_id for b in tail.batches] == list(range(401, 451)) and not tail.more
    public = [msg for d in told[400:] for r, msg in d if r is None and isinstance(msg, m.Events)]
    assert [b.events for b in tail.batches] == [e.events for e in public]
    with pytest.raises(ValueError):
        table.history(0, from_state=-1)

    fresh = Table("g", CONFIG, 20)
    assert fresh.history(None, chat=chat) == [m.History(game="g", batches=[], chat=chat)]
    view, *history = fresh.welcome(2, history=True, chat=chat)
    assert isinstance(view, m.GameView) and view.view.seat == 2
    assert history == fresh.history(2, chat=chat)


def test_the_history_is_made_once_and_given_again_until_the_game_moves_on() -> None:
    """Asked again, the history is the same message objects (a server keeps their
    encoding); after more actions, or another chat, it is what a table made afresh gives,
    also when the actions fill their chunks exactly."""
    rnd = random.Random(22)
    table = Table("g", CONFIG, 22)
    chat = [m.ChatAt(state_id=0, seat=0, name="Ana", text="hi")]
    play(table, rnd, actions=HISTORY_CHUNK + 7)
    first = table.history(3, chat=chat)
    again = table.history(3, chat=chat)
    assert len(first) == 2 and all(a is b for a, b in zip(first, again, strict=True))
    assert table.history(3)[1] is first[1] and table.history(3)[0].chat == []
    for steps in (1, HISTORY_CHUNK - 8, 1):  # past the chunk, up to its end, past it again
        play(table, rnd, actions=steps)
        other = [*chat, m.ChatAt(state_id=5, seat=1, name="Bo", text="go")]
        rebuilt = Table.replay("g", CONFIG, 22, [p.action for p in table.played])
        for said in (chat, other):
            got = table.history(3, chat=said)
            assert got == rebuilt.history(3, chat=said)
            assert [h.more for h in got] == [True] * (len(got) - 1) + [False]
        assert got[0] is table.history(3, chat=other)[0]


def test_a_table_rebuilt_from_its_actions_is_the_same_table() -> None:
    table, _ = finished()
    again = Table.replay("g", CONFIG, 3, [p.action for p in table.played])
    assert again.state.snapshot() == table.state.snapshot()
    assert again.played == table.played and again.over
    assert again.history(2) == table.history(2) and again.welcome(None) == table.welcome(None)

    actions = [p.action for p in table.played]
    with pytest.raises(engine.IllegalActionError):
        Table.replay("g", CONFIG, 3, [actions[1], *actions])


def test_only_the_recipients_listening_are_told_and_each_in_its_own_form() -> None:
    rnd = random.Random(5)
    full, some = (
        Table("g", engine.GameConfig(players=3), 8),
        Table("g", engine.GameConfig(players=3), 8),
    )
    for _ in range(150):
        action = random_action(full, rnd)
        everyone = full.act(action.seat, action)
        told = some.act(action.seat, action, listening=[2])
        assert [r for r, _ in told] == [2] * len(told)
        assert [message for r, message in everyone if r == 2] == [message for _, message in told]
    assert some.state_id == full.state_id == 150


# ======================================================================================
# Messages made without validation are those validation makes, shared as before
# ======================================================================================


def _told_field_by_field(
    game: str, played: Played, recipients: list[int | None]
) -> list[tuple[int | None, m.Events]]:
    """Each recipient's ``events`` as the table made them before it made its messages
    without validating them: every form from ``for_seat``, one validated message for each
    distinct form."""
    whole = [event_from_engine(e) for e in played.events]
    made: dict[tuple[int, ...], m.Events] = {}
    out = []
    for r in recipients:
        form = []
        for event, wire in zip(played.events, whole, strict=True):
            seen = event.for_seat(r)
            form.append(wire if seen is event else event_from_engine(seen))
        key = tuple(map(id, form))
        if key not in made:
            made[key] = m.Events(game=game, state_id=played.state_id, events=form)
        out.append((r, made[key]))
    return out


def _sharing(told: list[tuple[int | None, Any]]) -> list[int]:
    """Which message each delivery shares: the index of the first delivery of the same
    object."""
    firsts: dict[int, int] = {}
    return [firsts.setdefault(id(message), i) for i, (_, message) in enumerate(told)]


@pytest.mark.parametrize("seed", [31, 32])
def test_every_message_is_what_validation_makes_and_shared_alike(seed: int) -> None:
    config = engine.GameConfig(players=4)
    table = Table("g-ü", config, seed)
    rnd = random.Random(seed)
    everyone: list[int | None] = [0, 1, 2, 3, None]
    split = 0  # actions whose listeners did not all see alike
    for step in random_steps(config, seed, max_actions=3000):
        for seat in engine.seats_to_act(table.state):
            for deadline in (None, 2.5, 3):  # an int deadline is validated into a float
                prompt = table.prompt(seat, deadline, with_view=deadline == 3)
                assert_exactly(prompt, revalidated(prompt))
                assert prompt.actions == [
                    action_from_engine(a) for a in engine.legal_actions(table.state, seat)
                ]
        listening = [r for r in everyone if rnd.random() < 0.8]
        told = table.act(step.action.seat, step.action, listening=listening)
        events = [(r, message) for r, message in told if isinstance(message, m.Events)]
        expected = _told_field_by_field(table.game, table.played[-1], listening)
        assert [r for r, _ in events] == [r for r, _ in expected] == listening
        for (_, got), (_, want) in zip(events, expected, strict=True):
            assert_exactly(got, want)
        assert _sharing(events) == _sharing(expected)
        split += len(set(_sharing(events))) > 1
    assert table.over and split


def test_a_game_id_the_messages_refuse_is_refused_when_a_message_is_made() -> None:
    for game in ("", "x" * 65):
        table = Table(game, CONFIG, 1)
        with pytest.raises(ValidationError):
            table.prompt(0)
        action = engine.legal_actions(table.state, 0)[0]
        with pytest.raises(ValidationError):
            table.act(0, action)
