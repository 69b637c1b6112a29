"""What the agent tests share: a served game with a built-in bot, agent processes with
their output in files, and the commands docs/agents.md shows."""

from __future__ import annotations

import asyncio
import contextlib
import json
import shlex
import shutil
import sys
from dataclasses import dataclass
from pathlib import Path
from types import TracebackType
from typing import Any

from protocol import SUBPROTOCOL_JSON
from protocol import messages as m
from server.app import HexhavenServer
from tests.server.client import Client

REPO = Path(__file__).resolve().parents[2]
DOC = REPO / "docs" / "agents.md"
SEAT_TIMEOUT = 60.0
"""Seconds an agent process has to take its seat (a loaded machine starts Python slowly)."""
GAME_TIMEOUT = 150.0
"""Seconds a 2-player game to 5 points may take."""
EXIT_TIMEOUT = 30.0
"""Seconds an agent process has to exit after the game is over."""


@dataclass
class Served:
    server: HexhavenServer
    port: int

    @property
    def url(self) -> str:
        return f"ws://127.0.0.1:{self.port}"


async def open_game(
    port: int, *, bot: str = "heuristic", private: bool = True
) -> tuple[Client, m.GameCreated]:
    """A host connection and a new 2-player game to 5 points with one bot seat."""
    host = await Client.open(port, SUBPROTOCOL_JSON)
    await host.hello()
    options = m.GameOptions(
        players=2, victory_points=5, private=private, bots=[m.BotSeat(kind=bot)]
    )
    await host.send(m.CreateGame(options=options))
    return host, await host.expect(m.GameCreated)


async def wait_seated(served: Served, game: str, count: int) -> None:
    async with asyncio.timeout(SEAT_TIMEOUT):
        while served.server.rooms[game].seated < count:
            await asyncio.sleep(0.05)


async def start_and_watch(host: Client, game: str) -> m.GameOver:
    """Start the game as its host, then follow it to the end. (A bot process may take
    many seconds to start on a loaded machine, so there is no limit per message, only
    one on the game.)"""
    await host.send(m.Watch(game=game))
    await host.send(m.StartGame(game=game))
    async with asyncio.timeout(GAME_TIMEOUT):
        while True:
            message = host.codec.decode_server(await host.ws.recv())
            host.received.append(message)
            if isinstance(message, m.GameOver):
                return message


class AgentProcess:
    """An agent's process, its standard output and error in files of ``tmp``."""

    def __init__(self, proc: asyncio.subprocess.Process, out: Path, err: Path) -> None:
        self.proc = proc
        self.out_path = out
        self.err_path = err

    @classmethod
    async def start(cls, argv: list[str], tmp: Path, label: str) -> AgentProcess:
        out, err = tmp / f"{label}.out", tmp / f"{label}.err"
        with out.open("wb") as o, err.open("wb") as e:
            proc = await asyncio.create_subprocess_exec(
                *argv, cwd=REPO, stdin=asyncio.subprocess.DEVNULL, stdout=o, stderr=e
            )
        return cls(proc, out, err)

    async def exit_code(self, timeout: float = EXIT_TIMEOUT) -> int:
        code = await asyncio.wait_for(self.proc.wait(), timeout)
        return code

    async def stop(self) -> None:
        """Kill it if it is still running (a failed test)."""
        if self.proc.returncode is None:
            self.proc.kill()
            await self.proc.wait()

    @property
    def out(self) -> str:
        return self.out_path.read_text(errors="replace")

    @property
    def err(self) -> str:
        return self.err_path.read_text(errors="replace")

    def log_events(self) -> list[dict[str, Any]]:
        """The structured log lines (JSON objects with an ``event``) on standard error."""
        events = []
        for line in self.err.splitlines():
            if line.startswith("{"):
                try:
                    data = json.loads(line)
                except ValueError:
                    continue
                if isinstance(data, dict) and "event" in data:
                    events.append(data)
        return events


async def play_seat(
    served: Served, host: Client, game: str, argv: list[str], tmp: Path, label: str
) -> tuple[m.GameOver, AgentProcess]:
    """Start the agent ``argv``, wait for it to take its seat, start the game and watch it
    to its end; the agent must then exit with 0. Returns the end and the process."""
    proc = await AgentProcess.start(argv, tmp, label)
    try:
        await wait_seated(served, game, 1)
        over = await start_and_watch(host, game)
        assert await proc.exit_code() == 0, proc.err
    finally:
        await proc.stop()
    return over, proc


class Proxy:
    """A TCP proxy to the server that can cut every connection through it at once."""

    def __init__(self, target: int) -> None:
        self.target = target
        self.port = 0
        self.connections = 0
        self.links: set[asyncio.StreamWriter] = set()
        self.tasks: set[asyncio.Task[None]] = set()
        self.server: asyncio.Server | None = None

    async def __aenter__(self) -> Proxy:
        self.server = await asyncio.start_server(self._accept, "127.0.0.1", 0)
        self.port = self.server.sockets[0].getsockname()[1]
        return self

    async def __aexit__(
        self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        assert self.server is not None
        self.server.close()
        self.cut()
        for task in self.tasks:
            task.cancel()
        await asyncio.gather(*self.tasks, return_exceptions=True)

    def cut(self) -> None:
        for writer in self.links:
            writer.transport.abort()

    async def _accept(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.connections += 1
        up_reader, up_writer = await asyncio.open_connection("127.0.0.1", self.target)
        self.links |= {writer, up_writer}
        pipes = [
            asyncio.ensure_future(self._pipe(reader, up_writer)),
            asyncio.ensure_future(self._pipe(up_reader, writer)),
        ]
        self.tasks.update(pipes)
        try:
            await asyncio.wait(pipes, return_when=asyncio.FIRST_COMPLETED)
        finally:
            for w in (writer, up_writer):
                w.transport.abort()
                self.links.discard(w)

    @staticmethod
    async def _pipe(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        with contextlib.suppress(ConnectionError, OSError):
            while data := await reader.read(65536):
                writer.write(data)
                await writer.drain()


async def cut_when(served: Served, game: str, proxy: Proxy, actions: int) -> None:
    """Cut every connection through the proxy once the game has seen ``actions`` actions."""
    room = served.server.rooms[game]
    async with asyncio.timeout(GAME_TIMEOUT):
        while room.state.actions_taken < actions:
            await asyncio.sleep(0.02)
    proxy.cut()


# --- what the examples print, and the commands docs/agents.md shows -----------------------

SEAT_LINE = (
    "seat {seat} in game {game} "
    "(its token is in {file}: rejoin with --game {game} --token-file {file})"
)
"""What the examples print on standard error when the server seats them, given a file to
keep the token in."""
OVER_LINE = "game over: winner {winner}, points {points}, seed {seed}"
"""What the examples print on standard output at the end of the game."""


DOC_COMMANDS = (
    "python3 examples/python_minimal/agent.py",
    "python3 examples/python_sdk/agent.py",
    "npm ci --prefix examples/js",
    "node examples/js/agent.js",
    "hexhaven agent",
    "hexhaven bot",
    "hexhaven mcp",
    "hexhaven arena",
)
"""Every command line of the document starts with one of these; a test runs each."""


def doc_command_lines() -> list[str]:
    """The command lines of the document's ``sh`` blocks, continuation lines joined."""
    lines: list[str] = []
    in_sh = False
    pending = ""
    for raw in DOC.read_text().splitlines():
        if raw.startswith("```"):
            in_sh = raw.strip() == "```sh"
            continue
        if not in_sh or not raw.strip() or raw.lstrip().startswith("#"):
            continue
        pending += raw.rstrip().removesuffix("\\")
        if not raw.rstrip().endswith("\\"):
            lines.append(" ".join(pending.split()))
            pending = ""
    return lines


def doc_command(prefix: str, **values: str) -> list[str]:
    """The argv of the document's command line that starts with ``prefix``, with its
    placeholders (``ws://127.0.0.1:8765``, ``CODE``, ``GAME``, the token file ``seat.token``)
    replaced by ``values`` (``url``, ``code``, ``game``, ``token_file``) and its program made
    concrete
    (``python3``: this interpreter; ``hexhaven``: ``python -m app.cli``)."""
    found = [line for line in doc_command_lines() if line.startswith(prefix)]
    assert len(found) == 1, f"docs/agents.md should show one command {prefix!r}: {found}"
    argv = shlex.split(found[0])
    names = {
        "ws://127.0.0.1:8765": "url",
        "CODE": "code",
        "GAME": "game",
        "seat.token": "token_file",
    }
    out: list[str] = []
    for arg in argv:
        name = names.get(arg)
        out.append(values[name] if name is not None and name in values else arg)
    if out[0] == "python3":
        out[0] = sys.executable
    elif out[0] == "hexhaven":
        out[:1] = [sys.executable, "-m", "app.cli"]
    elif out[0] in ("node", "npm"):
        path = shutil.which(out[0])
        assert path is not None
        out[0] = path
    # A program given to the bridge as one string runs with this interpreter too.
    here = shlex.quote(sys.executable)
    return [f"{here} {a.removeprefix('python3 ')}" if a.startswith("python3 ") else a for a in out]
