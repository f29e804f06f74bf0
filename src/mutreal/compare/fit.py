"""The training passes: fit calls (budget, validation set, callbacks, a learning rate set after
compile), the batch size of evaluation calls, and training-budget variables no call reads.

Only these arguments are compared (rule ``verbosity``); callbacks that only observe training are
left out (rule ``instrumentation_callbacks``).
"""

from __future__ import annotations

import re
from typing import Any

from mutreal.compare.alignment import pair_by_index
from mutreal.compare.components import FaultComponent, change_of, make_component, origin_lines, value_location
from mutreal.compare.context import CompareContext
from mutreal.compare.kinds import ComponentKind as K
from mutreal.compare.noise import data_source_swapped, noise_rule
from mutreal.compare.values import number, short, values_equal
from mutreal.decisions import DecisionId as D
from mutreal.decisions import applies
from mutreal.program.model import Fit, evaluation_path, fit_path
from mutreal.program.training_budget import BUDGET
from mutreal.program.training_observers import TRAINING_CALLBACKS

#: the arguments that give fit its validation set (validation_steps/freq only tune it)
_VALIDATION_SETS = ("validation_data", "validation_split")
_BUDGET = tuple((argument, K(element)) for argument, element in BUDGET.items())
_LENGTH_OF_DATA = re.compile(r"^(len\(.*\)|.*\.shape\[0\])$")


def compare_fits(ctx: CompareContext) -> list[FaultComponent]:
    """The fit pass: fit calls paired by position; records the budget kinds it emitted."""
    out: list[FaultComponent] = []
    for fi, bf, ff in pair_by_index(ctx.buggy.fits, ctx.fixed.fits):
        out.extend(_diff_budget(ctx, fi, bf, ff))  # type: ignore[arg-type]
        out.extend(_diff_validation(ctx, fi, bf, ff))  # type: ignore[arg-type]
        out.extend(_diff_later_learning_rate(fi, bf, ff))  # type: ignore[arg-type]
        out.extend(_diff_patience(fi, bf, ff))  # type: ignore[arg-type]
    ctx.budget_kinds |= {c.kind for c in out if c.kind in {kind for _, kind in _BUDGET}}
    return out


_LEADING_NAME = re.compile(r"^(?:len\()?([A-Za-z_]\w*)")


def _leading_name(text: str | None) -> str | None:
    match = _LEADING_NAME.match("".join((text or "").split()))
    return match.group(1) if match else None


@applies(D.HBS_FULL_BATCH)
def _full_batch(v: Any, fit: Fit) -> bool:
    """Decision HBS-full-batch: ``batch_size = len(x)`` / ``x.shape[0]`` where ``x`` is the array
    this call trains on (its inputs or labels): the whole training set in one batch (DeepCrime's
    HDB). The length of another array (a frame the post never shows) says nothing of the batch's
    size, so it stays an unknown value, undecidable against a number."""
    if v is None or not _LENGTH_OF_DATA.match("".join((v.text or "").split())):
        return False
    measured = _leading_name(v.text)
    trained = {_leading_name(a.text) for k in ("x", "y") if (a := fit.args.get(k)) is not None}
    return measured is not None and measured in trained


@applies(D.HNE_CHANGED, D.HBS_CHANGED, D.HNE_LOOP_PASSES)
def _diff_budget(ctx: CompareContext, fi: int, bf: Fit, ff: Fit) -> list[FaultComponent]:
    """Epochs and batch size of one pair of training calls. Decision HNE-loop-passes: fit in a loop
    with literal bounds trains epochs x passes; the passes are compared with the epochs."""
    out: list[FaultComponent] = []
    for key, kind in _BUDGET:
        bv, fv = bf.arg(key, ctx.era_b), ff.arg(key, ctx.era_f)
        if bf.method != "fit" or ff.method != "fit":
            bv, fv = bf.args.get(key), ff.args.get(key)
            if bv is None or fv is None:
                continue
        bn, fn = number(bv), number(fv)
        looped = key == "epochs" and bool(bf.repeat and ff.repeat) and bn is not None and fn is not None
        lines: tuple[list[int] | None, list[int] | None] = (None, None)
        if looped and bf.repeat != ff.repeat:
            before, after = f"{short(bv)} (x{bf.repeat} loop)", f"{short(fv)} (x{ff.repeat} loop)"
            # the loop's count is the budget too: the component points at the loops and their bounds
            lines = (
                [*origin_lines(bv), *bf.repeat_lines] if bv is not None else None,  # type: ignore[arg-type]
                [*origin_lines(fv), *ff.repeat_lines] if fv is not None else None,  # type: ignore[arg-type]
            )
        else:
            before, after = bv, fv  # type: ignore[assignment]
            if values_equal(bv, fv, strict_opaque=key == "batch_size" and _full_batch(bv, bf) != _full_batch(fv, ff)):
                continue
        if looped:
            bn, fn = bn * bf.repeat, fn * ff.repeat  # type: ignore[operator]
            if bn == fn:
                continue
        out.append(
            make_component(
                fit_path(fi, key),
                kind,
                change_of(bv, fv),
                before,
                after,
                value_location(bv, bf.file, bf.line),
                value_location(fv, ff.file, ff.line),
                before_number=bn,
                after_number=fn,
                buggy_lines=lines[0] or None,
                fixed_lines=lines[1] or None,
                full_batch=True if key == "batch_size" and (_full_batch(bv, bf) or _full_batch(fv, ff)) else None,
            )
        )
    return out


@noise_rule(
    "instrumentation_callbacks",
    "TensorBoard, ModelCheckpoint, CSVLogger, ProgbarLogger, TerminateOnNaN, History, "
    "LambdaCallback and unknown debugging callbacks observe training without changing it",
)
def training_callbacks(fit: Fit) -> dict[str, Any]:
    """The callbacks of a training call that change training (:data:`TRAINING_CALLBACKS`), by class."""
    return {cb.cls: cb for cb in fit.callbacks if cb.known and cb.cls in TRAINING_CALLBACKS}


@applies(D.RCP_PATIENCE, D.RCP_EARLY_STOPPING)
def _diff_patience(fi: int, bf: Fit, ff: Fit) -> list[FaultComponent]:
    """The patience of an EarlyStopping callback both training calls use; decision
    RCP-early-stopping: an EarlyStopping callback only one training call has is a patience change
    too (no callback = training never stops early, unbounded patience), the element DeepCrime's RCP
    operator changes."""
    bcb, fcb = training_callbacks(bf), training_callbacks(ff)
    out: list[FaultComponent] = []
    opaque = {"b": any(not cb.known for cb in bf.callbacks), "f": any(not cb.known for cb in ff.callbacks)}
    # a callback classify cannot read on the side without EarlyStopping may stop training itself
    one_side = [
        n for n in ("EarlyStopping",) if (n in bcb) != (n in fcb) and not opaque["f" if n in bcb else "b"]
    ]
    for name in one_side:
        out.append(
            make_component(
                fit_path(fi, "callbacks", name),
                K.FIT_PATIENCE,
                "removed" if name in bcb else "added",
                bcb[name].text if name in bcb else None,
                fcb[name].text if name in fcb else None,
                (bcb[name].file, bcb[name].line) if name in bcb else (None, None),
                (fcb[name].file, fcb[name].line) if name in fcb else (None, None),
            )
        )
    for name in sorted(set(bcb) & set(fcb)):
        if name != "EarlyStopping":
            continue
        bv, fv = bcb[name].args.get("patience"), fcb[name].args.get("patience")
        if bv is None and fv is None:
            continue
        if not values_equal(bv, fv):
            out.append(
                make_component(
                    fit_path(fi, "callbacks", name, "patience"),
                    K.FIT_PATIENCE,
                    "changed",
                    bv,
                    fv,
                    (bcb[name].file, bcb[name].line),
                    (fcb[name].file, fcb[name].line),
                    before_number=number(bv),
                    after_number=number(fv),
                )
            )
    return out


@applies(D.HLR_AFTER_COMPILE)
def _diff_later_learning_rate(fi: int, bf: Fit, ff: Fit) -> list[FaultComponent]:
    """The learning rate a statement sets on the model's optimizer after compile
    (``K.set_value(model.optimizer.lr, v)``) before this training call is a learning rate like
    compile's (HLR). Compared per training call; a setting that several later calls keep is one
    component (one source text, see :func:`mutreal.compare.pipeline.dedupe_same_source`)."""
    bv, fv = bf.learning_rate, ff.learning_rate
    if (bv is None and fv is None) or values_equal(bv, fv):
        return []
    return [
        make_component(
            fit_path(fi, "learning_rate"),
            K.COMPILE_LEARNING_RATE,
            change_of(bv, fv),
            bv,
            fv,
            value_location(bv, bf.file, bf.line) if bv is not None else (None, None),
            value_location(fv, ff.file, ff.line) if fv is not None else (None, None),
            before_number=number(bv),
            after_number=number(fv),
            set_after_compile=True,
        )
    ]


def _validation_text(fit: Fit) -> str | None:
    parts = [f"{k}={fit.args[k].text}" for k in _VALIDATION_SETS if k in fit.args]
    return ", ".join(parts) or None


def _monitors_validation(fit: Fit) -> bool:
    """A callback that changes training (EarlyStopping, ReduceLROnPlateau) watches a validation
    quantity (``val_*``; both default to ``val_loss``)."""
    for cb in fit.callbacks:
        if not cb.known or cb.cls not in ("EarlyStopping", "ReduceLROnPlateau"):
            continue
        monitor = cb.args.get("monitor")
        name = "val_loss" if monitor is None else str(monitor.value if monitor.is_const else monitor.text)
        if name.strip("'\" ").startswith("val_"):
            return True
    return False


@applies(D.VRM_REMOVED, D.VRM_ADDED_MONITORED, D.VALIDATION_ADDED_NOISE)
def _diff_validation(ctx: CompareContext, fi: int, bf: Fit, ff: Fit) -> list[FaultComponent]:
    """A program LOSING its validation set while it keeps the data it trains on is VRM (DeepCrime's
    VRM edit: the argument goes, the arrays stay); a benchmark that swaps the posted data for
    generated arrays drops the validation set with the data (set-up, rule synthetic_data_source).
    A validation set the second program ADDS is VRM only when a callback of the first program
    already monitored a validation quantity it never had; added only to report metrics, it is not
    counted (the study did not count it).
    """
    btext, ftext = _validation_text(bf), _validation_text(ff)
    if (btext is None) == (ftext is None):
        return []  # both have one (other values only tune monitoring) or neither
    if ftext is None:
        if data_source_swapped(ctx, by="source"):
            return []
        change = "removed"
    else:
        if not _monitors_validation(bf):
            return []
        change = "added"
    return [
        make_component(
            fit_path(fi, "validation"),
            K.FIT_VALIDATION,
            change,
            btext,
            ftext,
            (bf.file, bf.line),
            (ff.file, ff.line),
        )
    ]


@applies(D.HBS_EVALUATE, D.HBS_EVALUATE_CALL_REPLACED, D.HBS_EVALUATE_WITH_FIT)
def compare_evaluations(ctx: CompareContext) -> list[FaultComponent]:
    """The evaluation pass. Decision HBS-evaluate: the batch size written in an evaluate/predict call
    changed (HBS).

    Only the same call on both sides with a batch size written on both: a call the fix drops or
    turns into another (evaluate -> predict) is the benchmark's set-up, not a batch-size fix; and
    only when the training call's batch size did not change too (decision HBS-evaluate-with-fit):
    one batch-size fix (often one shared variable) is coded once, on the training call.
    """
    if K.FIT_BATCH_SIZE in ctx.budget_kinds:
        return []
    out: list[FaultComponent] = []
    for be, fe in zip(ctx.buggy.evaluations, ctx.fixed.evaluations, strict=False):
        if be.method != fe.method:
            continue
        bv, fv = be.args.get("batch_size"), fe.args.get("batch_size")
        if bv is None or fv is None or values_equal(bv, fv, strict_opaque=True):
            continue
        out.append(
            make_component(
                evaluation_path(fe.method, fe.index, "batch_size"),
                K.FIT_BATCH_SIZE,
                "changed",
                bv,
                fv,
                value_location(bv, be.file, be.line),
                value_location(fv, fe.file, fe.line),
                method=fe.method,
                before_number=number(bv),
                after_number=number(fv),
            )
        )
    if out:
        ctx.budget_kinds.add(K.FIT_BATCH_SIZE)
    return out


def _fit_names(fits: list[Fit]) -> set[str]:
    """Names the training calls pass as their epochs or batch size."""
    names = set()
    for fit in fits:
        for key in BUDGET:
            v = fit.args.get(key)
            if v is not None:
                names.add(v.short())
    return names


@applies(D.HNE_UNUSED_VARIABLE, D.HNE_VARIABLE_USED_ONCE)
def compare_unused_hyperparameters(ctx: CompareContext) -> list[FaultComponent]:
    """Decision HNE-unused-variable: ``nb_epoch = 0`` becomes ``nb_epoch = 3`` although no training
    call reads it. The study read the program's stated training budget and coded the change (HNE or
    HBS) all the same. Only a variable both programs bind to a different number, when the training
    calls' own values did not change already and neither side passes the variable to them (that is
    compared as the call's argument, decision HNE-variable-used-once).
    """
    buggy, fixed = ctx.buggy, ctx.fixed
    if ctx.hyper_variables is None or not (buggy.fits and fixed.fits):
        return []
    bvars, fvars = ctx.hyper_variables
    used = _fit_names(buggy.fits) | _fit_names(fixed.fits)
    out: list[FaultComponent] = []
    for name, bv in bvars.items():
        fv = fvars.get(name)
        if fv is None or fv.value == bv.value or name in used or bv.kind in ctx.budget_kinds:
            continue
        ctx.budget_kinds.add(K(bv.kind))
        out.append(
            make_component(
                bv.kind,
                K(bv.kind),
                "changed",
                bv.text,
                fv.text,
                (buggy.path, bv.line),
                (fixed.path, fv.line),
                variable=name,
                before_number=bv.value,
                after_number=fv.value,
            )
        )
    return out
