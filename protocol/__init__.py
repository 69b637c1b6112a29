"""The wire between the server and its players: typed messages and their codec (sans-I/O).

:mod:`protocol.messages` defines every message, :mod:`protocol.payloads` the actions,
events and views they carry (and their conversion from the engine's),
:mod:`protocol.codec` turns frames into messages and back, and
:mod:`protocol.server_session` holds the rules of a connection on the server's side.
Nothing here does I/O.
"""

from protocol.codec import Codec, ProtocolError
from protocol.messages import (
    PROTOCOL_VERSION,
    SUBPROTOCOL_JSON,
    SUBPROTOCOL_MSGPACK,
    SUBPROTOCOLS,
    ErrorCode,
)
from protocol.payloads import (
    action_from_engine,
    action_to_engine,
    event_from_engine,
    view_from_engine,
)
from protocol.server_session import Limits, ServerSession

__all__ = [
    "PROTOCOL_VERSION",
    "SUBPROTOCOLS",
    "SUBPROTOCOL_JSON",
    "SUBPROTOCOL_MSGPACK",
    "Codec",
    "ErrorCode",
    "Limits",
    "ProtocolError",
    "ServerSession",
    "action_from_engine",
    "action_to_engine",
    "event_from_engine",
    "view_from_engine",
]
