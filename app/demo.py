"""``hexhaven demo``: a match between the heuristic bots, told in the terminal."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from bots.heuristic import HeuristicAgent
from clients.game import GameModel
from clients.narrate import PlaceNames, plural
from engine import GameConfig, GameState
from protocol import messages as m
from tournament.local import MAX_ACTIONS, play_local

NAMES = ("Ana", "Bo", "Cy", "Di")


def play_demo(
    seed: int,
    config: GameConfig,
    out: Callable[[str], None] = print,
    *,
    quiet: bool = False,
) -> GameState:
    """Play one match of heuristic bots to the end and tell it through ``out`` as a
    spectator sees it: the game from the spectators' view, the events in sentences that
    name places as the terminal client does (by the hexes around them); returns the final
    state."""
    names = NAMES[: config.players]
    model = GameModel(seat=None, spectator=True)
    model.handle(m.Joined(game="local", seat=None, token=None))
    model.handle(
        m.Players(
            game="local",
            players=[
                m.PlayerInfo(seat=q, name=name, bot=True, connected=True, away=False)
                for q, name in enumerate(names)
            ],
            started=True,
        )
    )
    out(
        f"Hexhaven demo: {config.players} heuristic bots, seed {seed}, first to "
        f"{config.victory_points} points"
    )

    def spectate(message: Any) -> None:
        first = model.view is None
        lines = model.handle(message)
        if quiet:
            return
        if first and model.view is not None:
            v = model.view
            places = PlaceNames(v.radius, v.terrain, v.tokens, v.harbours, v.harbour_layout)
            for ring in range(v.radius):
                hexes = [places.hex(h) for h, k in enumerate(places.topo.hex_ring) if k == ring]
                out(f"ring {ring}: " + ", ".join(hexes))
        if isinstance(message, m.Events):
            if any(getattr(e, "kind", None) == "game_won" for e in message.events):
                lines = lines[:-1]  # the result is told once, below
            for line in lines:
                out(line.text)

    agents = [HeuristicAgent(seed * 10 + q) for q in range(config.players)]
    state = play_local(agents, config, seed, names=names, spectator=spectate).state
    v = model.view
    assert v is not None
    if model.over is not None and model.over.winner is not None:
        points = ", ".join(f"{names[q]} {p}" for q, p in enumerate(model.over.points))
        out(f"{names[model.over.winner]} won on turn {v.turn}. Points: {points}")
    else:
        out(f"No winner after {MAX_ACTIONS} actions.")
    for s in v.seats:
        out(f"  {names[s.seat]}: {plural(s.cards, 'card')} in hand")
    return state
