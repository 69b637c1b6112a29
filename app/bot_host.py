"""``hexhaven bot-host``: one process that plays many bot seats of a server's games at once.

The server starts it (see ``server/bot_host.py``) and writes the seats it is to play on its
standard input, one JSON line each (:mod:`protocol.bot_host`): the game, the seat's token,
the bot. Each seat is an asyncio task playing through the SDK (:func:`clients.sdk.play`)
over its own connection, rejoining with its token exactly as ``hexhaven bot`` does, and
seeing only its seat's view. Decisions run in a pool of threads, so the host's loop keeps
every connection flowing; the ``uct`` seats' searches run in one bounded pool of worker
processes that all of them share (:class:`bots.pool.PoolEnsemble`). When a seat's game is
over, or the seat is lost, a line on standard output says so. The end of standard input
(the server is gone) ends every seat and the process.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import ssl
import sys
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor

import structlog
from pydantic import ValidationError
from websockets.exceptions import WebSocketException

from bots import make_agent
from bots.pool import FallbackAgent, PoolEnsemble
from clients.sdk import Agent, ConnectionLost, SeatDeclined, play
from protocol.bot_host import EndSeat, HostSeat, SeatEnded, line, to_host

DECISION_THREADS = 64
"""Threads that decisions run in (a ``uct`` decision's thread mostly waits for workers)."""
MAX_LINE = 64 * 1024
"""The longest line the host reads; the server's are a few hundred bytes."""

_log = structlog.get_logger("hexhaven.bot_host")


class BotHost:
    """The seats one host plays, by the server's number for each."""

    def __init__(
        self,
        url: str,
        ensemble: PoolEnsemble,
        write: Callable[[bytes], None],
        tls: ssl.SSLContext | None = None,
    ) -> None:
        self.url = url
        self.ensemble = ensemble
        self.write = write
        self.tls = tls
        self.seats: dict[str, asyncio.Task[None]] = {}

    def receive(self, data: bytes) -> None:
        """Act on one line from the server; a line that is no message is logged (without
        its contents, which may hold a token) and ignored."""
        try:
            message = to_host(data)
        except ValidationError as exc:
            problems = [(e["loc"], e["type"]) for e in exc.errors(include_input=False)]
            _log.warning("host.bad_line", problems=problems)
            return
        match message:
            case HostSeat():
                if message.id not in self.seats:
                    task = asyncio.create_task(self._play(message), name=f"seat-{message.id}")
                    self.seats[message.id] = task
            case EndSeat():
                ending = self.seats.pop(message.id, None)
                if ending is not None:
                    ending.cancel()

    def _agent(self, seat: HostSeat) -> Agent:
        """The seat's bot; a ``uct`` bot searches in the host's shared workers. Raises
        ValueError for a kind or strength there is not."""
        kind, _, strength = seat.kind.partition(":")
        agent = make_agent(kind, None, {"strength": strength} if strength else {})
        if kind == "uct":
            from bots.uct_agent import UCTAgent

            assert isinstance(agent, UCTAgent)
            agent.ensemble = self.ensemble
            self.ensemble.warm()
        agent.name = seat.name or agent.name
        return FallbackAgent(agent)

    async def _play(self, seat: HostSeat) -> None:
        """Play one seat to its end, then say how it ended."""
        log = _log.bind(game=seat.game, kind=seat.kind, id=seat.id)
        why = ""
        try:
            agent = self._agent(seat)
            token = seat.token.get_secret_value()
            over = await play(agent, self.url, seat.game, token=token, tls=self.tls)
            code = 0 if over is not None else 1
        except ValueError as exc:
            code, why = 2, str(exc)
        except (ConnectionLost, SeatDeclined) as exc:
            code, why = 1, str(exc)
        except (OSError, TimeoutError, WebSocketException) as exc:
            code, why = 2, f"cannot reach the server: {exc}"
        except Exception as exc:
            log.exception("host.seat_failed")
            code, why = 1, f"{type(exc).__name__}: {exc}"
        finally:
            if self.seats.get(seat.id) is asyncio.current_task():
                del self.seats[seat.id]
        log.info("host.seat_ended", code=code, why=why)
        self.write(line(SeatEnded(id=seat.id, code=code, why=why)))

    async def stop(self) -> None:
        """End every seat."""
        tasks = list(self.seats.values())
        self.seats.clear()
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)


async def host_seats(
    url: str, workers: int, search_seconds: float, tls: ssl.SSLContext | None = None
) -> None:
    """Play the seats the lines on standard input give until it ends."""
    loop = asyncio.get_running_loop()
    loop.set_default_executor(ThreadPoolExecutor(DECISION_THREADS, thread_name_prefix="decide"))
    reader = asyncio.StreamReader(limit=MAX_LINE)
    await loop.connect_read_pipe(lambda: asyncio.StreamReaderProtocol(reader), sys.stdin)
    # The lines to the server go on a copy of standard output that no process started from
    # here inherits (the search workers' standard output is standard error), so its end
    # comes with this process's.
    sys.stdout.flush()
    out = os.fdopen(os.dup(sys.stdout.fileno()), "wb")
    os.dup2(sys.stderr.fileno(), sys.stdout.fileno())

    def write(data: bytes) -> None:
        with contextlib.suppress(BrokenPipeError):
            out.write(data)
            out.flush()

    ensemble = PoolEnsemble(workers, search_seconds)
    host = BotHost(url, ensemble, write, tls)
    _log.info("host.started", workers=workers)
    try:
        while True:
            try:
                data = await reader.readline()
            except ValueError:  # longer than MAX_LINE: skip to the next line
                _log.warning("host.bad_line", problems=["too long"])
                continue
            if not data:
                break
            host.receive(data)
    finally:
        await host.stop()
        await asyncio.to_thread(ensemble.close)
        _log.info("host.stopped")
