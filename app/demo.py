"""``hexhaven demo``: a match between the heuristic bots, told in the terminal."""

from __future__ import annotations

from collections.abc import Callable

from bots.heuristic import HeuristicAgent
from clients.narrate import cards_text
from clients.tui.model import Discarding, PlaceNames, TableNarrator
from engine import Event, GameConfig, GameState, new_game
from engine import events as ev
from protocol.payloads import board_to_payload
from tournament.local import MAX_ACTIONS, play_local

NAMES = ("Ana", "Bo", "Cy", "Di")


def play_demo(
    seed: int,
    config: GameConfig,
    out: Callable[[str], None] = print,
    *,
    quiet: bool = False,
) -> GameState:
    """Play one match of heuristic bots to the end and tell it through ``out``, naming
    places as the terminal client does (by the hexes around them); returns the final
    state."""
    names = NAMES[: config.players]
    board = new_game(config, seed).board
    island = board_to_payload(board.to_dict())
    places = PlaceNames(
        board.radius, island.terrain, island.tokens, island.harbours, board.harbour_layout
    )
    narrator = TableNarrator(names, None, places, Discarding())
    out(
        f"Hexhaven demo: {config.players} heuristic bots, seed {seed}, first to "
        f"{config.victory_points} points"
    )
    if not quiet:
        for ring in range(board.radius):
            hexes = [places.hex(h) for h, k in enumerate(board.topo.hex_ring) if k == ring]
            out(f"ring {ring}: " + ", ".join(hexes))

    def tell(event: Event) -> None:
        if quiet or isinstance(event, ev.GameWon):  # the result is told once, below
            return
        line = narrator.describe(event)
        if line:
            out(narrator.capital(line))

    agents = [HeuristicAgent(seed * 10 + q) for q in range(config.players)]
    state = play_local(agents, config, seed, watch=tell).state
    if state.is_over:
        points = ", ".join(f"{names[q]} {state.victory_points(q)}" for q in range(state.n))
        out(f"{names[state.winner]} won on turn {state.turn}. Points: {points}")
    else:
        out(f"No winner after {MAX_ACTIONS} actions.")
    for q in range(state.n):
        out(f"  {names[q]}: hand {cards_text(state.hand_of(q))}")
    return state
