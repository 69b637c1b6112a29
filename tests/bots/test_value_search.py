"""The search over the value network: chance weighed exactly and played as weighed, a win
taken when there is one, and the ``expert`` bot's trades and views."""

from __future__ import annotations

import itertools
import random
from collections import Counter
from pathlib import Path

import pytest

from bots import make_agent, value_agent
from bots.belief import HandTracker
from bots.playout import brings_closer, heuristic_move
from bots.value.search import DICE_CHANCE, Chance, Search
from bots.value_agent import ExpertAgent, ExpertConfig, network, rule_swap
from clients.sdk import Agent, Table
from engine import GameConfig, new_game
from engine.actions import (
    AcceptTrade,
    BuyDevCard,
    CancelTrade,
    DeclineTrade,
    MoveRobber,
    OfferTrade,
    RollDice,
)
from engine.rules import advance, legal_actions
from engine.state import GameState, Phase
from engine.view import view
from tests.bots.prompts import prompt_for
from tests.bots.test_value_net import heuristic_game, played
from tournament.local import play_local


def at_phase(phase: Phase, seed: int = 0) -> GameState:
    """A state of a random game at ``phase``."""
    for s in range(seed, seed + 200):
        state = new_game(GameConfig(players=4), s)
        rnd = random.Random(s)
        for _ in range(3000):
            if state.is_over:
                break
            if state.phase == phase and state.turn > 8:
                return state
            legal = legal_actions(state)
            advance(state, legal[rnd.randrange(len(legal))])
    raise AssertionError(f"no game reached {phase.name}")


def test_the_chance_weights_sum_to_one() -> None:
    assert sum(p for _, p in DICE_CHANCE) == pytest.approx(1.0)
    assert len(DICE_CHANCE) == 11
    chance = Chance(hands={1: (0.0, 2.5, 0.5, 0.0, 1.0)}, unseen_development=(3, 1, 0, 2, 0))
    assert sum(chance.draw()) == pytest.approx(1.0)
    assert chance.draw()[2] == 0.0
    state = at_phase(Phase.MAIN)
    state.hand[5:10] = [0, 3, 1, 0, 0]
    assert sum(chance.steal(state, 1)) == pytest.approx(1.0)
    assert chance.steal(state, 1)[0] == 0.0
    state.hand[5:10] = [0, 0, 0, 0, 0]
    assert sum(chance.steal(state, 1)) == 0.0  # nothing to steal: no outcome to weigh


def test_each_roll_outcome_is_the_total_it_is_weighed_as() -> None:
    state = at_phase(Phase.PRE_ROLL)
    search = Search(network("", 4), state.current)
    outcomes = search.outcomes(state, RollDice(state.current))
    assert [sum(s.dice or (0, 0)) for _, s in outcomes] == [t for t, _ in DICE_CHANCE]
    assert [p for p, _ in outcomes] == [p for _, p in DICE_CHANCE]


def test_a_purchase_draws_each_kind_by_its_chance_and_the_deck_shrinks_by_one() -> None:
    state = at_phase(Phase.MAIN)
    me = state.current
    state.hand[me * 5 : me * 5 + 5] = [0, 0, 1, 1, 1]
    chance = Chance(unseen_development=(4, 0, 1, 1, 2))
    search = Search(network("", 4), me, chance)
    deck = sum(state.deck)
    outcomes = search.outcomes(state, BuyDevCard(me))
    assert [p for p, _ in outcomes] == pytest.approx([0.5, 0.125, 0.125, 0.25])
    for (_, s), kind in zip(outcomes, (0, 2, 3, 4), strict=True):
        assert s.dev[me * 5 + kind] == state.dev[me * 5 + kind] + 1
        assert sum(s.deck) == deck - 1


def test_a_steal_takes_each_resource_by_its_chance() -> None:
    state = at_phase(Phase.MOVE_ROBBER)
    me = state.current
    victims = [
        a for a in legal_actions(state, me) if isinstance(a, MoveRobber) and a.victim is not None
    ]
    if not victims:
        pytest.fail("the position has no victim to rob")
    action = victims[0]
    v = action.victim
    assert v is not None
    state.hand[v * 5 : v * 5 + 5] = [2, 0, 1, 0, 1]
    chance = Chance(hands={v: (1.0, 1.0, 1.0, 0.0, 1.0)})
    search = Search(network("", 4), me, chance)
    outcomes = search.outcomes(state, action)
    assert [p for p, _ in outcomes] == pytest.approx([0.25] * 4)
    for (_, s), r in zip(outcomes, (0, 1, 2, 4), strict=True):
        assert s.hand[me * 5 + r] == state.hand[me * 5 + r] + 1
        assert sum(s.hand[v * 5 : v * 5 + 5]) == 3


def test_a_move_that_wins_now_is_taken() -> None:
    """At 9 points with a city paid for, the search builds it (a won game scores 1)."""
    for seed in range(40):
        state = played(4, seed, 400)
        me = state.current
        if state.phase != Phase.MAIN or not any(
            state.vowner[v] == me and state.vlevel[v] == 1 for v in range(len(state.vowner))
        ):
            continue
        state.hand[me * 5 : me * 5 + 5] = [0, 0, 0, 2, 3]
        state.vp[me] = state.config.victory_points - 1 - state.dev[me * 5 + 1]
        best = Search(network("", 4), me).best(state)
        s = state.copy()
        advance(s, best.action)
        assert s.winner == me and best.value == 1.0
        return
    pytest.fail("no position to try")


def test_a_decision_out_of_time_scores_each_move_once_and_stops() -> None:
    """With its time up (an injected clock), the search looks no deeper than one move:
    the same choice as a search one deep, with as many evaluations."""
    for seed in range(40):
        state = played(4, seed, 300)
        if state.phase == Phase.MAIN and len(legal_actions(state, state.current)) > 3:
            break
    me = state.current
    now = [100.0]
    late = Search(network("", 4), me, depth=3, stop=50.0, clock=lambda: now[0])
    shallow = Search(network("", 4), me, depth=1)
    deep = Search(network("", 4), me, depth=3)
    assert late.best(state).action == shallow.best(state).action
    assert late.evaluations == shallow.evaluations
    deep.best(state)
    assert deep.evaluations > late.evaluations
    now[0] = 10.0  # before the stop: it looks deeper
    late.evaluations = 0
    late.best(state)
    assert late.evaluations == deep.evaluations


# --- the expert bot ---


def test_the_expert_looks_no_deeper_once_its_time_is_up() -> None:
    """Its clock (injected) runs ten seconds a reading: past the decision's time at once,
    it scores each move once, as a bot of depth 1 does, and still answers."""
    for seed in range(40):
        state = played(4, seed, 300)
        if state.phase == Phase.MAIN and len(legal_actions(state, state.current)) > 3:
            break
    me = state.current
    prompt = prompt_for(state, me)
    ticks = itertools.count(0.0, 10.0)
    late = ExpertAgent(ExpertConfig(offers=0), 0)
    late.clock = lambda: next(ticks)
    shallow = ExpertAgent(ExpertConfig(offers=0, depth=1), 0)
    on_time = ExpertAgent(ExpertConfig(offers=0), 0)
    table = Table(game="t", seat=me, players=[])
    answers = [a.choose(prompt, table) for a in (late, shallow, on_time)]
    assert all(answer in prompt.actions for answer in answers)
    assert late.evaluations == shallow.evaluations < on_time.evaluations


# --- what the bot decides ---------------------------------------------------------------


def test_the_expert_plays_whole_games_with_a_few_different_offers_a_turn() -> None:
    offers: list[tuple[int, int, OfferTrade]] = []

    class Watched(ExpertAgent):
        def decide(self, v, seat, legal, stop=None):  # type: ignore[no-untyped-def]
            action = super().decide(v, seat, legal, stop)
            if isinstance(action, OfferTrade):
                offers.append((v.turn, seat, action))
            return action

    agents: list[Agent] = [Watched(ExpertConfig(), 1), make_agent("heuristic", 2)]
    agents += [make_agent("heuristic", 3), Watched(ExpertConfig(depth=1), 4)]
    game = play_local(agents, GameConfig(players=4), 11)
    assert game.state.is_over
    assert offers  # it did offer
    per_turn = Counter((turn, seat) for turn, seat, _ in offers)
    assert all(n <= ExpertConfig().offers for n in per_turn.values())
    assert len({(t, q, o.give, o.get) for t, q, o in offers}) == len(offers)


def test_the_expert_makes_offers_of_its_own_beside_the_heuristics(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """With the heuristic's offer taken away, the offers it still makes are those the
    network scored: trades other seats are modelled as likely to take."""
    monkeypatch.setattr("bots.value_agent.rule_swap", lambda state, me: None)
    offers: list[OfferTrade] = []

    class Watched(ExpertAgent):
        def decide(self, v, seat, legal, stop=None):  # type: ignore[no-untyped-def]
            action = super().decide(v, seat, legal, stop)
            if isinstance(action, OfferTrade):
                offers.append(action)
            return action

    agents: list[Agent] = [Watched(ExpertConfig(), 1)]
    agents += [make_agent("heuristic", q) for q in (2, 3, 4)]
    game = play_local(agents, GameConfig(players=4), 12)
    assert game.state.is_over
    assert len(offers) >= 3


def test_an_offer_is_accepted_only_when_the_network_says_it_gains() -> None:
    """Whatever the heuristic's answer would be, an accepted offer is one the network
    scores as a gain to the seat; some are accepted, some declined."""
    net = network("", 4)
    seen = {True: 0, False: 0}
    for seed in range(40):
        state = played(4, seed, 300)
        if state.phase != Phase.MAIN or state.is_over:
            continue
        offerer = state.current
        me = (offerer + 1) % 4
        for give, get in (((1, 0, 0, 0, 0), (0, 0, 0, 0, 1)), ((0, 0, 0, 2, 0), (0, 1, 0, 0, 0))):
            state.hand[me * 5 : me * 5 + 5] = [1, 1, 1, 1, 1]
            state.hand[offerer * 5 : offerer * 5 + 5] = [2, 2, 2, 2, 2]
            s = state.copy()
            advance(s, OfferTrade(offerer, give, get, None))
            agent = ExpertAgent(ExpertConfig(), 0)
            seen_view = view(s, me)
            agent.tracker = HandTracker(seen_view)
            answer = agent.decide(seen_view, me, legal_actions(s, me))
            without = s.copy()
            advance(without, CancelTrade(offerer))
            with_trade = without.copy()
            for r in range(5):
                with_trade.hand[offerer * 5 + r] += get[r] - give[r]
                with_trade.hand[me * 5 + r] += give[r] - get[r]
            gain = Search(net, me).value(with_trade) - Search(net, me).value(without)
            accepted = isinstance(answer, AcceptTrade)
            assert accepted or isinstance(answer, DeclineTrade)
            assert not accepted or gain > 0
            seen[accepted] += 1
    assert seen[True] and seen[False]


def test_the_heuristic_offer_swaps_a_spare_card_for_one_the_nearest_build_lacks() -> None:
    state = at_phase(Phase.MAIN)
    me = state.current
    state.hand[me * 5 : me * 5 + 5] = [1, 1, 3, 0, 0]  # a settlement lacks one grain
    state.settlements_left[me] = 2
    swap = rule_swap(state, me)
    assert swap == ((0, 0, 1, 0, 0), (0, 0, 0, 1, 0))
    state.hand[me * 5 : me * 5 + 5] = [0, 0, 0, 0, 0]  # nothing spare
    assert rule_swap(state, me) is None
    state.hand[me * 5 : me * 5 + 5] = [1, 1, 1, 1, 0]  # a settlement paid for already
    assert rule_swap(state, me) is None


def test_the_expert_decides_alike_whatever_the_hidden_cards_are() -> None:
    """Two games alike in all a seat sees, but the other seats' hands (cards swapped
    between them, counts kept) and the deck's order: the same decisions."""
    states, _ = heuristic_game(321)
    decided = 0
    for state in states[60::25]:
        me = state.current
        if state.phase not in (Phase.MAIN, Phase.PRE_ROLL):
            continue
        a, b = [q for q in range(4) if q != me][:2]
        other = state.copy()
        ha, hb = other.hand[a * 5 : a * 5 + 5], other.hand[b * 5 : b * 5 + 5]
        if sum(ha) != sum(hb) or ha == hb:
            other.deck = other.deck[::-1] if sum(other.deck) else other.deck
        else:
            other.hand[a * 5 : a * 5 + 5], other.hand[b * 5 : b * 5 + 5] = hb, ha
        other.rng_hi, other.rng_lo = 7, 99
        moves = []
        for s in (state, other):
            agent = ExpertAgent(ExpertConfig(), 5)
            seen = view(s, me)
            agent.tracker = HandTracker(seen)
            moves.append(agent.decide(seen, me, legal_actions(s, me)))
        assert moves[0] == moves[1]
        decided += 1
    assert decided >= 3


def test_expert_settings_are_checked(tmp_path: Path) -> None:
    assert ExpertAgent.from_params({"strength": "fast"}).config.depth == 1
    assert ExpertConfig.from_params({"batched": "false", "margin": "0.1"}).batched is False
    with pytest.raises(ValueError, match="bad value 'inf' for margin"):
        make_agent("expert", 0, {"margin": "inf"})
    with pytest.raises(ValueError, match="no parameter 'rollouts'"):
        make_agent("expert", 0, {"rollouts": "5"})
    with pytest.raises(ValueError, match="unknown strength"):
        make_agent("expert", 0, {"strength": "godlike"})
    with pytest.raises(ValueError, match="bad value 'deep' for depth"):
        make_agent("expert", 0, {"depth": "deep"})
    bad = tmp_path / "x.hvn"
    bad.write_bytes(b"nope")
    with pytest.raises(ValueError, match="not a value-network file"):
        make_agent("expert", 0, {"weights": str(bad)})


def test_an_expert_without_a_view_still_answers() -> None:
    state = at_phase(Phase.PRE_ROLL)
    prompt = prompt_for(state, state.current).model_copy(update={"view": None})
    agent = ExpertAgent(ExpertConfig(), 0)
    assert agent.choose(prompt, Table(game="t", seat=state.current, players=[])) in prompt.actions


def test_a_flat_setup_places_the_spot_its_games_won_most_and_the_roads_by_rules(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    state = new_game(GameConfig(players=4), 3)
    me = state.current
    legal = legal_actions(state, me)
    asked: list[tuple[int, int, float | None]] = []

    def wins(
        s: GameState, seat: int, rollouts: int, keep: int, rnd: random.Random, deadline: object
    ) -> dict[object, int]:
        asked.append((seat, rollouts, deadline))  # type: ignore[arg-type]
        return {legal[0]: 3, legal[5]: 9, legal[7]: 9}  # a tie: the first (worthier) one

    monkeypatch.setattr(value_agent, "setup_wins", wins)
    agent = ExpertAgent.from_params({"setup": "flat", "setup_rollouts": "30"}, 0)
    seen = view(state, me)
    agent.tracker = HandTracker(seen)
    assert agent.decide(seen, me, legal) == legal[5]
    assert asked == [(me, 30, None)]  # no turn timer: nothing cuts it short
    advance(state, legal[5])
    roads = legal_actions(state, me)
    seen = view(state, me)
    agent.tracker = HandTracker(seen)
    assert agent.decide(seen, me, roads) == heuristic_move(state, me, roads, random.Random(0))
    assert len(asked) == 1
    with pytest.raises(ValueError, match="setup_rollouts must be at least 1"):
        ExpertConfig.from_params({"setup": "flat", "setup_rollouts": "0"})
    with pytest.raises(ValueError, match="search, rules or flat, not 'guess'"):
        ExpertConfig.from_params({"setup": "guess"})


def test_a_seat_is_modelled_to_take_a_trade_its_next_build_needs_with_takers_either(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    state = at_phase(Phase.MAIN)
    me = state.current
    others = [q for q in range(4) if q != me]
    for q in others:  # no settlement to upgrade, settlements left: each saves for a settlement
        state.hand[q * 5 : q * 5 + 5] = [1, 1, 0, 1, 1]  # brick, lumber, grain, ore; no wool
        state.cities_left[q] = 0
    wool_for_ore = ((0, 0, 1, 0, 0), (0, 0, 0, 0, 1))  # we give wool, ask for ore
    ore_for_wool = ((0, 0, 0, 0, 1), (0, 0, 1, 0, 0))  # asks for the wool they lack
    assert brings_closer(state, others[0], wool_for_ore[1], wool_for_ore[0])
    assert not brings_closer(state, others[0], ore_for_wool[1], ore_for_wool[0])
    taken = {}
    for takers in ("net", "either"):
        agent = ExpertAgent(ExpertConfig(takers=takers), 0)
        agent.tracker = HandTracker(view(state, me))
        sure = {q: {tuple(state.hand[q * 5 : q * 5 + 5]): 1.0} for q in others}
        monkeypatch.setattr(agent.tracker, "distribution", sure.__getitem__)
        search = agent._search(me, 4, None)
        monkeypatch.setattr(search, "chances", lambda pairs: [0.3] * len(pairs))  # no gains
        taken[takers] = agent._taken(state, search, [wool_for_ore, ore_for_wool])
    assert taken["net"] == [(0.0, 0.0), (0.0, 0.0)]  # the network sees no seat gain
    assert taken["either"] == [(1.0, 0.0), (0.0, 0.0)]  # they lack wool: they take it
    with pytest.raises(ValueError, match="takers must be net or either"):
        ExpertConfig.from_params({"takers": "all"})
