"""The ``uct`` bot as a player: parameters, whole games through the in-process runner (the
same prompts, views and events as from a server), its 1:1 offers and its answers."""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import replace
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from bots import make_agent
from bots.belief import HandTracker
from bots.ensemble import SetupJob, TreeJob
from bots.heuristic import CITY, DEV_CARD, SETTLEMENT, HeuristicAgent
from bots.playout import resource_dots, spot_worth
from bots.uct import (
    SETUP_SPOTS,
    ChorePolicy,
    MovePolicy,
    RootStats,
    SearchConfig,
    SetupPolicy,
    optimistic_moves,
    setup_search,
)
from bots.uct_agent import (
    AIMED_RETRIES,
    OFFERS_PER_TURN,
    QUICK_TIME_MS,
    STRENGTHS,
    UCTAgent,
    acceptance,
)
from clients.sdk import Agent, Table
from engine import (
    BuildCity,
    BuildSettlement,
    BuyDevCard,
    EndTurn,
    GameConfig,
    Phase,
    PlaceSettlement,
    apply,
    events,
    legal_actions,
    new_game,
    view,
)
from engine.actions import Action
from engine.rules import setup_settlement_spots
from protocol import messages as m
from protocol.payloads import OfferTrade, action_from_engine, action_to_engine
from tests.bots.prompts import prompt_for
from tests.bots.test_uct import favouring_rollout
from tests.engine.positions import (
    config,
    counts,
    force_roll,
    main_phase,
    pre_roll,
    set_hand,
    setup_game,
    touching_reds,
)
from tournament.local import play_local


def test_kinds_strengths_and_parameters_make_the_configuration() -> None:
    plain = make_agent("uct", 1, {})
    assert isinstance(plain, UCTAgent) and plain.config == STRENGTHS["medium"]
    hard = make_agent("uct", 1, {"strength": "hard", "rollouts": "50"})
    assert isinstance(hard, UCTAgent)
    assert hard.config.rollouts == 50 and hard.config.trees == STRENGTHS["hard"].trees
    tuned = make_agent("uct", 1, {"rollouts": "300", "virtual_wins": "true", "pruning": "0"})
    assert isinstance(tuned, UCTAgent)
    assert tuned.config == SearchConfig(rollouts=300, virtual_wins=True, pruning=False)
    with pytest.raises(ValueError, match="unknown strength 'extreme'"):
        make_agent("uct", 1, {"strength": "extreme"})
    with pytest.raises(ValueError, match="takes no parameters"):
        make_agent("heuristic", 1, {"rollouts": "5"})


def test_an_ensemble_plays_the_best_mean_and_one_tree_the_most_visited() -> None:
    end, buy = EndTurn(0), BuyDevCard(0)
    stats = RootStats({buy: 50.0, end: 30.0}, {buy: 20.0, end: 15.0})  # means 0.40, 0.50
    assert UCTAgent(SearchConfig())._pick(stats) == buy
    assert UCTAgent(SearchConfig(trees=10))._pick(stats) == end
    assert UCTAgent(SearchConfig(trees=10, final="visits"))._pick(stats) == buy
    # the named strengths play the rule they were measured with
    assert (STRENGTHS["medium"].move_rule, STRENGTHS["hard"].move_rule) == ("mean", "mean")


def test_medium_and_hard_are_named_policies_over_the_paper_s_ensemble() -> None:
    medium = STRENGTHS["medium"]
    assert (medium.setup, medium.setup_rollouts) == (SetupPolicy.FLAT, 200)
    assert medium.chores is ChorePolicy.RULES
    assert (medium.moves, medium.margin) == (MovePolicy.RULES_UNLESS_SURE, 1.0)
    assert medium.trade_optimistic and medium.aimed_offers and medium.win_check
    assert (medium.rollouts, medium.trees) == (1000, 10)
    easy = STRENGTHS["easy"]
    assert easy == SearchConfig(rollouts=200)
    assert (easy.setup, easy.chores, easy.moves) == (
        SetupPolicy.SEARCH,
        ChorePolicy.SEARCH,
        MovePolicy.SEARCH,
    )


def test_hard_plays_as_medium_with_more_search() -> None:
    medium, hard = STRENGTHS["medium"], STRENGTHS["hard"]
    budgets = ("rollouts", "setup_rollouts", "processes")
    assert replace(hard, **{name: getattr(medium, name) for name in budgets}) == medium
    assert all(getattr(hard, name) > getattr(medium, name) for name in budgets)


def test_quick_plays_as_medium_stopped_at_its_time_budget() -> None:
    medium, quick = STRENGTHS["medium"], STRENGTHS["quick"]
    assert medium.time_ms is None and quick.time_ms == QUICK_TIME_MS
    assert replace(quick, time_ms=None) == medium


class Recorder:
    """Counts what seat 0 did in the public event stream."""

    def __init__(self) -> None:
        self.offers = 0
        self.answers: dict[str, int] = {}
        self.trades = 0

    def __call__(self, event: events.Event) -> None:
        if isinstance(event, events.TradeOffered) and event.seat == 0:
            self.offers += 1
        if isinstance(event, events.TradeAnswered) and event.seat == 0:
            self.answers[event.answer] = self.answers.get(event.answer, 0) + 1
        if isinstance(event, events.TradeCompleted) and 0 in (event.offerer, event.partner):
            self.trades += 1


@pytest.mark.parametrize("aimed", ["false", "true"])
def test_a_trading_uct_bot_plays_whole_games_with_legal_moves_only(aimed: str) -> None:
    seen = Recorder()
    for seed in range(2):
        params = {"rollouts": "24", "trees": "2", "trade_optimistic": "1", "aimed_offers": aimed}
        bot = make_agent("uct", seed, params)
        agents = [bot, *(HeuristicAgent(seed * 10 + q) for q in (1, 2, 3))]
        game = play_local(agents, GameConfig(victory_points=6), seed, watch=seen)
        assert game.state.is_over  # every answer was legal, or play_local would have raised
        assert game.decisions[0] > 10
    assert seen.offers > 0  # trade-optimistic moves won some searches and became offers


class Offerer(Agent):
    """Offers seat 0 one card of what it holds most of for one of what it holds least of,
    on every turn it can, then plays like the heuristic bot (and answers others' offers as
    it does)."""

    name = "offerer"

    def __init__(self) -> None:
        self.inner = HeuristicAgent(5)
        self.turn = -1

    def choose(self, prompt: m.Prompt, table: Table) -> Any:
        view = prompt.view
        assert view is not None and view.hand is not None
        hand = view.hand.counts()
        if view.trade is not None and view.trade.offerer == view.seat:
            answers = view.trade.answers
            confirm = [a for a in prompt.actions if a.kind == "confirm_trade"]
            if answers[0] in ("accepted", "countered") and confirm:
                return confirm[0]  # (a counter it cannot pay for is not listed)
            if "pending" in answers:
                return None
            return next(a for a in prompt.actions if a.kind == "cancel_trade")
        if view.phase == "main" and view.turn != self.turn and any(hand):
            self.turn = view.turn
            most = max(range(5), key=lambda r: hand[r])
            least = min(range(5), key=lambda r: hand[r])
            if most != least:
                give = [0] * 5
                get = [0] * 5
                give[most] = get[least] = 1
                names = ("brick", "lumber", "wool", "grain", "ore")
                return OfferTrade(
                    give=dict(zip(names, give, strict=True)),  # type: ignore[arg-type]
                    get=dict(zip(names, get, strict=True)),  # type: ignore[arg-type]
                    to=[0],
                )
        return self.inner.choose(prompt, table)


def test_offers_made_to_it_get_searched_answers() -> None:
    seen = Recorder()
    bot = make_agent("uct", 2, {"rollouts": "30"})
    agents = [bot, Offerer(), HeuristicAgent(2)]
    game = play_local(agents, GameConfig(players=3, victory_points=6), 4, watch=seen)
    assert game.state.is_over
    assert sum(seen.answers.values()) >= 3
    assert set(seen.answers) == {"accept", "decline"}  # not the same answer every time


def test_a_turn_timer_bounds_the_search() -> None:
    bot = UCTAgent(SearchConfig(rollouts=10**9), seed=2)  # the rollout count never ends it
    state = setup_game(config())
    main_phase(state, 0)
    set_hand(state, 0, counts(brick=2, lumber=2, wool=1, grain=1))
    prompt = prompt_for(state, 0, 0.6)
    start = time.monotonic()
    payload = bot.choose(prompt, Table(game="t", seat=0))
    assert payload in prompt.actions
    assert time.monotonic() - start < 5  # the timer, not the rollout count, ended it
    assert bot.last_stats is not None and bot.last_stats.rollouts > 0


@pytest.mark.parametrize("bound", ["timer", "time_ms"])
def test_two_searches_in_one_decision_answer_inside_the_turn_timer(bound: str) -> None:
    """The trade-optimistic search picks a build that only trades would pay for, no offer
    is worth making, and the bot searches again: both searches together fit the timer, or
    the decision's ``time_ms``."""
    time_ms = 600.0 if bound == "time_ms" else None
    config_ = SearchConfig(
        rollouts=10**9, time_ms=time_ms, trade_optimistic=True, aimed_offers=True
    )
    bot = UCTAgent(config_, seed=3)
    state = setup_game(config())
    main_phase(state, 0)
    for seat in (1, 2, 3):
        set_hand(state, seat, counts())  # nobody could take a swap: no offer is made
    set_hand(state, 0, counts(brick=5))  # a city only through trades
    build = next(a for a in optimistic_moves(state, 0) if isinstance(a, BuildCity))
    picks: list[Action] = [build, EndTurn(0)]
    searches: list[bool] = []

    def run(jobs: Sequence[TreeJob]) -> RootStats:
        searches.append(bool(jobs[0].optimistic))
        deadline = max(job.deadline for job in jobs if job.deadline is not None)
        time.sleep(max(0.0, deadline - time.monotonic()))  # a search that uses all its time
        pick = picks[len(searches) - 1]
        return RootStats({pick: 1.0}, {pick: 1.0})

    bot.ensemble.run = run  # type: ignore[method-assign]
    timer = 2.0 if time_ms is None else None
    start = time.monotonic()
    payload = bot.choose(prompt_for(state, 0, timer), Table(game="t", seat=0))
    took = time.monotonic() - start
    assert searches == [True, False]  # the optimistic search, then the plain one
    assert payload == action_from_engine(EndTurn(0))
    if timer is not None:
        assert took < timer - 0.3  # answered with the margin kept for the answer to travel
    else:  # the second search had what the first left (50 ms), not a budget of its own
        assert took < 0.95


@pytest.mark.parametrize(("trees", "processes", "waves"), [(3, 1, 3), (4, 2, 2), (2, 2, 1)])
def test_trees_that_run_in_turn_share_the_time(trees: int, processes: int, waves: int) -> None:
    bot = UCTAgent(SearchConfig(rollouts=0, time_ms=900, trees=trees, processes=processes))
    state = setup_game(config())
    main_phase(state, 0)
    set_hand(state, 0, counts(brick=2, lumber=2, wool=1, grain=1))
    seen: list[TreeJob] = []

    def run(jobs: Sequence[TreeJob]) -> RootStats:
        seen.extend(jobs)
        return RootStats({EndTurn(0): 1.0}, {EndTurn(0): 0.0})

    bot.ensemble.run = run  # type: ignore[method-assign]
    bot.tracker = HandTracker(view(state, 0))
    start = time.monotonic()
    bot.decide(view(state, 0), 0, legal_actions(state, 0), None)
    ends = sorted({round(job.deadline - start, 1) for job in seen if job.deadline})
    assert len(seen) == trees and len(ends) == waves
    assert ends[-1] == pytest.approx(0.9, abs=0.1)  # together they use the whole budget


def test_setup_by_the_rules_places_as_the_heuristic_player_does_and_searches_later() -> None:
    bot = UCTAgent(SearchConfig(rollouts=30, setup=SetupPolicy.RULES), seed=4)
    plain = UCTAgent(SearchConfig(rollouts=30), seed=4)
    heuristic = HeuristicAgent(seed=4)
    state = new_game(GameConfig(players=4), 9)
    for _ in range(2):  # a settlement, then its road
        seat = state.current
        prompt = prompt_for(state, seat)
        table = Table(game="t", seat=seat)
        chosen = bot.choose(prompt, table)
        assert chosen == heuristic.choose(prompt, table)
        assert bot.last_stats is None  # no search ran
        plain.choose(prompt, table)
        assert plain.last_stats is not None and plain.last_stats.rollouts > 0
        apply(state, action_to_engine(chosen, seat))
    state = setup_game(config())
    main_phase(state, 0)
    set_hand(state, 0, counts(brick=2, lumber=2, wool=1, grain=1))
    prompt = prompt_for(state, 0)
    bot.choose(prompt, Table(game="t", seat=0))
    assert bot.last_stats is not None  # past the set-up it searches


def test_chores_by_the_rules_discard_and_rob_as_the_heuristic_and_search_the_rest() -> None:
    bot = UCTAgent(SearchConfig(rollouts=30, chores=ChorePolicy.RULES), seed=4)
    heuristic = HeuristicAgent(seed=4)
    state = setup_game(config())
    pre_roll(state, 0)
    set_hand(state, 0, counts(brick=4, lumber=3, wool=1, grain=1))
    force_roll(state, 7)
    chores = 0
    while state.phase in (Phase.DISCARD, Phase.MOVE_ROBBER):
        seat = next((q for q in range(4) if state.owed[q]), state.current)
        prompt, table = prompt_for(state, seat), Table(game="t", seat=seat)
        bot.last_stats = None
        chosen = bot.choose(prompt, table)
        assert chosen == heuristic.choose(prompt, table)
        assert bot.last_stats is None  # no search ran
        apply(state, action_to_engine(chosen, seat))
        chores += 1
    assert chores == 5  # four cards to discard, then the robber
    assert state.phase == Phase.MAIN
    bot.choose(prompt_for(state, 0), Table(game="t", seat=0))
    assert bot.last_stats is not None  # the main phase is searched


def test_the_rules_move_stands_unless_the_search_is_sure() -> None:
    state = setup_game(config())
    main_phase(state, 0)
    set_hand(state, 0, counts(brick=3, lumber=3, wool=2, grain=2, ore=1))
    prompt, table = prompt_for(state, 0), Table(game="t", seat=0)
    rules_pick = HeuristicAgent(seed=4).choose(prompt, table)
    searched = []
    for z in (0.0, 1000.0):
        moves = MovePolicy.RULES_UNLESS_SURE if z else MovePolicy.SEARCH
        bot = UCTAgent(SearchConfig(rollouts=400, moves=moves, margin=z), seed=4)
        chosen = bot.choose(prompt, table)
        assert bot.last_stats is not None
        searched.append(bot.last_stats.best())
        if z:
            assert bot.default == action_to_engine(rules_pick, 0)
            assert chosen == rules_pick  # no search result is that sure
        else:
            assert action_to_engine(chosen, 0) == bot.last_stats.best()
    assert searched[0] != action_to_engine(rules_pick, 0)  # so the default made a difference


def test_win_check_plays_a_win_this_turn_without_searching() -> None:
    state = setup_game(config(victory_points=3))  # seat 0 has 2 points; a city wins
    main_phase(state, 0)
    set_hand(state, 0, counts(brick=4, grain=2, ore=2))  # ore only through the bank
    plain = UCTAgent(SearchConfig(rollouts=30), seed=4)
    plain.choose(prompt_for(state, 0), Table(game="t", seat=0))
    assert plain.last_stats is not None  # without the check it searches
    bot = UCTAgent(SearchConfig(rollouts=30, win_check=True), seed=4)
    kinds = []
    while not state.is_over:
        chosen = bot.choose(prompt_for(state, 0), Table(game="t", seat=0))
        kinds.append(chosen.kind)
        apply(state, action_to_engine(chosen, 0))
    assert bot.last_stats is None  # no search ran
    assert kinds == ["maritime_trade", "build_city"] and state.winner == 0
    assert STRENGTHS["medium"].win_check and STRENGTHS["hard"].win_check


@given(
    hand=st.tuples(*[st.integers(0, 4)] * 5),
    price=st.sampled_from([CITY, SETTLEMENT, DEV_CARD]),
    give=st.integers(0, 4),
    want=st.integers(0, 4),
)
def test_acceptance_is_the_chance_the_swap_brings_the_build_closer(
    hand: tuple[int, int, int, int, int],
    price: tuple[int, ...],
    give: int,
    want: int,
) -> None:
    def short(h: Sequence[int]) -> int:  # cards still lacking for the price
        return sum(max(0, c - x) for x, c in zip(h, price, strict=True))

    after = list(hand)
    after[give] += 1
    after[want] -= 1
    closer = hand[want] > 0 and short(after) < short(hand)
    assert acceptance({hand: 0.25, (0, 0, 0, 0, 0): 0.75}, give, want, price) == (
        0.25 if closer and give != want else 0.0
    )


def test_aimed_offers_give_what_the_others_lack_and_stop_when_none_would_take() -> None:
    state = setup_game(config())
    main_phase(state, 0)
    # Seat 0 lacks wool for a settlement; its spare cards are a brick and an ore. The others
    # each have a settlement to upgrade, so they save for a city: an ore helps them, a brick
    # never does.
    set_hand(state, 0, counts(brick=2, lumber=1, grain=1, ore=1))
    for q in (1, 2, 3):
        set_hand(state, q, counts(wool=2, ore=1))

    def agent(aimed: bool, seed: int) -> UCTAgent:
        config_ = SearchConfig(rollouts=10, trade_optimistic=True, aimed_offers=aimed)
        bot = UCTAgent(config_, seed=seed)
        bot.tracker = HandTracker(view(state, 0))
        bot.target, bot.offers_left = BuildSettlement(0, 0), 1 + AIMED_RETRIES
        return bot

    gives = set()
    for seed in range(12):
        bot = agent(True, seed)
        offer = bot._next_offer(view(state, 0), 0)
        assert offer is not None and (offer.give, offer.get) == (counts(ore=1), counts(wool=1))
        # declined by all: a brick is no use to any of them, so no second offer
        assert bot._next_offer(view(state, 0), 0) is None and bot.target is None
        random_offer = agent(False, seed)._next_offer(view(state, 0), 0)
        assert random_offer is not None
        gives.add(random_offer.give)
    assert gives == {counts(brick=1), counts(ore=1)}  # the paper's pick is random

    # Nobody holds a card: nobody can take any swap, so an aimed bot offers nothing.
    for q in (1, 2, 3):
        set_hand(state, q, counts())
    assert agent(True, 0)._next_offer(view(state, 0), 0) is None
    assert agent(False, 0)._next_offer(view(state, 0), 0) is not None


def test_a_bot_makes_a_few_offers_a_turn_and_never_one_twice() -> None:
    """People answer a bot's offers: it makes at most OFFERS_PER_TURN in a turn, each a
    swap it has not offered that turn, aimed or not."""
    state = setup_game(config())
    main_phase(state, 0)
    # A city wants 2 grain and 3 ore: seat 0 lacks both and has three spare kinds, so
    # six swaps could be offered.
    set_hand(state, 0, counts(brick=2, lumber=2, wool=2))
    for q in (1, 2, 3):
        set_hand(state, q, counts(grain=2, ore=3))
    for aimed in (False, True):
        for seed in range(6):
            config_ = SearchConfig(rollouts=10, trade_optimistic=True, aimed_offers=aimed)
            bot = UCTAgent(config_, seed=seed)
            bot.tracker = HandTracker(view(state, 0))
            bot.target, bot.offers_left = BuildCity(0, 0), 10
            made = []
            while (offer := bot._next_offer(view(state, 0), 0)) is not None:
                made.append((offer.give, offer.get))
                assert len(made) <= OFFERS_PER_TURN, made
            assert len(made) <= OFFERS_PER_TURN
            if not aimed:  # six swaps to choose from: it stops at the cap
                assert len(made) == OFFERS_PER_TURN
            assert len(set(made)) == len(made), made  # never the same one twice


def _spots(state: Any, seat: int) -> list[int]:
    """The set-up spots, the worthiest first."""
    dots = resource_dots(state, seat)
    spots = setup_settlement_spots(state)
    return sorted(spots, key=lambda v: (-spot_worth(state, dots, v), v))


def test_setup_rollouts_place_the_spot_that_wins_most_and_roads_by_the_rules(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    state = new_game(GameConfig(players=4), 9)
    favoured = _spots(state, 0)[1]
    games: list[Any] = []
    monkeypatch.setattr(setup_search, "rollout", favouring_rollout(favoured, 0, games))
    config_ = SearchConfig(rollouts=30, setup=SetupPolicy.FLAT, setup_rollouts=4)
    bot = UCTAgent(config_, seed=4)
    heuristic = HeuristicAgent(seed=4)
    table = Table(game="t", seat=0)
    prompt = prompt_for(state, 0)
    chosen = bot.choose(prompt, table)
    assert chosen == action_from_engine(PlaceSettlement(0, favoured))
    assert chosen != heuristic.choose(prompt, table)  # the rules would place elsewhere
    assert len(games) == 4 * SETUP_SPOTS and bot.last_stats is None
    apply(state, action_to_engine(chosen, 0))
    prompt = prompt_for(state, 0)  # its road: by the rules, no search
    assert bot.choose(prompt, table) == heuristic.choose(prompt, table)
    assert bot.last_stats is None


def test_setup_rollouts_stop_inside_the_turn_timer(monkeypatch: pytest.MonkeyPatch) -> None:
    state = new_game(GameConfig(players=4), 9)
    games: list[Any] = []
    fake = favouring_rollout(0, 0, games)

    def slow(*args: Any, **kw: Any) -> int:
        time.sleep(0.01)
        return fake(*args, **kw)

    monkeypatch.setattr(setup_search, "rollout", slow)
    bot = UCTAgent(SearchConfig(rollouts=30, setup=SetupPolicy.FLAT, setup_rollouts=1000), seed=4)
    prompt = prompt_for(state, 0, 0.0)
    start = time.monotonic()
    chosen = bot.choose(prompt, Table(game="t", seat=0))
    assert chosen in prompt.actions
    assert time.monotonic() - start < 2  # not the 8,000 rollouts asked for
    assert 0 < len(games) < 3 * SETUP_SPOTS


def test_set_up_rollouts_are_shared_out_over_the_processes() -> None:
    state = new_game(GameConfig(players=4), 9)
    config_ = SearchConfig(rollouts=30, setup=SetupPolicy.FLAT, setup_rollouts=101, processes=2)
    bot = UCTAgent(config_, seed=4)
    seen: list[SetupJob] = []

    def setup(jobs: Sequence[SetupJob]) -> dict[Action, int]:
        seen.extend(jobs)
        return {PlaceSettlement(0, _spots(state, 0)[3]): 1}

    bot.ensemble.setup = setup  # type: ignore[method-assign]
    chosen = bot.choose(prompt_for(state, 0), Table(game="t", seat=0))
    assert chosen == action_from_engine(PlaceSettlement(0, _spots(state, 0)[3]))
    assert sorted(job.rollouts for job in seen) == [50, 51]
    assert len({job.seed for job in seen}) == 2 and {job.spots for job in seen} == {SETUP_SPOTS}


def test_a_uct_bot_plays_a_game_on_a_board_whose_reds_touch() -> None:
    """Each decision rebuilds the game from the seat's view (engine.rebuild), so a board
    that lets a 6 stand by an 8 must come back from the view as it is."""
    config = touching_reds(3, players=2, victory_points=5)
    bots = [make_agent("uct", 1, {"rollouts": "20"}), make_agent("random", 2)]
    played = play_local(bots, config, 5)
    assert played.state.is_over and played.decisions[0] > 0
