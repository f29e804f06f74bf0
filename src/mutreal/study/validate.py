"""How well does an operator set reproduce real faults? (``mutreal validate-operators``)

For a mutation-tool developer the question is not whether an operator *could* simulate a kind of
fault, but whether, applied to the fixed program of a real bug with the values the buggy version
has, it gives back the buggy program. For every bug of a manifest:

1. classify the pair in the *mutation direction* (fixed program first, buggy second), so each
   component's ``deepcrime`` operator names the edit that turns the fixed value into the buggy
   one (the same convention as ``classify(original, mutant)`` for mutants);
2. keep bugs whose components are all simulable; for each component find the matched operator's
   site at that element in the fixed program and infer its parameter from the buggy value;
3. apply all edits to the fixed program (one file per fixed file) and classify (mutant, buggy):
   no component left means the real fault was reconstructed exactly; a component is
   reconstructed when no residual component touches its element.

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
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from functools import cache
from typing import Any, ClassVar

from mutreal.label.classify import classify_safely, expand_side
from mutreal.manifest import ManifestRow, read_manifest
from mutreal.mutation.operator_values import value_from_text
from mutreal.mutation.operators import MutationError, Operator, Program, apply_edits, registry
from mutreal.parallel import map_with_progress
from mutreal.program.model import canonical_path, parse_path
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

#: why a claimed component was not reconstructed, in report order
FAILURE_REASONS = ("no_operator", "no_site", "not_inferable", "operator_error", "residual")
RECONSTRUCTED = "reconstructed"


# ---------------------------------------------------------------------------------------------------
# Records
# ---------------------------------------------------------------------------------------------------


@dataclass
class ComponentOutcome(Record):
    """One claimed component of a real bug: the operator used, and whether it was reconstructed.

    ``fixed``/``buggy`` are the element's source text in each program; ``status`` is
    ``reconstructed`` or one of :data:`FAILURE_REASONS`; ``residual`` lists what classify still
    found after mutation at this element or at another element the operator's site edits.
    """

    element: str
    code: str
    operator: str | None
    fixed: str | None
    buggy: str | None
    status: str
    detail: str = ""
    site: int | None = None
    value: Any = None
    residual: list[dict[str, Any]] = field(default_factory=list)
    #: every element the operator's site edits (a layer built in a loop is one site, several layers)
    elements: list[str] = field(default_factory=list)

    @property
    def reconstructed(self) -> bool:
        return self.status == RECONSTRUCTED


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


def _element_match(site_element: str, component_element: str) -> bool:
    a, b = canonical_path(site_element), canonical_path(component_element)
    return a == b or (a.endswith(".preprocess") and b.startswith(a + "["))


def _residual_dict(c: ComponentResult) -> dict[str, Any]:
    return {
        "element": c.element,
        "code": c.code,
        "deepcrime": c.deepcrime,
        "kind": c.kind,
        "mutant": c.before,
        "buggy": c.after,
    }


def folded_value(model: Any, element: str) -> str | None:
    """The buggy program's value at ``element`` as the program model folded it (a variable holding
    ``'mse'``, a constant ``EPOCHS``), as source text for :func:`value_from_text`; None when the
    model has no constant there. Used when the component's own text is not a value (a name)."""
    try:
        segs = parse_path(canonical_path(element))
    except Exception:
        return None
    names = [name for name, _ in segs]
    value: Any = None
    try:
        if names[0] == "compile" and len(segs) >= 2:
            comp = model.compiles[segs[0][1] or 0]
            if names[1:] == ["loss"]:
                value = comp.loss
            elif names[1:] == ["optimizer"] and comp.optimizer is not None and comp.optimizer.cls:
                return repr(comp.optimizer.cls)
            elif names[1] == "optimizer" and len(names) == 3 and comp.optimizer is not None:
                value = comp.optimizer.arg(names[2], model.era)
        elif names[0] == "fit" and len(segs) == 2:
            value = model.fits[segs[0][1] or 0].arg(names[1], model.era)
        elif names[:2] == ["model", "layer"] and len(segs) == 3:
            folded = model.models[segs[0][1] or 0].folded_layers(model.era)[segs[1][1] or 0]
            value = folded.activation if names[2] == "activation" else folded.layer.arg(names[2], model.era)
    except (IndexError, KeyError, AttributeError, TypeError):
        return None
    if value is None or not getattr(value, "is_const", False) or value.value is None:
        return None
    return repr(value.value)


@dataclass
class _Planned:
    outcome: ComponentOutcome
    file: str
    index: int


def _covers(element: str, other: str) -> bool:
    """``element`` is ``other`` or an element above it (``compile.optimizer`` covers its learning rate)."""
    a, b = canonical_path(element), canonical_path(other)
    return _element_match(a, b) or b.startswith(a + ".")


def _mutate_file(
    path: str,
    items: list[_Planned],
    comps: Sequence[ComponentResult],
    ops: Mapping[str, Operator],
    buggy_model: Callable[[], Any] | None = None,
) -> str | None:
    """Apply the components' operators to one fixed file, one after the other (each on the program
    the previous edit left, so an optimizer change and a learning rate on the same call compose),
    whole elements before their parts. Returns the mutant's text (None: nothing applied)."""
    try:
        program = Program.from_file(path)
    except Exception as exc:
        for it in items:
            it.outcome.status, it.outcome.detail = "operator_error", f"cannot read the fixed program: {exc}"
        return None
    changed = False
    done: list[tuple[str, Any, set[str]]] = []  # (operator, value, elements) of applied edits
    for it in sorted(items, key=lambda it: (canonical_path(it.outcome.element).count("."), it.index)):
        comp, outcome = comps[it.index], it.outcome
        op = ops.get(outcome.operator or "")
        if op is None:
            outcome.detail = (
                f"no registered operator {outcome.operator!r}"
                if outcome.operator
                else "classify names no operator"
            )
            continue
        prior = next((d for d in done if d[0] == op.id and canonical_path(comp.element) in d[2]), None)
        try:
            sites = [s for s in op.sites(program) if any(_element_match(e, comp.element) for e in s.elements)]
            if not sites and prior is None:
                outcome.status = "no_site"
                outcome.detail = f"{op.id} has no site at {comp.element} in the fixed program"
                others = _operators_with_site(program, comp.element, ops, exclude=op.id)
                if others:
                    outcome.detail += f" ({', '.join(others)} has one: is the direction of the label right?)"
                continue
            site = sites[0] if sites else None
            ok, value, why = (True, prior[1], "") if site is None else value_from_text(op, site, comp.after)
            model = buggy_model() if not ok and site is not None and buggy_model is not None else None
            if model is not None:
                folded = folded_value(model, comp.element)
                if folded is not None:
                    ok2, value2, _ = value_from_text(op, site, folded)
                    if ok2:
                        ok, value, why = True, value2, ""
            if not ok:
                outcome.status, outcome.detail = "not_inferable", why
                continue
            outcome.site, outcome.value = (site.index if site else None), value
            if site is not None:
                outcome.elements = list(site.elements)
            if prior is not None:
                # one site builds several layers (a loop): the edit made for one covers the others
                outcome.status = "planned" if prior[1] == value else "not_inferable"
                if prior[1] != value:
                    outcome.detail = "one site builds several layers whose buggy values differ"
                continue
            assert site is not None
            try:
                mutant = apply_edits(program, [op.apply(program, site, value)])
            except MutationError as exc:
                if "changes nothing" in str(exc):
                    outcome.status = "planned"  # an earlier edit already wrote this value
                    continue
                raise
            done.append((op.id, value, {canonical_path(e) for e in site.elements}))
            program = Program(mutant.code, path)
            changed = True
            outcome.status = "planned"
        except MutationError as exc:
            outcome.status, outcome.detail = "operator_error", str(exc)
        except Exception as exc:  # an operator failing on this program is its own finding
            outcome.status, outcome.detail = "operator_error", f"{type(exc).__name__}: {exc}"
    return program.text if changed else None


def _operators_with_site(
    program: Program, element: str, ops: Mapping[str, Operator], exclude: str
) -> list[str]:
    """Other registered operators that do have a site at ``element`` (a hint for a no-site failure)."""
    out = []
    for oid, op in ops.items():
        if oid == exclude:
            continue
        try:
            if any(_element_match(e, element) for s in op.sites(program) for e in s.elements):
                out.append(oid)
        except Exception:  # a hint only
            continue
    return out


def _buggy_model(items: Sequence[_Planned], comps: Sequence[ComponentResult]) -> Callable[[], Any]:
    """Lazily, the program model of the buggy file paired with these components' fixed file
    (None when unreadable); built only when some value must be read from it."""
    path = next((comps[it.index].fixed_file for it in items if comps[it.index].fixed_file), None)

    @cache
    def load() -> Any:
        if path is None:
            return None
        try:
            return Program.from_file(path).model  # the buggy program sits in classify's second slot here
        except Exception:
            return None

    return load


def _mirror_names(files: Sequence[str]) -> list[str]:
    if len(files) == 1:
        return [os.path.basename(files[0])]
    common = os.path.commonpath([os.path.abspath(f) for f in files])
    return [os.path.relpath(os.path.abspath(f), common) for f in files]


def _reconstruct(
    comps: Sequence[ComponentResult],
    ops: Mapping[str, Operator],
    fixed_files: Sequence[str],
    buggy_files: Sequence[str],
    workdir: str,
    bug_id: str,
    benchmark: str | None,
) -> tuple[list[ComponentOutcome], list[dict[str, Any]]]:
    """Mutate the fixed side, classify (mutant, buggy), settle every component; and the residual."""
    planned = [
        _Planned(
            ComponentOutcome(c.element, c.code, c.deepcrime, c.before, c.after, "no_operator"),
            c.buggy_file or "",  # the fixed program: it sits in classify's first slot here
            i,
        )
        for i, c in enumerate(comps)
    ]
    by_file: dict[str, list[_Planned]] = {}
    for p in planned:
        by_file.setdefault(os.path.abspath(p.file), []).append(p)
    os.makedirs(workdir, exist_ok=True)
    mutant_files = []
    for name, fixed in zip(_mirror_names(fixed_files), fixed_files, strict=True):
        target = os.path.join(workdir, name)
        os.makedirs(os.path.dirname(target), exist_ok=True)
        items = by_file.get(os.path.abspath(fixed), [])
        code = _mutate_file(fixed, items, comps, ops, _buggy_model(items, comps)) if items else None
        if code is None:
            shutil.copyfile(fixed, target)
        else:
            with open(target, "w", encoding="utf-8", newline="") as fh:
                fh.write(code)
        mutant_files.append(target)
    outcomes = [p.outcome for p in planned]
    result = classify_safely(mutant_files, list(buggy_files), bug_id=bug_id, benchmark=benchmark)
    if result.status != "ok":
        for o in outcomes:
            if o.status == "planned":
                o.status, o.detail = "operator_error", f"the mutant cannot be classified: {result.error}"
        return outcomes, []
    residual = [_residual_dict(c) for c in result.components]
    for o in outcomes:
        if o.status != "planned":
            continue
        left = [
            r
            for r in residual
            if _covers(o.element, r["element"]) or any(_element_match(e, r["element"]) for e in o.elements)
        ]
        if left:
            o.status = "residual"
            o.residual = left
            o.detail = "; ".join(f"{r['element']}: mutant {r['mutant']} vs buggy {r['buggy']}" for r in left)
        else:
            o.status = RECONSTRUCTED
    return outcomes, residual


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
    # the mutation direction: the fixed program takes classify's first slot
    cls = classify_safely(row.fixed, row.buggy, bug_id=row.id, benchmark=row.benchmark)
    if cls.status != "ok":
        return BugValidation(row.id, row.benchmark, "error", error=cls.error)
    if not cls.components:
        return BugValidation(row.id, row.benchmark, "no_components")
    comps = [c for c in cls.components if c.simulable] if partial else cls.components
    if not cls.simulable and not (partial and comps):
        return BugValidation(row.id, row.benchmark, "not_simulable")
    fixed_files = expand_side(row.fixed)
    own_tmp = workdir is None
    base = workdir or tempfile.mkdtemp(prefix="mutreal-validate-")
    try:
        outcomes, residual = _reconstruct(
            comps, ops, fixed_files, row.buggy, os.path.join(base, "builtin"), row.id, row.benchmark
        )
        done = sum(o.reconstructed for o in outcomes)
        outcomes += [
            ComponentOutcome(c.element, c.code, None, c.before, c.after, "not_simulable", c.reason or "")
            for c in cls.components
            if not c.simulable
        ]
        status = (
            RECONSTRUCTED if not residual and done == len(outcomes) else ("partial" if done else "failed")
        )
        bug = BugValidation(row.id, row.benchmark, status, outcomes, residual)
        for op in ops.values():
            if not is_plugin(op):
                continue
            mine = [i for i, c in enumerate(comps) if claims(op, c)]
            if not mine:
                continue
            swapped = [_with_operator(c, op.id) if i in mine else c for i, c in enumerate(comps)]
            trial, _ = _reconstruct(
                swapped,
                ops,
                fixed_files,
                row.buggy,
                os.path.join(base, f"plugin-{_safe(op.id)}"),
                row.id,
                row.benchmark,
            )
            bug.plugin_trials[op.id] = [trial[i] for i in mine]
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
