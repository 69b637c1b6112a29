"""The demo match and the plain-sentence narration of events."""

from __future__ import annotations

from app.cli import main
from app.demo import play_demo
from clients.narrate import Narrator, cards_text
from engine import DevCard, GameConfig, Resource, events


def test_demo_plays_to_a_winner_and_tells_it() -> None:
    lines: list[str] = []
    state = play_demo(4, GameConfig(players=3), lines.append)
    assert state.is_over
    assert lines[0].startswith("Hexhaven demo: 3 heuristic bots, seed 4")
    assert any(line.startswith("ring 2:") for line in lines)
    assert any(" rolled " in line for line in lines)
    winner = ("Ana", "Bo", "Cy")[state.winner]
    assert [line for line in lines if " won" in line] == [
        next(line for line in lines if line.startswith(f"{winner} won on turn {state.turn}"))
    ]  # the result, once


def test_demo_names_places_as_the_terminal_client_does() -> None:
    """By the hexes around them ("grain 6 / ore 5 / wool 9"), never by an engine id."""
    import re

    lines: list[str] = []
    play_demo(4, GameConfig(players=3), lines.append)
    told = "\n".join(lines)
    assert not re.search(r"intersection \d|path \d|hex \d|\d+:[a-z]", told), told[:2000]
    assert re.search(r"built a settlement at \w+ \d+ / \w+", told)
    assert re.search(r"built a road (between|on the)", told)
    assert re.search(r"moved the robber to \w+", told)
    assert "ring 1: " in told


def test_quiet_demo_prints_only_the_result(capsys: object) -> None:
    assert main(["demo", "--quiet", "--seed", "2", "--players", "2"]) == 0
    out = capsys.readouterr().out.splitlines()  # type: ignore[attr-defined]
    assert len(out) == 4  # header, result, two hands
    assert " won on turn " in out[1]


def test_narration_speaks_to_the_viewer_and_keeps_secrets() -> None:
    n = Narrator(["Ana", "Bo"], viewer=1)
    assert n.describe(events.Stolen(0, 1, Resource.ORE)) == "Ana stole 1 ore from you"
    assert n.describe(events.Stolen(0, 1, None)) == "Ana stole a card from you"
    assert n.describe(events.DiceRolled(1, (3, 5))) == "you rolled 8 (3+5)"
    assert n.describe(events.DevCardPlayed(0, DevCard.KNIGHT)) == "Ana played a knight"
    assert n.describe(events.LongestRoadChanged(1, 6)) == "you hold the longest road (6)"
    assert n.describe(events.LongestRoadChanged(0, 5)) == "Ana holds the longest road (5)"
    assert cards_text((0, 2, 0, 1, 0)) == "2 lumber, 1 grain"
    assert cards_text((0, 0, 0, 0, 0)) == "nothing"


def test_a_sentence_gets_a_capital_but_a_name_stays_as_written() -> None:
    n = Narrator(["heuristic-1", "you", "al"], viewer=1)  # the viewer's name is never used
    assert n.capital("you rolled 8 (3+5)") == "You rolled 8 (3+5)"
    assert n.capital("your offer is off (declined)") == "Your offer is off (declined)"
    assert n.capital("heuristic-1 rolled 3 (1+2)") == "heuristic-1 rolled 3 (1+2)"
    assert n.capital("heuristic-1's offer is off") == "heuristic-1's offer is off"
    assert n.capital("also a sentence") == "Also a sentence"  # "al" is not a word of it
    assert n.capital("") == ""


def test_trade_lines_agree_with_you_and_with_a_name() -> None:
    n = Narrator(["Ana", "Bo"], viewer=1)
    brick, wool = (1, 0, 0, 0, 0), (0, 0, 1, 0, 0)
    assert n.describe(events.TradeOffered(1, brick, wool, (0,))) == (
        "you offer 1 brick for 1 wool to Ana"
    )
    assert n.describe(events.TradeOffered(0, brick, wool, (1,))) == (
        "Ana offers 1 brick for 1 wool to you"
    )
    assert n.describe(events.TradeAnswered(1, "decline")) == "you decline"
    assert n.describe(events.TradeAnswered(0, "accept")) == "Ana accepts"
    assert n.describe(events.TradeAnswered(1, "counter", wool, brick)) == (
        "you counter: 1 wool for 1 brick"
    )
    assert n.describe(events.TradeClosed(1, "declined")) == "nobody took your offer"
    assert n.describe(events.TradeClosed(0, "declined")) == "nobody took Ana's offer"
    assert n.describe(events.TradeClosed(0, "cancelled")) == "Ana withdrew the offer"
    assert n.describe(events.TradeClosed(1, "cancelled")) == "you withdrew your offer"
