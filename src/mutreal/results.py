"""Classify's results JSONL: the one type that writes it and reads it back.

``mutreal classify --manifest`` writes a :class:`BugResult` a line; ``agree``, ``report``,
``hom-generate`` and the Python API read the same lines back into the same type. One type for both
directions means a field added on the writing side is read on the other without a second model
drifting out of step (the format is in ``docs/ARCHITECTURE.md``).

Reading is tolerant, as the study's scoring script is, because results files are also written by
hand or by older versions: unknown fields are kept in ``extra`` and written back, a component
without ``simulable`` is simulable when it names a DeepCrime operator, a row without ``status`` is
not ``ok``, and a line that is not a JSON object with an ``id`` is reported as a
:class:`ReadProblem`, never raised, so one bad line never stops a batch.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Iterable, Iterator
from dataclasses import InitVar, dataclass, field, fields
from pathlib import Path
from typing import Any, ClassVar, TextIO

from mutreal.serialise import Record, record_to_dict, wire

log = logging.getLogger(__name__)


class ResultsFormatError(ValueError):
    """A results line that is JSON but not a classified bug (no ``id``, not an object)."""


@dataclass
class ComponentResult(Record):
    """One labelled fault component of a classified bug (a ``components`` item of the JSONL)."""

    code: str
    taxonomy: str | None = None
    taxonomy_id: str | None = None
    category: str | None = None
    deepcrime: str | None = None
    simulable: bool = False
    deepcrime_strict: bool = False
    reason: str | None = None
    element: str | None = None
    kind: str | None = None
    change: str | None = None
    before: str | None = None
    after: str | None = None
    buggy_file: str | None = None
    buggy_line: int | None = None
    fixed_file: str | None = None
    fixed_line: int | None = None
    #: how sure classify is of the component (high / medium / low) and what lowered it; None in
    #: results written before classify said so
    confidence: str | None = None
    confidence_reason: str | None = None
    #: The values ``before``/``after`` resolve to where they are names (``{"before": 2, "after": 1}``
    #: for ``epochs -> epochs``): ``before`` and ``after`` stay the short source text, so without this
    #: a changed constant held in a variable would read as no change at all.
    resolved: dict[str, Any] = field(default_factory=dict, compare=False)
    #: fields of the line this version does not know, written back unchanged
    extra: dict[str, Any] = field(default_factory=dict, metadata=wire(write=False))

    def to_dict(self) -> dict[str, Any]:
        return {**record_to_dict(self), **self.extra}

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> ComponentResult:
        """Tolerant: ``simulable`` defaults to "has a DeepCrime operator", as the scoring script does."""
        known = {"code", "simulable", "deepcrime_strict", "resolved", *_COMPONENT_FIELDS}
        return cls(
            **{name: d.get(name) for name in _COMPONENT_FIELDS if name not in _DEFAULTED},
            code=str(d.get("code", "")).upper(),
            simulable=bool(d.get("simulable", d.get("deepcrime") is not None)),
            deepcrime_strict=bool(d.get("deepcrime_strict", False)),
            resolved=dict(d.get("resolved") or {}),
            extra={k: v for k, v in d.items() if k not in known},
        )


#: the written fields of a component, in the order they are written
_COMPONENT_FIELDS = tuple(f.name for f in fields(ComponentResult) if f.name != "extra")
#: fields :meth:`ComponentResult.from_dict` does not copy as they are
_DEFAULTED = {"code", "simulable", "deepcrime_strict", "resolved"}


@dataclass
class BugResult(Record):
    """One classified bug (a line of the results JSONL; format in docs/ARCHITECTURE.md).

    ``order`` and ``simulable`` are worked out from the components, not stored, so that they can
    never disagree with them.
    """

    id: str
    benchmark: str | None = None
    status: str = "ok"
    error: str | None = None
    components: list[ComponentResult] = field(default_factory=list)
    data: dict[str, Any] = field(default_factory=dict)
    era: dict[str, Any] = field(default_factory=dict)
    set_aside: list[Any] = field(default_factory=list)
    opaque_share: float | None = 0.0
    files: list[dict[str, str | None]] = field(default_factory=list)
    #: the statement diff's coverage (:mod:`mutreal.compare.coverage`): changed statements after the
    #: noise rules, how many a component explains, the noise statements by rule; None in rows written
    #: before classify measured it
    changed_statements: int | None = None
    explained_statements: int | None = None
    noise_statements: dict[str, int] = field(default_factory=dict)
    #: every changed statement no component explains (file, line, change, before, after, touches)
    unexplained: list[dict[str, Any]] = field(default_factory=list)
    #: fields of the line this version does not know, written back unchanged
    extra: dict[str, Any] = field(default_factory=dict, metadata=wire(write=False))
    #: accepted (``dataclasses.replace(row, components=kept, order=...)``, older callers) but not
    #: kept: the properties of the same names, set below the class, follow the components
    order: InitVar[int | None] = None
    simulable: InitVar[bool | None] = None

    #: written, never read: both follow the components
    wire_derived: ClassVar = {"order": "error", "simulable": "order"}

    def __post_init__(self, order: int | None, simulable: bool | None) -> None:
        del order, simulable  # derived from the components, so never out of step with them

    @property
    def ok(self) -> bool:
        return self.status == "ok"

    @property
    def explained_share(self) -> float | None:
        """Share of the changed statements a component explains (None: not measured, or no change)."""
        if not self.ok or not self.changed_statements or self.explained_statements is None:
            return None
        return self.explained_statements / self.changed_statements

    @property
    def codes(self) -> list[str]:
        """The predicted codes in component order (upper-cased, as the scoring script compares)."""
        return [c.code for c in self.components]

    def to_dict(self) -> dict[str, Any]:
        """The row as written: an error row's components are left out, the opaque share is rounded."""
        d = record_to_dict(self)
        if not self.ok:
            d["components"] = []
        if self.opaque_share is not None:
            d["opaque_share"] = round(self.opaque_share, 4)
        d.update(self.extra)
        return d

    def to_json_line(self) -> str:
        """The row as one line of the results JSONL (newline included)."""
        return json.dumps(self.to_dict()) + "\n"

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> BugResult:
        if "id" not in d:
            raise ResultsFormatError("result row without an id")
        components = [ComponentResult.from_dict(c) for c in d.get("components") or [] if isinstance(c, dict)]
        return cls(
            id=str(d["id"]),
            benchmark=d.get("benchmark"),
            status=str(d.get("status", "")),
            error=d.get("error"),
            components=components,
            data=d.get("data") or {},
            era=d.get("era") or {},
            set_aside=list(d.get("set_aside") or []),
            opaque_share=d.get("opaque_share"),
            files=list(d.get("files") or []),
            changed_statements=d.get("changed_statements"),
            explained_statements=d.get("explained_statements"),
            noise_statements=dict(d.get("noise_statements") or {}),
            unexplained=[u for u in d.get("unexplained") or [] if isinstance(u, dict)],
            extra={k: v for k, v in d.items() if k not in _BUG_KEYS},
        )


def _order(self: BugResult) -> int:
    """Number of fault components (0 for an error row)."""
    return len(self.components) if self.ok else 0


def _simulable(self: BugResult) -> bool:
    """Whether every component is simulable (and there is at least one)."""
    return self.ok and bool(self.components) and all(c.simulable for c in self.components)


# properties set after the dataclass is made, so that the init-only arguments of the same names stay
BugResult.order = property(_order, doc=_order.__doc__)  # type: ignore[assignment,method-assign]
BugResult.simulable = property(_simulable, doc=_simulable.__doc__)  # type: ignore[assignment,method-assign]

#: the keys a bug row is written with (``order`` and ``simulable`` are derived on reading)
_BUG_KEYS = frozenset(BugResult(id="").to_dict())


@dataclass
class ReadProblem(Record):
    """A line of a results file that could not be read (kept so a batch never stops on it)."""

    line: int
    message: str


def _lines(source: str | Path | Iterable[str]) -> Iterator[str]:
    if isinstance(source, (str, Path)):
        with open(source, encoding="utf-8") as fh:
            yield from fh
    else:
        yield from source


def iter_results(
    source: str | Path | Iterable[str], problems: list[ReadProblem] | None = None
) -> Iterator[BugResult]:
    """Rows of a results JSONL file (a path, or its lines), lazily. Blank lines are skipped; a line
    that is not a JSON object with an ``id`` is logged and, when ``problems`` is given, appended to
    it, never raised."""
    for number, line in enumerate(_lines(source), 1):
        line = line.strip()
        if not line:
            continue
        try:
            obj = json.loads(line)
            if not isinstance(obj, dict):
                raise ResultsFormatError("not a JSON object")
            yield BugResult.from_dict(obj)
        except (ValueError, TypeError) as exc:
            log.warning("%s:%d: unreadable result line: %s", source, number, exc)
            if problems is not None:
                problems.append(ReadProblem(number, str(exc)))


def read_results(
    source: str | Path | Iterable[str], problems: list[ReadProblem] | None = None
) -> list[BugResult]:
    """All rows of a results JSONL file (see :func:`iter_results`). A later row with the same id
    replaces an earlier one in the scoring script; callers wanting that use :func:`results_by_id`."""
    return list(iter_results(source, problems))


def results_by_id(rows: Iterable[BugResult]) -> dict[str, BugResult]:
    """id -> row, the last row winning, as in the scoring script."""
    return {row.id: row for row in rows}


def write_results(rows: Iterable[BugResult], out: TextIO) -> int:
    """Write rows to an open text stream, one JSON line each, flushed per row (a long run that is
    stopped keeps what it wrote); returns how many were written."""
    n = 0
    for row in rows:
        out.write(row.to_json_line())
        out.flush()
        n += 1
    return n
