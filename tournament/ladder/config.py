"""A ladder's TOML file, read into validated models.

```toml
[ladder]
name = "builtin"        # the ladder's identity in the store
games = 48
seed = 1                # block b plays game seed seed + b
players = 4             # 2 to 4 seats
victory_points = 10
board = "random"        # spiral, balanced, fair (min_fairness = 0.97) or preset:NAME
workers = 2             # parallel games (default: one per core)

[[entrant]]
name = "uct-1000"
bot = "uct"             # a built-in bot: random, heuristic or uct
params = { rollouts = 1000 }
budget = "1000 rollouts"   # optional for built-in bots (derived), required otherwise

[[entrant]]
name = "mine"
command = "python3 my_agent.py"   # a program speaking JSON lines (the stdio bridge)
budget = "200 ms"

[[entrant]]
name = "theirs"
connect = "python3 agent.py {url} --invite {invite} --name {name} --seed {seed}"
budget = "1 s"          # a program that speaks the protocol itself: --server runs only
```

Every problem is a :class:`ConfigError` whose message names the file and the field.
"""

from __future__ import annotations

import difflib
import re
import shlex
import tomllib
from pathlib import Path
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator, model_validator

from boards.presets import preset_names, unknown_preset
from bots import KINDS, make_agent

LADDER_NAME = re.compile(r"^[A-Za-z0-9][\w.:+-]{0,63}$", re.ASCII)
"""Ladder names: up to 64 characters, no spaces."""
NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.:+=#-]{0,31}$")
"""Entrant names: up to 32 characters (a server's seat name), no spaces."""
PLACEHOLDERS = ("url", "invite", "name", "seed", "python")
"""What a ``connect`` command may name in braces."""

Param = str | int | float | bool
BOARD_KINDS = ("random", "spiral", "balanced", "fair")


class ConfigError(Exception):
    """A ladder file that cannot be read or used; the message says which field and why."""


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class LadderSection(_Model):
    """The ``[ladder]`` table."""

    name: str
    games: Annotated[int, Field(ge=1, le=1_000_000)]
    seed: int = 1
    players: Annotated[int, Field(ge=2, le=4)] = 4
    victory_points: Annotated[int, Field(ge=3, le=20)] = 10
    board: str = "random"
    """``random``, ``spiral``, ``balanced``, ``fair`` or ``preset:NAME``; every block of
    games plays on one board, made from the block's seed (boards/play.py)."""
    min_fairness: Annotated[float, Field(ge=0, le=0.99)] | None = None
    """With ``board = "fair"``: the fairness its boards reach (default 0.95)."""
    workers: Annotated[int, Field(ge=1, le=1024)] | None = None

    @field_validator("name")
    @classmethod
    def _ladder_name(cls, value: str) -> str:
        if not LADDER_NAME.match(value):
            raise ValueError(
                "a ladder name is 1 to 64 letters, digits or _.:+- (no spaces), "
                "starting with a letter or digit"
            )
        return value

    @field_validator("board")
    @classmethod
    def _known_board(cls, board: str) -> str:
        if board in BOARD_KINDS:
            return board
        if board.startswith("preset:"):
            name = board.removeprefix("preset:")
            if name not in preset_names():
                raise ValueError(unknown_preset(name))
            return board
        raise ValueError(f"board is one of {', '.join(BOARD_KINDS)} or preset:NAME, not {board!r}")

    @model_validator(mode="after")
    def _fairness_for_fair(self) -> LadderSection:
        if self.min_fairness is not None and self.board != "fair":
            raise ValueError('min_fairness goes with board = "fair"')
        return self


class EntrantConfig(_Model):
    """One ``[[entrant]]``: a name and exactly one of ``bot`` (with ``params``),
    ``command`` (a stdio-bridge program) or ``connect`` (a program that joins a server
    itself); ``budget`` is the compute per move it is allowed, as text."""

    name: str
    bot: str | None = None
    params: dict[str, Param] = Field(default_factory=dict)
    command: Annotated[str, Field(min_length=1)] | None = None
    connect: Annotated[str, Field(min_length=1)] | None = None
    budget: Annotated[str, Field(min_length=1, max_length=64)] | None = None
    timeout: Annotated[float, Field(gt=0, le=3600)] = 10.0
    """Seconds a ``command`` program has to answer a prompt (then the bridge plays the
    default action for it)."""

    @field_validator("name")
    @classmethod
    def _name(cls, value: str) -> str:
        if not NAME.match(value):
            raise ValueError(
                "an entrant name is 1 to 32 letters, digits or _.:+=#- (no spaces), "
                "starting with a letter or digit"
            )
        return value

    @model_validator(mode="after")
    def _one_way_to_play(self) -> EntrantConfig:
        given = [k for k in ("bot", "command", "connect") if getattr(self, k) is not None]
        if len(given) != 1:
            raise ValueError(
                f"entrant {self.name!r} needs exactly one of bot, command or connect"
                + (f", not {' and '.join(given)}" if given else "")
            )
        if self.bot is not None and self.bot not in KINDS:
            raise ValueError(f"unknown bot {self.bot!r}; built-in bots: {', '.join(KINDS)}")
        if self.bot is None and self.params:
            raise ValueError(f"params belong to a built-in bot; entrant {self.name!r} has none")
        if self.bot is None and self.budget is None:
            raise ValueError(
                f"entrant {self.name!r}: give the compute budget per move it uses, e.g. "
                'budget = "200 ms" or budget = "1000 rollouts"'
            )
        for text in (self.command, self.connect):
            if text is not None:
                try:
                    if not shlex.split(text):
                        raise ValueError("the command is empty")
                except ValueError as exc:
                    raise ValueError(f"entrant {self.name!r}: bad command: {exc}") from exc
        if self.connect is not None:
            for field in re.findall(r"\{(\w*)\}", self.connect):
                if field not in PLACEHOLDERS:
                    raise ValueError(
                        f"entrant {self.name!r}: unknown placeholder {{{field}}} in connect; "
                        f"known: {', '.join('{' + p + '}' for p in PLACEHOLDERS)}"
                    )
            if "{url}" not in self.connect or "{invite}" not in self.connect:
                raise ValueError(
                    f"entrant {self.name!r}: a connect command needs {{url}} and {{invite}}"
                )
        return self

    @property
    def way(self) -> Literal["bot", "command", "connect"]:
        """How the entrant plays."""
        if self.bot is not None:
            return "bot"
        return "command" if self.command is not None else "connect"

    @property
    def str_params(self) -> dict[str, str]:
        """The parameters as the bots take them (strings; booleans as true/false)."""
        return {
            k: (str(v).lower() if isinstance(v, bool) else str(v)) for k, v in self.params.items()
        }


class LadderConfig(_Model):
    """A whole ladder file."""

    ladder: LadderSection
    entrant: Annotated[list[EntrantConfig], Field(min_length=2)]

    @model_validator(mode="after")
    def _unique_names(self) -> LadderConfig:
        names = [e.name for e in self.entrant]
        twice = sorted({n for n in names if names.count(n) > 1})
        if twice:
            raise ValueError(f"entrant names must be unique: {', '.join(twice)} given twice")
        return self

    @property
    def labels(self) -> list[str]:
        return [e.name for e in self.entrant]

    def budgets(self) -> dict[str, str]:
        """Every entrant's budget (given, or derived for built-in bots)."""
        return {e.name: budget_of(e) for e in self.entrant}

    def identity(self) -> dict[str, Any]:
        """What makes a ladder the same ladder: everything but ``games`` and ``workers``
        (the schedule is the same for any number of games: more games extend it)."""
        section = self.ladder.model_dump(exclude={"games", "workers"})
        entrants = [e.model_dump(exclude_defaults=False) for e in self.entrant]
        for entrant, config in zip(entrants, self.entrant, strict=True):
            entrant["budget"] = budget_of(config)
        return {"ladder": section, "entrants": entrants}


def budget_of(entrant: EntrantConfig) -> str:
    """The entrant's budget as given, or for a built-in bot what its parameters say:
    ``"1000 rollouts"``, ``"200 ms"``, both, with the trees of an ensemble; ``"no search"``
    for the random and heuristic bots."""
    if entrant.budget is not None:
        return entrant.budget
    if entrant.bot != "uct":
        return "no search"
    from bots.uct_agent import UCTAgent

    config = UCTAgent.from_params(entrant.str_params).config
    parts = []
    if config.rollouts:
        parts.append(f"{config.rollouts} rollouts")
    if config.time_ms:
        parts.append(f"{config.time_ms:g} ms")
    text = " or ".join(parts)
    if config.trees > 1:
        text += f" over {config.trees} trees"
    return text


def search_processes(entrant: EntrantConfig) -> int:
    """How many processes a built-in entrant's search runs in at once (1 for others)."""
    if entrant.bot != "uct":
        return 1
    from bots.uct_agent import UCTAgent

    config = UCTAgent.from_params(entrant.str_params).config
    return max(1, min(config.processes, config.trees))


def _where(loc: tuple[int | str, ...], data: dict[str, Any]) -> str:
    """A field's place as a person reads it: ``[[entrant]] 2 ("uct") params``."""
    if loc and loc[0] == "entrant" and len(loc) > 1 and isinstance(loc[1], int):
        entrants = data.get("entrant") or []
        name = ""
        if loc[1] < len(entrants) and isinstance(entrants[loc[1]], dict):
            name = f" ({entrants[loc[1]].get('name', '?')!s})"
        rest = ".".join(str(p) for p in loc[2:])
        return f"[[entrant]] {loc[1] + 1}{name}" + (f" {rest}" if rest else "")
    if loc == ("entrant",):
        return "[[entrant]]"
    if loc and loc[0] == "ladder":
        return "[ladder] " + ".".join(str(p) for p in loc[1:]) if len(loc) > 1 else "[ladder]"
    return ".".join(str(p) for p in loc) or "the file"


def _plainly(error: Any, loc: tuple[Any, ...]) -> str:
    """A validation error in the words of a ladder file: an unknown key with the known
    ones near it, a ladder of one entrant, or pydantic's own sentence."""
    kind = error["type"]
    if kind == "extra_forbidden" and loc:
        sections: dict[Any, type[BaseModel]] = {"entrant": EntrantConfig, "ladder": LadderSection}
        known = list(sections.get(loc[0], LadderConfig).model_fields)
        near = difflib.get_close_matches(str(loc[-1]), known, n=1)
        hint = f" (did you mean {near[0]!r}?)" if near else f" (one of: {', '.join(known)})"
        return f"no such key{hint}"
    if kind == "too_short" and loc == ("entrant",):
        return "a ladder needs at least two [[entrant]] tables"
    return str(error["msg"]).removeprefix("Value error, ")


def parse_config(data: dict[str, Any], source: str = "the config") -> LadderConfig:
    """Validate a parsed TOML document; raises :class:`ConfigError` naming each bad field,
    and building each built-in bot once so a bad parameter is found before any game."""
    try:
        config = LadderConfig.model_validate(data)
    except ValidationError as exc:
        problems = []
        for error in exc.errors(include_url=False):
            loc = tuple(error["loc"])
            problems.append(f"{_where(loc, data)}: {_plainly(error, loc)}")
        raise ConfigError(f"{source}: " + "; ".join(problems)) from None
    for entrant in config.entrant:
        if entrant.bot is None:
            continue
        try:
            agent = make_agent(entrant.bot, 0, entrant.str_params)
        except (ValueError, ImportError) as exc:
            raise ConfigError(f"{source}: entrant {entrant.name!r} params: {exc}") from None
        close = getattr(agent, "close", None)
        if callable(close):
            close()
    return config


def load_config(path: str | Path) -> LadderConfig:
    """Read and validate a ladder file; raises :class:`ConfigError`."""
    path = Path(path)
    try:
        with path.open("rb") as f:
            data = tomllib.load(f)
    except OSError as exc:
        raise ConfigError(f"cannot read {path}: {exc.strerror or exc}") from None
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"{path}: not valid TOML: {exc}") from None
    except UnicodeDecodeError:
        msg = f"{path} is not a ladder file: not text (a store? give it as --db)"
        raise ConfigError(msg) from None
    return parse_config(data, str(path))
