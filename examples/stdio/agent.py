"""A Hexhaven player for the stdio bridge, with nothing but the standard library.

    hexhaven agent --url ws://127.0.0.1:8765 --invite CODE --cmd "python3 examples/stdio/agent.py"

It reads one JSON object per line on standard input and answers every `prompt` line with
one JSON line on standard output: a city or settlement when it can build one, one offer of
a spare card for a lacking one each turn (then `null` while the answers come in), no to
other players' offers, otherwise a random listed action. Anything it wants to say goes to
standard error. docs/agents.md describes the lines.
"""

from __future__ import annotations

import json
import random
import sys
from typing import Any

RESOURCES = ("brick", "lumber", "wool", "grain", "ore")


def choose(prompt: dict[str, Any], rng: random.Random, offered: set[int]) -> Any:
    actions: list[dict[str, Any]] = prompt["actions"]
    view = prompt["view"]
    kinds = {action["kind"] for action in actions}
    if "decline_trade" in kinds:
        return {"kind": "decline_trade"}
    if "cancel_trade" in kinds:  # our offer is open
        if "pending" in view["trade"]["answers"]:
            return None  # nothing yet: a new prompt comes with each answer
        confirms = [a for a in actions if a["kind"] == "confirm_trade"]
        return confirms[0] if confirms else {"kind": "cancel_trade"}
    builds = [a for a in actions if a["kind"] in ("build_city", "build_settlement")]
    if builds:
        return rng.choice(builds)
    if "end_turn" in kinds and view["turn"] not in offered:
        hand = view["hand"]
        spare = [r for r in RESOURCES if hand[r] >= 2]
        lacking = [r for r in RESOURCES if hand[r] == 0]
        if spare and lacking:
            offered.add(view["turn"])
            give, get = rng.choice(spare), rng.choice(lacking)
            return {"kind": "offer_trade", "give": {give: 1}, "get": {get: 1}, "to": None}
    return rng.choice(actions)


def main() -> int:
    rng = random.Random(int(sys.argv[1]) if len(sys.argv) > 1 else None)
    offered: set[int] = set()
    for line in sys.stdin:
        message = json.loads(line)
        if message["type"] == "prompt":
            action = choose(message, rng, offered)
            if action is not None:
                action = {**action, "state_id": message["state_id"]}  # optional, but safer
            print(json.dumps(action), flush=True)
        elif message["type"] in ("error", "default_played"):
            print(f"note: {message}", file=sys.stderr)
        elif message["type"] == "game_over":
            print(f"winner {message['winner']}, points {message['points']}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
