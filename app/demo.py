"""``hexhaven demo``: a match between the heuristic bots, told in the terminal."""

from __future__ import annotations

from collections.abc import Callable

from bots.heuristic import HeuristicAgent
from clients.narrate import Narrator, cards_text
from engine import Event, GameConfig, GameState, new_game
from engine.constants import Terrain
from tournament.local import MAX_ACTIONS, play_local

NAMES = ("Ana", "Bo", "Cy", "Di")


def play_demo(
    seed: int,
    config: GameConfig,
    out: Callable[[str], None] = print,
    *,
    quiet: bool = False,
) -> GameState:
    """Play one match of heuristic bots to the end and tell it through ``out``; returns the
    final state."""
    names = NAMES[: config.players]
    narrator = Narrator(names)
    out(
        f"Hexhaven demo: {config.players} heuristic bots, seed {seed}, first to "
        f"{config.victory_points} points"
    )
    if not quiet:
        board = new_game(config, seed).board
        for ring in range(board.radius):
            cells = [
                f"{h}:{Terrain(board.terrain[h]).name.lower()}"
                + (f"/{board.tokens[h]}" if board.tokens[h] else "")
                for h, k in enumerate(board.topo.hex_ring)
                if k == ring
            ]
            out(f"ring {ring}: " + "  ".join(cells))

    def tell(event: Event) -> None:
        line = narrator.describe(event)
        if line and not quiet:
            out(line)

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
