"""RQ1: does a benchmark version correspond to its source?

A benchmark bug is only as real as its programs: the study checked that each buggy version is
the code of its source (a Stack Overflow post, or a file before a commit) and each fixed version
the code after the fix (the accepted answer, or the file after the commit). Benchmarks edit
programs while packaging them (completing a post into something that runs, shrinking epochs,
swapping the data set), and every such edit that changes the model, its hyperparameters or its
training means the benchmark no longer holds the fault as it was found.

This module answers the question with the **same program model and noise rules as classify**:
both files are parsed (tolerantly, since posts mix prose and code) into
:class:`mutreal.program.model.ProgramModel` and compared with :func:`mutreal.compare.diff_models`, so a
renamed variable, a print, an activation written as a separate layer or ``'adam'`` vs ``Adam()``
never counts as a difference, exactly as in classify. Each difference is labelled with the fault
code it would be (:func:`mutreal.label.codes.label_component`) so a reader sees *what* the benchmark
changed.

Rules for partial sources (a post usually shows only part of a program). The source is compared
on what it contains; the program may hold more:

``models``       the program's models are compared only when the source builds a model;
``compile``      compile calls only when the source compiles (paired in order);
``fit``          training calls only when the source trains (paired in order);
``data``         preprocessing of a data role (``x_train``, ``y_train``) only when the source
                 defines that role (loads, builds or preprocesses it; naming it in ``fit`` is not
                 enough); where the data *comes from* is RQ2's question (and a benchmark
                 replacing it with generated arrays is the ``synthetic_data_source`` noise rule),
                 so data sources are reported as notes, never as differences;
``missing``      an element the source has and the program lacks (a model, a compile, a fit, a
                 data role) is a difference: the program does not contain what the source shows;
``empty``        a source with none of these elements cannot be compared: status
                 ``nothing_to_compare`` rather than a vacuous "corresponds".

A side with several files (a GitHub project) is compared file by file: each source file against
the program file with the fewest differences among those that hold a model, compile or fit.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, ClassVar

from mutreal.manifest import ManifestError, load_manifest
from mutreal.serialise import Record

#: correspondence statuses
CORRESPONDS, DIFFERS, NOTHING, ERROR = "corresponds", "differs", "nothing_to_compare", "error"

#: the partial-source rules of the module docstring, by name (reported in ``compared``/``not_compared``)
PARTIAL_RULES: dict[str, str] = {
    "models": "models compared only when the source builds a model",
    "compile": "compile calls compared only when the source compiles",
    "fit": "training calls compared only when the source trains",
    "data": "preprocessing of a data role compared only when the source has that role",
    "data_source": "where the data comes from is RQ2's question: reported, never a difference",
    "missing": "an element of the source absent from the program is a difference",
    "empty": "a source with no model, compile, fit or data role cannot be compared",
}


@dataclass
class Difference(Record):
    """One way the program departs from its source (``source`` = before, ``program`` = after)."""

    element: str
    kind: str
    change: str  # "changed", "added" (program only), "removed" (source only), "missing"
    source: str | None = None
    program: str | None = None
    source_file: str | None = None
    source_line: int | None = None
    program_file: str | None = None
    program_line: int | None = None
    code: str | None = None
    #: folded values when the texts alone do not show the change (``epochs`` bound to 2 vs 1)
    source_value: Any = None
    program_value: Any = None

    def describe(self) -> str:
        where = f" (source line {self.source_line})" if self.source_line else ""
        code = f" [{self.code}]" if self.code else ""
        if self.change == "missing":
            return f"{self.element}: in the source{where}, not in the program"
        before, after = self.source or "-", self.program or "-"
        if before == after and (self.source_value is not None or self.program_value is not None):
            before, after = f"{before} (= {self.source_value})", f"{after} (= {self.program_value})"
        return f"{self.element}{code}: source {before} -> program {after}{where}"


@dataclass
class Correspondence(Record):
    """Whether one program corresponds to its source, and if not, how it differs."""

    source: list[str]
    program: list[str]
    status: str
    differences: list[Difference] = field(default_factory=list)
    compared: list[str] = field(default_factory=list)
    not_compared: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    error: str | None = None

    wire_derived: ClassVar = {"corresponds": "status"}

    @property
    def corresponds(self) -> bool | None:
        """True / False; None when nothing could be compared or reading failed."""
        if self.status in (CORRESPONDS, DIFFERS):
            return self.status == CORRESPONDS
        return None


# ------------------------------------------------------------------------------------- comparing


def program_model(path: str | Path, tolerant: bool = True):
    """Parse one file into a ProgramModel (tolerant by default: posts mix prose and code).

    Returns ``(model, set_aside_lines)``; raises :class:`mutreal.program.source.SourceError` when even a
    tolerant parse fails.
    """
    from mutreal.extract import extract_model
    from mutreal.program.source import load_program

    parsed = load_program(path, tolerant=tolerant)
    return extract_model(parsed.module, str(path)), parsed.set_aside


def _has_anything(model) -> bool:
    return bool(model.models or model.compiles or model.fits or model.data)


def _defines_role(model, role: str) -> bool:
    """The program defines the data of ``role``: it loads or builds it, or preprocesses it. Only
    naming it (``model.fit(x_train, y_train)`` in a post that never shows the data) is not enough."""
    var = model.data.get(role)
    if var is None:
        return False
    if var.preprocess:
        return True
    src = var.source
    if src is None:
        return False
    return not (src.kind == "opaque" and src.text.strip() in (var.var or "", role))


def _to_difference(component, label_code: str | None) -> Difference:
    return Difference(
        element=component.element,
        kind=component.kind,
        change=component.change,
        source=component.before,
        program=component.after,
        source_file=component.buggy_file,
        source_line=component.buggy_line,
        program_file=component.fixed_file,
        program_line=component.fixed_line,
        code=label_code,
        source_value=_first(component.detail, "before_number", "before_value"),
        program_value=_first(component.detail, "after_number", "after_value"),
    )


def _first(detail: dict[str, Any], *keys: str) -> Any:
    for key in keys:
        if detail.get(key) is not None:
            return detail[key]
    return None


def compare_models(source, program) -> tuple[list[Difference], list[str], list[str], list[str]]:
    """Differences of ``program`` from ``source`` under the partial-source rules.

    Returns ``(differences, compared, not_compared, notes)``; the last three name program parts
    (``models``, ``compile``, ``fit``, ``data.x_train``...).
    """
    from mutreal.compare import diff_models
    from mutreal.label.codes import label_component

    compared: list[str] = []
    not_compared: list[str] = []
    notes: list[str] = []
    missing: list[Difference] = []

    def part(name: str, src: list | dict, prog: list | dict, element: str) -> None:
        if src:
            compared.append(name)
            if len(prog) < len(src):
                for i in range(len(prog), len(src)):
                    item = src[i] if isinstance(src, list) else None
                    missing.append(
                        Difference(
                            element=f"{element}[{i}]" if isinstance(src, list) else element,
                            kind=f"{name}.missing",
                            change="missing",
                            source=getattr(item, "text", None) or name,
                            source_file=getattr(item, "file", None),
                            source_line=getattr(item, "line", None),
                        )
                    )
        elif prog:
            not_compared.append(name)

    part("models", source.models, program.models, "model")
    part("compile", source.compiles, program.compiles, "compile")
    part("fit", source.fits, program.fits, "fit")
    roles: set[str] = set()
    for role in ("x_train", "y_train"):
        if _defines_role(source, role):
            if role not in program.data:
                # the program never trains on this role (its missing fit is the difference)
                notes.append(f"data.{role}: the program has no training call using it; not compared")
                continue
            compared.append(f"data.{role}")
            roles.add(role)
            if not _defines_role(program, role):
                roles.discard(role)  # its preprocessing is part of what is missing
                var = source.data[role]
                missing.append(
                    Difference(
                        element=f"data.{role}",
                        kind="data.missing",
                        change="missing",
                        source=var.var or role,
                        source_file=var.source.file if var.source else None,
                        source_line=var.source.line if var.source else None,
                    )
                )
        elif _defines_role(program, role):
            not_compared.append(f"data.{role}")
        svar, pvar = source.data.get(role), program.data.get(role)
        if role in roles and svar and pvar and svar.source and pvar.source and _defines_role(program, role):
            s, p = svar.source, pvar.source
            if (s.kind, s.name) != (p.kind, p.name):
                notes.append(
                    f"data.{role} source: {s.kind} {s.name or s.text!s} in the source, "
                    f"{p.kind} {p.name or p.text!s} in the program (rule data_source)"
                )

    differences: list[Difference] = []
    for comp in diff_models(source, program):
        if comp.kind.startswith("data."):
            role = comp.detail.get("role") or comp.element.split(".")[1]
            if role not in roles:
                continue
        try:
            code = label_component(comp).code
        except Exception:  # a label is a courtesy here; never lose the difference over it
            code = None
        differences.append(_to_difference(comp, code))
    return differences + missing, compared, not_compared, notes


def correspond(
    source: str | Path | list[str], program: str | Path | list[str], tolerant: bool = True
) -> Correspondence:
    """Does ``program`` (one file, a ``;``-list, or a list) correspond to ``source``? Never raises
    for bad input: a file that cannot be read gives status ``error`` with the reason."""
    sources, programs = _files(source), _files(program)
    result = Correspondence(sources, programs, ERROR)
    if not sources or not programs:
        result.error = "no source file" if not sources else "no program file"
        return result
    try:
        program_models = []
        for path in programs:
            model, aside = program_model(path, tolerant)
            program_models.append((path, model))
            result.notes += [f"{path}:{a.line}: set aside ({a.reason})" for a in aside]
        for spath in sources:
            smodel, aside = program_model(spath, tolerant)
            result.notes += [f"{spath}:{a.line}: source line set aside ({a.reason})" for a in aside]
            if not _has_anything(smodel):
                continue
            best = None
            for ppath, pmodel in program_models:
                if len(program_models) > 1 and not (pmodel.models or pmodel.compiles or pmodel.fits):
                    continue
                found = compare_models(smodel, pmodel)
                if best is None or len(found[0]) < len(best[1][0]):
                    best = (ppath, found)
            if best is None:
                best = (programs[0], compare_models(smodel, program_models[0][1]))
            ppath, (diffs, compared, not_compared, notes) = best
            if len(sources) > 1 or len(programs) > 1:
                result.notes.append(f"{spath} compared with {ppath}")
            result.differences += diffs
            result.compared += [c for c in compared if c not in result.compared]
            result.not_compared += [c for c in not_compared if c not in result.not_compared]
            result.notes += notes
    except Exception as exc:  # SourceError, unreadable file, extractor failure: report, never stop
        result.error = f"{type(exc).__name__}: {exc}"
        return result
    result.not_compared = [c for c in result.not_compared if c not in result.compared]
    if not result.compared:
        result.status = NOTHING
        result.error = "the source holds no model, compile, fit or training data to compare (rule empty)"
    else:
        result.status = DIFFERS if result.differences else CORRESPONDS
    return result


def _files(spec: str | Path | list[str] | None) -> list[str]:
    if spec is None:
        return []
    items = spec if isinstance(spec, list) else str(spec).split(";")
    return [str(i).strip() for i in items if str(i).strip()]


# -------------------------------------------------------------------------------------- manifests


@dataclass
class BugCorrespondence(Record):
    """RQ1 for one bug of a manifest: its buggy and fixed versions against their sources."""

    id: str
    benchmark: str | None = None
    buggy: Correspondence | None = None
    fixed: Correspondence | None = None


def iter_correspond_manifest(path: str | Path, tolerant: bool = True) -> Iterator[BugCorrespondence]:
    """RQ1 for every bug of a manifest with ``source_buggy`` and/or ``source_fixed`` columns.

    Paths are relative to the manifest's folder unless absolute. A side whose source cell is empty
    is None (not checked); a bug with neither is yielded with both None so it is not lost.
    """
    manifest = load_manifest(path)
    if not manifest.has_any(("source_buggy", "source_fixed")):
        raise ManifestError(f"{path}: no source_buggy or source_fixed column: nothing to compare with")
    for row in manifest.rows:
        sides = {}
        for side, program in (("buggy", row.buggy), ("fixed", row.fixed)):
            src = row.files(f"source_{side}")
            sides[side] = correspond(src, program, tolerant) if src else None
        yield BugCorrespondence(row.id, row.benchmark, sides["buggy"], sides["fixed"])


def format_correspondence(c: Correspondence, label: str = "") -> str:
    """Plain-text verdict with the differences and what was (not) compared."""
    head = f"{label}: " if label else ""
    if c.status == ERROR:
        return f"{head}error: {c.error}"
    if c.status == NOTHING:
        return f"{head}nothing to compare: {c.error}"
    lines = [f"{head}{c.status} (compared: {', '.join(c.compared)}"]
    lines[0] += f"; not in the source: {', '.join(c.not_compared)})" if c.not_compared else ")"
    lines += [f"  - {d.describe()}" for d in c.differences]
    lines += [f"  note: {n}" for n in c.notes if "set aside" not in n]
    return "\n".join(lines)
