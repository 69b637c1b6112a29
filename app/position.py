"""The work of ``hexhaven position``: a position in sentences, a seat's form, a stored
game's position."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

import engine
from engine import Answer, GameState, Phase
from engine.constants import HARBOUR_GENERIC, N_DEV_KINDS, DevCard, Resource, Terrain

_TERRAIN = {
    Terrain.HILLS: "hills",
    Terrain.FOREST: "forest",
    Terrain.PASTURE: "pasture",
    Terrain.FIELDS: "fields",
    Terrain.MOUNTAINS: "mountains",
    Terrain.DESERT: "desert",
}
_DEV = {
    DevCard.KNIGHT: "knight",
    DevCard.VICTORY_POINT: "victory point",
    DevCard.ROAD_BUILDING: "road building",
    DevCard.YEAR_OF_PLENTY: "year of plenty",
    DevCard.MONOPOLY: "monopoly",
}


def _cards(counts: Sequence[int], names: Sequence[str]) -> str:
    """``2 brick, 1 ore``; ``none`` for no cards."""
    out = [f"{c} {names[k]}" for k, c in enumerate(counts) if c]
    return ", ".join(out) or "none"


def _resources(counts: Sequence[int]) -> str:
    return _cards(counts, [r.name.lower() for r in Resource])


def _devs(counts: Sequence[int]) -> str:
    return _cards(counts, [_DEV[DevCard(k)] for k in range(len(counts))])


def _count(k: int, thing: str) -> str:
    return f"{k} {thing}" + ("" if k == 1 else "s")


def _who(seat: int) -> str:
    return "nobody" if seat < 0 else f"seat {seat}"


def describe(state: GameState, viewer: int | None = None) -> list[str]:
    """A position in sentences. With ``viewer``, as that seat sees it: other seats' cards
    and the deck as counts, no seed or generator."""
    board = state.board
    n = state.n
    lines = [
        f"{n} players, {state.config.victory_points} points to win; turn {state.turn}, "
        f"{state.actions_taken} actions taken; phase {Phase(state.phase).name.lower()}, "
        f"seat {state.current} to move".replace("_", " ")
        + ("" if state.dice is None else f"; last roll {state.dice[0]}+{state.dice[1]}")
        + ("; a development card was played this turn" if state.dev_played else "")
        + ".",
    ]
    hexes = []
    for h, t in enumerate(board.terrain):
        hexes.append(
            f"{h} {_TERRAIN[Terrain(t)]}"
            + (f" {board.tokens[h]}" if board.tokens[h] else "")
            + (" (robber)" if h == state.robber else "")
        )
    lines.append(f"Board, radius {board.radius}: " + ", ".join(hexes) + ".")
    names = [r.name.lower() for r in Resource]
    harbours = [
        f"{i} {'3:1' if k == HARBOUR_GENERIC else names[k] + ' 2:1'}"
        for i, k in enumerate(board.harbours)
    ]
    lines.append("Harbours: " + ", ".join(harbours) + ".")
    for q in range(n):
        pieces = state.pbuild[q]
        settlements = [str(v) for v in sorted(pieces) if state.vlevel[v] == 1]
        cities = [str(v) for v in sorted(pieces) if state.vlevel[v] == 2]
        parts = [_count(state.vp[q], "public point")]
        parts.append("settlements " + (", ".join(settlements) or "none"))
        parts.append("cities " + (", ".join(cities) or "none"))
        parts.append("roads " + (", ".join(map(str, sorted(state.proads[q]))) or "none"))
        if viewer is None or viewer == q:
            new = state.dev_new if q == state.current else [0] * N_DEV_KINDS
            parts.append("hand " + _resources(state.hand_of(q)))
            parts.append("development cards " + _devs(state.dev_of(q)))
            if any(new):
                parts.append("bought this turn " + _devs(new))
        else:
            parts.append(f"{state.hand_size(q)} resource cards")
            parts.append(f"{sum(state.dev_of(q))} development cards")
        if state.knights[q]:
            parts.append(_count(state.knights[q], "knight") + " played")
        if state.owed[q]:
            parts.append("owes " + _count(state.owed[q], "discard"))
        lines.append(f"Seat {q}: " + "; ".join(parts) + ".")
    deck = f"{sum(state.deck)} cards"
    if viewer is None:
        deck += f" ({_devs(state.deck)})"
    lines.append(f"Bank: {_resources(state.bank)}. Development deck: {deck}.")
    lines.append(
        f"Longest road: {_who(state.longest_holder)}. Largest army: {_who(state.army_holder)}."
    )
    if state.free_roads:
        lines.append(f"Free roads to lay: {state.free_roads}.")
    if state.offer is not None:
        answers = ", ".join(
            f"seat {q} {Answer(a).name.lower().replace('_', ' ')}"
            for q, a in enumerate(state.answers)
        )
        lines.append(
            f"Open offer from seat {state.current}: {_resources(state.offer[0])} for "
            f"{_resources(state.offer[1])}; {answers}."
        )
    if state.winner >= 0:
        lines.append(f"Seat {state.winner} has won.")
    if viewer is None:
        lines.append(f"Seed {state.seed}; generator state {state.rng:016x}.")
    else:
        lines.append(f"As seat {viewer} sees it.")
    return lines


def _seen(text: str) -> tuple[GameState, int]:
    """A seat's form as a state rebuilt from its view (other seats' hands and the deck
    filled with stand-in cards of the counts the view gives), and the seat. Raises
    NotationError."""
    from engine.rebuild import state_from_view

    v = engine.parse_view(text)
    assert v.seat is not None and v.hand is not None and v.development is not None
    hands = [v.hand if p.seat == v.seat else (p.resource_cards, 0, 0, 0, 0) for p in v.seats]
    devs = [
        v.development if p.seat == v.seat else (p.development_cards, 0, 0, 0, 0) for p in v.seats
    ]
    new = v.development_new if v.seat == v.current and v.development_new else (0, 0, 0, 0, 0)
    state = state_from_view(v, hands, devs, (v.development_deck, 0, 0, 0, 0), development_new=new)
    return state, v.seat


def _fail(message: str) -> int:
    print(f"hexhaven position: {message}", file=sys.stderr)
    return 2


def _stored_state(args: argparse.Namespace) -> GameState | str:
    """The stored game's state, or why it cannot be had."""
    from app.commands.common import open_store
    from protocol.options import game_config

    store = open_store("position", args.db, must_exist=True)
    if store is None:
        return ""  # open_store said why
    try:
        stored = store.load(args.from_game)
    finally:
        store.close()
    if stored is None:
        return f"no game {args.from_game!r} in {store.where}"
    actions = stored.actions
    at = len(actions) if args.at is None else args.at
    if not 0 <= at <= len(actions):
        return f"game {stored.id} has states 0 to {len(actions)}, not {at}"
    state, _ = engine.replay(game_config(stored.options), stored.seed, actions[:at])
    return state


def run_position(args: argparse.Namespace) -> int:
    """Show and check a position, or write one; 2 for bad text or a game not found."""
    text = " ".join(args.text)
    if args.from_game is not None:
        if text:
            return _fail("give a position or --from-game, not both")
        found = _stored_state(args)
        if isinstance(found, str):
            return _fail(found) if found else 2
        state = found
    else:
        if args.at is not None:
            return _fail("--at goes with --from-game")
        if not text:
            return _fail("give a position (docs/engine.md describes the notation)")
        try:
            if any(key.startswith("seat") for key in text.split()[-1].split(",")):
                if args.seat is not None:
                    return _fail("this is already a seat's form")
                seen, seat = _seen(text)
                for line in describe(seen, seat):
                    print(line)
                return 0
            state = engine.parse_position(text)
        except engine.NotationError as exc:
            return _fail(str(exc))
    if args.seat is not None and not 0 <= args.seat < state.n:
        return _fail(f"there is no seat {args.seat} in a game of {state.n}")
    if args.from_game is not None or args.seat is not None:
        print(engine.format_position(state, args.seat))
        return 0
    for line in describe(state):
        print(line)
    return 0
