"""JSON-safe numbers: infinite effect sizes (perfect separation) survive a JSON round trip.

Standard JSON has no ``Infinity``; a perfectly separated pair of groups has Cohen's d = +/-inf by
definition (see :func:`mutreal.stats.effect.cohen_d`). We write such values as the strings
``"inf"`` / ``"-inf"``, which ``float()`` reads back. NaN never reaches here: every statistic
that could be NaN has a defined value or ``None`` instead. The stats records are read back by one
reader (:func:`dataclass_from_dict`), and those whose JSON is their fields written and read by one
base (:class:`FieldRecord`).
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import MISSING, asdict, fields
from typing import Any, TypeVar

T = TypeVar("T")


def number_to_json(value: float | None) -> float | str | None:
    """A float for JSON: finite as is, infinities as ``"inf"`` / ``"-inf"``, ``None`` as is."""
    if value is None:
        return None
    value = float(value)
    if math.isnan(value):
        raise ValueError("NaN must not reach serialisation: a statistic was left undefined")
    if math.isinf(value):
        return "inf" if value > 0 else "-inf"
    return value


def number_from_json(value: Any) -> float | None:
    """Inverse of :func:`number_to_json`."""
    return None if value is None else float(value)


def dataclass_from_dict(cls: type[T], data: Mapping[str, Any], **read: Any) -> T:
    """A dataclass read back from its ``to_dict``: each field by its own name, the ones with a
    default optional (rows stored before the field existed), ``read`` for fields stored otherwise
    (nested verdicts, other keys). One reader instead of a hand-written ``from_dict`` per verdict
    that lists every field again."""
    values: dict[str, Any] = {}
    for item in fields(cls):  # type: ignore[arg-type]
        if item.name in read:
            values[item.name] = read[item.name]
        elif item.name in data:
            values[item.name] = data[item.name]
        elif item.default is MISSING and item.default_factory is MISSING:
            raise KeyError(item.name)
    return cls(**values)


class FieldRecord:
    """Base of a statistics dataclass written as its fields (``dataclasses.asdict``) and read back
    field by field (:func:`dataclass_from_dict`). The verdicts and measures whose JSON is their fields
    inherit this pair instead of each writing it again; one whose JSON holds more (a count, a mean)
    starts its ``to_dict`` from this one's."""

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)  # type: ignore[call-overload]

    @classmethod
    def from_dict(cls: type[T], data: Mapping[str, Any]) -> T:
        return dataclass_from_dict(cls, data)
