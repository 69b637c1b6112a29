"""Random games and nothing else, to count the engine's instructions under valgrind.

Timings on a shared machine move by 10% from run to run; instruction counts do not. This
script plays ``--games`` games exactly as ``engine_speed.py`` does (``legal_actions`` then
``advance``, seeds ``--seed`` on), after one warm-up game that builds the tables made once
per process. Run it twice under callgrind, with no games and with some, and divide the
difference by the games::

    valgrind --tool=callgrind --callgrind-out-file=/tmp/none.out \\
        .venv/bin/python benchmarks/engine_instructions.py --games 0
    valgrind --tool=callgrind --callgrind-out-file=/tmp/games.out \\
        .venv/bin/python benchmarks/engine_instructions.py --games 50
    callgrind_annotate /tmp/games.out | head -30

(each run prints valgrind's ``Collected`` total). It prints the build it measured and the
actions played, so two builds can be checked to play the same games. With ``--catanatron``
it plays catanatron's games instead, as ``engine_speed.py`` does (four ``RandomPlayer``s):
the two engines' instructions a game make a ratio that holds from day to day, where the
timed ratio moves with what else the machine runs.
"""

from __future__ import annotations

import argparse
from typing import Any

from engine_speed import PLAYERS, engine_build, load_catanatron, play_random_game

from engine import GameConfig

WARM_UP_SEED = 1_000_000


def play_catanatron(catan: tuple[Any, Any, Any], seeds: range) -> None:
    """catanatron's random games on ``seeds``, after one to warm up, as engine_speed.py
    plays them."""
    game_cls, player_cls, color = catan
    colors = list(color)[:PLAYERS]
    game_cls([player_cls(c) for c in colors], seed=WARM_UP_SEED).play()
    actions = 0
    for seed in seeds:
        game = game_cls([player_cls(c) for c in colors], seed=seed)
        game.play()
        actions += len(game.state.actions)
    print("engine: catanatron")
    print(f"games: {len(seeds)}  actions: {actions}")


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else None)
    parser.add_argument("--games", type=int, default=50, help="games to play (50)")
    parser.add_argument("--seed", type=int, default=0, help="first game seed (0)")
    parser.add_argument("--catanatron", action="store_true", help="catanatron's games instead")
    args = parser.parse_args(argv)
    if args.games < 0:
        parser.error("--games must not be negative")
    if args.catanatron:
        catan = load_catanatron()
        if catan is None:
            parser.error("catanatron is not installed: pip install '.[catanatron]'")
        play_catanatron(catan, range(args.seed, args.seed + args.games))
        return
    config = GameConfig(players=4)
    play_random_game(config, WARM_UP_SEED)
    actions = 0
    for seed in range(args.seed, args.seed + args.games):
        actions += play_random_game(config, seed).actions_taken
    print(f"engine: {engine_build()}")
    print(f"games: {args.games}  actions: {actions}")


if __name__ == "__main__":
    main()
