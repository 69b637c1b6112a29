"""The sequential probability ratio test of ``hexhaven ladder ab A B`` (Wald's SPRT).

Each game between A and B is a Bernoulli trial, "A beats B", with an unknown probability p.
The test weighs H0: p = p0 against H1: p = p1 (p1 > p0) and stops as soon as the
log-likelihood ratio of the results so far leaves ``[lower, upper]``, where
``lower = log(beta / (1 - alpha))`` and ``upper = log((1 - beta) / alpha)``: then the chance of
accepting H1 when H0 holds is about alpha, and of accepting H0 when H1 holds about beta. The
caller decides what "A beats B" means in one game (in a game of more than two, A finishing
ahead of B) and leaves out the games that do not decide it (a tie, an unfinished game).

Hypotheses can be given in Elo, as chess engine testers do, through :func:`elo_to_p`
(:meth:`SPRT.from_elo`).

Recommended defaults for "is A stronger than B": ``p0 = 0.5``, ``p1 = 0.6`` (about Elo 0
against Elo 70) with alpha = beta = 0.05. H1 then means "A beats B at least about 60% of the
time", a difference worth keeping for a bot change, and the test is cheap enough for bots whose
games take seconds each: in 2,000 simulated runs it took 135 games on average when p was 0.5
or 0.6, 74 when A was weaker (p = 0.45), 50 when much stronger (p = 0.7), and 223 at the
hardest point between the hypotheses (p = 0.55, where either answer is acceptable). Halving
the margin (Elo 0 against 35, p1 = 0.55) finds smaller gains but costs about four times as many
games (540 on average, 890 at p = 0.525). H0 means "not shown to be stronger by that margin",
not "equal".
"""

from __future__ import annotations

import math
from typing import Literal

Decision = Literal["H0", "H1"]

DEFAULT_P0 = 0.5
"""The recommended H0 win probability of A against B: no difference."""
DEFAULT_P1 = 0.6
"""The recommended H1 win probability of A against B: A wins 60% (about 70 Elo)."""
DEFAULT_ALPHA = 0.05
DEFAULT_BETA = 0.05


def elo_to_p(elo: float) -> float:
    """The expected score of a player ``elo`` points stronger: 1 / (1 + 10^(-elo/400))."""
    return 1.0 / (1.0 + math.pow(10.0, -elo / 400.0))


class SPRT:
    """A running SPRT of H0: p = p0 against H1: p = p1 for p = P(A beats B).

    Raises ValueError unless 0 < p0 < p1 < 1 and alpha and beta are in (0, 0.5)."""

    def __init__(
        self,
        p0: float,
        p1: float,
        alpha: float = DEFAULT_ALPHA,
        beta: float = DEFAULT_BETA,
    ) -> None:
        for name, p in (("p0", p0), ("p1", p1)):
            if not 0.0 < p < 1.0:
                raise ValueError(f"{name} must be a probability strictly between 0 and 1, not {p}")
        if p1 <= p0:
            raise ValueError(f"p1 ({p1}) must be greater than p0 ({p0}): H1 says A is stronger")
        for name, e in (("alpha", alpha), ("beta", beta)):
            if not 0.0 < e < 0.5:
                raise ValueError(
                    f"{name} must be an error rate strictly between 0 and 0.5, not {e}"
                )
        self.p0 = p0
        self.p1 = p1
        self.alpha = alpha
        self.beta = beta
        self.lower = math.log(beta / (1.0 - alpha))
        self.upper = math.log((1.0 - beta) / alpha)
        self._win_step = math.log(p1 / p0)
        self._loss_step = math.log((1.0 - p1) / (1.0 - p0))
        self.llr = 0.0
        self.wins = 0
        self.losses = 0
        self.decision: Decision | None = None

    @classmethod
    def from_elo(
        cls,
        elo0: float,
        elo1: float,
        alpha: float = DEFAULT_ALPHA,
        beta: float = DEFAULT_BETA,
    ) -> SPRT:
        """The test with hypotheses given as Elo differences of A over B; raises ValueError
        as the constructor does (so unless elo0 < elo1)."""
        return cls(elo_to_p(elo0), elo_to_p(elo1), alpha, beta)

    @property
    def games(self) -> int:
        """Results added so far."""
        return self.wins + self.losses

    def add(self, a_won: bool) -> None:
        """Add one game's result. The LLR and counts keep moving after a decision, but the
        decision, once made, never changes."""
        if a_won:
            self.wins += 1
            self.llr += self._win_step
        else:
            self.losses += 1
            self.llr += self._loss_step
        if self.decision is None:
            if self.llr >= self.upper:
                self.decision = "H1"
            elif self.llr <= self.lower:
                self.decision = "H0"

    def status(self) -> str:
        """One line: games, A's wins-losses, the LLR and its bounds, and the decision if made,
        e.g. ``games 37  A 22-15  LLR 1.83 in [-2.94, 2.94]``."""
        line = (
            f"games {self.games}  A {self.wins}-{self.losses}  "
            f"LLR {self.llr:.2f} in [{self.lower:.2f}, {self.upper:.2f}]"
        )
        if self.decision is not None:
            line += f"  decided {self.decision}"
        return line
