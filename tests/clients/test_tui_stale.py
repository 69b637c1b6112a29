"""Dialogs the game moves past: when the turn timer runs out the server acts for the seat,
and an offer can end while its answer is being written. An open dialog then closes by
itself and sends nothing; one still asked for stays open with its choice kept."""

from __future__ import annotations

import engine
from clients.tui.dialogs import CardDialog, ChoiceDialog
from engine import CancelTrade, DeclineTrade, GameState, apply
from protocol.payloads import MoveRobber
from tests.clients.test_tui_dialogs import (
    client,
    events,
    offered_to_everyone,
    press_choice,
    prompt,
)
from tests.engine import positions as pos


def server_acts(state: GameState, seat: int, viewer: int = 0) -> object:
    """The server plays ``seat``'s default action (as when its time runs out)."""
    return events(state, apply(state, engine.default_action(state, seat)), viewer)


async def test_the_bank_dialog_closes_when_the_server_ends_the_turn() -> None:
    state = pos.setup_game(pos.config(players=3))
    pos.main_phase(state, 0)
    pos.set_hand(state, 0, pos.counts(brick=4))
    app, transport = client(state, 0, prompt(state, 0))
    async with app.run_test() as pilot:
        await pilot.pause()
        await pilot.press("b")
        await pilot.pause()
        dialog = app.screen
        assert isinstance(dialog, ChoiceDialog)
        transport.push(server_acts(state, 0))  # time ran out: the turn ends
        await pilot.pause()
        assert app.screen is not dialog and app.asking is None
        assert state.current == 1
        await pilot.press("enter")  # a key meant for the dialog sends nothing
        await pilot.pause()
        assert transport.sent == []


async def test_the_victim_dialog_closes_when_the_server_moves_the_robber() -> None:
    state = pos.setup_game(pos.config(players=3))
    pos.pre_roll(state, 0)
    pos.force_roll(state, 7)
    asked = prompt(state, 0)
    moves = [a for a in asked.actions if isinstance(a, MoveRobber)]
    target = next(h for h in range(19) if len([a for a in moves if a.hex == h]) > 1)
    app, transport = client(state, 0, asked)
    async with app.run_test() as pilot:
        await pilot.pause()
        app.choose_victim([a for a in moves if a.hex == target])
        await pilot.pause()
        dialog = app.screen
        assert isinstance(dialog, ChoiceDialog)
        transport.push(server_acts(state, 0), prompt(state, 0))  # on to the main phase
        await pilot.pause()
        assert app.screen is not dialog
        assert "end_turn" in [c.kind for c in app.choices]  # the new prompt is offered
        assert transport.sent == []


async def test_a_counter_offer_stays_open_while_others_answer_and_closes_when_withdrawn() -> None:
    state = offered_to_everyone()
    app, transport = client(state, 0, prompt(state, 0))
    async with app.run_test() as pilot:
        await pilot.pause()
        await press_choice(app, pilot, "counter_trade")
        dialog = app.screen
        assert isinstance(dialog, CardDialog)
        await pilot.press("right")  # give a second brick
        # Cy declines: the prompt for the old state goes, and a new one comes.
        transport.push(events(state, apply(state, DeclineTrade(2)), 0))
        await pilot.pause()
        assert app.screen is dialog and app.model.prompt is None
        transport.push(prompt(state, 0))
        await pilot.pause()
        assert app.screen is dialog and dialog.grid.counts[0] == [2, 0, 0, 0, 0]  # kept
        # Bo withdraws the offer.
        transport.push(events(state, apply(state, CancelTrade(1)), 0))
        await pilot.pause()
        assert app.screen is not dialog and app.asking is None
    assert transport.sent == []
