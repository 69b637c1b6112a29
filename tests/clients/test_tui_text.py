"""Small texts of the terminal UI: names cut to fit keep apart, and an offer's check says
what the server would refuse."""

from __future__ import annotations

import pytest

from clients.tui.app import swap_problem
from clients.tui.widgets import fit_name


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
