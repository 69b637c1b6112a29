"""Many positions through the value network in one numpy pass, where numpy is installed
(any extra brings it; the default install does without, evaluating one position at a time
in plain Python): the same numbers as :class:`bots.value.net.ValueNet`, in float32."""

from __future__ import annotations

import importlib
from collections.abc import Sequence
from typing import Any

from bots.value.net import ValueNet, write_inputs
from engine.state import GameState

np: Any
try:
    np = importlib.import_module("numpy")
except ImportError:  # the default install: plain Python only
    np = None


class Batched:
    """A network's weights as numpy arrays, evaluating a batch of states at once."""

    def __init__(self, net: ValueNet) -> None:
        assert np is not None
        self.net = net
        self.layers = [
            (np.asarray(w, dtype=np.float32).T.copy(), np.asarray(b, dtype=np.float32))
            for w, b in zip(net.weights, net.biases, strict=True)
        ]
        self.size = net.size

    def raw(self, x: Any) -> Any:
        """The last layer's outputs for rows of encoded vectors ``x`` (turns capped)."""
        turn = self.net.turn_index
        x[:, turn] = np.minimum(x[:, turn], self.net.turn_cap)
        h = x
        last = len(self.layers) - 1
        for i, (w, b) in enumerate(self.layers):
            h = h @ w + b
            if i < last:
                np.maximum(h, 0.0, out=h)
        return h

    def state_wins(self, states: Sequence[GameState], seat: int | Sequence[int]) -> list[float]:
        """``seat``'s chance to win in each of ``states``, from its view of each (``seat``
        may also give a seat for each state)."""
        seats = [seat] * len(states) if isinstance(seat, int) else seat
        x = np.zeros((len(states), self.size), dtype=np.float32)
        for i, state in enumerate(states):
            write_inputs(state, seats[i], x[i])
        logits = self.raw(x)[:, : self.net.players]
        logits = logits - logits.max(axis=1, keepdims=True)
        e = np.exp(logits)
        return (e[:, 0] / e.sum(axis=1)).tolist()  # type: ignore[no-any-return]

    def state_win(self, state: GameState, seat: int) -> list[float]:
        """Each relative seat's chance to win in ``state`` (row 0: ``seat``), read from
        ``seat``'s view: :meth:`ValueNet.state_win` in one numpy pass."""
        x = np.zeros((1, self.size), dtype=np.float32)
        write_inputs(state, seat, x[0])
        logits = self.raw(x)[0, : self.net.players]
        e = np.exp(logits - logits.max())
        return (e / e.sum()).tolist()  # type: ignore[no-any-return]


def batched(net: ValueNet) -> Batched | None:
    """The numpy form of ``net``, or None without numpy."""
    return None if np is None else Batched(net)


__all__ = ["Batched", "batched"]
