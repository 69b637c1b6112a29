"""A complete Hexhaven agent in one file, with nothing but `websockets` and `msgpack`.

It takes a seat by invite code (or comes back to one with its token), then answers every
prompt until the game is over: it builds a city or settlement when it can, offers one
spare card for one it lacks once a turn, declines other players' offers, and otherwise
picks a random listed action. If the connection drops, it reconnects and rejoins with its
token. The token is the seat, so it is kept in a file readable by its owner alone, never
on a command line. docs/agents.md walks through it.

    python3 agent.py ws://127.0.0.1:8765 --invite CODE [--token-file FILE] [--name NAME] [--seed N]
    python3 agent.py ws://127.0.0.1:8765 --game GAME --token-file FILE
"""

from __future__ import annotations

import argparse
import asyncio
import os
import random
import sys
from typing import Any

import msgpack
from websockets.asyncio.client import connect
from websockets.exceptions import ConnectionClosed
from websockets.typing import Subprotocol

PROTOCOL = 1
CLIENT = "python-minimal 0.1"
SUBPROTOCOL = Subprotocol("hexhaven.v1.msgpack")
RESOURCES = ("brick", "lumber", "wool", "grain", "ore")
LOBBY_ERRORS = {
    "unsupported_version",
    "unknown_game",
    "bad_token",
    "seat_taken",
    "game_full",
    "already_started",
}
"""Refusals of the handshake or the seat: trying again will not help."""
RECONNECTS = 5
"""How many times in a row to reconnect before giving up."""


def save_token(path: str, token: str) -> None:
    """Keep the seat's token in the file ``path``, readable by its owner alone."""
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w") as file:
        file.write(token + "\n")


def seat_line(seat: int, game: str, token_file: str | None) -> str:
    """What the agent says when seated: where its token is, to come back with."""
    if token_file is None:
        return f"seat {seat} in game {game} (its token is not kept: --token-file FILE keeps it)"
    return (
        f"seat {seat} in game {game} "
        f"(its token is in {token_file}: rejoin with --game {game} --token-file {token_file})"
    )


def pack(message: dict[str, Any]) -> bytes:
    data: bytes = msgpack.packb(message, use_bin_type=True)
    return data


def unpack(frame: bytes | str) -> dict[str, Any]:
    message: dict[str, Any] = msgpack.unpackb(frame, raw=False)
    return message


class Player:
    """The decisions: given a prompt (with the seat's view in it), one action or None."""

    def __init__(self, seed: int | None) -> None:
        self.rng = random.Random(seed)
        self.offered_on_turn = -1

    def choose(self, prompt: dict[str, Any]) -> dict[str, Any] | None:
        actions: list[dict[str, Any]] = prompt["actions"]
        view = prompt["view"]
        kinds = {action["kind"] for action in actions}
        if "decline_trade" in kinds:  # someone else's offer: say no
            return {"kind": "decline_trade"}
        if "cancel_trade" in kinds:  # our own offer is open
            if "pending" in view["trade"]["answers"]:
                return None  # wait: every answer brings a new prompt
            for action in actions:
                if action["kind"] == "confirm_trade":
                    return action  # the first seat that accepted
            return {"kind": "cancel_trade"}
        builds = [a for a in actions if a["kind"] in ("build_city", "build_settlement")]
        if builds:
            return self.rng.choice(builds)
        if "end_turn" in kinds and self.offered_on_turn != view["turn"]:
            offer = self.offer(view["hand"])
            if offer is not None:
                self.offered_on_turn = view["turn"]
                return offer
        return self.rng.choice(actions)

    def offer(self, hand: dict[str, int]) -> dict[str, Any] | None:
        """One card we have two of for one we have none of, asked of every seat."""
        spare = [r for r in RESOURCES if hand.get(r, 0) >= 2]
        lacking = [r for r in RESOURCES if hand.get(r, 0) == 0]
        if not spare or not lacking:
            return None
        give, get = self.rng.choice(spare), self.rng.choice(lacking)
        return {"kind": "offer_trade", "give": {give: 1}, "get": {get: 1}, "to": None}

    def fallback(self, prompt: dict[str, Any]) -> dict[str, Any]:
        """A safe answer after the server refused ours: end the turn, decline, or the first
        listed action."""
        actions: list[dict[str, Any]] = prompt["actions"]
        for kind in ("end_turn", "decline_trade", "cancel_trade"):
            for action in actions:
                if action["kind"] == kind:
                    return action
        return actions[0]


async def play(
    url: str,
    game: str | None,
    token: str | None,
    invite: str | None,
    name: str,
    seed: int | None,
    token_file: str | None,
) -> dict[str, Any] | None:
    """Play one game to its end, keeping the seat's token in ``token_file`` if given; the
    game_over message, or None if it could not."""
    player = Player(seed)
    failures = 0
    while failures <= RECONNECTS:
        try:
            async with connect(url, subprotocols=[SUBPROTOCOL]) as ws:
                hello = {"type": "hello", "protocol": PROTOCOL, "client": CLIENT, "views": True}
                await ws.send(pack(hello))
                if token is not None:
                    await ws.send(pack({"type": "rejoin", "game": game, "token": token}))
                else:
                    await ws.send(pack({"type": "join_game", "invite": invite, "name": name}))
                last_prompt: dict[str, Any] | None = None
                last_act: dict[str, Any] | None = None
                async for frame in ws:
                    message = unpack(frame)
                    kind = message["type"]
                    if kind == "joined":
                        game, token = message["game"], message["token"]
                        failures = 0
                        if token_file is not None:
                            save_token(token_file, token)
                        print(seat_line(message["seat"], game, token_file), file=sys.stderr)
                    elif kind == "prompt":
                        last_prompt = message
                        action = player.choose(message)
                        if action is not None:
                            last_act = {
                                "type": "act",
                                "game": game,
                                "state_id": message["state_id"],
                                "action": action,
                            }
                            await ws.send(pack(last_act))
                    elif kind == "error":
                        code = message["code"]
                        print(f"refused: {code}: {message['message']}", file=sys.stderr)
                        if code in LOBBY_ERRORS:
                            return None
                        if code == "rate_limited" and last_act is not None:
                            await asyncio.sleep(0.05)
                            await ws.send(pack(last_act))
                        elif code == "illegal_action" and last_prompt is not None:
                            # Nothing changed, so no new prompt comes: answer this one safely.
                            last_act = {
                                "type": "act",
                                "game": game,
                                "state_id": last_prompt["state_id"],
                                "action": player.fallback(last_prompt),
                            }
                            last_prompt = None  # one fallback per prompt
                            await ws.send(pack(last_act))
                        # stale_state: the game moved on; a newer prompt is on its way.
                    elif kind == "game_over":
                        return message
        except (OSError, ConnectionClosed) as exc:
            print(f"connection lost: {exc}", file=sys.stderr)
        if token is None:
            return None  # never seated: nothing to come back to
        failures += 1
        await asyncio.sleep(min(5.0, 0.2 * 2**failures))
    return None


def main() -> int:
    parser = argparse.ArgumentParser(description="A minimal Hexhaven agent.")
    parser.add_argument("url", help="the server, e.g. ws://127.0.0.1:8765")
    seat = parser.add_mutually_exclusive_group(required=True)
    seat.add_argument("--invite", help="an invite code to join with")
    seat.add_argument("--game", help="the game of a seat to come back to (with --token-file)")
    parser.add_argument(
        "--token-file", help="the file that keeps the seat's token (read to come back)"
    )
    parser.add_argument("--name", default="minimal", help="the name to sit under")
    parser.add_argument("--seed", type=int, default=None, help="random seed of the choices")
    args = parser.parse_args()
    token = None
    if args.game is not None:
        if args.token_file is None:
            parser.error("--game needs --token-file, the file that holds the seat's token")
        with open(args.token_file) as file:
            token = file.readline().strip()
    over = asyncio.run(
        play(args.url, args.game, token, args.invite, args.name, args.seed, args.token_file)
    )
    if over is None:
        return 1
    print(f"game over: winner {over['winner']}, points {over['points']}, seed {over['seed']}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
