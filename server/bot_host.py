"""The bot host: one process (``hexhaven bot-host``) that plays every bot seat of this
server, started at the first bot seat and started again if it dies.

Each seat is handed over as a line on the host's standard input (:mod:`protocol.bot_host`),
never on a command line; the host plays it over its own connection with its token, as any
client, and says on its standard output when the seat's game is over or the seat is lost.
If the host dies, a new one is started and every seat the old one held is handed to it
again: the seats rejoin with their tokens, and meanwhile the server plays them as it plays
any away seat. A host that keeps dying at once is given up after :data:`HOST_RESTARTS`
tries; its seats end as failed bot processes do (their rooms play them by default).
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import time
from dataclasses import dataclass

import structlog
from pydantic import SecretStr, ValidationError

from protocol.bot_host import EndSeat, HostSeat, from_host, line
from protocol.process import hexhaven_command

HOST_RESTARTS = 3
"""Starts in a row of a host that dies within :data:`HOST_STEADY` seconds before the
server gives it up (the count starts afresh once one lives longer)."""
HOST_STEADY = 10.0
RESTART_DELAY = 0.2
"""Seconds before starting a dead host again, doubled for each quick death in a row."""
HOST_EXIT_WAIT = 5.0
"""Seconds a host told to stop (its standard input closed) has to exit before it is
killed."""
READ_AFTER_EXIT = 0.5
"""Seconds the server reads a host's output after it exits, for the ends of seats it told
of before it went."""
GIVEN_UP = -1
"""The code of a seat whose host was given up."""


def host_command(
    url: str, workers: int, server_cert: str | None = None, search_seconds: float | None = None
) -> list[str]:
    """The command line of a bot host. It carries no token: the seats come on its standard
    input. Over TLS it trusts exactly the certificate in the file ``server_cert``."""
    return hexhaven_command(
        "bot-host",
        f"--url={url}",
        f"--workers={workers}",
        *([f"--server-cert={server_cert}"] if server_cert else []),
        *([f"--search-seconds={search_seconds}"] if search_seconds else []),
    )


@dataclass(eq=False)
class _Seat:
    message: HostSeat
    ended: asyncio.Future[int]


class BotHost:
    """Runs one bot host for a server's bot seats: :meth:`play` a seat, :meth:`close` at
    the end."""

    def __init__(
        self,
        url: str,
        workers: int,
        server_cert: str | None = None,
        search_seconds: float | None = None,
    ) -> None:
        self.url = url
        self.workers = workers
        self.server_cert = server_cert
        self.search_seconds = search_seconds
        """The longest a decision's search may take (None: the host's default)."""
        self.log = structlog.get_logger("hexhaven.server")
        self._seats: dict[str, _Seat] = {}
        self._ids = itertools.count(1)
        self._proc: asyncio.subprocess.Process | None = None
        self._ready = asyncio.Event()
        """Set while a host runs and has been handed every seat."""
        self._task: asyncio.Task[None] | None = None
        self._closing = False
        self.starts = 0
        """How many host processes were started."""

    @property
    def pid(self) -> int | None:
        """The running host's process id, if one runs."""
        return self._proc.pid if self._proc is not None and self._ready.is_set() else None

    def seats(self) -> int:
        """How many seats the host is playing."""
        return len(self._seats)

    def new_id(self) -> str:
        """A number for a seat to be played (for :meth:`play`, and the logs)."""
        return str(next(self._ids))

    async def play(self, id: str, game: str, token: str, kind: str, name: str) -> int:
        """Have the host play the seat of ``token`` (numbered ``id``, from :meth:`new_id`)
        until it ends; its exit code (as ``hexhaven bot``'s, or :data:`GIVEN_UP`).
        Cancelled, the host stops playing it."""
        seat = _Seat(
            HostSeat(id=id, game=game, token=SecretStr(token), kind=kind, name=name),
            asyncio.get_running_loop().create_future(),
        )
        self._seats[seat.message.id] = seat
        if self._task is None or self._task.done():
            self._task = asyncio.create_task(self._supervise(), name="bot-host")
        elif self._ready.is_set():  # else the host being started is handed it
            await self._send(line(seat.message))
        try:
            return await asyncio.shield(seat.ended)
        except asyncio.CancelledError:
            if self._seats.pop(seat.message.id, None) is not None and self._ready.is_set():
                await self._send(line(EndSeat(id=seat.message.id)))
            raise

    async def _send(self, data: bytes) -> None:
        """Write to the running host; nothing if it is gone (its seats are handed to the
        next one)."""
        proc = self._proc
        if proc is None or proc.stdin is None:
            return
        with contextlib.suppress(ConnectionError, RuntimeError):
            proc.stdin.write(data)
            await proc.stdin.drain()

    async def _supervise(self) -> None:
        """Run hosts while there are seats: hand each new host every seat, read the ends
        of seats, and start a host again when one dies."""
        quick = 0
        while self._seats and not self._closing:
            started = time.monotonic()
            try:
                proc = await asyncio.create_subprocess_exec(
                    *host_command(self.url, self.workers, self.server_cert, self.search_seconds),
                    stdin=asyncio.subprocess.PIPE,
                    stdout=asyncio.subprocess.PIPE,
                    limit=64 * 1024,
                )
            except OSError as exc:
                self.log.error("bot_host.cannot_start", error=str(exc))
                code = None
            else:
                code = await self._run(proc)
            if self._closing:
                return
            quick = quick + 1 if time.monotonic() - started < HOST_STEADY else 1
            self.log.warning("bot_host.exited", code=code, seats=len(self._seats), tries=quick)
            if quick >= HOST_RESTARTS:
                self.log.error("bot_host.given_up", seats=len(self._seats))
                for seat in list(self._seats.values()):
                    if not seat.ended.done():
                        seat.ended.set_result(GIVEN_UP)
                self._seats.clear()
                return
            await asyncio.sleep(RESTART_DELAY * 2 ** (quick - 1))

    async def _run(self, proc: asyncio.subprocess.Process) -> int:
        """Hand ``proc`` every seat and read what it says until it exits; its exit code."""
        assert proc.stdin is not None and proc.stdout is not None
        self._proc = proc
        self.starts += 1
        for seat in self._seats.values():  # written at once: a seat added later follows
            proc.stdin.write(line(seat.message))
        self._ready.set()
        self.log.info("bot_host.started", pid=proc.pid, seats=len(self._seats))
        reader = asyncio.create_task(self._read(proc.stdout), name="bot-host-reader")
        try:
            with contextlib.suppress(ConnectionError):
                await proc.stdin.drain()
            # Its exit, not the end of its output, says it is gone: a process it started
            # may hold its output open a while longer.
            code = await proc.wait()
            with contextlib.suppress(TimeoutError):  # what it wrote before it went
                await asyncio.wait_for(asyncio.shield(reader), READ_AFTER_EXIT)
            return code
        finally:
            reader.cancel()
            self._ready.clear()
            self._proc = None
            if proc.returncode is None:
                proc.kill()
                await proc.wait()

    async def _read(self, out: asyncio.StreamReader) -> None:
        """Read the host's lines until its output ends: each seat that ended is told."""
        while data := await out.readline():
            try:
                ended = from_host(data)
            except ValidationError:
                self.log.warning("bot_host.bad_line", length=len(data))
                continue
            held = self._seats.pop(ended.id, None)
            if held is not None and not held.ended.done():
                held.ended.set_result(ended.code)
                if ended.code:
                    self.log.info("bot_host.seat_failed", code=ended.code, why=ended.why)

    async def close(self) -> None:
        """Stop the host: its standard input closed (it ends its seats and exits), killed
        if it has not exited within :data:`HOST_EXIT_WAIT` seconds."""
        self._closing = True
        proc = self._proc
        if proc is not None and proc.stdin is not None:
            proc.stdin.close()
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(proc.wait(), HOST_EXIT_WAIT)
        if self._task is not None:
            self._task.cancel()
            await asyncio.gather(self._task, return_exceptions=True)
        for seat in self._seats.values():
            seat.ended.cancel()
        self._seats.clear()
