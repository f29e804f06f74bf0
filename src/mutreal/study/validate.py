"""How well does an operator set reproduce real faults? (``mutreal validate-operators``)

For a mutation-tool developer the question is not whether an operator *could* simulate a kind of
fault, but whether, applied to the fixed program of a real bug with the values the buggy version
has, it gives back the buggy program. For every bug of a manifest the reconstruction itself (classify
in the mutation direction, the operators applied to the fixed program with the buggy values,
classify of mutant against buggy) is the mutation stage's job, :mod:`mutreal.mutation.reconstruct`,
which ``compare --mutants reconstruct`` calls too; this module keeps the bugs whose components are
all simulable (``partial`` attempts the others' simulable part as well) and counts.

Components that fail are counted by why: no operator registered, no site found, parameter not
inferable, operator error, or residual components (listed). Operators are taken from the
registry, so an operator a plugin registers appears in the report with no change to mutreal; a
plugin operator claims the components of its catalogue fault code at its elements (or those its
own ``claims(component)`` accepts) and is validated on them in place of the built-in one.
"""

from __future__ import annotations

import os
import shutil
import tempfile
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, ClassVar

from mutreal.label.classify import expand_side
from mutreal.manifest import ManifestRow, read_manifest
from mutreal.mutation.operators import Operator, registry
from mutreal.mutation.reconstruct import (
    FAILURE_REASONS,
    RECONSTRUCTED,
    ComponentOutcome,
    attempted,
    folded_value,
    reconstruct,
    reconstruct_pair,
)
from mutreal.parallel import map_with_progress
from mutreal.results import ComponentResult
from mutreal.serialise import Record, record_kwargs, record_to_dict

__all__ = [
    "FAILURE_REASONS",
    "ComponentOutcome",
    "BugValidation",
    "OperatorStats",
    "BenchmarkStats",
    "ValidationReport",
    "is_plugin",
    "claims",
    "validate_bug",
    "iter_validate_manifest",
    "validate_manifest",
    "summarise",
    "folded_value",
]



# ---------------------------------------------------------------------------------------------------
# Records
# ---------------------------------------------------------------------------------------------------


@dataclass
class BugValidation(Record):
    """The validation of one real bug (with the built-in matching, plus any plugin trials).

    status: ``reconstructed`` (no component left), ``partial`` (some components reconstructed),
    ``failed``, ``not_simulable`` (not every component simulable, or with ``partial`` none: not
    attempted), ``no_components`` or ``error`` (the pair cannot be classified, or an internal
    failure; ``error`` says why).
    """

    id: str
    benchmark: str | None
    status: str
    components: list[ComponentOutcome] = field(default_factory=list)
    residual: list[dict[str, Any]] = field(default_factory=list)
    error: str | None = None
    #: plugin operator id -> its trial outcomes on the components it claims
    plugin_trials: dict[str, list[ComponentOutcome]] = field(default_factory=dict)

    wire_order: ClassVar = ("id", "benchmark", "status", "error", "components", "residual", "plugin_trials")


def _failure_counter() -> dict[str, int]:
    return dict.fromkeys(FAILURE_REASONS, 0)


class _FailureTally(Record):
    """Base of the per-operator and per-benchmark tallies: read back, ``failures`` names every
    failure reason, those the file leaves out at zero."""

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> Any:
        return cls(
            **{**record_kwargs(cls, d), "failures": {**_failure_counter(), **(d.get("failures") or {})}}
        )


@dataclass
class OperatorStats(_FailureTally):
    """Per operator: components claimed, reconstructed exactly, and why the others failed."""

    operator: str
    plugin: bool = False
    claimed: int = 0
    reconstructed: int = 0
    failures: dict[str, int] = field(default_factory=_failure_counter)

    wire_derived: ClassVar = {"rate": "reconstructed"}

    @property
    def rate(self) -> float | None:
        return self.reconstructed / self.claimed if self.claimed else None

    def add(self, outcome: ComponentOutcome) -> None:
        self.claimed += 1
        if outcome.reconstructed:
            self.reconstructed += 1
        else:
            self.failures[outcome.status] = self.failures.get(outcome.status, 0) + 1

    def to_dict(self) -> dict[str, Any]:
        d = record_to_dict(self)
        d["rate"] = None if self.rate is None else round(self.rate, 4)
        return d


@dataclass
class BenchmarkStats(_FailureTally):
    """Per benchmark: bugs, how many were simulable and attempted, reconstructed, and components."""

    benchmark: str
    bugs: int = 0
    errors: int = 0
    simulable: int = 0
    reconstructed_bugs: int = 0
    claimed: int = 0
    reconstructed: int = 0
    failures: dict[str, int] = field(default_factory=_failure_counter)

    def to_dict(self) -> dict[str, Any]:
        return {
            **record_to_dict(self),
            "component_rate": round(self.reconstructed / self.claimed, 4) if self.claimed else None,
            "bug_rate": round(self.reconstructed_bugs / self.simulable, 4) if self.simulable else None,
        }


@dataclass
class ValidationReport(Record):
    """The whole validation: per bug, per operator (every registered one), per benchmark."""

    manifest: str
    bugs: list[BugValidation] = field(default_factory=list)
    operators: list[OperatorStats] = field(default_factory=list)
    benchmarks: list[BenchmarkStats] = field(default_factory=list)

    wire_order: ClassVar = ("manifest", "operators", "benchmarks", "bugs")


# ---------------------------------------------------------------------------------------------------
# Operators: built-in or plugin, and what a plugin claims
# ---------------------------------------------------------------------------------------------------


def is_plugin(op: Operator) -> bool:
    """True for an operator that is not one of mutreal's built-in classes."""
    target = registry.BUILTINS.get(op.id)
    if target is None:
        return True
    module, _, attr = target.partition(":")
    return not (type(op).__module__ == module and type(op).__name__ == attr)


def claims(op: Operator, component: Any) -> bool:
    """Whether a plugin operator claims a real fault component: its own ``claims`` when it has
    one, else its catalogue fault code and element patterns."""
    own = getattr(op, "claims", None)
    if callable(own):
        return bool(own(component))
    try:
        spec = op.spec
    except (KeyError, AttributeError):
        return False
    code = _get(component, "code")
    element = _get(component, "element") or ""
    return spec.fault_code == code and spec.matches_element(element)


def _get(obj: Any, key: str) -> Any:
    return obj.get(key) if isinstance(obj, Mapping) else getattr(obj, key, None)


# ---------------------------------------------------------------------------------------------------
# One bug
# ---------------------------------------------------------------------------------------------------


def validate_bug(
    row: ManifestRow,
    *,
    workdir: str | None = None,
    operators: Mapping[str, Operator] | None = None,
    partial: bool = False,
) -> BugValidation:
    """Validate the operators on one real bug (never raises: failures become an ``error`` row).

    ``partial``: a bug only some of whose components are simulable is attempted on those (the
    closest mutant a campaign can train); the others stay in the residual and are listed as
    ``not_simulable`` outcomes, so the bug is ``partial`` at best. ``validate-operators`` leaves
    it off: its figures are over the bugs an operator set could reproduce whole."""
    try:
        return _validate_bug(row, workdir, operators, partial)
    except Exception as exc:  # one bad bug never stops the run
        return BugValidation(
            row.id, row.benchmark, "error", error=f"internal error: {type(exc).__name__}: {exc}"
        )


def _validate_bug(
    row: ManifestRow, workdir: str | None, operators: Mapping[str, Operator] | None, partial: bool = False
) -> BugValidation:
    ops = dict(operators if operators is not None else registry.operators())
    if not row.buggy or not row.fixed:
        return BugValidation(
            row.id, row.benchmark, "error", error="manifest row names no buggy or no fixed file"
        )
    own_tmp = workdir is None
    base = workdir or tempfile.mkdtemp(prefix="mutreal-validate-")
    try:
        made = reconstruct_pair(
            row.buggy, row.fixed, base, bug_id=row.id, benchmark=row.benchmark, partial=partial, operators=ops
        )
        if made.reconstruction is None:
            return BugValidation(row.id, row.benchmark, made.status, error=made.error)
        bug = BugValidation(row.id, row.benchmark, made.status, made.outcomes, made.reconstruction.residual)
        cls = made.classified
        assert cls is not None
        comps = [c for c in cls.components if attempted(c)]
        for op in ops.values():
            if not is_plugin(op):
                continue
            mine = [i for i, c in enumerate(comps) if claims(op, c)]
            if not mine:
                continue
            swapped = [_with_operator(c, op.id) if i in mine else c for i, c in enumerate(comps)]
            trial = reconstruct(
                swapped,
                expand_side(row.fixed),
                expand_side(row.buggy),
                os.path.join(base, f"plugin-{_safe(op.id)}"),
                bug_id=row.id,
                benchmark=row.benchmark,
                operators=ops,
            )
            bug.plugin_trials[op.id] = [trial.outcomes[i] for i in mine]
        return bug
    finally:
        if own_tmp:
            shutil.rmtree(base, ignore_errors=True)


def _with_operator(comp: ComponentResult, op_id: str) -> ComponentResult:
    d = comp.to_dict()
    d["deepcrime"] = op_id
    return ComponentResult.from_dict(d)


# ---------------------------------------------------------------------------------------------------
# Manifests and summaries
# ---------------------------------------------------------------------------------------------------


def _safe(text: str) -> str:
    return "".join(ch if ch.isalnum() or ch in "-_." else "_" for ch in text)[:120] or "bug"


def _work(args: tuple[ManifestRow, str | None]) -> BugValidation:
    row, out = args
    workdir = os.path.join(out, "mutants", _safe(row.id)) if out else None
    return validate_bug(row, workdir=workdir)


def iter_validate_manifest(
    manifest: str, *, jobs: int = 1, out_dir: str | None = None, progress: bool | None = None
) -> Iterator[BugValidation]:
    """Validate every bug of a manifest, in manifest order (``jobs`` > 1: a process pool)."""
    rows = read_manifest(manifest)
    yield from map_with_progress(
        _work, [(row, out_dir) for row in rows], jobs=jobs, desc="validate", unit="bug", progress=progress
    )


def summarise(
    bugs: Sequence[BugValidation], operators: Mapping[str, Operator] | None = None
) -> tuple[list[OperatorStats], list[BenchmarkStats]]:
    """Per-operator (every registered operator, plugins included) and per-benchmark figures."""
    ops = operators if operators is not None else registry.operators()
    per_op: dict[str, OperatorStats] = {
        oid: OperatorStats(oid, plugin=is_plugin(op)) for oid, op in ops.items()
    }
    per_bench: dict[str, BenchmarkStats] = {}
    for bug in bugs:
        bench = per_bench.setdefault(bug.benchmark or "-", BenchmarkStats(bug.benchmark or "-"))
        bench.bugs += 1
        bench.errors += bug.status == "error"
        if bug.status in ("not_simulable", "no_components", "error"):
            continue
        bench.simulable += 1
        bench.reconstructed_bugs += bug.status == RECONSTRUCTED
        for outcome in bug.components:
            key = outcome.operator or "(none)"
            per_op.setdefault(key, OperatorStats(key)).add(outcome)
            bench.claimed += 1
            if outcome.reconstructed:
                bench.reconstructed += 1
            else:
                bench.failures[outcome.status] = bench.failures.get(outcome.status, 0) + 1
        for op_id, trial in bug.plugin_trials.items():
            stats = per_op.setdefault(op_id, OperatorStats(op_id, plugin=True))
            for outcome in trial:
                stats.add(outcome)
    return list(per_op.values()), sorted(per_bench.values(), key=lambda b: b.benchmark)


def validate_manifest(
    manifest: str, *, jobs: int = 1, out_dir: str | None = None, progress: bool | None = None
) -> ValidationReport:
    """Validate every registered operator against the real bugs of a manifest."""
    bugs = list(iter_validate_manifest(manifest, jobs=jobs, out_dir=out_dir, progress=progress))
    operators, benchmarks = summarise(bugs)
    return ValidationReport(str(manifest), bugs, operators, benchmarks)
