"""The interned actions of each seat (:func:`action_tables`), built once per board radius
and shared by every game on it, so that :func:`engine.rules.legal_actions` allocates no
action. A module of its own so that the compiled build (``setup.py``) reads the tables'
fields directly; the action classes stay interpreted (``engine/actions.py``).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache

from engine.actions import (
    YEAR_OF_PLENTY_CHOICES,
    AcceptTrade,
    BuildCity,
    BuildRoad,
    BuildSettlement,
    BuyDevCard,
    CancelTrade,
    ConfirmTrade,
    DeclineTrade,
    Discard,
    EndTurn,
    MaritimeTrade,
    MoveRobber,
    PlaceRoad,
    PlaceSettlement,
    PlayKnight,
    PlayMonopoly,
    PlayRoadBuilding,
    PlayYearOfPlenty,
    RollDice,
    counts_of,
)
from engine.constants import BANK_RATIO, MAX_PLAYERS, N_RESOURCES, Resource
from engine.topology import topology


@dataclass(frozen=True, eq=False)
class SeatActions:
    """Every enumerable action of one seat on one radius, built once and shared."""

    place_settlement: tuple[PlaceSettlement, ...]
    place_road: tuple[PlaceRoad, ...]
    roll: RollDice
    discard_one: tuple[Discard, ...]
    move_robber: tuple[tuple[MoveRobber, ...], ...]  # [hex][victim + 1]
    robber_moves: tuple[tuple[tuple[MoveRobber, ...], ...], ...]  # [hex][mask of victims]
    build_road: tuple[BuildRoad, ...]
    build_settlement: tuple[BuildSettlement, ...]
    build_city: tuple[BuildCity, ...]
    buy_dev: BuyDevCard
    knight: PlayKnight
    road_building: PlayRoadBuilding
    year_of_plenty: tuple[PlayYearOfPlenty, ...]
    monopoly: tuple[PlayMonopoly, ...]
    maritime: tuple[tuple[tuple[MaritimeTrade, ...], ...], ...]  # [ratio][give] -> gets
    accept: AcceptTrade
    decline: DeclineTrade
    confirm: tuple[ConfirmTrade, ...]
    cancel: CancelTrade
    end_turn: EndTurn


@cache
def action_tables(radius: int) -> tuple[SeatActions, ...]:
    """The interned actions of every seat for a board radius."""
    topo = topology(radius)
    out = []
    masks = range(1 << MAX_PLAYERS)
    for s in range(MAX_PLAYERS):
        move_robber = tuple(
            tuple(MoveRobber(s, h, None if v < 0 else v) for v in range(-1, MAX_PLAYERS))
            for h in range(topo.n_hexes)
        )
        maritime = tuple(
            tuple(
                tuple(
                    MaritimeTrade(s, Resource(g), Resource(w), ratio)
                    for w in range(N_RESOURCES)
                    if w != g
                )
                for g in range(N_RESOURCES)
            )
            for ratio in range(BANK_RATIO + 1)
        )
        out.append(
            SeatActions(
                place_settlement=tuple(PlaceSettlement(s, v) for v in range(topo.n_vertices)),
                place_road=tuple(PlaceRoad(s, e) for e in range(topo.n_edges)),
                roll=RollDice(s),
                discard_one=tuple(Discard(s, counts_of(r)) for r in range(N_RESOURCES)),
                move_robber=move_robber,
                robber_moves=tuple(
                    tuple(
                        tuple(row[q + 1] for q in range(MAX_PLAYERS) if m >> q & 1) or (row[0],)
                        for m in masks
                    )
                    for row in move_robber
                ),
                build_road=tuple(BuildRoad(s, e) for e in range(topo.n_edges)),
                build_settlement=tuple(BuildSettlement(s, v) for v in range(topo.n_vertices)),
                build_city=tuple(BuildCity(s, v) for v in range(topo.n_vertices)),
                buy_dev=BuyDevCard(s),
                knight=PlayKnight(s),
                road_building=PlayRoadBuilding(s),
                year_of_plenty=tuple(PlayYearOfPlenty(s, c) for c in YEAR_OF_PLENTY_CHOICES),
                monopoly=tuple(PlayMonopoly(s, Resource(r)) for r in range(N_RESOURCES)),
                maritime=maritime,
                accept=AcceptTrade(s),
                decline=DeclineTrade(s),
                confirm=tuple(ConfirmTrade(s, p) for p in range(MAX_PLAYERS)),
                cancel=CancelTrade(s),
                end_turn=EndTurn(s),
            )
        )
    return tuple(out)
