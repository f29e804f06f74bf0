"""JSON-safe numbers: infinite effect sizes (perfect separation) survive a JSON round trip.

Standard JSON has no ``Infinity``; a perfectly separated pair of groups has Cohen's d = +/-inf by
definition (see :func:`mutreal.stats.effect.cohen_d`). We write such values as the strings
``"inf"`` / ``"-inf"``, which ``float()`` reads back. NaN never reaches here: every statistic
that could be NaN has a defined value or ``None`` instead.
"""

from __future__ import annotations

import math
from typing import Any


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
