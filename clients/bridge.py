"""The standard-input/standard-output bridge: a seat for any program that speaks JSON lines.

``hexhaven agent --url URL --invite CODE --cmd "PROGRAM ARGS"`` starts the program and plays
its seat with the SDK (:func:`clients.sdk.play`). The program reads one JSON object per line
on its standard input and answers each ``prompt`` line with one JSON line on its standard
output (docs/agents.md gives the exact formats):

- to the program: ``prompt`` (the protocol's message, always with the seat's ``view``),
  ``event`` (``{"type": "event", "game": G, "event": E}``, E one of the protocol's events),
  ``error`` (the protocol's message: the server refused what the bridge sent for it),
  ``default_played`` (the bridge answered a prompt for it, and why) and ``game_over``
  (the protocol's message; then its standard input is closed);
- from the program, one line per prompt: an action object (the ``action`` of an ``act``,
  optionally with the prompt's ``state_id``), or ``null`` to send nothing while its own
  offer awaits answers.

A program that answers with something that is not an action it may take, that is silent
for ``timeout`` seconds, or that has exited gets the default action (:func:`default_action`)
and one ``bridge.default`` log line; after :data:`MAX_SILENT` silent prompts in a row it is
stopped and the seat is played with default actions to the end. The game never waits on it.
A lost connection is resumed with the seat's token by the SDK (:class:`clients.sdk.Reconnect`).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import queue
import shlex
import ssl
import subprocess
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Final

import structlog
from pydantic import TypeAdapter, ValidationError

from clients.sdk import RECONNECT, Agent, ConnectionLost, Reconnect, Table, play
from protocol import messages as m
from protocol.client_session import is_no_seat
from protocol.payloads import (
    ActionPayload,
    Cards,
    CounterTrade,
    Discard,
    OfferTrade,
    WireModel,
)

DEFAULT_TIMEOUT: Final = 10.0
"""Seconds a program has to answer a prompt."""
MAX_SILENT: Final = 3
"""Prompts in a row a program may leave unanswered before it is stopped."""
MAX_OFFERS_PER_TURN: Final = 5
"""Domestic offers the bridge passes on per turn; more are answered with the default."""
MAX_LINE: Final = 64 * 1024
"""Longest answer line, in bytes; longer lines are not actions."""
EXIT_GRACE: Final = 5.0
"""Seconds a program has to exit once its standard input is closed, before it is stopped."""
DEADLINE_MARGIN: Final = 0.5
"""Seconds before a prompt's deadline at which the bridge stops waiting for the program."""
DEFAULT_PREFERENCE: Final = ("end_turn", "roll_dice", "decline_trade", "cancel_trade")
"""The kinds a default action is, in order of preference, when the prompt lists them."""

LOGGED_LINE: Final = 200
"""Characters of a program's line that a log line quotes."""

_ACTION: TypeAdapter[Any] = TypeAdapter(ActionPayload)
_EOF: Final = None


@dataclass(frozen=True)
class _LongLine:
    """An answer line over :data:`MAX_LINE` bytes: its first characters, and its size."""

    start: str
    size: int


class BridgeError(Exception):
    """The program could not be started; the message says why."""


def _quote(line: str | _LongLine) -> str:
    """The start of a program's line, for a log line: its first :data:`LOGGED_LINE`
    characters, without the surrounding white space."""
    if isinstance(line, _LongLine):
        return line.start.strip()[:LOGGED_LINE]
    return line.strip()[:LOGGED_LINE]


def default_action(prompt: m.Prompt) -> Any:
    """The action the bridge plays for a program that did not answer well: the first listed
    action of the kinds in :data:`DEFAULT_PREFERENCE` (end the turn, roll, decline an offer,
    cancel one's own), otherwise the first listed action; None if nothing is listed."""
    for kind in DEFAULT_PREFERENCE:
        for action in prompt.actions:
            if action.kind == kind:
                return action
    return prompt.actions[0] if prompt.actions else None


@dataclass(frozen=True)
class Answer:
    """What an answer line comes to: an ``action`` to send, ``wait`` (send nothing yet),
    ``ignore`` (not an answer: keep waiting, e.g. a blank line or one for an older
    prompt), or a ``problem`` code with a sentence, for which the default is played."""

    action: Any = None
    wait: bool = False
    ignore: bool = False
    problem: str | None = None
    message: str = ""


def _held(hand: Cards | None, cards: Cards) -> bool:
    if hand is None:
        return False
    return all(h >= c for h, c in zip(hand.counts(), cards.counts(), strict=True))


def _terms_problem(give: Cards, get: Cards) -> str | None:
    if not any(give.counts()) or not any(get.counts()):
        return "a trade gives and gets at least one card"
    if any(a and b for a, b in zip(give.counts(), get.counts(), strict=True)):
        return "the same resource cannot be on both sides of a trade"
    return None


def read_answer(line: str, prompt: m.Prompt, offers_this_turn: int = 0) -> Answer:
    """Judge one line a program wrote in answer to ``prompt``.

    Accepted: a listed action; a ``discard`` of several cards at once, up to what the seat
    owes; an ``offer_trade`` when the prompt lists ``end_turn`` (the
    seat's own turn, after the roll), the hand holds what it gives and fewer than
    :data:`MAX_OFFERS_PER_TURN` offers were made this turn; a ``counter_trade`` when the
    prompt lists ``decline_trade`` and the hand holds what it gives; ``null`` while the
    seat's own offer has answers pending. An action may carry the prompt's ``state_id``;
    one that names another state answers an older prompt and is ignored. (A line over
    :data:`MAX_LINE` bytes never gets here: the bridge plays the default for it.)"""
    text = line.strip()
    if not text:
        return Answer(ignore=True)
    try:
        data = json.loads(text)
    except (ValueError, RecursionError):
        return Answer(problem="not_json", message="the line is not JSON")
    if data is None:
        view = prompt.view
        if any(a.kind == "cancel_trade" for a in prompt.actions) and (
            view is not None and view.trade is not None and "pending" in view.trade.answers
        ):
            return Answer(wait=True)
        return Answer(
            problem="cannot_wait", message="null only waits while your offer awaits answers"
        )
    if not isinstance(data, dict):
        return Answer(problem="not_an_action", message="an action is a JSON object with a kind")
    if "state_id" in data:
        state_id = data.pop("state_id")
        if type(state_id) is not int:
            return Answer(problem="not_an_action", message="state_id is a number")
        if state_id != prompt.state_id:
            return Answer(ignore=True, message=f"an answer for state {state_id}")
    try:
        action = _ACTION.validate_python(data)
    except ValidationError as exc:
        return Answer(problem="not_an_action", message=_explain(data, exc))
    if action in prompt.actions:
        return Answer(action=action)
    kinds = {a.kind for a in prompt.actions}
    hand = prompt.view.hand if prompt.view is not None else None
    if isinstance(action, OfferTrade):
        problem = _terms_problem(action.give, action.get)
        if "end_turn" not in kinds:
            problem = "offers are made on your own turn, after the roll"
        elif offers_this_turn >= MAX_OFFERS_PER_TURN:
            problem = f"at most {MAX_OFFERS_PER_TURN} offers a turn"
        elif problem is None and not _held(hand, action.give):
            problem = "you do not hold the cards you offer"
        elif problem is None and action.to is not None:
            players = prompt.view.players if prompt.view is not None else 0
            others = set(range(players)) - {prompt.seat}
            if not action.to or len(set(action.to)) != len(action.to) or set(action.to) - others:
                problem = "an offer goes to one or more other seats of the game"
        if problem is None:
            return Answer(action=action)
        return Answer(problem="bad_offer", message=problem)
    if isinstance(action, Discard):
        owed = prompt.view.seats[prompt.seat].discards_owed if prompt.view is not None else 0
        total = sum(action.cards.counts())
        if "discard" not in kinds:
            problem = "there is nothing to discard now"
        elif total == 0 or total > owed:
            problem = f"a discard gives back 1 to {owed} cards"
        elif not _held(hand, action.cards):
            problem = "you do not hold those cards"
        else:
            return Answer(action=action)
        return Answer(problem="bad_discard", message=problem)
    if isinstance(action, CounterTrade):
        problem = _terms_problem(action.give, action.get)
        if "decline_trade" not in kinds:
            problem = "there is no offer for you to answer"
        elif problem is None and not _held(hand, action.give):
            problem = "you do not hold the cards you offer"
        if problem is None:
            return Answer(action=action)
        return Answer(problem="bad_counter", message=problem)
    return Answer(problem="not_listed", message=f"{action.kind} is not a listed action")


def _explain(data: dict[str, Any], exc: ValidationError) -> str:
    """One sentence on why ``data`` is not an action."""
    first = exc.errors(include_url=False)[0]
    if first["type"] == "union_tag_not_found":
        return "an action needs a 'kind'"
    if first["type"] == "union_tag_invalid":
        return f"{str(data.get('kind'))[:40]!r} is not an action kind (docs/protocol.md)"
    where = ".".join(str(p) for p in first["loc"][1:])  # the first step is the kind
    return f"{data.get('kind')} at {where or 'the top'}: {first['msg']}"


class ProgramAgent(Agent):
    """A seat played by a child process over JSON lines (see the module's docstring).

    :meth:`start` starts the program; :meth:`finish` tells it the game is over and waits
    for it to exit; :meth:`stop` makes sure it has. ``defaults`` counts the prompts the
    bridge answered for it."""

    def __init__(
        self,
        argv: Sequence[str],
        *,
        name: str = "agent",
        timeout: float = DEFAULT_TIMEOUT,
        log: Any = None,
    ) -> None:
        if not argv:
            raise BridgeError("no program to run: --cmd is empty")
        self.argv = list(argv)
        self.name = name
        self.timeout = timeout
        self.log = (
            log if log is not None else structlog.get_logger("hexhaven.bridge").bind(agent=name)
        )
        self.defaults = 0
        self.silent = 0
        self.lines_read = 0  # lines the program wrote in answer to prompts
        self.offers: dict[int, int] = {}  # offers passed on, by turn
        self.proc: subprocess.Popen[bytes] | None = None
        self.lines: queue.Queue[str | _LongLine | None] = queue.Queue()
        self.outbox: queue.Queue[str | None] = queue.Queue()
        self.exited = threading.Event()  # standard output closed: the program is gone
        self.stopped = False  # the bridge stopped it (silent too long)
        self.gone: str | None = None  # "exited" or "stopped", once a decision noticed it
        self._threads: list[threading.Thread] = []

    # --- the child process --------------------------------------------------------------
    def start(self) -> None:
        """Start the program. Raises :class:`BridgeError` if it cannot be started."""
        try:
            self.proc = subprocess.Popen(self.argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE)
        except OSError as exc:
            raise BridgeError(f"cannot start {self.argv[0]!r}: {exc.strerror or exc}") from exc
        self.log.info("bridge.started", argv=self.argv, pid=self.proc.pid)
        for target in (self._read, self._write):
            thread = threading.Thread(target=target, name=f"bridge-{target.__name__}", daemon=True)
            thread.start()
            self._threads.append(thread)

    def _read(self) -> None:
        assert self.proc is not None and self.proc.stdout is not None
        stdout = self.proc.stdout
        try:
            while raw := stdout.readline(MAX_LINE + 1):
                if len(raw) > MAX_LINE:
                    start = raw[: 4 * LOGGED_LINE].decode("utf-8", errors="replace")
                    size = len(raw)
                    while raw and not raw.endswith(b"\n"):  # skip to the end of that line
                        raw = stdout.readline(MAX_LINE + 1)
                        size += len(raw)
                    self.lines.put(_LongLine(start[:LOGGED_LINE], size))
                    continue
                self.lines.put(raw.decode("utf-8", errors="replace"))
        except (OSError, ValueError):
            pass
        finally:
            self.exited.set()
            self.lines.put(_EOF)

    def _write(self) -> None:
        assert self.proc is not None and self.proc.stdin is not None
        stdin = self.proc.stdin
        broken = False
        while (line := self.outbox.get()) is not None:
            if broken:
                continue
            try:
                stdin.write(line.encode() + b"\n")
                stdin.flush()
            except (OSError, ValueError):
                broken = True  # the program closed its input or exited; its reader says so
        with contextlib.suppress(OSError, ValueError):
            stdin.close()

    def _send(self, line: str) -> None:
        if not self.exited.is_set():
            self.outbox.put(line)

    def _end(self, reason: str) -> None:
        """Stop the program (silent too long)."""
        self.stopped = True
        self.log.warning("bridge.stopped", reason=reason, pid=self.proc.pid if self.proc else None)
        self._kill()

    def _kill(self) -> None:
        proc = self.proc
        if proc is None or proc.poll() is not None:
            return
        proc.terminate()
        try:
            proc.wait(2.0)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()

    def finish(self, over: m.GameOver | None) -> int | None:
        """Give the program the game-over line (if any), close its input and wait up to
        :data:`EXIT_GRACE` for it to exit (then stop it). Returns its exit code."""
        if over is not None:
            self._send(over.model_dump_json())
        self.outbox.put(None)  # the writer closes the program's input after what is queued
        self.lines.put(_EOF)  # wakes a decision still waiting for an answer
        proc = self.proc
        if proc is None:
            return None
        try:
            proc.wait(EXIT_GRACE)
        except subprocess.TimeoutExpired:
            self.log.warning("bridge.no_exit", grace=EXIT_GRACE, pid=proc.pid)
            self._kill()
        for thread in self._threads:
            thread.join(2.0)
        return proc.returncode

    def stop(self) -> None:
        """Make sure the program is gone (idempotent)."""
        self.outbox.put(None)
        self.lines.put(_EOF)
        self._kill()

    # --- the SDK's side -----------------------------------------------------------------
    def on_event(self, event: Any, table: Table) -> None:
        if isinstance(event, WireModel):
            payload = event.model_dump(mode="json")
            self._send(json.dumps({"type": "event", "game": table.game, "event": payload}))

    def on_error(self, error: m.Error, table: Table) -> None:
        self.log.info("bridge.refused", code=str(error.code), message=error.message)
        self._send(error.model_dump_json())

    def choose(self, prompt: m.Prompt, table: Table) -> Any:
        try:
            return self._choose(prompt)
        except Exception:  # the bridge's own failure must not cost the seat its turn
            self.log.exception("bridge.failed", state_id=prompt.state_id)
            return self._default(prompt, "bridge_failure", "the bridge failed on this prompt")

    def _choose(self, prompt: m.Prompt) -> Any:
        if self.exited.is_set() or self.stopped:
            return self._gone(prompt)
        while True:  # answers still queued belong to older prompts
            try:
                late = self.lines.get_nowait()
            except queue.Empty:
                break
            if late is _EOF:
                return self._gone(prompt)
            if isinstance(late, _LongLine) or late.strip():
                self.log.info("bridge.late_answer", state_id=prompt.state_id, line=_quote(late))
        self._send(prompt.model_dump_json())
        wait = self.timeout
        if prompt.deadline is not None:
            wait = min(wait, max(0.0, prompt.deadline - DEADLINE_MARGIN))
        end = time.monotonic() + wait
        while True:
            try:
                line = self.lines.get(timeout=max(0.0, end - time.monotonic()))
            except queue.Empty:
                self.silent += 1
                answer = self._default(prompt, "timeout", f"no answer within {wait:.1f} s")
                if self.silent >= MAX_SILENT:
                    self._end(f"{self.silent} prompts in a row without an answer")
                return answer
            if line is _EOF:
                return self._gone(prompt)
            self.lines_read += 1
            if isinstance(line, _LongLine):
                self.silent = 0
                message = f"the line is over {MAX_LINE} bytes ({line.size} bytes)"
                return self._default(prompt, "too_long", message, line=line)
            turn = prompt.view.turn if prompt.view is not None else -1
            answer = read_answer(line, prompt, self.offers.get(turn, 0))
            if answer.ignore:
                if answer.message:
                    self.log.info("bridge.late_answer", state_id=prompt.state_id, line=_quote(line))
                continue
            self.silent = 0
            if answer.problem is not None:
                return self._default(prompt, answer.problem, answer.message, line=line)
            if isinstance(answer.action, OfferTrade):
                self.offers[turn] = self.offers.get(turn, 0) + 1
            return None if answer.wait else answer.action

    def _gone(self, prompt: m.Prompt) -> Any:
        """The default for a program that has exited or been stopped; the first time, a
        log line saying so."""
        if self.gone is not None:
            return self._default(prompt, self.gone, f"the program has {self.gone}", quiet=True)
        self.gone = "stopped" if self.stopped else "exited"
        code = None
        if self.proc is not None:
            with contextlib.suppress(subprocess.TimeoutExpired):
                code = self.proc.wait(1.0)
        self.log.warning(
            "bridge.program_exited",
            state_id=prompt.state_id,
            returncode=code,
            detail="the seat is played with default actions from now on",
        )
        return self._default(prompt, self.gone, f"the program has {self.gone}")

    def _default(
        self,
        prompt: m.Prompt,
        reason: str,
        message: str,
        *,
        line: str | _LongLine = "",
        quiet: bool = False,
    ) -> Any:
        """The default action for ``prompt``, logged, and told to the program."""
        action = default_action(prompt)
        self.defaults += 1
        played = None if action is None else action.model_dump(mode="json")
        log = self.log.info if quiet else self.log.warning
        log(
            "bridge.default",
            state_id=prompt.state_id,
            reason=reason,
            detail=message,
            played=played,
            **({"line": _quote(line)} if line else {}),
        )
        self._send(
            json.dumps(
                {
                    "type": "default_played",
                    "state_id": prompt.state_id,
                    "reason": reason,
                    "message": message,
                    "action": played,
                }
            )
        )
        return action


async def run_bridge(
    url: str,
    argv: Sequence[str],
    *,
    game: str = "",
    token: str | None = None,
    invite: str | None = None,
    name: str = "agent",
    timeout: float = DEFAULT_TIMEOUT,
    reconnect: Reconnect | None = RECONNECT,
    on_seated: Callable[[Table], None] | None = None,
    tls: ssl.SSLContext | None = None,
) -> m.GameOver | None:
    """Start the program, seat it (rejoin ``game`` with ``token``, or join by ``invite`` or
    by ``game``; ``on_seated`` is told the table once the seat is taken, its token with it)
    and play to the end with :func:`clients.sdk.play`, which comes back after a
    lost connection as ``reconnect`` allows (``tls`` verifies a ``wss://`` server; None: the
    system's trust store). Returns the game-over message, or None if the
    connection could not be resumed (logged as ``bridge.disconnected``) or the server
    refused the seat (``bridge.not_seated``). Raises :class:`BridgeError` if the program
    cannot be started, or (after the game) if it ended before its first answer (a broken
    command, not a way of playing), and what :func:`clients.sdk.play` raises if the server
    cannot be reached at first."""
    log = structlog.get_logger("hexhaven.bridge").bind(agent=name)
    if game:
        log = log.bind(game=game)  # until the seat is taken: then game and seat
    agent = _SeatedAgent(argv, name=name, timeout=timeout, log=log)
    agent.told = on_seated
    agent.start()
    over: m.GameOver | None = None
    try:
        try:
            over = await play(
                agent, url, game or None, token=token, invite=invite, reconnect=reconnect, tls=tls
            )
        except ConnectionLost as exc:
            agent.log.warning("bridge.disconnected", error=str(exc))
        else:
            if over is not None:
                agent.log.info(
                    "bridge.over", winner=over.winner, points=over.points, defaults=agent.defaults
                )
            elif agent.refusal is not None:
                agent.log.error(
                    "bridge.not_seated",
                    code=str(agent.refusal.code),
                    message=agent.refusal.message,
                )
        code = await asyncio.to_thread(agent.finish, over)
        agent.log.info("bridge.program_done", returncode=code)
    finally:
        agent.stop()
    if over is not None and agent.gone == "exited" and not agent.lines_read:
        raise BridgeError(
            f"the program ({shlex.join(agent.argv)}, run in {os.getcwd()}) ended before it "
            "answered a single prompt; the seat was played with default actions"
        )
    return over


class _SeatedAgent(ProgramAgent):
    """A :class:`ProgramAgent` that remembers why the server refused it a seat, and whose
    log lines name its game and seat once it has one."""

    refusal: m.Error | None = None
    told: Callable[[Table], None] | None = None

    def on_error(self, error: m.Error, table: Table) -> None:
        super().on_error(error, table)
        if table.seat is None and is_no_seat(error):
            self.refusal = error

    def on_seated(self, table: Table) -> None:
        self.log = self.log.bind(game=table.game, seat=table.seat)
        if self.told is not None:
            self.told(table)
