"""The placement simulation and fairness: hand-computed cases, the snake, the robber tax,
resource values, and the fast scorer against a plain re-statement of the rules."""

from __future__ import annotations

import pytest

from boards.fairness import (
    FairnessParams,
    FairnessScorer,
    fairness_of,
    player_score,
    vertex_harbours,
)
from engine.board import Board, random_board
from engine.constants import HARBOUR_GENERIC
from engine.rng import Rng
from engine.topology import topology
from tests.boards.layouts import D, G, M, P, good_board, hex_at

TOPO = topology(3)
BRICK_HARBOURS = (0,) * 9  # on an island with no hills they change nothing
WOOL_HARBOURS = (2,) * 9  # on an island with no pasture they change nothing


def sparse_board(hexes: dict[int, tuple[int, int]], harbours: tuple[int, ...]) -> Board:
    """Desert everywhere but ``hexes`` (hex -> (terrain, number))."""
    terrain: list[int] = [D] * TOPO.n_hexes
    tokens = [0] * TOPO.n_hexes
    for h, (t, n) in hexes.items():
        terrain[h] = t
        tokens[h] = n
    return Board.from_layout(terrain, tokens, harbours)


A, A2, B = hex_at(1, 0), hex_at(1, -1), hex_at(-2, 1)


def hand_board() -> Board:
    # A: grain 6 (5 dots); A2, its neighbour: brick 2 (1 dot); B, far away: ore 9 (4 dots)
    return sparse_board({A: (G, 6), A2: (0, 2), B: (M, 9)}, WOOL_HARBOURS)


def test_two_players_by_hand() -> None:
    board = hand_board()
    result = FairnessScorer(3, FairnessParams(players=2)).simulate(board)
    # 1. seat 0, first pick, no tax: a corner of A and A2: 5 + 1 + 2 numbers x 0.3 +
    #    2 resources x 0.31 = 7.22 (A and A2 share corners 0 and 7: the lower id wins).
    # 2. seat 1: A's corners not next to 0 (6, 22, 23) give 5 + 0.3 + 0.31 = 5.61; the
    #    lowest is 6.
    # 3. seat 1 again: a corner of B adds 4 dots, a number and a resource, and pays half of
    #    A's 5 in robber tax: 5 + 4 + 0.6 + 0.62 - 2.5 = 7.72 (a second corner of A would
    #    give 10 + 0.3 + 0.31 - 5 = 5.61); B's lowest corner is 15.
    # 4. seat 0: B's corners 16 and 40 touch 15; 17 is free: 5 + 1 + 4 + 0.9 + 0.93 - 2.5
    #    = 9.33.
    assert [(p.seat, p.round) for p in result.placements] == [(0, 1), (1, 1), (1, 2), (0, 2)]
    assert [p.vertex for p in result.placements] == [0, 6, 15, 17]
    assert set(TOPO.hex_vertices[A]) & set(TOPO.hex_vertices[A2]) == {0, 7}
    assert {15, 17} <= set(TOPO.hex_vertices[B])
    assert [p.score for p in result.placements] == pytest.approx([7.22, 5.61, 7.72, 9.33])
    assert result.scores == pytest.approx((9.33, 7.72))
    assert result.spread == pytest.approx(1.61)
    assert result.fairness == pytest.approx(1 - 1.61 / 9.33)


def test_player_score_by_hand() -> None:
    board = hand_board()
    s = player_score(board, [0, 17])
    assert s.production == pytest.approx((1.0, 0.0, 0.0, 5.0, 4.0))
    assert s.number_bonus == pytest.approx(0.9)
    assert s.resource_bonus == pytest.approx(0.93)
    assert s.robber_tax == pytest.approx(2.5)
    assert s.total == pytest.approx(9.33)
    # two settlements on A: the robber there takes 2 x 5, the tax is half of that
    both = player_score(board, [6, 22])
    assert both.robber_tax == pytest.approx(5.0)
    assert both.total == pytest.approx(10 + 0.3 + 0.31 - 5)


def test_robber_tax_on_the_second_placement_only() -> None:
    board = hand_board()
    assert player_score(board, [0]).robber_tax == 0
    assert player_score(board, [0], taxed=True).robber_tax == pytest.approx(2.5)
    assert player_score(board, [0, 17]).robber_tax == pytest.approx(2.5)
    result = FairnessScorer(3, FairnessParams(players=2)).simulate(board)
    first, second = result.placements[0], result.placements[3]
    assert first.score == pytest.approx(player_score(board, [first.vertex]).total)
    assert second.score == pytest.approx(player_score(board, [0, 17]).total)


def test_snake_order_with_four_players() -> None:
    result = FairnessScorer(3).simulate(good_board())
    assert [p.seat for p in result.placements] == [0, 1, 2, 3, 3, 2, 1, 0]
    assert [p.round for p in result.placements] == [1, 1, 1, 1, 2, 2, 2, 2]
    assert FairnessParams(players=3).snake() == (0, 1, 2, 2, 1, 0)
    taken = [p.vertex for p in result.placements]
    assert len(set(taken)) == 8
    for v in taken:  # the distance rule
        assert not set(TOPO.vertex_vertices[v]) & set(taken)


def test_relative_values_change_the_picks() -> None:
    x, y = hex_at(1, 0), hex_at(-2, 1)
    board = sparse_board({x: (P, 6), y: (M, 9)}, BRICK_HARBOURS)
    plain = FairnessScorer(3).simulate(board)
    assert plain.placements[0].vertex in TOPO.hex_vertices[x]
    ore_dear = FairnessScorer(3, FairnessParams(values=(1, 1, 1, 1, 1.5))).simulate(board)
    assert ore_dear.placements[0].vertex in TOPO.hex_vertices[y]
    assert ore_dear.placements[0].score == pytest.approx(4 * 1.5 + 0.61)


def _harbour_case(kind: int) -> tuple[Board, int]:
    slot = TOPO.harbour_slots[0]
    v = TOPO.edge_vertices[slot][0]
    h = TOPO.vertex_hexes[v][0]
    harbours = (kind, *BRICK_HARBOURS[1:])
    return sparse_board({h: (G, 6)}, harbours), v


def test_harbours_multiply_production() -> None:
    board, v = _harbour_case(G)  # a 2:1 grain harbour beside a grain 6
    assert vertex_harbours(3, board.harbours)[v] == G
    assert player_score(board, [v]).production[G] == pytest.approx(5 * 1.4)
    generic, v = _harbour_case(HARBOUR_GENERIC)
    assert player_score(generic, [v]).production[G] == pytest.approx(5 * 1.1)
    ore_port, v = _harbour_case(M)  # a harbour for another resource changes nothing
    assert player_score(ore_port, [v]).production[G] == pytest.approx(5)
    # the harbour corner is the first pick: 7 + 0.61 beats the other corners' 5.61
    first = FairnessScorer(3).simulate(board).placements[0]
    assert first.vertex in TOPO.edge_vertices[TOPO.harbour_slots[0]]
    assert first.score == pytest.approx(7.61)


def test_fairness_mapping() -> None:
    assert fairness_of([10, 10, 10, 10]) == 1.0
    assert fairness_of([10, 5, 8, 9]) == pytest.approx(0.5)
    assert fairness_of([10, 0, 8, 9]) == 0.0
    assert fairness_of([0, 0]) == 1.0


def _plain_simulation(board: Board, params: FairnessParams) -> tuple[list[int], list[float]]:
    """The rules as written: every free intersection scored with player_score."""
    topo = board.topo
    held: dict[int, list[int]] = {s: [] for s in range(params.players)}
    blocked: set[int] = set()
    picks = []
    for seat in params.snake():
        best = max(
            (v for v in range(topo.n_vertices) if v not in blocked),
            key=lambda v: (round(player_score(board, [*held[seat], v], params).total, 9), -v),
        )
        held[seat].append(best)
        picks.append(best)
        blocked |= {best, *topo.vertex_vertices[best]}
    return picks, [player_score(board, held[s], params).total for s in range(params.players)]


@pytest.mark.parametrize(
    "params",
    [FairnessParams(), FairnessParams(values=(0.9, 0.8, 0.7, 1.3, 1.2), players=3)],
)
def test_fast_scorer_matches_the_plain_rules(params: FairnessParams) -> None:
    scorer = FairnessScorer(3, params)
    for seed in range(60):
        board = random_board(Rng(seed))
        result = scorer.simulate(board)
        picks, scores = _plain_simulation(board, params)
        assert [p.vertex for p in result.placements] == picks
        assert result.scores == pytest.approx(scores)
        assert 0.0 <= result.fairness <= 1.0
        assert scorer.fairness(board.terrain, board.tokens, board.harbours) == result.fairness


def test_fast_scorer_matches_the_plain_rules_on_radius_four() -> None:
    scorer = FairnessScorer(4)
    for seed in range(8):
        board = random_board(Rng(seed), 4)
        result = scorer.simulate(board)
        picks, scores = _plain_simulation(board, scorer.params)
        assert [p.vertex for p in result.placements] == picks
        assert result.scores == pytest.approx(scores)


def test_bad_parameters() -> None:
    with pytest.raises(ValueError):
        FairnessParams(values=(1, 1))
    with pytest.raises(ValueError):
        FairnessParams(players=5)
    with pytest.raises(ValueError):
        FairnessParams(robber_tax=-1)


@pytest.mark.parametrize("harbour_layout", [1, 2])
def test_a_board_is_scored_with_its_harbours_where_its_layout_puts_them(
    harbour_layout: int,
) -> None:
    from boards.balance import balance_of
    from boards.fairness import vertex_harbours

    base = random_board(Rng(5))  # a board whose scores differ between the layouts
    board = Board.from_layout(
        base.terrain, base.tokens, base.harbours, harbour_layout=harbour_layout
    )
    assert vertex_harbours(3, board.harbours, harbour_layout) == list(board.vertex_harbour)
    scorer = FairnessScorer(3)
    got = scorer.simulate(board).fairness
    assert got == scorer.fairness(board.terrain, board.tokens, board.harbours, harbour_layout)
    other = 3 - harbour_layout
    assert got != scorer.fairness(board.terrain, board.tokens, board.harbours, other)
    mine = balance_of(board.terrain, board.tokens, board.harbours, 3, harbour_layout)
    theirs = balance_of(board.terrain, board.tokens, board.harbours, 3, other)
    assert mine.harbour_balance != theirs.harbour_balance
