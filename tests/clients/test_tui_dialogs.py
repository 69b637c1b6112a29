"""Each of the terminal client's ways of acting, driven by keys through Textual's pilot on
positions built with the engine: what the client sends must be legal there."""

from __future__ import annotations

import asyncio
import hashlib
from typing import Any

import pytest
from textual.events import AppBlur, AppFocus
from textual.widgets import Static

from clients.tui.app import HexhavenApp
from clients.tui.dialogs import CardDialog, ChoiceDialog, GameOverScreen, HelpScreen
from clients.tui.offline import OfflineTransport
from clients.tui.widgets import BoardView
from engine import (
    AcceptTrade,
    DevCard,
    GameConfig,
    GameState,
    MoveRobber,
    OfferTrade,
    Phase,
    apply,
    check,
    legal_actions,
    new_game,
    view,
)
from protocol import messages as m
from protocol.payloads import (
    action_from_engine,
    action_to_engine,
    event_from_engine,
    view_from_engine,
)
from tests.clients.test_tui_game import footer_of, shown
from tests.engine import positions as pos

GAME = "g1"
NAMES = ("Ana", "Bo", "Cy", "Di")
SIZE = (100, 30)


def opening(state: GameState, seat: int | None) -> list[Any]:
    players = [
        m.PlayerInfo(seat=q, name=NAMES[q], bot=q != seat, connected=True, away=False)
        for q in range(state.n)
    ]
    return [
        m.Joined(game=GAME, seat=seat, token=None if seat is None else "tok"),
        m.Players(game=GAME, players=players),
        m.GameView(game=GAME, view=view_from_engine(view(state, seat))),
        m.GameView(game=GAME, view=view_from_engine(view(state, seat))),  # as at the start
    ]


def prompt(state: GameState, seat: int) -> m.Prompt:
    return m.Prompt(
        game=GAME,
        state_id=state.actions_taken,
        seat=seat,
        actions=[action_from_engine(a) for a in legal_actions(state, seat)],
        view=view_from_engine(view(state, seat)),
    )


def events(state: GameState, evs: list[Any], seat: int) -> m.Events:
    """The ``events`` of ``evs`` (just applied to ``state``) as ``seat`` gets them, with its
    view after them (the terminal client asks for views with events)."""
    return m.Events(
        game=GAME,
        state_id=state.actions_taken,
        events=[event_from_engine(e.for_seat(seat)) for e in evs],
        view=view_from_engine(view(state, seat)),
    )


def sent(transport: OfflineTransport, state: GameState, seat: int) -> Any:
    """The last action sent: for the state it was chosen in, and legal there."""
    act = transport.sent[-1]
    assert isinstance(act, m.Act)
    assert act.state_id == state.actions_taken
    action = action_to_engine(act.action, seat)
    check(state, action)  # raises if illegal
    return action


async def press_choice(app: HexhavenApp, pilot: Any, kind: str) -> None:
    kinds = [c.kind for c in app.choices]
    assert kind in kinds, kinds
    await pilot.press(str(kinds.index(kind) + 1))
    await pilot.pause()


def client(state: GameState, seat: int | None, *more: Any) -> tuple[HexhavenApp, OfflineTransport]:
    transport = OfflineTransport([*opening(state, seat), *more])
    return HexhavenApp(transport), transport


async def test_a_setup_settlement_is_chosen_on_the_board() -> None:
    state = new_game(GameConfig(players=3), 4)
    app, transport = client(state, 0, prompt(state, 0))
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        board = app.query_one(BoardView)
        assert board.picking and board.kind == "vertex"  # the only choice opens at once
        assert len(board.spots) == len(legal_actions(state, 0))
        await pilot.press("right", "down", "tab")
        spot = board.current
        await pilot.press("enter")
        await pilot.pause()
        action = sent(transport, state, 0)
        assert action.vertex == spot
        assert not board.picking


async def test_discarding_chooses_the_cards() -> None:
    state = pos.setup_game(pos.config(players=3))
    pos.set_hand(state, 0, pos.counts(brick=5, ore=4))
    pos.pre_roll(state, 1)
    pos.force_roll(state, 7)
    owed = state.owed[0]
    assert owed == 4
    app, transport = client(state, 0, prompt(state, 0))
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        assert isinstance(app.screen, CardDialog)  # a discard opens at once
        await pilot.press("enter")  # nothing chosen yet: not sent
        assert not transport.sent
        await pilot.press("right", "right", "right", "down", "down", "down", "down", "right")
        await pilot.press("enter")
        await pilot.pause()
        action = sent(transport, state, 0)
        assert action.cards == (3, 0, 0, 0, 1)


async def test_the_robber_moves_to_a_chosen_hex_and_robs_a_chosen_victim() -> None:
    state = pos.setup_game(pos.config(players=3))
    pos.pre_roll(state, 0)
    pos.force_roll(state, 7)
    moves = [a for a in legal_actions(state, 0) if isinstance(a, MoveRobber)]
    target = next(h for h in range(19) if len([a for a in moves if a.hex == h]) > 1)
    victims = [a.victim for a in moves if a.hex == target]
    app, transport = client(state, 0, prompt(state, 0))
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        board = app.query_one(BoardView)
        assert board.picking and board.kind == "hex"
        await pilot.press("tab", "shift+tab")
        while board.current != target:
            await pilot.press("tab")
        hint = str(app.query_one("#hint").render())
        assert f"{state.board.tokens[target]}" in hint
        assert "rob " + " or ".join(NAMES[q] for q in victims if q is not None) in hint
        await pilot.press("enter")
        await pilot.pause()
        assert isinstance(app.screen, ChoiceDialog)
        await pilot.press("down", "enter")
        await pilot.pause()
        action = sent(transport, state, 0)
        assert (action.hex, action.victim) == (target, victims[1])


async def test_year_of_plenty_and_monopoly() -> None:
    state = pos.setup_game(pos.config(players=3))
    pos.main_phase(state, 0)
    pos.give_dev(state, 0, DevCard.YEAR_OF_PLENTY)
    pos.give_dev(state, 0, DevCard.MONOPOLY)
    app, transport = client(state, 0, prompt(state, 0))
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        await press_choice(app, pilot, "play_year_of_plenty")
        assert isinstance(app.screen, CardDialog)
        rows = str(app.screen.grid.render()).splitlines()[1:]
        assert all(row.endswith("(at most 2)") for row in rows), rows  # the bank's, not a hand
        await pilot.press("down", "right", "down", "down", "right", "enter")
        await pilot.pause()
        assert sent(transport, state, 0).cards == (0, 1, 0, 1, 0)
        app.sent_for = None  # as if refused: the same prompt again
        app.refresh_all()
        await press_choice(app, pilot, "play_monopoly")
        assert isinstance(app.screen, ChoiceDialog)
        await pilot.press("down", "down", "enter")
        await pilot.pause()
        assert sent(transport, state, 0).resource == 2  # wool


async def test_trade_keys_say_why_when_there_is_nothing_to_trade() -> None:
    said: list[str] = []
    state = pos.setup_game(pos.config(players=3))
    pos.pre_roll(state, 0)
    app, transport = client(state, 0, prompt(state, 0))
    app.notify = lambda message, **_: said.append(message)  # type: ignore[method-assign]
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        await pilot.press("t", "b")  # before the roll
        await pilot.pause()
        assert said == ["Roll first: trades come after the roll."] * 2
    for seat, phase, why in (
        (1, Phase.PRE_ROLL, "Trades are made in your turn, after the roll."),
        (0, Phase.MOVE_ROBBER, "Move the robber first; trades come after."),
    ):
        said.clear()
        pos.main_phase(state, seat)
        state.phase, state.dice = phase, (3, 4)
        app, transport = client(state, 0, *([prompt(state, 0)] if seat == 0 else []))
        app.notify = lambda message, **_: said.append(message)  # type: ignore[method-assign]
        async with app.run_test(size=SIZE) as pilot:
            await pilot.pause()
            await pilot.press("t", "b")
            await pilot.pause()
            assert said == [why] * 2 and transport.sent == []
    said.clear()
    pos.main_phase(state, 0)
    pos.set_hand(state, 0, pos.counts(lumber=2, grain=2))  # 4:1 needs four of one
    app, transport = client(state, 0, prompt(state, 0))
    app.notify = lambda message, **_: said.append(message)  # type: ignore[method-assign]
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        await pilot.press("b")
        await pilot.pause()
        assert said == ["No bank trade now: it takes 4 of one resource (fewer at a harbour)."]
        assert not isinstance(app.screen, (CardDialog, ChoiceDialog)) and transport.sent == []


async def test_bank_trade_shows_the_ratios() -> None:
    state = pos.setup_game(pos.config(players=3))
    pos.main_phase(state, 0)
    pos.give(state, 0, pos.counts(grain=4))
    app, transport = client(state, 0, prompt(state, 0))
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        await pilot.press("b")
        await pilot.pause()
        assert isinstance(app.screen, ChoiceDialog)
        assert "grain 4:1" in str(app.screen.note)
        await pilot.press("enter")
        await pilot.pause()
        action = sent(transport, state, 0)
        assert action.give == 3 and action.ratio == 4


async def test_an_offer_is_made_answered_and_completed() -> None:
    state = pos.setup_game(pos.config(players=3))
    pos.main_phase(state, 0)
    pos.set_hand(state, 0, pos.counts(brick=2, wool=1))
    pos.set_hand(state, 1, pos.counts(lumber=2))
    app, transport = client(state, 0, prompt(state, 0))
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        await pilot.press("t")
        await pilot.pause()
        assert isinstance(app.screen, CardDialog)
        await pilot.press("right")  # give 1 brick
        await pilot.press(*["down"] * 6, "right")  # get 1 lumber
        await pilot.press("enter")
        await pilot.pause()
        offer = sent(transport, state, 0)
        assert isinstance(offer, OfferTrade)
        assert (offer.give, offer.get, offer.to) == ((1, 0, 0, 0, 0), (0, 1, 0, 0, 0), None)
        # The server applies it; Bo accepts; the offerer is prompted to confirm.
        transport.push(events(state, apply(state, offer), 0), prompt(state, 0))
        transport.push(events(state, apply(state, AcceptTrade(1)), 0), prompt(state, 0))
        await pilot.pause()
        hint = str(app.query_one("#hint").render())
        assert "You offer 1 brick for 1 lumber" in hint and "Bo: accepted" in hint
        assert "Cy: pending" in hint
        await press_choice(app, pilot, "confirm_trade")
        assert sent(transport, state, 0).partner == 1


def offered_to_everyone() -> GameState:
    """Bo (seat 1) offers a lumber for a brick to everyone; the client is seat 0."""
    state = pos.setup_game(pos.config(players=3))
    pos.main_phase(state, 1)
    pos.set_hand(state, 0, pos.counts(brick=2, wool=1))
    pos.set_hand(state, 1, pos.counts(lumber=2))
    apply(state, OfferTrade(1, (0, 1, 0, 0, 0), (1, 0, 0, 0, 0), None))
    return state


async def test_an_open_offer_fits_the_narrow_hint_at_80x24() -> None:
    from textual.geometry import Region

    state = pos.setup_game(pos.config(players=3))
    pos.main_phase(state, 0)
    pos.set_hand(state, 0, pos.counts(brick=2, wool=1))
    pos.set_hand(state, 1, pos.counts(lumber=2))
    offer = OfferTrade(0, (2, 0, 0, 0, 0), (0, 1, 0, 0, 0), None)
    first = events(state, apply(state, offer), 0)
    accepted = events(state, apply(state, AcceptTrade(1)), 0)
    app, _ = client(state, 0, first, accepted, prompt(state, 0))
    want = ["2 brick → 1", "lumber", "Bo ✓ yes", "Cy pending"]
    async with app.run_test(size=(80, 24)) as pilot:
        hint = app.query_one("#hint")
        for _ in range(100):  # the hint's height follows its text at the next refresh
            await pilot.pause()
            lines = [x.text.strip() for x in hint.render_lines(Region(0, 0, *hint.outer_size))]
            if lines[1:] == want:
                break
            await pilot.pause(0.02)
        assert lines[1:] == want, lines


async def test_an_offer_made_to_you_is_accepted_or_countered() -> None:
    state = offered_to_everyone()
    app, transport = client(state, 0, prompt(state, 0))
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        labels = [str(c.label) for c in app.choices]
        assert labels[0] == "Accept the offer: give 1 brick, get 1 lumber"
        assert [c.kind for c in app.choices] == ["accept_trade", "counter_trade", "decline_trade"]
        await press_choice(app, pilot, "counter_trade")
        assert isinstance(app.screen, CardDialog)
        assert app.screen.grid.counts == [[1, 0, 0, 0, 0], [0, 1, 0, 0, 0]]
        await pilot.press(*["down"] * 9, "right", "enter")  # ask for an ore as well
        await pilot.pause()
        counter = sent(transport, state, 0)
        assert (counter.give, counter.get) == ((1, 0, 0, 0, 0), (0, 1, 0, 0, 1))
        app.sent_for = None
        app.refresh_all()
        await press_choice(app, pilot, "accept_trade")
        assert isinstance(sent(transport, state, 0), AcceptTrade)


async def test_help_chat_banner_and_the_end() -> None:
    state = pos.setup_game(pos.config(players=3))
    seed = 987654321
    created = m.GameCreated(
        game=GAME, invite=None, seed_hash=hashlib.sha256(str(seed).encode()).hexdigest()
    )
    app, transport = client(state, 1, created)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        await pilot.press("question_mark")
        assert isinstance(app.screen, HelpScreen)
        await pilot.press("escape")
        assert not isinstance(app.screen, HelpScreen)
        await pilot.press("c")
        await pilot.press("h", "i", "enter")
        await pilot.pause()
        assert transport.sent[-1] == m.Chat(game=GAME, text="hi")
        transport.push(m.ChatMessage(game=GAME, seat=2, name="Cy", text="hello there"))
        await pilot.pause()
        assert "Cy: hello there" in [x.text for x in app.model.log]
        transport.set_status("lost", "connection reset")
        await pilot.pause()
        banner = app.query_one("#banner")
        assert banner.has_class("shown") and "Connection lost" in str(banner.render())
        transport.set_status("connected", "back")
        await pilot.pause()
        assert not banner.has_class("shown")
        transport.push(m.GameOver(game=GAME, winner=2, points=[4, 6, 10], seed=seed))
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, GameOverScreen)
        assert screen.headline() == "Cy won."
        text = " ".join(str(w.render()) for w in screen.query("Static"))
        assert "Cy" in text and "10 points" in text and "matches the hash" in text


async def test_a_spectator_is_offered_nothing() -> None:
    state = pos.setup_game(pos.config(players=3))
    app, transport = client(state, None)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        assert app.model.spectator and app.choices == []
        assert "hands are hidden" in str(app.query_one("#hand").render())
        await pilot.press("t", "b", "1")
        assert transport.sent == []
        await pilot.pause()
        footer = " ".join(str(k.render()) for k in app.query("FooterKey"))
        assert "chat" in footer and "trade" not in footer, footer  # no keys it cannot use


async def test_an_offer_goes_to_the_chosen_players_only() -> None:
    state = pos.setup_game(pos.config(players=4))
    pos.main_phase(state, 0)
    pos.set_hand(state, 0, pos.counts(brick=2, wool=1))
    pos.set_hand(state, 1, pos.counts(lumber=2))
    app, transport = client(state, 0, prompt(state, 0))
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        await pilot.press("t")
        await pilot.pause()
        dialog = app.screen
        assert isinstance(dialog, CardDialog)
        shown = str(dialog.query_one("#recipients").render())
        assert "To: 1☑ ██ Bo  2☑ ██ Cy  3☑ ██ Di" in shown
        await pilot.press("right", *["down"] * 6, "right")  # 1 brick for 1 lumber
        await pilot.press("1", "2", "3")  # nobody: not sendable
        assert "tick at least one player" in str(dialog.query_one("#problem").render())
        await pilot.press("enter")
        assert app.screen is dialog and not transport.sent
        await pilot.press("1", "3")  # Bo and Di
        assert "only the ticked players" in str(dialog.query_one("#recipients").render())
        await pilot.press("enter")
        await pilot.pause()
        offer = sent(transport, state, 0)
        assert isinstance(offer, OfferTrade) and offer.to == (1, 3)
        transport.push(events(state, apply(state, offer), 0), prompt(state, 0))
        await pilot.pause()
        hint = str(app.query_one("#hint").render())
        assert "You offer 1 brick for 1 lumber to Bo, Di" in hint
        assert "Bo: pending" in hint and "Cy" not in hint


class LateTransport(OfflineTransport):
    """A connection with one more message in flight when the app closes its widgets."""

    def __init__(self, messages: list[Any], late: Any) -> None:
        super().__init__(messages)
        self.late = late
        self.delivered_late = False

    async def run(self, deliver: Any, status: Any) -> None:
        try:
            await super().run(deliver, status)
        except asyncio.CancelledError:
            deliver(self.late)  # the app is shutting down: its screens are already gone
            self.delivered_late = True
            raise


async def test_a_message_arriving_while_the_app_closes_is_dropped_quietly() -> None:
    state = pos.setup_game(pos.config(players=3))
    chat = m.ChatMessage(game=GAME, seat=1, name=NAMES[1], text="bye")
    transport = LateTransport(opening(state, 0), chat)
    app = HexhavenApp(transport)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        assert app.model.view is not None
    assert transport.delivered_late  # and run_test raised nothing from the link's worker
    assert any("bye" in line.text for line in app.model.log)  # the model still took it in


async def test_the_offer_dialog_shows_its_keys_on_a_small_screen() -> None:
    """80x24 less a row (tmux's status line takes one)."""
    state = pos.setup_game(pos.config(players=4))
    pos.main_phase(state, 0)
    pos.set_hand(state, 0, pos.counts(brick=2, wool=1))
    app, _ = client(state, 0, prompt(state, 0))
    async with app.run_test(size=(80, 23)) as pilot:
        await pilot.pause()
        await pilot.press("t")
        await pilot.pause()
        dialog = app.screen
        assert isinstance(dialog, CardDialog)
        keys = dialog.query_one(".dialog-keys")
        box = dialog.query_one(".dialog").scrollable_content_region
        assert keys.region.height == 1 and keys.region.bottom <= box.bottom  # not cut
        assert "Esc back" in str(keys.render())


async def test_long_names_wrap_with_their_tick_boxes() -> None:
    from textual.geometry import Region

    state = pos.setup_game(pos.config(players=4))
    pos.main_phase(state, 0)
    names = ["you", "heuristic-1", "heuristic-2", "heuristic-3"]
    players = [
        m.PlayerInfo(seat=q, name=names[q], bot=q > 0, connected=True, away=False) for q in range(4)
    ]
    messages = opening(state, 0)
    messages[1] = m.Players(game=GAME, players=players)
    app = HexhavenApp(OfflineTransport([*messages, prompt(state, 0)]))
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        await pilot.press("t")
        for _ in range(100):  # the dialog is laid out at a refresh after it opens
            await pilot.pause()
            widget = app.screen.query_one("#recipients")
            lines = [s.text for s in widget.render_lines(Region(0, 0, *widget.outer_size))]
            if all(any(f"heuristic-{q}" in x for x in lines) for q in (1, 2, 3)):
                break
            await pilot.pause(0.02)
        for q in (1, 2, 3):
            line = next(x for x in lines if f"heuristic-{q}" in x)
            assert f"{q}☑" in line, lines  # the box and its name on one line


@pytest.mark.parametrize("size", [(80, 24), (80, 23)])
async def test_the_help_fits_a_small_screen_whole(size: tuple[int, int]) -> None:
    state = pos.setup_game(pos.config(players=4))
    app, _ = client(state, 0)
    async with app.run_test(size=size) as pilot:
        await pilot.pause()
        await pilot.press("question_mark")
        await pilot.pause()
        help_screen = app.screen
        assert isinstance(help_screen, HelpScreen)
        box = help_screen.query_one(".dialog").region
        keys = help_screen.query_one(".dialog-keys")
        assert box.bottom <= size[1] and keys.region.bottom <= box.bottom - 1
        assert "Esc close" in str(keys.render())
        texts = help_screen.query("Static")
        body = next(w for w in texts if "legal spot" in str(w.render()))
        assert body.region.height == len(str(body.render()).splitlines())  # no line wrapped


async def test_the_log_shows_its_latest_lines_after_a_resize() -> None:
    from textual.widgets import RichLog

    state = pos.setup_game(pos.config(players=4))
    pos.main_phase(state, 0)
    app, _ = client(state, 0, prompt(state, 0))
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.pause()
        for i in range(80):
            app.say("info", f"line {i}: " + "words " * 12)
        await pilot.pause()
        log = app.query_one("#log", RichLog)
        for size in ((160, 50), (100, 30)):
            await pilot.resize_terminal(*size)
            await pilot.pause()
            await pilot.pause()
            assert log.max_scroll_y > 0 and log.scroll_y == log.max_scroll_y


async def test_the_footer_keeps_its_keys_while_what_they_show_stays_the_same() -> None:
    """The footer is rebuilt (each key a new widget) only when a key comes or goes, not on
    every message the game sends."""
    state = pos.setup_game(pos.config(players=3))
    pos.main_phase(state, 0)
    app, _ = client(state, 0, prompt(state, 0))
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        keys = list(app.query("FooterKey"))
        assert "end turn" in footer_of(app)
        for _ in range(3):
            app.refresh_all()
            await pilot.pause()
        assert all(a is b for a, b in zip(app.query("FooterKey"), keys, strict=True))


async def test_the_footer_catches_up_when_the_terminal_is_back_in_focus() -> None:
    """A key that came while the terminal was out of focus (the footer is not rebuilt then)
    shows once it is back in focus."""
    state = pos.setup_game(pos.config(players=3))
    pos.pre_roll(state, 0)
    app, _ = client(state, 0, prompt(state, 0))
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        assert "end turn" not in footer_of(app)
        app.post_message(AppBlur())
        await pilot.pause()
        pos.main_phase(state, 0)
        app.deliver(prompt(state, 0))
        await pilot.pause()
        assert "end turn" not in footer_of(app)  # out of focus: not rebuilt
        app.post_message(AppFocus())
        await shown(pilot, lambda: "end turn" in footer_of(app))


async def test_an_offer_shows_the_seconds_before_it_closes() -> None:
    """The server's clock names the seats asked by an offer: the hint counts their window
    down, and the time left runs on the model's clock."""
    state = offered_to_everyone()
    now = [100.0]
    app, transport = client(state, 0)
    app.model.now = lambda: now[0]
    clock = m.Clock(
        game=GAME,
        state_id=state.actions_taken,
        seats=[m.SeatClock(seat=0, left=20.0), m.SeatClock(seat=2, left=20.0)],
    )
    async with app.run_test(size=SIZE) as pilot:
        hint = app.query_one("#hint", Static)
        transport.push(prompt(state, 0), clock)
        await shown(pilot, lambda: "closes in 20 s" in str(hint.render()))
        now[0] += 12.5
        app.refresh_hint()
        await shown(pilot, lambda: "closes in 8 s" in str(hint.render()))
