"""A position written as one line of text, as FEN writes a chess position.

:func:`format` writes a whole :class:`~engine.state.GameState` (board, pieces, hands,
development cards, bank, deck, turn, awards, what is owed, the open offer, the rules and the
generator), and :func:`parse` reads it back into a state equal to the original that plays on
identically. ``format(state, seat)`` writes the seat's form, made from that seat's
:func:`~engine.view.view` alone: other seats' cards as counts, the deck as a count, no
generator; :func:`parse_view` reads it back into that view. The grammar is in docs/engine.md.

Twelve fields, separated by spaces::

    board pieces cards supply phase@seat turn dice flags awards owed trade game
"""

from __future__ import annotations

import re
from typing import Final

from engine.board import Board
from engine.constants import (
    CITIES_PER_PLAYER,
    HARBOUR_LAYOUT,
    HARBOUR_LAYOUTS,
    N_DEV_KINDS,
    N_RESOURCES,
    ROADS_PER_PLAYER,
    SETTLEMENTS_PER_PLAYER,
    Award,
    DevCard,
    Terrain,
)
from engine.errors import EngineError
from engine.longest import longest_road
from engine.pieces import place_road, place_settlement, set_award, upgrade_city
from engine.rebuild import config_of
from engine.rng import seed_state
from engine.rules import setup_order
from engine.state import Answer, GameConfig, GameState, Phase, empty_state
from engine.view import View, view

RESOURCE_LETTERS: Final = "BLWGO"
"""Brick, lumber, wool, grain, ore: hands, the bank, offers, and producing terrain."""
DEV_LETTERS: Final = "KVRYM"
"""Knight, victory point, road building, year of plenty, monopoly."""
TERRAIN_LETTERS: Final = "BLWGOD"
"""A hex by what it yields: hills B, forest L, pasture W, fields G, mountains O; desert D."""
HARBOUR_LETTERS: Final = "BLWGO3"
"""A harbour slot: the resource of a 2:1 harbour, or 3 for a 3:1 harbour."""
ANSWER_LETTERS: Final = {
    Answer.NOT_ASKED: "n",
    Answer.PENDING: "p",
    Answer.ACCEPTED: "a",
    Answer.DECLINED: "d",
    Answer.COUNTERED: "c",
}
REDS_MAY_TOUCH: Final = "x"
"""The board's last part when its 6s and 8s may stand next to each other."""
FIELDS: Final = (
    "board",
    "pieces",
    "cards",
    "supply",
    "phase",
    "turn",
    "dice",
    "flags",
    "awards",
    "owed",
    "trade",
    "game",
)
"""The names of the twelve fields, in order (error messages name them)."""

_FIELD_RE: Final = re.compile(r"\S+")
_HEX_RE: Final = re.compile(r"([A-Z])(\d*)(\*?)")
_COUNT_RE: Final = re.compile(r"(\d*)([A-Za-z])")
_INT_RE: Final = re.compile(r"-?\d+")
_KEY_RE: Final = re.compile(r"(seat|[a-z])(.*)")


class NotationError(EngineError, ValueError):
    """Text that is not a position; the message names the character and field at fault."""


# ======================================================================================
# Writing
# ======================================================================================


def _counts_text(counts: list[int] | tuple[int, ...], letters: str) -> str:
    """``2BW`` for two brick and a wool; ``-`` for none."""
    out = "".join((str(c) if c > 1 else "") + letters[k] for k, c in enumerate(counts) if c > 0)
    return out or "-"


def _seat_text(seat: int) -> str:
    return "-" if seat < 0 else str(seat)


def _board_text(board: Board, robber: int) -> str:
    hexes = []
    for h, t in enumerate(board.terrain):
        token = board.tokens[h]
        hexes.append(
            TERRAIN_LETTERS[int(t)] + (str(token) if token else "") + ("*" if h == robber else "")
        )
    harbours = "".join(HARBOUR_LETTERS[k] for k in board.harbours)
    layout = "" if board.harbour_layout == HARBOUR_LAYOUT else f"/{board.harbour_layout}"
    reds = f"/{REDS_MAY_TOUCH}" if board.reds_may_touch else ""
    return "".join(hexes) + "/" + (harbours or "-") + layout + reds


def _pieces_text(buildings: list[list[tuple[int, int]]], roads: list[list[int]]) -> str:
    seats = []
    for q in range(len(buildings)):
        items = [("c" if level == 2 else "s") + str(v) for v, level in buildings[q]]
        items += ["r" + str(e) for e in roads[q]]
        seats.append(",".join(items) or "-")
    return "/".join(seats)


def _offer_text(give: tuple[int, ...], get: tuple[int, ...]) -> str:
    return _counts_text(give, RESOURCE_LETTERS) + ">" + _counts_text(get, RESOURCE_LETTERS)


def _trade_text(
    offer: tuple[tuple[int, ...], tuple[int, ...]] | None,
    answers: list[int],
    counters: list[tuple[tuple[int, ...], tuple[int, ...]] | None],
) -> str:
    if offer is None and all(a == Answer.NOT_ASKED for a in answers) and not any(counters):
        return "-"
    head = "-" if offer is None else _offer_text(offer[0], offer[1])
    parts = []
    for a, c in zip(answers, counters, strict=True):
        parts.append(ANSWER_LETTERS[Answer(a)] + ("" if c is None else "=" + _offer_text(*c)))
    return head + "/" + ",".join(parts)


def _awards_text(longest: int, army: int, knights: list[int], winner: int) -> str:
    out = f"L{_seat_text(longest)},A{_seat_text(army)},K" + ".".join(map(str, knights))
    return out + (f",W{winner}" if winner >= 0 else "")


def _owed_text(owed: list[int], free_roads: int) -> str:
    parts = [f"d{q}:{k}" for q, k in enumerate(owed) if k]
    if free_roads:
        parts.append(f"f{free_roads}")
    return ",".join(parts) or "-"


def _dice_text(dice: tuple[int, int] | None) -> str:
    return "-" if dice is None else f"{dice[0]}+{dice[1]}"


def format(state: GameState, seat: int | None = None) -> str:
    """The position as one line. With ``seat``, the seat's form: only what
    ``view(state, seat)`` shows (see :func:`format_view`). Raises ValueError for a seat
    that is not in the game."""
    if seat is not None:
        return format_view(view(state, seat), state.config.discard_limit)
    n = state.n
    buildings = [[(v, state.vlevel[v]) for v in state.pbuild[q]] for q in range(n)]
    cards = []
    for q in range(n):
        dev = list(state.dev_of(q))
        new = state.dev_new if q == state.current else [0] * N_DEV_KINDS
        old = [dev[k] - new[k] for k in range(N_DEV_KINDS)]
        text = _counts_text(state.hand_of(q), RESOURCE_LETTERS)
        if any(old):
            text += ":" + _counts_text(old, DEV_LETTERS)
        if any(new):
            text += "+" + _counts_text(new, DEV_LETTERS)
        cards.append(text)
    flags = ("r" if state.rolled else "") + ("p" if state.dev_played else "")
    cfg = state.config
    return " ".join(
        (
            _board_text(state.board, state.robber),
            _pieces_text(buildings, state.proads),
            "/".join(cards),
            _counts_text(state.bank, RESOURCE_LETTERS)
            + "/"
            + _counts_text(state.deck, DEV_LETTERS),
            f"{Phase(state.phase).name.lower()}@{state.current}",
            f"t{state.turn}",
            _dice_text(state.dice),
            flags or "-",
            _awards_text(state.longest_holder, state.army_holder, state.knights, state.winner),
            _owed_text(state.owed, state.free_roads),
            _trade_text(state.offer, state.answers, state.counters),
            f"v{cfg.victory_points},l{cfg.discard_limit},a{state.actions_taken},"
            f"s{state.seed},r{state.rng:016x}",
        )
    )


def format_view(v: View, discard_limit: int = 7) -> str:
    """A seat's view as one line: the seat's own cards in full, every other seat's as
    ``resources:development`` counts (with ``vN``, the victory cards shown at the end of the
    game), the deck as a count, and no seed or generator. The discard limit is a rule the
    view does not carry; 7 is the rulebook's. Raises ValueError for a spectator's view."""
    if v.seat is None or v.hand is None or v.development is None:
        raise ValueError("only a seat's view has a written form")
    n = v.players
    board = config_of(v, discard_limit).board
    assert board is not None
    buildings: list[list[tuple[int, int]]] = [[] for _ in range(n)]
    for vertex, q in sorted(v.settlements + v.cities):
        buildings[q].append((vertex, 2 if (vertex, q) in v.cities else 1))
    roads: list[list[int]] = [[] for _ in range(n)]
    for e, q in v.roads:
        roads[q].append(e)
    cards = []
    for q, p in enumerate(v.seats):
        if q == v.seat:
            new = v.development_new or (0, 0, 0, 0, 0)
            old = [v.development[k] - new[k] for k in range(N_DEV_KINDS)]
            text = _counts_text(v.hand, RESOURCE_LETTERS)
            if any(old):
                text += ":" + _counts_text(old, DEV_LETTERS)
            if any(new):
                text += "+" + _counts_text(new, DEV_LETTERS)
        else:
            text = f"{p.resource_cards}:{p.development_cards}"
            if v.victory_cards is not None:
                text += f"v{v.victory_cards[q]}"
        cards.append(text)
    t = v.trade
    if t is None:
        trade = "-"
    else:
        trade = _trade_text(
            (t.give, t.get),
            [int(Answer[a.upper()]) for a in t.answers],
            list(t.counters),
        )
    return " ".join(
        (
            _board_text(board, v.robber),
            _pieces_text(buildings, roads),
            "/".join(cards),
            _counts_text(v.bank, RESOURCE_LETTERS) + "/" + str(v.development_deck),
            f"{v.phase}@{v.current}",
            f"t{v.turn}",
            _dice_text(v.dice),
            "p" if v.dev_card_played else "-",
            _awards_text(
                next((p.seat for p in v.seats if p.has_longest_road), -1),
                next((p.seat for p in v.seats if p.has_largest_army), -1),
                [p.knights for p in v.seats],
                -1 if v.winner is None else v.winner,
            ),
            _owed_text([p.discards_owed for p in v.seats], v.free_roads),
            trade,
            f"v{v.victory_points},l{discard_limit},a{v.state_id},seat{v.seat}",
        )
    )


# ======================================================================================
# Reading
# ======================================================================================


class _Field:
    """One field of the text: its name, its text and where it starts (for errors)."""

    __slots__ = ("name", "start", "text")

    def __init__(self, name: str, text: str, start: int) -> None:
        self.name = name
        self.text = text
        self.start = start

    def error(self, offset: int, what: str) -> NotationError:
        """An error at ``offset`` characters into this field."""
        return NotationError(f"at character {self.start + offset + 1} ({self.name}): {what}")

    def parts(self, sep: str, offset: int = 0, text: str | None = None) -> list[tuple[int, str]]:
        """``text`` (the field's by default, starting at ``offset``) split on ``sep``, each
        piece with its offset in the field."""
        src = self.text if text is None else text
        out = []
        at = offset
        for piece in src.split(sep):
            out.append((at, piece))
            at += len(piece) + len(sep)
        return out

    def integer(
        self, offset: int, text: str, what: str, low: int = 0, high: int | None = None
    ) -> int:
        """``text`` as an int in ``[low, high]`` (no upper bound when ``high`` is None)."""
        if not _INT_RE.fullmatch(text):
            raise self.error(offset, f"{what} must be a number, not {text!r}")
        value = int(text)
        if value < low or (high is not None and value > high):
            bound = f"at least {low}" if high is None else f"{low} to {high}"
            raise self.error(offset, f"{what} must be {bound}, not {value}")
        return value

    def seat(self, offset: int, text: str, what: str, n: int) -> int:
        """A seat number, or -1 for ``-``."""
        if text == "-":
            return -1
        return self.integer(offset, text, what, 0, n - 1)

    def counts(self, offset: int, text: str, letters: str, what: str) -> list[int]:
        """``2BW``-style counts over ``letters`` (``-`` for none)."""
        out = [0] * len(letters)
        if text == "-":
            return out
        if not text:
            raise self.error(offset, f"{what} is empty (write - for none)")
        at = 0
        while at < len(text):
            m = _COUNT_RE.match(text, at)
            if m is None:
                raise self.error(offset + at, f"{what}: expected a count and a letter")
            letter = m.group(2)
            k = letters.find(letter)
            if k < 0:
                raise self.error(
                    offset + m.start(2), f"{what}: unknown card {letter!r} (one of {letters})"
                )
            if out[k]:
                raise self.error(offset + m.start(2), f"{what}: {letter} is given twice")
            count = int(m.group(1)) if m.group(1) else 1
            if count < 1:
                raise self.error(offset + at, f"{what}: a count must be at least 1")
            out[k] = count
            at = m.end()
        return out


def _fields(text: str) -> list[_Field]:
    if not text.isascii():
        at = next(i for i, c in enumerate(text) if not c.isascii())
        raise NotationError(
            f"at character {at + 1}: {text[at]!r} is not ASCII (a position is written in "
            "ASCII letters, digits and signs, its fields separated by ASCII spaces)"
        )
    found = list(_FIELD_RE.finditer(text))
    if len(found) != len(FIELDS):
        raise NotationError(
            f"a position has {len(FIELDS)} fields separated by spaces "
            f"({' '.join(FIELDS)}), not {len(found)}"
        )
    return [_Field(name, m.group(), m.start()) for name, m in zip(FIELDS, found, strict=True)]


def _parse_board(f: _Field) -> tuple[Board, int]:
    """The board and the robber's hex (-1 for none)."""
    if f.text.count("/") not in (1, 2, 3):
        raise f.error(
            0,
            "write the hexes, a /, then the harbours (and a / and their layout, and "
            f"/{REDS_MAY_TOUCH} where 6s and 8s may touch)",
        )
    hexes, harbours_text, *rest = f.text.split("/")
    layout = HARBOUR_LAYOUT
    reds_may_touch = False
    at = len(hexes) + len(harbours_text) + 2
    if rest and rest[-1] == REDS_MAY_TOUCH:
        reds_may_touch = True
        rest.pop()
    if rest:
        if not rest[0].isdigit() or int(rest[0]) not in HARBOUR_LAYOUTS:
            known = ", ".join(map(str, HARBOUR_LAYOUTS))
            raise f.error(
                at,
                f"unknown harbour layout {rest[0]!r} (one of {known}; or {REDS_MAY_TOUCH}, "
                "last, where 6s and 8s may touch)",
            )
        layout = int(rest[0])
        if len(rest) > 1:
            raise f.error(at + len(rest[0]) + 1, f"after the layout only /{REDS_MAY_TOUCH}")
    terrain: list[int] = []
    tokens: list[int] = []
    robber = -1
    at = 0
    while at < len(hexes):
        m = _HEX_RE.match(hexes, at)
        if m is None:
            raise f.error(at, f"expected a hex (a terrain letter, one of {TERRAIN_LETTERS})")
        kind = TERRAIN_LETTERS.find(m.group(1))
        if kind < 0:
            raise f.error(at, f"unknown terrain {m.group(1)!r} (one of {TERRAIN_LETTERS})")
        token = int(m.group(2)) if m.group(2) else 0
        if kind == Terrain.DESERT and token:
            raise f.error(at, f"hex {len(terrain)} is a desert and cannot carry token {token}")
        if kind != Terrain.DESERT and (token < 2 or token > 12 or token == 7):
            raise f.error(at, f"hex {len(terrain)} needs a number token 2-6 or 8-12")
        if m.group(3):
            if robber >= 0:
                raise f.error(m.start(3), "the robber is marked twice")
            robber = len(terrain)
        terrain.append(kind)
        tokens.append(token)
        at = m.end()
    radius = 0
    while 3 * radius * (radius - 1) + 1 < len(terrain):
        radius += 1
    if 3 * radius * (radius - 1) + 1 != len(terrain):
        raise f.error(0, f"{len(terrain)} hexes make no hexagonal island (19, 37, 61, ...)")
    harbours = []
    base = len(hexes) + 1
    if harbours_text != "-":
        for i, letter in enumerate(harbours_text):
            k = HARBOUR_LETTERS.find(letter)
            if k < 0:
                raise f.error(base + i, f"unknown harbour {letter!r} (one of {HARBOUR_LETTERS})")
            harbours.append(k)
    try:
        board = Board.from_layout(
            terrain,
            tokens,
            harbours,
            radius,
            harbour_layout=layout,
            reds_may_touch=reds_may_touch,
        )
    except EngineError as exc:
        raise f.error(0, str(exc)) from exc
    return board, robber


def _parse_pieces(
    f: _Field, state: GameState
) -> tuple[list[list[tuple[int, int, int]]], list[list[tuple[int, int]]]]:
    """Per seat: buildings as (offset, vertex, level) and roads as (offset, edge)."""
    n = state.n
    blocks = f.parts("/")
    buildings: list[list[tuple[int, int, int]]] = [[] for _ in range(n)]
    roads: list[list[tuple[int, int]]] = [[] for _ in range(n)]
    topo = state.topo
    for q, (start, block) in enumerate(blocks):
        if block == "-":
            continue
        for at, item in f.parts(",", start, block):
            kind, number = item[:1], item[1:]
            if kind in ("s", "c"):
                v = f.integer(at + 1, number, "a vertex", 0, topo.n_vertices - 1)
                buildings[q].append((at, v, 1 if kind == "s" else 2))
            elif kind == "r":
                roads[q].append((at, f.integer(at + 1, number, "an edge", 0, topo.n_edges - 1)))
            else:
                raise f.error(at, f"a piece is s, c or r and a number, not {item!r}")
    return buildings, roads


def _place_pieces(
    f: _Field,
    state: GameState,
    buildings: list[list[tuple[int, int, int]]],
    roads: list[list[tuple[int, int]]],
) -> None:
    for q in range(state.n):
        for at, v, level in buildings[q]:
            if state.vowner[v] >= 0:
                raise f.error(at, f"vertex {v} already holds a building")
            place_settlement(state, q, v)
            if level == 2:
                upgrade_city(state, q, v)
            if state.settlements_left[q] < 0 or state.cities_left[q] < 0:
                raise f.error(
                    at,
                    f"seat {q} has more than {SETTLEMENTS_PER_PLAYER} settlements or "
                    f"{CITIES_PER_PLAYER} cities",
                )
        for at, e in roads[q]:
            if state.eowner[e] >= 0:
                raise f.error(at, f"edge {e} already holds a road")
            place_road(state, q, e)
            if state.roads_left[q] < 0:
                raise f.error(at, f"seat {q} has more than {ROADS_PER_PLAYER} roads")
    for q in range(state.n):
        state.road_len[q] = longest_road(state, q)


class _Cards:
    """The cards field: full hands, or counts for the seats a seat's form hides."""

    __slots__ = ("dev", "dev_counts", "hand", "hand_counts", "new", "victory")

    def __init__(self, n: int) -> None:
        self.hand = [[0] * N_RESOURCES for _ in range(n)]
        self.dev = [[0] * N_DEV_KINDS for _ in range(n)]  # held, new ones included
        self.new = [[0] * N_DEV_KINDS for _ in range(n)]
        self.hand_counts = [-1] * n  # hidden seats: card counts (-1: shown in full)
        self.dev_counts = [0] * n
        self.victory = [0] * n  # hidden seats: victory cards shown at the end


def _parse_cards(f: _Field, n: int, viewer: int) -> _Cards:
    blocks = f.parts("/")
    if len(blocks) != n:
        raise f.error(0, f"the pieces give {n} seats, the cards {len(blocks)}")
    cards = _Cards(n)
    for q, (start, block) in enumerate(blocks):
        if viewer >= 0 and q != viewer:
            m = re.fullmatch(r"(\d+):(\d+)(?:v(\d+))?", block)
            if m is None:
                raise f.error(start, f"seat {q}'s cards are hidden: write resources:development")
            cards.hand_counts[q] = int(m.group(1))
            cards.dev_counts[q] = int(m.group(2))
            cards.victory[q] = int(m.group(3) or 0)
            if cards.victory[q] > cards.dev_counts[q]:
                raise f.error(start, f"seat {q} shows more victory cards than it holds")
            continue
        rest, plus, new_text = block.partition("+")
        hand_text, colon, old_text = rest.partition(":")
        cards.hand[q] = f.counts(start, hand_text, RESOURCE_LETTERS, f"seat {q}'s hand")
        old = [0] * N_DEV_KINDS
        if colon:
            at = start + len(hand_text) + 1
            old = f.counts(at, old_text, DEV_LETTERS, f"seat {q}'s development cards")
        if plus:
            at = start + len(rest) + 1
            cards.new[q] = f.counts(at, new_text, DEV_LETTERS, f"seat {q}'s new cards")
        cards.dev[q] = [old[k] + cards.new[q][k] for k in range(N_DEV_KINDS)]
    return cards


def _parse_trade(
    f: _Field, state: GameState
) -> tuple[
    tuple[tuple[int, ...], tuple[int, ...]] | None,
    list[int],
    list[tuple[tuple[int, ...], tuple[int, ...]] | None],
]:
    n = state.n
    if f.text == "-":
        return None, [int(Answer.NOT_ASKED)] * n, [None] * n
    head, slash, tail = f.text.partition("/")
    if not slash:
        raise f.error(0, "write the offer (give>get, or -), a /, then each seat's answer")
    offer = None if head == "-" else _parse_offer(f, 0, head, "the offer")
    answers: list[int] = []
    counters: list[tuple[tuple[int, ...], tuple[int, ...]] | None] = []
    parts = f.parts(",", len(head) + 1, tail)
    if len(parts) != n:
        raise f.error(len(head) + 1, f"give an answer for each of {n} seats, not {len(parts)}")
    letters = "".join(ANSWER_LETTERS.values())
    for q, (at, part) in enumerate(parts):
        letter, eq, counter = part.partition("=")
        if len(letter) != 1 or letter not in letters:
            raise f.error(at, f"seat {q}'s answer is one of {letters}, not {letter!r}")
        answers.append(int(next(a for a, s in ANSWER_LETTERS.items() if s == letter)))
        counters.append(_parse_offer(f, at + 2, counter, f"seat {q}'s counter") if eq else None)
    return offer, answers, counters


def _parse_offer(
    f: _Field, at: int, text: str, what: str
) -> tuple[tuple[int, ...], tuple[int, ...]]:
    give, gt, get = text.partition(">")
    if not gt:
        raise f.error(at, f"{what} is give>get")
    a = f.counts(at, give, RESOURCE_LETTERS, what)
    b = f.counts(at + len(give) + 1, get, RESOURCE_LETTERS, what)
    return tuple(a), tuple(b)


def _parse_keys(f: _Field) -> dict[str, tuple[int, str]]:
    out: dict[str, tuple[int, str]] = {}
    for at, part in f.parts(","):
        m = _KEY_RE.fullmatch(part)
        if m is None:
            raise f.error(at, f"expected a key and a value, not {part!r}")
        key = m.group(1)
        if key in out:
            raise f.error(at, f"{key} is given twice")
        out[key] = (at + len(key), m.group(2))
    return out


def _parse(text: str, want_view: bool) -> tuple[GameState, int]:
    """The state the text describes (hidden parts of a seat's form filled in) and the seat
    whose form it is (-1 for a whole position)."""
    fs = _fields(text)
    board_f, pieces_f, cards_f, supply_f, phase_f = fs[0], fs[1], fs[2], fs[3], fs[4]
    turn_f, dice_f, flags_f, awards_f, owed_f, trade_f, game_f = fs[5:]

    keys = _parse_keys(game_f)
    viewer = -1
    if "seat" in keys:
        at, value = keys["seat"]
        viewer = game_f.integer(at, value, "the seat", 0)
    if want_view and viewer < 0:
        raise game_f.error(0, "this is a whole position, not a seat's form (no seat key)")
    if not want_view and viewer >= 0:
        raise game_f.error(0, "this is a seat's form; read it with parse_view")
    allowed = {"v", "l", "a", "seat"} if viewer >= 0 else {"v", "l", "a", "s", "r"}
    for key, (at, _) in keys.items():
        if key not in allowed:
            raise game_f.error(at - len(key), f"unknown key {key!r} (one of {sorted(allowed)})")
    for key in sorted(allowed - {"seat"}):
        if key not in keys:
            raise game_f.error(0, f"the key {key} is missing")

    def key_int(key: str, what: str, low: int = 0) -> int:
        at, value = keys[key]
        return game_f.integer(at, value, what, low)

    victory_points = key_int("v", "the victory points", 1)
    discard_limit = key_int("l", "the discard limit", 1)
    actions_taken = key_int("a", "the actions taken")
    seed = 0
    rng = -1
    if viewer < 0:
        seed = key_int("s", "the seed", -(1 << 63))
        at, value = keys["r"]
        if not re.fullmatch(r"[0-9a-f]{16}", value):
            raise game_f.error(
                at, f"the generator state is 16 hex digits, not {value!r} ({len(value)})"
            )
        rng = int(value, 16)

    board, robber = _parse_board(board_f)
    n = len(pieces_f.parts("/"))
    if viewer >= n:
        raise game_f.error(0, f"there is no seat {viewer} in a game of {n}")
    try:
        config = GameConfig.with_board(
            board, players=n, victory_points=victory_points, discard_limit=discard_limit
        )
    except EngineError as exc:
        raise pieces_f.error(0, f"{n} seats: {exc}") from exc
    state = empty_state(config, board, seed)
    state.rng = rng if rng >= 0 else seed_state(seed, stream=2)
    state.robber = robber
    buildings, roads = _parse_pieces(pieces_f, state)
    _place_pieces(pieces_f, state, buildings, roads)

    # cards
    cards = _parse_cards(cards_f, n, viewer)
    bank_text, slash, deck_text = supply_f.text.partition("/")
    if not slash:
        raise supply_f.error(0, "write the bank, a /, then the deck")
    state.bank = supply_f.counts(0, bank_text, RESOURCE_LETTERS, "the bank")
    deck_at = len(bank_text) + 1
    if viewer >= 0:
        state.deck = [supply_f.integer(deck_at, deck_text, "the deck")] + [0] * (N_DEV_KINDS - 1)
    else:
        state.deck = supply_f.counts(deck_at, deck_text, DEV_LETTERS, "the deck")

    # phase and seat to move
    name, at_sign, current_text = phase_f.text.partition("@")
    try:
        phase = Phase[name.upper()]
    except KeyError:
        names = ", ".join(p.name.lower() for p in Phase)
        raise phase_f.error(0, f"unknown phase {name!r} (one of {names})") from None
    if not at_sign:
        raise phase_f.error(len(name), "write the phase, @, then the seat to move")
    state.phase = phase
    state.current = phase_f.integer(len(name) + 1, current_text, "the seat to move", 0, n - 1)
    for q in range(n):
        if cards.new[q] != [0] * N_DEV_KINDS and q != state.current:
            raise cards_f.error(0, f"seat {q} is not to move and cannot hold cards bought now")
    state.hand = []
    state.dev = []
    for q in range(n):
        if cards.hand_counts[q] >= 0:  # hidden: counts only, laid as brick and knights
            hidden = [0] * N_DEV_KINDS
            hidden[DevCard.VICTORY_POINT] = cards.victory[q]
            hidden[DevCard.KNIGHT] = cards.dev_counts[q] - cards.victory[q]
            state.hand += [cards.hand_counts[q]] + [0] * (N_RESOURCES - 1)
            state.dev += hidden
        else:
            state.hand += cards.hand[q]
            state.dev += cards.dev[q]
    state.dev_new = cards.new[state.current][:]

    turn_text = turn_f.text
    if not turn_text.startswith("t"):
        raise turn_f.error(0, f"the turn is t and a number, not {turn_text!r}")
    state.turn = turn_f.integer(1, turn_text[1:], "the turn")

    if dice_f.text == "-":
        state.dice = None
    else:
        m = re.fullmatch(r"([1-6])\+([1-6])", dice_f.text)
        if m is None:
            raise dice_f.error(
                0, f"the dice are two numbers 1-6 like 3+4, or -, not {dice_f.text!r}"
            )
        state.dice = (int(m.group(1)), int(m.group(2)))

    flags = "" if flags_f.text == "-" else flags_f.text
    known = "p" if viewer >= 0 else "rp"
    for i, c in enumerate(flags):
        if c not in known or flags.count(c) > 1:
            raise flags_f.error(i, f"the flags are - or some of {known!r}, not {flags_f.text!r}")
    state.dev_played = "p" in flags
    if viewer >= 0:  # rolled is not shown: it follows from the phase, as a rebuild has it
        state.rolled = phase in (Phase.DISCARD, Phase.MAIN, Phase.ROAD_BUILDING, Phase.TRADE) or (
            phase == Phase.MOVE_ROBBER and state.dice is not None
        )
    else:
        state.rolled = "r" in flags

    _parse_awards(awards_f, state)

    state.owed = [0] * n
    state.free_roads = 0
    seen_owed: set[str] = set()
    if owed_f.text != "-":
        for at, part in owed_f.parts(","):
            m = re.fullmatch(r"d(\d+):(\d+)|f(\d+)", part)
            if m is None:
                raise owed_f.error(at, f"expected dSEAT:CARDS or fROADS, not {part!r}")
            key = "f" if m.group(3) is not None else f"d{m.group(1)}"
            if key in seen_owed:
                raise owed_f.error(at, f"{key} is given twice")
            seen_owed.add(key)
            if m.group(3) is not None:
                state.free_roads = int(m.group(3))
            else:
                q = owed_f.integer(at + 1, m.group(1), "the seat", 0, n - 1)
                state.owed[q] = owed_f.integer(
                    at + 2 + len(m.group(1)), m.group(2), "the cards owed", 1
                )

    state.offer, state.answers, state.counters = _parse_trade(trade_f, state)
    if phase == Phase.TRADE and state.offer is None:
        raise phase_f.error(0, "trade@ needs the open offer in the trade field (give>get/...)")
    if phase == Phase.DISCARD and not any(state.owed):
        raise phase_f.error(0, "discard@ needs a seat that owes cards (dSEAT:CARDS in owed)")
    state.actions_taken = actions_taken
    _settle_setup(phase_f, state, sum(len(r) for r in roads))
    return state, viewer


def _parse_awards(f: _Field, state: GameState) -> None:
    n = state.n
    keys: dict[str, tuple[int, str]] = {}
    for at, part in f.parts(","):
        key = part[:1]
        if key not in ("L", "A", "K", "W") or key in keys:
            raise f.error(at, f"expected L, A, K and W once each, not {part!r}")
        keys[key] = (at + 1, part[1:])
    for key in ("L", "A", "K"):
        if key not in keys:
            raise f.error(
                0,
                f"the awards need L (longest road), A (largest army), K (knights); "
                f"{key} is missing",
            )
    at, value = keys["L"]
    longest = f.seat(at, value, "the longest road's holder", n)
    at, value = keys["A"]
    army = f.seat(at, value, "the largest army's holder", n)
    at, value = keys["K"]
    knights = f.parts(".", at, value)
    if len(knights) != n:
        raise f.error(at, f"give the knights played by each of {n} seats, not {len(knights)}")
    state.knights = [f.integer(a, k, "knights played") for a, k in knights]
    state.winner = -1
    if "W" in keys:
        at, value = keys["W"]
        state.winner = f.seat(at, value, "the winner", n)
    set_award(state, Award.LONGEST_ROAD, longest)
    set_award(state, Award.LARGEST_ARMY, army)


def _settle_setup(f: _Field, state: GameState, roads: int) -> None:
    """The set-up's step and the settlement the next road must touch, from the pieces."""
    phase = state.phase
    if phase not in (Phase.SETUP_SETTLEMENT, Phase.SETUP_ROAD):
        state.setup_step = 2 * state.n
        first = state.pbuild[0]
        state.last_vertex = first[1] if len(first) > 1 else -1
        return
    state.setup_step = roads
    if roads >= 2 * state.n:
        raise f.error(0, f"{roads} roads are more than the set-up places")
    order = setup_order(state.n)
    if state.current != order[roads]:
        raise f.error(0, f"set-up step {roads} is seat {order[roads]}'s, not {state.current}'s")
    if phase == Phase.SETUP_ROAD:
        mine = state.pbuild[state.current]
        if not mine:
            raise f.error(0, f"seat {state.current} has no settlement for its set-up road")
        state.last_vertex = mine[-1]
    elif roads:
        before = state.pbuild[order[roads - 1]]
        state.last_vertex = before[-1] if before else -1
    else:
        state.last_vertex = -1


def parse(text: str) -> GameState:
    """The position ``text`` (from :func:`format`) describes. Raises :class:`NotationError`
    naming the character and field at fault."""
    state, _ = _parse(text, False)
    return state


def parse_view(text: str) -> View:
    """The view a seat's form (from ``format(state, seat)``) describes. Raises
    :class:`NotationError` naming the character and field at fault."""
    state, seat = _parse(text, True)
    return view(state, seat)
