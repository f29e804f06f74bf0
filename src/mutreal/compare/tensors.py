"""The tensor pass: shape-changing tensor operations of graph code (the study's TWS).

Graph programs change the shape of a tensor with ``tf.reshape``, ``tf.expand_dims``, ``tf.squeeze``,
``tf.transpose``... where a Keras program would change a layer. Both programs' operations
(:class:`~mutreal.program.model.TensorOp`, in source order) are aligned as sequences: an operation
the fix adds or removes, or whose shape arguments it changes, is one TWS component (decision
TWS-tensor-op). Arrays of the training data are not tensors: their reshapes are preprocessing
(CPP), read by the data pass.
"""

from __future__ import annotations

from difflib import SequenceMatcher

from mutreal.compare.components import FaultComponent, make_component
from mutreal.compare.context import CompareContext
from mutreal.compare.kinds import ComponentKind as K
from mutreal.decisions import DecisionId as D
from mutreal.decisions import applies
from mutreal.program.model import ProgramModel, TensorOp

#: operations compared only where both programs have them: a variable or a declared shape one
#: program adds is part of what it builds around the fix, not a tensor whose shape the fix changed
_CHANGED_ONLY = frozenset({"Variable", "TensorShape", "placeholder"})

#: the most operations one side may add before the pass takes the other as a posted snippet the
#: benchmark completed: a completion adds a whole program around the fix, not a fix
_COMPLETION = 4


def _text(op: TensorOp) -> str:
    return " ".join(op.text.split())


def _loss_texts(ctx: CompareContext) -> str:
    """The texts of both programs' losses when the fix changed the loss, else ''."""
    texts = []
    for bc, fc in zip(ctx.buggy.compiles, ctx.fixed.compiles, strict=False):
        if bc.loss is not None and fc.loss is not None and bc.loss.key() != fc.loss.key():
            texts += [" ".join(bc.loss.text.split()), " ".join(fc.loss.text.split())]
    return "\n".join(texts)


@applies(D.TWS_TENSOR_OP, D.TWS_PLACEHOLDER, D.CPP_LABEL_PLACEHOLDER)
def compare_tensor_ops(ctx: CompareContext) -> list[FaultComponent]:
    """Decision TWS-tensor-op: tensor operations paired by a sequence alignment of (operation,
    shape arguments); a changed pair, an added or a removed operation is TWS. Operations written
    the same (same text) on both sides are equal whatever their arguments resolved to. Decision
    TWS-placeholder: a placeholder whose shape changed is TWS too (one the fix adds or drops is
    set-up, like a variable). The placeholder a training run feeds the labels to declares the
    labels' format: its shape is a step of their data chain, left to the data pass (decision
    CPP-label-placeholder). Operations left over in one aligned block are paired in order: one
    replaced by another at the same place is one change; operations the fix edits on one line are
    one component. An operation written inside the arguments of a loss the fix swaps
    for another changes with the loss (LCH), not on its own."""
    bops, fops = ctx.buggy.tensor_ops, ctx.fixed.tensor_ops
    if not bops and not fops:
        return []
    if _completes_a_fragment(ctx.buggy, ctx.fixed):
        return _fragment_ops_dropped(ctx)
    bkeys = [(op.op, _text(op)) for op in bops]
    fkeys = [(op.op, _text(op)) for op in fops]
    out: list[FaultComponent] = []
    matcher = SequenceMatcher(a=bkeys, b=fkeys, autojunk=False)
    added: list[tuple[int, TensorOp]] = []
    removed: list[int] = []
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        if tag == "equal":
            continue
        left, right = list(range(i1, i2)), list(range(j1, j2))
        for i in list(left):
            j = next((j for j in right if fops[j].op == bops[i].op), None)
            if j is None:
                continue
            left.remove(i)
            right.remove(j)
            if bops[i].key() == fops[j].key() or _in_label_chains(bops[i], fops[j]):
                continue
            out.append(_component(i, bops[i], fops[j], "changed", ctx))
        left = [i for i in left if bops[i].op not in _CHANGED_ONLY]
        right = [j for j in right if fops[j].op not in _CHANGED_ONLY]
        # an operation replaced by another at the same place (set_shape -> reshape) is one change
        for i, j in zip(left, right, strict=False):
            out.append(_component(i, bops[i], fops[j], "changed", ctx))
        removed.extend(left[len(right) :])
        added.extend((j, fops[j]) for j in right[len(left) :])
    # the alignment of repeated operations can split one edit into a removal and an addition
    for i in list(removed):
        match = next(((j, op) for j, op in added if op.op == bops[i].op), None)
        if match is not None:
            removed.remove(i)
            added.remove(match)
            if bops[i].key() != match[1].key():
                out.append(_component(i, bops[i], match[1], "changed", ctx))
    # a statement one program applies to a tensor and the other to an array it follows as data
    if removed:
        fixed_steps = _data_step_texts(ctx.fixed)
        removed = [i for i in removed if _text(bops[i]) not in fixed_steps]
    if added:
        buggy_steps = _data_step_texts(ctx.buggy)
        added = [(j, op) for j, op in added if _text(op) not in buggy_steps]
    out.extend(_component(i, bops[i], None, "removed", ctx) for i in removed)
    if len(added) > _COMPLETION and len(added) > 2 * len(bops):
        added = []  # a snippet completed into a program: what it adds is the benchmark's set-up
    out.extend(_component(j, None, op, "added", ctx) for j, op in added)
    loss = _loss_texts(ctx)
    if loss:
        out = [c for c in out if c.change == "changed" or (c.before or c.after or "") not in loss]
    return _one_per_line(sorted(out, key=lambda c: c.fixed_line or c.buggy_line or 0))


def _completes_a_fragment(buggy: ProgramModel, fixed: ProgramModel) -> bool:
    """The buggy program is a fragment of a graph (tensor operations with no placeholder and no
    training run) and the fixed one a whole program that declares placeholders and trains: the
    benchmark completed a posted snippet."""
    return (
        not buggy.fits
        and not any(op.op == "placeholder" for op in buggy.tensor_ops)
        and bool(fixed.fits)
        and any(op.op == "placeholder" for op in fixed.tensor_ops)
    )


def _fragment_ops_dropped(ctx: CompareContext) -> list[FaultComponent]:
    """Decision TWS-tensor-op for a completed fragment: what the completion adds around the post
    (its placeholders, variables, reshapes) is set-up, and the fragment's variables are set up
    again by it; a shape operation of the fragment that the completed program no longer writes
    is the fix (TWS), one per line."""
    kept = {_text(op) for op in ctx.fixed.tensor_ops} | _data_step_texts(ctx.fixed)
    out = [
        _component(i, op, None, "removed", ctx)
        for i, op in enumerate(ctx.buggy.tensor_ops)
        if op.op not in _CHANGED_ONLY and _text(op) not in kept
    ]
    return _one_per_line(out)


def _data_step_texts(program: ProgramModel) -> set[str]:
    """The texts of every step of a program's data chains: ``tf.reshape(batch, [1, 2])`` applied to
    an array the walk followed to its source is a data step there, and a tensor operation in the
    other program, where the array comes from out of view. It is one statement in both, no
    operation added or removed (decision TWS-tensor-op)."""
    chains = [*program.data.values(), *program.untrained_data.values()]
    return {" ".join(op.text.split()) for var in chains for op in var.preprocess if op.text}


def _one_per_line(components: list[FaultComponent]) -> list[FaultComponent]:
    """One component per edited line: ``tf.matmul(tf.expand_dims(a, 0), tf.expand_dims(b, 1))``
    is one fix of one statement, however many operations it nests."""
    seen: set[tuple] = set()
    out = []
    for c in components:
        key = (c.change, c.buggy_file, c.buggy_line, c.fixed_file, c.fixed_line)
        if (c.buggy_line is None and c.fixed_line is None) or key not in seen:
            out.append(c)
        seen.add(key)
    return out


def _in_label_chains(before: TensorOp, after: TensorOp) -> bool:
    """A placeholder a training run feeds the labels to: its shape is a step of the labels' data
    chain, which the data pass compares (decision CPP-label-placeholder)."""
    return "labels" in (before.role, after.role)


def _component(
    index: int, before: TensorOp | None, after: TensorOp | None, change: str, ctx: CompareContext
) -> FaultComponent:
    op = (before or after).op  # type: ignore[union-attr]
    return make_component(
        f"tensor[{index}].{op}",
        K.TENSOR_SHAPE,
        change,
        _text(before) if before is not None else None,
        _text(after) if after is not None else None,
        (before.file, before.line) if before is not None else (None, None),
        (after.file, after.line) if after is not None else (None, None),
        operation=op,
    )
