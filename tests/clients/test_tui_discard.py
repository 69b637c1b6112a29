"""A discard the server answers for the seat: while a player is away (or out of time) the
server plays their discard, and the client must not show a dialog for a discard no longer
owed, nor leave one over the game's end."""

from __future__ import annotations

import engine
from clients.tui.app import HexhavenApp
from clients.tui.dialogs import CardDialog, GameOverScreen
from clients.tui.offline import OfflineTransport
from engine import GameState
from protocol import messages as m
from tests.clients.test_tui_dialogs import GAME, SIZE, client, events, opening, prompt
from tests.engine import positions as pos

SEED = 5


def seven_rolled() -> GameState:
    """Seat 1 rolled a seven; seat 0 (the client) owes 4 of its 9 cards."""
    state = pos.setup_game(pos.config(players=3))
    pos.set_hand(state, 0, pos.counts(brick=5, ore=4))
    pos.pre_roll(state, 1)
    pos.force_roll(state, 7)
    assert state.owed[0] == 4 and engine.seats_to_act(state) == (0,)
    return state


def server_discards(state: GameState) -> m.Events:
    """The server plays seat 0's discard (its default action), as for an away seat."""
    return events(state, engine.apply(state, engine.default_action(state, 0)), 0)


def game_over(state: GameState) -> m.GameOver:
    return m.GameOver(game=GAME, winner=1, points=[3, 10, 2], seed=SEED)


def dialogs(app: HexhavenApp) -> list[CardDialog]:
    return [s for s in app.screen_stack if isinstance(s, CardDialog)]


async def test_a_discard_answered_before_the_dialog_opens_opens_nothing() -> None:
    state = seven_rolled()
    owed_prompt = prompt(state, 0)
    # The prompt, the server's discard for the away seat and the end arrive together,
    # before the dialog the prompt would open has been shown.
    app, transport = client(state, 0, owed_prompt, server_discards(state), game_over(state))
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        await pilot.pause()
        assert dialogs(app) == []
        assert isinstance(app.screen, GameOverScreen)
        assert transport.sent == []
        await pilot.press("q")
        await pilot.pause()
        assert app.return_code == 0  # q quits from the end's dialog


async def test_an_open_discard_dialog_closes_when_the_server_discards_for_the_seat() -> None:
    state = seven_rolled()
    app, transport = client(state, 0, prompt(state, 0))
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        dialog = app.screen
        assert isinstance(dialog, CardDialog) and dialog.title_text == "Discard 4 cards"
        await pilot.press("right")  # the player is choosing when the server answers
        transport.push(server_discards(state))
        await pilot.pause()
        assert dialogs(app) == []
        assert app.model.prompt is None and app.choices == []
        transport.push(game_over(state))
        await pilot.pause()
        assert isinstance(app.screen, GameOverScreen)
        await pilot.press("q")
        await pilot.pause()
        assert app.return_code == 0
    assert transport.sent == []


async def test_the_dialog_stays_open_while_others_discard() -> None:
    state = pos.setup_game(pos.config(players=3))
    pos.set_hand(state, 0, pos.counts(brick=5, ore=4))
    pos.set_hand(state, 2, pos.counts(wool=8))
    pos.pre_roll(state, 1)
    pos.force_roll(state, 7)
    assert engine.seats_to_act(state) == (0, 2)
    app, transport = client(state, 0, prompt(state, 0))
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        dialog = app.screen
        assert isinstance(dialog, CardDialog)
        await pilot.press("right", "right", "right", "down", "down", "down", "down", "right")
        other = engine.apply(state, engine.default_action(state, 2))
        transport.push(events(state, other, 0))  # seat 2 discards; no new prompt yet
        await pilot.pause()
        assert app.screen is dialog  # still owed: the choice so far is kept
        transport.push(prompt(state, 0))
        await pilot.pause()
        assert app.screen is dialog
        await pilot.press("enter")
        await pilot.pause()
        act = transport.sent[-1]
        assert isinstance(act, m.Act) and act.state_id == state.actions_taken
        assert act.action.kind == "discard"


async def test_a_discard_confirmed_between_prompts_is_chosen_again() -> None:
    state = pos.setup_game(pos.config(players=3))
    pos.set_hand(state, 0, pos.counts(brick=5, ore=4))
    pos.set_hand(state, 2, pos.counts(wool=8))
    pos.pre_roll(state, 1)
    pos.force_roll(state, 7)
    app, transport = client(state, 0, prompt(state, 0))
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        assert isinstance(app.screen, CardDialog)
        await pilot.press("right", "right", "right", "right")
        other = engine.apply(state, engine.default_action(state, 2))
        transport.push(events(state, other, 0))  # the prompt it was opened for is gone
        await pilot.pause()
        await pilot.press("enter")
        await pilot.pause()
        assert transport.sent == [] and dialogs(app) == []
        transport.push(prompt(state, 0))  # still owed: the new prompt opens it again
        await pilot.pause()
        await pilot.pause()
        dialog = app.screen
        assert isinstance(dialog, CardDialog) and dialog.title_text == "Discard 4 cards"


async def test_a_discard_of_no_cards_is_never_offered() -> None:
    state = seven_rolled()
    owed_prompt = prompt(state, 0)
    app = HexhavenApp(OfflineTransport())
    async with app.run_test(size=SIZE) as pilot:
        for message in opening(state, 0):
            app.deliver(message)
        app.deliver(owed_prompt)
        app.deliver(server_discards(state))  # the view now owes nothing; the prompt is gone
        app.model.prompt = owed_prompt  # even if a stale prompt were still held
        app.discard()
        await pilot.pause()
        assert dialogs(app) == []


async def test_a_card_dialog_closed_as_it_opens_does_not_fail() -> None:
    """The server can answer a discard while its dialog is still being mounted."""
    from textual.app import App

    from clients.tui.dialogs import CardDialog, Side

    class Opener(App[None]):
        async def on_mount(self) -> None:
            dialog = CardDialog(
                "Discard 2 cards",
                "",
                [Side("You give back", (1, 1, 1, 1, 0))],
                lambda _: "choose 2 cards",
                confirm="discard",
            )
            self.push_screen(dialog, lambda _: None)
            dialog.dismiss(None)

    app = Opener()
    async with app.run_test() as pilot:
        await pilot.pause(0.3)
    assert app.return_code in (None, 0)
    assert getattr(app, "_exception", None) is None
