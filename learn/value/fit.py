"""Training the value network (PyTorch: the ``train`` extra) and writing it for the bots.

The network is a multilayer perceptron from a seat's encoded view to the win logits of
every relative seat, their final points and the turns left. Its loss is the win logits'
cross-entropy plus a tenth of each auxiliary output's squared error (points over 10, turns
over 100). Every shard whose number ends in 9 is held out to validate; with fewer than ten
shards the last one is. The written file (:mod:`bots.value.net`) reads the raw encoding:
the input scale (one over each entry's largest value in the data) is folded into the first
layer. The epoch that did best on the held-out games is kept. Beside it, ``FILE.json`` is
its manifest: the data, the seeds, the steps, the time, the figures on the held-out games
and the command that makes it again.
"""

from __future__ import annotations

import copy
import json
import os
import sys
import time
from collections.abc import Mapping
from dataclasses import asdict, dataclass, replace
from pathlib import Path
from typing import Any

import numpy as np
import torch
from torch import nn

from bots.value.net import ValueNet, write
from learn.value.games import split
from learn.value.positions import SETUP_RATE, TURN_CAP, Positions, load
from learn.value.rollouts import (
    choice_figures,
    is_held_out,
    is_labels,
    load_choices,
    load_labels,
)

POINTS_SCALE = 10.0
TURNS_SCALE = 100.0


@dataclass(frozen=True)
class Fit:
    """How a network is trained."""

    hidden: tuple[int, ...] = (128, 64)
    epochs: int = 8
    batch: int = 1024
    lr: float = 1e-3
    weight_decay: float = 1e-5
    rate: float = 0.1  # the share of each game's positions taken
    setup_rate: float = SETUP_RATE  # the share of its set-up positions taken
    seed: int = 0
    threads: int = 1
    init: str = ""  # a network file to go on training (its layer sizes win over hidden)


class Model(nn.Module):
    """The value network: ReLU layers, then the win logits, points and turns left."""

    def __init__(self, size: int, players: int, hidden: tuple[int, ...], scale: np.ndarray) -> None:
        super().__init__()
        layers: list[nn.Module] = []
        width = size
        for h in hidden:
            layers += [nn.Linear(width, h), nn.ReLU()]
            width = h
        layers.append(nn.Linear(width, 2 * players + 1))
        self.body = nn.Sequential(*layers)
        self.scale: torch.Tensor
        self.register_buffer("scale", torch.tensor(scale, dtype=torch.float32))
        self.players = players

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        out: torch.Tensor = self.body(x.float() * self.scale)
        return out


def _loss(model: Model, out: torch.Tensor, batch: tuple[torch.Tensor, ...]) -> torch.Tensor:
    _, win, points, left = batch
    n = model.players
    ce = nn.functional.cross_entropy(out[:, :n], win)
    pts = nn.functional.mse_loss(out[:, n : 2 * n], points / POINTS_SCALE)
    turns = nn.functional.mse_loss(out[:, 2 * n], left / TURNS_SCALE)
    return ce + 0.1 * pts + 0.1 * turns


def _tensors(p: Positions) -> tuple[torch.Tensor, ...]:
    return (
        torch.from_numpy(p.x),
        torch.from_numpy(p.win),
        torch.from_numpy(p.points),
        torch.from_numpy(p.turns_left),
    )


def evaluate(model: Model, data: tuple[torch.Tensor, ...]) -> dict[str, float]:
    """Held-out figures: the win cross-entropy, how often the likeliest seat won, and the
    Brier score of the win probabilities."""
    model.eval()
    n = model.players
    ce = correct = brier = 0.0
    rows = int(data[0].shape[0])
    with torch.no_grad():
        for lo in range(0, rows, 8192):
            batch = tuple(t[lo : lo + 8192] for t in data)
            logits = model(batch[0])[:, :n]
            win = batch[1]
            ce += float(-(win * logits.log_softmax(1)).sum())
            correct += float(win.gather(1, logits.argmax(1, keepdim=True)).sum())
            brier += float(((logits.softmax(1) - win) ** 2).sum())
    model.train()
    return {
        "cross_entropy": ce / max(rows, 1),
        "accuracy": correct / max(rows, 1),
        "brier": brier / max(rows, 1),
    }


def train(
    folders: list[Path],
    out: Path,
    fit: Fit,
    workers: int = 1,
    progress: Any = print,
    command: str = "",
    rates: Mapping[Path, float] | None = None,
) -> dict[str, Any]:
    """Train on the games in ``folders`` and write the network to ``out`` (with
    ``out.json``, its manifest); returns the manifest. ``rates`` gives a folder's share of
    positions where it is not ``fit.rate``."""
    start_cpu = time.process_time()
    start = time.perf_counter()
    torch.manual_seed(fit.seed)
    torch.set_num_threads(max(1, fit.threads))
    labelled = [f for f in folders if is_labels(f)]
    for folder in labelled:
        if is_held_out(folder):
            raise ValueError(f"{folder} labels the held-out games: score networks on it")
    if len(labelled) == len(folders):
        raise ValueError("fit needs a folder of games beside labels: its held-out games")
    train_paths, held_paths = split([f for f in folders if f not in labelled])
    rates = dict(rates or {})

    def rate_of(paths: list[Path]) -> list[float]:
        return [rates.get(p.parent, fit.rate) for p in paths]

    extra = load_labels(labelled, [rates.get(f, 1.0) for f in labelled]) if labelled else None
    data = load(train_paths, rate_of(train_paths), fit.seed, workers, fit.setup_rate, extra)
    del extra
    held = load(held_paths, rate_of(held_paths), fit.seed, workers, fit.setup_rate)
    players = int(data.points.shape[1])
    progress(
        f"{len(data)} positions from {data.games} games and {len(labelled)} label folders; "
        f"{len(held)} held out"
    )
    if fit.init:  # go on from a network file: its layers, its inputs' scale folded in
        start_net = ValueNet.load(fit.init)
        if start_net.players != players or len(start_net.weights[0][0]) != data.x.shape[1]:
            raise ValueError(f"{fit.init} is a network for other games than these")
        model = model_of(start_net)
        fit = replace(fit, hidden=tuple(len(b) for b in start_net.biases[:-1]))
    else:
        scale = 1.0 / np.maximum(data.x.max(axis=0).astype(np.float32), 1.0)
        model = Model(data.x.shape[1], players, fit.hidden, scale)
    opt = torch.optim.Adam(model.parameters(), lr=fit.lr, weight_decay=fit.weight_decay)
    tensors, held_t = _tensors(data), _tensors(held)
    rows = len(data)
    gen = torch.Generator().manual_seed(fit.seed)
    steps = 0
    history: list[dict[str, float]] = []
    best: tuple[float, dict[str, torch.Tensor]] | None = None
    for epoch in range(fit.epochs):
        order = torch.randperm(rows, generator=gen)
        total = 0.0
        for lo in range(0, rows, fit.batch):
            idx = order[lo : lo + fit.batch]
            batch = tuple(t[idx] for t in tensors)
            loss = _loss(model, model(batch[0]), batch)
            opt.zero_grad()
            loss.backward()  # type: ignore[no-untyped-call]
            opt.step()
            total += loss.item() * len(idx)
            steps += 1
        figures = {"epoch": epoch + 1, "loss": total / max(rows, 1), **evaluate(model, held_t)}
        history.append(figures)
        if best is None or figures["cross_entropy"] < best[0]:
            best = (figures["cross_entropy"], copy.deepcopy(model.state_dict()))
        progress(
            f"epoch {epoch + 1}: loss {figures['loss']:.4f}, held out: cross-entropy "
            f"{figures['cross_entropy']:.4f}, likeliest seat won {figures['accuracy']:.3f}, "
            f"Brier {figures['brier']:.4f}"
        )
    if best is not None:  # the epoch that did best on the held-out games
        model.load_state_dict(best[1])
    records = []
    for folder in folders:
        record = folder / "run.json"
        records.append(
            {
                "folder": str(folder),
                "rate": rates.get(folder, 1.0 if folder in labelled else fit.rate),
                **(json.loads(record.read_text()) if record.exists() else {}),
            }
        )
    manifest: dict[str, Any] = {
        "players": players,
        "fit": asdict(fit),
        "data": records,
        "positions": rows,
        "held_out_positions": len(held),
        "games": data.games + held.games,
        "steps": steps,
        "cpu_seconds": time.process_time() - start_cpu,
        "wall_seconds": time.perf_counter() - start,
        "held_out": min(history, key=lambda h: h["cross_entropy"]) if history else {},
        "history": history,
        "command": command or " ".join([Path(sys.executable).name, *sys.argv]),
        "torch": torch.__version__,
    }
    export(model, out, {"trained": {k: manifest[k] for k in ("positions", "steps", "games")}})
    Path(str(out) + ".json").write_text(json.dumps(manifest, indent=1) + "\n")
    return manifest


def export(model: Model, out: Path, extra: dict[str, Any]) -> None:
    """Write ``model`` as a value-network file, its input scale folded into the first layer."""
    linears = [m for m in model.body if isinstance(m, nn.Linear)]
    scale = model.scale.detach().numpy()
    layers = []
    for i, lin in enumerate(linears):
        w = lin.weight.detach().numpy().astype(np.float64)
        if i == 0:
            w = w * scale[None, :]
        layers.append((w.tolist(), lin.bias.detach().numpy().tolist()))
    header = {
        "players": model.players,
        "radius": 3,
        "points_scale": POINTS_SCALE,
        "turns_scale": TURNS_SCALE,
        "turn_cap": TURN_CAP,
        **extra,
    }
    out.parent.mkdir(parents=True, exist_ok=True)
    write(out, header, layers)


def score(
    folders: list[Path],
    files: list[Path],
    rate: float,
    setup_rate: float = SETUP_RATE,
    seed: int = 0,
    workers: int = 1,
    rates: Mapping[Path, float] | None = None,
    margin: float = 0.05,
) -> dict[str, dict[str, float]]:
    """Each network file's figures (:func:`evaluate`'s) on the positions of the games
    ``fit`` holds out of ``folders``, taken as ``fit`` takes them with these settings: so
    networks are compared on the same positions, and a file's own manifest is checked.
    Where ``folders`` hold labels of the held-out games (``label --held-out``), also how
    its choices fare by them (:func:`learn.value.rollouts.choice_figures`, with ``margin``)."""
    labelled = [f for f in folders if is_labels(f)]
    scored = [f for f in labelled if is_held_out(f)]
    games = [f for f in folders if f not in labelled]
    held: Positions | None = None
    if games or not scored:
        _, held_paths = split(games)
        chosen = dict(rates or {})
        held = load(
            held_paths, [chosen.get(p.parent, rate) for p in held_paths], seed, workers, setup_rate
        )
    moves = load_choices(scored) if scored else None
    out: dict[str, dict[str, float]] = {}
    for path in files:
        net = ValueNet.load(path)
        model = model_of(net)
        figures: dict[str, float] = {}
        if held is not None:
            if net.players != held.points.shape[1]:
                raise ValueError(f"{path} is a network for {net.players} players, not the games'")
            figures = {"positions": float(len(held)), **evaluate(model, _tensors(held))}
        if moves is not None:
            figures.update(choice_figures(moves, own_chance(model, moves.x), margin))
        out[str(path)] = figures
    return out


def own_chance(model: Model, x: np.ndarray) -> np.ndarray:
    """The model's chance that the seat whose view each row is wins."""
    model.eval()
    parts = []
    with torch.no_grad():
        for lo in range(0, len(x), 8192):
            logits = model(torch.from_numpy(x[lo : lo + 8192]))[:, : model.players]
            parts.append(logits.softmax(1)[:, 0].numpy())
    model.train()
    return np.concatenate(parts) if parts else np.zeros(0, np.float32)


def model_of(net: ValueNet) -> Model:
    """A network file as a torch model giving its outputs (input scale 1: the file folds
    the scale into its first layer)."""
    sizes = [len(net.weights[0][0])] + [len(b) for b in net.biases]
    model = Model(sizes[0], net.players, tuple(sizes[1:-1]), np.ones(sizes[0], np.float32))
    linears = [m for m in model.body if isinstance(m, nn.Linear)]
    with torch.no_grad():
        for lin, w, b in zip(linears, net.weights, net.biases, strict=True):
            lin.weight.copy_(torch.tensor(w))
            lin.bias.copy_(torch.tensor(b))
    return model


def cpu_count() -> int:
    """The cores this process may use."""
    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1


__all__ = [
    "Fit",
    "Model",
    "evaluate",
    "export",
    "model_of",
    "own_chance",
    "score",
    "split",
    "train",
]
