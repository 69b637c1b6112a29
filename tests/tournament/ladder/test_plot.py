"""The ratings plot: a real PNG of the promised size, and a clear error with nothing to draw."""

from __future__ import annotations

import struct
from pathlib import Path

import pytest
from matplotlib.image import imread

from tournament.ladder.plot import plot_ratings
from tournament.ladder.ratings import Outcome, rating_history

PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"


def test_writes_a_png_of_the_ratings(tmp_path: Path) -> None:
    outcomes = [
        Outcome(("strong", "weak", "middle"), (10, 3, 6), 0),
        Outcome(("weak", "middle", "strong"), (4, 7, 10), 2),
        Outcome(("middle", "strong", "weak"), (5, 10, 2), 1),
    ] * 4
    out = tmp_path / "ratings.png"
    plot_ratings(rating_history(outcomes), out, "test ladder")
    data = out.read_bytes()
    assert data[:8] == PNG_SIGNATURE
    assert data[12:16] == b"IHDR"
    width, height = struct.unpack(">II", data[16:24])
    assert (width, height) == (1000, 600)
    pixels = imread(out)
    assert pixels.shape[:2] == (600, 1000)
    # Not a blank canvas: lines and bands put many colours on it.
    assert len({tuple(px) for px in pixels.reshape(-1, pixels.shape[2])[::97]}) > 10


def test_a_single_point_is_drawn_too(tmp_path: Path) -> None:
    out = tmp_path / "one.png"
    plot_ratings({"only": [(0, 25.0, 25.0 / 3.0)]}, out, "nothing played yet")
    assert out.read_bytes()[:8] == PNG_SIGNATURE


def test_empty_history_raises(tmp_path: Path) -> None:
    out = tmp_path / "empty.png"
    with pytest.raises(ValueError, match="no ratings to plot"):
        plot_ratings({}, out, "empty")
    with pytest.raises(ValueError, match="'ghost'"):
        plot_ratings({"ghost": []}, out, "empty")
    assert not out.exists()
