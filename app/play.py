"""The commands that open the terminal UI: ``hexhaven play`` (an embedded server, a game
against bots, no set-up), ``hexhaven host`` (a game on a running server, friends invited by
code), ``hexhaven join``, ``hexhaven watch`` and ``hexhaven replay``."""

from __future__ import annotations

import asyncio
import ipaddress
import json
import shlex
import ssl
import sys
from collections.abc import Callable, Coroutine, Sequence
from pathlib import Path
from typing import Any, get_args

from pydantic import ValidationError
from websockets.exceptions import WebSocketException
from websockets.uri import parse_uri

from app.board_choice import board_fields
from app.collector import short_collections
from app.engine_build import engine_line
from app.log import logs_in_file
from app.tokens import STDIN, KeptSeat, TokenError, keep_seat, kept_seat, read_token, write_private
from bots.value.load import shipped
from clients.sdk import Agent, Table
from clients.tls import tls_problem
from clients.tui.app import HexhavenApp
from clients.tui.link import Link, Seating, SeatLost, fetch_record
from clients.urls import page_url
from protocol import messages as m
from storage import data_dir

SAVED = "last_game.json"
"""In the data directory: the game ``hexhaven play`` left unfinished and its seat token
(readable by its owner alone)."""
PLAY_LOG = "play.log"
"""In the data directory: the log of ``hexhaven play`` (its embedded server, the bot host
and its search workers), JSON lines appended game after game."""
DEFAULT_BOTS = {"expert": "expert", "uct": "quick"}
"""The bots ``play`` and ``host`` seat unless ``--bot-kind`` says otherwise, in order of
preference, with the strength each kind gets unless ``--strength`` says otherwise: the
strongest whose decisions stay under a second at the 95th percentile
(``benchmarks/expert_speed.py``, ``benchmarks/strength_speed.py``). The ``expert`` bot
where a network is shipped for the player count (four players), else ``uct`` at
``quick`` (``medium``'s search stopped at 0.8 s a decision)."""


def default_bot_kind(players: int) -> str:
    """The bot kind seated by default in a game of ``players`` (:data:`DEFAULT_BOTS`)."""
    return "expert" if shipped(players).is_file() else "uct"


def game_options(
    *,
    players: int,
    bots: int,
    bot_kind: str | None,
    strength: str | None,
    vp: int,
    board: str,
    timer: float | None,
    offer_window: float | None = None,
    private: bool = False,
    name: str = "",
    min_fairness: float | None = None,
    balance: Sequence[str] = (),
) -> m.GameOptions:
    """The options of a new game (``board`` as ``--board`` takes it:
    :func:`app.board_choice.board_fields`; no ``bot_kind``: :func:`default_bot_kind`, no
    ``strength``: the kind's in :data:`DEFAULT_BOTS`; a ``strength`` without ``bot_kind``:
    the kind that offers it); raises
    ValueError with a sentence for the person."""
    if not 2 <= players <= 4:
        raise ValueError(f"a game has 2 to 4 players, not {players} (--players, --bots)")
    if bots >= players:
        raise ValueError(f"{bots} bots leave no seat for you in a {players}-player game")
    if bot_kind is None:  # the kind that offers the strength asked for, else the default
        offering = [k for k, strengths in m.BOT_KINDS.items() if strength in strengths]
        bot_kind = offering[0] if offering else default_bot_kind(players)
    if bot_kind not in m.BOT_KINDS:
        raise ValueError(f"unknown bot kind {bot_kind!r}; choose from {', '.join(m.BOT_KINDS)}")
    if strength is not None and strength not in m.BOT_KINDS[bot_kind]:
        offered = ", ".join(m.BOT_KINDS[bot_kind])
        if offered:
            raise ValueError(f"--strength for {bot_kind} bots is one of {offered}, not {strength}")
        strong = [kind for kind, strengths in m.BOT_KINDS.items() if strength in strengths]
        raise ValueError(
            f"--strength is for {' and '.join(strong)} bots: add --bot-kind {strong[0]} "
            f"(the bots are {bot_kind} now, which have no strengths)"
        )
    if strength is None:
        strength = DEFAULT_BOTS.get(bot_kind)
    chosen = board_fields(board, min_fairness=min_fairness, balance=balance)
    try:
        return m.GameOptions(
            players=players,
            victory_points=vp,
            **chosen,
            turn_timer=timer,
            offer_window=m.OFFER_WINDOW if offer_window is None else offer_window,
            bots=[m.BotSeat(kind=bot_kind, strength=strength)] * bots,
            private=private,
            name=name,
        )
    except ValidationError as exc:
        raise ValueError(_option_problem(exc)) from exc


OPTIONS = {
    "victory_points": ("--vp", "the points to win"),
    "turn_timer": ("--timer", "the seconds per action"),
    "offer_window": ("--offer-window", "the seconds to answer an offer"),
    "min_fairness": ("--min-fairness", "the fairness the board reaches"),
}
"""Game options a person gives with a number: the option and what the number is."""


def _bounds(name: str) -> str:
    """The range of a game option, in words: ``3 to 20``, ``more than 0 and at most 3600``."""
    field = m.GameOptions.model_fields[name]
    rules = list(field.metadata)
    for arg in get_args(field.annotation):  # an optional number: its bounds are inside
        for extra in getattr(arg, "__metadata__", ()):
            rules.extend(getattr(extra, "metadata", ()))
    low = next((f"{r.ge}" for r in rules if hasattr(r, "ge")), None)
    above = next((f"more than {r.gt}" for r in rules if hasattr(r, "gt")), None)
    high = next((r.le for r in rules if hasattr(r, "le")), None)
    if low is not None and high is not None:
        return f"{low} to {high}"
    return " and ".join(x for x in (above or low, None if high is None else f"at most {high}") if x)


def _option_problem(exc: ValidationError) -> str:
    """A game option out of its range, as a sentence naming the option and its range."""
    first = exc.errors()[0]
    name = str(first["loc"][0]) if first["loc"] else ""
    if name in OPTIONS:
        flag, what = OPTIONS[name]
        value = first.get("input")
        shown = f"{value:g}" if isinstance(value, float) else str(value)
        return f"{flag} {shown}: {what} must be {_bounds(name)}"
    where = ".".join(str(x) for x in first["loc"])
    return f"those options are not playable: {where}: {first['msg']}"


async def run_app(link: Link, *, note: str = "", host: bool = False) -> HexhavenApp:
    """Open the link (the seat is taken before the UI draws), run the UI until it quits,
    then close the link."""
    await link.open()
    return await _run_ui(link, note=note, host=host)


async def _run_ui(
    link: Link, *, note: str = "", host: bool = False, back: str | None = None
) -> HexhavenApp:
    """Run the UI on an open link until it quits, then close the link. ``back`` is the
    command that comes back to the seat, for the help screen."""
    app = HexhavenApp(link, note=note, host=host, back=back)
    short_collections()
    try:
        await app.run_async()
    finally:
        await link.close()
    return app


def _keep_token(link: Link, given: str | None, code: str | None = None) -> Path | None:
    """The file that holds the token of the seat ``link`` took, for the way back to it:
    ``given`` (the file it was read from), or else a file of the data directory written
    now (:func:`app.tokens.keep_seat`: ``hexhaven join URL CODE`` finds it by ``code``,
    the game id when None). None for a link without a seat, or when the file cannot be
    written (said on stderr)."""
    token, game, seat = link.token, link.game, link.session.seat
    if token is None or game is None or seat is None:
        return None
    if given is not None and given != STDIN:
        return Path(given)
    try:
        return keep_seat(link.url, game, seat, token, code or game)
    except TokenError as exc:
        print(f"hexhaven: {exc}", file=sys.stderr)
        return None


def _run(main: Callable[[], Coroutine[Any, Any, int]], url: str) -> int:
    try:
        return asyncio.run(main())
    except SeatLost as exc:
        print(f"hexhaven: the server refused: {exc.error.message}", file=sys.stderr)
        return 2
    except (OSError, TimeoutError) as exc:
        print(f"hexhaven: cannot reach the server: {tls_problem(exc, url) or exc}", file=sys.stderr)
        return 2
    except WebSocketException as exc:  # a URL it cannot use, or not a Hexhaven server there
        print(f"hexhaven: cannot connect to {url}: {tls_problem(exc, url) or exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        return 130


def _saved(path: Path) -> dict[str, Any] | None:
    try:
        data: dict[str, Any] = json.loads(path.read_text())
    except (OSError, ValueError):
        return None
    return data if isinstance(data, dict) else None


class LocalSeat(Agent):
    """A seat ``hexhaven play --agent SPEC`` fills in its own process: plays as ``inner``
    does (the SDK asks it in a worker thread, and sends the first listed action where it
    fails), and keeps the seat's token for ``--resume``."""

    def __init__(self, spec: str, inner: Agent) -> None:
        self.spec = spec
        self.inner = inner
        self.name = inner.name
        self.token: str | None = None
        self.seated = asyncio.Event()

    def choose(self, prompt: m.Prompt, table: Table) -> Any:
        return self.inner.choose(prompt, table)

    def on_seated(self, table: Table) -> None:
        self.inner.on_seated(table)
        self.token = table.token
        self.seated.set()

    def on_event(self, event: Any, table: Table) -> None:
        self.inner.on_event(event, table)

    def on_error(self, error: m.Error, table: Table) -> None:
        self.inner.on_error(error, table)


def local_agents(specs: Sequence[str], seed: int | None = None) -> list[LocalSeat]:
    """The agents of ``--agent`` specs (``kind`` or ``kind:name=value,...``, as ``hexhaven
    arena`` takes them); ValueError naming a spec that does not make one."""
    from bots import make_agent, parse_spec

    seats = []
    for i, spec in enumerate(specs):
        try:
            kind, params = parse_spec(spec)
            agent = make_agent(kind, None if seed is None else seed + i, params)
        except ValueError as exc:
            raise ValueError(f"--agent {spec}: {exc}") from exc
        seats.append(LocalSeat(spec, agent))
    return seats


def play(
    *,
    options: m.GameOptions,
    name: str,
    resume: bool,
    db: Path | None = None,
    agents: Sequence[str] = (),
) -> int:
    """``hexhaven play``: an embedded server on 127.0.0.1 (a free port) with its games in
    the data directory, a game for the person, bots, and the ``agents`` (specs) played in
    this process, and the UI, which names the engine's build. Every log, the bot
    processes' too, goes to :data:`PLAY_LOG` in the data directory, not the terminal."""
    home = data_dir()
    with logs_in_file(home / PLAY_LOG):
        return _play(home, options=options, name=name, resume=resume, db=db, agents=agents)


def _play(
    home: Path,
    *,
    options: m.GameOptions,
    name: str,
    resume: bool,
    db: Path | None,
    agents: Sequence[str],
) -> int:
    import structlog

    from clients.sdk import play as play_seat
    from server.app import HexhavenServer
    from server.store import Store

    db = db or home / "games.db"
    saved_path = home / SAVED
    engine = engine_line()
    structlog.get_logger("hexhaven.play").info("play.started", engine=engine)
    store = Store(db)
    saved = _saved(saved_path) if resume else None
    if resume and saved is None:
        print("hexhaven: no saved game to resume; starting a new one", file=sys.stderr)
    keep = saved.get("game") if saved else None
    if keep is not None:
        stored = store.load(str(keep))
        if stored is None or stored.finished:
            print("hexhaven: the saved game is over; starting a new one", file=sys.stderr)
            keep = saved = None
    for old in list(store.unfinished()):
        if old.id != keep:
            store.abandon_game(old.id)  # the embedded server plays only the game at hand

    kept = [(str(a["spec"]), str(a["token"])) for a in saved.get("agents", [])] if saved else []
    try:
        seats = local_agents([spec for spec, _ in kept] if saved else agents)
    except ValueError as exc:
        print(f"hexhaven play: {exc}", file=sys.stderr)
        store.close()
        return 2

    async def main() -> int:
        server = HexhavenServer(store)
        async with server.running("127.0.0.1", 0):
            if saved is not None:
                seating = Seating("rejoin", game=str(saved["game"]), token=str(saved["token"]))
            else:
                seating = Seating("create", name=name, options=options, start_now=not seats)
            link = Link(server.url, seating)
            await link.open()
            assert link.game is not None
            tasks = [
                asyncio.create_task(
                    play_seat(seat, server.url, link.game, token=kept[i][1] if kept else None),
                    name=f"agent-{i}",
                )
                for i, seat in enumerate(seats)
            ]
            try:
                if seats:
                    async with asyncio.timeout(60):
                        await asyncio.gather(*(seat.seated.wait() for seat in seats))
                    if saved is None:
                        await link.send(m.StartGame(game=link.game))
                if link.token:  # kept from the start: a closed terminal loses nothing
                    held = [{"spec": seat.spec, "token": seat.token} for seat in seats]
                    kept_now = {"game": link.game, "token": link.token, "agents": held}
                    write_private(saved_path, json.dumps(kept_now))
                app = await _run_ui(link, note=engine, back="hexhaven play --resume")
            finally:
                for task in tasks:
                    task.cancel()
                await asyncio.gather(*tasks, return_exceptions=True)
            model = app.model
            if model.over is None and model.game and model.token:
                print("The game is saved: `hexhaven play --resume` goes on with it.")
            else:
                saved_path.unlink(missing_ok=True)
                if model.over is not None:
                    print(_result_line(app))
        return 0

    try:
        return _run(main, "the embedded server")
    finally:
        store.close()


def _result_line(app: HexhavenApp) -> str:
    over = app.model.over
    assert over is not None
    names = app.model.names()
    scores = ", ".join(f"{names[q]} {p}" for q, p in enumerate(over.points))
    winner = "nobody" if over.winner is None else names[over.winner]
    return f"Game {over.game}: {winner} won ({scores}); seed {over.seed}."


def host(
    *,
    url: str,
    options: m.GameOptions,
    name: str,
    tls: ssl.SSLContext | None = None,
    cafile: str | None = None,
) -> int:
    """``hexhaven host``: create a private game on a running server, print how friends
    join, and open the UI for the host's seat (the host starts the game with ``s``).
    ``tls`` verifies a ``wss://`` server (made from ``cafile``, if given: friends need
    that CA certificate too)."""

    async def main() -> int:
        link = Link(url, Seating("create", name=name, options=options), tls=tls)
        await link.open()
        created = link.created
        code = created.invite if created is not None and created.invite else str(link.game)
        kept = _keep_token(link, None, code)
        told = invite_lines(url, code, options, cafile, game=str(link.game))
        print(f"Game {link.game} created; invite code {code}.")
        print("Friends join with:\n" + "\n".join(told))
        note = f"Invite code {code}. Friends type:\n" + "\n".join(told)
        app = await _run_ui(link, note=note, host=True, back=_back_command(url, code, cafile))
        _farewell(app, url, kept, code=code, ours=True, cafile=cafile)
        return 0

    return _run(main, url)


def invite_lines(
    url: str, code: str, options: m.GameOptions, cafile: str | None = None, game: str = ""
) -> list[str]:
    """What ``hexhaven host`` tells the host: the command friends type (with ``--cafile``
    when the host trusts the server by a CA file: they need a copy of it), the link they
    open in a browser instead (its invite code, with the game's id when given: followed to
    the process that plays it, where several share one address); if ``url`` names this machine by a
    loopback address, that friends elsewhere need its network address; and how many
    seats, people and bots the game has, so when it can start."""
    trust = " --cafile CA_FILE" if cafile else ""
    lines = [f"  hexhaven join {url} {code} --name NAME{trust}"]
    if cafile:
        lines.append(
            f"  (CA_FILE: a copy of {shlex.quote(cafile)}, the CA certificate that signed "
            "the server's)"
        )
    link = f"invite={code}&game={game}" if game else f"invite={code}"
    lines.append(f"  or in a browser: {page_url(url, link)}")
    here = parse_uri(url)
    if _is_loopback(here.host):
        scheme = "wss" if here.secure else "ws"
        elsewhere = f"{scheme}://<this machine's address>:{here.port}{here.path}"
        lines.append(
            f"  ({here.host} is this machine itself: friends on other machines use its "
            f"network address instead, {elsewhere})"
        )
    lines.append(_seats_line(options.players, len(options.bots)))
    return lines


def _is_loopback(host: str) -> bool:
    name = host.lower().rstrip(".")
    if name == "localhost" or name.endswith(".localhost"):
        return True
    try:
        address = ipaddress.ip_address(name)
    except ValueError:
        return False  # a host name
    return address.is_loopback or address.is_unspecified


def _seats_line(players: int, bots: int) -> str:
    """When a hosted game can start: the server fills the seats still empty at the start
    with the game's bots, and refuses to start while more seats are empty than it has bots."""
    friends = players - bots - 1
    robots = "no bots" if bots == 0 else "1 bot" if bots == 1 else f"{bots} bots"
    head = f"{players} seats (--players), {robots} (--bots): "
    if friends == 0:
        wait = "press s to start when you like"
    else:
        wait = f"press s once {friends} friend{'s have' if friends > 1 else ' has'} joined"
    if bots == 0:
        return head + wait + "; every seat needs a person."
    return head + wait + "; the seats still empty then go to the bots."


def join(
    *,
    url: str,
    code: str,
    name: str,
    token_file: str | None,
    tls: ssl.SSLContext | None = None,
    cafile: str | None = None,
) -> int:
    """``hexhaven join``: take a seat by invite code (or game id), or come back to one with
    the token in ``token_file`` (``-``: asked for on the terminal) or, without one, with
    the token kept for that code on this machine (:func:`app.tokens.kept_seat`: the same
    command comes back to a seat after a quit or a closed terminal). The token of a seat
    taken is kept in a file of the data directory, which the farewell names. ``tls``
    verifies a ``wss://`` server (made from ``cafile``, if given, which the farewell's
    command names again)."""
    kept: KeptSeat | None = None
    if token_file is not None:
        try:
            token = read_token(token_file)
        except TokenError as exc:
            print(f"hexhaven join: {exc}", file=sys.stderr)
            return 2
        seating = Seating("rejoin", game=code, token=token)
    else:
        kept = kept_seat(url, code)
        seating = Seating("join", name=name, invite=code)

    async def main() -> int:
        try:
            link = await open_seat(url, seating, kept, tls=tls)
        except SeatLost as exc:
            return _no_game(exc, url, code)
        file = _keep_token(link, token_file, code)
        back = _back_command(url, code, cafile)
        if token_file not in (None, STDIN):  # their own file: the way back reads it again
            back += f" --token-file {shlex.quote(str(token_file))}"
        app = await _run_ui(link, back=back)
        _farewell(app, url, file, code=code, ours=token_file in (None, STDIN), cafile=cafile)
        return 0

    return _run(main, url)


async def open_seat(
    url: str,
    seating: Seating,
    kept: KeptSeat | None = None,
    tls: ssl.SSLContext | None = None,
) -> Link:
    """An open link to the server at ``url``, seated as ``seating`` says, or, with a seat
    ``kept`` on this machine for that game, back in that seat (a kept seat the server no
    longer knows is forgotten, said on stderr, and ``seating`` tried instead). Raises
    :class:`SeatLost` when the server refuses the seat."""
    if kept is not None:
        link = Link(url, Seating("rejoin", game=kept.game, token=kept.token), tls=tls)
        try:
            await link.open()
        except SeatLost as exc:
            await link.close()
            kept.path.unlink(missing_ok=True)
            print(
                f"hexhaven: the seat kept in {kept.path} is no longer yours "
                f"({exc.error.message}); joining as a newcomer",
                file=sys.stderr,
            )
        else:
            print(f"Back in your seat of game {kept.game}.")
            return link
    link = Link(url, seating, tls=tls)
    await link.open()
    return link


def _back_command(url: str, code: str, cafile: str | None = None) -> str:
    """The command that comes back to a seat taken by ``code`` on the server at ``url``
    (trusted by ``cafile``, if given)."""
    trust = f" --cafile {shlex.quote(cafile)}" if cafile else ""
    return f"hexhaven join {shlex.quote(url)} {shlex.quote(code)}{trust}"


def watch(*, url: str, game: str, tls: ssl.SSLContext | None = None) -> int:
    """``hexhaven watch``: follow a game as a spectator (from its start: the log tells
    what happened before); ``tls`` verifies a ``wss://`` server."""

    async def main() -> int:
        try:
            await run_app(Link(url, Seating("watch", game=game), tls=tls))
        except SeatLost as exc:
            return _no_game(exc, url, game)
        return 0

    return _run(main, url)


def _no_game(exc: SeatLost, url: str, game: str) -> int:
    """A refusal for want of the game, said as the server says it (exit 2); a game over
    and closed comes with the command that replays it. Other refusals are raised again,
    for :func:`_run` to report."""
    if exc.error.code != m.ErrorCode.UNKNOWN_GAME:
        raise exc
    print(f"hexhaven: {exc.error.message}", file=sys.stderr)
    if exc.error.detail == "over":
        print(f"It replays with: hexhaven replay {url} {game}", file=sys.stderr)
    return 2


def _farewell(
    app: HexhavenApp,
    url: str,
    kept: Path | None,
    *,
    code: str,
    ours: bool,
    cafile: str | None = None,
) -> None:
    """The result of a game over (and the file that kept the seat's token, if ``ours``,
    removed), or the command that comes back to the seat: ``hexhaven join URL CODE`` on
    this machine (``ours``: the token is kept where that finds it), and from elsewhere
    with the file ``kept`` that holds the token (with ``cafile``, if the server was trusted
    by it)."""
    model = app.model
    if model.over is not None:
        print(_result_line(app))
        if kept is not None and ours:
            kept.unlink(missing_ok=True)
    elif model.game and model.token:
        trust = f"--cafile {shlex.quote(cafile)} " if cafile else ""
        back = f"hexhaven join {shlex.quote(url)} {shlex.quote(model.game)} {trust}--token-file"
        if kept is not None and ours:
            print(f"Your seat is kept. Back with:\n  {_back_command(url, code, cafile)}")
            print(f"(from another machine, with a copy of its token file:\n  {back} FILE)")
            print(f"The token is in {kept}.")
        elif kept is not None:
            print(f"Your seat is kept. Back with:\n  {back} {shlex.quote(str(kept))}")
        else:
            print(
                f"Your seat is kept; its token is {model.token} (keep it secret). Back with:\n"
                f"  {back} FILE  (FILE holding the token, or - to type it)"
            )


def default_db() -> Path:
    """The store ``hexhaven play`` keeps its games in."""
    return data_dir() / "games.db"


def _local_record(db: Path, game: str | None, *, named: bool) -> m.GameRecord | int:
    """The record of ``game`` in the store at ``db`` (``named``: given with ``--db``), or
    (``game`` None) the list of its finished games printed; an int is the exit code."""
    import datetime

    from app.commands.common import open_store
    from server.store import game_record, is_played_out

    if not named and not db.exists():
        if game is None:  # nothing played here yet: an empty list, as for an empty store
            print(f"Finished games in {db}:")
            print(replay_listing([]))
            return 0
        print(
            f"hexhaven replay: no games yet in {db}, where `hexhaven play` keeps them; "
            "a server's are in its --db file (hexhaven.db where it was started)",
            file=sys.stderr,
        )
        return 2
    store = open_store("replay", db, must_exist=True)
    if store is None:
        return 2
    try:
        if game is None:
            rows = []
            for gid, ended, winner, points in store.played_out():
                stored = store.load(gid)
                names = {q: name for q, (_, name, _) in (stored.seats if stored else {}).items()}
                who = "nobody" if winner is None else names.get(winner, f"seat {winner}")
                scores = ", ".join(f"{names.get(q, q)} {p}" for q, p in enumerate(points))
                when = datetime.datetime.fromtimestamp(ended).strftime("%Y-%m-%d %H:%M")
                count = len(stored.actions) if stored else 0
                rows.append((gid, when, f"{who} won ({scores}); {count} actions"))
            print(f"Finished games in {db}:")
            print(replay_listing(rows))
            if rows:
                where = f" --db {shlex.quote(str(db))}" if named else ""
                print(f"Replay one with: hexhaven replay {shlex.quote(rows[0][0])}{where}")
            return 0
        stored = store.load(game)
        if stored is None:
            print(f"hexhaven replay: no game {game!r} in {db}", file=sys.stderr)
            return 2
        if not is_played_out(stored):
            print(
                f"hexhaven replay: game {game!r} was not played to its end; "
                "only finished games replay",
                file=sys.stderr,
            )
            return 2
        return game_record(stored)
    finally:
        store.close()


def replay_listing(rows: list[tuple[str, str, str]]) -> str:
    """The finished games as lines: id, when it ended, and the result."""
    if not rows:
        return (
            "  none yet: games played to the end show here (from `hexhaven play`, or from a "
            "server that uses this --db; a server's own: --db hexhaven.db where it runs)."
        )
    width = max(len(r[0]) for r in rows)
    return "\n".join(f"  {gid:<{width}}  {when}  {result}" for gid, when, result in rows)


def replay(
    *,
    game: str | None,
    url: str | None,
    db: Path | None,
    seat: int | None,
    tls: ssl.SSLContext | None = None,
) -> int:
    """``hexhaven replay``: step through a finished game from the local store (or list
    its finished games), or from a server (``tls`` verifies a ``wss://`` one)."""
    from clients.tui.replay import ReplayApp, ReplayError, ReplayGame

    if url is not None:
        if game is None:
            print("hexhaven replay: give the game id after the server's URL", file=sys.stderr)
            return 2
        try:
            record = asyncio.run(fetch_record(url, game, tls=tls))
        except SeatLost as exc:
            print(f"hexhaven replay: the server refused: {exc.error.message}", file=sys.stderr)
            return 2
        except (OSError, TimeoutError) as exc:
            why = tls_problem(exc, url) or str(exc)
            print(f"hexhaven replay: cannot reach the server: {why}", file=sys.stderr)
            return 2
        except WebSocketException as exc:  # a URL it cannot use, or not a Hexhaven server
            why = tls_problem(exc, url) or str(exc)
            print(f"hexhaven replay: cannot connect to {url}: {why}", file=sys.stderr)
            return 2
    else:
        found = _local_record(db or default_db(), game, named=db is not None)
        if isinstance(found, int):
            return found
        record = found
    try:
        replayed = ReplayGame(record, seat)
    except ReplayError as exc:
        print(f"hexhaven replay: {exc}", file=sys.stderr)
        return 2
    ReplayApp(replayed).run()
    return 0
