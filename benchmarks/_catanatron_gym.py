"""catanatron's Gymnasium environment under a uniformly random valid-action loop, in steps/s.

A helper for the environment benchmarks (benchmarks/env_speed.py prints its figure beside
Hexhaven's own environment); it also runs on its own, from the repository root::

    .venv/bin/python benchmarks/_catanatron_gym.py --steps 20000 --seed 0

The PyPI package ``catanatron-gym`` 4.0.0 pins ``gymnasium==0.29.1`` while Hexhaven's venv
has gymnasium 1.x, so it lives in a venv of its own: ``ensure_venv`` creates one (once, in
``~/.cache/hexhaven/catanatron-gym-venv`` unless told otherwise) and installs ``PINS`` into
it. catanatron-gym 4.0.0 works unchanged with catanatron 3.2.1, the same catanatron release
as Hexhaven's ``bench`` extra.

What is measured (``measure``): a child process in that venv, pinned to one core, makes
``gymnasium.make("catanatron_gym:catanatron-v1")`` with its default configuration: the
learning seat against one ``RandomPlayer`` (a two-player game to 10 points on the base
map) and observations as the flat feature vector (``representation="vector"``). It calls
``env.reset(seed=seed)`` once, then ``steps`` times picks an action uniformly with
``random.Random(seed)`` from ``info["valid_actions"]`` (the env's ``get_valid_actions()``,
action-space integers) and calls ``env.step``; when an episode ends (a winner, or
truncated at catanatron's limit of 1000 turns) it calls ``env.reset()``. Only that loop is
timed, resets included.

One ``env.step`` is more than one game action: the env applies the learner's action and
then lets the opponent play (``_advance_until_p0_decision``) until it is the learner's
decision again or the game is won, and builds the observation (the feature vector from
scratch) every step. The child counts the game's own action log, so the figures include
game actions per learner step besides steps/s. With seed 0 and 20000 steps: 44 episodes
(about 450 learner steps, 900 game actions each), 2.0 game actions per learner step, and
about 4,200 steps/s (8,400 game actions/s) on one core of the 2-core development machine
(Python 3.11.7). Under cProfile about 40% of a step goes to the observation, most of the
rest to catanatron applying actions and listing the playable ones.

Reproducibility: catanatron seeds Python's global ``random`` inside ``Game(seed=...)`` but
treats seed 0 as "no seed", builds each episode's map from the global ``random`` before
seeding, and its ``RandomPlayer`` draws from the global ``random`` too; so the child seeds
the global ``random`` with ``seed`` first and runs with ``PYTHONHASHSEED=0``. That is not
enough on Python 3.11: catanatron lists maritime trades from a set of tuples holding
``None`` (a 3:1 harbour), and ``hash(None)`` there is None's address, so the opponent's
random choices, and the games, change from run to run with address-space randomisation.
Where ``setarch -R`` can turn that off (Linux) the child runs under it, and a run repeats
exactly; elsewhere the games differ run to run, though not their kind.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import shutil
import subprocess
import sys
from functools import cache
from pathlib import Path

PINS = (
    "catanatron-gym==4.0.0",
    "catanatron==3.2.1",
    "gymnasium==0.29.1",
    "numpy==2.4.6",
    "networkx==3.6.1",
)
"""What ``ensure_venv`` installs; a venv stamped with other pins is brought up to these."""
DEFAULT_VENV = Path.home() / ".cache" / "hexhaven" / "catanatron-gym-venv"
STAMP = "hexhaven-pins.txt"
"""A file in the venv naming the pins installed there, written once the install succeeds."""

CHILD = r"""
import json, os, random, sys, time

if hasattr(os, "sched_getaffinity") and hasattr(os, "sched_setaffinity"):
    os.sched_setaffinity(0, {min(os.sched_getaffinity(0))})

import gymnasium
import catanatron_gym  # noqa: F401  (registers catanatron-v1)

steps, seed = int(sys.argv[1]), int(sys.argv[2])
random.seed(seed)  # catanatron's maps and RandomPlayer draw from the global random
choose = random.Random(seed).choice
env = gymnasium.make("catanatron_gym:catanatron-v1")
game_env = env.unwrapped
obs, info = env.reset(seed=seed)
episodes = 0
game_actions = 0
start = time.perf_counter()
for _ in range(steps):
    obs, reward, terminated, truncated, info = env.step(choose(info["valid_actions"]))
    if terminated or truncated:
        episodes += 1
        game_actions += len(game_env.game.state.actions)
        obs, info = env.reset()
seconds = time.perf_counter() - start
game_actions += len(game_env.game.state.actions)
print(json.dumps({
    "steps": steps,
    "seconds": seconds,
    "steps_per_s": steps / seconds,
    "episodes": episodes,
    "game_actions": game_actions,
    "cpu": min(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else -1,
}))
"""
"""The measuring script, run with ``python -c CHILD STEPS SEED`` in the venv."""


def venv_python(path: Path) -> Path:
    """The interpreter of the venv at ``path``."""
    if os.name == "nt":
        return path / "Scripts" / "python.exe"
    return path / "bin" / "python"


def ensure_venv(path: Path = DEFAULT_VENV) -> Path:
    """Create the venv at ``path`` with ``PINS`` installed, unless done already; its python."""
    python = venv_python(path)
    stamp = path / STAMP
    wanted = "\n".join(PINS) + "\n"
    if python.exists() and stamp.exists() and stamp.read_text() == wanted:
        return python
    print(f"installing {' '.join(PINS)} into {path}", file=sys.stderr, flush=True)
    path.parent.mkdir(parents=True, exist_ok=True)
    if not python.exists():
        run_quietly([sys.executable, "-m", "venv", "--clear", str(path)])
    stamp.unlink(missing_ok=True)
    run_quietly([str(python), "-m", "pip", "install", "--disable-pip-version-check", *PINS])
    stamp.write_text(wanted)
    return python


def run_quietly(command: list[str]) -> None:
    """Run ``command``, showing its output only if it fails."""
    done = subprocess.run(command, capture_output=True, text=True, check=False)
    if done.returncode:
        raise RuntimeError(
            f"{' '.join(command)} failed ({done.returncode}):\n{done.stdout}{done.stderr}"
        )


@cache
def fixed_addresses() -> list[str]:
    """A command prefix that turns off address-space randomisation, or [] if none works."""
    setarch = shutil.which("setarch")
    if not sys.platform.startswith("linux") or setarch is None:
        return []
    prefix = [setarch, platform.machine(), "-R"]
    probe = subprocess.run([*prefix, "true"], capture_output=True, check=False)
    return prefix if probe.returncode == 0 else []


def run_child(python: Path, steps: int, seed: int) -> dict[str, float]:
    """Run the measuring loop in ``python``; its figures (``steps_per_s`` and the counts)."""
    if steps < 1:
        raise ValueError("steps must be positive")
    env = dict(os.environ, PYTHONHASHSEED="0")
    prefix = fixed_addresses()
    done = subprocess.run(
        [*prefix, str(python), "-c", CHILD, str(steps), str(seed)],
        capture_output=True,
        text=True,
        check=False,
        env=env,
    )
    if done.returncode:
        raise RuntimeError(f"the catanatron-gym loop failed ({done.returncode}):\n{done.stderr}")
    figures: dict[str, float] = {
        key: value
        for key, value in json.loads(done.stdout.strip().splitlines()[-1]).items()
        if isinstance(value, int | float)
    }
    figures["repeatable"] = float(bool(prefix))
    return figures


def measure(python: Path, steps: int, seed: int) -> float:
    """Steps per second of catanatron-v1 under uniformly random valid actions, on one core."""
    return run_child(python, steps, seed)["steps_per_s"]


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else None)
    parser.add_argument("--steps", type=int, default=20_000, help="env steps to time (20000)")
    parser.add_argument("--seed", type=int, default=0, help="seed of the env and choices (0)")
    parser.add_argument(
        "--venv", type=Path, default=DEFAULT_VENV, help=f"venv to use or create ({DEFAULT_VENV})"
    )
    args = parser.parse_args(argv)
    if args.steps < 1:
        parser.error("--steps must be positive")
    figures = run_child(ensure_venv(args.venv), args.steps, args.seed)
    steps = figures["steps"]
    print(
        f"catanatron-gym: {steps:.0f} steps in {figures['seconds']:.2f} s,"
        f" {figures['episodes']:.0f} episodes ended,"
        f" {figures['game_actions'] / steps:.2f} game actions per step, cpu {figures['cpu']:.0f},"
        f" {'repeatable' if figures['repeatable'] else 'not repeatable (no setarch -R)'}"
    )
    print(f"catanatron_gym_steps_per_s: {figures['steps_per_s']:.0f}")


if __name__ == "__main__":
    main()
