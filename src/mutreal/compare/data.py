"""The data pass: preprocessing of every data role (one CPP per file pair) and the format of the
training arrays (IWF). Where the data comes from (a subset, another file, the colour mode images are
read in) is :mod:`mutreal.compare.data_sources`.

Preprocessing chains are aligned step by step (longest common subsequence of their keys) after the
training-data runtime calls are taken out (:mod:`mutreal.compare.training_data`).
"""

from __future__ import annotations

import difflib
import io
import re
import tokenize
from collections.abc import Callable
from dataclasses import dataclass

import libcst

from mutreal.compare.components import FaultComponent, make_component, origin_lines, stands_for
from mutreal.compare.context import CompareContext
from mutreal.compare.kinds import ComponentKind as K
from mutreal.compare.noise import noise_rule
from mutreal.compare.training_data import TRAIN_ROLES, without_runtime_calls
from mutreal.compare.values import items, values_equal
from mutreal.decisions import DecisionId as D
from mutreal.decisions import applies
from mutreal.program.model import DATA_ROLES, DataOp, DataSource, DataVar, ProgramModel, Value, data_path

#: preprocessing operations that count (decision CPP-steps); astype/array conversions, slices, splits,
#: shuffles and unknown calls are set-up or format and are not counted. ``encode`` (LabelEncoder:
#: class names -> integer ids) is not listed: it only re-spells the labels the loss reads, like
#: astype (decision CPP-label-encoding). ``argmax`` is: it decodes one-hot labels to class ids, the
#: inverse of ``one_hot``, and changes the format the loss reads (decision CPP-row-map)
_CPP_OPS = frozenset(
    {
        "divide",
        "multiply",
        "subtract",
        "add",
        "normalize",
        "scale",
        "mean_std",
        "clip",
        "log",
        "to_categorical",
        "one_hot",
        "argmax",
        "reshape",
        "expand_dims",
        "transpose",
        "flatten",
        "augment",
        "pad_sequences",
        "squeeze",
        "swapaxes",
        "sqrt",
        "exp",
        "power",
        "pca",
        "resize",
        "crop",
        "vectorize",
        "tokenize",
        "texts_to_sequences",
        "texts_to_matrix",
        "sequences_to_matrix",
    }
)
#: operations that change the container type of the training arrays (lists vs arrays): IWF
_FORMAT_OPS = frozenset({"tolist", "to_list", "list"})
#: spellings of one-hot encoding (decision CPP-one-hot): ``to_categorical(y)``, ``np.eye(n)[y]``, one_hot
_ONE_HOT_OPS = frozenset({"one_hot", "to_categorical"})
_EYE_INDEXING = re.compile(r"\beye\s*\(")


def without_comments(text: str) -> str:
    """Source text without its ``# ...`` comments (a call written over several commented lines)."""
    if "#" not in text:
        return text
    try:
        tokens = list(tokenize.generate_tokens(io.StringIO(text).readline))
    except (tokenize.TokenError, SyntaxError, IndentationError):
        return text
    lines = text.splitlines(keepends=True)
    for tok in reversed([t for t in tokens if t.type == tokenize.COMMENT]):
        (row, col), (_, end) = tok.start, tok.end
        lines[row - 1] = lines[row - 1][:col] + lines[row - 1][end:]
    return "".join(lines)


def op_text(op: DataOp) -> str:
    t = " ".join(without_comments(op.text or op.op).split())
    return t if len(t) <= 80 else t[:77] + "..."


@applies(D.CPP_ONE_HOT)
def _op_kind(op: DataOp) -> str:
    """Canonical operation: every spelling of one-hot encoding is ``one_hot`` (``np.eye(n)[y]``
    indexing, ``to_categorical``, ``one_hot``), so a fix that re-spells it changes nothing."""
    if op.op == "slice" and _EYE_INDEXING.search(op.text or ""):
        return "one_hot"
    if op.op in _ONE_HOT_OPS:
        return "one_hot"
    return op.op


def _align_key(op: DataOp) -> str:
    kind = _op_kind(op)
    return kind if kind == "one_hot" else repr(op.key())


def _align_ops(b: list[DataOp], f: list[DataOp]) -> list[tuple[int | None, int | None]]:
    """Longest-common-subsequence alignment of two preprocessing chains by their keys."""
    bk = [_align_key(x) for x in b]
    fk = [_align_key(x) for x in f]
    pairs: list[tuple[int | None, int | None]] = []
    sm = difflib.SequenceMatcher(a=bk, b=fk, autojunk=False)
    for tag, i1, i2, j1, j2 in sm.get_opcodes():
        if tag == "equal":
            pairs += [(i1 + k, j1 + k) for k in range(i2 - i1)]
            continue
        bi, fj = list(range(i1, i2)), list(range(j1, j2))
        # same operation with other arguments: a changed step; the rest added/removed
        for i in list(bi):
            for j in fj:
                if _op_kind(b[i]) == _op_kind(f[j]):
                    pairs.append((i, j))
                    bi.remove(i)
                    fj.remove(j)
                    break
        pairs += [(i, None) for i in bi] + [(None, j) for j in fj]
    return pairs


def _norm_text(node: libcst.CSTNode) -> str:
    return "".join(libcst.Module(body=[]).code_for_node(node).split())


def parse_call(text: str | None) -> libcst.Call | None:
    """The call written in ``text`` (a data step's or source's source text), or None."""
    try:
        expr = libcst.parse_expression(text or "")
    except Exception:
        return None
    return expr if isinstance(expr, libcst.Call) else None


@applies(D.LIS_RESHAPE_ONCE, D.LIS_EXPAND_DIMS_ONCE, D.LIS_RESHAPE_ELSEWHERE)
def reshapes_to(op: DataOp, shapes: list[tuple[str, ...] | None]) -> bool:
    """Decision LIS-reshape-once: the fix gives the model a new input shape and reshapes the input
    data to exactly that shape (``x.reshape(n, r, c, 1)`` for ``input_shape=(r, c, 1)``, or
    ``expand_dims(x, -1)`` for a shape ending in 1): one fix action, which the study coded once, as
    LIS. A reshape to another shape is a fix action of its own (decision LIS-reshape-elsewhere).
    """
    shapes = [s for s in shapes if s]
    if not shapes or op.op not in ("reshape", "expand_dims"):
        return False
    expr = parse_call(op.text)
    if expr is None:
        return False
    args = [a for a in expr.args if a.keyword is None or a.keyword.value in ("axis", "newshape", "shape")]
    is_method = isinstance(expr.func, libcst.Attribute) and not _norm_text(expr.func.value).startswith(
        ("np", "numpy", "tf")
    )
    operands = args if is_method else args[1:]  # np.reshape(x, shape) / expand_dims(x, axis)
    if op.op == "expand_dims":
        axis = _norm_text(operands[0].value) if operands else ""
        return axis == "-1" and any(s[-1] == "1" for s in shapes)
    folded = op.args.get("shape")
    if folded is not None and folded.kind == "const" and isinstance(folded.value, (list, tuple)):
        folded_items = tuple(str(x) for x in folded.value[1:])
        if len(folded_items) >= 1 and folded_items in shapes:
            return True  # the folded target, names resolved (``reshape(1, steps, 1)``, ``(steps, 1)``)
    if len(operands) == 1 and isinstance(operands[0].value, (libcst.Tuple, libcst.List)):
        target = tuple(_norm_text(e.value) for e in operands[0].value.elements)
    else:
        target = tuple(_norm_text(a.value) for a in operands)
    return len(target) >= 2 and any(target[1:] == s for s in shapes)


#: array constructors whose first positional argument is the shape; ``rand``/``randn`` take the
#: dimensions as separate arguments; ``randint``/``uniform``/``normal`` take it third (``size``)
_SHAPE_FIRST = frozenset({"zeros", "ones", "empty", "full", "random", "random_sample", "zeros_like"})
_SHAPE_SPREAD = frozenset({"rand", "randn"})
_SHAPE_THIRD = frozenset({"randint", "uniform", "normal"})


def _constructor_shape(source: DataSource | None) -> tuple[str, ...] | None:
    """The shape written in a generated/random array's constructor, as normalised item texts
    (``np.zeros((1, n))`` -> ('1', 'n')), whether or not the names fold to numbers."""
    if source is None or source.kind not in ("generated", "random"):
        return None
    expr = parse_call(source.text)
    if expr is None:
        return None
    func = _norm_text(expr.func).rsplit(".", 1)[-1]
    keywords = {a.keyword.value: a.value for a in expr.args if a.keyword is not None}
    positional = [a.value for a in expr.args if a.keyword is None]
    shape = keywords.get("shape") or keywords.get("size")
    if shape is None:
        if func in _SHAPE_SPREAD:
            return tuple(_norm_text(p) for p in positional) or None
        if func in _SHAPE_FIRST and positional:
            shape = positional[0]
        elif func in _SHAPE_THIRD and len(positional) >= 3:
            shape = positional[2]
    if shape is None:
        return None
    if isinstance(shape, (libcst.Tuple, libcst.List)):
        return tuple(_norm_text(e.value) for e in shape.elements)
    return (_norm_text(shape),)


#: ``x[i]``: one row by an integer index (a literal, a name or arithmetic on them), which drops the
#: sample axis; ``x[i:i + 1]`` / ``x[[i]]``: the same row with the axis kept
_ONE_ROW = re.compile(r"^\[(?![\[\'\"])[\w+\-* ]+\]$")
_ONE_ROW_KEPT = re.compile(r"^\[(?:[\w+\-* ]*:[\w+\-* ]+|\[[\w+\-* ]+\])\]$")


@applies(D.CPP_SINGLE_ROW_BATCH)
def _keeps_sample_axis(b: DataOp, f: DataOp) -> bool:
    """Decision CPP-single-row-batch: the buggy program passes one row ``x[0]`` (its sample axis
    dropped) where the fix passes ``x[0:1]`` (a batch of one): the input gains its batch axis, like a
    missing ``expand_dims`` (the study: 'CPP (expand dims for test data)')."""
    if b.op != "slice" or f.op != "slice":
        return False
    bi, fi = b.args.get("index"), f.args.get("index")
    if bi is None or fi is None:
        return False
    btext, ftext = "".join((bi.text or "").split()), "".join((fi.text or "").split())
    return bool(_ONE_ROW.match(btext)) and ":" not in btext and bool(_ONE_ROW_KEPT.match(ftext))


@applies(D.CPP_BATCH_AXIS)
def gains_batch_axis(b: DataSource | None, f: DataSource | None) -> bool:
    """Decision CPP-batch-axis: both programs build the array with the same constructor and the fix
    puts a leading axis of size 1 in front of the same shape (one sample given its batch axis, the
    ``expected ndim`` error of single-sample predictions): a reshape of the data, CPP."""
    if b is None or f is None or b.kind != f.kind or b.name != f.name:
        return False
    bs, fs = _constructor_shape(b), _constructor_shape(f)
    return bool(bs) and fs == ("1", *bs)  # type: ignore[misc]


@applies(D.CPP_UNTRAINED_SIDE, D.CPP_UNTRAINED_SIDE_ADDED, D.CPP_UNTRAINED_SIDE_SWAPPED)
def _untrained_counterpart(own: DataVar | None, other: DataVar | None, side: ProgramModel) -> DataVar | None:
    """Decision CPP-untrained-side: a program with no training call has no training-data roles; the
    array the other program trains on is then looked up by its variable name among the arrays this
    program binds, so steps both programs apply to it are not counted as added (or removed); steps
    only the untrained program applies are its data's preparation (the data pass drops them), steps
    only the training program adds still count."""
    if own is not None or other is None or side.fits or not other.var:
        return own
    return side.untrained_data.get(other.var)


def _no_data(var: DataVar | None, side: ProgramModel) -> bool:
    """Whether a program has no data of its own for a training role: it never trains and binds no
    arrays at all (a posted model definition). A program that fits on names it never binds is not
    counted: the study reads the completion's label encoding there as a fix (CPP) and the second
    reading as completion, so classify keeps the component the study names."""
    return var is None and not side.fits and not side.untrained_data


@applies(D.CPP_COMPLETION_DATA)
def data_of_completion(own: DataVar | None, other: DataVar | None, side: ProgramModel) -> bool:
    """Decision CPP-completion-data: when one program has no data of its own for a training role
    (a posted model definition that never trains and binds no arrays), the other program's
    arrays and every step they go through are the benchmark's completion of the snippet: there
    is no preprocessing of the post to compare them with. (A program that does prepare arrays but
    never trains is decision CPP-untrained-side, where added steps still count.)"""
    return other is not None and _no_data(own, side)


@noise_rule(
    "reshape_sample_count",
    "a reshape of the data whose target differs in its leading (sample) axis only, (n, 784) vs "
    "(-1, 784) or another n: every sample gets the same shape; the count is the data set's size",
)
def same_sample_shape(a: Value | None, b: Value | None) -> bool:
    """Two reshape targets that differ in their leading (sample) axis only, ``(1746, 4096)`` against
    ``(6, 4096)`` or ``(-1, 4096)``: each reshapes every sample to the same shape; the number of
    samples is the data set's size (a benchmark shrinking the data it generates), not a
    preprocessing change."""
    if a is None or b is None:
        return False
    items_a, items_b = items(a), items(b)
    if items_a is None or items_b is None or len(items_a) != len(items_b) or len(items_a) < 2:
        return False
    return all(values_equal(x, y, strict_opaque=True) for x, y in zip(items_a[1:], items_b[1:], strict=True))


def _ops_equal(a: DataOp, b: DataOp) -> bool:
    if _op_kind(a) == _op_kind(b) == "one_hot":
        return True  # the number of classes comes from the data either way (decision CPP-one-hot)
    if a.op != b.op or a.name != b.name:
        return False
    keys = set(a.args) | set(b.args)
    if a.op == "reshape" and keys == {"shape"} and same_sample_shape(a.args["shape"], b.args["shape"]):
        return True
    return all(values_equal(a.args.get(k), b.args.get(k)) for k in keys)


def _step_component(role: str, index: int, change: str, b: DataOp | None, f: DataOp | None, kind: K, op: str):
    return make_component(
        data_path(role, "preprocess", index),
        kind,
        change,
        op_text(b) if b else None,
        op_text(f) if f else None,
        (b.file, b.line) if b else (None, None),
        (f.file, f.line) if f else (None, None),
        op=op,
        role=role,
        buggy_lines=_op_origins(b),
        fixed_lines=_op_origins(f),
    )


def _list_made_array(b: DataSource | None, f: DataSource | None) -> bool:
    """Decision IWF-format: one program hands fit a table written out as a Python list (``x =
    [[1., 2.], ...]``) and the other the same table as an array (``np.array([[1., 2.], ...])``): old
    Keras reads a list as one input array per item, a wrong input format, not preprocessing. Both
    sides must be written-out tables of the same shape (another table is other data)."""
    if b is None or f is None or b.kind != "literal" or f.kind != "literal" or b.shape != f.shape:
        return False
    return (b.name == "list") != (f.name == "list")


def _graph(ctx: CompareContext) -> bool:
    """TensorFlow 1 graph code on either side (as :mod:`mutreal.label.classify` reads it)."""
    programs = (ctx.buggy, ctx.fixed)
    return any(p.era == "tf1" or p.framework == "tensorflow" for p in programs)


def _op_origins(op: DataOp | None) -> list[int] | None:
    """The lines a step's arguments were written on before the step read them (decision
    value-origins: ``tf.image.resize(img, [H, W])`` with ``H, W = 384, 384`` above)."""
    if op is None:
        return None
    lines = {n: None for v in op.args.values() for n in origin_lines(v)}
    return list(lines) or None


def _is_int_constant(node: libcst.BaseExpression) -> bool:
    if isinstance(node, libcst.UnaryOperation) and isinstance(node.operator, libcst.Minus):
        node = node.expression
    return isinstance(node, libcst.Integer)


def _masked_constant_assignment(text: str) -> bool:
    """``y[y == 1] = 0``: the elements of an array equal to one constant set to another."""
    try:
        stmt = libcst.parse_statement(text)
    except Exception:
        return False
    if not isinstance(stmt, libcst.SimpleStatementLine) or len(stmt.body) != 1:
        return False
    assign = stmt.body[0]
    if not isinstance(assign, libcst.Assign) or len(assign.targets) != 1:
        return False
    target = assign.targets[0].target
    if (
        not isinstance(target, libcst.Subscript)
        or len(target.slice) != 1
        or not _is_int_constant(assign.value)
    ):
        return False
    index = target.slice[0].slice
    mask = index.value if isinstance(index, libcst.Index) else None
    return (
        isinstance(mask, libcst.Comparison)
        and len(mask.comparisons) == 1
        and isinstance(mask.comparisons[0].operator, libcst.Equal)
        and _is_int_constant(mask.comparisons[0].comparator)
    )


_SYNTHETIC = frozenset({"random", "generated", "literal"})


@applies(D.CPP_SWAPPED_LABELS)
def encodes_swapped_labels(
    ctx: CompareContext, role: str, change: str, op: str, b: DataVar | None, f: DataVar | None
) -> bool:
    """Decision CPP-swapped-labels: the buggy program reads its training inputs from a file and the
    fix trains on generated arrays instead (a swapped data source, decision data-source-noise); the
    one-hot encoding the fix adds to its generated labels makes random class ids fit the posted
    model's loss. What the file's labels look like is not in the program, so no missing encoding
    of the post's labels can be read from it: the step is the generated data's set-up. Unless the
    buggy program turns its labels into class ids itself (LabelEncoder): then they are known to be
    integers, and the fix's one-hot encoding is a missing step (CPP)."""
    if role not in TRAIN_ROLES or not role.startswith("y") or change != "added" or op != "one_hot":
        return False
    if b is not None and any(step.op == "encode" for step in b.preprocess):
        return False
    bx, fx = ctx.training_inputs()
    return (
        f is not None
        and f.source is not None
        and f.source.kind in _SYNTHETIC
        and bx is not None
        and bx.source is not None
        and bx.source.kind == "file"
        and fx is not None
        and fx.source is not None
        and fx.source.kind in _SYNTHETIC
    )


_REAL = frozenset({"file", "keras_dataset", "sklearn", "generator"})


@applies(D.CPP_COMPLETION_LABELS)
def encodes_completed_labels(
    ctx: CompareContext, role: str, change: str, op: str, b: DataVar | None, f: DataVar | None
) -> bool:
    """Decision CPP-completion-labels: the fix supplies training data (generated or loaded) the
    buggy program never builds, with a one-hot encoding of its labels, and the post's labels are
    known to need none: the buggy program never trains or compiles at all (it only predicts: the
    labels and their encoding come with the completion), or it trains on labels bound out of view
    whose name says they are already encoded (``y_onehot``, ``labels_encoded``) with the loss the
    fix keeps. Otherwise the encoding stays CPP: the study reads a completion's label encoding as
    the missing step."""
    if role != "y_train" or change != "added" or op != "one_hot" or f is None or f.source is None:
        return False
    if f.source.kind not in _SYNTHETIC | _REAL:
        return False
    if b is None:
        return not ctx.buggy.fits and not ctx.buggy.compiles
    return (
        b.source is not None
        and b.source.kind == "opaque"
        and not b.preprocess
        and bool(_ENCODED_NAME.search(b.var or b.source.text or ""))
        and len(ctx.buggy.compiles) == len(ctx.fixed.compiles) == 1
        and ctx.buggy.compiles[0].loss is not None
        and values_equal(ctx.buggy.compiles[0].loss, ctx.fixed.compiles[0].loss)
    )


#: names of label arrays that say they are already one-hot encoded
_ENCODED_NAME = re.compile(r"(?i)one_?hot|encoded|categorical|dummies")


@applies(D.CPP_SWAPPED_SOURCE_STEPS)
def prepares_replaced_data(role: str, change: str, b: DataVar | None, f: DataVar | None) -> bool:
    """Decision CPP-swapped-source-steps: the buggy program trains on real data (a file, a
    published data set, an image generator) and the fix on generated arrays instead; a step the
    fix drops from that array (scaling the file's values, a generator's rescale) was the real
    data's preparation, which went with it; the generated arrays need none. Steps the fix adds
    still count."""
    return (
        role in TRAIN_ROLES
        and change == "removed"
        and b is not None
        and b.source is not None
        and b.source.kind in _REAL
        and f is not None
        and f.source is not None
        and f.source.kind in _SYNTHETIC
    )


@applies(D.TCL_LABEL_REMAP)
def remaps_labels(role: str, op: DataOp) -> bool:
    """Decision TCL-label-remap: a step on a label array that maps label values to other values,
    ``k - y`` (binary labels inverted) or ``y[y == 1] = 0`` (one class id set to another), changes
    which class each sample is labelled with: wrong labels of the training data (TCL), not a
    preprocessing step (one-hot encoding and scaling re-spell the same labels, decision CPP-labels)."""
    if not role.startswith("y"):
        return False
    if op.op == "subtract":
        operand, reflected = op.args.get("operand"), op.args.get("reflected")
        return (
            operand is not None
            and operand.kind == "const"
            and isinstance(operand.value, int)
            and not isinstance(operand.value, bool)
            and reflected is not None
            and reflected.value is True
        )
    return op.op == "setitem" and _masked_constant_assignment(op.text)


@dataclass(frozen=True)
class _Step:
    """One aligned pair of preprocessing steps of a data role (``b``/``f``: None where a side lacks
    it), with what the filters of :data:`SET_ASIDE` read: the programs, the role's arrays on each
    side (``bv``/``fv``), and ``partial``, the change an untrained side's steps make (decision
    CPP-untrained-side)."""

    ctx: CompareContext
    role: str
    change: str
    op: str
    b: DataOp | None
    f: DataOp | None
    bv: DataVar | None
    fv: DataVar | None
    partial: str | None


#: the changed steps that are no CPP, each with the decision that sets it aside. Each reads the step
#: alone (none sees another's answer), so the order of the rows changes nothing but which row a
#: reader meets first; a new decision that sets a step aside is one more row.
SET_ASIDE: tuple[tuple[D, Callable[[_Step], bool]], ...] = (
    (D.CPP_SWAPPED_LABELS, lambda s: encodes_swapped_labels(s.ctx, s.role, s.change, s.op, s.bv, s.fv)),
    (D.CPP_COMPLETION_LABELS, lambda s: encodes_completed_labels(s.ctx, s.role, s.change, s.op, s.bv, s.fv)),
    (D.CPP_SWAPPED_SOURCE_STEPS, lambda s: prepares_replaced_data(s.role, s.change, s.bv, s.fv)),
    # slices and splits of the data set are set-up
    (D.DATA_SPLIT_NOISE, lambda s: s.op not in _CPP_OPS),
    # benchmarks drop a post's evaluation code: a removed step of test/prediction data is not
    # counted; an added or changed one is
    (D.CPP_TEST_STEP_CHANGED, lambda s: s.role not in TRAIN_ROLES and s.change == "removed"),
    (D.CPP_UNTRAINED_SIDE, lambda s: s.change == s.partial),
    # the data reshaped to the model's new input shape
    (
        D.LIS_RESHAPE_ONCE,
        lambda s: s.f is not None and s.role.startswith("x") and reshapes_to(s.f, s.ctx.new_input_shapes),
    ),
)


def set_aside(step: _Step) -> D | None:
    """The decision that makes a changed step no component, or None when it is a CPP step."""
    return next((decision for decision, applies_to in SET_ASIDE if applies_to(step)), None)


@applies(
    D.CPP_ONCE, D.CPP_STEPS, D.CPP_MISSING, D.CPP_RESHAPE, D.CPP_LABELS, D.CPP_LABEL_ENCODING,
    D.CPP_ONE_SIDE_ROLE, D.CPP_TEST_STEP_CHANGED, D.DATA_SPLIT_NOISE, D.IWF_FORMAT,
)  # fmt: skip
def compare_data(ctx: CompareContext) -> list[FaultComponent]:
    """Preprocessing differences of every data role, as at most one CPP component per file pair.

    The study wrote CPP once per bug however many steps the fix touched (decision CPP-once): the
    component names the first changed step and counts the others in ``detail['steps']``. The
    arrays handed to fit as lists instead of arrays are one IWF (decision IWF-format); steps that
    remap label values are one TCL (decision TCL-label-remap), however many arrays they touch.

    Each changed step is read in this order, the first answer wins: equal steps are skipped; a
    label remap is TCL; a single-row batch kept becomes an added reshape; a list conversion of
    training arrays is IWF; a step :func:`set_aside` names a decision for is no component; any
    other is CPP. Only the first three steps depend on their order (each changes what the next
    reads); :data:`SET_ASIDE` holds predicates of the step alone.
    """
    bdata, fdata = ctx.buggy.data, ctx.fixed.data
    found: list[FaultComponent] = []
    formats: list[tuple] = []
    relabels: list[FaultComponent] = []
    list_literals: list[FaultComponent] = []
    roles = [r for r in DATA_ROLES if r in bdata or r in fdata]
    roles += sorted((set(bdata) | set(fdata)) - set(roles))
    for role in roles:
        bv: DataVar | None = bdata.get(role)
        fv: DataVar | None = fdata.get(role)
        # steps of an untrained buggy program's arrays that the fixed program lacks are that data's
        # preparation, not a fix (a benchmark completing a posted snippet swaps in generated arrays)
        partial = None
        if role in TRAIN_ROLES:
            b0 = bv
            bv, fv = _untrained_counterpart(bv, fv, ctx.buggy), _untrained_counterpart(fv, bv, ctx.fixed)
            partial = "removed" if bv is not b0 else None
        if role not in TRAIN_ROLES and (bv is None or fv is None):
            continue  # decision CPP-one-side-role: test/prediction data one program never has
        if bv is not None and fv is not None and gains_batch_axis(bv.source, fv.source):
            found.append(
                make_component(
                    data_path(role, "preprocess", 0),
                    K.DATA_PREPROCESS,
                    "added",
                    bv.source.text,  # type: ignore[union-attr]
                    fv.source.text,  # type: ignore[union-attr]
                    (bv.source.file, bv.source.line),  # type: ignore[union-attr]
                    (fv.source.file, fv.source.line),  # type: ignore[union-attr]
                    op="reshape",
                    role=role,
                )
            )
        if role in TRAIN_ROLES and bv is not None and fv is not None and _list_made_array(bv.source, fv.source):
            list_literals.append(
                make_component(
                    data_path(role, "source"),
                    K.DATA_INPUT_FORMAT,
                    "changed",
                    bv.source.text,  # type: ignore[union-attr]
                    fv.source.text,  # type: ignore[union-attr]
                    (bv.source.file, bv.source.line),  # type: ignore[union-attr]
                    (fv.source.file, fv.source.line),  # type: ignore[union-attr]
                    op="array",
                    role=role,
                )
            )
        if role in TRAIN_ROLES and (
            data_of_completion(bv, fv, ctx.buggy) or data_of_completion(fv, bv, ctx.fixed)
        ):
            continue  # decision CPP-completion-data
        bops, fops = without_runtime_calls(bv.preprocess if bv else [], fv.preprocess if fv else [])
        for bi, fj in _align_ops(bops, fops):
            b = bops[bi] if bi is not None else None
            f = fops[fj] if fj is not None else None
            if b is not None and f is not None:
                if b.key() == f.key() or _ops_equal(b, f):
                    continue
                change = "changed"
            else:
                change = "added" if b is None else "removed"
            op = _op_kind(f or b)  # type: ignore[arg-type]
            if remaps_labels(role, f or b) and not (role not in TRAIN_ROLES and change == "removed"):  # type: ignore[arg-type]
                relabels.append(
                    _step_component(
                        role, (bi if bi is not None else fj) or 0, change, b, f, K.DATA_LABELS, op
                    )
                )
                continue
            if b is not None and f is not None and _keeps_sample_axis(b, f):
                op, change = "reshape", "added"
            if op in _FORMAT_OPS and role in TRAIN_ROLES:
                formats.append((role, bi, fj, b, f, change, op))
                continue
            if set_aside(_Step(ctx, role, change, op, b, f, bv, fv, partial)):
                continue
            index = bi if bi is not None else fj
            found.append(_step_component(role, index or 0, change, b, f, K.DATA_PREPROCESS, op))
    out: list[FaultComponent] = []
    if found:
        # decision CPP-once: one CPP for the steps; in Keras programs it points at each of them
        # (decision value-origins; graph code's coverage is another helper's, left as it was)
        first = stands_for(found[0], found[1:]) if not _graph(ctx) else found[0]
        first.detail["steps"] = len(found)
        out.append(first)
    if formats:
        role, bi, fj, b, f, change, op = formats[0]
        out.append(
            _step_component(role, (bi if bi is not None else fj) or 0, change, b, f, K.DATA_INPUT_FORMAT, op)
        )
    elif list_literals:
        # decision IWF-format: the same written-out table handed to fit as a Python list on one
        # side and as an array on the other, once for the training arrays it touches
        out.append(stands_for(list_literals[0], list_literals[1:]))
    if relabels:
        if not _graph(ctx):
            stands_for(relabels[0], relabels[1:])
        relabels[0].detail["steps"] = len(relabels)
        out.append(relabels[0])
    return out
