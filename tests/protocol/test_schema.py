"""The JSON Schema in docs/schema/: committed files match the models, and the messages the
codec sends are valid by them (checked by a small structural validator, no jsonschema)."""

from __future__ import annotations

import json
from typing import Any

import pytest

from protocol import SUBPROTOCOL_JSON, Codec, ProtocolError
from protocol import messages as m
from protocol import payloads as p
from protocol.schema import SCHEMA_DIR, render, schemas
from tests.protocol.test_codec import CLIENT_SAMPLES, SERVER_SAMPLES

Schema = dict[str, Any]
SCHEMAS = schemas()
UNIONS = {"client-message.json": m.CLIENT_MESSAGES, "server-message.json": m.SERVER_MESSAGES}


def _type_of(model: type[p.WireModel]) -> str:
    return str(model.model_fields["type"].default)


# ======================================================================================
# The committed files
# ======================================================================================


def test_the_committed_files_are_exactly_the_generated_ones() -> None:
    committed = {path.name for path in SCHEMA_DIR.iterdir()}
    assert committed == set(SCHEMAS), "run `python -m protocol.schema`"


@pytest.mark.parametrize("name", sorted(SCHEMAS))
def test_a_committed_file_matches_the_models(name: str) -> None:
    text = (SCHEMA_DIR / name).read_text(encoding="utf-8")
    assert text == render(SCHEMAS[name]), (
        f"docs/schema/{name} is stale: run python -m protocol.schema"
    )
    assert json.loads(text) == SCHEMAS[name]


def test_there_is_one_file_per_message_and_one_per_direction() -> None:
    expected = set(UNIONS)
    expected |= {f"client.{_type_of(model)}.json" for model in m.CLIENT_MESSAGES}
    expected |= {f"server.{_type_of(model)}.json" for model in m.SERVER_MESSAGES}
    assert set(SCHEMAS) == expected


@pytest.mark.parametrize("name", sorted(set(SCHEMAS) - set(UNIONS)))
def test_a_message_schema_is_a_closed_object_with_its_type(name: str) -> None:
    schema = SCHEMAS[name]
    side, tag, _ = name.split(".")
    models = m.CLIENT_MESSAGES if side == "client" else m.SERVER_MESSAGES
    (model,) = [model for model in models if _type_of(model) == tag]
    assert schema["type"] == "object"
    assert schema["additionalProperties"] is False
    assert schema["properties"]["type"]["const"] == tag
    assert set(schema["properties"]) == set(model.model_fields)
    required = {n for n, f in model.model_fields.items() if f.is_required()}
    assert set(schema.get("required", [])) == required


@pytest.mark.parametrize("name", sorted(UNIONS))
def test_a_union_schema_maps_every_type_of_its_direction(name: str) -> None:
    schema = SCHEMAS[name]
    assert schema["discriminator"]["propertyName"] == "type"
    mapping = schema["discriminator"]["mapping"]
    assert set(mapping) == {_type_of(model) for model in UNIONS[name]}
    for tag, ref in mapping.items():
        target = _resolve(schema, ref)
        assert target["properties"]["type"]["const"] == tag
    assert sorted(one["$ref"] for one in schema["oneOf"]) == sorted(mapping.values())


# ======================================================================================
# Messages are valid by their schema
# ======================================================================================


def _resolve(root: Schema, ref: str) -> Schema:
    assert ref.startswith("#/$defs/"), ref
    target: Schema = root["$defs"][ref.removeprefix("#/$defs/")]
    return target


_TYPES: dict[str, tuple[type, ...]] = {
    "object": (dict,),
    "array": (list,),
    "string": (str,),
    "integer": (int,),
    "number": (int, float),
    "boolean": (bool,),
    "null": (type(None),),
}


def _problems(value: Any, schema: Schema, root: Schema, path: str = "$") -> list[str]:
    """Why ``value`` does not satisfy ``schema`` (the keywords pydantic generates)."""
    if "$ref" in schema:
        return _problems(value, _resolve(root, schema["$ref"]), root, path)
    out: list[str] = []
    if "anyOf" in schema and all(_problems(value, s, root, path) for s in schema["anyOf"]):
        out.append(f"{path}: matches none of anyOf")
    if "oneOf" in schema:
        matches = sum(not _problems(value, s, root, path) for s in schema["oneOf"])
        if matches != 1:
            out.append(f"{path}: matches {matches} of oneOf")
    if "const" in schema and (type(value), value) != (type(schema["const"]), schema["const"]):
        out.append(f"{path}: is not {schema['const']!r}")
    if "enum" in schema and value not in schema["enum"]:
        out.append(f"{path}: {value!r} is not one of {schema['enum']}")
    kind = schema.get("type")
    if kind is not None:
        if isinstance(value, bool) and kind not in ("boolean",):
            return [*out, f"{path}: a bool is not {kind}"]
        if not isinstance(value, _TYPES[kind]):
            return [*out, f"{path}: {type(value).__name__} is not {kind}"]
    if isinstance(value, int | float) and not isinstance(value, bool):
        if "minimum" in schema and value < schema["minimum"]:
            out.append(f"{path}: below {schema['minimum']}")
        if "maximum" in schema and value > schema["maximum"]:
            out.append(f"{path}: above {schema['maximum']}")
        if "exclusiveMinimum" in schema and value <= schema["exclusiveMinimum"]:
            out.append(f"{path}: not above {schema['exclusiveMinimum']}")
    if isinstance(value, str):
        if len(value) < schema.get("minLength", 0):
            out.append(f"{path}: too short")
        if len(value) > schema.get("maxLength", len(value)):
            out.append(f"{path}: too long")
    if isinstance(value, list) and "items" in schema:
        for i, item in enumerate(value):
            out += _problems(item, schema["items"], root, f"{path}[{i}]")
    if isinstance(value, dict):
        properties = schema.get("properties", {})
        for name in schema.get("required", []):
            if name not in value:
                out.append(f"{path}: missing {name}")
        for name, item in value.items():
            if name in properties:
                out += _problems(item, properties[name], root, f"{path}.{name}")
            elif schema.get("additionalProperties") is False:
                out.append(f"{path}: unexpected {name}")
    return out


def _name(message: p.WireModel, side: str) -> str:
    return f"{side}.{message.type}.json"  # type: ignore[attr-defined]


@pytest.mark.parametrize(
    ("side", "message"),
    [("client", s) for s in CLIENT_SAMPLES] + [("server", s) for s in SERVER_SAMPLES],
    ids=[f"client-{i}" for i in range(len(CLIENT_SAMPLES))]
    + [f"server-{i}" for i in range(len(SERVER_SAMPLES))],
)
def test_a_message_is_valid_by_its_schema(side: str, message: p.WireModel) -> None:
    dump = message.model_dump(mode="json")
    schema = SCHEMAS[_name(message, side)]
    assert set(schema.get("required", [])) <= set(dump)
    assert set(dump) <= set(schema["properties"])
    assert _problems(dump, schema, schema) == []
    union = SCHEMAS[f"{side}-message.json"]
    assert _problems(dump, union, union) == []


def _act(action: dict[str, Any]) -> dict[str, Any]:
    return {"type": "act", "game": "g", "state_id": 3, "action": action}


REFUSED: list[tuple[str, str, dict[str, Any], str]] = [
    # (case, schema file, message, a problem the validator must name)
    ("missing field", "client.hello.json", {"type": "hello"}, "missing protocol"),
    ("extra field", "client.hello.json", {"type": "hello", "protocol": 1, "x": 0}, "unexpected x"),
    ("wrong type tag", "client.hello.json", {"type": "hi", "protocol": 1}, "is not 'hello'"),
    ("bool for int", "client.hello.json", {"type": "hello", "protocol": True}, "a bool is not"),
    ("string for int", "client.hello.json", {"type": "hello", "protocol": "1"}, "str is not"),
    (
        "nullable seat 4",
        "client.join_game.json",
        {"type": "join_game", "name": "a", "seat": 4},
        "anyOf",
    ),
    ("empty name", "client.join_game.json", {"type": "join_game", "name": ""}, "too short"),
    ("unknown action", "client.act.json", _act({"kind": "fly"}), "oneOf"),
    (
        "negative cards",
        "client.act.json",
        _act({"kind": "discard", "cards": {"brick": -1}}),
        "oneOf",
    ),
    ("action with seat", "client-message.json", _act({"kind": "end_turn", "seat": 0}), "oneOf"),
    (
        "server type",
        "client-message.json",
        {"type": "welcome", "protocol": 1, "server": "s"},
        "oneOf",
    ),
    (
        "prompt seat 4",
        "server.prompt.json",
        {"type": "prompt", "game": "g", "state_id": 1, "seat": 4, "actions": []},
        "above 3",
    ),
    (
        "unknown code",
        "server.error.json",
        {"type": "error", "code": "oops", "message": "m"},
        "not one of",
    ),
]


@pytest.mark.parametrize(
    ("name", "dump", "problem"),
    [case[1:] for case in REFUSED],
    ids=[case[0] for case in REFUSED],
)
def test_the_validator_refuses_what_the_codec_refuses(
    name: str, dump: dict[str, Any], problem: str
) -> None:
    schema = SCHEMAS[name]
    problems = _problems(dump, schema, schema)
    assert any(problem in x for x in problems), problems
    codec = Codec(SUBPROTOCOL_JSON)
    decode = codec.decode_client if name.startswith("client") else codec.decode_server
    with pytest.raises(ProtocolError):
        decode(json.dumps(dump))
