"""How fast the learning environments step, beside catanatron's Gymnasium environment.

Run it from the repository root (the ``learn`` extra installed)::

    .venv/bin/python benchmarks/env_speed.py --seed 0

It measures whichever engine build is imported and says which: the interpreted source (an
editable install) or the mypyc-compiled one, where the encoding and the action index are
compiled too (``HEXHAVEN_COMPILE=1 .venv/bin/pip install --no-build-isolation '.[learn]'``,
see setup.py). Everything runs on one pinned core:

* **Single environment.** ``gymnasium.make("hexhaven/Hexhaven-v0", players=2)``: the
  learning seat against one ``random`` opponent, a two-player game to 10 points, as in
  catanatron's default. ``--steps`` times it picks an index uniformly with
  ``random.Random(seed)`` from the legal ones (``info["action_mask"].nonzero()``) and calls
  ``env.step``, resetting when an episode ends; each step returns a fresh observation and
  mask. Steps/s, and game actions (the learner's and the opponent's) per step.
* **Vector environment.** ``HexhavenVectorEnv(--batch)`` against ``random`` opponents, the
  same loop with one action per game per call (numpy's choice over each row's mask).
* **Batched self-play.** ``BatchedGames(--batch)`` (every seat played, one action per game
  per call, observations and masks written into preallocated arrays); each step is one game
  action, so steps/s is game actions/s with the observation and mask of every one. Also
  the same figure over the time inside ``BatchedGames.step`` alone, without the numpy
  choice of the actions (the caller's policy).
* **The engine alone.** Random two-player games through ``legal_actions`` and ``advance``
  (as benchmarks/engine_speed.py), for the batched figure's yardstick.
* **Per call**: the encoding (from a state, written whole as the value network does, and
  from a seat's view) and the mask, in microseconds, on mid-game positions of random
  4-player games.
* **catanatron-gym** (benchmarks/_catanatron_gym.py: its own venv, created once): the same
  random valid-action loop on ``catanatron-v1`` for ``--catanatron-steps``; skipped with
  ``--no-catanatron`` or where it will not install.

The timed loops run ``--repeats`` rounds, interleaved (each round runs every loop once, so
that a slow spell of a shared machine touches all of them), and each figure is its best
round; the ratio to catanatron-gym is the median, over the rounds, of the single
environment's figure over catanatron-gym's measured right after it. The last line is
``env_steps_per_s: X batched_steps_per_s: Y catanatron_gym_steps_per_s: Z
ratio_vs_catanatron_gym: R`` (Z and R are ``n/a`` without catanatron-gym).
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import time
import timeit
from collections.abc import Callable
from functools import partial
from typing import Any

import gymnasium
import numpy as np
from _catanatron_gym import ensure_venv, run_child
from _pinning import pin_to_one_core

import engine.rules
import hexhaven
from engine import GameConfig, Phase, advance, legal_actions, new_game, view
from features import action_index, encoding
from learn.batch import BatchedGames, Rules
from learn.gym_env import HexhavenVectorEnv
from learn.spaces import writable

MICRO_SEED = 1_000_000
"""The micro-benchmarks' games use seeds far from the timed games'."""


def build() -> str:
    """Which build of the engine and the encoding is imported."""
    import features.encoding  # noqa: F401 (the module, not the function the package exports)

    encoder = sys.modules["features.encoding"].__file__ or ""
    if engine.rules.__file__ and engine.rules.__file__.endswith((".so", ".pyd")):
        how = "compiled" if encoder.endswith((".so", ".pyd")) else "interpreted"
        return f"compiled with mypyc (the encoding {how})"
    return "interpreted"


def single(steps: int, seed: int) -> dict[str, float]:
    env: Any = gymnasium.make(hexhaven.ENV_ID, players=2)
    rng = random.Random(seed)
    _, info = env.reset(seed=seed)
    episodes = 0
    actions = 0
    start = time.perf_counter()
    for _ in range(steps):
        legal = info["action_mask"].nonzero()[0]
        _, _, terminated, truncated, info = env.step(legal[rng.randrange(len(legal))])
        if terminated or truncated:
            episodes += 1
            actions += env.unwrapped.match.state.actions_taken
            _, info = env.reset()
    seconds = time.perf_counter() - start
    actions += env.unwrapped.match.state.actions_taken
    return {"steps_per_s": steps / seconds, "episodes": episodes, "per_step": actions / steps}


def _random_rows(mask: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """A uniformly random legal index in each row of ``mask``."""
    counts = mask.cumsum(axis=1, dtype=np.int32)
    pick = (rng.random(len(mask)) * counts[:, -1]).astype(np.int32)
    chosen: np.ndarray = (counts <= pick[:, None]).sum(axis=1)
    return chosen


def vector(batch: int, calls: int, seed: int) -> dict[str, float]:
    vec = HexhavenVectorEnv(batch, players=2)
    rng = np.random.default_rng(seed)
    _, info = vec.reset(seed=seed)
    start = time.perf_counter()
    for _ in range(calls):
        _, _, _, _, info = vec.step(_random_rows(info["action_mask"], rng))
    seconds = time.perf_counter() - start
    return {"steps_per_s": batch * calls / seconds}


def batched(batch: int, calls: int, seed: int) -> dict[str, float]:
    games = BatchedGames(batch, Rules(players=2), seed=seed)
    games.reset()
    rng = np.random.default_rng(seed)
    ended = 0
    stepping = 0.0
    start = time.perf_counter()
    for _ in range(calls):
        actions = _random_rows(games.mask, rng)
        before = time.perf_counter()
        games.step(actions)
        stepping += time.perf_counter() - before
        ended += int(games.done.sum())
    seconds = time.perf_counter() - start
    return {
        "steps_per_s": batch * calls / seconds,
        "step_only_per_s": batch * calls / stepping,
        "ended": ended,
    }


def engine_alone(games: int, seed: int) -> dict[str, float]:
    actions = 0
    start = time.perf_counter()
    for g in range(games):
        rng = random.Random(seed + g)
        state = new_game(GameConfig(players=2), seed + g)
        while not state.is_over:
            advance(state, rng.choice(legal_actions(state)))
            actions += 1
    return {"actions_per_s": actions / (time.perf_counter() - start)}


def micro(seed: int) -> dict[str, float]:
    """Microseconds per call on mid-game positions of random 4-player games (phase main,
    turns 30 to 120): the encoding from the state and from the seat's view, and the mask;
    each the best of 5 repeats, averaged over the positions."""
    enc, index = encoding(3, 4), action_index(3, 4)
    states = []
    rng = random.Random(seed)
    for g in range(10):
        state = new_game(GameConfig(players=4), MICRO_SEED + g)
        while not state.is_over and state.turn <= 120:
            if state.phase == Phase.MAIN and state.turn >= 30 and rng.random() < 0.05:
                states.append(state.copy())
            advance(state, rng.choice(legal_actions(state)))
    obs = np.zeros(enc.size, dtype=np.float32)
    out, mask = writable(obs), writable(np.zeros(index.size, dtype=np.int8))
    timed: dict[str, list[float]] = {
        "encode_state": [],
        "encode_view": [],
        "mask": [],
    }
    for state in states:
        seen = view(state, state.current)
        calls: dict[str, Callable[[], object]] = {
            "encode_state": partial(enc.encode_state, state, state.current, out),
            "encode_view": partial(enc.encode_view, seen, out),
            "mask": partial(index.mask, state, state.current, mask),
        }
        for name, call in calls.items():
            timed[name].append(min(timeit.repeat(call, number=200, repeat=5)) / 200 * 1e6)
    return {name: statistics.mean(values) for name, values in timed.items()}


def best(runs: list[dict[str, float]], key: str) -> dict[str, float]:
    """The run with the highest ``key``."""
    return max(runs, key=lambda run: run[key])


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else None)
    parser.add_argument("--steps", type=int, default=30_000, help="single-env steps (30000)")
    parser.add_argument("--batch", type=int, default=256, help="games in a batch (256)")
    parser.add_argument("--calls", type=int, default=2000, help="batched calls to time (2000)")
    parser.add_argument("--games", type=int, default=20, help="engine-alone games (20)")
    parser.add_argument("--catanatron-steps", type=int, default=20_000)
    parser.add_argument("--no-catanatron", action="store_true")
    parser.add_argument("--repeats", type=int, default=5, help="rounds; the best counts (5)")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    if args.repeats < 1:
        parser.error("--repeats must be positive")
    print(f"{pin_to_one_core()}; engine {build()}; Python {sys.version.split()[0]}")

    us = micro(args.seed)
    print(
        f"per call, mid-game, 4 players: encode_state {us['encode_state']:.2f} us, "
        f"encode_view {us['encode_view']:.2f} us, mask {us['mask']:.2f} us"
    )
    runs: dict[str, list[dict[str, float]]] = {
        "single": [],
        "vector": [],
        "batched": [],
        "engine": [],
        "theirs": [],
    }
    python = None
    if not args.no_catanatron:
        try:
            python = ensure_venv()
        except (RuntimeError, OSError) as exc:
            print(f"catanatron-gym: skipped ({str(exc).splitlines()[0]})")
    for _ in range(args.repeats):  # interleaved, so that a slow spell touches every figure
        runs["single"].append(single(args.steps, args.seed))
        if python is not None:  # right after ours: the pair shares the machine's moment
            runs["theirs"].append(run_child(python, args.catanatron_steps, args.seed))
        runs["batched"].append(batched(args.batch, args.calls, args.seed))
        runs["engine"].append(engine_alone(args.games, args.seed))
        runs["vector"].append(vector(args.batch, args.calls, args.seed))
    one = best(runs["single"], "steps_per_s")
    print(
        f"single env: {one['steps_per_s']:,.0f} steps/s ({args.steps} steps, "
        f"{one['episodes']:.0f} episodes, {one['per_step']:.2f} game actions per step)"
    )
    vec = best(runs["vector"], "steps_per_s")
    print(f"vector env of {args.batch}: {vec['steps_per_s']:,.0f} steps/s")
    bat = best(runs["batched"], "steps_per_s")
    print(
        f"batched self-play of {args.batch}: {bat['steps_per_s']:,.0f} steps/s "
        f"({bat['ended']:.0f} games ended); "
        f"{best(runs['batched'], 'step_only_per_s')['step_only_per_s']:,.0f} steps/s "
        "in BatchedGames.step alone (without the random choice of the actions)"
    )
    eng = best(runs["engine"], "actions_per_s")
    alone = best(runs["batched"], "step_only_per_s")["step_only_per_s"]
    print(
        f"engine alone: {eng['actions_per_s']:,.0f} actions/s; batched is "
        f"{eng['actions_per_s'] / bat['steps_per_s']:.2f} times slower "
        f"({eng['actions_per_s'] / alone:.2f} times in the step alone)"
    )
    theirs = "n/a"
    ratio = "n/a"
    if runs["theirs"]:
        figures = best(runs["theirs"], "steps_per_s")
        print(
            f"catanatron-gym: {figures['steps_per_s']:,.0f} steps/s "
            f"({figures['game_actions'] / figures['steps']:.2f} game actions per step)"
        )
        theirs = f"{figures['steps_per_s']:.0f}"
        pairs = [
            ours["steps_per_s"] / them["steps_per_s"]
            for ours, them in zip(runs["single"], runs["theirs"], strict=True)
        ]
        ratio = f"{statistics.median(pairs):.2f}"
        print(
            "single env to catanatron-gym, round by round: "
            + ", ".join(f"{r:.2f}" for r in pairs)
            + f" (median {ratio})"
        )
    print(
        f"env_steps_per_s: {one['steps_per_s']:.0f} batched_steps_per_s: "
        f"{bat['steps_per_s']:.0f} catanatron_gym_steps_per_s: {theirs} "
        f"ratio_vs_catanatron_gym: {ratio}"
    )


if __name__ == "__main__":
    main()
