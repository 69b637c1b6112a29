"""How well a cut-short rollout's score predicts who wins, and a refit of its weights.

Run it from the repository root (numpy comes with the ``bench`` extra)::

    .venv/bin/python benchmarks/position_eval.py --games 4000 --seed 0

It plays ``--games`` games of four ``heuristic`` players (the opponents the bots are
measured against) and records, at the start of every turn, each seat's
:func:`bots.uct.position_features` and, once the game ends, who won. On three quarters of
the games (by game) it fits a conditional logit, a seat's chance of winning being the
softmax over the seats of ``weights . features``, by Newton's method with a little L2
shrinkage. On the other quarter it prints the mean log-loss (lower is better; 4 seats at
random: ln 4 = 1.386) of:

* ``uniform``: every seat 1/4;
* ``points+dots``: the default score, victory points plus dots/12;
* ``shipped``: :data:`bots.uct.POSITION_WEIGHTS`, what ``fitted_score`` uses;
* ``refit``: the weights fitted now, printed last, to paste into bots/uct.py;

overall and by the leader's points, where the score matters most late in a game.
"""

from __future__ import annotations

import argparse
import random
import time

import numpy as np
import numpy.typing as npt

from bots.heuristic import Decision
from bots.uct import POSITION_WEIGHTS, position_features
from engine import GameConfig, Phase, apply, legal_actions, new_game, seats_to_act, view
from protocol.payloads import action_from_engine, action_to_engine, view_from_engine

Array = npt.NDArray[np.float64]
NAMES = (
    "points",
    "dots/12",
    "kinds",
    "hand",
    "dev cards",
    "knights",
    "road",
    "harbours",
    "points*top",
    "dots*top",
)


def self_play(games: int, seed: int) -> list[tuple[list[list[tuple[float, ...]]], int]]:
    """Per game: every turn start's features of each seat, and the winner (-1: unfinished)."""
    rnd = random.Random(seed)
    out = []
    for g in range(games):
        state = new_game(GameConfig(), seed + g)
        rows: list[list[tuple[float, ...]]] = []
        turn = -1
        for _ in range(20_000):
            if state.is_over:
                break
            if state.phase == Phase.PRE_ROLL and state.turn != turn:
                turn = state.turn
                rows.append([position_features(state, q) for q in range(state.n)])
            q = seats_to_act(state)[0]
            wire = [action_from_engine(a) for a in legal_actions(state, q)]
            choice = Decision(view_from_engine(view(state, q)), wire, rnd).best()
            apply(state, action_to_engine(choice, q))
        out.append((rows, state.winner if state.is_over else -1))
    return out


def arrays(games: list[tuple[list[list[tuple[float, ...]]], int]]) -> tuple[Array, Array]:
    """Features (samples x seats x features) and the winner of each sample's game."""
    xs = [row for rows, winner in games if winner >= 0 for row in rows]
    ys = [winner for rows, winner in games if winner >= 0 for _ in rows]
    return np.array(xs, dtype=np.float64), np.array(ys, dtype=np.int64)


def probabilities(x: Array, w: Array) -> Array:
    s = x @ w
    s -= s.max(axis=1, keepdims=True)
    e = np.exp(s)
    out: Array = e / e.sum(axis=1, keepdims=True)
    return out


def log_loss(x: Array, y: Array, w: Array) -> float:
    p = probabilities(x, w)
    return float(-np.mean(np.log(p[np.arange(len(y)), y] + 1e-12)))


def fit(x: Array, y: Array, l2: float = 1e-3, iterations: int = 25) -> Array:
    """The conditional logit's weights by Newton's method (the log-likelihood is concave)."""
    n, _, f = x.shape
    w = np.zeros(f)
    rows = np.arange(n)
    for _ in range(iterations):
        p = probabilities(x, w)
        mean = np.einsum("nq,nqf->nf", p, x)
        grad = (x[rows, y] - mean).sum(axis=0) - l2 * n * w
        hess = (
            np.einsum("nq,nqf,nqg->fg", p, x, x)
            - np.einsum("nf,ng->fg", mean, mean)
            + l2 * n * np.eye(f)
        )
        step = np.linalg.solve(hess, grad)
        w = w + step
        if float(np.abs(step).max()) < 1e-7:
            break
    return w


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--games", type=int, default=4000)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    start = time.perf_counter()
    games = self_play(args.games, args.seed)
    print(f"self-play: {len(games)} games in {time.perf_counter() - start:.0f}s")
    cut = len(games) * 3 // 4
    x_train, y_train = arrays(games[:cut])
    x_test, y_test = arrays(games[cut:])
    print(f"turn starts: {len(y_train)} to fit, {len(y_test)} to test")
    first = np.zeros(len(NAMES))
    first[0] = first[1] = 1.0
    models = {
        "uniform": np.zeros(len(NAMES)),
        "points+dots": first,
        "shipped": np.array(POSITION_WEIGHTS),
        "refit": fit(x_train, y_train),
    }
    top = x_test[:, :, 0].max(axis=1)
    bands = [("all", np.ones(len(y_test), dtype=bool))] + [
        (f"leader {lo}-{hi - 1}", (top >= lo) & (top < hi)) for lo, hi in ((2, 5), (5, 7), (7, 10))
    ]
    print(f"{'model':12s}" + "".join(f"{name:>14s}" for name, _ in bands))
    for name, w in models.items():
        losses = "".join(f"{log_loss(x_test[m], y_test[m], w):14.4f}" for _, m in bands)
        print(f"{name:12s}{losses}")
    refit = zip(NAMES, models["refit"], strict=True)
    print("refit weights:", ", ".join(f"{n}={v:.3f}" for n, v in refit))
    print("POSITION_WEIGHTS = (" + ", ".join(f"{v:.3g}" for v in models["refit"]) + ")")


if __name__ == "__main__":
    main()
