"""What a balanced board is: the options of the constraint model and of the validator.

Both :mod:`boards.constraint` (the CP-SAT model) and :mod:`boards.validate` (the independent
checker) read their rules from :class:`BalanceOptions`; the two are written separately so
that one checks the other.

Terms used throughout the board lab:

- *pips* (dice dots) of a hex: the ways its number comes up in 36 rolls of two dice
  (a 6 or 8 has 5, a 2 or 12 has 1, a desert 0). The pips of an intersection are the sum
  over the land hexes around it.
- *token sum* of an intersection, the measure of the constraint-model reference: the sum
  of the number tokens of the three hexes meeting there, a desert counting 7 and the sea 1.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from engine.board import token_counts
from engine.constants import N_RESOURCES, RED_TOKENS

SEA_TOKEN_VALUE = 1
"""What a sea hex adds to an intersection's token sum (the reference's grid model)."""
DESERT_TOKEN_VALUE = 7
"""What a desert adds to an intersection's token sum (the robber's 7 in the reference)."""


@dataclass(frozen=True)
class BalanceOptions:
    """The rules a balanced board keeps. The defaults are the balanced set-up.

    ``separate_terrain``: no two neighbouring hexes of the same terrain.
    ``separate_brick_lumber``: no hills (brick) hex next to a forest (lumber) hex.
    ``separate_reds``: no 6 or 8 next to another 6 or 8 (the game's own rule).
    ``spread_reds``: the 6s and 8s on different resources; on larger boards, with more red
    tokens than resources, at most :func:`red_cap` of them on one resource.
    ``distinct_tokens``: the hexes of one resource carry different numbers; on larger boards
    at most :func:`token_cap` of one number per resource.
    ``max_pips`` / ``min_pips``: bounds on the pips of every intersection (``min_pips`` only
    where three land hexes meet). ``max_token_sum``: a bound on every intersection's token
    sum, the reference's measure (its balanced boards used 22). ``None`` means no bound.
    """

    separate_terrain: bool = True
    separate_brick_lumber: bool = True
    separate_reds: bool = True
    spread_reds: bool = True
    distinct_tokens: bool = True
    max_pips: int | None = 11
    min_pips: int | None = None
    max_token_sum: int | None = None

    @classmethod
    def for_radius(cls, radius: int) -> BalanceOptions:
        """The balanced set-up of a radius: the defaults, less brick-lumber separation
        beyond radius 3.

        With terrain kept apart, brick and lumber apart means no hills or forest hex
        touches another: on radius 3 that is 7 hexes pairwise apart, exactly the most the
        19-hex island allows (the centre and every other hex of the outer ring, one of
        only two such sets); radius 4 has 14 of them and room for at most 13.
        """
        return cls(separate_brick_lumber=radius <= 3)

    def describe(self) -> str:
        """The rules in words, for messages: ``"terrain apart, ..., at most 11 pips at an
        intersection"``."""
        words = [
            (self.separate_terrain, "terrain apart"),
            (self.separate_brick_lumber, "hills and forest apart"),
            (self.separate_reds, "6s and 8s apart"),
            (self.spread_reds, "6s and 8s on different resources"),
            (self.distinct_tokens, "different numbers on one resource"),
            (self.max_pips is not None, f"at most {self.max_pips} pips at an intersection"),
            (self.min_pips is not None, f"at least {self.min_pips} pips inland"),
            (self.max_token_sum is not None, f"numbers summing to {self.max_token_sum} at most"),
        ]
        return ", ".join(text for on, text in words if on) or "none"

    @classmethod
    def none(cls) -> BalanceOptions:
        """No rule but the board's contents: every layout of the right tiles."""
        return cls(
            separate_terrain=False,
            separate_brick_lumber=False,
            separate_reds=False,
            spread_reds=False,
            distinct_tokens=False,
            max_pips=None,
            min_pips=None,
            max_token_sum=None,
        )


def red_cap(radius: int) -> int:
    """How many 6s and 8s one resource may carry under ``spread_reds`` (1 on radius 3)."""
    counts = token_counts(radius)
    reds = sum(counts[n] for n in RED_TOKENS)
    return max(1, math.ceil(reds / N_RESOURCES))


def token_cap(radius: int, number: int) -> int:
    """How many hexes of one resource may carry ``number`` under ``distinct_tokens``."""
    return max(1, math.ceil(token_counts(radius)[number] / N_RESOURCES))
