"""Confidence levels of classify's components: reading them, and keeping those at or above a minimum.

Classify may say how sure it is of each component (``confidence``: high / medium / low, with a
``confidence_reason``, and optionally the ``rule`` or ``decision`` that made it). Older results
have no such field; a component without it is *unknown*, not high: a report filtered with
``--min-confidence`` cannot tell whether it passes, so it drops it and says how many it dropped.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, replace
from typing import Any

from mutreal.serialise import Record
from mutreal.study.labelsfile import ResultComponent, ResultRow

#: levels from least to most sure
LEVELS: tuple[str, ...] = ("low", "medium", "high")
#: the name a component without a (readable) confidence is counted under
UNKNOWN = "none"


def component_field(component: ResultComponent, name: str) -> Any:
    """A field of a component whether the row type names it or keeps it among the extras."""
    value = getattr(component, name, None)
    if value is None:
        value = component.extra.get(name)
    return value


def confidence_of(component: ResultComponent) -> str | None:
    """``"high"``, ``"medium"`` or ``"low"`` (case-insensitive in the file); None when missing or unknown."""
    value = component_field(component, "confidence")
    if not isinstance(value, str):
        return None
    level = value.strip().lower()
    return level if level in LEVELS else None


def level_name(component: ResultComponent) -> str:
    """The level a component is counted under: its confidence or :data:`UNKNOWN`."""
    return confidence_of(component) or UNKNOWN


def made_by(component: ResultComponent) -> str | None:
    """The noise rule or decision id that made the component (``rule`` / ``decision``), if named."""
    parts = []
    for name in ("rule", "decision"):
        value = component_field(component, name)
        if value:
            parts.append(f"{name} {value}")
    return "; ".join(parts) or None


@dataclass(frozen=True)
class ConfidenceFilter(Record):
    """What a ``--min-confidence`` filter did: components kept, dropped below the level, dropped unknown."""

    minimum: str
    kept: int
    below: int
    unknown: int

    def sentence(self) -> str:
        """One line for people: what was kept and what was dropped, unknown ones named apart."""
        return (
            f"Components with confidence {self.minimum} or above: {self.kept} kept, "
            f"{self.below} dropped below {self.minimum}, {self.unknown} dropped with no confidence."
        )


def filter_rows(rows: Iterable[ResultRow], minimum: str) -> tuple[list[ResultRow], ConfidenceFilter]:
    """Copies of ``rows`` holding only components of confidence ``minimum`` or above.

    A row's order and DeepCrime flag follow its remaining components, so a bug left with none
    becomes order 0 (the report lists it apart). Error rows pass unchanged.
    """
    if minimum not in LEVELS:
        raise ValueError(f"unknown confidence level {minimum!r}; use one of {', '.join(LEVELS)}")
    floor = LEVELS.index(minimum)
    out: list[ResultRow] = []
    kept = below = unknown = 0
    for row in rows:
        if not row.ok:
            out.append(row)
            continue
        keep = []
        for component in row.components:
            level = confidence_of(component)
            if level is None:
                unknown += 1
            elif LEVELS.index(level) < floor:
                below += 1
            else:
                keep.append(component)
        kept += len(keep)
        out.append(
            replace(
                row,
                components=keep,
                order=len(keep),
                simulable=bool(keep) and all(c.simulable for c in keep),
            )
        )
    return out, ConfidenceFilter(minimum, kept, below, unknown)
