"""What the protocol's pieces cost per game action, beside the engine's own share.

Run it from the repository root (about 30 seconds)::

    .venv/bin/python benchmarks/protocol_speed.py
    .venv/bin/python benchmarks/protocol_speed.py --games 6 --rounds 5 --seed 0

It plays random four-player games (game ``g`` on a random board from seed ``g``, its
actions chosen at random from each prompt by ``random.Random(g)``) through the protocol's
pieces as a server's room uses them, with four seated connections speaking msgpack and no
spectators: one untimed game first, as a server that has been running would have played,
then ``--rounds`` rounds of ``--games`` games each, every game new (seeds from ``--seed``
on), so the wire forms of events are made afresh as in a server. For each action:

* **prompt**: ``Table.prompt(seat)`` for the first seat to act;
* **encode prompt**: ``Codec.encode`` of that prompt;
* **decode**: an action chosen at random from the prompt, sent as a client's ``act``
  frame, taken by a greeted ``ServerSession.receive`` (msgpack and the models);
* **check**: ``Table.check`` of it;
* **act**: ``Table.act(seat, action, listening=[0, 1, 2, 3])``;
* **encode events**: ``Codec.encode`` of each distinct message the act returned (the
  ``events`` every seat sees alike once, a seat's own form once more, ``game_over``).

Beside prompt, check and act stand the engine's own ``legal_actions``, ``check`` and
``apply``, timed when the game's actions are played again through the engine alone (a
fresh state from the same configuration and seed), and what the table adds to them.

Each call is timed in CPU time of this thread (``time.thread_time``), less what timing a
call that does nothing costs. The garbage collector runs as in ``hexhaven serve``: what
start-up made frozen out of its scans, and the server's thresholds. A part's figure is the
median over the rounds of its time per action in the round, in microseconds. Benchmarks
print figures; nothing here is asserted.

The last line is ``protocol_us_per_action: X engine_us_per_action: Y``: X is the sum of
the parts less the engine's check, apply and legal actions; Y is those three.
"""

from __future__ import annotations

import argparse
import itertools
import random
import statistics
import time
from collections.abc import Callable
from typing import Any, TypeVar

import msgpack

import engine
from app.collector import short_collections
from protocol import messages as m
from protocol.codec import Codec
from protocol.options import game_config, with_board
from protocol.server_session import ForGame, ServerSession
from protocol.table import Table

PLAYERS = 4
SEATS = list(range(PLAYERS))
PARTS = (
    "decode",
    "check",
    "engine.check",
    "act",
    "engine.apply",
    "prompt",
    "legal_actions",
    "encode events",
    "encode prompt",
)
"""The parts timed, in the order they are printed."""
ENGINE_PARTS = ("engine.check", "engine.apply", "legal_actions")
"""The engine's own parts, timed when a game is played again through the engine alone."""
BESIDE = {"check": "engine.check", "act": "engine.apply", "prompt": "legal_actions"}
"""The engine's part within each of the table's."""
T = TypeVar("T")


class Timer:
    """Sums the CPU time of calls by part, less what timing a call that does nothing costs
    (reading the clock and making the call)."""

    def __init__(self) -> None:
        self.cost = 0.0
        samples = []
        for _ in range(20_000):
            self.took = {"nothing": 0.0}
            self("nothing", _nothing)
            samples.append(self.took["nothing"])
        self.cost = statistics.median(samples)
        self.took = dict.fromkeys(PARTS, 0.0)

    def __call__(self, part: str, call: Callable[..., T], *args: Any) -> T:
        t0 = time.thread_time()
        out = call(*args)
        self.took[part] += time.thread_time() - t0 - self.cost
        return out


def _nothing() -> None:
    pass


def play(seed: int, timer: Timer) -> int:
    """Play one game from ``seed`` through the protocol's pieces, then its actions through
    the engine alone, timing both with ``timer``; returns how many actions it had."""
    config = game_config(with_board(m.GameOptions(players=PLAYERS), seed))
    table = Table("g1", config, seed)
    codec = Codec()
    ticks = itertools.count().__next__  # a second a frame: the rate limit never refuses
    session = ServerSession(codec, clock=ticks, server_name="bench")
    session.receive(msgpack.packb({"type": "hello", "protocol": m.PROTOCOL_VERSION}))
    choose = random.Random(seed).randrange
    moves: list[tuple[int, engine.Action]] = []
    while not table.over:
        seat = engine.seats_to_act(table.state)[0]
        prompt = timer("prompt", table.prompt, seat)
        timer("encode prompt", codec.encode, prompt)
        act = {"type": "act", "game": table.game, "state_id": table.state_id}
        act["action"] = prompt.actions[choose(len(prompt.actions))].model_dump(mode="json")
        request = timer("decode", session.receive, msgpack.packb(act, use_bin_type=True))
        assert isinstance(request, ForGame) and isinstance(request.message, m.Act)
        action = timer("check", table.check, seat, request.message)
        told = timer("act", table.act, seat, action, SEATS)
        for message in {id(message): message for _, message in told}.values():
            timer("encode events", codec.encode, message)
        moves.append((seat, action))

    state = engine.new_game(config, seed)
    for seat, action in moves:
        timer("legal_actions", engine.legal_actions, state, seat)
        timer("engine.check", engine.check, state, action)
        timer("engine.apply", engine.apply, state, action)
    return len(moves)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else None)
    parser.add_argument("--games", type=int, default=6, help="games a round (6)")
    parser.add_argument("--rounds", type=int, default=3, help="rounds; the median counts (3)")
    parser.add_argument("--seed", type=int, default=0, help="first game seed (0)")
    args = parser.parse_args(argv)
    if args.games < 1 or args.rounds < 1:
        parser.error("--games and --rounds must be positive")

    short_collections()
    last = args.seed + args.games * args.rounds
    play(last, Timer())  # the untimed game
    rounds: dict[str, list[float]] = {part: [] for part in PARTS}
    actions = 0
    cost = 0.0
    for first in range(args.seed, last, args.games):
        timer = Timer()
        cost = timer.cost
        played = sum(play(seed, timer) for seed in range(first, first + args.games))
        actions += played
        for part, seconds in timer.took.items():
            rounds[part].append(seconds / played * 1e6)

    us = {part: statistics.median(figures) for part, figures in rounds.items()}
    print(
        f"protocol_speed: {args.rounds} rounds of {args.games} games (seeds {args.seed}-"
        f"{last - 1}), {actions} actions, median of the rounds, CPU us per action"
        f" (timing an empty call: {cost * 1e6:.2f} us, taken off)"
    )
    for part in PARTS:
        if part in ENGINE_PARTS:
            continue
        line = f"{part:<14} {us[part]:7.2f}"
        inner = BESIDE.get(part)
        if inner is not None:
            added = us[part] - us[inner]
            line += f"   {inner} alone {us[inner]:6.2f}   the table adds {added:6.2f}"
        print(line)
    engine_us = sum(us[part] for part in ENGINE_PARTS)
    whole = sum(us[part] for part in PARTS if part not in ENGINE_PARTS)
    protocol_us = whole - engine_us
    print(f"protocol_us_per_action: {protocol_us:.1f} engine_us_per_action: {engine_us:.1f}")


if __name__ == "__main__":
    main()
