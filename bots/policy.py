"""The ``policy`` bot: a policy trained in the learning environments (``learn/``), seated
anywhere a bot sits: ``hexhaven bot --kind policy``, the arena, the ladder, local games.

A policy maps a seat's view, encoded by :mod:`features.encoding`, and its legal-action mask
(:mod:`features.actions`) to an action index: ``policy(observation, mask) -> index``, with
``observation`` a float32 numpy array and ``mask`` an int8 one. :class:`PolicyAgent` builds
both from what a prompt brings (the seat's view and its listed actions, plus the bounded
offers and counter-offers its hand allows), so the policy sees over the protocol exactly
what it saw in training, and answers with the action the index names.

:class:`MaskedMLP` is the policy the example trainer (``examples/learning``) writes: a small
multilayer perceptron in a ``.npz`` file (its weights and a JSON header saying how it reads
the encoding), run with numpy (the ``learn`` extra). Spec: ``policy:weights=FILE`` with
optionally ``greedy=false`` (sample from the masked softmax instead of taking its best).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from clients.sdk import Agent, Table
from features.actions import BOUNDED_TRADES, action_index
from features.encoding import encoding
from protocol import messages as m
from protocol.payloads import action_from_engine, action_to_engine, view_to_engine

if TYPE_CHECKING:
    import numpy as np

Policy = Callable[["np.ndarray", "np.ndarray"], int]
FORMAT = "hexhaven-masked-mlp/1"
"""The ``format`` of a :class:`MaskedMLP` file's header."""


def _numpy() -> Any:
    try:
        import numpy
    except ImportError as exc:
        raise ValueError(
            f"the policy bot needs numpy ({exc}); pip install 'hexhaven[learn]'"
        ) from exc
    return numpy


class MaskedMLP:
    """A multilayer perceptron over the encoding: ``tanh`` hidden layers, one logit per
    action index; illegal actions are masked out before the choice. ``scale`` multiplies
    the observation first, and the header's ``clip`` (if any) caps the result (the
    trainer's normalisation)."""

    def __init__(
        self,
        weights: list[tuple[Any, Any]],
        scale: Any,
        header: Mapping[str, Any],
        greedy: bool = True,
        seed: int | None = None,
    ) -> None:
        self.np = _numpy()
        self.weights = weights
        self.scale = scale
        self.header = dict(header)
        self.players = int(header["players"])
        self.radius = int(header.get("radius", 3))
        self.max_offers = int(header.get("max_offers", 3))
        self.greedy = greedy
        self.rng = self.np.random.default_rng(seed)

    @classmethod
    def load(cls, path: str | Path, greedy: bool = True, seed: int | None = None) -> MaskedMLP:
        """Read a policy file; ValueError naming what is wrong with it."""
        np = _numpy()
        try:
            with np.load(Path(path), allow_pickle=False) as data:
                header = json.loads(str(data["header"]))
                layers = int(header["layers"])
                weights = [(data[f"w{i}"], data[f"b{i}"]) for i in range(layers)]
                scale = data["scale"]
        except (OSError, KeyError, ValueError, TypeError) as exc:
            raise ValueError(f"cannot read the policy file {path}: {exc}") from exc
        if header.get("format") != FORMAT:
            raise ValueError(f"{path} is not a {FORMAT} file (format {header.get('format')!r})")
        enc = encoding(int(header.get("radius", 3)), int(header["players"]))
        index = action_index(int(header.get("radius", 3)), int(header["players"]))
        if weights[0][0].shape[0] != enc.size or weights[-1][0].shape[1] != index.size:
            raise ValueError(
                f"{path} reads {weights[0][0].shape[0]} inputs and writes "
                f"{weights[-1][0].shape[1]} logits; the encoding has {enc.size} and the "
                f"index {index.size}"
            )
        return cls(weights, scale, header, greedy, seed)

    def save(self, path: str | Path) -> None:
        """Write the policy file (weights, scale and header)."""
        arrays: dict[str, Any] = {"scale": self.scale}
        for i, (w, b) in enumerate(self.weights):
            arrays[f"w{i}"], arrays[f"b{i}"] = w, b
        header = {**self.header, "format": FORMAT, "layers": len(self.weights)}
        self.np.savez_compressed(Path(path), header=json.dumps(header), **arrays)

    def logits(self, obs: Any) -> Any:
        """The action logits of one observation or a batch of them."""
        h = obs * self.scale
        clip = self.header.get("clip")
        if clip is not None:
            h = self.np.minimum(h, float(clip))
        last = len(self.weights) - 1
        for i, (w, b) in enumerate(self.weights):
            h = h @ w + b
            if i < last:
                h = self.np.tanh(h)
        return h

    def __call__(self, obs: Any, mask: Any) -> int:
        z = self.logits(obs).astype(self.np.float64)
        z[mask == 0] = -self.np.inf
        if self.greedy:
            return int(self.np.argmax(z))
        p = self.np.exp(z - z.max())
        return int(self.rng.choice(len(p), p=p / p.sum()))


class PolicyAgent(Agent):
    """Plays a seat with ``policy`` over the encoding of ``players`` players (radius 3),
    making at most ``max_offers`` domestic offers a turn as the environments allow."""

    name = "policy"

    def __init__(self, policy: Policy, players: int, max_offers: int = 3, radius: int = 3) -> None:
        self.np = _numpy()
        self.policy = policy
        self.encoding = encoding(radius, players)
        self.index = action_index(radius, players)
        self.max_offers = max_offers
        self._offers = (-1, 0)  # (turn, offers made in it)

    @classmethod
    def from_params(cls, params: Mapping[str, str], seed: int | None = None) -> PolicyAgent:
        """``weights=FILE`` (a :class:`MaskedMLP` file), ``greedy=true|false``."""
        extra = set(params) - {"weights", "greedy"}
        if extra:
            raise ValueError(f"the policy bot takes weights and greedy, not {', '.join(extra)}")
        if "weights" not in params:
            raise ValueError("the policy bot needs weights=FILE (a policy file)")
        greedy = params.get("greedy", "true").lower()
        if greedy not in ("true", "false"):
            raise ValueError(f"greedy is true or false, not {params['greedy']!r}")
        mlp = MaskedMLP.load(params["weights"], greedy=greedy == "true", seed=seed)
        agent = cls(mlp, mlp.players, mlp.max_offers, mlp.radius)
        agent.name = str(mlp.header.get("name", "policy"))
        return agent

    def on_seated(self, table: Table) -> None:
        if table.view is not None and table.view.players != self.encoding.players:
            raise ValueError(
                f"this policy plays {self.encoding.players}-player games, "
                f"not {table.view.players}-player ones"
            )

    def choose(self, prompt: m.Prompt, table: Table) -> Any:
        payload = prompt.view or table.view
        if payload is None:
            raise ValueError("the policy bot needs its seat's view with each prompt")
        view = view_to_engine(payload)
        seat = prompt.seat
        trade = view.trade
        if trade is not None and trade.offerer == seat and "pending" in trade.answers:
            return None  # answers still to come: a new prompt comes with each
        legal = [action_to_engine(a, seat) for a in prompt.actions]
        pending = trade is not None and trade.answers[seat] == "pending"
        np = self.np
        mask = np.zeros(self.index.size, dtype=np.int8)
        self.index.mask_of(legal, seat, view.phase, view.hand, pending, out=mask)
        turn, made = self._offers
        if view.turn != turn:
            turn, made = view.turn, 0
        offer = self.index.start["offer"]
        if made >= self.max_offers:
            mask[offer : offer + len(BOUNDED_TRADES)] = 0
        obs = np.zeros(self.encoding.size, dtype=np.float32)
        self.encoding.encode_view(view, out=obs)
        choice = int(self.policy(obs, mask))
        if not 0 <= choice < self.index.size or not mask[choice]:
            raise ValueError(f"the policy chose action {choice}, which the mask does not allow")
        if offer <= choice < offer + len(BOUNDED_TRADES):
            made += 1
        self._offers = (turn, made)
        action = self.index.action(choice, seat, view.phase, view.trade_ratios or (4,) * 5)
        return action_from_engine(action)


__all__ = ["FORMAT", "MaskedMLP", "Policy", "PolicyAgent"]
