"""Whether two values are the same to the last detail: for the wire models the protocol
makes without validating them, against the ones validation makes, and for the engine
actions it converts, against those of a generic conversion."""

from __future__ import annotations

from dataclasses import fields, is_dataclass
from typing import Any

from pydantic import BaseModel


def assert_exactly(got: Any, expected: Any, where: str = "") -> None:
    """``got`` is ``expected`` in value and in every type within: each model of the same
    class with the same fields given and no extras, each dataclass's fields alike, each
    list a list, each int an int (not a bool or an enum member)."""
    assert type(got) is type(expected), f"{where}: {type(got)} is not {type(expected)}"
    if isinstance(expected, BaseModel):
        assert got.model_fields_set == expected.model_fields_set, where
        assert got.__pydantic_extra__ == expected.__pydantic_extra__, where
        assert got.__pydantic_private__ == expected.__pydantic_private__, where
        assert list(got.__dict__) == list(expected.__dict__), where
        for name, value in expected.__dict__.items():
            assert_exactly(got.__dict__[name], value, f"{where}.{name}")
    elif is_dataclass(expected):
        for f in fields(expected):
            assert_exactly(getattr(got, f.name), getattr(expected, f.name), f"{where}.{f.name}")
    elif isinstance(expected, list | tuple):
        assert len(got) == len(expected), where
        for i, (a, b) in enumerate(zip(got, expected, strict=True)):
            assert_exactly(a, b, f"{where}.{i}")
    else:
        assert got == expected, f"{where}: {got!r} != {expected!r}"


def revalidated(model: BaseModel) -> BaseModel:
    """``model`` made again by validating its own values, given as it was given them."""
    given = {name: getattr(model, name) for name in model.model_fields_set}
    return type(model)(**given)
