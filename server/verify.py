"""Checking a finished game: its seed against the published hash, and every roll of the
dice against a replay of its recorded actions from that seed."""

from __future__ import annotations

from dataclasses import dataclass, field

import engine
from protocol.options import game_config, seed_hash
from server.store import StoredGame


@dataclass
class Verdict:
    """What :func:`verify_game` found; ``ok`` when nothing is wrong."""

    game: str
    rolls: int = 0
    actions: int = 0
    problems: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.problems


def verify_game(stored: StoredGame) -> Verdict:
    """Replay a stored game and compare it with what was recorded."""
    verdict = Verdict(stored.id, actions=len(stored.actions))
    if not stored.finished:
        verdict.problems.append("the game is not over: its seed is still secret")
        return verdict
    if seed_hash(stored.seed) != stored.seed_hash:
        verdict.problems.append("the seed does not hash to the hash published at creation")
    try:
        state, events = engine.replay(game_config(stored.options), stored.seed, stored.actions)
    except engine.IllegalActionError as exc:
        verdict.problems.append(f"a recorded action is illegal on replay: {exc.message}")
        return verdict
    replayed = [e.dice for e in events if isinstance(e, engine.DiceRolled)]
    recorded = [d for _, d in stored.dice]
    verdict.rolls = len(replayed)
    if replayed != recorded:
        first = next(
            (i for i, (a, b) in enumerate(zip(replayed, recorded, strict=False)) if a != b),
            min(len(replayed), len(recorded)),
        )
        verdict.problems.append(f"roll {first + 1} differs from the replay")
    if stored.points is None:
        return verdict  # abandoned before the end: there is no result to compare
    points = [state.victory_points(q) for q in range(state.n)]
    winner = state.winner if state.winner >= 0 else None
    if (winner, points) != (stored.winner, stored.points):
        verdict.problems.append(
            f"the replay ends {winner}/{points}, the record says {stored.winner}/{stored.points}"
        )
    return verdict
