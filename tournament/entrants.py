"""Arena entrants: agent specs as people write them (``kind`` or ``kind:name=value,...``),
parsed, labelled and checked before any game is played."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from bots import KINDS, make_agent, parse_spec
from clients.sdk import Agent


def _continues(piece: str) -> bool:
    """Whether a comma-separated piece is a ``name=value`` parameter (an ``=`` with no
    ``:`` before it) rather than the start of a new spec."""
    eq = piece.find("=")
    colon = piece.find(":")
    return eq >= 0 and not 0 <= colon < eq


def split_agents(text: str) -> list[str]:
    """The specs in an ``--agents`` value. ``;`` always separates entrants; a ``,`` does
    too, except before a ``name=value`` piece (an ``=`` with no ``:`` before it), which
    continues the parameters of the spec before it. So ``uct:rollouts=1000,cp=0.5,heuristic``
    is two entrants. Raises ValueError for a parameter with no spec to belong to."""
    specs: list[str] = []
    for group in text.split(";"):
        group_start = len(specs)
        for raw in group.split(","):
            piece = raw.strip()
            if not piece:
                continue
            if piece.endswith(":"):
                raise ValueError(f"{piece!r} has no parameters after ':'; leave out the ':'")
            if not _continues(piece):
                specs.append(piece)
                continue
            if len(specs) == group_start:
                raise ValueError(f"parameter {piece!r} has no agent before it; write kind:{piece}")
            if ":" not in specs[-1]:
                raise ValueError(
                    f"parameter {piece!r} follows {specs[-1]!r}, which has no ':'; "
                    f"write {specs[-1]}:{piece}"
                )
            specs[-1] = f"{specs[-1]},{piece}"
    return specs


@dataclass(frozen=True)
class Entrant:
    """One player of the arena: its label (unique), its spec (shared by copies) and what
    the spec says."""

    label: str
    spec: str
    kind: str
    params: tuple[tuple[str, str], ...]


def canonical_spec(kind: str, params: dict[str, str]) -> str:
    """A spec written one way: the kind, then its parameters sorted by name."""
    if not params:
        return kind
    return kind + ":" + ",".join(f"{k}={v}" for k, v in sorted(params.items()))


def make_entrants(specs: Sequence[str]) -> list[Entrant]:
    """Entrants for specs in order; a spec given more than once gets labels ``spec#1``,
    ``spec#2``... Raises ValueError for a malformed spec or an unknown kind."""
    parsed: list[tuple[str, dict[str, str]]] = []
    for spec in specs:
        kind, params = parse_spec(spec)
        if kind not in KINDS:
            raise ValueError(
                f"unknown bot kind {kind!r} in {spec!r}; known kinds: {', '.join(KINDS)}"
            )
        parsed.append((kind, params))
    canon = [canonical_spec(kind, params) for kind, params in parsed]
    seen: dict[str, int] = {}
    entrants: list[Entrant] = []
    for (kind, params), spec in zip(parsed, canon, strict=True):
        seen[spec] = seen.get(spec, 0) + 1
        label = spec if canon.count(spec) == 1 else f"{spec}#{seen[spec]}"
        entrants.append(Entrant(label, spec, kind, tuple(sorted(params.items()))))
    return entrants


def check_entrants(entrants: Sequence[Entrant]) -> None:
    """Build each distinct spec's agent once, so a bad parameter or a kind that cannot be
    loaded is reported before any game; raises ValueError."""
    for entrant in {e.spec: e for e in entrants}.values():
        try:
            agent = make_agent(entrant.kind, 0, dict(entrant.params))
        except ImportError as exc:
            raise ValueError(f"the {entrant.kind} bot cannot be loaded: {exc}") from exc
        close_agent(agent)


def close_agent(agent: Agent) -> None:
    """Let an agent release what it holds (search worker processes), if it says how."""
    close = getattr(agent, "close", None)
    if callable(close):
        close()
