"""Reconstruction: a classified real fault turned into the mutants that reproduce it.

Why a module of the mutation stage: two jobs need the same answer to "which edits of the fixed
program give back the buggy one". ``validate-operators`` (:mod:`mutreal.study.validate`) counts how
often an operator set manages it over a benchmark; ``compare --mutants reconstruct``
(:mod:`mutreal.campaigns.mutants`) trains the mutants against the real fault. Both call
:func:`reconstruct_pair` (or :func:`reconstruct` with components already classified); this module
imports nothing of theirs.

For one bug:

1. classify the pair in the *mutation direction* (fixed program first, buggy second), so each
   component's ``deepcrime`` operator names the edit that turns the fixed value into the buggy one;
2. for each component, the matched operator's site at its element in the fixed program, and the
   parameter that writes the buggy value: the buggy source text; else the value classify resolved
   for a name (``epochs=EPOCHS``); else the buggy program model's folded constant (``1 - KEEP``,
   ``BASE / 100``; for TRD the share of rows a slice of a data set of known size removes); else,
   where the buggy program computes the value and nothing folds it, the catalogue's first value,
   which ``value_origin`` says;
3. the edits applied one after the other on the program the previous one left, whole elements
   before their parts (an optimizer change, then its learning rate). An edit that replaces a whole
   element is *completed*: a part of it that the buggy program sets differently from what the edit
   wrote (the buggy ``Adam(lr=0.1)`` written by OCH as ``Adam()``) is set by the operator of that
   part (HLR), listed in the component's ``completions``. The program's stated budget (module-level ``EPOCHS = 1``, which classify reads) is written
   with the buggy literal too, and is the edit itself where no training call takes the value;
4. classify (mutant, buggy): no component left means the real fault was reconstructed exactly; a
   component is reconstructed when no residual component touches its element.

With ``first_order``, each applied component also gets its own mutant (its edit and completions
alone on the fixed program), so a bug of several components has one first-order mutant per
component and the higher-order mutant of all of them (the combined one).
"""

from __future__ import annotations

import os
import re
import shutil
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import cache
from typing import Any, ClassVar

import libcst as cst

from mutreal.label.classify import classify_safely, expand_side
from mutreal.label.codes import STRING_OPTIMIZER_REASON
from mutreal.mutation.operator_values import folded_value, infer_value, literal_value, value_from_text
from mutreal.mutation.operators import MutationError, Operator, Program, Site, apply_edits, registry
from mutreal.program.model import canonical_path
from mutreal.program.training_budget import BUDGET_ELEMENTS
from mutreal.results import BugResult, ComponentResult
from mutreal.serialise import Record

__all__ = [
    "FAILURE_REASONS",
    "RECONSTRUCTED",
    "VALUE_ORIGINS",
    "ComponentOutcome",
    "FirstOrderMutant",
    "Reconstruction",
    "PairReconstruction",
    "attempted",
    "folded_value",
    "mirror_path",
    "reconstruct",
    "reconstruct_pair",
]

#: why a claimed component was not reconstructed, in report order
FAILURE_REASONS = ("no_operator", "no_site", "not_inferable", "operator_error", "residual")
RECONSTRUCTED = "reconstructed"
#: where a component's parameter came from (``catalogue``: the buggy program computes it and
#: nothing folds it, so the mutant is the operator's, not the fault's value)
VALUE_ORIGINS = ("buggy", "resolved", "folded", "catalogue", "shared")


@dataclass
class ComponentOutcome(Record):
    """One claimed component of a real bug: the operator used, and whether it was reconstructed.

    ``fixed``/``buggy`` are the element's source text in each program; ``status`` is
    ``reconstructed`` or one of :data:`FAILURE_REASONS`; ``residual`` lists what classify still
    found after mutation at this element or at another element the operator's site edits.
    ``value_origin`` says where ``value`` came from (:data:`VALUE_ORIGINS`); ``completions`` are
    the edits of other operators that set parts of the element the way the buggy program has them.
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
    value_origin: str | None = None
    completions: list[dict[str, Any]] = field(default_factory=list)

    @property
    def reconstructed(self) -> bool:
        return self.status == RECONSTRUCTED

    @property
    def applied(self) -> bool:
        """Whether the component's edit is in the combined mutant (reconstructed or not)."""
        edited = self.site is not None or any("literal" in c for c in self.completions)
        return edited and self.status in (RECONSTRUCTED, "residual", "planned")


@dataclass
class FirstOrderMutant(Record):
    """One component's edit (with its completions) alone: the files of the fixed side mirrored
    under ``root`` (``component`` indexes the reconstruction's outcomes)."""

    component: int
    operator: str
    element: str
    root: str
    files: list[str] = field(default_factory=list)


@dataclass
class Reconstruction(Record):
    """The mutants of one bug's components: outcomes, residual, the combined mutant's files."""

    status: str
    outcomes: list[ComponentOutcome] = field(default_factory=list)
    residual: list[dict[str, Any]] = field(default_factory=list)
    #: the combined mutant: every fixed file mirrored, edited where a component applied
    files: list[str] = field(default_factory=list)
    first_order: list[FirstOrderMutant] = field(default_factory=list)

    @property
    def applied(self) -> list[ComponentOutcome]:
        return [o for o in self.outcomes if o.applied]


@dataclass
class PairReconstruction(Record):
    """:func:`reconstruct_pair`'s answer: the classify row (mutation direction) and the mutants.

    ``status``: ``error`` (the pair cannot be classified; ``error`` says why), ``no_components``,
    ``not_simulable`` (no component to attempt), else the reconstruction's (``reconstructed``,
    ``partial``, ``failed``); ``outcomes`` then also lists the components no operator simulates
    (status ``not_simulable``)."""

    status: str
    error: str | None = None
    classified: BugResult | None = None
    reconstruction: Reconstruction | None = None
    outcomes: list[ComponentOutcome] = field(default_factory=list)

    wire_order: ClassVar = ("status", "error", "outcomes", "reconstruction", "classified")


# ---------------------------------------------------------------------------------------------------
# Elements and values
# ---------------------------------------------------------------------------------------------------


def attempted(component: Any) -> bool:
    """Whether reconstruction attempts a component (a :class:`ComponentResult` or its JSON dict):
    the study's simulable ones, and a learning rate against an optimizer the fixed program names
    as a string (``'rmsprop'``), which the study counts as not simulable because DeepCrime's own HLR
    fails there, while mutreal's HLR writes the optimizer object with the buggy rate."""
    get = component.get if isinstance(component, Mapping) else lambda k: getattr(component, k, None)
    if get("simulable"):
        return True
    return bool(get("deepcrime")) and get("reason") == STRING_OPTIMIZER_REASON


def element_match(site_element: str, component_element: str) -> bool:
    """A site's element is the component's (a preprocess site covers each of its steps)."""
    a, b = canonical_path(site_element), canonical_path(component_element)
    return a == b or (a.endswith(".preprocess") and b.startswith(a + "["))


def _covers(element: str, other: str) -> bool:
    """``element`` is ``other`` or an element above it (``compile.optimizer`` covers its learning rate)."""
    a, b = canonical_path(element), canonical_path(other)
    return element_match(a, b) or b.startswith(a + ".")


def _residual_dict(c: ComponentResult) -> dict[str, Any]:
    return {
        "element": c.element,
        "code": c.code,
        "deepcrime": c.deepcrime,
        "kind": c.kind,
        "mutant": c.before,
        "buggy": c.after,
    }


# ---------------------------------------------------------------------------------------------------
# Editing one fixed file
# ---------------------------------------------------------------------------------------------------


@dataclass
class _Planned:
    outcome: ComponentOutcome
    file: str
    index: int


def _sites_at(op: Operator, program: Program, element: str) -> list[Site]:
    return [s for s in op.sites(program) if any(element_match(e, element) for e in s.elements)]


def _no_site_detail(op: Operator, program: Program, element: str, ops: Mapping[str, Operator]) -> str:
    detail = f"{op.id} has no site at {element} in the fixed program"
    try:
        why = op.no_site_reasons(program)
    except Exception:  # a hint only
        why = []
    if why:
        detail += f" ({'; '.join(why)})"
    others = _operators_with_site(program, element, ops, exclude=op.id)
    if others:
        detail += f" ({', '.join(others)} has one: is the direction of the label right?)"
    return detail


def _operators_with_site(
    program: Program, element: str, ops: Mapping[str, Operator], exclude: str
) -> list[str]:
    """Other registered operators that do have a site at ``element`` (a hint for a no-site failure)."""
    out = []
    for oid, op in ops.items():
        if oid == exclude:
            continue
        try:
            if _sites_at(op, program, element):
                out.append(oid)
        except Exception:  # a hint only
            continue
    return out


def _complete(
    program: Program,
    path: str,
    element: str,
    ops: Mapping[str, Operator],
    buggy_model: Callable[[], Any] | None,
    claimed: set[str],
) -> tuple[Program, list[dict[str, Any]]]:
    """Parts of ``element`` that the edit just made leaves unlike the buggy program, set by their
    operator with the buggy value (parts that are components of the bug themselves are left to
    their own outcome). Returns the program and the completions made."""
    model = buggy_model() if buggy_model is not None else None
    if model is None:
        return program, []
    done: list[dict[str, Any]] = []
    top = canonical_path(element)
    for oid, op in ops.items():
        if op.spec.param is None or not _may_edit_below(op, top):
            continue
        try:
            sites = [s for s in op.sites(program) if canonical_path(s.element).startswith(top + ".")]
        except Exception:  # a completion is best effort
            continue
        for site in sites:
            part = canonical_path(site.element)
            if part in claimed:
                continue
            want, have = folded_value(model, part), folded_value(program.model, part)
            if want is None or have is None or literal_value(want) == literal_value(have):
                continue
            ok, value, _ = value_from_text(op, site, want)
            if not ok:
                continue
            try:
                mutant = apply_edits(program, [op.apply(program, site, value)])
            except MutationError:
                continue
            program = Program(mutant.code, path)
            done.append({"operator": oid, "element": part, "value": value, "mutant": have, "buggy": want})
            break  # the program changed: the other operators' sites are read again next time
    return program, done


def _budget_literals(
    program: Program, path: str, element: str, op: Operator, buggy_model: Callable[[], Any] | None
) -> tuple[Program, list[dict[str, Any]]]:
    """The program's stated training budget (``EPOCHS = 1``, ``batch_size = 32`` at module level)
    written with the buggy program's literal where the two differ and the operator can take it.

    classify reads these literals as part of the fault (a fix that changes only the literal still
    changes what the author meant to train with), and a program that trains through a generator
    or a helper's parameter reads its budget from them: the fit call's argument alone does not
    give back the buggy program."""
    kind = canonical_path(element)
    spec = op.spec.param
    model = buggy_model() if buggy_model is not None and kind in BUDGET_ELEMENTS else None
    if model is None or spec is None:
        return program, []
    theirs = model.hyperparameter_literals
    done: list[dict[str, Any]] = []
    for name, lit in list(program.model.hyperparameter_literals.items()):
        other = theirs.get(name)
        if lit.kind != kind or other is None or other.kind != kind or other.value == lit.value:
            continue
        try:
            value = spec.validate(other.value)
        except ValueError:
            continue
        text = _set_module_literal(program.module, name, other.text or repr(other.value))
        if text is None:
            continue
        program = Program(text, path)
        done.append(
            {
                "operator": op.id,
                "element": kind,
                "literal": name,
                "value": value,
                "mutant": lit.text,
                "buggy": other.text,
            }
        )
    return program, done


def _set_module_literal(module: cst.Module, name: str, code: str) -> str | None:
    """The module with every top-level ``name = <number>`` written ``name = code`` (None: none)."""
    body, changed = [], False
    for stmt in module.body:
        if isinstance(stmt, cst.SimpleStatementLine) and len(stmt.body) == 1:
            assign = stmt.body[0]
            if (
                isinstance(assign, cst.Assign)
                and len(assign.targets) == 1
                and isinstance(assign.targets[0].target, cst.Name)
                and assign.targets[0].target.value == name
                and isinstance(assign.value, cst.Integer | cst.Float)
            ):
                stmt = stmt.with_changes(body=[assign.with_changes(value=cst.parse_expression(code))])
                changed = True
        body.append(stmt)
    return module.with_changes(body=body).code if changed else None


def _may_edit_below(op: Operator, top: str) -> bool:
    """Whether the catalogue lets ``op`` edit an element below ``top`` (indices ignored): the
    cheap test before its sites are searched."""
    bare = re.sub(r"\[[^\]]*\]", "", top) + "."
    try:
        patterns = op.spec.elements
    except (KeyError, AttributeError):
        return True  # a plugin without a catalogue entry: look at its sites
    return any(re.sub(r"\[[^\]]*\]", "", str(e)).startswith(bare) for e in patterns)


def _mutate_file(
    path: str,
    items: list[_Planned],
    comps: Sequence[ComponentResult],
    ops: Mapping[str, Operator],
    buggy_model: Callable[[], Any] | None = None,
    claimed: set[str] | None = None,
) -> str | None:
    """Apply the components' operators to one fixed file, one after the other (each on the program
    the previous edit left, so an optimizer change and a learning rate on the same call compose),
    whole elements before their parts. Returns the mutant's text (None: nothing applied).

    ``claimed``: the elements that are components of the bug (default: those of ``items``); a
    completion never writes one of them, so a first-order mutant carries its own component only."""
    try:
        program = _load(path)
    except Exception as exc:
        for it in items:
            it.outcome.status, it.outcome.detail = "operator_error", f"cannot read the fixed program: {exc}"
        return None
    changed = False
    done: list[tuple[str, Any, set[str]]] = []  # (operator, value, elements) of applied edits
    if claimed is None:
        claimed = {canonical_path(comps[it.index].element or "") for it in items}
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
        element = comp.element or ""
        prior = next((d for d in done if d[0] == op.id and canonical_path(element) in d[2]), None)
        try:
            sites = _sites_at(op, program, element)
            if not sites and prior is None:
                why = _no_site_detail(op, program, element, ops)
                program, literals = _budget_literals(program, path, element, op, buggy_model)
                if literals:
                    # no training call takes the value (a generator's batch size): the stated budget does
                    changed = True
                    outcome.status, outcome.completions = "planned", literals
                    outcome.value, outcome.value_origin = literals[0]["value"], "buggy"
                    outcome.detail = (
                        f"{why}; the program's budget literal {literals[0]['literal']} is written instead"
                    )
                    continue
                outcome.status, outcome.detail = "no_site", why
                continue
            site = sites[0] if sites else None
            if site is None:
                ok, value, why, origin = True, prior[1] if prior else None, "", "shared"
            else:
                ok, value, why, origin = infer_value(op, site, comp, buggy_model)
            if not ok:
                outcome.status, outcome.detail = "not_inferable", why
                continue
            outcome.site, outcome.value, outcome.value_origin = (site.index if site else None), value, origin
            if origin == "catalogue":
                outcome.detail = why
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
            program, completions = _complete(program, path, element, ops, buggy_model, claimed)
            program, literals = _budget_literals(program, path, element, op, buggy_model)
            outcome.completions = completions + literals
        except MutationError as exc:
            outcome.status, outcome.detail = "operator_error", str(exc)
        except Exception as exc:  # an operator failing on this program is its own finding
            outcome.status, outcome.detail = "operator_error", f"{type(exc).__name__}: {exc}"
    return program.text if changed else None


def _load(path: str) -> Program:
    """A program as the mutation stage reads it; one LibCST cannot parse as written (Python 2,
    mixed indentation) is read as classify reads it, upgraded by :mod:`mutreal.program.source`."""
    try:
        return Program.from_file(path)
    except Exception:
        from mutreal.program.source import load_program

        return Program(load_program(path, tolerant=True).text, path)


def _buggy_model(items: Sequence[_Planned], comps: Sequence[ComponentResult]) -> Callable[[], Any]:
    """Lazily, the program model of the buggy file paired with these components' fixed file
    (None when unreadable); built only when some value must be read from it."""
    path = next((comps[it.index].fixed_file for it in items if comps[it.index].fixed_file), None)

    @cache
    def load() -> Any:
        if path is None:
            return None
        try:
            return _load(path).model  # the buggy program sits in classify's second slot here
        except Exception:
            return None

    return load


def mirror_path(root: str, files: Sequence[str], file: str) -> str:
    """Where ``file`` (one of ``files``, one side of a bug) lies in a mirror of that side under
    ``root``: a single file by its name, several by their paths below their common folder (so a
    program of several files still imports its siblings)."""
    if len(files) == 1:
        return os.path.join(root, os.path.basename(file))
    common = os.path.commonpath([os.path.abspath(f) for f in files])
    return os.path.join(root, os.path.relpath(os.path.abspath(file), common))


def _write_mirror(root: str, fixed_files: Sequence[str], texts: Mapping[str, str | None]) -> list[str]:
    """The fixed side mirrored under ``root``: each file's mutated text, else a copy."""
    out = []
    for fixed in fixed_files:
        target = mirror_path(root, fixed_files, fixed)
        os.makedirs(os.path.dirname(target), exist_ok=True)
        code = texts.get(os.path.abspath(fixed))
        if code is None:
            shutil.copyfile(fixed, target)
        else:
            with open(target, "w", encoding="utf-8", newline="") as fh:
                fh.write(code)
        out.append(target)
    return out


# ---------------------------------------------------------------------------------------------------
# One bug
# ---------------------------------------------------------------------------------------------------


def reconstruct(
    comps: Sequence[ComponentResult],
    fixed_files: Sequence[str],
    buggy_files: Sequence[str],
    workdir: str,
    *,
    bug_id: str = "bug",
    benchmark: str | None = None,
    operators: Mapping[str, Operator] | None = None,
    first_order: bool = False,
) -> Reconstruction:
    """Mutate the fixed side with the components' operators, classify (mutant, buggy), settle
    every component. ``comps`` are classify's components in the mutation direction (the fixed
    program in classify's first slot). The combined mutant is written under ``workdir/builtin``;
    with ``first_order`` (and more than one applied component) each applied component's mutant
    under ``workdir/components/<n>-<operator>``."""
    ops = dict(operators if operators is not None else registry.operators())
    planned = [
        _Planned(
            ComponentOutcome(c.element or "", c.code, c.deepcrime, c.before, c.after, "no_operator"),
            c.buggy_file or _home(fixed_files),  # the fixed program: classify's first slot here
            i,
        )
        for i, c in enumerate(comps)
    ]
    by_file: dict[str, list[_Planned]] = {}
    for p in planned:
        by_file.setdefault(os.path.abspath(p.file), []).append(p)
    os.makedirs(workdir, exist_ok=True)
    texts = {
        key: _mutate_file(key, items, comps, ops, _buggy_model(items, comps))
        for key, items in by_file.items()
    }
    files = _write_mirror(os.path.join(workdir, "builtin"), fixed_files, texts)
    outcomes = [p.outcome for p in planned]
    result = classify_safely(files, list(buggy_files), bug_id=bug_id, benchmark=benchmark)
    if result.status != "ok":
        for o in outcomes:
            if o.status == "planned":
                o.status, o.detail = "operator_error", f"the mutant cannot be classified: {result.error}"
        return Reconstruction("failed", outcomes, [], files)
    residual = [_residual_dict(c) for c in result.components]
    for o in outcomes:
        if o.status != "planned":
            continue
        left = [
            r
            for r in residual
            if _covers(o.element, r["element"]) or any(element_match(e, r["element"]) for e in o.elements)
        ]
        if left:
            o.status = "residual"
            o.residual = left
            found = "; ".join(f"{r['element']}: mutant {r['mutant']} vs buggy {r['buggy']}" for r in left)
            o.detail = f"{o.detail}; {found}" if o.detail else found
        else:
            o.status = RECONSTRUCTED
    done = sum(o.reconstructed for o in outcomes)
    status = RECONSTRUCTED if not residual and done == len(outcomes) else ("partial" if done else "failed")
    made = Reconstruction(status, outcomes, residual, files)
    applied = [p for p in planned if p.outcome.applied]
    if first_order and len(applied) > 1:
        made.first_order = _first_order_mutants(applied, comps, ops, fixed_files, workdir)
    return made


def _home(fixed_files: Sequence[str]) -> str:
    """The fixed file of a component that names none (an element the buggy program adds, such as
    a relabelling step): the only file, else the first whose program trains."""
    if len(fixed_files) == 1:
        return fixed_files[0]
    for path in fixed_files:
        try:
            if _load(path).model.fits:
                return path
        except Exception:  # an unreadable file is not the home of anything
            continue
    return fixed_files[0]


def _first_order_mutants(
    applied: Sequence[_Planned],
    comps: Sequence[ComponentResult],
    ops: Mapping[str, Operator],
    fixed_files: Sequence[str],
    workdir: str,
) -> list[FirstOrderMutant]:
    """Each applied component's edit (and its completions) alone on the fixed program, mirrored.

    A completion never writes a part that is another component of the bug (the buggy rate of an
    OCH + HLR bug is HLR's): the OCH mutant is then the optimizer change alone, not the
    higher-order mutant again."""
    claimed = {canonical_path(c.element or "") for c in comps}
    out = []
    for n, p in enumerate(applied, start=1):
        single = _Planned(
            ComponentOutcome(
                p.outcome.element, p.outcome.code, p.outcome.operator, None, None, "no_operator"
            ),
            p.file,
            p.index,
        )
        key = os.path.abspath(p.file)
        code = _mutate_file(key, [single], comps, ops, _buggy_model([single], comps), claimed)
        if code is None:
            continue
        root = os.path.join(workdir, "components", f"{n:02d}-{p.outcome.operator}")
        files = _write_mirror(root, fixed_files, {key: code})
        out.append(FirstOrderMutant(p.index, p.outcome.operator or "", p.outcome.element, root, files))
    return out


def reconstruct_pair(
    buggy: Sequence[str] | str,
    fixed: Sequence[str] | str,
    workdir: str,
    *,
    bug_id: str = "bug",
    benchmark: str | None = None,
    partial: bool = False,
    operators: Mapping[str, Operator] | None = None,
    first_order: bool = False,
) -> PairReconstruction:
    """Classify a real bug in the mutation direction and reconstruct it (see the module's text).

    ``partial``: a bug only some of whose components are simulable is attempted on those (the
    closest mutant a campaign can train); the others are listed as ``not_simulable`` outcomes.
    Without it such a bug is ``not_simulable`` and nothing is written."""
    buggy_side, fixed_side = _side(buggy), _side(fixed)
    cls = classify_safely(fixed_side, buggy_side, bug_id=bug_id, benchmark=benchmark)
    if cls.status != "ok":
        return PairReconstruction("error", cls.error, cls)
    if not cls.components:
        return PairReconstruction("no_components", classified=cls)
    comps = [c for c in cls.components if attempted(c)]
    if not comps or (len(comps) < len(cls.components) and not partial):
        return PairReconstruction("not_simulable", classified=cls, outcomes=_unsimulated(cls))
    held = _needing_the_unsimulated(comps, [c for c in cls.components if not attempted(c)], expand_side(fixed_side))
    comps = [c for c in comps if id(c) not in held]
    if not comps:
        return PairReconstruction("not_simulable", classified=cls, outcomes=_unsimulated(cls) + list(held.values()))
    made = reconstruct(
        comps,
        expand_side(fixed_side),
        expand_side(buggy_side),
        workdir,
        bug_id=bug_id,
        benchmark=benchmark,
        operators=operators,
        first_order=first_order,
    )
    outcomes = made.outcomes + _unsimulated(cls) + list(held.values())
    done = sum(o.reconstructed for o in outcomes)
    status = (
        RECONSTRUCTED if not made.residual and done == len(outcomes) else ("partial" if done else "failed")
    )
    return PairReconstruction(status, None, cls, made, outcomes)


#: the kinds of a fault component that change what a model outputs (its width, its shape)
OUTPUT_KINDS = ("LCN", "LOS", "LAD", "LRM")
_LAYER = re.compile(r"model\[(?P<model>\d+)\]\.layer\[(?P<layer>\d+)\]")


def _needing_the_unsimulated(
    comps: Sequence[ComponentResult], unsimulated: Sequence[ComponentResult], fixed_files: Sequence[str]
) -> dict[int, ComponentOutcome]:
    """The attempted components that cannot be written without a component no operator makes,
    by ``id``, each as a ``not_simulable`` outcome saying which one it needs.

    Why: a partial reconstruction writes the simulable part of a fault on the fixed program. A
    loss is written for an output: where the fault also changes the width or shape of the model's
    output layer (DeepLocalize-SO 50481178: ``Dense(2, 'softmax')`` and sparse categorical
    cross-entropy became ``Dense(1, 'sigmoid')`` and binary cross-entropy; no operator changes a
    layer's units), the buggy loss alone on the fixed output does not fit its labels, and the
    mutant dies before its first epoch: a stillborn mutant that measures nothing of the fault.
    Such a loss change is left out and the row says why, rather than trained."""
    outputs = [c for c in unsimulated if c.code in OUTPUT_KINDS and _on_output_layer(c, fixed_files)]
    held: dict[int, ComponentOutcome] = {}
    if not outputs:
        return held
    needed = "; ".join(f"{c.code} at {c.element} ({c.before} -> {c.after})" for c in outputs)
    for c in comps:
        if canonical_path(c.element or "") != "compile.loss":
            continue
        held[id(c)] = ComponentOutcome(
            c.element or "", c.code, c.deepcrime, c.before, c.after, "not_simulable",
            f"the buggy loss {c.after} is written for the buggy output layer, and no operator makes that "
            f"change ({needed}): {c.deepcrime or c.code} alone on the fixed output would not fit its labels "
            "(a stillborn mutant), so it is left out",
        )  # fmt: skip
    return held


def _on_output_layer(component: ComponentResult, fixed_files: Sequence[str]) -> bool:
    """Whether a component's element is (on) the output layer of its model in the fixed program:
    its last layer, or the last but the Activation layers after it (classify folds those into it)."""
    match = _LAYER.match(canonical_path(component.element or ""))
    if match is None:
        return False
    path = component.buggy_file or _home(fixed_files)  # the fixed program: classify's first slot here
    try:
        models = _load(path).model.models
    except Exception:  # an unreadable program: nothing to hold back for it
        return False
    model = next((m for m in models if m.index == int(match["model"])), None)
    index = int(match["layer"])
    if model is None or not 0 <= index < len(model.layers):
        return False
    return all(layer.is_activation_layer for layer in model.layers[index + 1 :])


def _side(files: Sequence[str] | str) -> list[str] | str:
    return files if isinstance(files, str) else [str(f) for f in files]


def _unsimulated(cls: BugResult) -> list[ComponentOutcome]:
    return [
        ComponentOutcome(c.element or "", c.code, None, c.before, c.after, "not_simulable", c.reason or "")
        for c in cls.components
        if not attempted(c)
    ]
