"""Bytes in, messages out, and back: the protocol's codec, with no I/O of its own.

The websocket subprotocol picks the encoding: ``hexhaven.v1.msgpack`` (binary frames, the
default) or ``hexhaven.v1.json`` (text frames). Both carry the same models. Decoding never
raises anything but :class:`ProtocolError`, whose ``code`` and message go straight into an
``error`` message.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any, cast

import msgpack
from pydantic import TypeAdapter, ValidationError

from protocol.messages import (
    CLIENT_MESSAGES,
    SERVER_MESSAGES,
    SUBPROTOCOL_MSGPACK,
    SUBPROTOCOLS,
    ClientMessage,
    Error,
    ErrorCode,
    Events,
    Prompt,
    ServerMessage,
)
from protocol.payloads import IdentityCache, WireModel

_CLIENT: TypeAdapter[Any] = TypeAdapter(ClientMessage)
_SERVER: TypeAdapter[Any] = TypeAdapter(ServerMessage)
_Validate = Callable[[Any], Any]


def _validations(models: tuple[type[WireModel], ...]) -> dict[str, _Validate]:
    """Each message type's own validation: what its union's does for that type, less
    finding the type."""
    return {
        str(model.model_fields["type"].default): model.__pydantic_validator__.validate_python
        for model in models
    }


_CLIENT_VALIDATIONS = _validations(CLIENT_MESSAGES)
_SERVER_VALIDATIONS = _validations(SERVER_MESSAGES)
_CLIENT_TYPES = frozenset(_CLIENT_VALIDATIONS)
_SERVER_TYPES = frozenset(_SERVER_VALIDATIONS)


def _validated(data: Any, validations: dict[str, _Validate]) -> Any | None:
    """The message in decoded ``data`` as its type's own validation makes it (what the union
    of all messages would make), or None when that refuses it or its type is unknown."""
    kind = data.get("type") if type(data) is dict else None
    validate = validations.get(kind) if type(kind) is str else None
    if validate is None:
        return None
    try:
        return validate(data)
    except ValidationError:
        return None


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
        self._pack: Callable[[Any], bytes] = msgpack.Packer(use_bin_type=True).pack

    def encode(self, message: WireModel) -> Frame:
        """The frame for a message: bytes for msgpack, text for JSON. In msgpack, the bytes
        are those of ``msgpack.packb(message.model_dump(mode="json"), use_bin_type=True)``."""
        if not self.binary:
            return message.model_dump_json()
        kind = type(message)  # exactly: a subclass may have fields of its own
        if kind is Events:
            frame = _events_frame(cast(Events, message), self._pack)
        elif kind is Prompt:
            frame = _prompt_frame(cast(Prompt, message), self._pack)
        else:
            frame = None
        if frame is None:
            frame = self._pack(message.model_dump(mode="json"))
        return frame

    def decode_client(self, frame: Frame) -> Any:
        """A client message from a frame, strictly: an unknown field is an error. Raises
        :class:`ProtocolError`."""
        data = self._unpack(frame)
        message = _validated(data, _CLIENT_VALIDATIONS)
        if message is None:
            message = self._decode(data, _CLIENT, _CLIENT_TYPES, lenient=False)
        return message

    def decode_server(self, frame: Frame) -> Any:
        """A server message from a frame. Fields this client does not know are dropped, as
        docs/protocol.md asks of clients, since a newer server may add some; a message of a
        type it does not know raises :class:`ProtocolError` with ``unknown_type``, for the
        caller to skip. Raises :class:`ProtocolError`."""
        data = self._unpack(frame)
        message = _validated(data, _SERVER_VALIDATIONS)
        if message is None:
            message = self._decode(data, _SERVER, _SERVER_TYPES, lenient=True)
        return message

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
        self, data: Any, adapter: TypeAdapter[Any], types: frozenset[str], *, lenient: bool
    ) -> Any:
        """The message in decoded ``data`` that its type's own validation refused (or that
        has no known type): the union's, or the refusal that says why not."""
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


# An ``events`` or ``prompt`` frame is put together from the packed bytes of its parts:
# msgpack is concatenative, so a map is its header followed by each key and value packed,
# and an array its header followed by its items. The payloads (events, actions) are
# immutable and shared, so each one's bytes are packed once and kept.

_Pack = Callable[[Any], bytes]

_packed: IdentityCache[bytes] = IdentityCache(1 << 14)
"""The packed bytes of the payloads met so far."""
_FIXARRAYS = tuple(bytes((0x90 | n,)) for n in range(16))
"""The headers of arrays of 0 to 15 items."""
_PROMPT_TAIL = msgpack.packb(["deadline", None, "view", None], use_bin_type=True)[1:]
"""The end of a ``prompt`` with no deadline and no view."""
_EVENTS_TAIL = msgpack.packb(["view", None], use_bin_type=True)[1:]
"""The end of an ``events`` with no view."""
_VIEW_KEY = msgpack.packb("view", use_bin_type=True)
_KEPT_HEADS = 1024
"""Games whose frames' first bytes are kept, for each type (all are dropped past it)."""


class _Heads(dict[str, bytes]):
    """The first bytes of one type's frames, by game: the header of a map of ``fields``
    keys, its ``type``, its ``game`` and the key ``state_id``."""

    def __init__(self, kind: str, fields: int) -> None:
        super().__init__()
        self.kind = kind
        self.fields = fields

    def __missing__(self, game: str) -> bytes:
        if len(self) >= _KEPT_HEADS:
            self.clear()
        packed: bytes = msgpack.packb(
            ["type", self.kind, "game", game, "state_id"], use_bin_type=True
        )
        head = bytes((0x80 | self.fields,)) + packed[1:]  # the list's header becomes the map's
        self[game] = head
        return head


_EVENTS_HEADS = _Heads("events", 5)
_PROMPT_HEADS = _Heads("prompt", 7)


def _events_frame(message: Events, pack: _Pack) -> bytes | None:
    """The msgpack frame of ``events``; None for a game id that is not a str."""
    game = message.game
    if type(game) is not str:
        return None
    parts = [_EVENTS_HEADS[game], pack([message.state_id, "events"])[1:]]
    _add_payloads(parts, message.events, pack)
    view = message.view
    if view is None:
        parts.append(_EVENTS_TAIL)
    else:  # one view goes to every connection of its recipient: packed once
        parts += (_VIEW_KEY, _packed_payload(view, pack))
    return b"".join(parts)


def _prompt_frame(message: Prompt, pack: _Pack) -> bytes | None:
    """The msgpack frame of a ``prompt``; None for one with a view, a game id that is not a
    str or a deadline that is not a float."""
    game, deadline = message.game, message.deadline
    if message.view is not None or type(game) is not str:
        return None
    if deadline is None:
        tail = _PROMPT_TAIL
    elif type(deadline) is float:
        tail = pack(["deadline", deadline, "view", None])[1:]
    else:
        return None
    parts = [_PROMPT_HEADS[game], pack([message.state_id, "seat", message.seat, "actions"])[1:]]
    _add_payloads(parts, message.actions, pack)
    parts.append(tail)
    return b"".join(parts)


def _add_payloads(parts: list[bytes], payloads: list[Any], pack: _Pack) -> None:
    """Append to ``parts`` an array of payloads, packed."""
    count = len(payloads)
    if count < 16:
        parts.append(_FIXARRAYS[count])
    elif count < 1 << 16:
        parts.append(b"\xdc" + count.to_bytes(2, "big"))
    else:
        parts.append(b"\xdd" + count.to_bytes(4, "big"))
    try:
        parts.append(b"".join(map(_packed.values.__getitem__, map(id, payloads))))
        return
    except KeyError:  # one met for the first time
        pass
    parts.extend(_packed_payload(payload, pack) for payload in payloads)


def _packed_payload(payload: Any, pack: _Pack) -> bytes:
    """The packed bytes of ``payload``, kept by its identity (made once for each)."""
    data = _packed.values.get(id(payload))
    if data is None:
        data = _packed.keep(payload, pack(payload.model_dump(mode="json")))
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
