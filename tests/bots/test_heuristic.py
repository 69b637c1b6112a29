"""The heuristic bot plays legal, purposeful games from its seat's view alone."""

from __future__ import annotations

from typing import Any

import pytest

from bots import make_agent
from bots.heuristic import HeuristicAgent
from bots.random_player import RandomAgent
from clients.sdk import Table
from engine import AcceptTrade, CounterTrade, DeclineTrade, GameConfig, OfferTrade, apply
from engine.constants import CITY_COST, DEV_CARD_COST, SETTLEMENT_COST
from protocol import messages as m
from protocol.payloads import ConfirmTrade, ViewPayload
from tests.bots.prompts import prompt_for
from tests.engine.positions import config, counts, main_phase, set_hand, setup_game
from tournament.local import play_local


def test_heuristic_beats_three_random_players() -> None:
    wins = 0
    for seed in range(20):
        agents = [
            HeuristicAgent(seed),
            RandomAgent(seed + 1),
            RandomAgent(seed + 2),
            RandomAgent(seed + 3),
        ]
        state = play_local(agents, GameConfig(), seed).state
        assert state.is_over
        wins += state.winner == 0
    assert wins >= 16  # a quarter would be chance


@pytest.mark.parametrize("players", [2, 3, 4])
def test_heuristic_tables_finish_briskly(players: int) -> None:
    for seed in range(5):
        agents = [HeuristicAgent(seed * 10 + q) for q in range(players)]
        state = play_local(agents, GameConfig(players=players), seed).state
        assert state.is_over, "every move was legal and the game reached a winner"
        assert state.turn < 300


def test_heuristic_on_a_larger_spiral_board() -> None:
    agents = [HeuristicAgent(q) for q in range(3)]
    state = play_local(agents, GameConfig(players=3, board_setup="spiral", radius=4), 3).state
    assert state.is_over


def test_kinds_are_made_by_name() -> None:
    assert isinstance(make_agent("heuristic", 1), HeuristicAgent)
    assert isinstance(make_agent("random", 1), RandomAgent)
    with pytest.raises(ValueError, match="known kinds"):
        make_agent("oracle")


class _Watched(HeuristicAgent):
    """A heuristic player whose offers are kept with the view each was made from, and
    whose turns hold a declined offer."""

    def __init__(self, seed: int) -> None:
        super().__init__(seed)
        self.offered: list[tuple[ViewPayload, Any, bool]] = []  # view, offer, after a decline
        self.declined_turns: set[int] = set()

    def choose(self, prompt: m.Prompt, table: Table) -> Any:
        answer = super().choose(prompt, table)
        if getattr(answer, "kind", None) == "offer_trade":
            assert prompt.view is not None
            after = prompt.view.turn in self.declined_turns
            self.offered.append((prompt.view, answer, after))
        return answer

    def on_event(self, event: Any, table: Table) -> None:
        super().on_event(event, table)
        closed = getattr(event, "kind", None) == "trade_closed" and event.reason == "declined"
        if closed and event.seat == table.seat and table.view is not None:
            self.declined_turns.add(table.view.turn)


def test_heuristic_offers_one_spare_card_for_one_its_closest_build_lacks() -> None:
    offers = declined = 0
    for seed in range(3):
        agents = [_Watched(seed * 10 + q) for q in range(4)]
        state = play_local(agents, GameConfig(), seed).state
        assert state.is_over, "the offers were legal and the game reached a winner"
        for agent in agents:
            per_turn: dict[int, int] = {}
            for view, offer, after_decline in agent.offered:
                assert not after_decline, "no offer follows a declined one in a turn"
                give, want = offer.give.counts(), offer.get.counts()
                assert sum(give) == sum(want) == 1 and offer.to is None
                g, w = give.index(1), want.index(1)
                hand = view.hand.counts() if view.hand else (0,) * 5
                assert hand[g] >= 1, "it offers only a card it holds"
                assert view.seat is not None
                me = view.seats[view.seat]
                builds = [SETTLEMENT_COST] if me.settlements_left else []
                if me.cities_left and any(s == view.seat for _, s in view.settlements):
                    builds.append(CITY_COST)
                if view.development_deck:
                    builds.append(DEV_CARD_COST)
                lack = {c: sum(max(0, n - h) for h, n in zip(hand, c, strict=True)) for c in builds}
                fewest = min(lack.values())
                assert 0 < fewest <= 2
                assert any(
                    lack[c] == fewest and hand[w] < c[w] and hand[g] > c[g] for c in builds
                ), f"{offer} is aimed at a build it is closest to, from {hand}"
                per_turn[view.turn] = per_turn.get(view.turn, 0) + 1
            assert all(n <= 2 for n in per_turn.values())
            offers += len(agent.offered)
            declined += len(agent.declined_turns)
    assert offers > 0 and declined > 0


@pytest.mark.parametrize("accepted", [True, False])
def test_heuristic_offerer_confirms_an_acceptance_never_a_counter(accepted: bool) -> None:
    state = setup_game(config())
    main_phase(state, 0)
    set_hand(state, 0, counts(brick=2))
    for seat in (1, 2, 3):
        set_hand(state, seat, counts(wool=1, lumber=1))
    apply(state, OfferTrade(0, counts(brick=1), counts(wool=1), None))
    apply(state, CounterTrade(1, counts(lumber=1), counts(brick=2)))
    apply(state, AcceptTrade(2) if accepted else DeclineTrade(2))
    agent = HeuristicAgent(1)
    table = Table(game="t", seat=0)
    if accepted:  # seat 2 took it: no need to wait for seat 3
        assert agent.choose(prompt_for(state, 0), table) == ConfirmTrade(partner=2)
        return
    assert agent.choose(prompt_for(state, 0), table) is None  # seat 3 has not answered
    apply(state, DeclineTrade(3))
    assert agent.choose(prompt_for(state, 0), table).kind == "cancel_trade"
