"""The UCT search: configuration, move pruning, chance nodes, virtual wins, ensembles and
trade-optimistic moves, on hand-made positions."""

from __future__ import annotations

import os
import random
import signal
import subprocess
import sys
import time
from collections import Counter
from collections.abc import Callable
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from bots import playout
from bots.ensemble import Ensemble, Guess, SetupJob, TreeJob, run_setup, share
from bots.heuristic import Decision
from bots.playout import policy_move, rollout
from bots.uct import (
    EXPERIMENTS_COMMIT,
    RETIRED,
    ChorePolicy,
    MovePolicy,
    Node,
    RootStats,
    Search,
    SearchConfig,
    SetupPolicy,
    actor,
    assume_trades,
    network_rewards,
    optimistic_moves,
    position_rewards,
    pruned_actions,
    setup_search,
    setup_wins,
    winning_move,
)
from bots.uct import search as uct_search
from bots.uct_agent import STRENGTHS, UCTAgent
from bots.value.net import ValueNet
from engine import (
    BuildCity,
    BuildRoad,
    BuildSettlement,
    BuyDevCard,
    DevCard,
    EndTurn,
    GameConfig,
    GameState,
    MaritimeTrade,
    MoveRobber,
    Phase,
    PlayKnight,
    PlayYearOfPlenty,
    RollDice,
    apply,
    is_legal,
    legal_actions,
    new_game,
    rules,
    seats_to_act,
    view,
)
from engine.actions import Action
from engine.constants import CITY_COST, SETTLEMENT_COST, Resource
from protocol.payloads import action_from_engine, action_to_engine, view_from_engine
from tests.bots.test_value_net import played, random_net
from tests.engine.positions import (
    assert_conserved,
    build_roads,
    config,
    counts,
    force_roll,
    give_dev,
    main_phase,
    pre_roll,
    set_hand,
    setup_game,
)


def _main(seat: int = 0, hand: tuple[int, ...] = counts(), vp: int = 10) -> GameState:
    state = setup_game(config(victory_points=vp))
    main_phase(state, seat)
    set_hand(state, seat, hand)  # type: ignore[arg-type]
    return state


# --- configuration ---------------------------------------------------------------------------


def test_parameters_are_parsed_by_field_type() -> None:
    c = SearchConfig.from_params(
        {"rollouts": "500", "cp": "0.5", "virtual_wins": "yes", "time_ms": "250", "trees": "4"}
    )
    assert (c.rollouts, c.cp, c.virtual_wins, c.time_ms, c.trees) == (500, 0.5, True, 250.0, 4)
    assert SearchConfig.from_params({"pruning": "false"}).pruning is False
    assert SearchConfig.from_params({"final": "Mean"}).final == "mean"


@pytest.mark.parametrize(
    ("final", "trees", "rule"),
    [("auto", 1, "visits"), ("auto", 10, "mean"), ("visits", 10, "visits"), ("mean", 1, "mean")],
)
def test_the_final_rule_in_force_follows_the_ensemble_size_unless_set(
    final: str, trees: int, rule: str
) -> None:
    assert SearchConfig(final=final, trees=trees).move_rule == rule


@pytest.mark.parametrize(
    ("params", "message"),
    [
        ({"rollout": "5"}, "unknown search parameter 'rollout'"),
        ({"rollouts": "many"}, "bad value 'many' for rollouts"),
        ({"pruning": "maybe"}, "bad value 'maybe' for pruning"),
        ({"cp": "-1"}, "cp cannot be negative"),
        ({"rollout_turns": "-2"}, "rollout_turns cannot be negative"),
        ({"rollouts": "0"}, "needs a budget"),
        ({"trees": "0"}, "at least 1"),
        ({"final": "votes"}, "unknown final rule 'votes'"),
        ({"setup": "guess"}, "unknown setup policy 'guess'; known: search, rules, flat"),
        ({"chores": "maybe"}, "unknown chores policy 'maybe'; known: search, rules"),
        ({"margin": "-1"}, "margin cannot be negative"),
    ],
)
def test_bad_parameters_are_refused_by_name(params: dict[str, str], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        SearchConfig.from_params(params)


def test_policies_are_parsed_by_their_names() -> None:
    c = SearchConfig.from_params(
        {
            "setup": "Flat",
            "setup_rollouts": "50",
            "chores": "rules",
            "moves": "rules_unless_sure",
            "margin": "1.5",
        }
    )
    assert (c.setup, c.setup_rollouts, c.chores) == (SetupPolicy.FLAT, 50, ChorePolicy.RULES)
    assert (c.moves, c.margin) == (MovePolicy.RULES_UNLESS_SURE, 1.5)
    assert SearchConfig() == SearchConfig.from_params({"setup": "search", "moves": "search"})


@pytest.mark.parametrize(
    ("params", "message"),
    [
        ({"setup_rollouts": "200"}, "setup_rollouts=200 needs setup=flat, not setup=search"),
        (
            {"setup": "rules", "setup_rollouts": "200"},
            r"setup_rollouts=200 needs setup=flat, not setup=rules \(give setup_rollouts=0",
        ),
        ({"setup": "flat"}, "setup=flat needs setup_rollouts"),
        ({"margin": "1"}, "margin=1 needs moves=rules_unless_sure, not moves=search"),
        ({"moves": "rules_unless_sure"}, "moves=rules_unless_sure needs margin"),
        ({"aimed_offers": "true"}, "aimed_offers=true needs trade_optimistic=true"),
        (
            {"greedy_rollouts": "true", "rollout_pruning": "false"},
            "greedy_rollouts=true needs rollout_pruning=true",
        ),
    ],
)
def test_a_setting_without_the_one_it_depends_on_is_refused_naming_both(
    params: dict[str, str], message: str
) -> None:
    with pytest.raises(ValueError, match=message):
        SearchConfig.from_params(params)


def test_a_strength_s_policy_changed_alone_names_its_dependent_setting() -> None:
    medium = STRENGTHS["medium"]
    with pytest.raises(ValueError, match="setup_rollouts=200 needs setup=flat, not setup=rules"):
        SearchConfig.from_params({"setup": "rules"}, medium)
    with pytest.raises(ValueError, match="margin=1 needs moves=rules_unless_sure"):
        SearchConfig.from_params({"moves": "search"}, medium)
    plain = SearchConfig.from_params({"moves": "search", "margin": "0"}, medium)
    assert plain.moves is MovePolicy.SEARCH and plain.setup is SetupPolicy.FLAT


@pytest.mark.parametrize("name", sorted(RETIRED))
def test_a_retired_parameter_is_refused_naming_the_commit_that_has_it(name: str) -> None:
    with pytest.raises(ValueError, match=rf"'{name}' was retired.*{EXPERIMENTS_COMMIT}"):
        SearchConfig.from_params({name: "1"})


@pytest.mark.parametrize(
    ("name", "now"),
    [
        ("heuristic_setup", "setup=rules"),
        ("heuristic_chores", "chores=rules"),
        ("heuristic_default", "moves=rules_unless_sure with margin"),
    ],
)
def test_a_parameter_that_became_a_policy_is_refused_naming_the_policy(name: str, now: str) -> None:
    with pytest.raises(ValueError, match=rf"'{name}' is now {now}"):
        SearchConfig.from_params({name: "1"})


# --- move pruning (Algorithm 1) -------------------------------------------------------------


def test_pruning_keeps_only_cities_when_a_city_is_possible() -> None:
    state = _main(hand=counts(brick=1, lumber=1, wool=1, grain=3, ore=3))
    pruned = pruned_actions(state, 0, True)
    assert pruned and all(type(a) is BuildCity for a in pruned)
    assert {a.vertex for a in pruned} == {0, 6}  # type: ignore[union-attr]
    everything = pruned_actions(state, 0, False)
    assert set(pruned) < set(everything) and EndTurn(0) in everything


def test_pruning_keeps_only_settlements_when_no_city_is_possible() -> None:
    state = _main(hand=counts(brick=3, lumber=3, wool=1, grain=1))
    build_roads(state, 0, [25, 26])  # vertex 26: a spot two roads from vertex 6
    set_hand(state, 0, counts(brick=1, lumber=1, wool=1, grain=1))
    pruned = pruned_actions(state, 0, True)
    assert pruned and all(type(a) is BuildSettlement for a in pruned)


def test_pruning_leaves_everything_else_alone() -> None:
    state = _main(hand=counts(brick=1, lumber=1, ore=1))
    assert pruned_actions(state, 0, True) == legal_actions(state, 0)


def test_the_actor_is_the_first_seat_owing_a_discard_or_an_answer() -> None:
    state = _main()
    assert actor(state) == 0
    state.phase = 3  # discard
    state.owed = [0, 0, 4, 3]
    assert actor(state) == 2


def test_rollouts_end_in_a_win_and_keep_every_card() -> None:
    rnd = random.Random(1)
    winners = set()
    for seed in range(6):
        state = setup_game(config(), seed)
        state.rng = rnd.getrandbits(64)
        winner = rollout(state, rnd, prune=seed % 2 == 0)
        assert winner == state.winner and state.is_over
        assert_conserved(state)
        winners.add(winner)
    assert len(winners) > 1


# --- the search -----------------------------------------------------------------------------


def test_the_search_finds_an_immediate_win_without_pruning() -> None:
    # Three points win: seat 0 has two settlements and can make either a city (a win now)
    # or a road, a development card, or end its turn.
    state = _main(hand=counts(brick=1, lumber=1, wool=1, grain=3, ore=3), vp=3)
    config_ = SearchConfig(rollouts=300, pruning=False, rollout_pruning=False)
    stats = Search(state, 0, config_, random.Random(2)).run(300, None)
    assert type(stats.best()) is BuildCity
    assert stats.mean(stats.best()) == 1.0
    assert stats.rollouts == 300
    assert sum(stats.visits.values()) == 300


def test_the_search_leaves_its_root_state_untouched() -> None:
    state = _main(hand=counts(brick=2, lumber=2, wool=1, grain=1, ore=1))
    before = state.snapshot()
    Search(state, 0, SearchConfig(rollouts=50), random.Random(3)).run(50, None)
    assert state.snapshot() == before


def test_dice_lead_to_one_child_per_outcome() -> None:
    state = setup_game(config())
    pre_roll(state, 0)
    give_dev(state, 0, DevCard.KNIGHT)
    search = Search(state, 0, SearchConfig(rollouts=200), random.Random(4))
    search.run(200, None)
    root = search.root
    assert set(root.actions) == {RollDice(0), PlayKnight(0)}
    outcomes = root.children[root.actions.index(RollDice(0))]
    assert isinstance(outcomes, dict)
    assert len(outcomes) >= 8 and set(outcomes) <= set(range(2, 13))
    for total, child in outcomes.items():
        assert isinstance(child, Node)
        if total == 7:
            continue  # the robber comes first
        assert child.seat == 0 and child.actions  # the roller's main phase


def test_development_draws_are_chance_outcomes_too() -> None:
    state = _main(hand=counts(wool=1, grain=1, ore=1))
    config_ = SearchConfig(rollouts=200, pruning=False)
    search = Search(state, 0, config_, random.Random(5), root_actions=[BuyDevCard(0), EndTurn(0)])
    search.run(200, None)
    draws = search.root.children[0]
    assert isinstance(draws, dict) and len(draws) >= 2


def test_virtual_wins_start_settlements_at_twenty_and_cities_at_ten() -> None:
    state = _main(hand=counts(brick=1, lumber=1, wool=1, grain=3, ore=3))
    build_roads(state, 0, [25, 26])
    set_hand(state, 0, counts(brick=1, lumber=1, wool=1, grain=3, ore=3))
    config_ = SearchConfig(rollouts=40, pruning=False, virtual_wins=True)
    search = Search(state, 0, config_, random.Random(6))
    search.run(len(search.root.actions), None)  # every root action expanded once
    root = search.root
    for i, a in enumerate(root.actions):
        bonus = {BuildSettlement: 20, BuildCity: 10}.get(type(a), 0)
        assert root.visits[i] == bonus + 1, a
        assert root.wins[i] >= bonus


def test_a_time_budget_stops_the_search() -> None:
    state = _main(hand=counts(brick=2, lumber=2, wool=1, grain=1, ore=1))
    config_ = SearchConfig(rollouts=0, time_ms=200)
    start = time.monotonic()
    stats = Search(state, 0, config_, random.Random(7)).run(0, start + 0.2)
    assert stats.rollouts > 0
    assert time.monotonic() - start < 5  # stopped by the clock, not by a count


# --- ensembles (Equation 2) ------------------------------------------------------------------


def test_root_statistics_are_summed() -> None:
    a = RootStats({EndTurn(0): 3.0, RollDice(0): 1.0}, {EndTurn(0): 2.0, RollDice(0): 0.0}, 4)
    b = RootStats({EndTurn(0): 1.0, BuyDevCard(0): 5.0}, {EndTurn(0): 1.0, BuyDevCard(0): 4.0}, 6)
    a.add(b)
    assert a.visits == {EndTurn(0): 4.0, RollDice(0): 1.0, BuyDevCard(0): 5.0}
    assert a.wins == {EndTurn(0): 3.0, RollDice(0): 0.0, BuyDevCard(0): 4.0}
    assert a.rollouts == 10 and a.best() == BuyDevCard(0)


def test_the_final_rule_takes_the_most_visited_or_the_best_mean() -> None:
    end, buy, roll = EndTurn(0), BuyDevCard(0), RollDice(0)
    stats = RootStats({buy: 50.0, end: 30.0, roll: 0.0}, {buy: 20.0, end: 15.0, roll: 0.0})
    assert stats.best("visits") == buy  # 50 visits, mean 0.40
    assert stats.best("mean") == end  # mean 0.50; the untried move is not a candidate
    tie = RootStats({buy: 4.0, end: 2.0}, {buy: 2.0, end: 1.0})
    assert tie.best("mean") == buy  # equal means: the more visited
    assert stats.best_over(buy, 1.0, "mean") == buy  # 0.10 apart is within a standard error
    assert stats.best_over(buy, 0.0, "mean") == end


def test_the_heuristic_default_stands_unless_the_search_clearly_beats_it() -> None:
    end, buy, roll = EndTurn(0), BuyDevCard(0), RollDice(0)
    stats = RootStats({buy: 100.0, end: 60.0}, {buy: 30.0, end: 15.0}, 160)  # 0.30 vs 0.25
    assert stats.best() == buy
    assert stats.best_over(end, 0.0) == buy  # z = 0: the search's pick, as in the paper
    assert stats.best_over(end, 1.0) == end  # 0.05 apart is less than one standard error
    assert stats.best_over(None, 1.0) == buy
    assert stats.best_over(roll, 1.0) == buy  # never searched: nothing to weigh it by
    clear = RootStats({buy: 400.0, end: 200.0}, {buy: 200.0, end: 20.0}, 600)  # 0.5 vs 0.1
    assert clear.best_over(end, 2.0) == buy
    assert clear.best_over(buy, 2.0) == buy


def _truth(state: GameState) -> Guess:
    return Guess(
        hands=tuple(state.hand_of(q) for q in range(state.n)),
        development=tuple(state.dev_of(q) for q in range(state.n)),
        deck=tuple(state.deck),
        development_new=tuple(state.dev_new),
    )


@given(st.integers(0, 100_000), st.integers(1, 64))
def test_shares_add_up_and_differ_by_at_most_one(total: int, parts: int) -> None:
    shares = [share(total, parts, i) for i in range(parts)]
    assert sum(shares) == total
    assert max(shares) - min(shares) <= 1
    assert shares == sorted(shares, reverse=True)  # the larger shares come first


@pytest.mark.parametrize("processes", [1, 2])
def test_an_ensemble_of_trees_sums_their_rollouts(processes: int) -> None:
    state = _main(hand=counts(brick=2, lumber=2, wool=1, grain=1, ore=1))
    config_ = SearchConfig(rollouts=60, trees=3, processes=processes)
    jobs = [TreeJob(view(state, 0), _truth(state), 0, config_, 20, None, seed=t) for t in range(3)]
    ensemble = Ensemble(processes)
    try:
        stats = ensemble.run(jobs)
    finally:
        ensemble.close()
    assert stats.rollouts == 60
    assert sum(stats.visits.values()) == 60
    assert set(stats.visits) == set(pruned_actions(state, 0, True))


# --- trade-optimistic moves (Algorithm 2) ----------------------------------------------------


def test_builds_count_as_moves_when_the_hand_is_as_large_as_the_price() -> None:
    state = _main(hand=counts(brick=2, lumber=1, grain=1, ore=1))  # a road, nothing more
    moves = optimistic_moves(state, 0)
    kinds = {type(a) for a in moves}
    assert BuildCity in kinds and BuyDevCard in kinds
    assert all(not is_legal(state, a) for a in moves)
    assert BuildRoad not in kinds  # affordable already: an ordinary move
    small = _main(hand=counts(brick=1, grain=1))
    assert {type(a) for a in optimistic_moves(small, 0)} == {BuildRoad}


def test_assumed_trades_make_the_price_and_keep_every_card() -> None:
    state = _main(hand=counts(brick=3, grain=1, ore=1))
    set_hand(state, 1, counts(grain=2, ore=1))
    set_hand(state, 2, counts(ore=4))
    assert assume_trades(state, 0, CITY_COST)
    assert all(h >= c for h, c in zip(state.hand_of(0), CITY_COST, strict=True))
    assert min(state.hand) >= 0
    assert_conserved(state)
    again = _main(hand=counts(brick=3, grain=1, ore=1))
    set_hand(again, 1, counts(grain=2, ore=1))
    set_hand(again, 2, counts(ore=4))
    assume_trades(again, 0, CITY_COST)
    assert again.hand == state.hand  # deterministic: one tree node, one state


def test_assumed_trades_fail_when_the_hand_is_too_small() -> None:
    state = _main(hand=counts(brick=1, lumber=1, wool=1))
    before = state.snapshot()
    assert not assume_trades(state, 0, SETTLEMENT_COST)
    assert state.snapshot() == before


def test_a_search_with_optimistic_moves_may_choose_one() -> None:
    # Four cards, all brick: a settlement is affordable only through trades.
    state = _main(hand=counts(brick=4))
    build_roads(state, 0, [25, 26])
    set_hand(state, 0, counts(brick=4))
    for q in (1, 2, 3):
        set_hand(state, q, counts(lumber=2, wool=2, grain=2))
    moves = optimistic_moves(state, 0)
    assert BuildSettlement(0, 26) in moves
    search = Search(state, 0, SearchConfig(rollouts=200), random.Random(8), optimistic=moves)
    stats = search.run(200, None)
    assert set(moves) <= set(stats.visits)
    assert all(stats.visits[a] >= 1 for a in moves)


def test_greedy_and_planned_rollouts_end_in_a_win_keep_every_card_and_end_sooner() -> None:
    rnd = random.Random(11)
    actions = {}
    turns = {}
    for policy in ("random", "greedy", "planned"):
        actions[policy] = turns[policy] = 0
        for seed in range(4):
            state = setup_game(config(), seed)
            state.rng = rnd.getrandbits(64)
            winner = rollout(
                state, rnd, prune=True, greedy=policy == "greedy", planned=policy == "planned"
            )
            assert winner == state.winner and state.is_over
            assert_conserved(state)
            actions[policy] += state.actions_taken
            turns[policy] += state.turn
    assert actions["greedy"] < actions["random"]  # fewer idle bank trades and wandering roads
    assert turns["planned"] < turns["random"]  # builds come sooner than by random moves


def test_planned_rollouts_build_on_the_best_spot_and_trade_toward_the_next_build() -> None:
    cities = set()
    for seed in range(6):
        # Settlements on vertex 0 (12, 8: 6 dots) and 6 (12, 2, 3: 4 dots); one city.
        state = _main(0, counts(grain=2, ore=3))
        rollout(state, random.Random(seed), prune=True, turns=1, planned=True)
        cities.add(tuple(v for v in (0, 6) if state.vlevel[v] == 2))
    assert cities == {(0,)}

    def planned(state: GameState) -> Action:
        return playout._planned(state, legal_actions(state), random.Random(0))

    state = _main(0, counts(brick=4, grain=2, ore=2))  # an ore short of a city
    assert planned(state) == MaritimeTrade(0, Resource.BRICK, Resource.ORE, 4)
    state = _main(0, counts(brick=4, wool=1, grain=1, ore=1))  # three short: a card first
    assert type(planned(state)) is BuyDevCard
    state = _main(0, counts(brick=4, wool=1, grain=2, ore=2))  # one short: the trade first
    assert type(planned(state)) is MaritimeTrade
    state = _main(0)
    give_dev(state, 0, DevCard.KNIGHT)
    state.robber = 4  # fields 6, away from its buildings: the knight is kept
    assert type(planned(state)) is EndTurn
    state.robber = 2  # forest 8, next to its settlement on vertex 0: the knight drives it off
    assert type(planned(state)) is PlayKnight


class _NoNoise(random.Random):
    """A generator whose ``random()`` is always 0: the heuristic's tie-breaking noise off,
    so that it, like the rollout, takes the first of equally good moves."""

    def random(self) -> float:
        return 0.0


def test_rollout_chores_are_the_heuristic_players_robber_discards_and_knights() -> None:
    """On every robber move, discard and pre-roll choice of twelve games of heuristic
    players, the rollout's rule picks what the heuristic player picks."""
    seen: Counter[int] = Counter()
    for seed in range(12):
        state = new_game(config(), seed)
        while not state.is_over and state.actions_taken < 3000:
            q = seats_to_act(state)[0]
            actions = legal_actions(state, q)
            wire = [action_from_engine(a) for a in actions]
            pick = action_to_engine(
                Decision(view_from_engine(view(state, q)), wire, _NoNoise()).best(), q
            )
            chore = playout._chore(state, int(state.phase), actions)
            if state.phase in (Phase.MOVE_ROBBER, Phase.DISCARD, Phase.PRE_ROLL):
                assert chore == pick, (seed, state.phase)
                seen[int(state.phase)] += len(actions) > 1
            else:
                assert chore is None
            apply(state, pick)
    assert all(seen[int(p)] >= 5 for p in (Phase.MOVE_ROBBER, Phase.DISCARD, Phase.PRE_ROLL))


def test_rollouts_rob_by_the_heuristics_rule_only_with_chores() -> None:
    """One turn played on from a robber move: with the chores the robber lands where the
    heuristic's rule puts it, whatever the seed; without them, elsewhere in some seed."""
    state = setup_game(config(), 0)
    force_roll(state, 7)
    assert state.phase == Phase.MOVE_ROBBER
    rule = playout._chore(state, int(state.phase), legal_actions(state))
    assert isinstance(rule, MoveRobber)
    landed: dict[bool, set[int]] = {True: set(), False: set()}
    for chores in (True, False):
        for seed in range(8):
            trial = state.copy()
            rnd = random.Random(seed)
            trial.rng = rnd.getrandbits(64)
            assert rollout(trial, rnd, prune=True, turns=1, planned=True, chores=chores) == -2
            assert trial.turn == state.turn + 1
            landed[chores].add(trial.robber)
    assert landed[True] == {rule.hex}
    assert landed[False] - {rule.hex}


def test_the_policy_move_is_the_planned_rollouts_move_and_none_where_it_has_no_rule() -> None:
    # A city affordable: on the spot with the most dots, as the planned rollout builds it.
    state = _main(0, counts(grain=2, ore=3))
    assert policy_move(state, legal_actions(state), random.Random(0)) == BuildCity(0, 0)
    state = _main(0, counts(brick=4, grain=2, ore=2))  # an ore short: the bank trade
    trade = MaritimeTrade(0, Resource.BRICK, Resource.ORE, 4)
    assert policy_move(state, legal_actions(state), random.Random(0)) == trade
    # The robber by the chores' rule.
    state = setup_game(config(), 0)
    force_roll(state, 7)
    actions = legal_actions(state)
    rule = playout._chore(state, int(state.phase), actions)
    assert rule is not None and policy_move(state, actions, random.Random(0)) == rule
    # No rule for a set-up placement, unless there is only one choice.
    state = new_game(config(), 0)
    actions = legal_actions(state)
    assert len(actions) > 1 and policy_move(state, actions, random.Random(0)) is None
    assert policy_move(state, actions[:1], random.Random(0)) == actions[0]


def test_rollouts_cut_short_score_the_position() -> None:
    state = setup_game(config(), 3)
    start = state.turn
    rnd = random.Random(12)
    state.rng = rnd.getrandbits(64)
    assert rollout(state, rnd, prune=True, turns=8) == -2
    assert state.turn == start + 8 and not state.is_over
    shares = position_rewards(state)
    assert sum(shares) == pytest.approx(1.0) and all(0 < x < 1 for x in shares)
    leader = max(range(4), key=lambda q: state.victory_points(q))
    state.vp[leader] += 3  # three more points make a clear favourite
    assert position_rewards(state)[leader] > 0.5


def test_a_search_with_short_rollouts_still_finds_the_win() -> None:
    state = _main(hand=counts(brick=1, lumber=1, wool=1, grain=3, ore=3), vp=3)
    config_ = SearchConfig(rollouts=200, pruning=False, rollout_turns=4)
    stats = Search(state, 0, config_, random.Random(13)).run(200, None)
    assert type(stats.best()) is BuildCity


def test_the_search_scores_cut_rollouts_by_points_and_production(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    scored: list[list[float]] = []

    def score(state: GameState) -> list[float]:
        scored.append(position_rewards(state))
        return scored[-1]

    monkeypatch.setattr(uct_search, "position_rewards", score)
    state = _main(hand=counts(brick=1, lumber=1, wool=1, grain=3, ore=3), vp=6)
    config_ = SearchConfig(rollouts=20, pruning=False, rollout_turns=2)
    stats = Search(state, 0, config_, random.Random(5)).run(20, None)
    assert scored  # some rollouts were cut short and scored
    assert 0 < sum(stats.wins.values()) < 20  # shares of wins, not whole wins


def test_the_value_network_scores_a_position_by_absolute_seat_from_one_view(
    tmp_path: Path,
) -> None:
    path, _ = random_net(tmp_path, players=4)
    score = network_rewards(str(path), 4)
    net = ValueNet.load(path)
    state = played(4, 7, 300)
    for seat in range(4):
        shares = score(state, seat)
        relative = net.state_win(state, seat)  # row 0: the seat that looks
        assert shares == pytest.approx([relative[(q - seat) % 4] for q in range(4)], abs=1e-5)
        assert sum(shares) == pytest.approx(1.0)
    # What seat 0 cannot see (the others' cards, the deck's order) does not count.
    scrambled = state.copy()
    for q in (1, 2, 3):
        hand = scrambled.hand[q * 5 : q * 5 + 5]
        scrambled.hand[q * 5 : q * 5 + 5] = [sum(hand), 0, 0, 0, 0]
    assert score(scrambled, 0) == pytest.approx(score(state, 0), abs=1e-6)
    assert score(scrambled, 1) != pytest.approx(score(state, 1), abs=1e-6)


def test_a_search_with_the_network_at_its_leaves_scores_each_cut_from_its_seat(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    seen: list[int] = []

    def network(weights: str, players: int) -> Callable[[GameState, int], list[float]]:
        assert (weights, players) == ("", 4)

        def score(state: GameState, seat: int) -> list[float]:
            seen.append(seat)
            return [0.1, 0.1, 0.7, 0.1]

        return score

    monkeypatch.setattr(uct_search, "network_rewards", network)
    state = _main(seat=2, hand=counts(brick=1, lumber=1, wool=1, grain=3, ore=3), vp=10)
    config_ = SearchConfig(rollouts=30, pruning=False, rollout_turns=2, leaf="net")
    stats = Search(state, 2, config_, random.Random(5)).run(30, None)
    assert seen == [2] * 30  # no game is won in two turns: every rollout was scored
    assert all(stats.mean(a) == pytest.approx(0.7) for a, n in stats.visits.items() if n)


@pytest.mark.parametrize(
    ("params", "message"),
    [
        ({"leaf": "net"}, "leaf=net needs rollout_turns"),
        ({"leaf": "guess", "rollout_turns": "4"}, "unknown leaf score 'guess'"),
        ({"weights": "a.hvn", "rollout_turns": "4"}, "weights needs leaf=net"),
    ],
)
def test_the_network_leaf_is_refused_without_what_it_needs(
    params: dict[str, str], message: str
) -> None:
    with pytest.raises(ValueError, match=message):
        SearchConfig.from_params(params)


def test_a_uct_player_refuses_a_bad_network_file_before_it_plays(tmp_path: Path) -> None:
    path, _ = random_net(tmp_path, players=4)
    agent = UCTAgent.from_params({"rollout_turns": "8", "leaf": "net", "weights": str(path)})
    assert agent.config.weights == str(path)  # the file name keeps its case
    bad = tmp_path / "Broken.hvn"
    bad.write_bytes(b"not a network")
    with pytest.raises(ValueError, match=r"Broken\.hvn: not a value-network file"):
        UCTAgent.from_params({"rollout_turns": "8", "leaf": "net", "weights": str(bad)})


# --- a win this turn --------------------------------------------------------------------------


def _follow(state: GameState, seat: int) -> list[type]:
    """Play :func:`winning_move` until the game ends; the kinds of move played."""
    played: list[type] = []
    while not state.is_over:
        move = winning_move(state, seat)
        assert move is not None and is_legal(state, move)
        apply(state, move)
        played.append(type(move))
    return played


def test_a_win_through_a_bank_trade_is_found_and_the_position_left_alone() -> None:
    state = _main(0, counts(brick=4, grain=2, ore=2), vp=3)  # 2 points; a city wins
    before = state.snapshot()
    move = winning_move(state, 0)
    assert isinstance(move, MaritimeTrade) and (move.give, move.get) == (0, 4)
    assert state.snapshot() == before
    assert _follow(state, 0) == [MaritimeTrade, BuildCity]
    assert state.winner == 0


def test_a_win_through_year_of_plenty_or_the_largest_army_is_found() -> None:
    state = _main(0, counts(grain=2, ore=1), vp=3)
    give_dev(state, 0, DevCard.YEAR_OF_PLENTY)
    move = winning_move(state, 0)
    assert isinstance(move, PlayYearOfPlenty) and move.cards == counts(ore=2)
    assert _follow(state, 0) == [PlayYearOfPlenty, BuildCity] and state.winner == 0
    state = _main(0, vp=4)  # two points short: the largest army brings them
    state.knights[0] = 2
    give_dev(state, 0, DevCard.KNIGHT)
    assert winning_move(state, 0) == PlayKnight(0)


def test_no_move_is_named_when_no_line_wins_this_turn() -> None:
    hand = counts(brick=4, grain=2, ore=2)
    assert winning_move(_main(0, hand, vp=4), 0) is None  # one city: a point short
    assert winning_move(_main(0, hand, vp=10), 0) is None
    assert winning_move(_main(1, hand, vp=3), 0) is None  # not its turn
    state = _main(0, vp=5)
    state.knights[0] = 2
    give_dev(state, 0, DevCard.KNIGHT)  # the army alone falls a point short; the steal is chance
    assert winning_move(state, 0) is None
    state = _main(0, hand, vp=3)
    state.phase = Phase.PRE_ROLL
    assert winning_move(state, 0) is None


# --- set-up spots by flat Monte Carlo -----------------------------------------------------------


def favouring_rollout(place: int, seat: int, games: list[GameState]) -> Callable[..., int]:
    """A stand-in for the rollout: ``seat`` wins exactly the games where it settled on
    vertex ``place``; every game it is handed is kept in ``games``."""

    def fake(state: GameState, rnd: random.Random, prune: bool, *args: object, **kw: object) -> int:
        games.append(state.copy())
        return seat if state.vowner[place] == seat else (seat + 1) % state.n

    return fake


def test_setup_wins_tries_the_worthiest_spots_and_counts_their_wins(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    state = new_game(GameConfig(players=4), 9)
    before = (state.actions_taken, list(state.vowner))
    dots = playout.resource_dots(state, 0)
    spots = sorted(
        rules.setup_settlement_spots(state), key=lambda v: (-playout.spot_worth(state, dots, v), v)
    )
    favoured = spots[2]  # the third worthiest: not what the heuristic would place
    games: list[GameState] = []
    monkeypatch.setattr(setup_search, "rollout", favouring_rollout(favoured, 0, games))
    wins = setup_wins(state, 0, 5, 4, random.Random(1))
    table = state.acts[0].place_settlement
    assert list(wins) == [table[v] for v in spots[:4]]
    assert wins == {table[v]: 5 if v == favoured else 0 for v in spots[:4]}
    assert len(games) == 20
    for game in games:  # every seat's set-up done, by the rules, before the rollout
        assert game.phase == Phase.PRE_ROLL and game.current == 0
        assert all(len(game.pbuild[q]) == 2 for q in range(4))
    assert (state.actions_taken, list(state.vowner)) == before  # the state is left alone


def test_setup_wins_is_refused_when_no_settlement_is_due() -> None:
    state = new_game(GameConfig(players=4), 9)
    apply(state, playout.setup_move(state, random.Random(0)))  # a road is due now
    with pytest.raises(ValueError, match="places set-up settlements"):
        setup_wins(state, 0, 5, 1, random.Random(1))


def test_setup_wins_stops_at_the_deadline(monkeypatch: pytest.MonkeyPatch) -> None:
    state = new_game(GameConfig(players=4), 9)
    games: list[GameState] = []
    monkeypatch.setattr(setup_search, "rollout", favouring_rollout(0, 0, games))
    wins = setup_wins(state, 0, 1000, 3, random.Random(1), deadline=time.monotonic() - 1)
    assert len(wins) == 3 and set(wins.values()) == {0} and not games


def test_setup_rollouts_cannot_be_negative() -> None:
    with pytest.raises(ValueError, match="setup_rollouts"):
        SearchConfig(setup_rollouts=-1)


def test_set_up_jobs_in_worker_processes_sum_what_they_would_win_here() -> None:
    state = new_game(GameConfig(players=4), 9)
    jobs = [
        SetupJob(view(state, 0), _truth(state), 0, rollouts=3, spots=3, deadline=None, seed=s)
        for s in range(2)
    ]
    here: Counter[Action] = Counter()
    for job in jobs:
        here.update(run_setup(job))
    ensemble = Ensemble(2)
    try:
        there = ensemble.setup(jobs)
    finally:
        ensemble.close()
    assert there == dict(here) and len(there) == 3 and sum(there.values()) <= 2 * 3 * 3


_ORPHAN_SCRIPT = """
import multiprocessing, os, sys, time
from concurrent.futures import ProcessPoolExecutor
from bots.ensemble import exit_with_parent

if __name__ == "__main__":
    context = multiprocessing.get_context("spawn")
    pool = ProcessPoolExecutor(1, mp_context=context, initializer=exit_with_parent)
    print(pool.submit(os.getpid).result(), flush=True)
    pool.submit(time.sleep, 120)
    time.sleep(120)
"""


def _alive(pid: int) -> bool:
    """Whether a process runs (a zombie, ended but not yet reaped, does not)."""
    if not Path("/proc").is_dir():  # no /proc to tell zombies by: ask the kernel
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return False
        return True
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] != "Z"
    except FileNotFoundError:
        return False


def test_pool_workers_end_when_their_parent_is_killed(tmp_path: Path) -> None:
    script = tmp_path / "orphan.py"
    script.write_text(_ORPHAN_SCRIPT)
    parent = subprocess.Popen(
        [sys.executable, str(script)], stdout=subprocess.PIPE, text=True, cwd=Path.cwd()
    )
    worker = 0
    try:
        assert parent.stdout is not None
        worker = int(parent.stdout.readline())
        assert _alive(worker)
        parent.kill()  # no chance to stop its pool; the worker is mid-task
        parent.wait(10)
        deadline = time.monotonic() + 10
        while _alive(worker) and time.monotonic() < deadline:
            time.sleep(0.1)
        assert not _alive(worker)
    finally:
        parent.kill()
        if worker and _alive(worker):
            os.kill(worker, signal.SIGKILL)
