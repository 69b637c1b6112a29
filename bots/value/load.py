"""The value networks a bot plays with: a file by name or the one shipped for a player
count, each read once a process, and its numpy form where numpy is installed."""

from __future__ import annotations

from functools import cache
from importlib import resources
from pathlib import Path

from bots.value.batch import Batched, batched
from bots.value.net import NetFileError, ValueNet


@cache
def shipped(players: int) -> Path:
    """The network shipped for ``players`` seats."""
    return Path(str(resources.files("bots.value") / "weights" / f"value-{players}p.hvn"))


@cache
def _load(path: str) -> ValueNet:
    return ValueNet.load(path)


@cache
def numpy_form(net: ValueNet) -> Batched | None:
    """``net`` as numpy arrays (made once a process), or None without numpy."""
    return batched(net)


def network(weights: str, players: int) -> ValueNet:
    """The network of ``weights`` (a file), or the one shipped for ``players`` seats;
    ValueError if there is none or it is for another player count."""
    path = weights or str(shipped(players))
    try:
        net = _load(path)
    except NetFileError as exc:
        raise ValueError(str(exc)) from exc
    if net.players != players:
        raise ValueError(f"{path} is a network for {net.players} players, not {players}")
    return net


__all__ = ["network", "numpy_form", "shipped"]
