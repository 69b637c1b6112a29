"""The lines between a server and its bot host (``hexhaven bot-host``), sans-I/O.

The server writes one JSON object a line on the host's standard input: ``seat`` (play this
seat of this game with this bot, rejoining with this token) and ``end`` (stop playing it).
The host writes one a line on its standard output: ``ended`` (the seat's game is over, or
the seat was lost or refused, with an exit code as ``hexhaven bot`` gives). A token travels
only here, never on a command line; it is hidden in every ``repr`` and log of a message.
"""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field, SecretStr, TypeAdapter, field_serializer


class _Line(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class HostSeat(_Line):
    """Play seat ``id`` (the server's number for it): the seat of ``game`` whose token is
    ``token``, with the bot ``kind`` (``kind`` or ``kind:strength``) under ``name``."""

    type: Literal["seat"] = "seat"
    id: str = Field(min_length=1, max_length=64)
    game: str = Field(min_length=1, max_length=256)
    token: SecretStr
    kind: str = Field(min_length=1, max_length=256)
    name: str = Field(max_length=256)

    @field_serializer("token", when_used="json")
    def _reveal(self, token: SecretStr) -> str:
        return token.get_secret_value()


class EndSeat(_Line):
    """Stop playing seat ``id`` (its game was stopped or closed)."""

    type: Literal["end"] = "end"
    id: str = Field(min_length=1, max_length=64)


class SeatEnded(_Line):
    """Seat ``id`` is no longer played: ``code`` 0 when its game was played to the end, 1
    when the seat was refused or lost, 2 when the server could not be reached or the bot
    could not be made (``why`` says so)."""

    type: Literal["ended"] = "ended"
    id: str = Field(min_length=1, max_length=64)
    code: int
    why: str = ""


ToHost = Annotated[HostSeat | EndSeat, Field(discriminator="type")]
_TO_HOST: TypeAdapter[HostSeat | EndSeat] = TypeAdapter(ToHost)


def line(message: HostSeat | EndSeat | SeatEnded) -> bytes:
    """One message as a line of JSON (with its token, if it carries one)."""
    return message.model_dump_json().encode() + b"\n"


def to_host(data: bytes | str) -> HostSeat | EndSeat:
    """A line the server wrote. Raises ``pydantic.ValidationError`` naming what is wrong."""
    return _TO_HOST.validate_json(data)


def from_host(data: bytes | str) -> SeatEnded:
    """A line the host wrote. Raises ``pydantic.ValidationError`` naming what is wrong."""
    return SeatEnded.model_validate_json(data)
