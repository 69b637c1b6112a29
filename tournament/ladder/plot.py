"""The ladder's picture: each entrant's rating over the games it played, with its uncertainty.

Drawn with matplotlib's object API on the Agg canvas (no pyplot, no display, no global state),
so it is safe in a library and a headless process. matplotlib comes with the ``plot`` extra.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path

FIGSIZE = (10.0, 6.0)
"""The picture's size in inches."""
DPI = 100
"""Pixels per inch: a FIGSIZE picture is 1000 x 600 pixels."""
BAND_SIGMAS = 2.0
"""The shaded band around each line is mu ± this many sigma (about 95% of the belief)."""


def plot_ratings(
    history: Mapping[str, Sequence[tuple[int, float, float]]], out: Path, title: str
) -> None:
    """Write a PNG to ``out`` (whatever its suffix), 1000 x 600 pixels: one line per entrant
    of its rating mu against games played, shaded mu ± 2 sigma, with a legend. ``history`` is
    :func:`tournament.ladder.ratings.rating_history`'s (games, mu, sigma) points.

    Raises ValueError for an empty history or an entrant with no points, ImportError (saying
    how to install it) when matplotlib is missing, OSError when ``out`` cannot be written."""
    if not history:
        raise ValueError("no ratings to plot: the history has no entrants")
    empty = [label for label, points in history.items() if not points]
    if empty:
        raise ValueError(f"no ratings to plot for {', '.join(map(repr, empty))}")
    try:
        from matplotlib.backends.backend_agg import FigureCanvasAgg
        from matplotlib.figure import Figure
    except ImportError as exc:
        raise ImportError("plotting ratings needs matplotlib: pip install '.[plot]'") from exc

    fig = Figure(figsize=FIGSIZE, dpi=DPI, layout="constrained")
    FigureCanvasAgg(fig)
    ax = fig.add_subplot()
    colors = [f"C{i}" for i in range(10)]
    for i, (label, points) in enumerate(history.items()):
        games = [g for g, _, _ in points]
        mus = [mu for _, mu, _ in points]
        low = [mu - BAND_SIGMAS * sigma for _, mu, sigma in points]
        high = [mu + BAND_SIGMAS * sigma for _, mu, sigma in points]
        color = colors[i % len(colors)]
        ax.plot(games, mus, color=color, linewidth=1.6, label=label)
        ax.fill_between(games, low, high, color=color, alpha=0.15, linewidth=0)
    ax.set_title(title)
    ax.set_xlabel("games played")
    ax.set_ylabel(rf"rating $\mu$ (band: $\mu \pm {BAND_SIGMAS:g}\sigma$)")
    ax.grid(True, alpha=0.3)
    ax.legend(loc="best", fontsize="small")
    fig.savefig(out, format="png", dpi=DPI)
