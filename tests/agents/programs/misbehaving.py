"""A program for the stdio bridge that does everything wrong once, then crashes.

Prompt by prompt: a line that is not JSON; JSON that is not an action; a list; an action
that is not listed; null outside an offer; an answer that comes too late (naming its
state, so the bridge drops it); then a good answer followed by a stray extra line; then
good answers until the tenth prompt, where it exits with status 3. Notices from the bridge
(errors, defaults played) are echoed to standard error as "seen TYPE REASON"."""

from __future__ import annotations

import json
import sys
import time

TIMEOUT = float(sys.argv[1])


def say(text: str) -> None:
    print(text, flush=True)


def main() -> int:
    prompts = 0
    for line in sys.stdin:
        message = json.loads(line)
        if message["type"] in ("default_played", "error"):
            reason = message.get("reason") or message.get("code")
            print(f"seen {message['type']} {reason}", file=sys.stderr, flush=True)
        if message["type"] != "prompt":
            continue
        prompts += 1
        first = message["actions"][0]
        if prompts == 1:
            say("take the best one, please")
        elif prompts == 2:
            say(json.dumps({"kind": "fly", "to": "the moon"}))
        elif prompts == 3:
            say("[1, 2, 3]")
        elif prompts == 4:
            say(json.dumps({"kind": "build_city", "vertex": 99999}))
        elif prompts == 5:
            say("null")
        elif prompts == 6:
            time.sleep(TIMEOUT * 2)
            say(json.dumps({**first, "state_id": message["state_id"]}))
        elif prompts == 7:
            say(json.dumps(first))
            say("and one more thing")
        elif prompts < 10:
            say(json.dumps(first))
        else:
            return 3
    return 0


if __name__ == "__main__":
    sys.exit(main())
