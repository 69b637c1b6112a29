"""The terminal client after a rejoin or a late watch: the log tells the game so far from
the server's ``history`` (in the seat's own form, chat in its place, nothing twice after a
reconnect), and the player panels show every acting seat's clock."""

from __future__ import annotations

import asyncio
import random
from typing import Any

import pytest

import engine
from clients.tui.app import HexhavenApp
from clients.tui.offline import OfflineTransport
from clients.tui.widgets import PlayersPanel
from protocol import messages as m
from protocol.payloads import event_from_engine, view_from_engine
from tests.clients.test_tui_dialogs import GAME, NAMES, SIZE
from tests.clients.test_tui_layout import lines_fit

SEED = 21


def played(actions: int) -> tuple[engine.GameState, list[tuple[int, list[engine.Event]]]]:
    """A 4-seat game played by random builders for ``actions`` actions, with every
    action's events."""
    state = engine.new_game(engine.GameConfig(players=4), SEED)
    rnd = random.Random(SEED)
    done: list[tuple[int, list[engine.Event]]] = []
    while state.actions_taken < actions:
        acts = engine.legal_actions(state)
        busy = [a for a in acts if not isinstance(a, engine.EndTurn | engine.MaritimeTrade)]
        action = rnd.choice(busy if busy and rnd.random() < 0.85 else acts)
        done.append((state.actions_taken + 1, engine.apply(state, action)))
    return state, done


def history(done: list[tuple[int, list[engine.Event]]], seat: int | None, **kw: Any) -> m.History:
    batches = [
        m.HistoryBatch(state_id=s, events=[event_from_engine(e.for_seat(seat)) for e in evs])
        for s, evs in done
    ]
    return m.History(game=GAME, batches=batches, **kw)


def opening(state: engine.GameState, seat: int | None) -> list[Any]:
    players = [
        m.PlayerInfo(seat=q, name=NAMES[q], bot=q != seat, connected=True, away=False)
        for q in range(state.n)
    ]
    return [
        m.Joined(game=GAME, seat=seat, token=None if seat is None else "tok"),
        m.Players(game=GAME, players=players),
        m.GameView(game=GAME, view=view_from_engine(engine.view(state, seat))),
    ]


async def test_a_rejoining_seat_reads_the_game_so_far_and_only_its_own_secrets() -> None:
    state, done = played(400)
    bought = [e for _, evs in done for e in evs if isinstance(e, engine.DevCardBought)]
    mine = [e for e in bought if e.seat == 1]
    theirs = [e for e in bought if e.seat != 1]
    assert mine and theirs, "the seeded game has draws by seat 1 and by others"
    chat = [m.ChatAt(state_id=3, seat=2, name="Cy", text="hello all")]
    first = history(done[:250], 1, chat=chat, more=True)
    rest = history(done[250:], 1)
    transport = OfflineTransport([*opening(state, 1), first, rest])
    app = HexhavenApp(transport)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        log = [line.text for line in app.model.log]
        assert len(log) > 300
        assert log.index("Cy: hello all") < next(i for i, t in enumerate(log) if "turn 2:" in t)
        own = [t for t in log if t.startswith("You bought a ")]
        assert len(own) == len(mine) and not any("development card" in t for t in own)
        others = [t for t in log if " bought " in t and not t.startswith("You")]
        assert len(others) == len(theirs)
        assert all(t.endswith("bought a development card") for t in others)
        shown = app.query_one("#log")
        assert len(shown.lines) >= 300  # type: ignore[attr-defined]
        # Reconnected later: only what happened meanwhile is added, chat included once.
        state2, done2 = played(430)
        assert done2[:400] == done
        transport.push(
            m.GameView(game=GAME, view=view_from_engine(engine.view(state2, 1))),
            history(done2, 1, chat=[*chat, m.ChatAt(state_id=410, seat=0, name="Ana", text="x")]),
        )
        await pilot.pause()
        again = [line.text for line in app.model.log]
        assert again[: len(log)] == log
        added = again[len(log) :]
        assert "Ana: x" in added and "Cy: hello all" not in added
        narrated = app.model.narrated
        assert narrated == 430


async def test_a_late_spectator_sees_no_secrets_in_the_log() -> None:
    state, done = played(400)
    app = HexhavenApp(OfflineTransport([*opening(state, None), history(done, None)]))
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        log = [line.text for line in app.model.log]
        bought = [t for t in log if " bought " in t]
        stole = [t for t in log if " stole " in t]
        assert bought and all(t.endswith("bought a development card") for t in bought)
        assert all(" stole a card from " in t for t in stole)


async def test_the_clock_of_another_seat_counts_down_in_its_panel() -> None:
    state, _ = played(60)
    actor = engine.seats_to_act(state)[0]
    viewer = (actor + 1) % 4
    clock = m.Clock(
        game=GAME, state_id=state.actions_taken, seats=[m.SeatClock(seat=actor, left=42.0)]
    )
    app = HexhavenApp(OfflineTransport([*opening(state, viewer), clock]))
    now = [1000.0]
    app.model.now = lambda: now[0]
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        lines = str(app.query_one(PlayersPanel).render()).splitlines()
        row = next(t for t in lines if NAMES[actor] in t)
        assert row.startswith("▶") and "⏱42s" in row
        assert not any("⏱" in t for t in lines if NAMES[actor] not in t)
        now[0] += 30.2
        app.refresh_all()
        await pilot.pause()
        row = next(
            t for t in str(app.query_one(PlayersPanel).render()).splitlines() if NAMES[actor] in t
        )
        assert "⏱12s" in row
        # The next action's events stop it until the next clock says who is on it.
        app.model.clock.clear()
        app.refresh_all()
        await pilot.pause()
        assert "⏱" not in str(app.query_one(PlayersPanel).render())


async def test_through_a_real_server_a_resumed_seat_and_a_late_watcher_read_the_past() -> None:
    from clients.tui.link import Link, Seating
    from server.app import HexhavenServer
    from tests.server.client import Client
    from tests.server.test_play import seated_game

    srv = HexhavenServer()
    async with srv.running("127.0.0.1", 0) as ws_server:
        port = srv.port_of(ws_server)
        game, clients = await seated_game(port, "hexhaven.v1.msgpack", players=2)
        token = clients[1].token()
        await clients[0].send(m.Chat(game=game, text="have fun"))
        await asyncio.gather(*(c.play_randomly(game, seed=5 + i) for i, c in enumerate(clients)))
        told: dict[str, list[str]] = {}
        for name, seating in (
            ("seat", Seating("rejoin", game=game, token=token)),
            ("watch", Seating("watch", game=game)),
        ):
            link = Link(srv.url, seating)
            await link.open()
            app = HexhavenApp(link)
            async with app.run_test(size=SIZE) as pilot, asyncio.timeout(60):
                while not any(" won!" in line.text for line in app.model.log):
                    await pilot.pause(0.05)
                told[name] = [line.text for line in app.model.log]
            await link.close()
        for c in clients:
            await Client.close(c)
    for log in told.values():
        assert any(t.startswith("-- turn 2:") for t in log)
        assert "p0: have fun" in log
        assert any(" won!" in t for t in log)
    assert any(t.startswith("You ") for t in told["seat"])
    assert not any(t.startswith("You ") for t in told["watch"])


@pytest.mark.parametrize("size", [(100, 30), (80, 24)], ids=["100x30", "80x24"])
async def test_the_panels_mark_away_and_gone_seats_and_the_clock(size: tuple[int, int]) -> None:
    state, _ = played(60)
    actor = engine.seats_to_act(state)[0]
    viewer = (actor + 1) % 4
    away, gone = (actor + 2) % 4, (actor + 3) % 4
    players = [
        m.PlayerInfo(
            seat=q,
            name=NAMES[q],
            bot=False,
            connected=q != gone,
            away=q == away,
        )
        for q in range(4)
    ]
    clock = m.Clock(
        game=GAME, state_id=state.actions_taken, seats=[m.SeatClock(seat=actor, left=9)]
    )
    messages = [*opening(state, viewer), m.Players(game=GAME, players=players), clock]
    app = HexhavenApp(OfflineTransport(messages))
    app.model.now = lambda: 1000.0
    async with app.run_test(size=size) as pilot:
        await pilot.pause()
        lines = lines_fit(app.query_one(PlayersPanel))
        rows = {q: " ".join(lines[2 * q : 2 * q + 2]) for q in range(4)}
        assert "away" in rows[away] and "gone" in rows[gone]
        assert "away" not in rows[gone] and "gone" not in rows[away]
        assert "⏱9s" in rows[actor]
        assert all("⏱" not in rows[q] for q in range(4) if q != actor)
