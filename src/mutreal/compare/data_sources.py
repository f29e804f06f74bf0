"""The data-source passes: where the training data comes from, not how it is prepared: a training
subset (TRD), another data file (TRD) and the colour mode images are read in (IWS).

Why apart from :mod:`mutreal.compare.data`: these passes read each side's data source (its call,
its file, its slice) once; the preprocessing pass aligns chains of steps, a job of its own.
"""

from __future__ import annotations

import re

import libcst

from mutreal.compare.components import FaultComponent, make_component
from mutreal.compare.context import CompareContext
from mutreal.compare.data import op_text, parse_call, without_comments
from mutreal.compare.kinds import ComponentKind as K
from mutreal.compare.noise import data_source_swapped
from mutreal.compare.training_data import TRAIN_ROLES, follows_other_array
from mutreal.decisions import DecisionId as D
from mutreal.decisions import applies
from mutreal.program.model import DataOp, DataSource, DataVar, data_path


def _color_mode(source: DataSource | None) -> str | None:
    """The ``color_mode`` an image reader is called with (``'rgb'``, its default, when unwritten); None
    for a source that is not read by a call or whose mode is not a literal."""
    if source is None or source.kind not in ("generator", "file"):
        return None
    expr = parse_call(source.text)
    if expr is None:
        return None
    for arg in expr.args:
        if arg.keyword is not None and arg.keyword.value == "color_mode":
            return arg.value.evaluated_value if isinstance(arg.value, libcst.SimpleString) else None
    return "rgb"


@applies(D.IWS_COLOR_MODE)
def compare_color_mode(ctx: CompareContext) -> list[FaultComponent]:
    """Decision IWS-color-mode: the fix reads the training images in another colour mode (grayscale
    vs rgb): the number of channels of the input data changes, a wrong shape of input data (IWS).

    Only when both programs read the images with the same reader (a swapped-in data source is set-up).
    """
    if data_source_swapped(ctx, by="reader"):
        return []
    bv, fv = ctx.training_inputs()
    b, f = _color_mode(bv.source), _color_mode(fv.source)  # type: ignore[union-attr]
    if b is None or f is None or b == f:
        return []
    return [
        make_component(
            data_path("x_train", "source"),
            K.DATA_RESHAPE,
            "changed",
            repr(b),
            repr(f),
            (bv.source.file, bv.source.line),  # type: ignore[union-attr]
            (fv.source.file, fv.source.line),  # type: ignore[union-attr]
            setting="color_mode",
        )
    ]


_ROW_SUBSET = re.compile(r"\[\s*:\s*([^\]:,]+?)\s*\]$")


def _row_subset(var: DataVar | None) -> DataOp | None:
    """The slice ``x[:n]`` that keeps only the first rows of a training array, if any."""
    if var is None:
        return None
    for op in var.preprocess:
        if op.op == "slice" and _ROW_SUBSET.search("".join((op.text or "").split())):
            return op
    return None


@applies(D.TRD_SUBSET)
def compare_training_subset(ctx: CompareContext) -> list[FaultComponent]:
    """Decision TRD-subset: the buggy program trains on the first rows of the same data set only.

    Counted only when both programs load the training inputs from the same source (a benchmark
    swapping in generated data is set-up, rule ``synthetic_data_source``).
    """
    if data_source_swapped(ctx, by="loader"):
        return []
    bv, fv = ctx.training_inputs()
    b, f = _row_subset(bv), _row_subset(fv)
    if b is None and f is None:
        return []
    if b is not None and f is not None and "".join(b.text.split()) == "".join(f.text.split()):
        return []
    return [
        make_component(
            data_path("x_train", "preprocess", bv.preprocess.index(b) if b else 0),  # type: ignore[union-attr]
            K.DATA_SIZE,
            "changed" if b and f else "removed" if b else "added",
            op_text(b) if b else None,
            op_text(f) if f else None,
            (b.file, b.line) if b else (None, None),
            (f.file, f.line) if f else (None, None),
        )
    ]


def _other_data_file(b: DataSource | None, f: DataSource | None) -> bool:
    """Both programs read the array from a file with the same reader, and the files differ by
    name (the same name in another directory is where a benchmark keeps its files)."""
    return (
        b is not None
        and f is not None
        and b.kind == f.kind == "file"
        and bool(b.name)
        and bool(f.name)
        and b.reader == f.reader
        and _file_name(b.name) != _file_name(f.name)
    )


def _file_name(path: str | None) -> str:
    """The last part of a path written with either separator (``C:\\data\\x.csv`` -> ``x.csv``)."""
    return re.split(r"[\\/]", path or "")[-1]


@applies(D.TRD_DATA_FILE)
def compare_data_files(ctx: CompareContext) -> list[FaultComponent]:
    """Decision TRD-data-file: the fix trains on another data file (``np.load('x_small.npy')`` ->
    ``np.load('x.npy')``, ``read_csv`` of another file): the training data itself changed, a fault
    of the training data's quality, which the study codes TRD (its only code for the data a program
    is trained on besides its labels). One component per bug: inputs and labels read from other
    files are one change of the training data (the files are counted in ``detail['files']``). A file
    read only on one side, or by another reader, is a swapped data source (set-up, decision
    data-source-noise)."""
    out: list[FaultComponent] = []
    for role in TRAIN_ROLES:
        bv, fv = ctx.buggy.data.get(role), ctx.fixed.data.get(role)
        if follows_other_array(bv) or follows_other_array(fv):
            continue  # the array's source is another array's (a runtime call rebinding x and y)
        b, f = (bv.source if bv else None), (fv.source if fv else None)
        if not _other_data_file(b, f):
            continue
        if out:
            if (b.name, f.name) != (out[0].detail["buggy_name"], out[0].detail["fixed_name"]):  # type: ignore[union-attr]
                out[0].detail["files"] += 1
            continue
        out.append(
            make_component(
                data_path(role, "source"),
                K.DATA_SOURCE_FILE,
                "changed",
                without_comments(b.text).strip() or b.name,  # type: ignore[union-attr]
                without_comments(f.text).strip() or f.name,  # type: ignore[union-attr]
                (b.file, b.line),  # type: ignore[union-attr]
                (f.file, f.line),  # type: ignore[union-attr]
                role=role,
                setting="file",
                buggy_name=b.name,  # type: ignore[union-attr]
                fixed_name=f.name,  # type: ignore[union-attr]
                files=1,
            )
        )
    return out
