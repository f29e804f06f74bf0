"""The classify API: buggy/fixed program pairs and manifests -> classified bugs (results JSONL).

A bug is one or more buggy files and their fixed counterparts. Files are paired (by relative path;
one file each side whatever their names; else by position), each side is read and parsed
(:mod:`mutreal.program.source`), turned into a program model (:mod:`mutreal.extract`), diffed
(:mod:`mutreal.compare`) and every component labelled (:mod:`mutreal.label.codes`). One bad pair never stops
a manifest run: it becomes an error row with a clear message. The rows are
:class:`mutreal.results.BugResult` (the one type that writes and reads the JSONL); manifests are
read by :mod:`mutreal.manifest`.
"""

from __future__ import annotations

import os
import re
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any, TextIO

from mutreal.compare.components import FaultComponent
from mutreal.compare.confidence import set_confidence
from mutreal.compare.coverage import Coverage, StatementChange, cover, modelled_lines
from mutreal.compare.rewritten_blocks import (
    argument_made_attribute,
    custom_layer_components,
    extend_to_bodies,
    extend_to_builders,
    placeholder_arguments,
    result_assigned_in_callee,
)
from mutreal.compare.statements import statements_of
from mutreal.label.best_code import best_code, best_code_components, coupled_shapes
from mutreal.label.codes import label_component
from mutreal.label.followed_values import Context, constants, shape_helpers
from mutreal.label.lost_blocks import made_up_by_parse
from mutreal.manifest import ManifestError, ManifestRow, read_manifest
from mutreal.parallel import map_with_progress
from mutreal.program.source import SourceError, load_program
from mutreal.results import BugResult, ComponentResult, read_results, write_results

if TYPE_CHECKING:
    from mutreal.label.codes import Label


__all__ = [
    "BugResult",
    "ClassifyError",
    "ComponentResult",
    "ManifestError",
    "ManifestRow",
    "classify_manifest",
    "classify_pair",
    "classify_safely",
    "component_result",
    "expand_side",
    "iter_classify_manifest",
    "pair_files",
    "read_manifest",
    "read_results",
    "resolved_values",
]


class ClassifyError(Exception):
    """A bug that cannot be classified (the message says why, for people)."""


# ---------------------------------------------------------------------------------------------------
# Results (the type is :mod:`mutreal.results`; here only how a labelled component becomes one)
# ---------------------------------------------------------------------------------------------------


def component_result(label: Label, component: FaultComponent) -> ComponentResult:
    """The label's fields, then where and what the component changed (its other fields), with the
    confidence :mod:`mutreal.compare.confidence` gives it."""
    set_confidence(component, label.code)
    values = label.to_dict()
    values.update(
        {
            name: getattr(component, name)
            for name in ComponentResult.__dataclass_fields__
            if name not in values and name not in ("resolved", "extra")
        }
    )
    return ComponentResult(**values, resolved=resolved_values(component))


#: Keys of a fault component's ``detail`` holding what a side's expression evaluates to, best first.
_RESOLVED_KEYS = ("number", "value", "activation")


def resolved_values(component: FaultComponent) -> dict[str, Any]:
    """``{"before": v, "after": v}`` for the sides whose text is a name the extractor resolved to a constant."""
    resolved: dict[str, Any] = {}
    for side in ("before", "after"):
        text = getattr(component, side)
        if not isinstance(text, str) or not _NAME.match(text.strip()):
            continue
        for key in _RESOLVED_KEYS:
            value = component.detail.get(f"{side}_{key}")
            if isinstance(value, (bool, int, float, str)) and str(value) != text.strip():
                resolved[side] = value
                break
    return resolved


_NAME = re.compile(r"^[A-Za-z_][\w.]*$")


# ---------------------------------------------------------------------------------------------------
# Pairing files
# ---------------------------------------------------------------------------------------------------


def expand_side(spec: str | Path | list[str]) -> list[str]:
    """A side of a bug as files: a file, a ``;``-separated list, or a directory (its ``*.py``, sorted)."""
    items = spec if isinstance(spec, list) else [s for s in str(spec).split(";") if s.strip()]
    files: list[str] = []
    for item in items:
        p = Path(str(item).strip())
        if p.is_dir():
            files += python_files_under(p)
        else:
            files.append(str(p))
    return files


#: most ``.py`` files one side of a bug may hold: a bug's program is a handful of files; a folder
#: with thousands (a virtual environment, a home folder) is a wrong path, refused before it is read.
MAX_SIDE_FILES = 2000


def python_files_under(folder: Path, limit: int = MAX_SIDE_FILES) -> list[str]:
    """The ``.py`` files of a folder, sorted; links are followed only when they stay inside it.

    A link that points out of the folder would let a benchmark's side pull in files from anywhere
    (``/etc``, the user's home), and a link loop would never end, so neither is followed. Past
    ``limit`` files the walk stops with a :class:`ClassifyError` instead of reading them all.
    """
    root = os.path.realpath(folder)
    found: list[str] = []
    for current, dirs, names in os.walk(folder, followlinks=False):
        dirs[:] = sorted(d for d in dirs if not os.path.islink(os.path.join(current, d)))
        for name in names:
            if not name.endswith(".py"):
                continue
            path = os.path.join(current, name)
            real = os.path.realpath(path)
            if os.path.islink(path) and os.path.commonpath([root, real]) != root:
                continue
            if not os.path.isfile(real):
                continue
            found.append(path)
            if len(found) > limit:
                raise ClassifyError(
                    f"{folder}: more than {limit} .py files; a bug's side is a program, not a tree of "
                    "projects (give its own folder or a ';'-list of files)"
                )
    if not found:
        raise ClassifyError(f"{folder}: directory holds no .py files")
    return sorted(found)


def _relative_names(files: list[str]) -> list[str]:
    if len(files) == 1:
        return [Path(files[0]).name]
    common = os.path.commonpath([os.path.abspath(f) for f in files])
    return [os.path.relpath(os.path.abspath(f), common) for f in files]


def pair_files(buggy: list[str], fixed: list[str]) -> list[tuple[str | None, str | None]]:
    """Pair the files of a bug: by relative path; one each side whatever the names; else by position.

    A file on one side only is paired with None (compared with nothing).
    """
    if len(buggy) == 1 and len(fixed) == 1:
        return [(buggy[0], fixed[0])]
    bnames, fnames = _relative_names(buggy), _relative_names(fixed)
    fixed_by_name = dict(zip(fnames, fixed, strict=True))
    if set(bnames) & set(fnames):
        pairs: list[tuple[str | None, str | None]] = []
        for name, b in zip(bnames, buggy, strict=True):
            pairs.append((b, fixed_by_name.pop(name, None)))
        pairs += [(None, f) for f in fixed_by_name.values()]
        return pairs
    n = max(len(buggy), len(fixed))
    return [(buggy[i] if i < len(buggy) else None, fixed[i] if i < len(fixed) else None) for i in range(n)]


# ---------------------------------------------------------------------------------------------------
# Classifying one bug
# ---------------------------------------------------------------------------------------------------


def _extract(path: str, tolerant: bool):
    from mutreal.extract import extract_model

    parsed = load_program(path, tolerant=tolerant)
    model = extract_model(parsed.module, path, source=parsed.text)
    return parsed, model


def _empty_model(path: str):
    from mutreal.program.model import ProgramModel

    return ProgramModel(path=path, framework="none")


def _data_summary(model) -> dict[str, Any]:
    """The per-side training-data verdict (RQ2): ``describe_training_data(model).to_dict()``.

    The report reads ``data[side]["class"]`` and ``["dataset"]``; :mod:`mutreal.label.data_class` owns the rules.
    """
    from mutreal.label.data_class import describe_training_data

    return describe_training_data(model).to_dict()


def _has_keras(model) -> bool:
    """A model, compile or fit call, or TensorFlow 1 graph code (era ``tf1``: a graph built and run
    in a session, read by :mod:`mutreal.extract.tf_graph`)."""
    return bool(model.models or model.compiles or model.fits) or model.era == "tf1"


def classify_pair(
    buggy: str | Path | list[str],
    fixed: str | Path | list[str],
    *,
    bug_id: str | None = None,
    benchmark: str | None = None,
    tolerant: bool = False,
) -> BugResult:
    """Classify one bug. Raises :class:`ClassifyError` (or :class:`SourceError`) when it cannot."""

    bfiles, ffiles = expand_side(buggy), expand_side(fixed)
    result = BugResult(id=bug_id or f"{';'.join(bfiles)} -> {';'.join(ffiles)}", benchmark=benchmark)
    opaque = total = 0
    any_keras = False
    non_keras: list[str] = []
    statements = {"buggy": 0, "fixed": 0}
    keras_side = {"buggy": False, "fixed": False}
    coverage = Coverage()
    for bpath, fpath in pair_files(bfiles, ffiles):
        result.files.append({"buggy": bpath, "fixed": fpath})
        sides = []
        for side, path in (("buggy", bpath), ("fixed", fpath)):
            if path is None:
                sides.append((None, _empty_model("<none>")))
                continue
            parsed, model = _extract(path, tolerant)
            for line in parsed.set_aside:
                result.set_aside.append({"side": side, "file": path, **line.to_dict()})
            o, t = model.opaque_counts()
            opaque, total = opaque + o, total + t
            statements[side] += len(parsed.module.body)
            keras_side[side] = keras_side[side] or _has_keras(model)
            sides.append((parsed, model))
        (bparsed, bmodel), (fparsed, fmodel) = sides
        any_keras = any_keras or _has_keras(bmodel) or _has_keras(fmodel)
        for m in (bmodel, fmodel):
            if m.framework in ("pytorch",) and not _has_keras(m):
                non_keras.append(f"{m.path} ({m.framework})")
        result.era.setdefault("buggy", bmodel.era)
        result.era.setdefault("fixed", fmodel.era)
        if bpath is not None:
            result.data.setdefault("buggy", _data_summary(bmodel))
        if fpath is not None:
            result.data.setdefault("fixed", _data_summary(fmodel))
        if bpath is None or fpath is None:
            continue  # a file on one side only is compared with nothing
        components, pair_coverage = _pair_components(bparsed, bmodel, fparsed, fmodel)
        result.components += components
        coverage.add(pair_coverage)
    for moved in argument_made_attribute(coverage):  # decision argument-made-attribute: across files
        result.components.append(component_result(label_component(moved), moved))
    for side, other in (("buggy", "fixed"), ("fixed", "buggy")):
        if statements[side] == 0 and keras_side[other]:
            files = bfiles if side == "buggy" else ffiles
            raise ClassifyError(
                f"the {side} side is empty: no statement in {', '.join(files)}; "
                f"nothing to compare with the {other} Keras program"
            )
    if not any_keras:
        why = f": {', '.join(non_keras)}" if non_keras else ""
        raise ClassifyError(f"not a Keras program: no model, compile or fit call found{why}")
    result.opaque_share = opaque / total if total else 0.0
    record_coverage(result, coverage)
    return result


def _pair_components(bparsed, bmodel, fparsed, fmodel) -> tuple[list[ComponentResult], Coverage]:
    """The labelled components of one file pair and the coverage of its statement diff.

    The passes' components (less what a tolerant parse made up); in graph code, shape components
    that restore one agreement merged into one (decision one-inconsistency-one-component) and a
    best-code component for each group of changes no pass explains (decision best-code-statement),
    unless the pair already has that code (most likely the rest of the same fix). In Keras
    programs the passes model every element a code names: a best code only annotates the
    listed change."""
    from mutreal.compare import diff_models
    from mutreal.label.codes import label_component

    kept = [c for c in diff_models(bmodel, fmodel) if not made_up_by_parse(c, bparsed, fparsed)]
    cache: dict = {}  # a statement both sides write the same is read once
    bstatements = _statements(bparsed, bmodel.path, cache)
    fstatements = _statements(fparsed, fmodel.path, cache)
    graph = "tf1" in (bmodel.era, fmodel.era) or "tensorflow" in (bmodel.framework, fmodel.framework)
    labels = [label_component(c) for c in kept]
    explaining = list(kept)  # components, and those merged into one, that explain statements
    if graph:
        fed = {i for i, label in enumerate(labels) if label.code == "IWS"}
        merged = coupled_shapes(list(kept), bstatements, fstatements, fed)
        if len(merged) < len(kept):
            labels = [label for c, label in zip(kept, labels, strict=True) if any(c is m for m in merged)]
            kept = merged
    # decisions defined-element-body and custom-layer-api: a function or class is one element
    texts = (bparsed.text, fparsed.text)
    extend_to_bodies(explaining, bstatements, fstatements, texts)
    extend_to_builders(explaining, bstatements, fstatements, texts)  # decision model-built-by-block
    blocks = custom_layer_components(bstatements, fstatements, explaining, texts)
    blocks += placeholder_arguments(bstatements, fstatements, texts)  # decision placeholder-made-argument
    kept, explaining = kept + blocks, explaining + blocks
    labels += [label_component(c) for c in blocks]
    out = [component_result(label, c) for label, c in zip(labels, kept, strict=True)]
    modelled = (modelled_lines(bmodel), modelled_lines(fmodel))

    def made_up(change: StatementChange) -> bool:
        """Decision lost-block-noise on a statement: where the tolerant parse lost the program."""
        located = FaultComponent(
            "statement",
            "tensor.shape",
            change.change,
            buggy_line=change.buggy.line if change.buggy else None,
            fixed_line=change.fixed.line if change.fixed else None,
        )
        return made_up_by_parse(located, bparsed, fparsed)

    origins = (bmodel.value_origins(), fmodel.value_origins())
    pair_coverage = cover(bstatements, fstatements, explaining, modelled, made_up, graph, origins)
    result_assigned_in_callee(pair_coverage, bstatements, fstatements, texts)  # a refactor: noise
    # what the table reads beyond a changed statement, read only where a change is left in
    # graph code (in Keras programs a best code is a hint from the statement alone)
    context = (
        Context(
            shape_helpers=shape_helpers(bstatements) + shape_helpers(fstatements),
            constants=(constants(bstatements), constants(fstatements)),
            sides=(tuple(bstatements), tuple(fstatements)),
        )
        if graph and pair_coverage.open
        else None
    )
    if graph:
        guessed = best_code_components(pair_coverage.open, graph, context, alone=not kept)
        found = {label.code for label in labels}
        for comp in guessed:
            comp.detail["raw_tensorflow"] = True
            label = label_component(comp)
            if label.code in found:
                continue  # decision one-inconsistency-one-component: the rest of a fix already coded
            found.add(label.code)
            out.append(component_result(label, comp))
        extend_to_bodies(guessed, bstatements, fstatements, texts)  # decision defined-element-body
        if guessed:  # a guess left out for its code explains its statements by that code's component
            pair_coverage = cover(
                bstatements, fstatements, [*explaining, *guessed], modelled, made_up, graph, origins
            )
            result_assigned_in_callee(pair_coverage, bstatements, fstatements, texts)
    _annotate(pair_coverage, graph, context)
    return out, pair_coverage


def _statements(parsed, path: str, cache: dict | None = None) -> list:
    """The normalised statements of one side (:func:`mutreal.compare.statements.statements_of`)."""
    from mutreal.program.source import python_tree

    return statements_of(parsed.text, path, python_tree(parsed.module, parsed.text), cache)


def _annotate(coverage: Coverage, graph: bool, context: Context | None = None) -> None:
    """Each unexplained change gains the code of what it touches, where the table names one
    (``best_code``), for the reader: a component in graph code, a hint in Keras programs."""
    from mutreal.label.best_code import rule_code

    for change, item in zip(coverage.open, coverage.unexplained, strict=True):
        found = best_code(change, graph, context)
        if found is not None:
            item.best_code = rule_code(found[1])
            item.best_code_reason = found[1].why


def record_coverage(result: BugResult, coverage: Coverage) -> None:
    """The statement diff's figures and every unexplained change, written into the row."""
    result.changed_statements = coverage.changed
    result.explained_statements = coverage.explained
    result.noise_statements = dict(sorted(coverage.noise.items()))
    result.unexplained = [u.to_dict() for u in coverage.unexplained]


def classify_safely(
    buggy: str | list[str],
    fixed: str | list[str],
    *,
    bug_id: str,
    benchmark: str | None = None,
    tolerant: bool = True,
) -> BugResult:
    """:func:`classify_pair` that turns every failure into an error row with a clear message."""
    try:
        return classify_pair(buggy, fixed, bug_id=bug_id, benchmark=benchmark, tolerant=tolerant)
    except (ClassifyError, SourceError) as exc:
        return BugResult(id=bug_id, benchmark=benchmark, status="error", error=str(exc))
    except RecursionError:
        return BugResult(id=bug_id, benchmark=benchmark, status="error", error="program too deeply nested")
    except Exception as exc:  # one bad pair never stops a batch; the message names the failure
        return BugResult(
            id=bug_id,
            benchmark=benchmark,
            status="error",
            error=f"internal error while classifying: {type(exc).__name__}: {exc}",
        )


# ---------------------------------------------------------------------------------------------------
# Manifests
# ---------------------------------------------------------------------------------------------------


def _classify_row(args: tuple[ManifestRow, bool]) -> BugResult:
    row, tolerant = args
    if not row.buggy or not row.fixed:
        return BugResult(
            id=row.id,
            benchmark=row.benchmark,
            status="error",
            error="manifest row names no buggy or no fixed file",
        )
    return classify_safely(row.buggy, row.fixed, bug_id=row.id, benchmark=row.benchmark, tolerant=tolerant)


def iter_classify_manifest(
    path: str | Path, *, jobs: int = 1, tolerant: bool = True, progress: bool | None = None
) -> Iterator[BugResult]:
    """Classify every bug of a manifest, yielding results in manifest order.

    ``jobs`` > 1 uses a process pool; ``progress`` shows a bar on stderr (None: only on a terminal).
    """
    rows = read_manifest(path)
    yield from map_with_progress(
        _classify_row,
        [(row, tolerant) for row in rows],
        jobs=jobs,
        desc="classify",
        unit="bug",
        progress=progress,
        chunksize=2,
    )


def classify_manifest(
    path: str | Path,
    out: TextIO,
    *,
    jobs: int = 1,
    tolerant: bool = True,
    progress: bool | None = None,
    statements: Counter[str] | None = None,
) -> tuple[int, int]:
    """Write one JSON line per bug of the manifest to ``out``; returns (bugs, failed).

    ``statements``, when given, gains the manifest's ``changed`` and ``explained`` statement counts
    (the "changed statements explained" figure of the run)."""
    failed = 0

    def counted() -> Iterator[BugResult]:
        nonlocal failed
        for result in iter_classify_manifest(path, jobs=jobs, tolerant=tolerant, progress=progress):
            failed += not result.ok
            if statements is not None and result.ok:
                statements["changed"] += result.changed_statements or 0
                statements["explained"] += result.explained_statements or 0
            yield result

    return write_results(counted(), out), failed
