"""The runtime-call pass: calls of :mod:`mutreal.runtime.training_data` (training-data mutants).

Rule ``training_data_runtime_calls``: such a call is its own component, never a preprocessing step;
the arrays it returns keep the steps applied before it, so the data pass compares the chains with
the calls taken out (:func:`without_runtime_calls`).
"""

from __future__ import annotations

from dataclasses import dataclass

from mutreal.compare.components import FaultComponent, make_component
from mutreal.compare.context import CompareContext
from mutreal.compare.kinds import ComponentKind as K
from mutreal.compare.noise import noise_rule
from mutreal.compare.source_facts import RUNTIME_TRAINING_DATA, RuntimeCall
from mutreal.decisions import DecisionId as D
from mutreal.decisions import applies
from mutreal.program.model import DataOp, DataVar, ProgramModel, data_path

#: data roles compared in full; for the other roles (test and prediction inputs) only steps the
#: fix adds or changes count, since benchmarks often drop a post's evaluation code
TRAIN_ROLES = ("x_train", "y_train")


def runtime_training_function(op: DataOp) -> str | None:
    """The function of :mod:`mutreal.runtime.training_data` a step calls (``remove``...), if any.

    Recognised by the callee's canonical name, resolved like every other name (``import ... as``).
    """
    if op.op != "call" or not op.name:
        return None
    prefix = RUNTIME_TRAINING_DATA + "."
    if op.name.startswith(prefix) and "." not in op.name[len(prefix) :]:
        return op.name[len(prefix) :]
    return None


@dataclass
class _RuntimeSplit:
    """A preprocessing chain with its training-data runtime calls taken out."""

    ops: list[DataOp]  # the chain without the runtime calls and their tuple-unpacking steps
    calls: list[tuple[int, DataOp]]  # (index in the original chain, call)
    prefix_len: int = 0  # steps of ``ops`` before the first call
    prefix_known: bool = True  # False: the steps before the call were followed from another array


def _split_runtime_calls(ops: list[DataOp]) -> _RuntimeSplit:
    """Take the runtime calls out of a chain.

    ``x, y = remove(x, y, ...)`` returns a tuple: the extractor follows the call's first argument,
    so the chain of ``y`` (unpacked with ``[1]``) carries the steps of ``x`` before the call; those
    steps are then not this array's and are marked unknown.
    """
    split = _RuntimeSplit([], [])
    i = 0
    while i < len(ops):
        op = ops[i]
        if runtime_training_function(op) is None:
            split.ops.append(op)
            i += 1
            continue
        if not split.calls:
            split.prefix_len = len(split.ops)
        split.calls.append((i, op))
        i += 1
        if i < len(ops) and ops[i].op == "slice" and "index" in ops[i].args:
            index = ops[i].args["index"].value
            if index != 0 and len(split.calls) == 1:
                split.prefix_known = False
            i += 1
    return split


@noise_rule(
    "training_data_runtime_calls",
    "a call of mutreal.runtime.training_data (a training-data mutant) is its own component, "
    "never a preprocessing step; the arrays it returns keep the steps applied before it",
)
def without_runtime_calls(bops: list[DataOp], fops: list[DataOp]) -> tuple[list[DataOp], list[DataOp]]:
    """Both chains without runtime calls; an unknown prefix is taken as the other side's chain."""
    bs, fs = _split_runtime_calls(bops), _split_runtime_calls(fops)
    bclean, fclean = bs.ops, fs.ops
    if not bs.prefix_known and fs.prefix_known and not fs.calls:
        bclean = fs.ops + bs.ops[bs.prefix_len :]
    if not fs.prefix_known and bs.prefix_known and not bs.calls:
        fclean = bs.ops + fs.ops[fs.prefix_len :]
    return bclean, fclean


def _runtime_text(op: DataOp) -> str:
    return " ".join((op.text or op.name or op.op).split())


def _chain_runtime_calls(model: ProgramModel) -> list[RuntimeCall]:
    """Runtime calls as the extractor followed them into the training arrays' chains."""
    calls: dict[tuple, RuntimeCall] = {}
    for role in TRAIN_ROLES:
        var = model.data.get(role)
        for _, op in _split_runtime_calls(var.preprocess).calls if var else []:
            key = (op.file, op.line, _runtime_text(op))
            call = calls.setdefault(
                key, RuntimeCall(runtime_training_function(op) or "", [], _runtime_text(op), op.file, op.line)
            )
            call.roles.append(role)
    return list(calls.values())


def _runtime_index(model: ProgramModel, role: str, call: RuntimeCall) -> int:
    """Position of the call in the role's chain (the chain's length when it was not followed)."""
    var = model.data.get(role)
    ops = var.preprocess if var else []
    for i, op in enumerate(ops):
        if runtime_training_function(op) == call.function and op.line == call.line:
            return i
    return len(ops)


@applies(D.TCO_RUNTIME_CALL, D.TAN_RUNTIME_CALL)
def compare_runtime_calls(ctx: CompareContext) -> list[FaultComponent]:
    """One component per runtime training-data call (TCL, TRD, TUD, TAN, TCO mutants), matched across
    the programs by function and arguments. The calls are those read from the source
    (:mod:`mutreal.compare.source_facts`), else those the extractor followed into the chains.

    A call that rebinds the inputs and the labels together (``x, y = remove(x, y, ...)``) is one
    fault of the training data, not one per array: the rows it drops, unbalances or duplicates are
    dropped from both arrays at once, and neither array's change means anything without the other's.
    The component sits on the inputs' chain (the labels' for TCL, which changes only them) and lists
    the rebound arrays the training call takes directly in ``detail['roles']``."""
    bcalls, fcalls = (
        ctx.runtime_calls
        if ctx.runtime_calls is not None
        else (_chain_runtime_calls(ctx.buggy), _chain_runtime_calls(ctx.fixed))
    )
    bkeys = [c.key() for c in bcalls]
    fkeys = [c.key() for c in fcalls]
    out: list[FaultComponent] = []
    for side_calls, other_keys, model, change in (
        (bcalls, fkeys, ctx.buggy, "removed"),
        (fcalls, bkeys, ctx.fixed, "added"),
    ):
        for call in side_calls:
            if call.key() in other_keys:
                continue
            loc = (call.file, call.line)
            role = _component_role(call.function)
            out.append(
                make_component(
                    data_path(role, "preprocess", _runtime_index(model, role, call)),
                    K.DATA_TRAINING_DATA,
                    change,
                    call.text if change == "removed" else None,
                    call.text if change == "added" else None,
                    loc if change == "removed" else (None, None),
                    loc if change == "added" else (None, None),
                    function=call.function,
                    role=role,
                    roles=sorted(call.roles, key=_role_order) or None,
                )
            )
    return out


#: runtime functions that rebind the labels only (TCL); the others rebind the inputs (with the labels)
_LABELS_ONLY = frozenset({"change_labels"})


def _component_role(function: str) -> str:
    """The array a runtime call's component sits on: the labels for a call that changes only them,
    else the inputs. Decided by the function, not by which arrays the source facts could name (behind
    a generator fit takes neither array directly)."""
    return "y_train" if function in _LABELS_ONLY else "x_train"


def follows_other_array(var: DataVar | None) -> bool:
    """Whether this training array's chain was followed from another array: ``x, y = remove(x, y)``
    hands ``y`` the call's first argument, ``x``, so ``y``'s source and earlier steps are ``x``'s
    (see :func:`_split_runtime_calls`); what the chain says of ``y``'s own source is not known."""
    return var is not None and not _split_runtime_calls(var.preprocess).prefix_known


def _role_order(role: str) -> tuple[int, str]:
    """Inputs before labels (``x_train`` then ``y_train``), other roles after, by name."""
    return (TRAIN_ROLES.index(role) if role in TRAIN_ROLES else len(TRAIN_ROLES), role)
