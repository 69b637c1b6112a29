"""What one seat (or a spectator) may see of a game: the only way state leaves the engine.

A seat sees its own hand and development cards, everyone's pieces, card counts and public
points, the open trade, and nothing else: never another seat's cards, the order or contents
of the development deck, or the RNG. Once the game is over, everyone's points and victory
cards are public.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, fields

from engine.actions import Counts
from engine.constants import N_DEV_KINDS, N_RESOURCES, DevCard, Seat
from engine.rules import seats_to_act
from engine.state import Answer, GameState, Phase


def _by_fields(value: PlayerView | TradeView | View) -> tuple[type, tuple[object, ...]]:
    """How to pickle a view: its type and its fields in order (the default way fails for
    frozen dataclasses compiled with mypyc)."""
    return (type(value), tuple(getattr(value, f.name) for f in fields(value)))


@dataclass(frozen=True, slots=True)
class PlayerView:
    """What everyone sees of one seat."""

    seat: Seat
    points: int  # public points: hidden victory cards excluded until the game ends
    resource_cards: int
    development_cards: int
    knights: int
    roads_left: int
    settlements_left: int
    cities_left: int
    longest_road: int
    has_longest_road: bool
    has_largest_army: bool
    discards_owed: int

    def __reduce__(self) -> tuple[type, tuple[object, ...]]:
        return _by_fields(self)


@dataclass(frozen=True, slots=True)
class TradeView:
    """The open domestic offer; ``answers[s]`` is ``not_asked``, ``pending``, ``accepted``,
    ``declined`` or ``countered`` with ``counters[s]`` the (give, get) of seat ``s``."""

    offerer: Seat
    give: Counts
    get: Counts
    answers: tuple[str, ...]
    counters: tuple[tuple[Counts, Counts] | None, ...]

    def __reduce__(self) -> tuple[type, tuple[object, ...]]:
        return _by_fields(self)


@dataclass(frozen=True, slots=True)
class View:
    seat: Seat | None
    state_id: int
    players: int
    victory_points: int
    board: dict[str, object]
    phase: str
    turn: int
    current: Seat
    to_act: tuple[Seat, ...]
    dice: tuple[int, int] | None
    robber: int
    settlements: tuple[tuple[int, Seat], ...]  # (vertex, seat)
    cities: tuple[tuple[int, Seat], ...]
    roads: tuple[tuple[int, Seat], ...]  # (edge, seat)
    bank: Counts
    development_deck: int
    dev_card_played: bool
    free_roads: int
    seats: tuple[PlayerView, ...]
    trade: TradeView | None
    winner: Seat | None
    # the viewer's own secrets (None for spectators)
    hand: Counts | None
    development: Counts | None
    development_new: Counts | None  # bought this turn, not yet playable
    own_points: int | None
    trade_ratios: Counts | None
    # revealed when the game is over
    final_points: tuple[int, ...] | None
    victory_cards: tuple[int, ...] | None

    def __reduce__(self) -> tuple[type, tuple[object, ...]]:
        return _by_fields(self)

    def to_dict(self) -> dict[str, object]:
        """Plain nested dicts and lists, ready for a codec."""
        return asdict(self)


def _counts(values: list[int] | tuple[int, ...], seat: int, width: int = N_RESOURCES) -> Counts:
    b = seat * width
    return (values[b], values[b + 1], values[b + 2], values[b + 3], values[b + 4])


def view(state: GameState, seat: Seat | None) -> View:
    """The game as ``seat`` sees it (``None``: a spectator). Raises ValueError for a seat
    that is not in the game."""
    if seat is not None and not 0 <= seat < state.n:
        raise ValueError(f"there is no seat {seat} in this game")
    n = state.n
    over = state.phase == Phase.GAME_OVER
    players = tuple(
        PlayerView(
            seat=q,
            points=state.vp[q],
            resource_cards=state.hand_size(q),
            development_cards=sum(state.dev[q * N_DEV_KINDS : q * N_DEV_KINDS + N_DEV_KINDS]),
            knights=state.knights[q],
            roads_left=state.roads_left[q],
            settlements_left=state.settlements_left[q],
            cities_left=state.cities_left[q],
            longest_road=state.road_len[q],
            has_longest_road=state.longest_holder == q,
            has_largest_army=state.army_holder == q,
            discards_owed=state.owed[q],
        )
        for q in range(n)
    )
    trade = None
    if state.offer is not None:
        give, get = state.offer
        trade = TradeView(
            offerer=state.current,
            give=_counts(give, 0),
            get=_counts(get, 0),
            answers=tuple(Answer(a).name.lower() for a in state.answers),
            counters=tuple(
                None if c is None else (_counts(c[0], 0), _counts(c[1], 0)) for c in state.counters
            ),
        )
    mine = seat is not None
    own_new = None
    if mine:
        own_new = _counts(state.dev_new, 0) if seat == state.current else (0, 0, 0, 0, 0)
    return View(
        seat=seat,
        state_id=state.actions_taken,
        players=n,
        victory_points=state.config.victory_points,
        board=state.board.to_dict(),
        phase=Phase(state.phase).name.lower(),
        turn=state.turn,
        current=state.current,
        to_act=seats_to_act(state),
        dice=state.dice,
        robber=state.robber,
        settlements=tuple(
            (v, o) for v, o in enumerate(state.vowner) if o >= 0 and state.vlevel[v] == 1
        ),
        cities=tuple((v, o) for v, o in enumerate(state.vowner) if o >= 0 and state.vlevel[v] == 2),
        roads=tuple((e, o) for e, o in enumerate(state.eowner) if o >= 0),
        bank=_counts(state.bank, 0),
        development_deck=sum(state.deck),
        dev_card_played=state.dev_played,
        free_roads=state.free_roads,
        seats=players,
        trade=trade,
        winner=state.winner if state.winner >= 0 else None,
        hand=_counts(state.hand, seat) if mine else None,  # type: ignore[arg-type]
        development=_counts(state.dev, seat, N_DEV_KINDS) if mine else None,  # type: ignore[arg-type]
        development_new=own_new,
        own_points=state.victory_points(seat) if mine else None,  # type: ignore[arg-type]
        trade_ratios=_counts(state.ratio, seat) if mine else None,  # type: ignore[arg-type]
        final_points=tuple(state.victory_points(q) for q in range(n)) if over else None,
        victory_cards=tuple(state.dev[q * N_DEV_KINDS + DevCard.VICTORY_POINT] for q in range(n))
        if over
        else None,
    )
