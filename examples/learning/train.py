"""Train a small masked policy against the ``random`` bot, on CPU, with numpy alone.

The policy is a multilayer perceptron over a seat's encoded view (``tanh`` hidden layer, one
logit per action index, illegal actions masked out; :class:`bots.policy.MaskedMLP`), with a
value head beside it. It learns by advantage actor-critic in Hexhaven's vector environment
(:class:`learn.gym_env.HexhavenVectorEnv`): ``--envs`` games against ``random`` opponents,
the learner's seat turning round the table, rewarded +1 for a win, -1 for a loss and
``--points`` for each victory point gained. Then it plays ``--eval-games`` games against
``random`` with seats rotated, greedy, and prints its win rate with a 95% interval beside
the rate a uniformly random player gets in the same seats.

Needs the ``learn`` extra (numpy, gymnasium, pettingzoo): ``pip install -e '.[learn]'``.
From the repository root::

    .venv/bin/python examples/learning/train.py --minutes 5 --seed 0 --out policy.npz

The run is fixed by its arguments and ``--seed``. ``--resume`` goes on from the checkpoint
beside ``--out`` (``policy.npz.ckpt.npz``: weights, optimiser state, steps, the random
state). The policy file plays anywhere a bot sits::

    hexhaven bot --kind policy --param weights=policy.npz ws://HOST:PORT --invite CODE

and a manifest (``policy.npz.json``) says how it was made: the arguments, the games, the
positions, the CPU seconds and the evaluation.
"""

from __future__ import annotations

import argparse
import json
import math
import resource
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np

from bots.policy import FORMAT, MaskedMLP
from learn.batch import Rules
from learn.gym_env import HexhavenEnv, HexhavenVectorEnv

CLIP = 3.0
"""Scaled observation entries are cut at this value (counts past 10 stop adding)."""


def cpu_seconds() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


class Net:
    """The trainable policy and value: weights, their gradients and Adam's moments."""

    def __init__(self, inputs: int, hidden: int, actions: int, rng: np.random.Generator) -> None:
        self.p = {
            "w0": rng.normal(0, 1 / math.sqrt(inputs), (inputs, hidden)).astype(np.float32),
            "b0": np.zeros(hidden, np.float32),
            "w1": rng.normal(0, 0.01, (hidden, actions)).astype(np.float32),
            "b1": np.zeros(actions, np.float32),
            "wv": np.zeros((hidden, 1), np.float32),
            "bv": np.zeros(1, np.float32),
        }
        self.m = {k: np.zeros_like(v) for k, v in self.p.items()}
        self.v = {k: np.zeros_like(v) for k, v in self.p.items()}
        self.t = 0

    def forward(self, x: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        h = np.tanh(x @ self.p["w0"] + self.p["b0"])
        return h, h @ self.p["w1"] + self.p["b1"], (h @ self.p["wv"] + self.p["bv"])[:, 0]

    def adam(self, grads: dict[str, np.ndarray], lr: float) -> None:
        self.t += 1
        for k, g in grads.items():
            self.m[k] = 0.9 * self.m[k] + 0.1 * g
            self.v[k] = 0.999 * self.v[k] + 0.001 * g * g
            mh = self.m[k] / (1 - 0.9**self.t)
            vh = self.v[k] / (1 - 0.999**self.t)
            self.p[k] -= (lr * mh / (np.sqrt(vh) + 1e-8)).astype(np.float32)


def masked_softmax(z: np.ndarray, mask: np.ndarray) -> np.ndarray:
    z = np.where(mask != 0, z, -np.inf)
    z = z - z.max(axis=1, keepdims=True)
    e = np.exp(z)
    p: np.ndarray = e / e.sum(axis=1, keepdims=True)
    return p


def update(
    net: Net,
    x: np.ndarray,
    masks: np.ndarray,
    actions: np.ndarray,
    advantages: np.ndarray,
    returns: np.ndarray,
    lr: float,
    entropy: float,
) -> dict[str, float]:
    """One actor-critic step on a batch; the losses' parts, for the log."""
    n = len(x)
    h, z, value = net.forward(x)
    p = masked_softmax(z, masks)
    logp = np.log(np.where(p > 0, p, 1.0))
    ent = -(p * logp).sum(axis=1)
    # d(loss)/dz: policy gradient, minus the entropy bonus's gradient
    dz = p.copy()
    dz[np.arange(n), actions] -= 1.0
    dz *= advantages[:, None]
    dz -= entropy * (-p * (logp + ent[:, None]))
    dz /= n
    dv = (value - returns)[:, None] / n
    dh = dz @ net.p["w1"].T + dv @ net.p["wv"].T
    dpre = dh * (1 - h * h)
    grads = {
        "w1": h.T @ dz,
        "b1": dz.sum(axis=0),
        "wv": h.T @ dv,
        "bv": dv.sum(axis=0),
        "w0": x.T @ dpre,
        "b0": dpre.sum(axis=0),
    }
    norm = math.sqrt(sum(float((g * g).sum()) for g in grads.values()))
    if norm > 1.0:
        grads = {k: g / norm for k, g in grads.items()}
    net.adam(grads, lr)
    return {"entropy": float(ent.mean()), "value_error": float(((value - returns) ** 2).mean())}


def mlp_of(net: Net, scale: np.ndarray, players: int, name: str) -> MaskedMLP:
    weights = [(net.p["w0"], net.p["b0"]), (net.p["w1"], net.p["b1"])]
    header = {"format": FORMAT, "players": players, "radius": 3, "max_offers": 3, "name": name}
    header["clip"] = CLIP
    return MaskedMLP([(w.copy(), b.copy()) for w, b in weights], scale, header)


def wilson(wins: int, games: int) -> tuple[float, float]:
    """The 95% Wilson score interval of a win rate."""
    if games == 0:
        return 0.0, 1.0
    z = 1.96
    p = wins / games
    centre = (p + z * z / (2 * games)) / (1 + z * z / games)
    half = z * math.sqrt(p * (1 - p) / games + z * z / (4 * games * games)) / (1 + z * z / games)
    return max(0.0, centre - half), min(1.0, centre + half)


def evaluate(policy: Any, players: int, games: int, seed: int) -> int:
    """Games won by ``policy`` (obs, mask -> index) against ``random``, seats rotated."""
    env = HexhavenEnv(players=players)
    wins = 0
    for k in range(games):
        obs, info = env.reset(seed=seed if k == 0 else None)
        while True:
            obs, _, terminated, truncated, info = env.step(policy(obs, info["action_mask"]))
            if terminated or truncated:
                wins += int(info["winner"] == info["seat"])
                break
    return wins


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--minutes", type=float, default=5.0, help="training time (CPU, wall)")
    ap.add_argument("--updates", type=int, default=0, help="stop after this many updates")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--players", type=int, default=2, choices=[2, 3, 4])
    ap.add_argument("--envs", type=int, default=32, help="games stepped together")
    ap.add_argument("--steps", type=int, default=32, help="steps per game between updates")
    ap.add_argument("--hidden", type=int, default=64)
    ap.add_argument("--lr", type=float, default=3e-3)
    ap.add_argument("--gamma", type=float, default=0.995)
    ap.add_argument("--lam", type=float, default=0.95)
    ap.add_argument("--entropy", type=float, default=0.01)
    ap.add_argument("--points", type=float, default=0.1, help="reward per victory point")
    ap.add_argument("--eval-games", type=int, default=200)
    ap.add_argument("--out", type=Path, default=Path("policy.npz"))
    ap.add_argument("--resume", action="store_true", help="go on from the checkpoint")
    args = ap.parse_args(argv)

    rules = Rules(players=args.players, points=args.points)
    vec = HexhavenVectorEnv(args.envs, rules=rules)
    size, actions = vec.games.encoding.size, vec.games.index.size
    scale = (1.0 / np.clip(np.asarray(vec.games.encoding.highs), 1, 10)).astype(np.float32)
    rng = np.random.default_rng(args.seed)
    net = Net(size, args.hidden, actions, rng)
    ckpt = Path(f"{args.out}.ckpt.npz")
    done = {"updates": 0, "steps": 0, "games": 0, "cpu_s": 0.0}
    env_seed = args.seed
    if args.resume and ckpt.exists():
        with np.load(ckpt, allow_pickle=False) as data:
            for k in net.p:
                net.p[k], net.m[k], net.v[k] = data[k], data["m_" + k], data["v_" + k]
            done = json.loads(str(data["done"]))
            net.t = int(done["updates"])
            rng = np.random.default_rng([args.seed, net.t])
            env_seed = args.seed * 7919 + net.t
        print(f"resumed from {ckpt} at update {net.t}")

    obs, info = vec.reset(seed=env_seed)
    mask = info["action_mask"]
    start_cpu, start = cpu_seconds(), time.monotonic()
    wins = losses = 0
    updates = 0
    while True:
        if args.updates and updates >= args.updates:
            break
        if not args.updates and time.monotonic() - start > args.minutes * 60:
            break
        xs, ms, acts, rews, vals, ends = [], [], [], [], [], []
        for _ in range(args.steps):
            x = np.minimum(obs * scale, CLIP)
            _, z, value = net.forward(x)
            p = masked_softmax(z, mask)
            u = rng.random((args.envs, 1))
            a = np.minimum((p.cumsum(axis=1) < u).sum(axis=1), actions - 1)
            a = np.where(mask[np.arange(args.envs), a] != 0, a, p.argmax(axis=1))
            xs.append(x)
            ms.append(mask.copy())
            acts.append(a)
            vals.append(value)
            obs, reward, terminated, truncated, info = vec.step(a)
            mask = info["action_mask"]
            rews.append(reward.astype(np.float32))
            ends.append(terminated | truncated)
            wins += int((terminated & (reward > 0.5)).sum())
            losses += int((terminated & (reward < -0.5)).sum())
            done["games"] += int((terminated | truncated).sum())
        _, _, last = net.forward(np.minimum(obs * scale, CLIP))
        adv = np.zeros((args.steps, args.envs), np.float32)
        running = np.zeros(args.envs, np.float32)
        for t in reversed(range(args.steps)):
            following = last if t == args.steps - 1 else vals[t + 1]
            live = 1.0 - ends[t]
            delta = rews[t] + args.gamma * following * live - vals[t]
            running = delta + args.gamma * args.lam * live * running
            adv[t] = running
        returns = adv + np.asarray(vals)
        flat = adv.reshape(-1)
        flat = (flat - flat.mean()) / (flat.std() + 1e-8)
        stats = update(
            net,
            np.concatenate(xs),
            np.concatenate(ms),
            np.concatenate(acts),
            flat,
            returns.reshape(-1),
            args.lr,
            args.entropy,
        )
        updates += 1
        done["updates"] += 1
        done["steps"] += args.steps * args.envs
        if updates % 50 == 0:
            rate = wins / max(1, wins + losses)
            print(
                f"update {done['updates']}: {done['steps']} positions, {done['games']} games, "
                f"win rate in training {rate:.2f}, entropy {stats['entropy']:.2f}",
                flush=True,
            )
            wins = losses = 0
    done["cpu_s"] += cpu_seconds() - start_cpu

    name = f"a2c-{args.players}p-seed{args.seed}"
    mlp = mlp_of(net, scale, args.players, name)
    mlp.save(args.out)
    arrays: dict[str, Any] = dict(net.p)
    arrays.update({"m_" + k: v for k, v in net.m.items()})
    arrays.update({"v_" + k: v for k, v in net.v.items()})
    np.savez(ckpt, done=json.dumps(done), **arrays)

    trained = MaskedMLP.load(args.out)
    eval_cpu = cpu_seconds()
    won = evaluate(trained, args.players, args.eval_games, seed=args.seed + 10_000)
    base_rng = np.random.default_rng(args.seed)

    def uniform(obs: np.ndarray, mask: np.ndarray) -> int:
        return int(base_rng.choice(np.flatnonzero(mask)))

    base = evaluate(uniform, args.players, args.eval_games, seed=args.seed + 10_000)
    eval_cpu = cpu_seconds() - eval_cpu
    lo, hi = wilson(won, args.eval_games)
    blo, bhi = wilson(base, args.eval_games)
    n = max(1, args.eval_games)
    print(f"trained: {done['updates']} updates, {done['steps']} positions, {done['games']} games")
    print(f"cost: {done['cpu_s']:.0f} CPU seconds training, {eval_cpu:.0f} evaluating")
    print(
        f"against random over {args.eval_games} games, seats rotated: policy wins "
        f"{won / n:.2f} [{lo:.2f}, {hi:.2f}]; a uniform player wins {base / n:.2f} "
        f"[{blo:.2f}, {bhi:.2f}]"
    )
    manifest = {
        "command": " ".join(["examples/learning/train.py", *(argv or sys.argv[1:])]),
        "arguments": {k: str(v) for k, v in vars(args).items()},
        "trained": done,
        "evaluation": {
            "opponents": "random",
            "games": args.eval_games,
            "policy_wins": won,
            "uniform_wins": base,
            "interval_95": [lo, hi],
            "cpu_s": eval_cpu,
        },
    }
    Path(f"{args.out}.json").write_text(json.dumps(manifest, indent=2) + "\n")
    print(f"wrote {args.out}, {args.out}.json and {ckpt}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
