"""Self-play games stored compactly, and the positions a value network learns from.

A game is kept as its seed and its moves: each move the position of the action in the
engine's ``legal_actions`` list at that point (one byte, mostly), or, for an action not in
that list (a domestic offer), the action's type and fields. The engine is deterministic,
so the games replay exactly, and positions are made at load time from any encoding.

A shard is one msgpack file of games (``shard-00012.msgpack``), written whole under a
temporary name and renamed, so a run stopped half way leaves only whole shards; the run
starts again from the first shard that is missing.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final

import msgpack

from engine.actions import ACTION_TYPES, Action
from engine.rules import advance, legal_actions
from engine.state import GameConfig, GameState, new_game

GAMES_FORMAT: Final = "hexhaven-games/1"
SEED_STRIDE: Final = 1_000_003
"""Game ``k`` of a run with seed ``s`` plays engine seed ``s * SEED_STRIDE + k``."""
_TYPE_INDEX: Final = {kind: i for i, kind in enumerate(ACTION_TYPES)}


@dataclass
class Game:
    """One played game: its engine seed, moves and outcome."""

    seed: int
    moves: list[Any]
    winner: int
    points: list[int]
    turns: int


def encode_move(state: GameState, legal: Sequence[Action], action: Action) -> Any:
    """``action``'s stored form in ``state`` (``legal``: its legal actions there)."""
    try:
        return legal.index(action)
    except ValueError:
        values = [
            list(v) if isinstance(v, tuple) else v
            for v in (getattr(action, f.name) for f in dataclasses.fields(action))
        ]
        return [_TYPE_INDEX[type(action)], *values]


def decode_move(state: GameState, move: Any) -> Action:
    """The action a stored move names in ``state``."""
    if isinstance(move, int):
        return legal_actions(state)[move]
    kind = ACTION_TYPES[move[0]]
    values = [tuple(v) if isinstance(v, list) else v for v in move[1:]]
    action: Action = kind(*values)
    return action


def replay_states(config: GameConfig, game: Game) -> Iterator[GameState]:
    """The game's states before each move, then its last (the same object, advanced:
    copy what you keep)."""
    state = new_game(config, game.seed)
    for move in game.moves:
        yield state
        advance(state, decode_move(state, move))
    yield state


def write_shard(path: Path, header: dict[str, Any], games: Sequence[Game]) -> None:
    """Write one shard of games whole (a temporary file renamed into place)."""
    body = {
        **header,
        "format": GAMES_FORMAT,
        "games": [[g.seed, g.winner, g.points, g.turns, g.moves] for g in games],
    }
    tmp = path.with_name(path.name + ".part")
    tmp.write_bytes(msgpack.packb(body, use_bin_type=True))
    tmp.replace(path)


def read_shard(path: Path) -> tuple[dict[str, Any], list[Game]]:
    """A shard's header and games; ValueError naming the file if it is not one."""
    try:
        body = msgpack.unpackb(path.read_bytes(), raw=False, strict_map_key=False)
    except (OSError, ValueError, msgpack.ExtraData) as exc:
        raise ValueError(f"{path}: not a shard of games ({exc})") from exc
    if not isinstance(body, dict) or body.get("format") != GAMES_FORMAT:
        raise ValueError(f"{path}: not a shard of games (format {GAMES_FORMAT} expected)")
    games = [Game(s, list(m), w, list(p), t) for s, w, p, t, m in body.pop("games")]
    return body, games


def shard_path(folder: Path, index: int) -> Path:
    """The path of shard ``index`` in ``folder``."""
    return folder / f"shard-{index:05d}.msgpack"


def shards(folder: Path) -> list[Path]:
    """The whole shards in ``folder``, in order."""
    return sorted(folder.glob("shard-*.msgpack"))


def split(folders: list[Path]) -> tuple[list[Path], list[Path]]:
    """The shards to train on and those held out."""
    paths = [p for f in folders for p in shards(f)]
    if not paths:
        raise ValueError(f"no shards of games in {', '.join(map(str, folders))}")
    held = [p for p in paths if p.stem.endswith("9")] if len(paths) >= 10 else paths[-1:]
    train = [p for p in paths if p not in held] or paths
    return train, held


__all__ = [
    "GAMES_FORMAT",
    "SEED_STRIDE",
    "Game",
    "decode_move",
    "encode_move",
    "read_shard",
    "replay_states",
    "shard_path",
    "shards",
    "split",
    "write_shard",
]
