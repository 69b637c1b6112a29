"""The bots the server plays seats with: a game's bot seats, and stand-ins for away people.

A room asks for a bot with a seat's token (:meth:`BotLauncher.launch`); the bot plays in
the server's bot host (:mod:`server.bot_host`: one process for every seat, started at the
first) or, with ``process``, in a ``hexhaven bot`` process of its own
(:func:`bot_command`). Either way the token goes on the bot's standard input, never on a
command line, and the bot connects back like any player. When a bot's seat ends, its room
is told (:class:`~server.room.ProcessExited`), and it starts the bot again or plays the seat
itself. Stand-ins are counted with the bot seats games asked for, under the caps on bot
seats (:meth:`BotLauncher.may_stand_in`).
"""

from __future__ import annotations

import asyncio
import contextlib
import os
from typing import TYPE_CHECKING

import structlog

from protocol.process import hexhaven_command
from server.bot_host import BotHost
from server.room import SERVER_PEER, ProcessExited
from server.tokens import hash_token

if TYPE_CHECKING:
    from server.app import HexhavenServer

__all__ = ["BOT_LAUNCHERS", "BotLauncher", "bot_command"]

BOT_LAUNCHERS = ("host", "process")
"""How a server runs its bots: all in one bot host process, or one process a seat."""


def bot_command(
    url: str, game: str, kind: str, name: str, server_cert: str | None = None
) -> list[str]:
    """The command line of a bot process (``kind`` may be ``kind:strength``). It carries no
    token: the process reads its seat's token from its standard input (``--token-file -``),
    where the server writes it. Over TLS it trusts exactly the certificate in the file
    ``server_cert`` (the server's own). Values go as ``--opt=value`` so a name that starts
    with a dash is not taken for an option."""
    kind, _, strength = kind.partition(":")
    return hexhaven_command(
        "bot",
        f"--url={url}",
        f"--game={game}",
        "--token-file=-",
        f"--kind={kind}",
        f"--name={name}",
        *([f"--strength={strength}"] if strength else []),
        *([f"--server-cert={server_cert}"] if server_cert else []),
    )


class BotLauncher:
    """The bots ``server`` runs. Raises ValueError for a ``kind`` not in
    :data:`BOT_LAUNCHERS` or ``workers`` under 1."""

    def __init__(
        self,
        server: HexhavenServer,
        kind: str = "host",
        workers: int | None = None,
        search_seconds: float | None = None,
    ) -> None:
        self._log = structlog.get_logger("hexhaven.server")
        """The server's log (a logger of each instance: configured when first used)."""
        if kind not in BOT_LAUNCHERS:
            raise ValueError(f"bot_launcher is one of {', '.join(BOT_LAUNCHERS)}, not {kind!r}")
        if workers is not None and workers < 1:
            raise ValueError(f"bot_workers is 1 or more, not {workers}")
        self._server = server
        self.kind = kind
        """How the bots are run: ``host`` (every seat in one bot host process) or
        ``process`` (a ``hexhaven bot`` process a seat)."""
        self.workers = workers or os.cpu_count() or 1
        """The bot host's search worker processes."""
        self.search_seconds = search_seconds
        """The longest one decision of a bot in the bot host may search (None: its
        default, :data:`bots.pool.SEARCH_SECONDS`)."""
        self.host: BotHost | None = None
        """The bot host, once the first bot seat is played."""
        self._running: dict[str, set[asyncio.Task[None]]] = {}
        """Each game's bots (the tasks that run them)."""
        self.standins: dict[str, int] = {}
        """Each game's stand-in bots running (counted with its bot seats)."""
        self._by_token: dict[str, asyncio.Task[None]] = {}
        """The task of each running bot, by its seat token's hash (to stop a stand-in)."""

    def seats(self) -> int:
        """Bots running now, in every game (stand-ins among them)."""
        return sum(len(bots) for bots in self._running.values())

    def may_stand_in(self, game: str) -> bool:
        """Whether a stand-in bot may be started for an away seat of ``game`` (a room asks):
        counted with the bot seats games asked for, under the server-wide cap and the cap
        of the game's creator's address (a stand-in started is counted until its bot
        ends)."""
        limits = self._server.limits
        games = self._server.games
        address = games.creators.get(game, ("", ""))[1]
        total = here = 0
        for _, where, _, seats in games.open_games():
            total += seats
            if address and where == address:
                here += seats
        if total >= limits.bot_seats or (address and here >= limits.bot_seats_per_address):
            self._log.warning("bot.no_stand_in", game=game, bot_seats=total, address_seats=here)
            return False
        return True

    def launch(self, game: str, token: str, kind: str, name: str, stand_in: bool = False) -> None:
        """Play the seat of ``token`` in ``game`` with a bot (a room's launcher): in the bot
        host, or in a process of its own. A ``stand_in`` for an away person is counted with
        the bot seats until its bot ends."""
        job = (
            self._process(game, token, kind, name)
            if self.kind == "process"
            else self._hosted(game, token, kind, name)
        )
        task = self._server.tasks.start(job, f"bot-{name}")
        bots = self._running.setdefault(game, set())
        bots.add(task)
        task.add_done_callback(bots.discard)
        key = hash_token(token)
        self._by_token[key] = task
        task.add_done_callback(lambda _: self._by_token.pop(key, None))
        if stand_in:
            self.standins[game] = self.standins.get(game, 0) + 1
            task.add_done_callback(lambda _: self._stand_in_ended(game))

    def stop(self, game: str, token_hash: str) -> None:
        """Stop the bot that plays the seat of ``token_hash`` in ``game`` (a stand-in whose
        person came back): it ends without trying to come back to the seat."""
        task = self._by_token.pop(token_hash, None)
        if task is not None and not task.done():
            self._log.info("bot.stand_in_stopped", game=game)
            task.cancel()

    def _stand_in_ended(self, game: str) -> None:
        left = self.standins.get(game, 0) - 1
        if left > 0:
            self.standins[game] = left
        else:
            self.standins.pop(game, None)

    def end(self, game: str) -> None:
        """End the bots run for ``game`` (a game stopped or closed: nothing is left for them
        to play)."""
        for task in self._running.pop(game, set()):
            task.cancel()

    async def close(self) -> None:
        """Stop the bot host, if it was started (the server stops)."""
        if self.host is not None:
            await self.host.close()

    def _trust(self) -> str | None:
        """The certificate file the bots trust over TLS (None: plain ``ws://``)."""
        tls = self._server.tls
        return str(tls.bots_trust) if tls else None

    async def _hosted(self, game: str, token: str, kind: str, name: str) -> None:
        """Have the bot host (started at the first bot seat) play one seat until it ends,
        then tell its room. The token goes to the host on its standard input."""
        if self.host is None:
            self.host = BotHost(self._server.url, self.workers, self._trust(), self.search_seconds)
        host = self.host
        bot = host.new_id()
        self._log.info("bot.started", game=game, kind=kind, bot=bot)
        try:
            code = await host.play(bot, game, token, kind, name)
        except asyncio.CancelledError:
            self._log.info("bot.stopped", game=game, kind=kind, bot=bot)
            raise
        self._ended(game, token, kind, code)

    async def _process(self, game: str, token: str, kind: str, name: str) -> None:
        """Run one bot as its own process until it exits (or the server stops), then tell
        its room. The token goes to the process on its standard input (one line, then the
        end of input), never on its command line, where any local user could read it."""
        proc = await asyncio.create_subprocess_exec(
            *bot_command(self._server.url, game, kind, name, self._trust()),
            stdin=asyncio.subprocess.PIPE,
            stdout=asyncio.subprocess.DEVNULL,
            stderr=asyncio.subprocess.PIPE,
        )
        self._log.info("bot.started", game=game, kind=kind, pid=proc.pid)
        try:
            _, err = await proc.communicate(f"{token}\n".encode())
        except asyncio.CancelledError:
            if proc.returncode is None:
                proc.terminate()
                with contextlib.suppress(ProcessLookupError):
                    await asyncio.wait_for(proc.wait(), 5)
            self._log.info("bot.stopped", game=game, kind=kind, pid=proc.pid)
            raise
        code = proc.returncode
        assert code is not None
        tail = err.decode(errors="replace").strip().splitlines()[-5:]
        self._ended(game, token, kind, code, tail)

    def _ended(
        self, game: str, token: str, kind: str, code: int, stderr: list[str] | None = None
    ) -> None:
        """A bot's seat ended with ``code``: log it and tell its room, which starts it
        again or plays the seat itself."""
        if code == 0:
            self._log.info("bot.exited", game=game, kind=kind, code=code)
        else:
            self._log.warning("bot.failed", game=game, kind=kind, code=code, stderr=stderr or [])
        room = self._server.rooms.get(game)
        if room is not None:
            room.submit(SERVER_PEER, ProcessExited(token_hash=hash_token(token), code=code))
