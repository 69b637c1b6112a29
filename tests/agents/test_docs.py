"""docs/agents.md shows only what the tests run: its code is cut from the example files
(which tests/agents plays in whole games), its protocol and bridge lines decode (and the
bridge treats each answer as the page says), and its commands are the ones the tests run."""

from __future__ import annotations

import json
import re
import string
from dataclasses import dataclass
from typing import Any

import pytest
from pydantic import TypeAdapter

from clients.bridge import default_action, read_answer
from protocol import SUBPROTOCOL_JSON, Codec, ProtocolError
from protocol import messages as m
from protocol.payloads import ActionPayload, EventPayload, ViewPayload
from tests.agents.helpers import (
    DOC,
    DOC_COMMANDS,
    OVER_LINE,
    REPO,
    SEAT_LINE,
    doc_command_lines,
)

RUN_BY_TESTS = {
    "examples/python_minimal/agent.py": "test_examples.py",
    "examples/js/agent.js": "test_examples.py",
    "examples/python_sdk/agent.py": "test_examples.py",
    "examples/stdio/agent.py": "test_bridge.py",
    "bots/random_player.py": "tests/server/test_bots.py (the server's random bots)",
    "examples/catanatron/player.py": "test_catanatron.py",
}
"""The files the page may quote, each played in whole games by the test named."""
_EVENT: TypeAdapter[Any] = TypeAdapter(EventPayload)
_ACTION: TypeAdapter[Any] = TypeAdapter(ActionPayload)
_CODEC = Codec(SUBPROTOCOL_JSON)


@dataclass
class Block:
    info: str
    lines: list[str]
    line: int  # where its body starts in the page, for messages


def _blocks() -> list[Block]:
    blocks: list[Block] = []
    current: Block | None = None
    for number, raw in enumerate(DOC.read_text().splitlines(), 1):
        if raw.startswith("```"):
            if current is None:
                current = Block(raw[3:].strip(), [], number + 1)
            else:
                assert raw == "```", f"docs/agents.md:{number}: a fence inside a block"
                blocks.append(current)
                current = None
        elif current is not None:
            current.lines.append(raw)
    assert current is None, "docs/agents.md ends inside a block"
    return blocks


BLOCKS = _blocks()


def _view() -> str:
    [view] = [b for b in BLOCKS if b.info == "json view"]
    return "\n".join(view.lines)


def _is_excerpt(block: list[str], text: list[str]) -> bool:
    """Whether ``block`` is a run of lines of ``text``, all indented alike there."""
    for start in range(len(text) - len(block) + 1):
        first = text[start]
        indent = first[: len(first) - len(first.lstrip())]
        if all(
            (t == indent + b) if b else not t.strip()
            for b, t in zip(block, text[start : start + len(block)], strict=True)
        ):
            return True
    return False


def test_every_block_is_of_a_kind_a_test_checks() -> None:
    for block in BLOCKS:
        lang, _, source = block.info.partition(" ")
        if source in RUN_BY_TESTS:
            assert lang in ("python", "js"), block.info
        else:
            assert block.info in ("sh", "text", "json view", "json mcp-config", "output"), (
                f"docs/agents.md:{block.line}: a block no test checks ({block.info!r}); "
                f"quote one of {sorted(RUN_BY_TESTS)} or add a check"
            )
    assert len([b for b in BLOCKS if b.info == "json view"]) == 1


@pytest.mark.parametrize(
    "block",
    [b for b in BLOCKS if b.info.partition(" ")[2] in RUN_BY_TESTS],
    ids=lambda b: f"line{b.line}",
)
def test_code_is_cut_from_the_example_files(block: Block) -> None:
    path = block.info.partition(" ")[2]
    text = (REPO / path).read_text().splitlines()
    assert block.lines and _is_excerpt(block.lines, text), (
        f"docs/agents.md:{block.line}: this block is not a piece of {path} any more; "
        "copy the current lines"
    )


def test_the_view_is_a_view() -> None:
    view = ViewPayload.model_validate_json(_view())
    assert view.seat == 0 and view.phase == "main" and view.hand is not None


def test_the_mcp_host_configuration_runs_the_command_shown() -> None:
    [block] = [b for b in BLOCKS if b.info == "json mcp-config"]
    config = json.loads("\n".join(block.lines))
    [server] = config["mcpServers"].values()
    assert server["command"].endswith("/.venv/bin/hexhaven")
    [line] = [line for line in doc_command_lines() if line.startswith("hexhaven mcp ")]
    assert server["args"] == line.split()[1:]


def test_every_command_is_one_a_test_runs() -> None:
    lines = doc_command_lines()
    for line in lines:
        assert line.startswith(DOC_COMMANDS), f"docs/agents.md: no test runs {line!r}"
    for prefix in DOC_COMMANDS:
        assert sum(line.startswith(prefix) for line in lines) == 1, prefix


def _transcript_lines() -> list[tuple[int, str, str]]:
    """(page line, tag, text) of every line of the page's ``text`` blocks."""
    out = []
    for block in BLOCKS:
        if block.info != "text":
            continue
        for offset, line in enumerate(block.lines):
            where = block.line + offset
            tag, sep, text = line.partition(": ")
            assert sep and tag in ("C", "S", "in", "out"), f"docs/agents.md:{where}: {line!r}"
            out.append((where, tag, re.sub(r"\bVIEW\b", lambda _: _view(), text)))
    return out


def test_protocol_lines_decode_as_the_messages_they_claim_to_be() -> None:
    for where, tag, text in _transcript_lines():
        try:
            if tag == "C":
                _CODEC.decode_client(text)
            elif tag == "S":
                _CODEC.decode_server(text)
        except ProtocolError as exc:
            pytest.fail(f"docs/agents.md:{where}: {exc.code}: {exc.message}")


def test_events_are_shown_as_the_server_sends_them() -> None:
    """Every event of the ``S:`` and ``in:`` lines is written as the server writes it: every
    field, and card maps with all five resources."""
    for where, tag, text in _transcript_lines():
        data = json.loads(text) if tag in ("S", "in") else {}
        shown = data.get("events", [data["event"]] if data.get("type") == "event" else [])
        for event in shown:
            sent = _EVENT.validate_python(event).model_dump(mode="json")
            assert event == sent, f"docs/agents.md:{where}: the server sends {sent}"


_FIELDS = {
    "seat": r"\d+",
    "winner": r"\d+",
    "seed": r"\d+",
    "game": r"\w+",
    "file": r"[\w./-]+",
    "points": r"\[\d+(?:, \d+)*\]",
}


def _pattern(line_format: str) -> re.Pattern[str]:
    """A regex for the lines ``line_format`` makes; a field named twice must repeat."""
    regex, seen = "", set()
    for literal, name, _, _ in string.Formatter().parse(line_format):
        regex += re.escape(literal)
        if name is not None:
            regex += f"(?P={name})" if name in seen else f"(?P<{name}>{_FIELDS[name]})"
            seen.add(name)
    return re.compile(regex)


def test_output_lines_are_what_the_examples_print_in_the_game_the_page_sets_up() -> None:
    """``output`` lines are in the formats test_examples.py checks that the examples print,
    and fit the game the page's host recipe creates: a seat of it, and points for each."""
    host = re.search(r"hexhaven host\s+ws://\S+\s+--players (\d)", DOC.read_text())
    assert host is not None, "docs/agents.md: the host recipe is gone"
    players = int(host.group(1))
    lines = [line for b in BLOCKS if b.info == "output" for line in b.lines]
    assert lines
    for line in lines:
        if seated := _pattern(SEAT_LINE).fullmatch(line):
            assert int(seated["seat"]) < players, line
        elif over := _pattern(OVER_LINE).fullmatch(line):
            points = json.loads(over["points"])
            assert len(points) == players, f"{line}: not {players} seats"
            assert points[int(over["winner"])] == max(points), line
        else:
            pytest.fail(f"docs/agents.md: the examples print no line {line!r}")


def test_bridge_lines_are_what_the_bridge_reads_and_makes_of_the_answers() -> None:
    """``in:`` lines are what the bridge writes; each ``out:`` line is judged against the
    latest prompt, and is taken unless a ``default_played`` line follows it, whose reason,
    message and action must then be the bridge's."""
    lines = [line for line in _transcript_lines() if line[1] in ("in", "out")]
    assert lines
    prompt: m.Prompt | None = None
    for index, (where, tag, text) in enumerate(lines):
        if tag == "out":
            assert prompt is not None, f"docs/agents.md:{where}: an answer before any prompt"
            answer = read_answer(text, prompt)
            following = lines[index + 1] if index + 1 < len(lines) else None
            notice = json.loads(following[2]) if following and following[1] == "in" else {}
            if notice.get("type") == "default_played":
                assert notice["state_id"] == prompt.state_id, where
                assert (notice["reason"], notice["message"]) == (answer.problem, answer.message)
                played = default_action(prompt).model_dump(mode="json")
                assert notice["action"] == played, where
            else:
                assert answer.problem is None and not answer.ignore, (where, answer)
            continue
        data = json.loads(text)
        match data["type"]:
            case "event":
                assert set(data) == {"type", "game", "event"}, where
                _EVENT.validate_python(data["event"])
            case "default_played":
                assert set(data) == {"type", "state_id", "reason", "message", "action"}, where
                _ACTION.validate_python(data["action"])
            case "prompt" | "error" | "game_over":
                message = _CODEC.decode_server(text)
                if isinstance(message, m.Prompt):
                    assert message.view is not None, f"docs/agents.md:{where}: no view"
                    prompt = message
            case other:
                pytest.fail(f"docs/agents.md:{where}: the bridge writes no {other!r} lines")
