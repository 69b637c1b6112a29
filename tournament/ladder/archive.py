"""A ladder's games as one JSON file, to carry them from one store to another:
``hexhaven ladder export`` writes it and ``hexhaven ladder import`` adds it to a store.

What it is for: a ladder played in stretches on machines that share no database (run a
while, export, import on the next machine and go on: the run plays only the games the
imported ones leave), the results of a ladder kept beside the file that made them, a move
from SQLite to PostgreSQL.

The file (JSON Lines) holds the ladder's name, its identity (what ``ladder run`` compares with the
ladder file), its entrants and every game as the store keeps it. Import checks it whole
before it writes anything, and writes in one transaction: into a store holding the same
ladder it adds only the games the store lacks, and it refuses a file whose ladder or games
disagree with what the store holds.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Final, Literal

from pydantic import BaseModel, ConfigDict, TypeAdapter, ValidationError, model_validator

from tournament.ladder.store import LadderStore, StoredGame
from tournament.records import ranks

FORMAT: Final = "hexhaven-ladder"
VERSION: Final = 1


class ArchiveError(Exception):
    """A file that is not a ladder archive, or one that contradicts itself; the message
    says where."""


class ArchivedEntrant(BaseModel):
    """An entrant as the store keeps it: its table in the ladder file, and its budget."""

    model_config = ConfigDict(extra="forbid", strict=True)

    label: str
    config: dict[str, Any]
    budget: str


class _Header(BaseModel):
    """The ladder itself: the archive's first line."""

    model_config = ConfigDict(extra="forbid", strict=True)

    format: Literal["hexhaven-ladder"] = FORMAT
    version: Literal[1] = VERSION
    name: str
    identity: dict[str, Any]
    entrants: list[ArchivedEntrant]


class LadderArchive(_Header):
    """Everything the store keeps of one ladder."""

    games: list[StoredGame]

    @model_validator(mode="after")
    def _consistent(self) -> LadderArchive:
        labels = {e.label for e in self.entrants}
        if len(labels) != len(self.entrants):
            raise ValueError("an entrant label is given twice")
        section = self.identity.get("ladder")
        target = section.get("victory_points") if isinstance(section, dict) else None
        seen: set[int] = set()
        for game in self.games:
            where = f"game {game.index}"
            if game.index < 0 or game.index in seen:
                raise ValueError(f"{where}: the index is negative or given twice")
            seen.add(game.index)
            seats = len(game.labels)
            if not 2 <= seats <= 4 or {len(game.points), len(game.agent_seeds)} != {seats}:
                raise ValueError(f"{where}: labels, points and agent_seeds differ in length")
            unknown = sorted(set(game.labels) - labels)
            if unknown:
                raise ValueError(f"{where}: seats an unknown entrant {', '.join(unknown)}")
            if game.winner is not None and not 0 <= game.winner < seats:
                raise ValueError(f"{where}: the winner {game.winner} is not a seat")
            won = None if game.winner is None else game.points[game.winner]
            if won is not None and isinstance(target, int) and won < target:
                raise ValueError(
                    f"{where}: the winner has {won} points, fewer than the {target} to win"
                )
            if list(game.ranks) != ranks(game.points, game.winner):
                raise ValueError(f"{where}: the ranks do not follow from the points")
            for per_seat in (game.decisions, game.decision_seconds):
                if per_seat is not None and len(per_seat) != seats:
                    raise ValueError(f"{where}: a per-seat list has the wrong length")
        return self


def export_ladder(store: LadderStore, name: str) -> LadderArchive:
    """The archive of ladder ``name``; raises :class:`ArchiveError` if the store lacks it."""
    identity = store.ladder_config(name)
    if identity is None:
        raise ArchiveError(f"no ladder {name!r} in {store.where}")
    entrants = [
        ArchivedEntrant(label=label, config=config, budget=budget)
        for label, (config, budget) in store.entrants(name).items()
    ]
    return LadderArchive(name=name, identity=identity, entrants=entrants, games=store.games(name))


_GAME = TypeAdapter(StoredGame)


def dump_archive(archive: LadderArchive) -> str:
    """The archive as JSON Lines: the ladder on the first line, then one game per line
    (so that a longer ladder's file differs from a shorter one's by lines added)."""
    lines = [archive.model_dump_json(exclude={"games"})]
    lines.extend(_GAME.dump_json(game).decode() for game in archive.games)
    return "\n".join(lines) + "\n"


def write_archive(archive: LadderArchive, path: Path) -> None:
    """Write ``archive`` to ``path`` (see :func:`dump_archive`)."""
    path.write_text(dump_archive(archive), encoding="utf-8")


def _problems(exc: ValidationError) -> str:
    found = []
    for error in exc.errors(include_url=False)[:3]:
        message = str(error["msg"]).removeprefix("Value error, ")
        loc = ".".join(str(p) for p in error["loc"])
        found.append(f"{loc}: {message}" if loc else message)
    more = exc.error_count() - len(found)
    return "; ".join(found) + (f" (and {more} more)" if more > 0 else "")


def read_archive(path: Path) -> LadderArchive:
    """Read and check an archive; raises :class:`ArchiveError` naming the file, the line
    and the first problems found."""
    try:
        lines = path.read_bytes().splitlines()
    except OSError as exc:
        raise ArchiveError(f"cannot read {path}: {exc.strerror or exc}") from None
    lines = [line for line in lines if line.strip()]
    if not lines:
        raise ArchiveError(f"{path} is empty, not a ladder archive")
    try:
        header = _Header.model_validate_json(lines[0])
    except ValidationError as exc:
        raise ArchiveError(f"{path} line 1 is not a ladder archive's: {_problems(exc)}") from None
    games = []
    for number, line in enumerate(lines[1:], start=2):
        try:
            games.append(_GAME.validate_json(line, strict=True))
        except ValidationError as exc:
            raise ArchiveError(f"{path} line {number}: not a game: {_problems(exc)}") from None
    try:
        return LadderArchive(**dict(header), games=games)
    except ValidationError as exc:
        raise ArchiveError(f"{path}: {_problems(exc)}") from None


def import_ladder(store: LadderStore, archive: LadderArchive) -> tuple[int, int]:
    """Add the archive's games to ``store``: returns (games added, games already held).
    Raises :class:`~tournament.ladder.store.StoreError`, changing nothing, on a disagreement."""
    entrants = {e.label: (e.config, e.budget) for e in archive.entrants}
    return store.merge(archive.name, archive.identity, entrants, archive.games)
