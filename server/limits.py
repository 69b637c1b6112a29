"""The server's limits: what one connection, one address and the whole server may ask of
it. Each is a setting with a default meant for a server open to the internet; ``hexhaven
serve --limit NAME=VALUE`` changes one. A request past a limit is refused with
``limit_reached``, its ``detail`` the limit's name (docs/protocol.md lists them)."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from typing import Any

from protocol.server_session import BUDGET_NAMES, Budgets, Limits, Rate

ADDRESS_FACTOR = 4.0
"""By default one address may make this many times the requests of one connection."""


@dataclass(frozen=True)
class ServerLimits:
    """Every limit of a server; see the module docstring."""

    connection: Limits = field(default_factory=Limits)
    """Frame size and message rate of one connection."""
    budgets: Budgets = field(default_factory=Budgets)
    """Costly requests of one connection."""
    address_budgets: Budgets = field(default_factory=lambda: Budgets().scaled(ADDRESS_FACTOR))
    """Costly requests of all connections from one address together."""
    games: int = 4000
    """Games open on the server at once (started or not)."""
    unstarted_per_connection: int = 2
    """Games created by one connection and not started yet."""
    unstarted_per_address: int = 2
    """Games created from one address and not started yet (so that filling the server with
    games nobody starts takes ``games / unstarted_per_address`` addresses, each keeping a
    connection to its games: see ``unstarted_seconds``)."""
    games_per_address: int = 20
    """Games created from one address and open at once, started or not (not over): games
    filled by one address's own connections, started and left, hold their places until
    ``idle_timeout``; this bounds how many of the server's ``games`` one address holds."""
    unstarted_seconds: int = 300
    """Seconds a game not started yet stays open with nobody connected to it (its creator
    included); then it is closed for good (not resumed after a restart)."""
    bot_seats: int = 200
    """Bot seats in the server's open games, all together (each played in the bot host
    once the game starts)."""
    bot_seats_per_connection: int = 9
    """Bot seats in the open games one connection created."""
    bot_seats_per_address: int = 24
    """Bot seats in the open games created from one address."""
    outbox_bytes: int = 8 * 1024 * 1024
    """Bytes waiting to be sent to one connection; past it the connection is closed (a
    reader that slow loses its own connection, nobody else's)."""
    stalled_seconds: int = 60
    """Seconds a reader may leave bytes waiting without taking any of them; past it the
    connection is closed (a client that stopped reading, under the byte bound)."""
    chat_per_game: int = 2000
    """Chat lines one game takes from its spectators, all together; later ones are refused
    (its players' lines are limited only by ``chat_per_speaker``)."""
    chat_per_speaker: int = 20
    """Chat lines one player or spectator may say in a game per minute, on average (twice
    as many at once): the game's own share for each speaker, on top of each connection's
    ``chat`` budget."""
    reopened: int = 50
    """Games played out and closed that are open again at once for those watching them
    (each holds its whole record in memory until they leave)."""
    boards_at_once: int = 2
    """Boards searched or drawn at once for new games (``balanced``, ``fair``, ``random``
    on a larger island); the next wait their turn."""

    def with_settings(self, settings: dict[str, str]) -> ServerLimits:
        """These limits with some changed by name: a whole-number limit (``games=500``), a
        connection's ``max_frame``, ``rate`` or ``burst``, or a budget as
        ``BUDGET=PER_MINUTE/BURST`` for each connection (``chat=10/3``) or
        ``address.BUDGET=...`` for each address. Raises ValueError naming what is wrong."""
        changes: dict[str, object] = {}
        connection: dict[str, Any] = {}
        budgets: dict[str, Rate] = {}
        address: dict[str, Rate] = {}
        counts = {f.name for f in dataclasses.fields(self) if f.type in ("int", int)}
        for name, text in settings.items():
            if name in counts:
                changes[name] = _whole(name, text)
            elif name in ("max_frame", "rate", "burst"):
                connection[name] = (
                    _whole(name, text) if name == "max_frame" else _number(name, text)
                )
            elif name in BUDGET_NAMES:
                budgets[name] = _rate(name, text)
            elif name.startswith("address.") and name.removeprefix("address.") in BUDGET_NAMES:
                address[name.removeprefix("address.")] = _rate(name, text)
            else:
                known = sorted(
                    [*counts, "max_frame", "rate", "burst", *BUDGET_NAMES]
                    + [f"address.{b}" for b in BUDGET_NAMES]
                )
                raise ValueError(f"no limit {name!r}; the limits are {', '.join(known)}")
        if connection:
            changes["connection"] = dataclasses.replace(self.connection, **connection)
        if budgets:
            changes["budgets"] = dataclasses.replace(self.budgets, **budgets)
        if address:
            changes["address_budgets"] = dataclasses.replace(self.address_budgets, **address)
        return dataclasses.replace(self, **changes)  # type: ignore[arg-type]


def _number(name: str, text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise ValueError(f"limit {name} takes a number, not {text!r}") from None
    if not value > 0:
        raise ValueError(f"limit {name} must be above 0, not {text}")
    return value


def _whole(name: str, text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise ValueError(f"limit {name} takes a whole number, not {text!r}") from None
    if value < 0:
        raise ValueError(f"limit {name} cannot be negative ({value})")
    return value


def _rate(name: str, text: str) -> Rate:
    per_minute, slash, burst = text.partition("/")
    if not slash:
        raise ValueError(f"limit {name} takes PER_MINUTE/BURST, e.g. 30/10, not {text!r}")
    return Rate(_number(name, per_minute), _number(name, burst))
