"""Precision of classify's components per confidence level, against each reader, and the unsupported share.

A confidence on each component is only useful if it sorts the components by how often a careful
reader agrees: high ones should be named by the readers more often than low ones. This module
measures that, with the scoring script's matching (``shared/tools/score_classify.py``): codes
matched as multisets per bug.

Multiset matching does not say *which* of two predicted ACH matched the one labelled ACH, so
credit is shared: in a bug where classify names a code ``p`` times and the reference ``l`` times,
each of the ``p`` components gets ``min(p, l) / p`` of a match, whatever its confidence. The
credits of all levels add up to the scoring script's matches, so the "all" row is its precision
(against one reader) and its ``supported_precision`` (against the union of two readers), and no
level is favoured by the order of the components.

* precision per level against each reference: over the bugs that reference labels with codes
  (labelled bugs without an ok result count with no component, as in the script);
* supported precision per level: of the components at that level, the share named by at least one
  reader (multiset union per bug), over the bugs both readers label, as the script's
  ``supported_precision``; the rest is the *unsupported* share: named by neither reader.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from mutreal.study.confidence_levels import LEVELS, UNKNOWN, level_name
from mutreal.study.labelsfile import LabelledBug, ResultRow, read_labels, read_results

#: levels in the order they are printed (most sure first), then components with none, then all
ROWS: tuple[str, ...] = (*reversed(LEVELS), UNKNOWN)
ALL = "all"


@dataclass
class LevelScore:
    """Components of one level and their (shared) matches."""

    level: str
    components: int = 0
    matched: float = 0.0

    @property
    def precision(self) -> float | None:
        return self.matched / self.components if self.components else None

    def to_dict(self) -> dict[str, Any]:
        return {
            "level": self.level,
            "components": self.components,
            "matched": round(self.matched, 6),
            "precision": None if self.precision is None else round(self.precision, 6),
        }


@dataclass
class LevelTable:
    """Per-level scores against one reference (or the union of two), with the bugs scored."""

    reference: str
    bugs: int
    levels: dict[str, LevelScore] = field(default_factory=dict)

    def row(self, level: str) -> LevelScore:
        return self.levels.setdefault(level, LevelScore(level))

    @property
    def total(self) -> LevelScore:
        out = LevelScore(ALL)
        for score in self.levels.values():
            out.components += score.components
            out.matched += score.matched
        return out

    def ordered(self) -> list[LevelScore]:
        """The levels that have components, most sure first, then the "all" row."""
        return [self.levels[k] for k in ROWS if k in self.levels and self.levels[k].components] + [self.total]

    def to_dict(self) -> dict[str, Any]:
        return {
            "reference": self.reference,
            "bugs": self.bugs,
            "levels": [s.to_dict() for s in self.ordered()],
        }


@dataclass
class ConfidenceAgreement:
    """Precision per level against each reference, and the supported share against both readers."""

    references: list[LevelTable] = field(default_factory=list)
    supported: LevelTable | None = None

    def unsupported_that_are_low(self) -> tuple[float, float] | None:
        """(unsupported components, of them low confidence): where the readers' disagreements sit.

        A confidence is useful when the components neither reader names are the low ones; the
        counts are shared matches, as everywhere here, so they may be fractional.
        """
        if self.supported is None:
            return None
        unsupported = {k: s.components - s.matched for k, s in self.supported.levels.items()}
        return sum(unsupported.values()), unsupported.get("low", 0.0)

    def to_dict(self) -> dict[str, Any]:
        supported = None
        low = self.unsupported_that_are_low()
        if self.supported is not None:
            supported = self.supported.to_dict()
            for level in supported["levels"]:
                p = level["precision"]
                level["unsupported_share"] = None if p is None else round(1 - p, 6)
            total, of_them_low = low  # type: ignore[misc]
            supported["unsupported_low"] = {
                "unsupported": round(total, 6),
                "low": round(of_them_low, 6),
                "share": round(of_them_low / total, 6) if total else None,
            }
        return {"references": [t.to_dict() for t in self.references], "supported": supported}


def _credit(table: LevelTable, row: ResultRow | None, reference: Counter[str]) -> None:
    """Add one bug's components to ``table``: each shares its code's multiset matches."""
    if row is None or not row.ok:
        return
    predicted = Counter(row.codes)
    for component in row.components:
        share = min(predicted[component.code], reference[component.code]) / predicted[component.code]
        score = table.row(level_name(component))
        score.components += 1
        score.matched += share


def per_level(name: str, rows: Mapping[str, ResultRow], reference: Sequence[LabelledBug]) -> LevelTable:
    """Precision per confidence level of ``rows`` against one reader's labels."""
    labelled = [bug for bug in reference if bug.codes]
    table = LevelTable(name, len(labelled))
    for bug in labelled:
        _credit(table, rows.get(bug.id), Counter(bug.codes))
    return table


def supported_per_level(
    rows: Mapping[str, ResultRow], first: Sequence[LabelledBug], second: Sequence[LabelledBug]
) -> LevelTable:
    """Share of each level's components that at least one of two readers names (bugs both label)."""
    a = {bug.id: Counter(bug.codes) for bug in first}
    b = {bug.id: Counter(bug.codes) for bug in second}
    ids = [i for i in a if i in b and (a[i] or b[i])]
    table = LevelTable("either reader", len(ids))
    for bug_id in ids:
        _credit(table, rows.get(bug_id), a[bug_id] | b[bug_id])
    return table


def confidence_agreement(
    rows: Sequence[ResultRow],
    references: Sequence[tuple[str, Sequence[LabelledBug]]],
) -> ConfidenceAgreement:
    """Per-level precision against every reference; with two references, the supported share too.

    ``rows`` are matched by id, the last row of an id winning (as in the scoring script).
    """
    by_id = {row.id: row for row in rows}
    out = ConfidenceAgreement([per_level(name, by_id, bugs) for name, bugs in references])
    if len(references) >= 2:
        out.supported = supported_per_level(by_id, references[0][1], references[1][1])
    return out


def _fmt(x: float | None) -> str:
    return "-" if x is None else f"{x:.3f}"


def format_confidence_agreement(agreement: ConfidenceAgreement) -> str:
    """Plain-text tables: one per reference, then the supported/unsupported shares."""
    lines: list[str] = []
    for table in agreement.references:
        lines += [
            "",
            f"precision per confidence level against {table.reference} ({table.bugs} labelled bugs)",
        ]
        lines.append("level   components  matched  precision")
        for s in table.ordered():
            lines.append(f"{s.level:<7} {s.components:>10}  {s.matched:>7.1f}  {_fmt(s.precision):>9}")
    if agreement.supported is not None:
        table = agreement.supported
        lines += [
            "",
            f"named by either reader, per confidence level ({table.bugs} bugs both readers label)",
            "level   components  supported  precision  unsupported",
        ]
        for s in table.ordered():
            unsupported = None if s.precision is None else 1 - s.precision
            lines.append(
                f"{s.level:<7} {s.components:>10}  {s.matched:>9.1f}  {_fmt(s.precision):>9}  {_fmt(unsupported):>11}"
            )
        total, of_them_low = agreement.unsupported_that_are_low()  # type: ignore[misc]
        share = of_them_low / total if total else None
        lines.append(
            f"unsupported components: {total:.1f}, of them low confidence: {of_them_low:.1f} ({_fmt(share)})"
        )
    if any(
        UNKNOWN in t.levels
        for t in [*agreement.references, *([agreement.supported] if agreement.supported else [])]
    ):
        lines += ["", f"('{UNKNOWN}': components without a confidence field)"]
    lines.append(
        "(matches are shared among the components of a code in a bug, so levels add up to the totals)"
    )
    return "\n".join(lines)


def has_confidence(rows: Sequence[ResultRow]) -> bool:
    """True when some component of ``rows`` carries a readable confidence level."""
    return any(level_name(c) != UNKNOWN for row in rows for c in row.components)


def confidence_agreement_files(
    results: str | Path, labels: str | Path, second: str | Path | None = None
) -> tuple[ConfidenceAgreement, bool]:
    """:func:`confidence_agreement` of a results JSONL against one or two labels CSVs (named by
    file stem), and whether any component had a confidence. Unreadable result lines are skipped
    (``mutreal agree`` lists them from its own reading)."""
    rows = read_results(results)
    references = [(Path(labels).stem, read_labels(labels))]
    if second is not None:
        name = Path(second).stem
        if name == references[0][0]:
            name = f"{name} (second)"
        references.append((name, read_labels(second)))
    return confidence_agreement(rows, references), has_confidence(rows)
