"""The Gymnasium spaces of an encoding and an action index, and the buffers their writers fill."""

from __future__ import annotations

from typing import Any, cast

import numpy as np
from gymnasium import spaces

from features.actions import ActionIndex
from features.encoding import Encoding


def observation_box(enc: Encoding) -> spaces.Box:
    """The encoded view: float32 entries from 0 to each block's highest value."""
    high = np.asarray(enc.highs, dtype=np.float32)
    return spaces.Box(low=np.zeros_like(high), high=high, dtype=np.float32)


def mask_space(index: ActionIndex) -> spaces.Box:
    """A legal-action mask: int8, 1 at each legal index."""
    return spaces.Box(low=0, high=1, shape=(index.size,), dtype=np.int8)


def writable(array: np.ndarray) -> Any:
    """A memoryview of a contiguous array: what the encoding's and the index's writers fill
    (element writes through it cost a fraction of numpy's)."""
    return memoryview(cast(Any, array))


__all__ = ["mask_space", "observation_box", "writable"]
