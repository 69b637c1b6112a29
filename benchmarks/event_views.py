"""What views with events cost: bytes on the wire and CPU per action, for a connection that
asks for them (``hello`` with ``event_views``) and for one that does not.

Run it from the repository root (about 20 seconds)::

    .venv/bin/python benchmarks/event_views.py
    .venv/bin/python benchmarks/event_views.py --games 8 --seed 0

It plays random four-player games (game ``g`` on a random board from seed ``g``, each
action chosen at random among the legal ones by ``random.Random(g)``) at a protocol table
as a server's room plays them, everyone listening, and for every action encodes in msgpack
what seat 0's connection and a spectator's connection are sent: the ``events`` (and, for
seat 0, its ``prompt`` when it must act), once as they go to a connection that did not ask
for views and once with the view after them (``Table.with_view``). It prints, per action,
the bytes each connection receives either way, and the CPU time (``time.thread_time``) of
making and encoding the messages of a connection that asks, beside one that does not. The
prompts are the same either way (no view on them). Benchmarks print figures; nothing here is
asserted.

The last line is ``bytes_per_action_plain: X bytes_per_action_viewed: Y
viewed_extra_us_per_action: Z`` for seat 0.
"""

from __future__ import annotations

import argparse
import random
import time

import engine
from app.collector import short_collections
from protocol import messages as m
from protocol.codec import Codec
from protocol.options import game_config, with_board
from protocol.table import Table

PLAYERS = 4
RECIPIENTS: list[int | None] = [*range(PLAYERS), None]


def play(seed: int, totals: dict[str, float]) -> int:
    """Play one game from ``seed``, adding to ``totals`` the bytes and seconds of each
    kind; returns how many actions it had."""
    config = game_config(with_board(m.GameOptions(players=PLAYERS), seed))
    table = Table("g1", config, seed)
    codec = Codec()
    rnd = random.Random(seed)
    actions = 0
    while not table.over:
        seat = rnd.choice(engine.seats_to_act(table.state))
        action = rnd.choice(engine.legal_actions(table.state, seat))
        told = table.act(seat, action, RECIPIENTS)
        actions += 1
        for who, name in ((0, "seat"), (None, "spectator")):
            for recipient, message in told:
                if recipient != who:
                    continue
                t0 = time.thread_time()
                plain = codec.encode(message)
                t1 = time.thread_time()
                viewed_message = (
                    table.with_view(recipient, message)
                    if isinstance(message, m.Events)
                    else message
                )
                viewed = codec.encode(viewed_message)
                t2 = time.thread_time()
                totals[f"{name} plain bytes"] += len(plain)
                totals[f"{name} viewed bytes"] += len(viewed)
                totals[f"{name} plain s"] += t1 - t0
                totals[f"{name} viewed s"] += t2 - t1
        if not table.over and 0 in engine.seats_to_act(table.state):
            size = len(codec.encode(table.prompt(0)))
            totals["seat plain bytes"] += size
            totals["seat viewed bytes"] += size
    return actions


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else None)
    parser.add_argument("--games", type=int, default=8, help="games (8)")
    parser.add_argument("--seed", type=int, default=0, help="first game seed (0)")
    args = parser.parse_args(argv)
    if args.games < 1:
        parser.error("--games must be positive")
    short_collections()
    play(args.seed + args.games, dict.fromkeys(_KEYS, 0.0))  # untimed: warm caches
    totals = dict.fromkeys(_KEYS, 0.0)
    actions = sum(play(g, totals) for g in range(args.seed, args.seed + args.games))
    print(
        f"event_views: {args.games} games (seeds {args.seed}-{args.seed + args.games - 1}), "
        f"{actions} actions, msgpack, per action"
    )
    for name in ("seat", "spectator"):
        plain = totals[f"{name} plain bytes"] / actions
        viewed = totals[f"{name} viewed bytes"] / actions
        plain_us = totals[f"{name} plain s"] / actions * 1e6
        viewed_us = totals[f"{name} viewed s"] / actions * 1e6
        print(
            f"{name:<10} bytes {plain:7.0f} without views, {viewed:7.0f} with"
            f" ({viewed / plain:4.1f}x);"
            f" CPU us {plain_us:6.1f} encoding events, {viewed_us:6.1f} making and encoding"
            " them with views"
        )
    plain = totals["seat plain bytes"] / actions
    viewed = totals["seat viewed bytes"] / actions
    extra = (totals["seat viewed s"] - totals["seat plain s"]) / actions * 1e6
    print(
        f"bytes_per_action_plain: {plain:.0f} bytes_per_action_viewed: {viewed:.0f} "
        f"viewed_extra_us_per_action: {extra:.1f}"
    )


_KEYS = [
    f"{who} {kind} {unit}"
    for who in ("seat", "spectator")
    for kind in ("plain", "viewed")
    for unit in ("bytes", "s")
]

if __name__ == "__main__":
    main()
