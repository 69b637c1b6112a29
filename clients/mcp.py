"""Hexhaven as a Model Context Protocol server: one seat for a language-model agent.

``hexhaven mcp --url URL --invite CODE`` runs an MCP server on standard input and output
(the official ``mcp`` SDK) that holds one seat of a game through the protocol's client
session, like any other client: it sees only its seat's view. The model reads the
position in sentences (places named as the terminal client names them), lists the legal
actions with short ids, acts by id, makes and answers domestic offers (checked before they
are sent), chats, and waits for its turn. The turn timer and away seats apply as to
anyone: a model that stalls gets the server's default action, and the next answer says so.
A lost connection is resumed with the seat's token, by the clients' one reconnect loop
(:class:`clients.reconnect.Connections`, with a :class:`clients.reconnect.Reconnect` policy).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import ssl
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Final

import structlog
from mcp.server.fastmcp import FastMCP
from mcp.server.fastmcp.exceptions import ToolError
from pydantic import ValidationError
from websockets.asyncio.client import ClientConnection
from websockets.exceptions import ConnectionClosed, WebSocketException

from clients.bridge import read_answer
from clients.game import GameModel, LiveView, dev_names
from clients.narrate import PlaceNames, cards_text, harbour_label, plural
from clients.reconnect import RECONNECT, ConnectionLost, Connections, Reconnect
from engine.constants import CITY_COST, DEV_CARD_COST, ROAD_COST, SETTLEMENT_COST
from protocol import SUBPROTOCOL_MSGPACK, ProtocolError
from protocol import messages as m
from protocol.client_session import ClientSession, Goal, WatchGame
from protocol.payloads import RESOURCE_NAMES, Cards, WireModel

RECENT_EVENTS: Final = 12
"""Lines of the game's log the position ends with."""
WAIT_LIMIT: Final = 600.0
"""The longest ``wait_for_turn`` waits, in seconds."""
DEADLINE_SLACK: Final = 0.25
"""Seconds past a prompt's deadline after which a move of the game counts as the server's
default action for this seat."""
DOCS = Path(__file__).resolve().parents[1] / "docs"


RULES: Final = f"""Hexhaven rules in brief (the base game of the hex-island trading game).

Goal: be first to the game's victory points (the position says how many) on your turn.
Points: settlement 1, city 2, longest road (5 or more roads in a row) 2, largest army
(3 or more knights played) 2, victory point card 1 (kept hidden until the end).

Set-up: each player places a settlement and a road, then in reverse order a second
settlement and road; the second settlement gives one card of each hex beside it.

A turn: roll the dice (or play a knight first). Every hex showing the number rolled gives
its resource to the settlements (1) and cities (2) at its corners, unless the robber sits
on it. On a 7 nobody produces: whoever holds more than 7 cards gives back half (rounded
down), then the roller moves the robber to another hex and robs one player beside it.
Then build, buy and trade in any order, and end the turn.

Costs: road {cards_text(ROAD_COST)}; settlement {cards_text(SETTLEMENT_COST)};
city (on your settlement) {cards_text(CITY_COST)}; development card
{cards_text(DEV_CARD_COST)}.
A settlement needs a road of yours leading to it and no settlement on a neighbouring
intersection. Roads join your roads, settlements or cities.

Trading: with the bank 4 of one resource for 1 of another (3:1 at a generic harbour, 2:1
at a harbour of that resource, if you have a settlement or city on it); with players by
domestic offers on your turn after the roll: they accept, decline or counter, and you
confirm with one of them or cancel.

Development cards: knight (move the robber and rob), road building (two free roads), year
of plenty (two cards from the bank), monopoly (every card of one resource from everyone),
victory point. One may be played a turn, not the turn it was bought (victory points aside).

With a turn timer, a seat that does not act in time gets a default action; after several
in a row it is marked away and the server plays it until it acts again.

Using this server: call wait_for_turn, then legal_actions and act(id); position tells the
whole table as your seat sees it. Offers: offer_trade, counter_offer, and for the answers
and the rest act on the listed ids (accept, decline, confirm with a partner, cancel)."""


@dataclass
class _Listed:
    """The actions last listed: the prompt's state and each id's action."""

    state_id: int
    ids: dict[str, Any] = field(default_factory=dict)


class Seat:
    """One seat (or a watch) held on a Hexhaven server through the protocol's client
    session, with everything the server told it folded into a :class:`GameModel`.

    :meth:`run` keeps the connection (coming back with the seat's token after a loss,
    following ``moved``); the tools read the model and send through :meth:`send`."""

    def __init__(
        self,
        url: str,
        goal: Goal,
        *,
        name: str = "model",
        tls: ssl.SSLContext | None = None,
        reconnect: Reconnect | None = RECONNECT,
        on_seated: Callable[[str, int, str], None] | None = None,
    ) -> None:
        self.url = url
        self.on_seated = on_seated
        """Told the game, the seat and its token once a seat is taken (to keep the token)."""
        self.tls = tls
        self.reconnect = reconnect
        self.watching = isinstance(goal, WatchGame)
        self.client = ClientSession(
            goal,
            client=f"hexhaven-mcp {name}",
            subprotocol=SUBPROTOCOL_MSGPACK,
            views=True,  # the bridge checks an answer against the prompt's own view
            event_views=True,
        )
        self.model = GameModel()
        self.log = structlog.get_logger("hexhaven.mcp").bind(agent=name)
        self.changed = asyncio.Condition()
        self.ws: ClientConnection | None = None
        self.failure: str | None = None
        """Why the seat was lost for good, once it was."""
        self.notices: list[str] = []
        """Sentences for the model's next answer (a default played for it, a refusal)."""
        self.told = 0
        """How many of the model's log lines the model has been given."""
        self.listed: _Listed | None = None
        self.answered: int | None = None
        """The state id of the prompt this seat last acted on."""
        self.prompt_at = 0.0
        self.offers: dict[int, int] = {}

    # --- the connection -------------------------------------------------------------------
    async def run(self) -> None:
        """Take the place and keep it until the game is over or it cannot be had; then
        :attr:`failure` says why, if it was lost. Never raises but ``CancelledError``: a
        failure of its own is logged and ends the seat, while the tools go on answering."""
        try:
            await self._run()
        except Exception as exc:
            self.log.exception("mcp.failed")
            await self._fail(f"the seat's connection failed ({type(exc).__name__}: {exc})")

    async def _run(self) -> None:
        client = self.client
        connections = Connections(
            self.url,
            client,
            policy=self.reconnect,
            tls=self.tls,
            retry_first=client.token is not None,  # a seat to come back to from the start
            needs_seat=not self.watching,
            log=lambda: self.log,
            events="mcp",
        )
        try:
            async for ws in connections:
                self.ws = ws
                try:
                    await self._session(ws)
                finally:
                    self.ws = None
                if self.model.over is not None:
                    return
            refusal = client.refusal  # the loop ends on a refusal before any loss
            await self._fail(f"the server refused the seat: {refusal.message if refusal else ''}")
        except ConnectionLost as lost:
            if lost.refusal is not None:
                await self._fail(f"the server refused the seat: {lost.refusal.message}")
            elif not lost.seated:
                await self._fail(f"lost the connection to {connections.url} before taking a seat")
            else:
                await self._fail(
                    f"lost the connection to {connections.entry} and could not come back"
                )
        except (OSError, WebSocketException, TimeoutError) as exc:
            await self._fail(f"cannot reach {connections.url}: {exc}")
        finally:
            await connections.aclose()

    async def _session(self, ws: ClientConnection) -> None:
        """Take the place on a fresh connection and follow the game on it until the game
        is over, the place is refused or the connection closes."""
        self.answered = None  # an act the last connection took along is asked for again
        for frame in self.client.connect(ws.subprotocol):
            await ws.send(frame)
        with contextlib.suppress(ConnectionClosed):
            async for frame in ws:
                try:
                    received = self.client.receive(frame)
                except ProtocolError as exc:
                    self.log.warning("mcp.bad_frame", error=str(exc))
                    break
                for out in received.send:
                    await ws.send(out)
                message = received.message
                if message is not None:
                    await self._fold(message)
                if isinstance(message, m.Joined):
                    self._seated(message)
                if self.client.is_refused or self.model.over is not None:
                    break

    def _seated(self, joined: m.Joined) -> None:
        token = self.client.token
        if joined.seat is None or token is None or self.on_seated is None:
            return
        try:
            self.on_seated(joined.game, joined.seat, token)
        except Exception:
            self.log.exception("mcp.on_seated_failed")

    async def _fold(self, message: Any) -> None:
        """Fold one server message into the model, noting a default the server played."""
        model = self.model
        prompt = model.prompt
        if isinstance(message, m.Events) and prompt is not None:
            self._note_default(prompt, message.state_id)
        if isinstance(message, m.Joined) and message.seat is not None:
            self.log = self.log.bind(game=message.game, seat=message.seat)
            self.log.info("mcp.seated")
        if isinstance(message, m.Players) and model.seat is not None:
            me = next((p for p in message.players if p.seat == model.seat), None)
            was = model.player(model.seat)
            if me is not None and me.away and not (was is not None and was.away):
                self.notices.append(
                    "The server marked your seat away after turns you let run out; it plays "
                    "your seat until you act again."
                )
        if isinstance(message, m.Error) and model.seat is not None:
            self.notices.append(f"The server refused what you sent: {message.message}")
            self.answered = None  # the prompt still waits for an answer
        model.handle(message)
        if isinstance(message, m.Prompt) and message.seat == model.seat:
            self.prompt_at = time.monotonic()
        async with self.changed:
            self.changed.notify_all()

    def _note_default(self, prompt: m.Prompt, state_id: int) -> None:
        if state_id <= prompt.state_id or self.answered == prompt.state_id:
            return
        if prompt.deadline is None:
            return
        if time.monotonic() - self.prompt_at >= prompt.deadline - DEADLINE_SLACK:
            self.notices.append(
                "Your time to act ran out, so the server played the default action for you "
                f"(at state {prompt.state_id}); answer sooner to play your own."
            )

    async def _fail(self, why: str) -> None:
        self.failure = why
        self.log.warning("mcp.seat_lost", reason=why)
        async with self.changed:
            self.changed.notify_all()

    async def send(self, message: WireModel) -> None:
        """Send a message of the seat's own. Raises :class:`ToolError` when there is no
        connection right now."""
        ws = self.ws
        if ws is None or not self.client.is_seated:
            raise ToolError(
                "The seat is not connected right now; call wait_for_turn and try again."
            )
        try:
            await ws.send(self.client.encode(message))
        except ConnectionClosed as exc:
            raise ToolError("The connection was lost; call wait_for_turn, then try again.") from exc

    # --- what the tools say ----------------------------------------------------------------
    def news(self) -> list[str]:
        """The notices and log lines the model has not been given, once each."""
        lines = [*self.notices]
        self.notices.clear()
        log = self.model.log
        lines.extend(line.text for line in log[self.told :])
        self.told = len(log)
        return lines

    def my_prompt(self) -> m.Prompt | None:
        """The prompt this seat owes an answer to (None: nothing to do now)."""
        prompt = self.model.prompt
        if prompt is None or self.model.over is not None or self.answered == prompt.state_id:
            return None
        return prompt if self.client.is_seated else None

    def status(self) -> str:
        """One sentence: whose move it is and what this seat should do next."""
        model = self.model
        if self.failure is not None:
            return f"The seat is lost: {self.failure}."
        if model.over is not None:
            over = model.over
            names = model.names()
            winner = "nobody" if over.winner is None else names[over.winner]
            if over.winner is not None and over.winner == model.seat:
                winner = "you"
            points = ", ".join(f"{names[q]} {p}" for q, p in enumerate(over.points))
            return f"The game is over: {winner} won ({points})."
        if self.watching:
            return "You are watching this game; you have no seat to act for."
        if not self.client.is_seated and model.seat is not None:
            return "The connection to the server was lost; coming back. Call wait_for_turn."
        if model.view is None:
            return "Waiting for the game to start."
        prompt = self.my_prompt()
        if prompt is not None:
            left = model.deadline_left()
            clock = f" You have {left:.0f} seconds." if left is not None else ""
            return f"It is your move: call legal_actions, then act.{clock}"
        waiting = ", ".join(model.name(q) for q in model.view.to_act) or "nobody"
        return f"Not your move: waiting for {waiting}. Call wait_for_turn."

    def position(self) -> str:
        """The game as this seat sees it, in sentences."""
        model, v = self.model, self.model.view
        if v is None:
            return self.status()
        places = PlaceNames(v.radius, v.terrain, v.tokens, v.harbours, v.harbour_layout)
        names = model.names()

        def who(q: int) -> str:
            return "You" if q == model.seat else names[q]

        lines = [
            f"Game {model.game}, state {v.state_id}, turn {v.turn}, "
            f"phase {v.phase.replace('_', ' ')}. First to {v.victory_points} points wins.",
            (
                f"You are seat {model.seat} ({names[model.seat]})."
                if model.seat is not None
                else "You are watching."
            ),
            ("It is your turn" if v.current == model.seat else f"It is {names[v.current]}'s turn")
            + (f"; the dice showed {sum(v.dice)}" if v.dice else "")
            + ".",
            f"The robber is on {places.hex(v.robber)}.",
            "",
            "Players:",
        ]
        for s in v.seats:
            q = s.seat
            points = s.points
            if q == model.seat and v.own_points is not None:
                points = v.own_points
            extras = []
            if s.longest_road:
                extras.append(f"longest road ({s.road_length})")
            if s.largest_army:
                extras.append(f"largest army ({s.knights} knights)")
            player = model.player(q)
            if player is not None and player.away:
                extras.append("away")
            lines.append(
                f"- {who(q)} ({names[q]}): {plural(points, 'point')}, "
                f"{plural(s.cards, 'resource card')}, {plural(s.dev_cards, 'development card')}, "
                f"{plural(s.knights, 'knight')} played, road length {s.road_length}"
                + (f"; {', '.join(extras)}" if extras else "")
                + (f"; owes {s.discards_owed} to discard" if s.discards_owed else "")
            )
            built = _buildings(v, q, places)
            if built:
                lines.append(f"  {built}")
        if v.hand is not None:
            lines += ["", f"Your hand: {cards_text(v.hand)}."]
            if v.development is not None:
                text = dev_names(v.development)
                if v.development_new and any(v.development_new):
                    text += f" (bought this turn: {dev_names(v.development_new)})"
                lines.append(f"Your development cards: {text}.")
            if v.ratios is not None:
                ratios = ", ".join(f"{RESOURCE_NAMES[r]} {k}:1" for r, k in enumerate(v.ratios))
                lines.append(f"Your bank trade ratios: {ratios}.")
        lines.append(f"Bank: {cards_text(v.bank)}; {plural(v.deck, 'development card')} left.")
        if v.trade is not None:
            t = v.trade
            answers = ", ".join(
                f"{who(q)} {a.replace('_', ' ')}" for q, a in enumerate(t.answers) if q != t.offerer
            )
            lines.append(
                f"Open offer by {who(t.offerer)}: gives {cards_text(t.give)} for "
                f"{cards_text(t.get)} ({answers})."
            )
        lines += ["", "Island:"]
        lines += [f"- {places.hex(h)}" for h in range(len(v.terrain)) if v.terrain[h] != "desert"]
        slots = places.harbour_slots
        harbours = [
            f"{harbour_label(kind)} {places.edge(slots[i])}"
            for i, kind in enumerate(v.harbours)
            if i < len(slots)
        ]
        if harbours:
            lines.append("Harbours: " + "; ".join(harbours) + ".")
        lines += ["", "Recent events:"]
        lines += [f"- {line.text}" for line in model.log[-RECENT_EVENTS:]] or ["- none yet"]
        self.told = len(model.log)
        lines += ["", self.status()]
        return "\n".join(lines)

    def list_actions(self) -> str:
        """The legal actions with their ids, remembered for :meth:`action_for`."""
        prompt = self.my_prompt()
        if prompt is None:
            return self.status()
        v = self.model.view
        assert v is not None
        places = PlaceNames(v.radius, v.terrain, v.tokens, v.harbours, v.harbour_layout)
        listed = _Listed(prompt.state_id)
        lines = []
        for n, action in enumerate(prompt.actions, 1):
            ident = f"{prompt.state_id}-{n}"
            listed.ids[ident] = action
            lines.append(f"{ident}: {self.describe(action, places)}")
        self.listed = listed
        kinds = {a.kind for a in prompt.actions}
        if "end_turn" in kinds:
            lines.append("You may also offer a trade to the players (offer_trade).")
        if "decline_trade" in kinds:
            lines.append("You may also answer the offer with other terms (counter_offer).")
        return "\n".join(lines)

    def describe(self, action: Any, places: PlaceNames) -> str:
        """One sentence for a listed action."""
        model = self.model
        v = model.view
        match action.kind:
            case "place_settlement" | "build_settlement":
                free = " (free)" if action.kind == "place_settlement" else ""
                return f"Build a settlement at {places.vertex(action.vertex)}{free}"
            case "build_city":
                return f"Build a city at {places.vertex(action.vertex)}"
            case "place_road" | "build_road":
                free = " (free)" if action.kind == "place_road" else ""
                return f"Build a road {places.edge(action.edge)}{free}"
            case "move_robber":
                victim = (
                    f" and rob {model.name(action.victim)}" if action.victim is not None else ""
                )
                return f"Move the robber to {places.hex(action.hex)}{victim}"
            case "discard":
                return f"Discard {cards_text(action.cards.counts())}"
            case "maritime_trade":
                return f"Trade {action.ratio} {action.give} to the bank for 1 {action.get}"
            case "play_year_of_plenty":
                return f"Play year of plenty: take {cards_text(action.cards.counts())}"
            case "play_monopoly":
                return f"Play monopoly on {action.resource}"
            case "accept_trade" if v is not None and v.trade is not None:
                t = v.trade
                return f"Accept the offer: give {cards_text(t.get)}, get {cards_text(t.give)}"
            case "confirm_trade":
                name = model.name(action.partner)
                if v is not None and v.trade is not None:
                    t = v.trade
                    give, get = t.give, t.get
                    counter = t.counters[action.partner]
                    if t.answers[action.partner] == "countered" and counter is not None:
                        give, get = counter[1], counter[0]
                    return f"Trade with {name}: give {cards_text(give)}, get {cards_text(get)}"
                return f"Trade with {name}"
        kind: str = action.kind
        return _PLAIN.get(kind, kind.replace("_", " ").capitalize())

    def action_for(self, ident: str) -> Any:
        """The listed action ``ident`` names. Raises :class:`ToolError` saying what to do
        instead when it names none of the current prompt's."""
        prompt = self.my_prompt()
        if prompt is None:
            raise ToolError(f"You have nothing to do now. {self.status()}")
        listed = self.listed
        ident = ident.strip()
        if listed is None or listed.state_id != prompt.state_id:
            raise ToolError(
                "The game has moved on since you last listed actions; call legal_actions and "
                "choose one of the ids it gives."
            )
        if ident not in listed.ids:
            raise ToolError(
                f"The id {ident[:40]!r} is not one of those listed (like "
                f"{next(iter(listed.ids), '?')!r}); call legal_actions and choose one."
            )
        return listed.ids[ident]

    async def act(self, action: Any) -> None:
        """Send ``action`` for the current prompt."""
        prompt = self.my_prompt()
        assert prompt is not None
        await self.send(m.Act(game=prompt.game, state_id=prompt.state_id, action=action))
        self.answered = prompt.state_id

    def check_terms(self, kind: str, data: dict[str, Any]) -> Any:
        """The offer or counter-offer ``data`` as an action, checked against the prompt as
        the server would check it. Raises :class:`ToolError` with what is wrong."""
        prompt = self.my_prompt()
        if prompt is None:
            what = "make an offer" if kind == "offer_trade" else "make a counter-offer"
            raise ToolError(f"You cannot {what} now. {self.status()}")
        v = self.model.view
        turn = v.turn if v is not None else 0
        answer = read_answer(json.dumps(data), prompt, self.offers.get(turn, 0))
        if answer.action is None:
            raise ToolError(f"Not sent: {answer.message}.")
        return answer.action

    def _awaiting_answers(self, prompt: m.Prompt) -> bool:
        """Whether the prompt only lets this seat cancel its own offer while others have
        yet to answer it (worth waiting for the answers)."""
        trade = self.model.view.trade if self.model.view is not None else None
        return (
            trade is not None
            and "pending" in trade.answers
            and all(a.kind == "cancel_trade" for a in prompt.actions)
        )

    async def wait_for_turn(self, timeout: float) -> str:
        """Wait until this seat has something to do, the game is over, the seat is lost
        or ``timeout`` seconds pass; the news since the last answer and the status."""
        try:
            async with asyncio.timeout(timeout), self.changed:
                await self.changed.wait_for(
                    lambda: (
                        self.my_prompt() is not None
                        or self.model.over is not None
                        or self.failure is not None
                    )
                )
        except TimeoutError:
            pass
        lines = self.news()
        text = "\n".join(f"- {line}" for line in lines) if lines else "- nothing new"
        answer = f"News:\n{text}\n\n{self.status()}"
        if self.my_prompt() is not None:
            answer += "\n\nYour legal actions:\n" + self.list_actions()
        return answer


_PLAIN: Final = {
    "roll_dice": "Roll the dice",
    "buy_dev_card": "Buy a development card",
    "play_knight": "Play a knight (move the robber)",
    "play_road_building": "Play road building (two free roads)",
    "accept_trade": "Accept the offer",
    "decline_trade": "Decline the offer",
    "cancel_trade": "Cancel your offer",
    "end_turn": "End your turn",
}


def _buildings(v: LiveView, seat: int, places: PlaceNames) -> str:
    parts = []
    settlements = [places.vertex(x) for x, q in v.settlements.items() if q == seat]
    cities = [places.vertex(x) for x, q in v.cities.items() if q == seat]
    roads = [places.edge(e) for e, q in v.roads.items() if q == seat]
    if settlements:
        parts.append("settlements at " + "; ".join(settlements))
    if cities:
        parts.append("cities at " + "; ".join(cities))
    if roads:
        parts.append("roads " + "; ".join(roads))
    return ". ".join(parts)


def _cards(what: str, counts: dict[str, int]) -> dict[str, int]:
    """``counts`` checked as a set of resource cards. Raises :class:`ToolError`."""
    if not isinstance(counts, dict):
        raise ToolError(f"The {what} argument is resource names and counts, like {{'brick': 1}}.")
    for name, count in counts.items():
        if name not in RESOURCE_NAMES:
            raise ToolError(
                f"The {str(name)[:20]!r} in {what} is not a resource; use "
                + ", ".join(RESOURCE_NAMES)
                + "."
            )
        if type(count) is not int or count < 0 or count > 19:
            raise ToolError(f"In {what}, {name} takes a whole number of cards from 0 to 19.")
    Cards(**counts)  # the wire form takes it
    return {k: c for k, c in counts.items() if c}


ARGUMENT_HINTS: Final = {
    "id": 'an id from legal_actions, as text, like "12-3"',
    "give": 'resource counts, like {"brick": 1}',
    "get": 'resource counts, like {"wool": 1}',
    "to": 'a list of names of the other players, like ["Ana"]',
    "text": "the text to say, 1 to 500 characters",
    "timeout": "a number of seconds from 0 to 600",
}
"""What each tool argument takes, for the sentence that refuses a bad one."""


class _Server(FastMCP):
    """FastMCP whose refusals are the sentences alone: a tool's own, or one naming the
    argument that is missing or of the wrong type and what it takes."""

    async def call_tool(self, name: str, arguments: dict[str, Any]) -> Any:
        try:
            return await super().call_tool(name, arguments)
        except ToolError as exc:
            cause = exc.__cause__
            if isinstance(cause, ToolError):
                raise ToolError(str(cause)) from cause
            if isinstance(cause, ValidationError):
                first = cause.errors(include_url=False)[0]
                field = str(first["loc"][0]) if first["loc"] else "?"
                what = "is missing" if first["type"] == "missing" else "is not what it takes"
                hint = ARGUMENT_HINTS.get(field, "what the tool's description says")
                raise ToolError(f"The {field} argument of {name} {what}: pass {hint}.") from cause
            raise


def build_server(seat: Seat) -> FastMCP:
    """The MCP server whose tools and resources play ``seat``."""
    server = _Server(
        "hexhaven",
        instructions="You hold one seat of a Hexhaven game (the hex-island trading game). "
        "Call wait_for_turn until it is your move, read position, call legal_actions and "
        "act with one of the ids. Rules: resource hexhaven://rules.",
    )

    def lead(text: str) -> str:
        """``text`` after the notices the model has not been told yet."""
        notices = [*seat.notices]
        seat.notices.clear()
        return "\n".join([*notices, text]) if notices else text

    @server.tool()
    async def position() -> str:
        """The game as your seat sees it: players' public counts and buildings (places
        named by the hexes around them), your hand and cards, the bank, the open offer,
        the island and the last events in sentences."""
        return lead(seat.position())

    @server.tool()
    async def legal_actions() -> str:
        """The actions you may take now, each as 'ID: sentence'. Pass an ID to act."""
        return lead(seat.list_actions())

    @server.tool()
    async def act(id: str) -> str:
        """Take the listed action with this ID, like "12-3" (from legal_actions or
        wait_for_turn)."""
        action = seat.action_for(id)
        await seat.act(action)
        return lead(f"Sent: {seat.describe(action, _places(seat))}. Call wait_for_turn.")

    @server.tool()
    async def offer_trade(
        give: dict[str, int], get: dict[str, int], to: list[str] | None = None
    ) -> str:
        """Offer the other players cards on your turn, after the roll: give and get are
        resource counts like {"brick": 1}; to names the players asked (default: all)."""
        data: dict[str, Any] = {
            "kind": "offer_trade",
            "give": _cards("give", give),
            "get": _cards("get", get),
        }
        if to is not None:
            data["to"] = [_seat_named(seat, name) for name in to]
        action = seat.check_terms("offer_trade", data)
        await seat.act(action)
        v = seat.model.view
        turn = v.turn if v is not None else 0
        seat.offers[turn] = seat.offers.get(turn, 0) + 1
        return lead(
            "Offer sent. Call wait_for_turn: answers come as events; confirm with a player "
            "who accepted or countered, or cancel."
        )

    @server.tool()
    async def counter_offer(give: dict[str, int], get: dict[str, int]) -> str:
        """Answer the open offer made to you with other terms: you give `give` and get
        `get` (resource counts like {"wool": 1})."""
        data = {"kind": "counter_trade", "give": _cards("give", give), "get": _cards("get", get)}
        action = seat.check_terms("counter_trade", data)
        await seat.act(action)
        return lead("Counter-offer sent. Call wait_for_turn.")

    @server.tool()
    async def chat(text: str) -> str:
        """Say something to the table (up to 500 characters)."""
        game = seat.model.game
        if game is None or seat.model.seat is None:
            raise ToolError("Only a seated player chats; you have no seat in a game.")
        try:
            message = m.Chat(game=game, text=text)
        except ValueError as exc:
            raise ToolError(
                "A chat line has 1 to 500 characters of text you can see; say something "
                "shorter or plainer."
            ) from exc
        await seat.send(message)
        return lead("Said.")

    @server.tool()
    async def wait_for_turn(timeout: float = 60.0) -> str:
        """Wait until it is your move (or the game ends), at most `timeout` seconds (up
        to 600); returns what happened meanwhile and, on your move, the legal actions."""
        if not isinstance(timeout, int | float) or not 0 <= timeout <= WAIT_LIMIT:
            raise ToolError(f"The timeout is a number of seconds from 0 to {WAIT_LIMIT:.0f}.")
        return await seat.wait_for_turn(float(timeout))

    @server.resource("hexhaven://rules", mime_type="text/plain")
    def rules() -> str:
        """The rules of the game in brief, and how to play through this server."""
        return RULES

    @server.resource("hexhaven://protocol", mime_type="text/markdown")
    def protocol_docs() -> str:
        """The Hexhaven protocol's documentation (docs/protocol.md)."""
        path = DOCS / "protocol.md"
        try:
            return path.read_text(encoding="utf-8")
        except OSError:
            return "docs/protocol.md is in the Hexhaven repository."

    return server


def _places(seat: Seat) -> PlaceNames:
    v = seat.model.view
    assert v is not None
    return PlaceNames(v.radius, v.terrain, v.tokens, v.harbours, v.harbour_layout)


def _seat_named(seat: Seat, name: str) -> int:
    """The seat of the player called ``name`` (or given by number). Raises
    :class:`ToolError`."""
    names = seat.model.names()
    for q, n in enumerate(names):
        if name.strip().lower() in (n.lower(), str(q)) and q != seat.model.seat:
            return q
    others = ", ".join(n for q, n in enumerate(names) if q != seat.model.seat)
    raise ToolError(f"No other player of this game is called {name[:32]!r}; the others: {others}.")


async def serve(
    url: str,
    goal: Goal,
    *,
    name: str = "model",
    tls: ssl.SSLContext | None = None,
    reconnect: Reconnect | None = RECONNECT,
    on_seated: Callable[[str, int, str], None] | None = None,
) -> Seat:
    """Hold the place ``goal`` asks for on the server at ``url`` and serve MCP on standard
    input and output until the host closes it; ``on_seated`` is told the game, the seat and
    its token when the seat is taken. Returns the seat (its model says how the game went)."""
    seat = Seat(url, goal, name=name, tls=tls, reconnect=reconnect, on_seated=on_seated)
    server = build_server(seat)
    async with asyncio.TaskGroup() as group:
        link = group.create_task(seat.run())
        await server.run_stdio_async()
        link.cancel()
    return seat
