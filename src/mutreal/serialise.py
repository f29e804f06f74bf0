"""One dataclass <-> JSON dict serialiser for the records mutreal writes and reads back.

Most of mutreal's records (the program model, study and report records) are written as a dict of
their fields in field order and read back by filling each field from its key, a missing key giving
the field's default. Written out per class, that pair of methods is the same dozen lines again and
again, and a field added to the class but forgotten in one of them drifts silently. Here it is
written once: a record class inherits :class:`Record` and states only what differs from the plain
field copy, with :func:`wire` metadata on the field (a different key, a field left out when it is
None or empty, a field not written at all).

Writing walks values: records (anything with ``to_dict``) write themselves, enums write their
value, paths their text, lists, tuples and dicts are copied item by item (tuples as lists). Reading
follows the field's type hint: a record type reads with its ``from_dict`` (an optional one that is
missing, None or empty reads as None); ``list[X]``, ``tuple[X, ...]`` and ``dict[str, X]`` read their
items as ``X`` (a missing or None one reads as empty); an enum reads from its value, a path from its
text, and a plain ``int``/``float``/``str`` field is converted (hand-written files give ``5`` for
``5.0``; a number reads as a ``bool``). Keys that are no field are passed over; a required field
whose key is missing raises ``KeyError``, as ``d[key]`` would.
"""

from __future__ import annotations

import dataclasses
import inspect
import types
import typing
from dataclasses import dataclass
from enum import Enum
from functools import cache
from pathlib import PurePath
from typing import Any, ClassVar, Literal, TypeVar

R = TypeVar("R", bound="Record")

#: when a field is left out of the written dict
Omit = Literal["none", "empty"]


def wire(*, key: str | None = None, omit: Omit | None = None, write: bool = True) -> dict[str, Any]:
    """Field metadata saying how a field differs from the plain copy (``field(metadata=wire(...))``).

    ``key``: the name it is written under; ``omit``: leave it out when it is None (``"none"``) or
    empty/false (``"empty"``); ``write=False``: neither written nor read (facts kept for the process
    only, or kept apart by the class's own ``to_dict``)."""
    return {"wire": _Wire(key, omit, write)}


@dataclass(frozen=True)
class _Wire:
    """What :func:`wire` said about a field (the plain copy when a field has no ``wire`` metadata)."""

    key: str | None = None
    omit: Omit | None = None
    write: bool = True


@dataclass(frozen=True)
class _Slot:
    """How one field is written and read."""

    name: str
    key: str
    hint: Any
    omit: Omit | None
    write: bool
    required: bool


@cache
def _slots(cls: type) -> tuple[_Slot, ...]:
    hints = typing.get_type_hints(cls)
    slots = []
    for f in dataclasses.fields(cls):
        if not f.init:
            continue
        how: _Wire = f.metadata.get("wire", _Wire())
        required = f.default is dataclasses.MISSING and f.default_factory is dataclasses.MISSING
        slots.append(_Slot(f.name, how.key or f.name, hints[f.name], how.omit, how.write, required))
    return tuple(slots)


def encode(value: Any) -> Any:
    """A value as JSON data: records by their ``to_dict``, enums by value, containers copied."""
    if isinstance(value, Enum):
        return value.value
    if value is None or isinstance(value, (str, int, float)):
        return value
    if isinstance(value, PurePath):
        return str(value)
    to_dict = getattr(value, "to_dict", None)
    if callable(to_dict):
        return to_dict()
    if isinstance(value, (list, tuple)):
        return [encode(v) for v in value]
    if isinstance(value, dict):
        return {k: encode(v) for k, v in value.items()}
    return value


@cache
def _written(cls: type) -> tuple[tuple[str, _Slot | None], ...]:
    """(key, slot) in written order; the slot is None for a derived property."""
    keyed: dict[str, _Slot | None] = {s.key: s for s in _slots(cls) if s.write}
    order = list(keyed)
    for name, after in getattr(cls, "wire_derived", {}).items():
        keyed[name] = None
        order.insert(order.index(after) + 1 if after is not None else len(order), name)
    explicit = getattr(cls, "wire_order", None)
    if explicit is not None:
        if sorted(explicit) != sorted(order):
            raise TypeError(f"{cls.__name__}.wire_order names other keys than it writes: {sorted(order)}")
        order = list(explicit)
    return tuple((key, keyed[key]) for key in order)


def record_to_dict(record: Any) -> dict[str, Any]:
    """A dataclass record as a dict of its written fields, in field order (see :class:`Record`)."""
    out: dict[str, Any] = {}
    for key, slot in _written(type(record)):
        value = getattr(record, slot.name if slot is not None else key)
        if slot is None and inspect.ismethod(value):
            value = value()
        if slot is not None and (
            (slot.omit == "none" and value is None) or (slot.omit == "empty" and not value)
        ):
            continue
        out[key] = encode(value)
    return out


def decode(value: Any, hint: Any) -> Any:
    """JSON data read as a value of type ``hint`` (see the module docstring for the rules)."""
    origin = typing.get_origin(hint)
    if origin in (typing.Union, types.UnionType):
        inner = [a for a in typing.get_args(hint) if a is not type(None)]
        if value is None:
            return None
        if len(inner) != 1:
            return value
        if _is_record(inner[0]) and not value:
            return None
        return decode(value, inner[0])
    args = typing.get_args(hint)
    if origin is list:
        return [decode(v, args[0]) for v in value or ()] if args else list(value or ())
    if origin is tuple:
        if len(args) == 2 and args[1] is Ellipsis:
            return tuple(decode(v, args[0]) for v in value or ())
        return tuple(decode(v, a) for v, a in zip(value, args, strict=True)) if args else tuple(value or ())
    if origin is dict:
        return {k: decode(v, args[1]) for k, v in (value or {}).items()} if args else dict(value or {})
    if hint in (list, tuple, dict):
        return hint(value or ())
    if isinstance(hint, type):
        if issubclass(hint, Enum):
            return hint(value)
        if _is_record(hint):
            return hint.from_dict(value)
        if value is None:
            return None
        if hint in (int, float, str) and not isinstance(value, bool):
            return hint(value)
        if hint is bool and isinstance(value, (int, float)):
            return bool(value)
        if issubclass(hint, PurePath):
            return hint(value)
    return value


def _is_record(hint: Any) -> bool:
    return isinstance(hint, type) and callable(getattr(hint, "from_dict", None))


def record_kwargs(cls: type, d: typing.Mapping[str, Any]) -> dict[str, Any]:
    """The constructor arguments of record class ``cls`` read from ``d``; a missing optional key is
    left out (the field's default fills it), a missing required one raises ``KeyError``."""
    kwargs: dict[str, Any] = {}
    for slot in _slots(cls):
        if not slot.write:
            continue
        if slot.key in d:
            kwargs[slot.name] = decode(d[slot.key], slot.hint)
        elif slot.required:
            raise KeyError(slot.key)
    return kwargs


def record_from_dict(cls: type[R], d: typing.Mapping[str, Any]) -> R:
    """A record of class ``cls`` read back from its dict (see :func:`record_kwargs`)."""
    return cls(**record_kwargs(cls, d))


class Record:
    """Base of a dataclass written as the dict of its fields: ``to_dict`` / ``from_dict`` for free.

    Two class attributes say where the written dict is not the fields in field order:
    ``wire_derived`` maps read-only properties (or methods taking no argument) that are written too
    (never read back) to the key
    they are written after (None: at the end), and ``wire_order`` lists every written key in order
    where the format's order is not the fields'. A subclass overrides ``to_dict`` / ``from_dict``
    only where its format is more than that, and then starts from :func:`record_to_dict` /
    :func:`record_kwargs`."""

    wire_derived: ClassVar[dict[str, str | None]] = {}
    wire_order: ClassVar[tuple[str, ...] | None] = None

    def to_dict(self) -> dict[str, Any]:
        return record_to_dict(self)

    @classmethod
    def from_dict(cls: type[R], d: typing.Mapping[str, Any]) -> R:
        return record_from_dict(cls, d)


class TextEnum(str, Enum):
    """An enum of strings that prints, formats and is written as its value (``layer.activation``).

    The closed sets mutreal writes into its files (component kinds, decision ids) keep the plain
    strings the files have always held, so that output does not change when a string becomes a
    member; ``enum.StrEnum`` does the same from Python 3.11 on, and mutreal supports 3.10."""

    def __str__(self) -> str:
        return self.value

    def __format__(self, spec: str) -> str:
        return format(self.value, spec)
