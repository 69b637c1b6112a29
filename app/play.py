"""The commands that open the terminal UI: ``hexhaven play`` (an embedded server, a game
against bots, no set-up), ``hexhaven host`` (a game on a running server, friends invited by
code), ``hexhaven join``, ``hexhaven watch`` and ``hexhaven replay``."""

from __future__ import annotations

import asyncio
import ipaddress
import json
import shlex
import sys
from collections.abc import Callable, Coroutine, Sequence
from pathlib import Path
from typing import Any

from pydantic import ValidationError
from websockets.exceptions import WebSocketException
from websockets.uri import parse_uri

from app.board_choice import board_fields
from app.log import configure_logging
from app.tokens import STDIN, TokenError, read_token, save_token, seat_file, write_private
from clients.tui.app import HexhavenApp
from clients.tui.link import Link, Seating, SeatLost, fetch_record
from clients.urls import page_url
from protocol import messages as m
from storage import data_dir

SAVED = "last_game.json"
"""In the data directory: the game ``hexhaven play`` left unfinished and its seat token
(readable by its owner alone)."""


def log_to_file(path: Path, level: str = "info") -> None:
    """Send structlog's events (the embedded server's) to a file, not the terminal the UI
    draws on."""
    configure_logging(level, path.open("a", encoding="utf-8"))


def game_options(
    *,
    players: int,
    bots: int,
    bot_kind: str,
    strength: str | None,
    vp: int,
    board: str,
    timer: float | None,
    private: bool = False,
    name: str = "",
    min_fairness: float | None = None,
    balance: Sequence[str] = (),
) -> m.GameOptions:
    """The options of a new game (``board`` as ``--board`` takes it:
    :func:`app.board_choice.board_fields`); raises ValueError with a sentence for the
    person."""
    if not 2 <= players <= 4:
        raise ValueError(f"a game has 2 to 4 players, not {players} (--players, --bots)")
    if bots >= players:
        raise ValueError(f"{bots} bots leave no seat for you in a {players}-player game")
    if bot_kind not in m.BOT_KINDS:
        raise ValueError(f"unknown bot kind {bot_kind!r}; choose from {', '.join(m.BOT_KINDS)}")
    if strength is not None and strength not in m.BOT_KINDS[bot_kind]:
        offered = ", ".join(m.BOT_KINDS[bot_kind]) or "none"
        raise ValueError(f"bot kind {bot_kind!r} has no strength {strength!r} (offered: {offered})")
    chosen = board_fields(board, min_fairness=min_fairness, balance=balance)
    try:
        return m.GameOptions(
            players=players,
            victory_points=vp,
            **chosen,
            turn_timer=timer,
            bots=[m.BotSeat(kind=bot_kind, strength=strength)] * bots,
            private=private,
            name=name,
        )
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(x) for x in first["loc"])
        raise ValueError(f"those options are not playable: {where}: {first['msg']}") from exc


async def run_app(link: Link, *, note: str = "", host: bool = False) -> HexhavenApp:
    """Open the link (the seat is taken before the UI draws), run the UI until it quits,
    then close the link."""
    await link.open()
    return await _run_ui(link, note=note, host=host)


async def _run_ui(link: Link, *, note: str = "", host: bool = False) -> HexhavenApp:
    """Run the UI on an open link until it quits, then close the link."""
    app = HexhavenApp(link, note=note, host=host)
    try:
        await app.run_async()
    finally:
        await link.close()
    return app


def _keep_token(link: Link, given: str | None) -> Path | None:
    """The file that holds the token of the seat ``link`` took, for the way back to it:
    ``given`` (the file it was read from), or else a file of the data directory
    (:func:`app.tokens.seat_file`) written now. None for a link without a seat, or when
    the file cannot be written (said on stderr)."""
    token, game, seat = link.token, link.game, link.session.seat
    if token is None or game is None or seat is None:
        return None
    if given is not None and given != STDIN:
        return Path(given)
    path = seat_file(game, seat)
    try:
        save_token(path, token)
    except TokenError as exc:
        print(f"hexhaven: {exc}", file=sys.stderr)
        return None
    return path


def _run(main: Callable[[], Coroutine[Any, Any, int]], url: str) -> int:
    try:
        return asyncio.run(main())
    except SeatLost as exc:
        print(f"hexhaven: the server refused: {exc.error.message}", file=sys.stderr)
        return 2
    except (OSError, TimeoutError) as exc:
        print(f"hexhaven: cannot reach the server: {exc}", file=sys.stderr)
        return 2
    except WebSocketException as exc:  # a URL it cannot use, or not a Hexhaven server there
        print(f"hexhaven: cannot connect to {url}: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        return 130


def _saved(path: Path) -> dict[str, Any] | None:
    try:
        data: dict[str, Any] = json.loads(path.read_text())
    except (OSError, ValueError):
        return None
    return data if isinstance(data, dict) else None


def play(*, options: m.GameOptions, name: str, resume: bool, db: Path | None = None) -> int:
    """``hexhaven play``: an embedded server on 127.0.0.1 (a free port) with its games in
    the data directory, a game for the person and bots, and the UI."""
    from server.app import HexhavenServer
    from server.store import Store

    home = data_dir()
    db = db or home / "games.db"
    saved_path = home / SAVED
    log_to_file(home / "play.log")
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

    async def main() -> int:
        server = HexhavenServer(store)
        async with server.running("127.0.0.1", 0):
            if saved is not None:
                seating = Seating("rejoin", game=str(saved["game"]), token=str(saved["token"]))
            else:
                seating = Seating("create", name=name, options=options, start_now=True)
            link = Link(server.url, seating)
            app = await run_app(link)
            model = app.model
            if model.over is None and model.game and model.token:
                write_private(saved_path, json.dumps({"game": model.game, "token": model.token}))
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


def host(*, url: str, options: m.GameOptions, name: str) -> int:
    """``hexhaven host``: create a private game on a running server, print how friends
    join, and open the UI for the host's seat (the host starts the game with ``s``)."""

    async def main() -> int:
        link = Link(url, Seating("create", name=name, options=options))
        await link.open()
        kept = _keep_token(link, None)
        created = link.created
        code = created.invite if created is not None and created.invite else str(link.game)
        told = invite_lines(url, code, options, game=str(link.game))
        print(f"Game {link.game} created; invite code {code}.")
        print("Friends join with:\n" + "\n".join(told))
        note = f"Invite code {code}. Friends type:\n" + "\n".join(told)
        app = await _run_ui(link, note=note, host=True)
        _farewell(app, url, kept, ours=True)
        return 0

    return _run(main, url)


def invite_lines(url: str, code: str, options: m.GameOptions, game: str = "") -> list[str]:
    """What ``hexhaven host`` tells the host: the command friends type, the link they open
    in a browser instead (by the game's id when given: followed to the process that plays
    it, where several share one address); if ``url`` names
    this machine by a loopback address, that friends elsewhere need its network address;
    and how many seats, people and bots the game has, so when it can start."""
    lines = [
        f"  hexhaven join {url} {code} --name NAME",
        f"  or in a browser: {page_url(url, f'join={game}' if game else f'invite={code}')}",
    ]
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


def join(*, url: str, code: str, name: str, token_file: str | None) -> int:
    """``hexhaven join``: take a seat by invite code (or game id), or come back to one with
    the token in ``token_file`` (``-``: asked for on the terminal). The token of a seat
    taken is kept in a file of the data directory, which the farewell names."""
    if token_file is not None:
        try:
            token = read_token(token_file)
        except TokenError as exc:
            print(f"hexhaven join: {exc}", file=sys.stderr)
            return 2
        seating = Seating("rejoin", game=code, token=token)
    else:
        seating = Seating("join", name=name, invite=code)

    async def main() -> int:
        link = Link(url, seating)
        try:
            await link.open()
        except SeatLost as exc:
            return _no_game(exc, url, code)
        kept = _keep_token(link, token_file)
        app = await _run_ui(link)
        _farewell(app, url, kept, ours=token_file is None or token_file == STDIN)
        return 0

    return _run(main, url)


def watch(*, url: str, game: str) -> int:
    """``hexhaven watch``: follow a game as a spectator (from its start: the log tells
    what happened before)."""

    async def main() -> int:
        try:
            await run_app(Link(url, Seating("watch", game=game)))
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


def _farewell(app: HexhavenApp, url: str, kept: Path | None, *, ours: bool) -> None:
    """The result of a game over (and the file that kept the seat's token, if ``ours``,
    removed), or the command that comes back to the seat, naming the file ``kept`` that
    holds its token."""
    model = app.model
    if model.over is not None:
        print(_result_line(app))
        if kept is not None and ours:
            kept.unlink(missing_ok=True)
    elif model.game and model.token:
        back = f"hexhaven join {shlex.quote(url)} {shlex.quote(model.game)} --token-file"
        if kept is not None:
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


def replay(*, game: str | None, url: str | None, db: Path | None, seat: int | None) -> int:
    """``hexhaven replay``: step through a finished game from the local store (or list
    its finished games), or from a server."""
    from clients.tui.replay import ReplayApp, ReplayError, ReplayGame

    if url is not None:
        if game is None:
            print("hexhaven replay: give the game id after the server's URL", file=sys.stderr)
            return 2
        try:
            record = asyncio.run(fetch_record(url, game))
        except SeatLost as exc:
            print(f"hexhaven replay: the server refused: {exc.error.message}", file=sys.stderr)
            return 2
        except (OSError, TimeoutError) as exc:
            print(f"hexhaven replay: cannot reach the server: {exc}", file=sys.stderr)
            return 2
        except WebSocketException as exc:  # a URL it cannot use, or not a Hexhaven server
            print(f"hexhaven replay: cannot connect to {url}: {exc}", file=sys.stderr)
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
