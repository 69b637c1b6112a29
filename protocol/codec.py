"""Bytes in, messages out, and back: the protocol's codec, with no I/O of its own.

The websocket subprotocol picks the encoding: ``hexhaven.v1.msgpack`` (binary frames, the
default) or ``hexhaven.v1.json`` (text frames). Both carry the same models. Decoding never
raises anything but :class:`ProtocolError`, whose ``code`` and message go straight into an
``error`` message.
"""

from __future__ import annotations

import json
from typing import Any

import msgpack
from pydantic import TypeAdapter, ValidationError

from protocol.messages import (
    SUBPROTOCOL_MSGPACK,
    SUBPROTOCOLS,
    ClientMessage,
    Error,
    ErrorCode,
    ServerMessage,
)
from protocol.payloads import WireModel

_CLIENT: TypeAdapter[Any] = TypeAdapter(ClientMessage)
_SERVER: TypeAdapter[Any] = TypeAdapter(ServerMessage)
_CLIENT_TYPES = frozenset(_CLIENT.json_schema()["discriminator"]["mapping"])
_SERVER_TYPES = frozenset(_SERVER.json_schema()["discriminator"]["mapping"])

Frame = bytes | str
MAX_GAME_ID = 64
"""The longest ``game`` a refusal names back (a longer one is no game id)."""


class ProtocolError(Exception):
    """A frame that is not a valid message; ``code`` is an :class:`ErrorCode`, ``game`` the
    game the frame named, if it named one (for the ``error``'s ``game``)."""

    def __init__(self, code: ErrorCode, message: str, game: str | None = None) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.game = game

    def to_message(self) -> Error:
        return Error(code=self.code, message=self.message, game=self.game)


class Codec:
    """Encodes and decodes messages for one connection's subprotocol."""

    def __init__(self, subprotocol: str | None = SUBPROTOCOL_MSGPACK) -> None:
        if subprotocol is None:
            subprotocol = SUBPROTOCOL_MSGPACK
        if subprotocol not in SUBPROTOCOLS:
            raise ValueError(f"unknown subprotocol {subprotocol!r}; use one of {SUBPROTOCOLS}")
        self.subprotocol = subprotocol
        self.binary = subprotocol == SUBPROTOCOL_MSGPACK

    def encode(self, message: WireModel) -> Frame:
        """The frame for a message: bytes for msgpack, text for JSON."""
        if self.binary:
            data: bytes = msgpack.packb(message.model_dump(mode="json"), use_bin_type=True)
            return data
        return message.model_dump_json()

    def decode_client(self, frame: Frame) -> Any:
        """A client message from a frame, strictly: an unknown field is an error. Raises
        :class:`ProtocolError`."""
        return self._decode(frame, _CLIENT, _CLIENT_TYPES, lenient=False)

    def decode_server(self, frame: Frame) -> Any:
        """A server message from a frame. Fields this client does not know are dropped, as
        docs/protocol.md asks of clients, since a newer server may add some; a message of a
        type it does not know raises :class:`ProtocolError` with ``unknown_type``, for the
        caller to skip. Raises :class:`ProtocolError`."""
        return self._decode(frame, _SERVER, _SERVER_TYPES, lenient=True)

    def read_server(self, frame: Frame) -> Any | None:
        """:meth:`decode_server` for a client's read loop: None for a message of a type this
        client does not know, which a client ignores (docs/protocol.md)."""
        try:
            return self.decode_server(frame)
        except ProtocolError as exc:
            if exc.code == ErrorCode.UNKNOWN_TYPE:
                return None
            raise

    def _decode(
        self, frame: Frame, adapter: TypeAdapter[Any], types: frozenset[str], *, lenient: bool
    ) -> Any:
        data = self._unpack(frame)
        if not isinstance(data, dict):
            raise ProtocolError(ErrorCode.BAD_MESSAGE, "a message is an object with a 'type'")
        named = data.get("game")
        game = named if isinstance(named, str) and 0 < len(named) <= MAX_GAME_ID else None
        kind = data.get("type")
        if not isinstance(kind, str):
            raise ProtocolError(ErrorCode.BAD_MESSAGE, "a message needs a 'type' string", game)
        if kind not in types:
            raise ProtocolError(
                ErrorCode.UNKNOWN_TYPE,
                f"there is no message of type {kind[:40]!r}; see docs/protocol.md",
                game,
            )
        try:
            return adapter.validate_python(data)
        except ValidationError as exc:
            unknown = [e["loc"] for e in exc.errors() if e["type"] == "extra_forbidden"]
            if not (lenient and unknown):
                message = _explain(kind, data, exc)
                raise ProtocolError(ErrorCode.BAD_MESSAGE, message, game) from None
        for loc in unknown:
            _drop(data, loc[1:])
        try:
            return adapter.validate_python(data)
        except ValidationError as exc:
            raise ProtocolError(ErrorCode.BAD_MESSAGE, _explain(kind, data, exc), game) from None

    def _unpack(self, frame: Frame) -> Any:
        if self.binary:
            if not isinstance(frame, bytes):
                raise ProtocolError(
                    ErrorCode.BAD_FRAME, "this connection speaks msgpack: send binary frames"
                )
            try:
                return msgpack.unpackb(frame, raw=False, strict_map_key=True)
            except Exception:  # msgpack raises several unrelated exception types
                raise ProtocolError(ErrorCode.BAD_FRAME, "the frame is not valid msgpack") from None
        if not isinstance(frame, str):
            raise ProtocolError(
                ErrorCode.BAD_FRAME, "this connection speaks JSON: send text frames"
            )
        try:
            data = json.loads(frame)
        except (ValueError, RecursionError):
            raise ProtocolError(ErrorCode.BAD_FRAME, "the frame is not valid JSON") from None
        if "\\u" in frame:  # only a \u escape can make a string that UTF-8 cannot carry
            where = _unencodable(data)
            if where is not None:
                place = ".".join(where) or "the top level"
                raise ProtocolError(
                    ErrorCode.BAD_MESSAGE,
                    f"the text at {place} cannot be encoded: it has an unpaired surrogate "
                    "(a \\ud800-\\udfff escape not in a pair); send text that is valid Unicode",
                )
        return data


def _is_encodable(text: str) -> bool:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def _unencodable(data: object, depth: int = 0) -> list[str] | None:
    """The path (keys and indexes) of the first string in decoded JSON, key or value, that
    UTF-8 cannot encode (an unpaired surrogate); None when every string can be."""
    if isinstance(data, str):
        return None if _is_encodable(data) else []
    if depth > 64:  # deeper than any message: its strings are refused by the models anyway
        return None
    if isinstance(data, dict):
        for key, value in data.items():
            if not _is_encodable(key):
                return [repr(key.encode("utf-8", "backslashreplace").decode())]
            inner = _unencodable(value, depth + 1)
            if inner is not None:
                return [key, *inner]
    elif isinstance(data, list):
        for i, value in enumerate(data):
            inner = _unencodable(value, depth + 1)
            if inner is not None:
                return [str(i), *inner]
    return None


def _explain(kind: str, data: object, exc: ValidationError) -> str:
    """One sentence naming the first problem of an invalid message and where it is."""
    first = exc.errors(include_url=False)[0]
    # The first step is always the tag of the message union: the message's own type.
    where = ".".join(_path(data, first["loc"][1:]))
    count = exc.error_count()
    more = f" (and {count - 1} more problems)" if count > 1 else ""
    place = f" at {where}" if where else ""
    return f"{kind} message{place}: {first['msg']}{more}"


def _path(data: object, loc: tuple[int | str, ...]) -> list[str]:
    """The error location as field names and indexes."""
    return [str(part) for part in _steps(data, loc)]


def _drop(data: object, loc: tuple[int | str, ...]) -> None:
    """Remove the field at an error location from the decoded data."""
    *steps, last = _steps(data, loc)
    node = data
    for step in steps:
        node = node[step]  # type: ignore[index]
    if isinstance(node, dict):
        node.pop(last, None)


def _steps(data: object, loc: tuple[int | str, ...]) -> list[int | str]:
    """An error location as the keys and indexes of the data, without the tags pydantic
    inserts for the member of a discriminated union it chose (the input's own
    ``type``/``kind``)."""
    out: list[int | str] = []
    node = data
    for part in loc:
        if (
            isinstance(node, dict)
            and part not in node
            and part
            in (
                node.get("type"),
                node.get("kind"),
            )
        ):
            continue  # a union tag, not a field
        out.append(part)
        if isinstance(node, dict):
            node = node.get(part)
        elif isinstance(node, list) and isinstance(part, int) and 0 <= part < len(node):
            node = node[part]
        else:
            node = None
    return out
