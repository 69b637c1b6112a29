"""Screenshots of the terminal client, exported by the app itself as SVG.

``python -m clients.tui.screenshot [DIR]`` plays a seeded game at the protocol's game table
(random builders at every seat) to the middle, shows it to the client as the server would
(the table's view, the last turns' events and a prompt, in seat 0's form) and saves
``play.svg`` (the board and the action list), ``offer.svg`` (an offer being made),
``narrow.svg`` (the same at 80x24), ``large.svg`` (at 160x50, the board doubled) and
``replay.svg`` (a finished game replayed) in DIR (default ``docs/screenshots``).
"""

from __future__ import annotations

import asyncio
import random
import sys
from pathlib import Path
from typing import Any

import engine
from clients.tui.app import HexhavenApp
from clients.tui.offline import OfflineTransport
from engine.constants import SETUP_EDITION
from protocol import messages as m
from protocol.options import game_config, seed_hash
from protocol.payloads import action_from_engine
from protocol.table import Table

GAME = "demo"
NAMES = ("Ana", "Bo", "Cy", "Di")
SIZE = (100, 30)
OPTIONS = m.GameOptions(players=4, setup_edition=SETUP_EDITION)
"""The games' options, the board dealt as the server deals a new game's."""


def _random_action(table: Table, rnd: random.Random) -> engine.Action:
    """A random builder's choice of a legal action (of any seat that must act)."""
    acts = engine.legal_actions(table.state)
    busy = [a for a in acts if not isinstance(a, engine.EndTurn | engine.MaritimeTrade)]
    return rnd.choice(busy if busy and rnd.random() < 0.85 else acts)


def _position(seed: int, turns: int) -> tuple[Table, list[m.Events]]:
    """A game played by random builders until seat 0's main phase after ``turns`` turns,
    with the events of the last actions in seat 0's form."""
    table = Table(GAME, game_config(OPTIONS), seed)
    rnd = random.Random(seed)
    history: list[m.Events] = []
    while True:
        state = table.state
        if (
            state.turn >= turns
            and state.current == 0
            and state.phase == engine.Phase.MAIN
            and len(engine.legal_actions(state)) > 2
        ):
            return table, history[-40:]
        action = _random_action(table, rnd)
        told = table.act(action.seat, action)
        history.extend(msg for r, msg in told if r == 0 and isinstance(msg, m.Events))


def _messages(table: Table, history: list[m.Events]) -> list[Any]:
    players = [
        m.PlayerInfo(seat=q, name=NAMES[q], bot=q != 0, connected=True, away=False)
        for q in range(table.state.n)
    ]
    return [
        m.Joined(game=GAME, seat=0, token="t"),
        m.Players(game=GAME, players=players),
        *table.welcome(0),
        *history,
        m.ChatMessage(game=GAME, seat=1, name="Bo", text="anyone have ore?"),
        table.prompt(0, with_view=True),
    ]


def _finished(seed: int) -> m.GameRecord:
    """The record of a game played to its end by random builders."""
    table = Table(GAME, game_config(OPTIONS), seed)
    rnd = random.Random(seed)
    actions: list[m.RecordedAction] = []
    while not table.over:
        action = _random_action(table, rnd)
        wire: Any = action_from_engine(action)
        actions.append(m.RecordedAction(seat=action.seat, action=wire))
        table.act(action.seat, action)
    over = table.game_over()
    return m.GameRecord(
        game=GAME,
        options=OPTIONS,
        seed=seed,
        seed_hash=seed_hash(seed),
        seats=[m.SeatRecord(seat=q, name=NAMES[q], bot=q != 0) for q in range(4)],
        actions=actions,
        winner=over.winner,
        points=over.points,
    )


async def save(directory: Path, seed: int = 26, turns: int = 24) -> list[Path]:
    """Save the screenshots; returns their paths."""
    from clients.tui.replay import ReplayApp, ReplayGame

    directory.mkdir(parents=True, exist_ok=True)
    table, history = _position(seed, turns)
    out: list[Path] = []
    app = HexhavenApp(OfflineTransport(_messages(table, history)))
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        out.append(Path(app.save_screenshot("play.svg", str(directory))))
        await pilot.press("t", "down", "down", "right", *["down"] * 7, "right")  # wool for ore
        await pilot.press("2")  # not to Cy
        await pilot.pause()
        out.append(Path(app.save_screenshot("offer.svg", str(directory))))
    for name, size in (("narrow.svg", (80, 24)), ("large.svg", (160, 50))):
        app = HexhavenApp(OfflineTransport(_messages(table, history)))
        async with app.run_test(size=size) as pilot:
            await pilot.pause()
            out.append(Path(app.save_screenshot(name, str(directory))))
    replayed = ReplayGame(_finished(seed), viewer=0)
    replay = ReplayApp(replayed, position=replayed.turns[len(replayed.turns) * 2 // 3] + 1)
    async with replay.run_test(size=SIZE) as pilot:
        await pilot.pause()
        out.append(Path(replay.save_screenshot("replay.svg", str(directory))))
    return out


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    directory = Path(args[0]) if args else Path("docs/screenshots")
    for path in asyncio.run(save(directory)):
        print(path)
    return 0


if __name__ == "__main__":
    sys.exit(main())
