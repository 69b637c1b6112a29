"""The client-side model of a seat's game shows the server's view after every event, and
tells the events in sentences."""

from __future__ import annotations

import random

import pytest

from clients.game import GameModel, LiveView
from clients.narrate import PlaceNames
from clients.tui.board import picture_of
from engine import GameConfig, legal_actions, seats_to_act, view
from protocol import messages as m
from protocol.payloads import ViewPayload, event_from_engine, view_from_engine
from protocol.table import Table

VIEWERS = (0, 2, None)


def _public(v: LiveView) -> dict[str, object]:
    return {
        "settlements": v.settlements,
        "cities": v.cities,
        "roads": v.roads,
        "robber": v.robber,
        "dice": v.dice,
        "current": v.current,
        "turn": v.turn,
        "bank": v.bank,
        "deck": v.deck,
        "winner": v.winner,
        "seats": [
            (
                s.points,
                s.cards,
                s.dev_cards,
                s.knights,
                s.roads_left,
                s.settlements_left,
                s.cities_left,
                s.longest_road,
                s.largest_army,
                s.discards_owed,
            )
            for s in v.seats
        ],
        "hand": v.hand,
        "development": v.development,
        "own_points": v.own_points,
        "trade": None
        if v.trade is None
        else (v.trade.offerer, v.trade.give, v.trade.get, v.trade.answers, v.trade.counters),
        "to_act": sorted(v.to_act),
    }


@pytest.mark.parametrize("seed", [3, 11])
def test_the_model_shows_the_engines_view_after_every_event(seed: int) -> None:
    """Games played at a table as the server plays them: each viewer's model, fed what the
    table tells it (with views, as the terminal UI and the MCP seat ask), shows after every
    message exactly the engine's view of that seat."""
    config = GameConfig(players=4, victory_points=8)
    table = Table("g1", config, seed)
    models: dict[int | None, GameModel] = {}
    for seat in VIEWERS:
        model = models[seat] = GameModel()
        model.handle(m.Joined(game="g1", seat=seat, token=None if seat is None else "t"))
        for welcome in table.welcome(seat):
            model.handle(welcome)
    rnd = random.Random(seed)
    checked = 0
    while not table.over and table.state_id < 1500:
        seat = rnd.choice(seats_to_act(table.state))
        action = rnd.choice(legal_actions(table.state, seat))
        for recipient, message in table.act(seat, action, VIEWERS):
            if isinstance(message, m.Events):
                message = table.with_view(recipient, message)
            models[recipient].handle(message)
        for viewer, model in models.items():
            shown = model.view
            assert shown is not None and shown.state_id == table.state_id
            expected = LiveView.from_payload(view_from_engine(view(table.state, viewer)))
            assert _public(shown) == _public(expected), (seed, table.state_id, action)
            assert shown == expected
            checked += 1
    assert checked > 300


def _payload(seed: int, seat: int | None) -> ViewPayload:
    from engine import new_game

    return view_from_engine(view(new_game(GameConfig(players=3), seed), seat))


def test_sentences_say_you_for_the_own_seat_and_name_places() -> None:
    model = GameModel()
    model.handle(m.Joined(game="g", seat=1, token="t"))
    players = [
        m.PlayerInfo(seat=q, name=n, bot=q != 1, connected=True, away=False)
        for q, n in enumerate(("Ana", "Bo", "Cy"))
    ]
    model.handle(m.Players(game="g", players=players))
    model.handle(m.GameView(game="g", view=_payload(5, 1)))
    from engine import DiceRolled, Event, Produced, SettlementBuilt

    events: list[Event] = [
        SettlementBuilt(1, 0, True),
        DiceRolled(0, (5, 3)),
        Produced(((0, 0, 0, 0, 0), (0, 0, 0, 0, 2), (1, 0, 0, 0, 0)), ()),
    ]
    lines = model.handle(
        m.Events(game="g", state_id=3, events=[event_from_engine(e) for e in events])
    )
    texts = [x.text for x in lines]
    assert texts[0].startswith("You built a settlement at ")
    assert "/" in texts[0] or " corner of " in texts[0]  # named by the hexes around it
    assert texts[1] == "Ana rolled 8 (5+3): you got 2 ore; Cy got 1 brick"
    assert lines[1].kind == "you"


def test_every_place_on_the_board_has_its_own_name() -> None:
    """Even on an island of one terrain, where every number but 2 and 12 names two hexes:
    those are told apart by where they lie, and then no two hexes, intersections or paths
    share a name; the coast's places are named by their side of the one hex."""
    import engine
    from engine.topology import topology

    topo = topology(3)
    tokens = list(engine.new_game(engine.GameConfig(players=4), 1).board.tokens)
    places = PlaceNames(3, ["hills"] * topo.n_hexes, tokens, [])
    hexes = [places.hex(h) for h in range(topo.n_hexes)]
    vertices = [places.vertex(v) for v in range(topo.n_vertices)]
    edges = [places.edge(e) for e in range(topo.n_edges)]
    for names in (hexes, vertices, edges):
        assert len(set(names)) == len(names)
    twice = [h for h, k in enumerate(tokens) if tokens.count(k) == 2 and k]
    assert twice and all(
        hexes[h].endswith(" in the middle" if topo.hex_ring[h] == 0 else " o'clock") for h in twice
    )
    once = [h for h, k in enumerate(tokens) if tokens.count(k) == 1 and k]  # 2 and 12
    assert once and all(hexes[h] == f"brick {tokens[h]}" for h in once)  # kept short
    top = max(range(topo.n_vertices), key=lambda v: topo.vertex_xy[v][1])
    assert places.vertex(top).startswith("the north corner of brick ")
    assert any(name.startswith("between brick ") and " and brick " in name for name in edges)
    assert any(name.startswith("on the south-west side of brick ") for name in edges)


@pytest.mark.parametrize("harbour_layout", [1, 2])
def test_the_client_puts_the_harbours_on_the_slots_of_the_boards_layout(
    harbour_layout: int,
) -> None:
    """A game stored before boards said their harbour layout shows its harbours where they
    are: on the slots of its layout, in the names and on the drawn board."""
    import engine
    from clients.narrate import harbour_label
    from clients.tui.board import layout, render_board

    base = engine.random_board(engine.Rng(5))
    board = engine.Board.from_layout(
        base.terrain, base.tokens, base.harbours, harbour_layout=harbour_layout
    )
    state = engine.new_game(GameConfig.with_board(board, players=3), 5)
    live = LiveView.from_payload(view_from_engine(view(state, 0)))
    assert live.harbour_layout == harbour_layout
    places = PlaceNames(live.radius, live.terrain, live.tokens, live.harbours, harbour_layout)
    topo = board.topo
    assert places.harbour_at == {
        v: live.harbours[slot]
        for slot, e in enumerate(board.harbour_slots)
        for v in topo.edge_vertices[e]
    }
    lines = render_board(picture_of(live)).plain.splitlines()
    lay = layout(3, 1, harbour_layout)
    for (x, y, align), kind in zip(lay.harbour_anchors, live.harbours, strict=True):
        label = harbour_label(kind)
        start = {"left": x, "right": x - len(label) + 1, "centre": x - len(label) // 2}[align]
        assert label.split()[0] in lines[y][max(0, start - 2) : start + len(label) + 2]
