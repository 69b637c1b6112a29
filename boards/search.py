"""Score many random boards across processes and keep the fairest and the least fair.

Board ``i`` of a search with seed ``s`` is the engine's official random set-up drawn from
``Rng(s, stream=i)``, so a search is reproducible and any board in its output can be drawn
again from its index.
"""

from __future__ import annotations

import heapq
import json
import multiprocessing
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass

from boards.balance import balance_of, combined_index
from boards.fairness import FairnessParams, FairnessScorer
from engine.board import Board, random_board
from engine.rng import Rng

RANKS = ("fairness", "combined")

Progress = Callable[[int, int], None]


@dataclass(frozen=True)
class ScoredBoard:
    """A board of the search, by index, with its scores."""

    index: int
    fairness: float
    balance: float
    combined: float

    def key(self, rank: str) -> float:
        return self.fairness if rank == "fairness" else self.combined


@dataclass(frozen=True)
class SearchResult:
    """The ``top`` best and worst boards of a search, best first and worst first."""

    seed: int
    radius: int
    boards: int
    rank: str
    fairest: tuple[ScoredBoard, ...]
    least_fair: tuple[ScoredBoard, ...]
    seconds: float

    def to_dict(self) -> dict[str, object]:
        """The result as JSON-ready data, each kept board written out in full."""

        def entry(s: ScoredBoard) -> dict[str, object]:
            return {
                "index": s.index,
                "fairness": round(s.fairness, 6),
                "balance": round(s.balance, 6),
                "combined": round(s.combined, 6),
                "board": search_board(self.seed, s.index, self.radius).to_dict(),
            }

        return {
            "seed": self.seed,
            "radius": self.radius,
            "boards": self.boards,
            "rank": self.rank,
            "seconds": round(self.seconds, 3),
            "fairest": [entry(s) for s in self.fairest],
            "least_fair": [entry(s) for s in self.least_fair],
        }

    def to_json(self) -> str:
        """:meth:`to_dict` as JSON text, one kept board per line."""
        data = self.to_dict()
        head = {k: v for k, v in data.items() if k not in ("fairest", "least_fair")}
        lines = ["{"]
        lines += [f" {json.dumps(k)}: {json.dumps(v)}," for k, v in head.items()]
        for key in ("fairest", "least_fair"):
            entries = data[key]
            assert isinstance(entries, list)
            lines.append(f" {json.dumps(key)}: [")
            lines += [
                f"  {json.dumps(e)}{',' if i < len(entries) - 1 else ''}"
                for i, e in enumerate(entries)
            ]
            lines.append("  ]," if key == "fairest" else "  ]")
        lines.append("}")
        return "\n".join(lines) + "\n"


def search_board(seed: int, index: int, radius: int = 3) -> Board:
    """Board ``index`` of a search with ``seed``."""
    return random_board(Rng(seed, stream=index), radius)


@dataclass(frozen=True)
class _Chunk:
    seed: int
    radius: int
    start: int
    stop: int
    top: int
    rank: str
    params: FairnessParams


def _score_chunk(chunk: _Chunk) -> tuple[int, list[ScoredBoard], list[ScoredBoard]]:
    scorer = FairnessScorer(chunk.radius, chunk.params)
    scored = []
    for i in range(chunk.start, chunk.stop):
        b = search_board(chunk.seed, i, chunk.radius)
        f = scorer.fairness(b.terrain, b.tokens, b.harbours)
        bal = balance_of(b.terrain, b.tokens, b.harbours, chunk.radius).balance
        scored.append(ScoredBoard(i, f, bal, combined_index(bal, f)))
    best, worst = _extremes(scored, chunk.top, chunk.rank)
    return chunk.stop - chunk.start, best, worst


def _extremes(
    scored: list[ScoredBoard], top: int, rank: str
) -> tuple[list[ScoredBoard], list[ScoredBoard]]:
    best = heapq.nsmallest(top, scored, key=lambda s: (-s.key(rank), s.index))
    worst = heapq.nsmallest(top, scored, key=lambda s: (s.key(rank), s.index))
    return best, worst


def search(
    boards: int,
    top: int,
    *,
    seed: int = 0,
    radius: int = 3,
    params: FairnessParams | None = None,
    workers: int = 1,
    rank: str = "fairness",
    chunk_size: int = 2000,
    progress: Progress | None = None,
) -> SearchResult:
    """Score ``boards`` random boards with ``workers`` processes; keep the ``top`` best and
    worst by ``rank`` (``fairness`` or ``combined``). ``progress(done, total)`` is called
    after every chunk. Raises ``ValueError`` for a bad argument."""
    if boards < 1 or top < 1 or workers < 1 or chunk_size < 1:
        raise ValueError("boards, top, workers and chunk size are positive")
    if rank not in RANKS:
        raise ValueError(f"rank by one of {', '.join(RANKS)}")
    params = params or FairnessParams()
    chunks = [
        _Chunk(seed, radius, start, min(boards, start + chunk_size), top, rank, params)
        for start in range(0, boards, chunk_size)
    ]
    started = time.perf_counter()
    best: list[ScoredBoard] = []
    worst: list[ScoredBoard] = []
    done = 0
    for n, b, w in _run(chunks, workers):
        done += n
        best, _ = _extremes(best + b, top, rank)
        _, worst = _extremes(worst + w, top, rank)
        if progress is not None:
            progress(done, boards)
    return SearchResult(
        seed=seed,
        radius=radius,
        boards=boards,
        rank=rank,
        fairest=tuple(best),
        least_fair=tuple(worst),
        seconds=time.perf_counter() - started,
    )


def _run(
    chunks: list[_Chunk], workers: int
) -> Iterator[tuple[int, list[ScoredBoard], list[ScoredBoard]]]:
    if workers == 1 or len(chunks) == 1:
        for c in chunks:
            yield _score_chunk(c)
        return
    with multiprocessing.get_context("spawn").Pool(min(workers, len(chunks))) as pool:
        yield from pool.imap_unordered(_score_chunk, chunks)
