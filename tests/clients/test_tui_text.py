"""Small texts of the terminal UI: names cut to fit keep apart, an offer's check says
what the server would refuse, and the log tells a seat's discards, a monopoly and the end
once each."""

from __future__ import annotations

import pytest

import engine
from clients.game import GameModel
from clients.tui.app import swap_problem
from clients.tui.widgets import fit_name
from protocol import messages as m
from protocol.payloads import event_from_engine, view_from_engine


@pytest.mark.parametrize("room", [3, 5, 8, 10])
def test_names_that_differ_at_the_end_stay_apart_when_cut(room: int) -> None:
    cut = [fit_name(f"heuristic-{i}", room) for i in (1, 2, 3)]
    assert len(set(cut)) == 3
    assert all(len(c) == room for c in cut)
    assert fit_name("Ana", room) == "Ana"


def test_an_offer_check_names_what_the_server_refuses() -> None:
    brick, wool = [1, 0, 0, 0, 0], [0, 0, 1, 0, 0]
    assert swap_problem([brick, wool]) is None
    assert swap_problem([brick, [0] * 5]) == "choose cards to give and cards to get"
    assert swap_problem([[1, 0, 1, 0, 0], wool]) == "a resource cannot be on both sides"


def test_one_card_is_one_card() -> None:
    from clients.narrate import plural
    from clients.tui.dialogs import GameOverScreen

    assert (plural(1, "card"), plural(0, "card"), plural(2, "dev card")) == (
        "1 card",
        "0 cards",
        "2 dev cards",
    )
    over = GameOverScreen(["you", "Bo"], [10, 4], 0, 0, 1, None, victory_cards=[1, 2])
    lines = over.scores().plain.splitlines()
    assert "(you)" not in lines[0] and "(1 victory point card)" in lines[0]
    assert "(2 victory point cards)" in lines[1]
    named = GameOverScreen(["Ana", "Bo"], [10, 4], 0, 0, 1, None)
    assert "Ana (you)" in named.scores().plain  # a name of one's own is marked


async def test_the_status_line_keeps_the_clock_and_help_at_80_columns() -> None:
    from textual.geometry import Region

    from clients.tui.app import HexhavenApp
    from clients.tui.offline import OfflineTransport
    from tests.clients.test_tui_dialogs import opening, prompt
    from tests.engine import positions as pos

    state = pos.setup_game(pos.config(players=4))
    pos.pre_roll(state, 0)
    pos.force_roll(state, 8)
    asked = prompt(state, 0).model_copy(update={"deadline": 42.0})
    app = HexhavenApp(OfflineTransport([*opening(state, 0), asked]))
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        status = app.query_one("#status")
        drawn = status.render_lines(Region(0, 0, *status.outer_size))[0].text
        assert "⏱ 4" in drawn and "rolled 8" in drawn and "? help" in drawn, drawn


def _model(seat: int | None) -> GameModel:
    """A model of a 3-seat game (Ana, Bo, Cy) seen by ``seat``, with its first view."""
    model = GameModel()
    state = engine.new_game(engine.GameConfig(players=3), 5)
    model.handle(m.Joined(game="g1", seat=seat, token=None if seat is None else "tok"))
    players = [
        m.PlayerInfo(seat=q, name=n, bot=q > 0, connected=True, away=False)
        for q, n in enumerate(("Ana", "Bo", "Cy"))
    ]
    model.handle(m.Players(game="g1", players=players, started=True))
    model.handle(m.GameView(game="g1", view=view_from_engine(engine.view(state, seat))))
    return model


def _told(model: GameModel, state_id: int, *events: engine.Event) -> list[str]:
    """The log lines of one action's events, as the server sends them."""
    wire = [event_from_engine(e) for e in events]
    message = m.Events.model_validate({"game": "g1", "state_id": state_id, "events": wire})
    return [line.text for line in model.handle(message)]


@pytest.mark.parametrize("seat", [0, None], ids=["seated", "watching"])
def test_a_seats_discards_are_told_in_one_line_once_all_are_given(seat: int | None) -> None:
    from engine import events as ev

    model = _model(seat)
    assert _told(model, 1, ev.DiscardsOwed(owed=(0, 3, 4))) == ["Discards owed: Bo 3, Cy 4"]
    lumber, grain, ore = (0, 1, 0, 0, 0), (0, 0, 0, 1, 0), (0, 0, 0, 0, 1)
    assert _told(model, 2, ev.Discarded(seat=1, cards=lumber)) == []
    assert _told(model, 3, ev.Discarded(seat=2, cards=(0, 0, 0, 2, 0))) == []
    assert _told(model, 4, ev.Discarded(seat=1, cards=grain)) == []
    assert _told(model, 5, ev.Discarded(seat=1, cards=lumber)) == ["Bo discarded 2 lumber, 1 grain"]
    assert _told(model, 6, ev.Discarded(seat=2, cards=(0, 0, 0, 1, 1))) == [
        "Cy discarded 3 grain, 1 ore"
    ]
    assert _told(model, 7, ev.Discarded(seat=1, cards=ore)) == ["Bo discarded 1 ore"]


def test_a_monopoly_says_what_each_lost() -> None:
    from engine import events as ev
    from engine.constants import Resource

    model = _model(0)
    took = ev.MonopolyTaken(seat=1, resource=Resource.WOOL, taken=(2, 0, 3))
    assert _told(model, 1, took) == ["Bo took 5 wool by monopoly: 2 from you, 3 from Cy"]
    none = ev.MonopolyTaken(seat=0, resource=Resource.ORE, taken=(0, 0, 0))
    assert _told(model, 2, none) == ["You took 0 ore by monopoly (nobody had any)"]


def test_the_end_is_told_once() -> None:
    from engine import events as ev

    model = _model(0)
    won = ev.GameWon(winner=1, points=(4, 10, 6), victory_cards=(0, 1, 0))
    told = _told(model, 9, won)
    over = m.GameOver(game="g1", winner=1, points=[4, 10, 6], seed=5)
    told += [line.text for line in model.handle(over)]
    assert [t for t in told if " won" in t] == ["Bo won! Final points: you 4, Bo 10, Cy 6"]
    assert told[-1] == "Game over. The seed was 5."
