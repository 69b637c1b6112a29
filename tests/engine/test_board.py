"""Boards: contents per radius (rulebook and thesis 4.3.6-4.3.8), generators, explicit layouts."""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from itertools import combinations

import pytest

from engine import BoardError, ConfigError, GameConfig, new_game
from engine.board import (
    Board,
    check_board,
    random_board,
    spiral_board,
    terrain_counts,
    token_counts,
)
from engine.constants import HARBOUR_GENERIC, HARBOUR_LAYOUT, HARBOUR_LAYOUT_EVEN, Terrain
from engine.rng import Rng
from engine.state import BoardSetup
from engine.topology import harbour_kinds, topology

H, F, P, G, M, D = (
    Terrain.HILLS,
    Terrain.FOREST,
    Terrain.PASTURE,
    Terrain.FIELDS,
    Terrain.MOUNTAINS,
    Terrain.DESERT,
)
NON_SEVEN = (2, 3, 4, 5, 6, 8, 9, 10, 11, 12)
RULEBOOK_TOKENS = (2, 3, 3, 4, 4, 5, 5, 6, 6, 8, 8, 9, 9, 10, 10, 11, 11, 12)
RULEBOOK_SPIRAL = (5, 2, 6, 3, 8, 10, 9, 12, 11, 4, 8, 10, 9, 4, 5, 6, 3, 11)  # tokens A-R
RADII = (3, 4, 5, 6, 7)

Generator = Callable[[Rng, int], Board]
GENERATORS: dict[str, Generator] = {"random": random_board, "spiral": spiral_board}


def thesis_counts(radius: int) -> tuple[Counter[Terrain], Counter[int], Counter[int]]:
    """Terrain, tokens and harbour kinds of a radius, written out from the thesis's text.

    4.3.6: each ring beyond the standard 19 hexes adds ``size // 5`` of every resource; a
    remainder of 3 adds wool, grain and lumber (everything but brick and ore), any other
    remainder that many deserts. 4.3.7: ``size // 10`` of every roll but 7; remainder 6 adds
    the five likeliest rolls, ties to the larger (6, 8, 5, 9, 10); remainder 8 every roll but
    2, 7 and 12; remainders 2 and 4 are sevens (the deserts). 4.3.8: 60% of the outer ring's
    intersections touch a port, made even; half of the ports (rounded down) rounded up to a
    multiple of 5 are 2:1, the rest 3:1.
    """
    terrain: Counter[Terrain] = Counter({H: 3, F: 4, P: 4, G: 4, M: 3, D: 1})
    tokens: Counter[int] = Counter(RULEBOOK_TOKENS)
    for ring in range(3, radius):
        size = 6 * ring
        for t in (H, F, P, G, M):
            terrain[t] += size // 5
        if size % 5 == 3:
            terrain.update((P, G, F))
        else:
            terrain[D] += size % 5
        for n in NON_SEVEN:
            tokens[n] += size // 10
        if size % 10 == 6:
            tokens.update((6, 8, 5, 9, 10))
        elif size % 10 == 8:
            tokens.update((3, 4, 5, 6, 8, 9, 10, 11))
    coast = (2 * (radius - 1) + 1) * 6
    touching = coast * 6 // 10
    touching -= touching % 2
    ports = touching // 2
    specific = ports // 2
    specific += -specific % 5
    harbours: Counter[int] = Counter({r: specific // 5 for r in range(5)})
    harbours[HARBOUR_GENERIC] = ports - specific
    return terrain, tokens, harbours


def layout(board: Board) -> tuple[list[int], list[int], list[int]]:
    return [int(t) for t in board.terrain], list(board.tokens), list(board.harbours)


# --- contents per radius --------------------------------------------------------------------


def test_standard_contents_are_the_rulebook() -> None:
    assert terrain_counts(3) == {H: 3, F: 4, P: 4, G: 4, M: 3, D: 1}
    assert sorted(token_counts(3).elements()) == list(RULEBOOK_TOKENS)
    kinds = Counter(harbour_kinds(3))
    assert kinds == {0: 1, 1: 1, 2: 1, 3: 1, 4: 1, HARBOUR_GENERIC: 4}


def test_radius_four_written_out() -> None:
    # Ring 3 has 18 hexes: 3 of each resource, remainder 3 -> one pasture, fields, forest.
    assert terrain_counts(4) == {H: 6, F: 8, P: 8, G: 8, M: 6, D: 1}
    # 18 tokens: one of every roll but 7, remainder 8 -> one of 3, 4, 5, 6, 8, 9, 10, 11.
    want = Counter(RULEBOOK_TOKENS) + Counter(NON_SEVEN) + Counter((3, 4, 5, 6, 8, 9, 10, 11))
    assert token_counts(4) == want
    # 42 coast intersections * 0.6 = 25 -> 24 -> 12 ports: 6 rounded up to 10 of 2:1, 2 of 3:1.
    assert Counter(harbour_kinds(4)) == {0: 2, 1: 2, 2: 2, 3: 2, 4: 2, HARBOUR_GENERIC: 2}


def test_radius_seven_written_out() -> None:
    # Rings 3, 4, 5, 6 have 18, 24, 30, 36 hexes: remainders mod 5 are 3, 4, 0, 1.
    assert terrain_counts(7) == {H: 23, F: 25, P: 25, G: 25, M: 23, D: 6}
    # Tokens: 1+2+3+3 of every roll but 7, plus 3..11 (ring 3) and 5, 6, 8, 9, 10 (ring 6).
    want = {2: 10, 3: 12, 4: 12, 5: 13, 6: 13, 8: 13, 9: 13, 10: 13, 11: 12, 12: 10}
    assert token_counts(7) == want
    # 78 * 0.6 = 46 -> 23 ports: 11 rounded up to 15 of 2:1, 8 of 3:1.
    assert Counter(harbour_kinds(7)) == {0: 3, 1: 3, 2: 3, 3: 3, 4: 3, HARBOUR_GENERIC: 8}


@pytest.mark.parametrize("radius", RADII)
def test_contents_follow_the_thesis_scaling(radius: int) -> None:
    terrain, tokens, harbours = thesis_counts(radius)
    assert Counter(terrain_counts(radius)) == terrain
    assert token_counts(radius) == tokens
    assert Counter(harbour_kinds(radius)) == harbours


@pytest.mark.parametrize("radius", RADII)
def test_contents_fit_the_topology(radius: int) -> None:
    topo = topology(radius)
    terrain = terrain_counts(radius)
    tokens = token_counts(radius)
    assert sum(terrain.values()) == topo.n_hexes
    assert sum(tokens.values()) == topo.n_hexes - terrain[D], "one token per non-desert hex"
    assert set(tokens) <= set(NON_SEVEN)
    assert min(terrain.values()) >= 1
    kinds = harbour_kinds(radius)
    assert len(kinds) == len(topo.harbour_slots)
    specific = Counter(k for k in kinds if k != HARBOUR_GENERIC)
    assert set(specific) == set(range(5))
    assert len(set(specific.values())) == 1, "every resource has as many 2:1 harbours"
    assert len(kinds) // 2 <= sum(specific.values()) < len(kinds) // 2 + 5


def test_token_counts_is_a_fresh_counter() -> None:
    counts = token_counts(3)
    counts[6] += 5
    assert token_counts(3)[6] == 2


# --- generators -----------------------------------------------------------------------------


@pytest.mark.parametrize("radius", (3, 4, 5, 6))
@pytest.mark.parametrize("setup", sorted(GENERATORS))
def test_generated_boards_are_legal(setup: str, radius: int) -> None:
    generate = GENERATORS[setup]
    topo = topology(radius)
    for seed in range(150):
        board = generate(Rng(seed), radius)
        assert board.radius == radius
        assert board.topo is topo
        check_board(board)  # no 6/8 neighbours and the contents of the radius
        assert not board.red_tokens_adjacent()
        terrain, tokens, harbours = thesis_counts(radius)
        assert Counter(board.terrain) == terrain
        assert Counter(n for n in board.tokens if n) == tokens
        assert Counter(board.harbours) == harbours
        for h, (t, n) in enumerate(zip(board.terrain, board.tokens, strict=True)):
            assert (n == 0) == (t == D), f"hex {h}: a token exactly on the producing hexes"
        for h in range(topo.n_hexes):
            if board.tokens[h] in (6, 8):
                assert all(board.tokens[m] not in (6, 8) for m in topo.hex_neighbours[h])


@pytest.mark.parametrize("radius", (3, 4, 5, 6))
@pytest.mark.parametrize("setup", sorted(GENERATORS))
def test_same_seed_same_board_and_seeds_differ(setup: str, radius: int) -> None:
    generate = GENERATORS[setup]
    boards = [generate(Rng(seed), radius) for seed in range(20)]
    again = [generate(Rng(seed), radius) for seed in range(20)]
    assert boards == again
    assert [b.to_dict() for b in boards] == [b.to_dict() for b in again]
    assert len(set(boards)) >= 18
    assert len({b.terrain for b in boards}) >= 18
    assert len({b.tokens for b in boards}) >= 18
    assert len({b.harbours for b in boards}) >= 2


@pytest.mark.parametrize("radius", (3, 4, 5, 6))
@pytest.mark.parametrize("setup", ["random", "spiral"])
def test_new_game_puts_the_robber_on_a_desert(setup: BoardSetup, radius: int) -> None:
    config = GameConfig(board_setup=setup, radius=radius)
    for seed in range(15):
        state = new_game(config, seed)
        assert state.board.terrain[state.robber] == D
        assert state.robber in state.board.deserts()
        check_board(state.board)
        assert new_game(config, seed).board == state.board, "the seed fixes the board"


def test_new_game_explicit_board_robber_on_its_desert() -> None:
    board = random_board(Rng(5))
    state = new_game(GameConfig.with_board(board), seed=99)
    assert state.board is board
    assert state.robber == board.deserts()[0]
    assert board.terrain[state.robber] == D


def spiral_start(board: Board) -> int | None:
    """The start corner from which laying the rulebook's sequence along the spiral, skipping
    the desert, gives this board's tokens; None if there is none."""
    topo = topology(3)
    for corner in range(6):
        tokens = [0] * topo.n_hexes
        seq = iter(RULEBOOK_SPIRAL)
        for h in topo.spiral(corner):
            if board.terrain[h] != D:
                tokens[h] = next(seq)
        assert next(seq, None) is None
        if tuple(tokens) == board.tokens:
            return corner
    return None


def test_spiral_board_lays_the_rulebook_sequence_along_the_spiral() -> None:
    starts: set[int] = set()
    for seed in range(120):
        board = spiral_board(Rng(seed))
        start = spiral_start(board)
        assert start is not None, f"seed {seed}: tokens not laid along a spiral"
        starts.add(start)
    assert starts == set(range(6)), "the start corner is drawn at random"


def test_random_board_is_not_a_spiral_layout() -> None:
    # The official random set-up places tokens at random, not along the spiral.
    spirals = sum(spiral_start(random_board(Rng(seed))) is not None for seed in range(20))
    assert spirals <= 1


def test_deserts_and_dots() -> None:
    board = random_board(Rng(3))
    (desert,) = board.deserts()
    assert board.terrain[desert] == D
    assert board.dots(desert) == 0
    dots = {2: 1, 3: 2, 4: 3, 5: 4, 6: 5, 8: 5, 9: 4, 10: 3, 11: 2, 12: 1}
    for h, n in enumerate(board.tokens):
        if n:
            assert board.dots(h) == dots[n]
    assert sum(board.dots(h) for h in range(19)) == 58


# --- explicit layouts -----------------------------------------------------------------------


@pytest.fixture
def valid() -> tuple[list[int], list[int], list[int]]:
    return layout(random_board(Rng(11)))


def test_from_layout_round_trip(valid: tuple[list[int], list[int], list[int]]) -> None:
    terrain, tokens, harbours = valid
    board = Board.from_layout(terrain, tokens, harbours)
    check_board(board)
    assert layout(board) == (terrain, tokens, harbours)
    assert board == random_board(Rng(11))
    assert board.to_dict() == {
        "radius": 3,
        "terrain": terrain,
        "tokens": tokens,
        "harbours": harbours,
        "harbour_layout": HARBOUR_LAYOUT,
    }
    assert all(isinstance(t, Terrain) for t in board.terrain)


def test_a_board_of_the_first_harbour_layout_keeps_its_slots(
    valid: tuple[list[int], list[int], list[int]],
) -> None:
    terrain, tokens, harbours = valid
    old = Board.from_layout(terrain, tokens, harbours, harbour_layout=HARBOUR_LAYOUT_EVEN)
    new = Board.from_layout(terrain, tokens, harbours)
    # The slots boards had before they lay on the printed frame.
    assert old.harbour_slots == (42, 46, 49, 53, 56, 59, 63, 66, 69)
    assert new.harbour_slots == topology(3).harbour_slots != old.harbour_slots
    for board in (old, new):
        on = {
            v: k
            for e, k in zip(board.harbour_slots, harbours, strict=True)
            for v in board.topo.edge_vertices[e]
        }
        assert board.vertex_harbour == tuple(on.get(v, -1) for v in range(board.topo.n_vertices))
    assert old != new
    assert Board.from_layout(**old.to_dict()) == old  # type: ignore[arg-type]
    with pytest.raises(BoardError, match="unknown harbour layout 3"):
        Board.from_layout(terrain, tokens, harbours, harbour_layout=3)


def test_from_layout_derived_tables(valid: tuple[list[int], list[int], list[int]]) -> None:
    terrain, tokens, harbours = valid
    board = Board.from_layout(terrain, tokens, harbours)
    topo = board.topo
    for total in range(13):
        want = sorted(
            (h, v) for h in range(19) if tokens[h] == total and total for v in topo.hex_vertices[h]
        )
        got = board.producing[total]
        assert sorted((h, v) for h, _, corners in got for v in corners) == want
        for h, res, corners in got:
            assert res == terrain[h]
            assert corners == topo.hex_vertices[h]
    harbour_of = {}
    for slot, kind in zip(topo.harbour_slots, harbours, strict=True):
        for v in topo.edge_vertices[slot]:
            harbour_of[v] = kind
    assert board.vertex_harbour == tuple(harbour_of.get(v, -1) for v in range(topo.n_vertices))
    assert sum(k >= 0 for k in board.vertex_harbour) == 18


@pytest.mark.parametrize(
    ("terrain_len", "tokens_len", "harbours_len"),
    [(18, 19, 9), (20, 19, 9), (19, 18, 9), (19, 20, 9), (19, 19, 8), (19, 19, 10), (0, 0, 0)],
)
def test_from_layout_rejects_wrong_lengths(
    valid: tuple[list[int], list[int], list[int]],
    terrain_len: int,
    tokens_len: int,
    harbours_len: int,
) -> None:
    terrain, tokens, harbours = valid

    def fit(xs: list[int], n: int) -> list[int]:
        return (xs * 2)[:n]

    with pytest.raises(BoardError):
        Board.from_layout(
            fit(terrain, terrain_len), fit(tokens, tokens_len), fit(harbours, harbours_len)
        )


def test_from_layout_rejects_the_standard_layout_on_another_radius(
    valid: tuple[list[int], list[int], list[int]],
) -> None:
    terrain, tokens, harbours = valid
    with pytest.raises(BoardError):
        Board.from_layout(terrain, tokens, harbours, radius=4)
    with pytest.raises(BoardError):
        Board.from_layout(terrain, tokens, harbours, radius=2)


def test_from_layout_rejects_a_token_on_the_desert(
    valid: tuple[list[int], list[int], list[int]],
) -> None:
    terrain, tokens, harbours = valid
    d = terrain.index(D)
    for n in (5, 6, 7):
        bad = tokens[:]
        bad[d] = n
        with pytest.raises(BoardError):
            Board.from_layout(terrain, bad, harbours)


@pytest.mark.parametrize("token", [7, 0, 1, 13, -6])
def test_from_layout_rejects_bad_tokens_on_producing_hexes(
    valid: tuple[list[int], list[int], list[int]], token: int
) -> None:
    terrain, tokens, harbours = valid
    h = next(i for i, t in enumerate(terrain) if t != D)
    bad = tokens[:]
    bad[h] = token
    with pytest.raises(BoardError):
        Board.from_layout(terrain, bad, harbours)


@pytest.mark.parametrize("kind", [6, -1, 99])
def test_from_layout_rejects_unknown_terrain(
    valid: tuple[list[int], list[int], list[int]], kind: int
) -> None:
    terrain, tokens, harbours = valid
    bad = terrain[:]
    bad[0] = kind
    with pytest.raises(BoardError):
        Board.from_layout(bad, tokens, harbours)


@pytest.mark.parametrize("kind", [6, -1, 99])
def test_from_layout_rejects_unknown_harbour_kinds(
    valid: tuple[list[int], list[int], list[int]], kind: int
) -> None:
    terrain, tokens, harbours = valid
    bad = harbours[:]
    bad[4] = kind
    with pytest.raises(BoardError):
        Board.from_layout(terrain, tokens, bad)


def test_from_layout_accepts_any_contents_but_check_board_does_not(
    valid: tuple[list[int], list[int], list[int]],
) -> None:
    terrain, tokens, harbours = valid
    # A second desert: a legal layout, not the standard contents.
    h = next(i for i, n in enumerate(tokens) if n not in (0, 6, 8))
    terrain2, tokens2 = terrain[:], tokens[:]
    terrain2[h], tokens2[h] = int(D), 0
    board = Board.from_layout(terrain2, tokens2, harbours)
    check_board(board, standard_contents=False)
    with pytest.raises(BoardError):
        check_board(board)
    # Other tokens on the same terrain.
    tokens3 = [12 if n == 2 else n for n in tokens]
    board = Board.from_layout(terrain, tokens3, harbours)
    check_board(board, standard_contents=False)
    with pytest.raises(BoardError):
        check_board(board)
    # Only 3:1 harbours.
    board = Board.from_layout(terrain, tokens, [HARBOUR_GENERIC] * 9)
    check_board(board, standard_contents=False)
    with pytest.raises(BoardError):
        check_board(board)


def red_clash(tokens: list[int], a_token: int, b_token: int) -> list[int]:
    """The same tokens rearranged so that an ``a_token`` hex neighbours a ``b_token`` hex."""
    topo = topology(3)
    out = tokens[:]
    a = out.index(a_token)
    b = next(n for n in topo.hex_neighbours[a] if out[n] not in (0, 6, 8))
    c = next(h for h, n in enumerate(out) if n == b_token and h != a)
    out[b], out[c] = out[c], out[b]
    assert out[a] == a_token and out[b] == b_token and b in topo.hex_neighbours[a]
    return out


@pytest.mark.parametrize(("a_token", "b_token"), [(6, 8), (8, 6), (6, 6), (8, 8)])
def test_check_board_rejects_neighbouring_red_tokens(
    valid: tuple[list[int], list[int], list[int]], a_token: int, b_token: int
) -> None:
    terrain, tokens, harbours = valid
    bad = red_clash(tokens, a_token, b_token)
    assert Counter(bad) == Counter(tokens)
    board = Board.from_layout(terrain, bad, harbours)
    assert board.red_tokens_adjacent()
    with pytest.raises(BoardError):
        check_board(board)
    with pytest.raises(BoardError):
        check_board(board, standard_contents=False)


def test_boards_compare_by_contents(valid: tuple[list[int], list[int], list[int]]) -> None:
    terrain, tokens, harbours = valid
    a = Board.from_layout(terrain, tokens, harbours)
    b = Board.from_layout(terrain, tokens, harbours)
    assert a == b
    assert hash(a) == hash(b)
    i = next(i for i, k in enumerate(harbours) if k != harbours[0])
    swapped = harbours[:]
    swapped[0], swapped[i] = swapped[i], swapped[0]
    assert a != Board.from_layout(terrain, tokens, swapped)
    assert a != Board.from_layout(terrain, red_clash(tokens, 6, 8), harbours)
    assert a != "not a board"


# --------------------------------------------------------------------------------------
# The random set-up draws uniformly over legal layouts
# --------------------------------------------------------------------------------------


def _red_category(tokens: list[int] | tuple[int, ...], ring: tuple[int, ...]) -> tuple[int, int]:
    """(a 6 or 8 on the centre hex, how many 6s and 8s on the first ring)."""
    reds = [h for h, n in enumerate(tokens) if n in (6, 8)]
    return (sum(ring[h] == 0 for h in reds), sum(ring[h] == 1 for h in reds))


def _exact_categories() -> dict[tuple[int, int], float]:
    """The categories' probabilities under a uniform draw over every legal layout of the
    standard island, counted by enumerating the desert and the four red hexes."""
    topo = topology(3)
    seen: Counter[tuple[int, int]] = Counter()
    for desert in range(topo.n_hexes):
        land = [h for h in range(topo.n_hexes) if h != desert]
        for reds in combinations(land, 4):
            if any(m in reds for h in reds for m in topo.hex_neighbours[h]):
                continue
            tokens = [6 if h in reds else 0 for h in range(topo.n_hexes)]
            seen[_red_category(tokens, topo.hex_ring)] += 1
    total = sum(seen.values())
    return {k: c / total for k, c in seen.items()}


def _first_fit_tokens(rng: Rng) -> list[int]:
    """A biased draw: reds laid first-fit on shuffled hexes (what an earlier set-up did)."""
    topo = topology(3)
    desert = rng.randrange(topo.n_hexes)
    land = [h for h in range(topo.n_hexes) if h != desert]
    rng.shuffle(land)
    tokens = [0] * topo.n_hexes
    blocked: set[int] = set()
    placed = 0
    for h in land:
        if placed < 4 and h not in blocked:
            tokens[h] = 6
            blocked.update((h, *topo.hex_neighbours[h]))
            placed += 1
    return tokens


def _chi_square(samples: list[tuple[int, int]], expected: dict[tuple[int, int], float]) -> float:
    n = len(samples)
    seen = Counter(samples)
    assert set(seen) <= set(expected)
    return sum((seen[k] - n * p) ** 2 / (n * p) for k, p in expected.items())


# The 0.01% point of the chi-square distribution with 4 degrees of freedom (5 categories).
CHI_SQUARE_4_CRITICAL = 23.51


def test_random_set_up_is_uniform_over_legal_layouts() -> None:
    expected = _exact_categories()
    assert len(expected) == 5
    ring = topology(3).hex_ring
    rng = Rng(2024)
    drawn = [_red_category(random_board(rng).tokens, ring) for _ in range(3000)]
    assert _chi_square(drawn, expected) < CHI_SQUARE_4_CRITICAL
    # The same test rejects a first-fit placement, which favours the first ring.
    biased = [_red_category(_first_fit_tokens(rng), ring) for _ in range(3000)]
    assert _chi_square(biased, expected) > CHI_SQUARE_4_CRITICAL


@pytest.mark.parametrize("radius", [4, 6, 8])
def test_random_set_up_draws_legal_boards_on_large_islands(radius: int) -> None:
    board = random_board(Rng(radius), radius)
    check_board(board)
    assert not board.red_tokens_adjacent()


# --------------------------------------------------------------------------------------
# Explicit boards are held to the same rules as generated ones
# --------------------------------------------------------------------------------------


def test_a_game_refuses_an_explicit_board_naming_the_fault(
    valid: tuple[list[int], list[int], list[int]],
) -> None:
    terrain, tokens, harbours = valid
    h = next(i for i, n in enumerate(tokens) if n not in (0, 6, 8))
    two_deserts = terrain[:], tokens[:]
    two_deserts[0][h], two_deserts[1][h] = int(D), 0
    cases = [
        (
            Board.from_layout(*two_deserts, harbours),
            f"the board has {Counter(terrain)[terrain[h]] - 1} {Terrain(terrain[h]).name.lower()} "
            f"hexes; radius 3 has {Counter(terrain)[terrain[h]]}",
        ),
        (
            Board.from_layout(terrain, [12 if n == 2 else n for n in tokens], harbours),
            "the board has 0 number tokens 2; radius 3 has 1",
        ),
        (
            Board.from_layout(terrain, tokens, [HARBOUR_GENERIC] * 9),
            "the board has 0 2:1 brick harbours; radius 3 has 1",
        ),
        (Board.from_layout(terrain, red_clash(tokens, 6, 8), harbours), "are neighbours"),
    ]
    for board, words in cases:
        with pytest.raises(BoardError, match=words):
            check_board(board)
        with pytest.raises(ConfigError, match=words):
            GameConfig.with_board(board)


def test_a_board_may_say_its_reds_touch(valid: tuple[list[int], list[int], list[int]]) -> None:
    terrain, tokens, harbours = valid
    bad = red_clash(tokens, 6, 8)
    board = Board.from_layout(terrain, bad, harbours, reds_may_touch=True)
    check_board(board)
    assert new_game(GameConfig.with_board(board), seed=1).board == board
    assert board.to_dict()["reds_may_touch"] is True
    assert Board.from_layout(**board.to_dict()) == board  # type: ignore[arg-type]
    assert board != Board.from_layout(terrain, bad, harbours)
    assert "reds_may_touch" not in Board.from_layout(terrain, tokens, harbours).to_dict()
