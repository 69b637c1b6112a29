"""Every example message in docs/protocol.md is a valid message of its direction, and the
server's are written in full, as the server writes them."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from protocol import SUBPROTOCOL_JSON, Codec

DOC = Path(__file__).resolve().parents[2] / "docs" / "protocol.md"
EXAMPLES = [
    (m.group(1), m.group(2))
    for m in re.finditer(r"^(C|S): (\{.*\})$", DOC.read_text(encoding="utf-8"), re.MULTILINE)
]


def test_the_doc_has_examples_of_both_directions() -> None:
    directions = {d for d, _ in EXAMPLES}
    assert directions == {"C", "S"}
    assert len(EXAMPLES) >= 20


@pytest.mark.parametrize(("direction", "line"), EXAMPLES)
def test_example_decodes(direction: str, line: str) -> None:
    codec = Codec(SUBPROTOCOL_JSON)
    message = codec.decode_client(line) if direction == "C" else codec.decode_server(line)
    # Re-encoding keeps the content (defaults filled in, nothing lost).
    again = codec.decode_client(codec.encode(message)) if direction == "C" else None
    if again is not None:
        assert again == message


@pytest.mark.parametrize("line", [line for d, line in EXAMPLES if d == "S"])
def test_server_examples_are_written_as_the_server_writes_them(line: str) -> None:
    """Every field the server sends is shown (defaults too: card maps with all five
    resources, `started`), and nothing it would not send."""
    codec = Codec(SUBPROTOCOL_JSON)
    message = codec.decode_server(line)
    assert json.loads(line) == json.loads(codec.encode(message))


def test_the_events_table_lists_every_event_with_its_fields() -> None:
    """Each row: the kind, then its fields in the order the server writes them."""
    from protocol.payloads import EVENT_PAYLOADS

    section = DOC.read_text(encoding="utf-8").split("### Events", 1)[1].split("###", 1)[0]
    rows = re.findall(r"^\| `(\w+)` \| ((?:`\w+`(?:, )?)+) \|", section, re.MULTILINE)
    table = {kind: re.findall(r"`(\w+)`", fields) for kind, fields in rows}
    models = {
        str(model.model_fields["kind"].default): [n for n in model.model_fields if n != "kind"]
        for model in EVENT_PAYLOADS.values()
    }
    assert table == models
