"""The compile pass: loss and optimizer of each pair of compile calls, and hand-written losses.

Metrics are not compared (rule ``metrics``): training does not read them. The accuracy graph code
writes by hand is (decision PMC-graph-metric, :func:`compare_graph_metrics`).
"""

from __future__ import annotations

import re

from mutreal.compare.alignment import pair_by_index
from mutreal.compare.components import FaultComponent, change_of, make_component, value_location
from mutreal.compare.context import CompareContext
from mutreal.compare.kinds import ComponentKind as K
from mutreal.compare.values import number, values_equal
from mutreal.decisions import DecisionId as D
from mutreal.decisions import applies
from mutreal.program.model import Compile, Value, compile_path

#: a call written out, ``Name(...)`` or ``module.Name(...)``, as the whole expression
_CALL_TEXT = re.compile(r"^[A-Za-z_][\w.]*\(.*\)$", re.DOTALL)

#: optimizer hyperparameters -> kind
OPTIMIZER_ARG_KINDS = {
    "learning_rate": K.COMPILE_LEARNING_RATE,
    "clipnorm": K.COMPILE_CLIPPING,
    "clipvalue": K.COMPILE_CLIPPING,
    "global_clipnorm": K.COMPILE_CLIPPING,
    "epsilon": K.COMPILE_EPSILON,
}


def compare_compiles(ctx: CompareContext) -> list[FaultComponent]:
    """The compile pass: compile calls paired by position; only loss and optimizer are compared."""
    out: list[FaultComponent] = []
    for ci, bc, fc in pair_by_index(ctx.buggy.compiles, ctx.fixed.compiles):
        out.extend(_diff_loss(ci, bc, fc))  # type: ignore[arg-type]
        out.extend(_diff_optimizer(ctx, ci, bc, fc))  # type: ignore[arg-type]
    ctx.learning_rate_changed = any(c.kind is K.COMPILE_LEARNING_RATE for c in out)
    return out


def _written_loss_object(value: Value | None) -> bool:
    """A loss the program writes out as a lambda or builds by a call (``WidthLoss()``,
    ``focal_loss(2)``) that extraction could not resolve: unlike a bare name from a configuration,
    it is no unknown runtime value, so replacing it by a built-in loss is a changed loss."""
    if value is None or value.kind != "opaque" or not value.text:
        return False
    text = value.text.strip()
    return text.startswith("lambda") or bool(_CALL_TEXT.match(text))


@applies(D.LCH_CHANGED, D.LCH_USER_LOSS_OBJECT)
def _diff_loss(ci: int, bc: Compile, fc: Compile) -> list[FaultComponent]:
    if bc.loss is None and fc.loss is None:
        return []
    strict = _written_loss_object(bc.loss) or _written_loss_object(fc.loss)
    if values_equal(bc.loss, fc.loss, strict_opaque=strict):
        return []
    return [
        make_component(
            compile_path(ci, "loss"),
            K.COMPILE_LOSS,
            "changed" if bc.loss and fc.loss else "added" if fc.loss else "removed",
            bc.loss,
            fc.loss,
            value_location(bc.loss, bc.file, bc.line),
            value_location(fc.loss, fc.file, fc.line),
        )
    ]


@applies(D.OCH_CLASS, D.OCH_SWALLOWS_HLR, D.HLR_CHANGED)
def _diff_optimizer(ctx: CompareContext, ci: int, bc: Compile, fc: Compile) -> list[FaultComponent]:
    """A new optimizer class is one OCH component (decision OCH-class); written bare, with its own
    defaults (DeepCrime's OCH writes it so), its learning rate comes with it and is not compared as
    well (decision OCH-swallows-HLR); one that writes a learning rate of its own carries an HLR too
    (:func:`chosen_learning_rate`). The same class compares its hyperparameters
    (:data:`OPTIMIZER_ARG_KINDS`). An optimizer on one side only is undecidable (the other compile
    is incomplete)."""
    bo, fo = bc.optimizer, fc.optimizer
    if bo is None or fo is None or bo.cls is None or fo.cls is None:
        return []
    if bo.cls.lower() != fo.cls.lower():
        och = make_component(
            compile_path(ci, "optimizer"),
            K.COMPILE_OPTIMIZER,
            "changed",
            bo.text or bo.cls,
            fo.text or fo.cls,
            (bo.file, bo.line or bc.line),
            (fo.file, fo.line or fc.line),
            before_value=bo.cls,
            after_value=fo.cls,
        )
        return [och, *chosen_learning_rate(ctx, ci, bc, fc)]
    out: list[FaultComponent] = []
    for key in sorted(set(bo.args) | set(fo.args)):
        kind = OPTIMIZER_ARG_KINDS.get(key)
        if kind is None:
            continue
        component = _hyperparameter_component(ctx, ci, bc, fc, key, kind)
        if component is not None:
            out.append(component)
    return out


def _hyperparameter_component(
    ctx: CompareContext, ci: int, bc: Compile, fc: Compile, key: str, kind: K
) -> FaultComponent | None:
    """One optimizer hyperparameter of both compiles (the era's default where unwritten), or None
    when the values are equal (or undecidable: an unknown value on one side)."""
    bo, fo = bc.optimizer, fc.optimizer
    assert bo is not None and fo is not None
    bv, fv = bo.arg(key, ctx.era_b), fo.arg(key, ctx.era_f)
    if values_equal(bv, fv):
        return None
    bn, fn = number(bv), number(fv)
    if bn is not None and fn is not None and abs(bn - fn) <= 1e-12 * max(abs(bn), abs(fn), 1):
        return None
    return make_component(
        compile_path(ci, "optimizer", key),
        kind,
        change_of(bv, fv),
        bv,
        fv,
        value_location(bv, bo.file, bo.line or bc.line),
        value_location(fv, fo.file, fo.line or fc.line),
        before_number=bn,
        after_number=fn,
        optimizer_spelling=bo.spelling,
    )


@applies(D.HLR_WITH_OCH)
def chosen_learning_rate(ctx: CompareContext, ci: int, bc: Compile, fc: Compile) -> list[FaultComponent]:
    """Decision HLR-with-OCH: the second program's new optimizer writes a learning rate of its own
    (``'rmsprop'`` -> ``Adam(lr=0.1)``) that differs from the rate the first program trained with,
    its written value or its optimizer's default in its era: the fix chose a learning rate as well as
    an optimizer, two faults (OCH and HLR). A new optimizer written bare takes its defaults with it
    (decision OCH-swallows-HLR), and an unknown rate on either side is undecidable."""
    fo = fc.optimizer
    assert fo is not None
    written = fo.args.get("learning_rate")
    if written is None or written.implicit or number(written) is None:
        return []
    component = _hyperparameter_component(ctx, ci, bc, fc, "learning_rate", K.COMPILE_LEARNING_RATE)
    if component is None or component.detail.get("before_number") is None:
        return []
    component.detail["with_optimizer"] = True
    return [component]


@applies(D.LWC_CUSTOM_LOSS)
def compare_loss_functions(ctx: CompareContext) -> list[FaultComponent]:
    """Decision LWC-custom-loss: the fix rewrites the body of the user function that computes the
    training loss (passed to compile, or differentiated with a GradientTape): a wrong loss function
    calculation (LWC). Bodies compare without docstrings, prints, formatting and with parameters
    and locals renamed by position (:mod:`mutreal.extract.losses`); functions pair by name, or the
    only one of each program with the other's."""
    return _rewritten_functions(
        ctx, ctx.buggy.loss_functions, ctx.fixed.loss_functions, compile_path(0, "loss"),
        K.COMPILE_LOSS_CALCULATION, "function",
    )  # fmt: skip


@applies(D.HLR_SCHEDULE)
def compare_learning_rate_schedules(ctx: CompareContext) -> list[FaultComponent]:
    """Decision HLR-schedule: the fix rewrites the user function that gives the learning rate (the
    one a ``LearningRateScheduler`` callback calls each epoch, or the optimizer's ``lr`` is computed
    by): the learning rate changed though every argument that names the function stayed the same,
    an HLR. Bodies compare as loss bodies do (renamed locals, docstrings and prints do not count, a
    lambda equals the function returning its expression); functions pair by name, or the only one
    of each program with the other's. A rate the compile pass already found changed (the schedule
    folded into the optimizer's rate) is that same change, coded once."""
    if ctx.learning_rate_changed:
        return []
    return _rewritten_functions(
        ctx, ctx.buggy.schedule_functions, ctx.fixed.schedule_functions,
        compile_path(0, "optimizer", "learning_rate"), K.COMPILE_LEARNING_RATE, "schedule",
    )  # fmt: skip


def _rewritten_functions(
    ctx: CompareContext,
    buggy_bodies: dict[str, list],
    fixed_bodies: dict[str, list],
    path: str,
    kind: K,
    detail_key: str,
) -> list[FaultComponent]:
    """One component per user function whose normalised body the fix rewrote; functions pair by
    name, or the only one of each program with the other's (a loss, a learning-rate schedule)."""
    pairs = [(n, n) for n in buggy_bodies if n in fixed_bodies]
    if not pairs and len(buggy_bodies) == len(fixed_bodies) == 1:
        pairs = [(next(iter(buggy_bodies)), next(iter(fixed_bodies)))]
    out: list[FaultComponent] = []
    for bn, fn in pairs:
        (b_line, b_body, *b_end), (f_line, f_body, *f_end) = buggy_bodies[bn], fixed_bodies[fn]
        if b_body == f_body:
            continue
        # the rewritten body's statements are this component's (decision value-origins); graph
        # code's coverage is left as it was
        graph = any(p.era == "tf1" or p.framework == "tensorflow" for p in (ctx.buggy, ctx.fixed))
        lines = {
            "buggy_lines": list(range(b_line + 1, b_end[0] + 1)) if b_end and not graph else None,
            "fixed_lines": list(range(f_line + 1, f_end[0] + 1)) if f_end and not graph else None,
        }
        out.append(
            make_component(
                path,
                kind,
                "changed",
                f"{bn}: " + " ".join(b_body.split()),
                f"{fn}: " + " ".join(f_body.split()),
                (ctx.buggy.path, b_line),
                (ctx.fixed.path, f_line),
                **{detail_key: fn},
                **lines,
            )
        )
    return out


#: the key under which the graph front-end keeps a graph compile's hand-written metric
#: (``mutreal.extract.tf_graph_training.GRAPH_METRIC``)
GRAPH_METRIC = "graph_metric"


@applies(D.PMC_GRAPH_METRIC)
def compare_graph_metrics(ctx: CompareContext) -> list[FaultComponent]:
    """Decision PMC-graph-metric: graph code computes its accuracy itself, ``tf.equal`` of what the
    model predicts and the labels, each derived the same way (``tf.argmax(_, 1)``). A fix that
    changes how both operands are derived (``argmax`` -> a threshold, by their skeletons, tensors
    left out) changes the performance metric, PMC. One operand changed alone adapts the comparison
    to a new format of the labels or of the model's output, which is that fix's own component
    (CPP, LCH); renamed tensors are the same metric; a metric one program writes and the other
    does not is the benchmark's evaluation code (added or dropped), not compared. Keras compiles
    carry no such metric: their ``metrics=`` only report (rule ``metrics``)."""
    out: list[FaultComponent] = []
    for ci, bc, fc in pair_by_index(ctx.buggy.compiles, ctx.fixed.compiles):
        bm, fm = bc.args.get(GRAPH_METRIC), fc.args.get(GRAPH_METRIC)
        if bm is None or fm is None or not _every_operand_changed(bm.value, fm.value):
            continue
        out.append(
            make_component(
                compile_path(ci, "metrics"),
                K.COMPILE_METRIC,
                "changed",
                bm,
                fm,
                value_location(bm, bc.file, bc.line),
                value_location(fm, fc.file, fc.line),
            )
        )
    return out


def _every_operand_changed(before: object, after: object) -> bool:
    """Both comparisons have the same number of operands (two or more), and none kept its skeleton."""
    if not isinstance(before, list) or not isinstance(after, list):
        return False
    return len(before) == len(after) >= 2 and all(b != a for b, a in zip(before, after, strict=True))
