"""The ``heuristic`` bot: a rule-based player, the baseline the search bots are measured by.

It decides from what its seat may see (the view each prompt carries) and the prompt's legal
actions: placements by production weighted with dice probability, resource variety and
harbours; cities before settlements before development cards before roads; the robber on
the leader's best hex; bank and harbour trades toward its next build; domestic offers
accepted when they bring a build closer; discards of what it needs least.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Any

from bots.playout import (
    GENERIC_HARBOUR_BONUS,
    HARBOUR_NEED,
    SPECIFIC_HARBOUR_BONUS,
    VARIETY_BONUS,
)
from clients.sdk import Agent, Table
from engine.constants import DICE_DOTS
from engine.topology import Topology, topology
from protocol import messages as m
from protocol.payloads import RESOURCE_NAMES, Cards, ViewPayload

_TERRAIN_RESOURCE = {"hills": 0, "forest": 1, "pasture": 2, "fields": 3, "mountains": 4}
CITY = (0, 0, 0, 2, 3)
SETTLEMENT = (1, 1, 1, 1, 0)
ROAD = (1, 1, 0, 0, 0)
DEV_CARD = (0, 0, 1, 1, 1)


def next_build(has_settlement: bool, cities_left: int, settlements_left: int) -> tuple[int, ...]:
    """The price of the next thing worth saving for: a city while there is a settlement to
    upgrade and a city piece left, else a settlement while a piece is left, else a
    development card."""
    if cities_left and has_settlement:
        return CITY
    if settlements_left:
        return SETTLEMENT
    return DEV_CARD


def _counts(cards: Cards | None) -> list[int]:
    return [0] * 5 if cards is None else list(cards.counts())


class HeuristicAgent(Agent):
    """Rule-based play from the seat's view (see the module docstring)."""

    name = "heuristic"

    def __init__(self, seed: int | None = None) -> None:
        self.rng = random.Random(seed)

    def choose(self, prompt: m.Prompt, table: Table) -> Any:
        view = prompt.view or table.view
        if view is None or view.seat is None:
            return self.rng.choice(prompt.actions)
        return Decision(view, prompt.actions, self.rng).best()


class Decision:
    """One choice, with the facts of the view worked out once."""

    def __init__(self, view: ViewPayload, actions: Sequence[Any], rng: random.Random) -> None:
        self.view = view
        self.actions = list(actions)
        self.rng = rng
        self.me = view.seat if view.seat is not None else 0
        self.topo: Topology = topology(view.board.radius)
        self.hand = _counts(view.hand)
        self.owner: dict[int, tuple[int, int]] = {v: (s, 1) for v, s in view.settlements}
        self.owner.update({v: (s, 2) for v, s in view.cities})
        self.by_kind: dict[str, list[Any]] = {}
        for a in self.actions:
            self.by_kind.setdefault(a.kind, []).append(a)
        self.production = self._production(self.me)

    # --- facts ----------------------------------------------------------------------------
    def hex_dots(self, h: int) -> int:
        token = self.view.board.tokens[h]
        return DICE_DOTS[token] if token else 0

    def hex_resource(self, h: int) -> int | None:
        return _TERRAIN_RESOURCE.get(self.view.board.terrain[h])

    def _production(self, seat: int) -> list[float]:
        out = [0.0] * 5
        for v, (s, level) in self.owner.items():
            if s == seat:
                for h in self.topo.vertex_hexes[v]:
                    r = self.hex_resource(h)
                    if r is not None and h != self.view.robber:
                        out[r] += level * self.hex_dots(h)
        return out

    def vertex_value(self, v: int) -> float:
        """How good a settlement on ``v`` would be for this seat."""
        value = 0.0
        new = set()
        for h in self.topo.vertex_hexes[v]:
            r = self.hex_resource(h)
            if r is not None:
                value += self.hex_dots(h)
                if self.production[r] == 0:
                    new.add(r)
        value += VARIETY_BONUS * len(new)
        board = self.view.board
        slots = self.topo.harbour_slots_of(board.harbour_layout)
        for slot, kind in zip(slots, board.harbours, strict=True):
            if v in self.topo.edge_vertices[slot]:
                if kind == "generic":
                    value += GENERIC_HARBOUR_BONUS
                elif self.production[RESOURCE_NAMES.index(kind)] >= HARBOUR_NEED:
                    value += SPECIFIC_HARBOUR_BONUS
        return value

    def free_spot(self, v: int) -> bool:
        return v not in self.owner and all(
            w not in self.owner for w in self.topo.vertex_vertices[v]
        )

    def target(self) -> tuple[int, ...]:
        """The next thing worth saving for."""
        me = self.view.seats[self.me]
        upgradable = any(s == self.me and lv == 1 for s, lv in self.owner.values())
        return next_build(upgradable, me.cities_left, me.settlements_left)

    def missing(self, hand: Sequence[int], cost: Sequence[int]) -> int:
        return sum(max(0, c - h) for h, c in zip(hand, cost, strict=True))

    # --- the choice -------------------------------------------------------------------------
    def best(self) -> Any:
        k = self.by_kind
        for kind, pick in (
            ("place_settlement", self._place_settlement),
            ("place_road", self._road),
            ("discard", self._discard),
            ("move_robber", self._robber),
            ("accept_trade", self._answer),
            ("decline_trade", self._answer),
            ("confirm_trade", lambda: k["confirm_trade"][0]),
            ("cancel_trade", lambda: k["cancel_trade"][0]),
        ):
            if kind in k:
                return pick()
        if "roll_dice" in k:
            if "play_knight" in k and self._robber_hurts_me():
                return k["play_knight"][0]
            return k["roll_dice"][0]
        if self.view.phase == "road_building" and "build_road" in k:
            return self._road()
        return self._main()

    def _place_settlement(self) -> Any:
        return max(self.by_kind["place_settlement"], key=lambda a: self.vertex_value(a.vertex))

    def _road(self) -> Any:
        """The road leading toward the best free spot nearby."""
        options = self.by_kind.get("place_road") or self.by_kind["build_road"]

        def reach(a: Any) -> float:
            best = 0.0
            for end in self.topo.edge_vertices[a.edge]:
                frontier = {end}
                for dist in range(3):
                    for v in frontier:
                        if self.free_spot(v):
                            best = max(best, self.vertex_value(v) / (1 + dist))
                    frontier = {w for v in frontier for w in self.topo.vertex_vertices[v]}
            return best + self.rng.random() * 1e-3

        return max(options, key=reach)

    def _discard(self) -> Any:
        need = self.target()

        def spare(a: Any) -> int:
            r = a.cards.counts().index(1) if sum(a.cards.counts()) == 1 else 0
            return self.hand[r] - need[r]

        return max(self.by_kind["discard"], key=spare)

    def _robber(self) -> Any:
        points = [p.points for p in self.view.seats]

        def harm(a: Any) -> float:
            score = 0.0
            for v in self.topo.hex_vertices[a.hex]:
                if v in self.owner:
                    seat, level = self.owner[v]
                    if seat == self.me:
                        return -100.0
                    score += level * self.hex_dots(a.hex) * (1 + points[seat])
            if a.victim is not None:
                score += 5 + points[a.victim]
            return score + self.rng.random() * 1e-3

        return max(self.by_kind["move_robber"], key=harm)

    def _robber_hurts_me(self) -> bool:
        return (
            any(
                v in self.owner and self.owner[v][0] == self.me
                for v in self.topo.hex_vertices[self.view.robber]
            )
            and self.hex_dots(self.view.robber) >= 3
        )

    def _answer(self) -> Any:
        trade = self.view.trade
        accept = self.by_kind.get("accept_trade")
        if trade is None or not accept:
            return self.by_kind["decline_trade"][0]
        gain, pay = trade.give.counts(), trade.get.counts()
        after = [h + g - p for h, g, p in zip(self.hand, gain, pay, strict=True)]
        target = self.target()
        if self.missing(after, target) < self.missing(self.hand, target):
            return accept[0]
        return self.by_kind["decline_trade"][0]

    def _main(self) -> Any:
        k = self.by_kind
        if "build_city" in k:
            return max(
                k["build_city"],
                key=lambda a: sum(self.hex_dots(h) for h in self.topo.vertex_hexes[a.vertex]),
            )
        if "build_settlement" in k:
            return max(k["build_settlement"], key=lambda a: self.vertex_value(a.vertex))
        card = self._card()
        if card is not None:
            return card
        target = self.target()
        if "buy_dev_card" in k and self.missing(self.hand, target) > 2:
            return k["buy_dev_card"][0]
        if "build_road" in k and (target is not CITY or self.view.seats[self.me].settlements_left):
            spots = [v for v in range(self.topo.n_vertices) if self.free_spot(v)]
            if spots and not k.get("build_settlement"):
                return self._road()
        trade = self._maritime(target)
        if trade is not None:
            return trade
        if "buy_dev_card" in k:
            return k["buy_dev_card"][0]
        return k["end_turn"][0]

    def _card(self) -> Any | None:
        k = self.by_kind
        if "play_knight" in k and self._robber_hurts_me():
            return k["play_knight"][0]
        target = self.target()
        if "play_year_of_plenty" in k:
            lacking = [max(0, c - h) for h, c in zip(self.hand, target, strict=True)]
            return max(
                k["play_year_of_plenty"],
                key=lambda a: sum(
                    min(x, y) for x, y in zip(a.cards.counts(), lacking, strict=True)
                ),
            )
        if "play_monopoly" in k:
            want = max(range(5), key=lambda r: target[r] - self.hand[r])
            return next(a for a in k["play_monopoly"] if a.resource == RESOURCE_NAMES[want])
        if "play_road_building" in k:
            return k["play_road_building"][0]
        return None

    def _maritime(self, target: tuple[int, ...]) -> Any | None:
        for a in self.by_kind.get("maritime_trade", []):
            give = RESOURCE_NAMES.index(a.give)
            get = RESOURCE_NAMES.index(a.get)
            if self.hand[get] < target[get] and self.hand[give] - a.ratio >= target[give]:
                return a
        return None
