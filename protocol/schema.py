"""JSON Schema of every protocol message, generated from the models.

``python -m protocol.schema`` rewrites ``docs/schema/``; a test checks that the committed
files match the models.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

from pydantic import TypeAdapter

from protocol.messages import CLIENT_MESSAGES, SERVER_MESSAGES, ClientMessage, ServerMessage

SCHEMA_DIR = Path(__file__).resolve().parent.parent / "docs" / "schema"


def schemas() -> dict[str, dict[str, Any]]:
    """File name -> schema: one per message, plus the two unions."""
    out: dict[str, dict[str, Any]] = {
        "client-message.json": TypeAdapter(ClientMessage).json_schema(),
        "server-message.json": TypeAdapter(ServerMessage).json_schema(),
    }
    for side, models in (("client", CLIENT_MESSAGES), ("server", SERVER_MESSAGES)):
        for model in models:
            kind = model.model_fields["type"].default
            out[f"{side}.{kind}.json"] = model.model_json_schema()
    return out


def render(schema: dict[str, Any]) -> str:
    return json.dumps(schema, indent=2, sort_keys=True) + "\n"


def write(directory: Path = SCHEMA_DIR) -> list[Path]:
    """Write every schema file (and remove stale ones); returns the files written."""
    directory.mkdir(parents=True, exist_ok=True)
    wanted = schemas()
    for old in directory.glob("*.json"):
        if old.name not in wanted:
            old.unlink()
    written = []
    for name, schema in wanted.items():
        path = directory / name
        path.write_text(render(schema), encoding="utf-8")
        written.append(path)
    return written


if __name__ == "__main__":
    paths = write()
    print(f"wrote {len(paths)} schema files to {SCHEMA_DIR}", file=sys.stderr)
