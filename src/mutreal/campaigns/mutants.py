"""The mutants ``compare --manifest`` sets against each real fault: reconstructed, all, or given.

The question behind ``compare --manifest`` is whether a mutation tool's operators make faults that
behave like the real ones. Three sets of mutants of a bug's fixed program answer it at three costs:

- ``reconstruct``: the operators classify matched to the fault's components, applied to the fixed
  program with the values the buggy program has (the mutation stage's
  :func:`mutreal.mutation.reconstruct.reconstruct_pair`, which ``validate-operators`` calls too):
  one mutant per component, plus the higher-order mutant of all of them when there are several
  (a program of several files included). If the real fault is reconstructed exactly this mutant
  *is* the fault, and it must couple with it; a bug none of whose components an operator
  simulates gets no mutant and a reason. A bug only some of whose components an operator
  simulates gets the mutants of those (the closest a mutation tool comes to it), marked
  ``partial`` with the components left out and why, and a note on the bug's row.
- ``all``: every first-order mutant of every registered operator at the catalogue's (DeepCrime's)
  parameter values, the exhaustive search for the mutant closest to the fault.
- a folder: mutants written beforehand, ``DIR/<bug id>/*.py`` (with ``mutate``'s provenance
  ``.json`` beside each when there is one).

Mutants are written into a folder of the output, never beside the user's programs; they read
their original's data files through the campaign's data folders (see
:func:`mutreal.campaigns.pair.mutant_data_folders`).
"""

from __future__ import annotations

import json
import re
import shutil
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

#: the mutant sets ``--mutants`` names (anything else is a folder of given mutants)
MODES = ("reconstruct", "all")


@dataclass
class MutantSpec:
    """One mutant program of a bug's fixed program, and where it came from."""

    file: str
    operator: str | None
    site: Any = None
    value: Any = None
    provenance: dict[str, Any] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


@dataclass
class MutantSet:
    """The mutants of one bug, the ones that could not be made, and why there are none."""

    mutants: list[MutantSpec] = field(default_factory=list)
    failures: list[dict[str, Any]] = field(default_factory=list)
    reason: str | None = None
    #: what a report must know of the set as a whole (a partial reconstruction says so here)
    notes: list[str] = field(default_factory=list)


def safe_name(text: str) -> str:
    """A file-system name for a bug id (unsafe characters replaced, bounded length)."""
    return re.sub(r"[^A-Za-z0-9._-]+", "_", text).strip("._")[:120] or "bug"


def _plain(value: Any) -> Any:
    """A JSON-safe copy of an operator value (tuples become lists, odd objects their repr)."""
    try:
        return json.loads(json.dumps(value))
    except (TypeError, ValueError):
        return repr(value)


def _row(classified: Any) -> dict[str, Any]:
    return classified.to_dict() if hasattr(classified, "to_dict") else dict(classified)


def not_simulable_reason(classified: Any) -> str | None:
    """Why no operator can simulate any part of this bug (from its classify row), or None when at
    least one component can (the others make the reconstruction partial).

    ``classified`` is a :class:`mutreal.label.classify.BugResult` or its JSON dict."""
    data = _row(classified)
    if data.get("status") != "ok":
        return f"the pair cannot be classified: {data.get('error') or data.get('status')}"
    components = data.get("components") or []
    if not components:
        return "classify found no fault component (order 0): nothing to reconstruct"
    from mutreal.mutation.reconstruct import attempted

    missing = [c for c in components if not attempted(c)]
    if len(missing) < len(components):
        return None
    parts = [f"{c.get('code')} at {c.get('element')}: {c.get('reason') or 'no operator'}" for c in missing]
    share = f"{len(missing)} of {len(components)} component(s)"
    return f"no operator simulates {share} ({'; '.join(parts)})"


def reconstruct_mutants(
    bug_id: str,
    benchmark: str | None,
    buggy: Sequence[str],
    fixed: Sequence[str],
    fixed_entry: str,
    folder: str | Path,
    classified: Any = None,
) -> MutantSet:
    """The operators classify matched, applied to the fixed program with the buggy values.

    ``classified`` is the bug's classify row (``--results``); without it the pair is classified
    here. The mutant sits in ``folder`` (the fixed side mirrored there, so a program of several
    files still imports its siblings)."""
    from mutreal.label.classify import classify_safely
    from mutreal.mutation.reconstruct import mirror_path, reconstruct_pair

    if classified is None:
        classified = classify_safely(list(buggy), list(fixed), bug_id=bug_id, benchmark=benchmark)
    reason = not_simulable_reason(classified)
    if reason is not None:
        return MutantSet(reason=reason)
    folder = Path(folder)
    if folder.exists():
        shutil.rmtree(folder)  # a resumed bug starts from a clean folder: no stale mutant trained
    made = reconstruct_pair(
        list(buggy),
        list(fixed),
        str(folder),
        bug_id=bug_id,
        benchmark=benchmark,
        partial=True,
        first_order=True,
    )
    if made.reconstruction is None:  # the pair's error, else each component's reason (a loss left out)
        why = made.error or "; ".join(f"{o.code} at {o.element}: {o.detail or 'no operator simulates it'}"
                                      for o in made.outcomes)  # fmt: skip
        return MutantSet(reason=f"reconstruction: {made.status}: {why}".rstrip(": "))
    outcomes, rec = made.outcomes, made.reconstruction
    applied = rec.applied
    failures = [
        {"operator": c.operator, "element": c.element, "status": c.status, "error": c.detail}
        for c in outcomes
        if c not in applied and c.status != "not_simulable"
    ]
    if not applied:
        unsimulated = [f"{c.code} at {c.element}" for c in outcomes if c.status == "not_simulable"]
        return MutantSet(failures=failures, reason="no component's operator could be applied: " + "; ".join(
            f"{f['operator'] or '-'} at {f['element']}: {f['status']} {f['error']}".strip() for f in failures)
            + (f" (and no operator simulates {', '.join(unsimulated)})" if unsimulated else ""))  # fmt: skip
    combined = mirror_path(str(folder / "builtin"), fixed, fixed_entry)
    exact = made.status == "reconstructed"
    coverage = _coverage(outcomes, applied, classified)
    mutants: list[MutantSpec] = []
    by_index = {i: c for i, c in enumerate(rec.outcomes) if c.applied}
    for fom in rec.first_order:
        component = by_index[fom.component]
        mutants.append(_first_order(mirror_path(fom.root, fixed, fixed_entry), component, exact))
    for component in applied:
        if len(applied) > 1 and not any(by_index[f.component] is component for f in rec.first_order):
            failures.append({"operator": component.operator, "element": component.element,
                             "status": "operator_error", "error": "the single edit could not be written"})  # fmt: skip
    only = applied[0] if len(applied) == 1 else None
    mutants.append(_reconstructed(combined, applied, exact, rec.residual, only))
    for spec in mutants:
        spec.provenance.update(coverage)
    return MutantSet(
        mutants=mutants, failures=failures, notes=_partial_note(coverage) + _value_notes(applied)
    )


def _value_notes(applied: Sequence[Any]) -> list[str]:
    """The row's note of each mutant value that is not the fault's: the buggy program computes it
    and nothing folds it, so the catalogue's value stands in (the reconstruction's detail says which)."""
    return [
        f"{c.operator} at {c.element} uses the catalogue's value {c.value!r}, not the fault's: {c.detail.split('; ')[0]}"
        for c in applied
        if c.value_origin == "catalogue"
    ]


def _coverage(outcomes: Sequence[Any], applied: Sequence[Any], classified: Any) -> dict[str, Any]:
    """Which fault components the mutants reconstruct and which they leave out (code, element, why).

    The reconstruction is ``partial`` when a component has no edit in any mutant: no operator
    simulates it, or its operator could not be applied. Codes and reasons are the classify row's
    (buggy to fixed, what the user sees) where it has the element, else validate's."""
    from mutreal.program.model import canonical_path

    shown = {canonical_path(str(c.get("element"))): c for c in _row(classified).get("components") or []}

    def code(outcome: Any) -> str:
        return str((shown.get(canonical_path(outcome.element)) or {}).get("code") or outcome.code)

    reconstructed = [{"code": code(c), "element": c.element, "operator": c.operator}
                     for c in applied if c.reconstructed]  # fmt: skip
    left_out = []
    for c in outcomes:
        if c.reconstructed:
            continue
        if c.status == "not_simulable":
            why = (
                (shown.get(canonical_path(c.element)) or {}).get("reason")
                or c.detail
                or "no operator simulates it"
            )
        else:
            why = f"{c.status}: {c.detail}".rstrip(": ")
        left_out.append({"code": code(c), "element": c.element, "reason": why, "status": c.status})
    partial = any(c not in applied for c in outcomes)
    return {"partial": partial, "reconstructed": reconstructed, "not_reconstructed": left_out}


def _partial_note(coverage: Mapping[str, Any]) -> list[str]:
    """The row's note of a partial reconstruction (none for a full one)."""
    if not coverage["partial"]:
        return []
    done = "; ".join(f"{c['code']} at {c['element']}" + ("" if c["operator"] == c["code"] else f" by {c['operator']}")
                     for c in coverage["reconstructed"])  # fmt: skip
    left = "; ".join(f"{c['code']} at {c['element']}: {c['reason']}" for c in coverage["not_reconstructed"])
    total = len(coverage["reconstructed"]) + len(coverage["not_reconstructed"])
    return [
        f"partial reconstruction: the mutants reconstruct {len(coverage['reconstructed'])} of {total} fault "
        f"component(s) ({done or 'none exactly'}); not reconstructed: {left}"
    ]


def _reconstructed(
    path: str, applied: Sequence[Any], exact: bool, residual: Sequence[Any], only: Any
) -> MutantSpec:
    provenance = {
        "mode": "reconstruct",
        "order": len(applied),
        "exact": exact,
        "components": [_component_provenance(c) for c in applied],
        "residual": list(residual),
    }
    if only is not None:
        return MutantSpec(path, only.operator, only.site, _plain(only.value), provenance)
    return MutantSpec(
        path, "+".join(c.operator for c in applied), [c.site for c in applied], [_plain(c.value) for c in applied],
        provenance,
    )  # fmt: skip


def _first_order(path: str, component: Any, exact: bool) -> MutantSpec:
    """One component's mutant (its edit and the completions of its element): a part of a
    higher-order fault."""
    provenance = {
        "mode": "reconstruct", "order": 1, "exact": False, "part_of_exact": exact,
        "components": [_component_provenance(component)],
    }  # fmt: skip
    return MutantSpec(path, component.operator, component.site, _plain(component.value), provenance)


def _component_provenance(c: Any) -> dict[str, Any]:
    out = {
        "operator": c.operator,
        "element": c.element,
        "fixed": c.fixed,
        "buggy": c.buggy,
        "status": c.status,
    }
    if c.value_origin and c.value_origin != "buggy":
        out["value_origin"] = c.value_origin
    if c.completions:
        out["completions"] = [_plain(x) for x in c.completions]
    return out


def all_mutants(fixed_entry: str, folder: str | Path, operators: Sequence[str] | None = None) -> MutantSet:
    """Every first-order mutant of every registered operator (or ``operators``) at the catalogue's values."""
    from mutreal.mutation.mutate import Failure, generate, write_mutant
    from mutreal.mutation.operators import Program, registry

    folder = Path(folder)
    if folder.exists():
        shutil.rmtree(folder)
    try:
        program = Program.from_file(fixed_entry)
    except Exception as error:  # noqa: BLE001 - an unreadable program is this bug's error, not the batch's
        return MutantSet(reason=f"the fixed program cannot be mutated: {type(error).__name__}: {error}")
    out = MutantSet()
    for op_id in operators or list(registry.operators()):
        try:
            items = list(generate(program, op_id, all_values=True))
        except Exception as error:  # noqa: BLE001 - one failing operator is a finding, not a stop
            out.failures.append({"operator": op_id, "error": f"{type(error).__name__}: {error}"})
            continue
        for item in items:
            if isinstance(item, Failure):
                if "no site" not in item.error:
                    out.failures.append(item.to_dict())
                continue
            path, _ = write_mutant(item, str(folder))
            prov = item.provenance.to_dict()
            out.mutants.append(MutantSpec(
                path, prov["operator"], prov["site"], _plain(prov["value"]),
                {"mode": "all", "element": prov["element"], "old": prov["old"], "new": prov["new"]},
            ))  # fmt: skip
    if not out.mutants:
        out.reason = "no operator has a site in the fixed program"
    return out


def given_mutants(root: str | Path, bug_id: str) -> MutantSet:
    """The mutants written beforehand for this bug: ``root/<bug id>/*.py`` (provenance JSON read when beside).

    Every key of a mutant's provenance JSON is kept in the row (``mode`` becomes ``given``; a
    mode the record had is kept as ``made_as``): what made the mutant is the user's to read back,
    such as the ``deepcrime`` record of ``mutate --deepcrime-name`` that names the DeepCrime mutant
    a row measures."""
    root = Path(root)
    folder = next((f for f in (root / bug_id, root / safe_name(bug_id)) if f.is_dir()), None)
    if folder is None:
        return MutantSet(reason=f"no folder {root / bug_id} of mutants for this bug")
    out = MutantSet()
    for path in sorted(p for p in folder.rglob("*.py") if "__pycache__" not in p.parts):
        provenance: dict[str, Any] = {"mode": "given"}
        beside = path.with_suffix(".json")
        data: dict[str, Any] = {}
        if beside.is_file():
            try:
                read = json.loads(beside.read_text(encoding="utf-8"))
            except (OSError, ValueError):
                read = None
            if isinstance(read, dict):
                data = read
                made_as = data.get("mode")
                provenance = {**data, "mode": "given"} | ({"made_as": made_as} if made_as not in (None, "given") else {})
            else:
                provenance["note"] = f"{beside.name} is not a provenance JSON"
        out.mutants.append(
            MutantSpec(str(path), data.get("operator"), data.get("site"), data.get("value"), provenance)
        )
    if not out.mutants:
        out.reason = f"no mutant program (*.py) under {folder}"
    return out
