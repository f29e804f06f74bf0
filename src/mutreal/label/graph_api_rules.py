"""What graph code's changes do with TensorFlow's own functions, read for the best code of
:mod:`mutreal.label.best_code`: a function TensorFlow removed, its version asserted, one function
for another, a value's type, a weight update written by hand, the shapes a queue, a reduction or
an index reads, the arrays fed given another shape.

Why: these are the rows of the best code's table that read TensorFlow's API rather than a model,
training or data element; each predicate answers for one changed statement (or one part of it)
and names the decision it applies, so :func:`mutreal.label.best_code.rule_for` stays a table.
Also here: how a statement the statement diff left one-sided is read (its rewritten counterpart,
its training split's twin, a loop unwrapped, an initialiser or operations built where the graph
cannot take them), and :func:`coupled_shapes`, shape components that restore one agreement.
"""

from __future__ import annotations

import ast
import re
from typing import TYPE_CHECKING

from mutreal.compare.components import FaultComponent
from mutreal.compare.coverage import StatementChange
from mutreal.compare.kinds import ComponentKind as K
from mutreal.compare.statements import Statement, parse_statement
from mutreal.decisions import DecisionId as D
from mutreal.decisions import applies
from mutreal.label.followed_values import call_name

if TYPE_CHECKING:
    from mutreal.label.best_code import Part

#: TensorFlow's functions that TensorFlow 1.0 removed (renamed or moved to contrib), as the
#: statements read them (decision APD-graph-removed-api); the initialisers it only deprecated
#: still run, no such fault; a rename the statement diff spells alike (``tf.mul``,
#: ``tf.multiply``) reaches the table only beside another change of its statement
_REMOVED_API = frozenset(
    {
        "tf.train.SummaryWriter",
        "tf.merge_all_summaries",
        "tf.merge_summary",
        "tf.scalar_summary",
        "tf.histogram_summary",
        "tf.image_summary",
        "tf.audio_summary",
        "tf.mul",
        "tf.sub",
        "tf.neg",
        "tf.pack",
        "tf.unpack",
        "tf.select",
        "tf.batch_matmul",
        "tf.listdiff",
        "tf.nn.rnn",
        "tf.nn.bidirectional_rnn",
        "tf.nn.seq2seq",
    }
)
#: the removed functions that only write summaries for the reader: logging, a fault of the pair
#: only where no other change is left to carry it (decision APD-graph-removed-api)
_REMOVED_LOGGING = re.compile(r"summar|SummaryWriter")
#: a variable on one side against a tensor computed anew on the other (``tf.zeros`` has no assign)
VARIABLE = re.compile(r"^(Variable|get_variable)$")
#: functions that derive the labels or outputs an evaluation compares, in one encoding or another
_ENCODING = re.compile(r"^(argmax|cast|to_int32|to_int64|one_hot|squeeze)$")
#: a TensorFlow reduction and the keywords that name the axes it reduces over
_REDUCTION = re.compile(r"^(reduce_sum|reduce_mean|reduce_max|reduce_min|reduce_prod|moments)$")
_AXIS_KEYWORD = re.compile(r"^(axis|axes|reduction_indices|keep_dims|keepdims)$")
#: a hand-written weight update: a variable assigned (or stepped by) a value with a learning rate
_WEIGHT_UPDATE = re.compile(r"^(assign|assign_add|assign_sub)$")
_RATE_NAME = re.compile(r"\b(learning_rate|lr|alpha|eta)\b")


def tensorflow_call(callee: str, change: StatementChange) -> bool:
    """``callee`` is a function of TensorFlow on both sides (``tf.strided_slice``, ``tf.nn.conv2d``)."""
    return bool(callee) and all(
        any(r.endswith("." + callee) and r.split(".")[0] in ("tf", "tensorflow") for r in st.reads)
        for st in (change.buggy, change.fixed)
        if st is not None
    )


def version_assert(change: StatementChange) -> bool:
    """Every side of the change that has a statement asserts TensorFlow's version."""
    sides = [s for s in (change.buggy, change.fixed) if s is not None]
    return bool(sides) and all(
        "tf.__version__" in s.reads and isinstance(parse_statement(s.text), ast.Assert) for s in sides
    )


def constant_of_tensor(change: StatementChange) -> bool:
    """``tf.constant`` takes a value (a number, a list, a NumPy array), not a tensor: the buggy
    statement hands it the result of a call that is not NumPy's and the fixed one a NumPy value
    (``tf.constant(tf.random_normal([2, 2]))`` -> ``tf.constant(np.random.normal(size=(2, 2)))``)."""
    if change.buggy is None or change.fixed is None:
        return False

    def argument(statement: Statement) -> ast.expr | None:
        tree = parse_statement(statement.text)
        value = getattr(tree, "value", None)
        if isinstance(value, ast.Call) and call_name(value.func) == "constant" and value.args:
            return value.args[0]
        return None

    def numpy(statement: Statement) -> bool:
        return any(r.split(".")[0] in ("np", "numpy") for r in statement.reads)

    before, after = argument(change.buggy), argument(change.fixed)
    return (
        isinstance(before, ast.Call)
        and after is not None
        and not numpy(change.buggy)
        and numpy(change.fixed)
        and any(r.split(".")[0] in ("tf", "tensorflow") and r != "tf.constant" for r in change.buggy.reads)
    )


@applies(D.APD_GRAPH_REMOVED_API)
def removed_api(change: StatementChange) -> str:
    """Decision APD-graph-removed-api: the function TensorFlow 1.0 removed or deprecated that the
    buggy statement calls and the fixed one (where there is one) no longer does, or ""."""
    if change.buggy is None:
        return ""
    old = change.buggy.reads & _REMOVED_API
    if change.fixed is not None:
        old -= change.fixed.reads
    return min(old) if old else ""


def graph_shape(part: Part, change: StatementChange) -> bool:
    """Graph code's shapes beside a shape function's: a queue's ``shapes`` (``FIFOQueue(...,
    shapes=[[1024, 3]])``, the keyword on a line of its own), a loop's ``shape_invariants``
    (``tf.while_loop(c, b, [i, y], shape_invariants=[...])``), the axes a reduction reduces over
    (``tf.nn.moments(x, axes=[1])``, ``tf.reduce_sum(e, [1])`` put in: its result loses an axis),
    a recurrent cell's state made for a batch size (``cell.zero_state(batch_size, ...)`` taken away
    or handed another batch size: the state's first dimension)."""
    if part.keyword in ("shapes", "shape_invariants") or (
        part.target == "shapes" and part.literal and not part.callee
    ):
        return True
    if part.was == "zero_state" or (part.callee == "zero_state" and (part.argument == 0 or change.fixed is None)):
        return True
    if not _REDUCTION.match(part.callee):
        return False
    if _AXIS_KEYWORD.match(part.keyword) or part.argument == 1:
        return True
    one = change.buggy if change.fixed is None else change.fixed if change.buggy is None else None
    return one is not None and _reduces_over_axes(one, part.callee)


#: a NumPy step that only gives an array another shape (decision IWS-graph-fed-shape)
_ARRAY_SHAPE_OPS = re.compile(r"^(expand_dims|reshape|squeeze|transpose|swapaxes|moveaxis)$")
#: a dimension of a tensor's shape read by its index (``x.get_shape().as_list()[1]``, ``tf.shape(x)[0]``)
_SHAPE_INDEX = re.compile(r"(?:get_shape\(\)(?:\.as_list\(\))?|\bshape(?:\([^()]*\))?)\[\s*(-?\d+)\s*\]")


@applies(D.IWS_GRAPH_FED_SHAPE)
def fed_array_shaped(part: Part, change: StatementChange) -> bool:
    """A statement only one side has that gives a NumPy array another shape and nothing else
    (``batch = np.expand_dims(batch, 0)``: a single example made a batch of one for the graph's
    placeholder): the data fed is shaped to the graph, decision IWS-graph-fed-shape."""
    one = change.buggy if change.fixed is None else change.fixed if change.buggy is None else None
    if one is None or not _ARRAY_SHAPE_OPS.match(part.callee):
        return False
    tree = parse_statement(one.text)
    calls = [n for n in ast.walk(tree) if isinstance(n, ast.Call)] if tree is not None else []
    return len(calls) == 1 and bool(re.search(r"\b(np|numpy)\.", one.source))


def shape_index(change: StatementChange) -> bool:
    """The two sides read other dimensions of a tensor's shape (``as_list()[0]`` against
    ``as_list()[1]``: the batch's size compared where the features' was meant)."""
    if change.buggy is None or change.fixed is None:
        return False
    before = _SHAPE_INDEX.findall(change.buggy.source)
    after = _SHAPE_INDEX.findall(change.fixed.source)
    return bool(before) and len(before) == len(after) and before != after


def _reduces_over_axes(statement: Statement, callee: str) -> bool:
    """The statement (one side's only) calls the reduction ``callee`` with the axes given."""
    tree = parse_statement(statement.text)
    return tree is not None and any(
        isinstance(n, ast.Call)
        and call_name(n.func) == callee
        and (len(n.args) > 1 or any(_AXIS_KEYWORD.match(k.arg or "") for k in n.keywords))
        for n in ast.walk(tree)
    )


@applies(D.LWC_GRAPH_UPDATE)
def hand_written_update(part: Part, change: StatementChange) -> bool:
    """The value a variable is assigned (or stepped by) changes on both sides, and it steps by a
    learning rate: a weight update written by hand, the loss's gradient step written out (an
    update divided by the batch's size: its mean over the batch); a changed number there is left
    (the rate's own value, not the update's calculation)."""
    return (
        bool(_WEIGHT_UPDATE.match(part.callee))
        and part.argument == 0
        and part.before is None
        and change.buggy is not None
        and change.fixed is not None
        and bool(_RATE_NAME.search(change.text()))
    )


def labels_encoding(part: Part, change: StatementChange) -> bool:
    """One operand of an evaluation's comparison is derived in another encoding on each side
    (``tf.equal(tf.argmax(p, 1), tf.argmax(y, 1))`` against ``... tf.cast(y, tf.int64))``): the
    labels' format (decision PMC-graph-metric: one operand changed alone follows the labels')."""
    return (
        part.replaced
        and bool(part.was)
        and part.callee != part.was
        and bool(_ENCODING.match(part.callee))
        and bool(_ENCODING.match(part.was))
        and all(s is not None and "equal(" in s.text for s in (change.buggy, change.fixed))
    )


@applies(D.IWF_GRAPH_DTYPE)
def value_type(part: Part, change: StatementChange) -> bool:
    """Decision IWF-graph-dtype: a ``tf.cast`` put around a value handed to an operation
    (``tf.matmul(x, tf.cast(y, tf.float32))``), or the ``dtype`` a TensorFlow operation is told
    its values have changed on both sides (``tf.nn.dynamic_rnn(..., dtype=tf.float64)``)."""
    if change.buggy is None or change.fixed is None:
        return False
    if part.callee == "cast" and part.replaced and not part.was and part.argument is not None:
        return True
    return (
        part.keyword == "dtype"
        and tensorflow_call(part.callee, change)
        and all(
            "dtype=" in s.text
            for s in (change.buggy, change.fixed)  # type: ignore[union-attr]
        )
    )


@applies(D.APW_GRAPH_FUNCTION)
def tensorflow_replaced(part: Part, change: StatementChange) -> bool:
    """One TensorFlow function replaced by another (``tf.matmul`` -> ``tf.tensordot``): the
    buggy statement reads the old one from TensorFlow, the fixed the new one."""
    if not (part.replaced and part.was and part.callee and part.callee != part.was):
        return False
    if change.buggy is None or change.fixed is None:
        return False

    def from_tf(name: str, statement: Statement) -> bool:
        return any(
            r.endswith("." + name) and r.split(".")[0] in ("tf", "tensorflow") for r in statement.reads
        )

    return from_tf(part.was, change.buggy) and from_tf(part.callee, change.fixed)


@applies(D.APD_GRAPH_REMOVED_API)
def removed_api_alone(changes: list[StatementChange], group: list[int], alone: bool | None = None) -> bool:
    """Decision APD-graph-removed-api: the group calls a function TensorFlow removed, and where
    that function only writes summaries (logging, which the study ignores once another change
    carries the fault) or the fix only takes the call away (it may cut what it does not fix),
    the group is every change left: nothing else is there to be the fault. A version assert
    likewise: every change left asserts the version (else the assert is the benchmark's).
    ``alone``: whether no pass found a component in the pair (False: one did, so another change
    carries the fault; None: not known, every change left is taken as every change)."""
    only = len(group) == len(changes) and alone is not False
    if all(version_assert(changes[k]) for k in group):
        return only
    found = [removed_api(changes[k]) for k in group]
    if not any(found):
        return False
    cut = all(changes[k].fixed is None for k in group)
    if cut or any(_REMOVED_LOGGING.search(name) for name in found if name):
        # every change left is such a call (a bare call joins the group of all that read ``tf``)
        return all(found) and only
    return True


# ---------------------------------------------------------------------------------------------------
# Statements the statement diff left one-sided (round 2 of graph code's coverage)
# ---------------------------------------------------------------------------------------------------

def _assignment(statement: Statement) -> bool:
    """An assignment (not a loop's target, a function, an import, a method called on a name)."""
    return bool(statement.binds) and isinstance(statement.node, (ast.Assign, ast.AnnAssign, ast.AugAssign))


def _callee(statement: Statement) -> str:
    value = getattr(statement.node, "value", None)
    return call_name(value) if isinstance(value, (ast.Call, ast.Subscript)) else ""


def _tensorflow(statement: Statement) -> bool:
    return any(r.split(".")[0] in ("tf", "tensorflow") for r in statement.reads)


@applies(D.REWRITTEN_BINDING)
def rewritten_binding(change: StatementChange, sides: tuple[tuple[Statement, ...], ...]) -> StatementChange:
    """Decision rewritten-binding: a one-sided assignment whose names the other side binds in one
    assignment only, one written differently from every statement of this side (``c =
    tf.matmul(a, b)`` taken out and ``c = tf.matmul(tf.expand_dims(a, 0), ...)`` written in,
    indented into a function so the statement diff could not pair them), is that assignment
    rewritten: the pair, read as one changed statement; the change itself otherwise. A
    function's return likewise, where the other side's function of that name returns once.
    Both compute one kind of value: they call the same function, or both are tensors."""
    one = change.buggy or change.fixed
    if (change.buggy is None) == (change.fixed is None) or one is None:
        return change
    mine, other = (sides[0], sides[1]) if change.fixed is None else (sides[1], sides[0])
    texts = {s.written for s in mine}
    if _assignment(one):
        twins = [s for s in other if s.binds == one.binds and _assignment(s)]
    elif isinstance(one.node, ast.Return) and _function(one, mine):
        # a function's return: the other side's returns of the function of that name
        twins = [s for s in other if isinstance(s.node, ast.Return) and _function(s, other) == _function(one, mine)]
    else:
        return change
    if len(twins) != 1 or twins[0].written in texts or one.noise or twins[0].noise:
        return change
    twin = twins[0]
    if not (_callee(one) == _callee(twin) != "" or (_tensor(one, mine) and _tensor(twin, other))):
        return change  # another value altogether (an image read against an array made up)
    return StatementChange(one, twin) if change.fixed is None else StatementChange(twin, one)


def _function(statement: Statement, side: tuple[Statement, ...]) -> str:
    """The name of the innermost function the statement is in ("" at the outer level)."""
    around = [s for s in side if s.defines and isinstance(s.node, ast.FunctionDef) and s.line < statement.line <= s.end]
    return min(max(around, key=lambda s: s.line).defines) if around else ""


def _tensor(statement: Statement, side: tuple[Statement, ...]) -> bool:
    """The statement reads TensorFlow, or a name its side binds from TensorFlow (``logit = output``
    with ``output = tf.matmul(...)``): its value is a tensor."""
    if _tensorflow(statement):
        return True
    names = {r.split(".")[0] for r in statement.reads}
    return any(s.binds & names and _tensorflow(s) for s in side if s is not statement)


@applies(D.UNWRAPPED_TRAINING_LOOP)
def unwrapped_loop(
    change: StatementChange, changes: list[StatementChange], fixed: tuple[Statement, ...]
) -> bool:
    """Decision unwrapped-training-loop: the buggy program's loop header is taken away and no
    statement of its body with it, and the fixed program still runs the training outside any
    loop: the training it ran runs once, the loop's count made one, not the training cut."""
    header = change.buggy
    if change.fixed is not None or header is None or not isinstance(header.node, (ast.For, ast.While)):
        return False
    if any(c.fixed is None and c.buggy is not None and header.line < c.buggy.line <= header.end for c in changes):
        return False
    # the fixed program still runs the training, outside any loop
    train_ops = {b for s in fixed for b in s.binds if re.search(r"minimize\(|apply_gradients\(", s.text)}
    loops = [s for s in fixed if isinstance(s.node, (ast.For, ast.While))]
    return any(
        re.search(r"\.run\(", s.text)
        and {r.split(".")[0] for r in s.reads} & train_ops
        and not any(loop.line < s.line <= loop.end for loop in loops)
        for s in fixed
    )


#: sessions that initialise the graph's variables themselves and finalise the graph first
_SELF_INITIALISING = re.compile(r"\bmanaged_session\(|\bMonitoredTrainingSession\(|\bSingularMonitoredSession\(")


@applies(D.SELF_INITIALISING_SESSION)
def initialiser_in_finalised_graph(change: StatementChange, side: tuple[Statement, ...]) -> bool:
    """Decision self-initialising-session: the fix takes away the run of a variables'
    initialiser inside a session that initialises the variables itself and finalises the graph
    (a Supervisor's ``managed_session``, a ``MonitoredTrainingSession``): building the initialiser
    there adds an operation to a finalised graph, how the API is used, not a model's
    initialisation."""
    run = change.buggy
    if change.fixed is not None or run is None or not re.search(r"initiali[sz]er\(", run.text):
        return False
    return any(
        s.line < run.line <= s.end and isinstance(s.node, ast.With) and _SELF_INITIALISING.search(s.text)
        for s in side
    )


@applies(D.GRAPH_BUILT_IN_LOOP)
def built_in_loop(change: StatementChange, side: tuple[Statement, ...]) -> bool:
    """Decision graph-built-in-loop: the fix takes away a statement that builds TensorFlow
    operations inside a loop whose body runs the graph (``test_prediction = tf.equal(...)`` under
    ``for i in range(niter):`` beside ``sess.run(...)``): each turn adds operations to the graph,
    how the graph is built, the API's use (the fix builds them once, before the loop)."""
    built = change.buggy
    if change.fixed is not None or built is None or not built.binds or not _tensorflow(built):
        return False
    if re.search(r"\.run\(|\.eval\(", built.text):
        return False  # a run of the graph, not an operation built
    loops = [s for s in side if isinstance(s.node, (ast.For, ast.While)) and s.line < built.line <= s.end]
    return any(
        re.search(r"\.run\(", s.text) and loop.line < s.line <= loop.end for loop in loops for s in side
    )


@applies(D.SHAPE_WRITTEN)
def shape_written(part: Part, change: StatementChange, side: tuple[Statement, ...]) -> bool:
    """Decision shape-written: a statement writes into a name (``shape[shape == None] = 1``) that a
    statement of its side hands to a shape function as the shape (``w.reshape(shape)``,
    ``tf.reshape(x, shape)``, ``tf.Variable(tf.zeros(shape))``): it changes a tensor's shape."""
    one = change.buggy or change.fixed
    tree = parse_statement(one.text) if one is not None else None
    if not isinstance(tree, ast.Assign) or not all(isinstance(t, ast.Subscript) for t in tree.targets):
        return False
    names = {call_name(t) for t in tree.targets}
    for statement in side:
        if statement is one or statement.node is None or not (names & statement.reads):
            continue
        for call in (n for n in ast.walk(statement.node) if isinstance(n, ast.Call)):
            shaping = call_name(call.func) in ("reshape", "zeros", "ones", "truncated_normal", "random_normal")
            if shaping and any(isinstance(a, ast.Name) and a.id in names for a in call.args):
                return True
    return False


_SPLIT = re.compile(r"test|val(?:id(?:ation)?)?")


@applies(D.SPLIT_TWIN)
def split_twin(
    change: StatementChange, sides: tuple[tuple[Statement, ...], ...], changes: list[StatementChange]
) -> StatementChange | None:
    """Decision split-twin: the fix takes away a step on the test (or validation) arrays written
    as the same step on the training arrays (``x_test = x_test.astype('float32')`` beside
    ``x_train = x_train.astype('float32')``) and takes that twin away too, where a component
    explains the twin (it is no open change): one step on both splits, one fault; the twin's
    removal, or None."""
    gone = change.buggy
    if change.fixed is not None or gone is None or not any(_SPLIT.search(b) for b in gone.binds):
        return None
    written = _SPLIT.sub("train", gone.written)
    kept = {s.written for s in sides[1]}
    still_open = {c.buggy.written for c in changes if c.buggy is not None}
    twins = [s for s in sides[0] if s.written == written and s is not gone]
    if len(twins) != 1 or written in kept or written in still_open:
        return None
    return StatementChange(twins[0], None)


def activation_guard(part: Part, change: StatementChange) -> bool:
    """A condition put in or taken away on whether an activation is applied (``if activation is
    not None:`` around ``act = activation(act)``): which activation a layer applies."""
    one = change.fixed or change.buggy
    return part.header == "if" and (change.buggy is None or change.fixed is None) and one is not None and any(
        re.search(r"activation|act_fn|nonlinearity", r) for r in one.reads
    )


# ---------------------------------------------------------------------------------------------------
# Shape components that restore one agreement
# ---------------------------------------------------------------------------------------------------

#: graph code's kinds whose components restore an agreement of shapes (a placeholder, a tensor
#: operation, the arrays fed): two of them meeting in one statement are one inconsistency
_SHAPE_KINDS = frozenset({K.TENSOR_SHAPE, K.LAYER_INPUT_SHAPE, K.DATA_RESHAPE})


def _bound_at(component: FaultComponent, side: str, statements: list[Statement]) -> frozenset[str]:
    file = getattr(component, f"{side}_file")
    line = getattr(component, f"{side}_line")
    if line is None:
        return frozenset()
    return frozenset().union(*(s.binds for s in statements if s.file == file and s.line <= line <= s.last))


@applies(D.ONE_INCONSISTENCY)
def coupled_shapes(
    components: list[FaultComponent], buggy: list[Statement], fixed: list[Statement], fed_shape: set[int]
) -> list[FaultComponent]:
    """Graph code: shape components (``fed_shape`` holds the indices of data components coded as a
    fed array's shape) whose statements bind names one statement reads together (``feed_dict={x:
    batch}`` pairs a placeholder with the array fed to it; ``tf.matmul(flat, w)`` a flatten size with
    the next weight's shape) restore one agreement: one component, the first (decision
    one-inconsistency-one-component). Other components are kept as they are."""
    shape = [i for i, c in enumerate(components) if c.kind in _SHAPE_KINDS or i in fed_shape]
    if len(shape) < 2:
        return components
    bound = {
        i: [
            (_bound_at(components[i], "buggy", buggy), buggy),
            (_bound_at(components[i], "fixed", fixed), fixed),
        ]
        for i in shape
    }
    dropped: set[int] = set()
    for n, i in enumerate(shape):
        if i in dropped:
            continue
        for j in shape[n + 1 :]:
            if j in dropped:
                continue
            for side in (0, 1):
                a, statements = bound[i][side]
                b, _ = bound[j][side]
                if a and b and a != b and any(s.reads & a and s.reads & b for s in statements):
                    dropped.add(j)
                    components[i].detail["statements"] = components[i].detail.get("statements", 1) + 1
                    break
    return [c for k, c in enumerate(components) if k not in dropped]


@applies(D.LABEL_ENCODER_MAP)
def label_encoder(change: StatementChange, side: tuple[Statement, ...]) -> bool:
    """Decision label-encoder-map: a one-sided assignment of a literal map from class names to the
    ids 0..n-1 (``encoder = {"cat": 0, "dog": 1}``) that a statement of its side indexes
    (``[encoder[v] for v in labels]``): the labels' encoding, a preprocessing step of the data."""
    one = change.buggy or change.fixed
    if one is None or (change.buggy is not None and change.fixed is not None):
        return False
    tree = parse_statement(one.text)
    value = tree.value if isinstance(tree, ast.Assign) and len(tree.targets) == 1 else None
    if not isinstance(value, ast.Dict) or len(value.keys) < 2:
        return False
    keys = [k.value for k in value.keys if isinstance(k, ast.Constant) and isinstance(k.value, str)]
    ids = sorted(v.value for v in value.values if isinstance(v, ast.Constant) and type(v.value) is int)
    if len(keys) != len(value.keys) or ids != list(range(len(value.keys))):
        return False
    name = call_name(tree.targets[0])
    return any(
        isinstance(n, ast.Subscript) and call_name(n.value) == name
        for s in side
        if s is not one and s.node is not None and name in s.reads
        for n in ast.walk(s.node)
    )
