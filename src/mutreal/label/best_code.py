"""A best code for the changes no pass explains, read from what the changed part of a statement
touches, and one component for edits that restore one agreement together.

Why: the passes model the elements the study's codes name (layers, compile, fit, data steps), so a
fix written elsewhere (a loss built from tensor operations in a helper, an optimiser keyword, the
steps of an evaluation, a batch slice, the GPU's memory options) left classify silent. Each
unexplained change of :mod:`mutreal.compare.coverage` is read part by part (the smallest
sub-expressions that differ, with the call, keyword and assignment target around them) and given
the code of the element it touches (:data:`RULES`), at low confidence with the reason. Changes that
feed one another (one binds a name the other reads) are one fix action, one inconsistency, so one
component (decision one-inconsistency-one-component); a change whose parts touch nothing the table
names stays unexplained, listed, never dropped.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterator
from dataclasses import dataclass, replace

from mutreal.compare.components import FaultComponent, make_component
from mutreal.compare.coverage import StatementChange
from mutreal.compare.kinds import ComponentKind as K
from mutreal.compare.statements import Statement, parse_statement
from mutreal.decisions import DecisionId as D
from mutreal.decisions import applies
from mutreal.label import graph_api_rules as G
from mutreal.label.followed_values import (
    INITIAL_VALUE,
    Context,
    Substitute,
    call_name,
    clone_tree,
    evaluate,
    loop_count,
    number,
    one_hot,
    trains_within,
)
from mutreal.label.graph_api_rules import coupled_shapes  # noqa: F401  (classify reads it here)


@dataclass(frozen=True)
class Part:
    """Where two statements differ: the call, keyword and assignment target around the change."""

    callee: str = ""
    keyword: str = ""
    target: str = ""
    #: the compound statement's keyword (``for``, ``while``, ``def``...) when the change is in a header
    header: str = ""
    #: the numbers on each side where the change is a number (None otherwise)
    before: float | None = None
    after: float | None = None
    #: the differing parts are literals (numbers, strings, lists or tuples of them), or the function
    #: called was replaced: what a shape's change looks like, not another tensor handed over
    literal: bool = False
    #: the function the buggy statement called where the fix calls ``callee`` instead ("" if none)
    was: str = ""
    #: the call itself was replaced, put around an expression or taken from it (not its arguments)
    replaced: bool = False
    #: the position of the argument of ``callee`` the change is in (None: a keyword, or not an argument)
    argument: int | None = None
    #: the call's positional arguments keep their values and change their form only: put in
    #: another order, grouped otherwise, one added or dropped with the others kept
    signature: bool = False


@dataclass(frozen=True)
class Rule:
    """One row of the table: the kind a part touching this element is given, and why; a row with
    no kind names only a ``code`` of the study that no component kind fits (a name scope, which
    names operations, not the variables a variable scope (VSM) makes): it annotates the listed
    unexplained change, which stays unexplained. The API row
    (APW) is a component only where the fix puts the API's use in (decision APW-graph-api)."""

    kind: K | None
    why: str
    code: str | None = None


_OPTIMISER = re.compile(r"Optimizer$|^(SGD|Adam|Adamax|Nadam|RMSprop|Adagrad|Adadelta|Ftrl)$")
_LOSS_NAME = re.compile(r"loss|cost|cross_?entropy|xent|objective", re.I)
_LOSS_CALL = re.compile(
    r"^(log|log_softmax|softmax_cross_entropy\w*|sigmoid_cross_entropy\w*|sparse_softmax_cross_entropy\w*|"
    r"clip_by_value|reduce_sum|reduce_mean|square|squared_difference|mean_squared_error|l2_normalize)$"
)
#: functions found in losses only: a change around them is the loss's whatever the target's name
_LOSS_ONLY = re.compile(r"^(log|log_softmax|\w*cross_entropy\w*|clip_by_value)$")
_SHAPE_CALL = re.compile(
    r"^(reshape|expand_dims|squeeze|transpose|placeholder|stack|concat|get_shape|shape|flatten|Flatten|"
    r"matmul|unstack|split|tile|while_loop|TensorShape|set_shape|one_hot)$"
)
_BUDGET_NAME = re.compile(r"epoch|iteration|iters\b|training_steps|num_steps|n_steps|max_steps|rounds", re.I)
_BATCH_NAME = re.compile(r"batch", re.I)
_PREPROCESS = re.compile(
    r"^(StandardScaler|MinMaxScaler|RobustScaler|Normalizer|normalize|astype|to_categorical|eye|"
    r"imread|resize|fit_transform|transform|scale|minmax_scale|standard_scale|LabelEncoder|OneHotEncoder|"
    r"one_hot)$"
)
_INITIALISER = re.compile(
    r"initiali[sz]er|truncated_normal|random_normal|glorot|xavier|he_normal|stddev", re.I
)
_MEMORY = re.compile(r"gpu_options|allow_growth|per_process_gpu_memory_fraction|ConfigProto|clear_session")
_REGULARISER = re.compile(r"l2_loss|l1_loss|regulari[sz]|weight_decay")
_EVALUATION = re.compile(r"^(evaluate|evaluate_generator|predict|predict_generator|eval)$")
_MODEL_INIT = re.compile(
    r"^(global_variables_initializer|initialize_all_variables|variables_initializer|"
    r"local_variables_initializer|tables_initializer)$"
)
_ACTIVATION = re.compile(r"^(relu|relu6|elu|selu|sigmoid|tanh|softmax|softplus|leaky_relu|linear)$")

#: the table, by what the part touches (first match wins; see :func:`rule_for`)
RULES: dict[str, Rule] = {
    "memory": Rule(K.SESSION_MEMORY, "the GPU's memory options of the session change"),
    "epsilon": Rule(K.COMPILE_EPSILON, "the epsilon keyword of an optimiser changes"),
    "learning rate": Rule(K.COMPILE_LEARNING_RATE, "the learning rate of an optimiser changes"),
    "optimiser": Rule(K.COMPILE_OPTIMIZER, "an optimiser or one of its keywords changes"),
    "evaluation steps": Rule(K.EVALUATION_STEPS, "the steps of an evaluation call change"),
    "regulariser": Rule(K.LAYER_REGULARIZER, "a regularisation term of the loss changes"),
    "loss": Rule(K.COMPILE_LOSS_CALCULATION, "the expression computing the loss changes"),
    "training budget": Rule(K.FIT_EPOCHS, "the number of passes of the training loop changes"),
    "batch size": Rule(K.FIT_BATCH_SIZE, "a batch size changes"),
    "batching": Rule(K.DATA_BATCHING, "how the training data is cut into batches changes"),
    "fed array shape": Rule(K.DATA_RESHAPE, "the shape of an array fed to the graph changes"),
    "tensor shape": Rule(K.TENSOR_SHAPE, "a tensor's shape or a shape function changes"),
    "preprocessing": Rule(K.DATA_PREPROCESS, "a preprocessing step of the data changes"),
    "model initialisation": Rule(
        K.MODEL_INITIALISATION, "the variables of the graph are initialised otherwise"
    ),
    "initialisation": Rule(K.LAYER_KERNEL_INITIALIZER, "the initialisation of weights changes"),
    "activation": Rule(K.LAYER_ACTIVATION, "an activation function applied to a tensor changes"),
    "variable scope": Rule(
        K.GRAPH_VARIABLE_SCOPE,
        "the variable scope (or its reuse) the graph's variables are made in changes",
    ),
    "name scope": Rule(
        None, "the name scope the graph's operations are named in changes (not their variables')", "VSM"
    ),
    "weight update": Rule(
        K.COMPILE_LOSS_CALCULATION,
        "a weight update written by hand (a variable assigned its step by the learning rate: the "
        "loss's gradient step written out) is computed otherwise",
    ),
    "labels format": Rule(
        K.DATA_PREPROCESS,
        "the labels an evaluation compares are read in another encoding (one-hot columns taken by "
        "argmax against integer ids cast)",
    ),
    "input format": Rule(
        K.DATA_INPUT_FORMAT,
        "the type of the values a TensorFlow operation is handed changes (a cast put in, its dtype)",
    ),
    "deprecated api": Rule(
        K.GRAPH_DEPRECATED_API,
        "a function TensorFlow 1.0 removed or deprecated is called where the fix calls its successor "
        "or nothing",
        "APD",
    ),
    "api version": Rule(
        K.GRAPH_DEPRECATED_API,
        "the TensorFlow version the program asserts changes: the API it calls is not the same "
        "across versions",
        "APD",
    ),
    "graph api": Rule(
        K.GRAPH_API,
        "how the graph is built or run changes (sessions, the default graph, queue runners, "
        "control dependencies, conditionals, tensor arrays, a tensor run or evaluated): an API "
        "used otherwise",
        "APW",
    ),
}

#: TensorFlow 1's own machinery for building and running a graph: a change around these is how
#: the API is used (decision APW-graph-api)
_GRAPH_API = re.compile(
    r"^(Session|InteractiveSession|Graph|as_default|reset_default_graph|get_default_graph|"
    r"control_dependencies|with_dependencies|start_queue_runners|Coordinator|QueueRunner|"
    r"string_input_producer|import_meta_graph|get_tensor_by_name|restore|Saver)$"
)
#: graph operations whose arguments are values of the program: only the call itself put in,
#: taken out or replaced is a use of the API (an argument changed is what it computes)
_GRAPH_CALLS = re.compile(
    r"^(cond|case|TensorArray|write|py_func|assign|assign_add|run|eval|identity|FIFOQueue|"
    r"enqueue|dequeue|add_to_collection|get_collection)$"
)
_SCOPE = re.compile(r"^(variable_scope|get_variable_scope|reuse_variables)$")


def rule_code(rule: Rule) -> str:
    """The study's code a row gives: its kind's (:data:`mutreal.label.codes.KIND_RULES`), else its own."""
    if rule.kind is None:
        assert rule.code is not None
        return rule.code
    from mutreal.label.codes import KIND_RULES

    return KIND_RULES[rule.kind].code


# ---------------------------------------------------------------------------------------------------
# The parts of a change
# ---------------------------------------------------------------------------------------------------


def _literal(node: ast.AST) -> bool:
    """A number, a string, or a list or tuple of literals (``[-1, 7 * 7 * 64]`` included)."""
    if isinstance(node, ast.Constant):
        return True
    if isinstance(node, (ast.List, ast.Tuple)):
        return all(_literal(x) or isinstance(x, (ast.Name, ast.BinOp, ast.UnaryOp)) for x in node.elts)
    if isinstance(node, (ast.BinOp, ast.UnaryOp)):
        return all(
            _literal(x) or isinstance(x, ast.Name)
            for x in ast.iter_child_nodes(node)
            if isinstance(x, ast.expr)
        )
    return False


def _diff(a: object, b: object, at: Part) -> Iterator[Part]:
    """The parts where two trees differ, each with what is around it."""
    if type(a) is not type(b):
        # one expression replaced by another: a call on either side (the fix's first) is what it touches
        called = next((call_name(x.func) for x in (b, a) if isinstance(x, ast.Call)), "")
        yield replace(
            at,
            callee=called or at.callee,
            replaced=bool(called),
            was=call_name(a.func) if isinstance(a, ast.Call) and isinstance(b, ast.Call) else "",
            # literal values, or a call put around (or taken from) an expression: the function changed
            literal=all(_literal(x) for x in (a, b) if isinstance(x, ast.AST))
            or isinstance(a, ast.Call) != isinstance(b, ast.Call),
            before=number(a) if isinstance(a, ast.AST) else None,
            after=number(b) if isinstance(b, ast.AST) else None,
        )
        return
    if isinstance(a, list):
        assert isinstance(b, list)
        if len(a) != len(b):
            yield at
            return
        for x, y in zip(a, b, strict=True):
            yield from _diff(x, y, at)
        return
    if not isinstance(a, ast.AST):
        if a != b:
            yield at
        return
    assert isinstance(b, ast.AST)
    if isinstance(a, ast.Constant):
        if a.value != b.value:  # type: ignore[attr-defined]
            yield replace(at, before=number(a), after=number(b), literal=True)
        return
    if isinstance(a, (ast.List, ast.Tuple)) and len(a.elts) != len(b.elts):  # type: ignore[attr-defined]
        yield replace(at, literal=all(_literal(x) for x in (a, b)))
        return
    if isinstance(a, ast.Call):
        assert isinstance(b, ast.Call)
        flag = _flag_name(a)
        if flag and flag == _flag_name(b):
            # a command-line flag's definition: the value it defines is the flag's, by its name
            # (``DEFINE_integer('max_steps', 100)``, ``add_argument('--epochs', default=50)``)
            for part in _diff_call(a, b, replace(at, callee=call_name(a.func), keyword="", argument=None)):
                yield replace(part, callee="", keyword="", target=flag, argument=None)
            return
        yield from _diff_call(a, b, replace(at, callee=call_name(a.func) or at.callee, keyword="", argument=None))
        return
    if isinstance(a, (ast.Assign, ast.AugAssign, ast.AnnAssign)):
        targets = a.targets if isinstance(a, ast.Assign) else [a.target]
        named = replace(at, target=" ".join(call_name(t) for t in targets))
        for field in a._fields:
            yield from _diff(getattr(a, field), getattr(b, field), named if field == "value" else at)
        return
    if isinstance(a, ast.arguments):
        assert isinstance(b, ast.arguments)
        a_names = [x.arg for x in a.args]
        b_names = [x.arg for x in b.args]
        if a_names != b_names:
            yield at
            return
        defaults_at = a_names[len(a_names) - len(a.defaults) :]
        if len(a.defaults) != len(b.defaults):
            yield at
            return
        for name, x, y in zip(defaults_at, a.defaults, b.defaults, strict=True):
            yield from _diff(x, y, replace(at, keyword=name))
        return
    if isinstance(a, (ast.For, ast.While, ast.If, ast.With, ast.FunctionDef, ast.ClassDef)):
        at = replace(at, header=type(a).__name__.lower())
    for field in a._fields:
        if field in ("ctx", "type_comment", "lineno", "end_lineno", "col_offset", "end_col_offset"):
            continue
        yield from _diff(getattr(a, field), getattr(b, field, None), at)


def _diff_call(a: ast.Call, b: ast.Call, inner: Part) -> Iterator[Part]:
    """:func:`_diff` of two calls: the function replaced, or where their arguments differ (each
    positional argument's part knows its position)."""
    if call_name(a.func) != call_name(b.func):  # one function replaced by another
        yield replace(inner, callee=call_name(b.func), literal=True, was=call_name(a.func), replaced=True)
        return
    yield from _diff(a.func, b.func, inner)
    la, lb = _leaves(a.args), _leaves(b.args)
    if a.args and b.args and _dumps(a.args) != _dumps(b.args) and (
        la == lb or (len(a.args) != len(b.args) and (_contains(la, lb) or _contains(lb, la)))
    ):
        yield replace(inner, signature=True)  # the same values handed over in another form
    elif len(a.args) != len(b.args):
        yield inner
    else:
        for k, (x, y) in enumerate(zip(a.args, b.args, strict=True)):
            yield from _diff(x, y, replace(inner, argument=k))
    akw = {k.arg: k.value for k in a.keywords}
    bkw = {k.arg: k.value for k in b.keywords}
    for key in sorted(set(akw) | set(bkw), key=str):
        if key not in akw or key not in bkw:
            yield replace(inner, keyword=str(key))
        else:
            yield from _diff(akw[key], bkw[key], replace(inner, keyword=str(key)))


def _dumps(nodes: list[ast.expr]) -> list[str]:
    return [ast.dump(n) for n in nodes]


def _leaves(nodes: list[ast.expr]) -> list[str]:
    """The names, attributes and constants of some arguments, as a sorted multiset."""
    return sorted(
        x.attr if isinstance(x, ast.Attribute) else ast.dump(x)
        for n in nodes
        for x in ast.walk(n)
        if isinstance(x, (ast.Name, ast.Constant, ast.Attribute))
    )


def _contains(big: list[str], small: list[str]) -> bool:
    rest = list(big)
    for x in small:
        if x not in rest:
            return False
        rest.remove(x)
    return True


#: calls that define a command-line flag, and the flag's name among their arguments
_FLAG_CALL = re.compile(r"^(DEFINE_\w+|add_argument)$")


def _flag_name(call: ast.Call) -> str:
    """The name of the flag a call defines (``DEFINE_integer('max_steps', ...)``: ``max_steps``;
    ``add_argument('-e', '--epoch', ...)``: ``epoch``), or ""."""
    if not _FLAG_CALL.match(call_name(call.func)):
        return ""
    names = [
        x.value
        for x in [*call.args, *(k.value for k in call.keywords if k.arg in ("flag_name", "name", "dest"))]
        if isinstance(x, ast.Constant) and isinstance(x.value, str)
    ]
    if call_name(call.func) == "add_argument":
        dest = [k.value.value for k in call.keywords if k.arg == "dest" and isinstance(k.value, ast.Constant)]
        names = dest or [n for n in names if n.startswith("--")] or names
    return str(names[0]).lstrip("-").replace("-", "_") if names else ""


def _whole(statement: Statement) -> Iterator[Part]:
    """The parts of a statement only one side has: every call in it, with its target."""
    tree = parse_statement(statement.text)
    if tree is None:
        return
    header = type(tree).__name__.lower() if isinstance(tree, (ast.For, ast.While, ast.If, ast.With)) else ""
    target = ""
    if isinstance(tree, (ast.Assign, ast.AugAssign, ast.AnnAssign)):
        targets = tree.targets if isinstance(tree, ast.Assign) else [tree.target]
        target = " ".join(call_name(t) for t in targets)
    calls = [n for n in ast.walk(tree) if isinstance(n, ast.Call)]
    if not calls:
        yield Part(target=target, header=header)
    for call in calls:
        keywords = [k.arg or "" for k in call.keywords] or [""]
        for keyword in keywords:
            yield Part(callee=call_name(call.func), keyword=keyword, target=target, header=header)


def parts_of(change: StatementChange, context: Context | None = None) -> list[Part]:
    """Where a changed statement differs from its counterpart, or all of a one-sided statement;
    a loop's count read through the constants of its side first (decision best-code-through-names)."""
    loop = _loop_parts(change, context)
    if loop:
        return loop
    b, f = change.buggy, change.fixed
    if b is None or f is None:
        return list(_whole(b or f))  # type: ignore[arg-type]
    tb, tf = parse_statement(b.text), parse_statement(f.text)
    if tb is None or tf is None:
        return []
    if type(tb) is not type(tf) and (isinstance(tb, ast.With) or isinstance(tf, ast.With)):
        # a context put around statements the other side wrote as one expression
        # (``with_dependencies([d], x)`` against ``with tf.control_dependencies([d]):``): the
        # calls of each side, the fix's first
        return [*_whole(f), *_whole(b)]
    return list(_diff(tb, tf, Part()))


# ---------------------------------------------------------------------------------------------------
# The table
# ---------------------------------------------------------------------------------------------------


def _numpy_operand(change: StatementChange) -> bool:
    """The statement works on a NumPy array (``np.expand_dims``, ``x.reshape`` of an array it fed)."""
    text = " ".join(s.source for s in (change.buggy, change.fixed) if s is not None)
    return bool(re.search(r"\b(np|numpy)\.|(?<!tf)(?<!tensorflow)\.reshape\(|feed_dict", text))


_FLAG_TARGET = re.compile(r"\bDEFINE_\w+\(|\badd_argument\(")


def _variable_shape(part: Part, change: StatementChange, context: Context | None) -> bool:
    """The part is the shape a variable's initial value is drawn in: the first argument of an
    initial-value function of TensorFlow (not NumPy's ``normal(loc, scale, size)``), or the
    argument of a helper of the program that hands it on as such a shape."""
    if part.argument is None:
        return False
    if INITIAL_VALUE.match(part.callee) and part.argument == 0:
        return not _numpy_operand(change)
    return context is not None and (part.callee, part.argument) in context.shape_helpers


def _loop_parts(change: StatementChange, context: Context | None) -> list[Part]:
    """A loop's count changed, read with each side's constants (``for step in range(1,
    num_steps + 1)`` with ``num_steps = 1000`` against ``for i in range(1)``): the part of a
    training budget, with its numbers; [] where either count cannot be read or both are equal."""
    if context is None:
        return []
    if change.buggy is None or change.fixed is None:
        # a loop put around the training (or taken from around it): one turn against its count
        one = change.buggy or change.fixed
        assert one is not None
        side = context.sides[0] if change.fixed is None else context.sides[1]
        count = loop_count(parse_statement(one.text), context.constants[0 if change.fixed is None else 1])
        if count is None or count == 1 or not trains_within(one, side):
            return []
        before, after = (count, 1.0) if change.fixed is None else (1.0, count)
        return [Part(callee="range", header="for", before=before, after=after, literal=True)]
    before = loop_count(parse_statement(change.buggy.text), context.constants[0])
    after = loop_count(parse_statement(change.fixed.text), context.constants[1])
    if before is None or after is None or before == after:
        return []
    return [Part(callee="range", header="for", before=before, after=after, literal=True)]


@applies(
    D.MMR_SESSION_MEMORY, D.HBI_BATCH_BOUNDS, D.APW_GRAPH_API, D.BEST_CODE_THROUGH_NAMES, D.VSM_GRAPH_SCOPE
)
def rule_for(part: Part, change: StatementChange, graph: bool, context: Context | None = None) -> str | None:
    """The row of :data:`RULES` a part touches, or None: the first of memory, optimiser keywords,
    evaluation steps, regularisers, loss expressions, the training budget, batching, shapes,
    preprocessing, initialisation and activations that fits what is around the part."""
    text = change.text()
    callee, keyword, target = part.callee, part.keyword, part.target
    if _MEMORY.search(text):
        return "memory"
    if keyword == "epsilon" and (_OPTIMISER.search(callee) or "Optimizer" in text):
        return "epsilon"
    if _OPTIMISER.search(callee):
        return (
            "learning rate"
            if keyword in ("learning_rate", "lr", "") and part.before is not None
            else "optimiser"
        )
    if keyword == "steps" and _EVALUATION.match(callee):
        return "evaluation steps"
    if _REGULARISER.search(text):
        return "regulariser"
    if (
        graph
        and (_LOSS_NAME.search(target) or _LOSS_NAME.search(text) or _LOSS_ONLY.match(callee))
        and (_LOSS_CALL.match(callee) or _LOSS_NAME.search(target))
        and not _SHAPE_CALL.match(callee)
    ):
        return "loss"
    budget = _BUDGET_NAME.search(keyword or target) or (
        part.header in ("for", "while") and callee in ("range", "xrange", "")
    )
    if budget and part.before is not None and part.after is not None:
        return "training budget"
    if _BATCH_NAME.search(keyword or target) and part.before is not None and part.after is not None:
        return "batch size"
    if (
        _BATCH_NAME.search(text)
        and (
            callee in ("min", "next_batch", "batch", "shuffle_batch")
            or re.search(r"\[[^]]*:[^]]*batch[^]]*\]", text)
        )
    ) or (callee == "min" and "len(" in text):
        return "batching"  # a batch's bounds (the last one cut at the data's length) or its slice
    if (_SHAPE_CALL.match(callee) and part.literal) or keyword == "shape":
        return "fed array shape" if graph and _numpy_operand(change) else "tensor shape"
    if graph and G.graph_shape(part, change):
        return "tensor shape"  # a queue's shapes, the axes a reduction reduces over
    if graph and G.fed_array_shaped(part, change):
        return "fed array shape"  # decision IWS-graph-fed-shape, on one side only
    if graph and part.before is not None and G.shape_index(change):
        return "tensor shape"  # another dimension of a tensor's shape read
    if graph and part.literal and _variable_shape(part, change, context):
        return "tensor shape"  # the shape a variable's initial value is drawn in (its weight's shape)
    if graph and context is not None and G.shape_written(part, change, context.sides[change.fixed is not None]):
        return "tensor shape"  # decision shape-written
    if (
        graph
        and re.fullmatch(r"learning_rate|lr", target)
        and part.before is not None
        and part.after is not None
        and not callee
        and _FLAG_TARGET.search(change.text())
    ):
        return "learning rate"  # a flag named for the learning rate
    if _PREPROCESS.match(callee) and (not part.was or _PREPROCESS.match(part.was)):
        return "preprocessing"  # a step of the data, or one step replaced by another
    if one_hot(change.buggy) != one_hot(change.fixed) and change.buggy is not None and change.fixed is not None:
        return "preprocessing"  # a loader's one_hot flag: the labels' encoding (decision best-code-through-names)
    if graph and context is not None and G.label_encoder(change, context.sides[change.fixed is not None]):
        return "preprocessing"  # decision label-encoder-map
    if _MODEL_INIT.match(callee):
        return "model initialisation"
    if _INITIALISER.search(callee) or _INITIALISER.search(keyword):
        return "initialisation"
    if graph and (_ACTIVATION.match(callee) or keyword == "activation" or G.activation_guard(part, change)):
        return "activation"  # a function applied, a helper told which (activation=None), or whether
    if graph and (_SCOPE.match(callee) or keyword == "reuse"):
        return "variable scope"  # decision VSM-graph-scope
    if graph and callee == "name_scope":
        return "name scope"
    if graph and G.hand_written_update(part, change):
        return "weight update"
    if graph and G.labels_encoding(part, change):
        return "labels format"
    if graph and G.value_type(part, change):
        return "input format"
    if graph and G.removed_api(change):
        return "deprecated api"  # after the rows of an element the statement also changes
    if graph and G.version_assert(change):
        return "api version"
    if graph and (_GRAPH_API.match(callee) or _GRAPH_API.match(part.was)):
        return "graph api"
    if graph and part.replaced and part.was and bool(G.VARIABLE.match(callee)) != bool(G.VARIABLE.match(part.was)):
        return "graph api"  # a variable against a tensor computed anew (decision APW-graph-function)
    if graph and part.signature and G.tensorflow_call(callee, change):
        return "graph api"  # a TensorFlow function's arguments put in the form its signature wants
    if graph and (_GRAPH_CALLS.match(callee) or _GRAPH_CALLS.match(part.was)):
        one_sided = change.buggy is None or change.fixed is None
        return "graph api" if one_sided or part.replaced else None
    if graph and G.tensorflow_replaced(part, change):
        return "graph api"  # one TensorFlow function for another (decision APW-graph-function)
    if graph and part.replaced and G.constant_of_tensor(change):
        return "graph api"  # tf.constant handed a value, not a tensor (decision APW-graph-function)
    return None


# ---------------------------------------------------------------------------------------------------
# Components
# ---------------------------------------------------------------------------------------------------


def _groups(changes: list[StatementChange]) -> list[list[int]]:
    """Changes that feed one another (one binds a name the other reads, on a side both are on),
    as connected groups in the order of their first change."""
    parent = list(range(len(changes)))

    def find(i: int) -> int:
        while parent[i] != i:
            parent[i] = parent[parent[i]]
            i = parent[i]
        return i

    def side_names(c: StatementChange) -> list[tuple[frozenset[str], frozenset[str]]]:
        return [(s.binds, s.reads) for s in (c.buggy, c.fixed) if s is not None]

    for i, a in enumerate(changes):
        for j in range(i + 1, len(changes)):
            b = changes[j]
            if any(
                (ab & br) or (bb & ar) for ab, ar in side_names(a) for bb, br in side_names(b) if ab or bb
            ):
                parent[find(j)] = find(i)
    groups: dict[int, list[int]] = {}
    for i in range(len(changes)):
        groups.setdefault(find(i), []).append(i)
    return sorted(groups.values(), key=lambda g: g[0])


def _through_readers(
    change: StatementChange, graph: bool, context: Context | None
) -> tuple[str, Part] | None:
    """Decision best-code-through-names: a number assigned to a name changes (``BETA = 1`` ->
    ``0.1``) and the assignment touches nothing the table names: the value is followed to the
    statements of its side that read the name, in order, and coded by the first whose part
    around the name does (``loss = cost + BETA * tf.nn.l2_loss(w)``: a regulariser), with the
    assignment's two numbers."""
    b, f = change.buggy, change.fixed
    if not graph or context is None or b is None or f is None or not (b.literal and f.literal):
        return None
    tb, tf_ = parse_statement(b.text), parse_statement(f.text)
    if not (
        isinstance(tb, ast.Assign)
        and isinstance(tf_, ast.Assign)
        and len(tb.targets) == len(tf_.targets) == 1
        and isinstance(tb.targets[0], ast.Name)
        and isinstance(tf_.targets[0], ast.Name)
        and tb.targets[0].id == tf_.targets[0].id
    ):
        return None
    name = tb.targets[0].id
    before, after = evaluate(tb.value, {}), evaluate(tf_.value, {})
    if before is None or after is None or before == after:
        return None
    for side, assignment in ((context.sides[1], f), (context.sides[0], b)):
        for reader in side:
            if reader is assignment or name not in reader.reads or reader.node is None:
                continue
            tree = reader.node
            if isinstance(tree, (ast.FunctionDef, ast.ClassDef)):
                continue
            one = Substitute(name, before).visit(clone_tree(tree))
            other = Substitute(name, after).visit(clone_tree(tree))
            for part in _diff(one, other, Part()):
                row = rule_for(part, StatementChange(reader, reader), graph, context)
                if row is not None and RULES[row].kind is not None:
                    return row, part
    return None


@applies(D.APW_GRAPH_API)
def _uses_api(change: StatementChange, part: Part) -> bool:
    """Decision APW-graph-api: the fix uses the graph API where the buggy program did not: the
    fixed statement calls the API function of the part more often than the buggy one (a call put
    in, or one function replaced by another). A fix that only takes the machinery away (a session,
    a loaded graph, a summary no longer run) is what a benchmark does to make a program run on its
    own as often as a fix: it stays an unexplained change, with its APW hint."""
    if change.fixed is None or not part.callee:
        return False
    if part.signature:
        return True  # the fixed program calls the function the way its signature wants
    call = re.compile(rf"\b{re.escape(part.callee)}\(")
    before = len(call.findall(change.buggy.text)) if change.buggy is not None else 0
    return len(call.findall(change.fixed.text)) > before


def best_code(
    change: StatementChange, graph: bool, context: Context | None = None
) -> tuple[str, Rule] | None:
    """The row of :data:`RULES` of the first part of a change that touches one, or None; a row
    of the model, training or data before the API's (decision APW-graph-api), and that before a
    row with no kind (a hint only); a changed number assigned to a name by what reads the name
    (decision best-code-through-names)."""
    names = [rule_for(part, change, graph, context) for part in parts_of(change, context)]
    found = [n for n in names if n is not None]
    elements = [n for n in found if RULES[n].kind is not None and n != "graph api"]
    if not elements:
        followed = _through_readers(change, graph, context)
        if followed is not None:
            return followed[0], RULES[followed[0]]
    # a row of the model, training or data first, then the API's, then a hint only (a name scope)
    chosen = next(iter(elements), "graph api" if "graph api" in found else found[0] if found else None)
    return (chosen, RULES[chosen]) if chosen is not None else None


#: a fixed program adding more unexplained statements than this completes or rewrites the post
#: (as decision TWS-tensor-op reads a fixed program adding over four operations): its additions
#: are not fixes one by one, and get no best code
MAX_ADDED = 4


@applies(D.BEST_CODE_STATEMENT, D.ONE_INCONSISTENCY)
def best_code_components(
    changes: list[StatementChange], graph: bool, context: Context | None = None, *, alone: bool | None = None
) -> list[FaultComponent]:
    """One low-confidence component per group of unexplained changes that feed one another
    (decision one-inconsistency-one-component), coded by the first part of the group that touches
    an element of :data:`RULES` (decision best-code-statement). A group touching none, a group of
    removed statements only (the fixed program may have cut them, not fixed them), and one of
    added statements only where the fix adds more than :data:`MAX_ADDED` (a completion or a
    rewrite) are left unexplained, listed; :mod:`mutreal.label.classify` also leaves one whose code the passes
    already found in the pair (most likely the rest of that same fix, which the study counts once).
    ``alone``: True where no pass found a component in the pair, so a group of removed statements
    that is every change left is the fix itself (nothing else is there to be it), coded like any
    other but by an initialiser's run (a fixed program that initialises nothing may no longer need
    it); False where one did (a removed API's summary is then the reader's); None: not known."""
    out: list[FaultComponent] = []
    rewritten = sum(1 for c in changes if c.buggy is None) > MAX_ADDED
    sides = context.sides if context is not None else ((), ())
    # decisions rewritten-binding, split-twin: a one-sided statement read with its counterpart
    read = [G.rewritten_binding(c, sides) if graph else c for c in changes]
    twin = [G.split_twin(c, sides, changes) if graph else None for c in read]
    every_removal = bool(alone) and all(c.fixed is None for c in read)  # together, the fix
    for group in [list(range(len(changes)))] if every_removal and changes else _groups(read):
        removed_only = all(read[k].fixed is None for k in group)
        the_fix = bool(alone) and removed_only and len(group) == len(changes)
        # a removal another change carries (a loop's count made one, the training split's twin),
        # or that alone is how the API is used (decisions self-initialising-session, graph-built-in-loop)
        carried = {k for k in group if twin[k] is not None or (graph and G.unwrapped_loop(read[k], changes, sides[1]))}
        api_use = [
            k for k in group if the_fix and (G.initialiser_in_finalised_graph(read[k], sides[0]) or G.built_in_loop(read[k], sides[0]))
        ]
        if removed_only and not (the_fix or carried) and not G.removed_api_alone(changes, group, alone):
            continue  # only removed: what the fixed program no longer has may be a cut, not a fix
        if rewritten and all(read[k].buggy is None for k in group):
            continue  # only added, to a program the fix completes or rewrites
        chosen: tuple[int, str, Part] | None = (api_use[0], "graph api", Part()) if api_use else None
        api: tuple[int, str, Part] | None = None  # the API row, the last resort of a group
        weak: tuple[int, str, Part] | None = None  # a value's type: where no element is touched
        version: tuple[int, str, Part] | None = None  # the API's version: where no element is touched
        for i in group if chosen is None else ():
            seen = StatementChange(twin[i].buggy, read[i].fixed) if twin[i] is not None else read[i]
            views = [seen] if seen is changes[i] else [seen, changes[i]]  # the pair's parts, then its own
            for view, part in [(v, p) for v in views for p in parts_of(v, context)]:
                name = rule_for(part, view, graph, context)
                if name in ("deprecated api", "api version") and not G.removed_api_alone(changes, group, alone):
                    continue  # a summary's old spelling, kept for the reader beside other changes
                if (
                    removed_only
                    and i not in carried  # a carried removal is read like a change
                    and name != "deprecated api"
                    and not (the_fix and name != "model initialisation")
                ):
                    continue
                if name == "graph api":
                    if api is None and _uses_api(view, part):
                        api = (i, name, part)
                elif name == "input format":
                    weak = weak or (i, name, part)
                elif name in ("deprecated api", "api version"):
                    version = version or (i, name, part)
                elif name is not None and RULES[name].kind is not None:  # a name scope only annotates
                    chosen = (i, name, part)
                    break
            if chosen is None:
                followed = _through_readers(seen, graph, context)
                if followed is not None:
                    chosen = (i, *followed)
            if chosen is not None:
                break
        chosen = chosen or version or weak or api
        if chosen is None:
            continue
        i, name, part = chosen
        rule = RULES[name]
        assert rule.kind is not None
        first = read[i]
        b, f = first.buggy, first.fixed
        members = [changes[k] for k in group]
        component = make_component(
            f"statement[{(b or f).line}]",  # type: ignore[union-attr]
            rule.kind,
            first.change,
            b.source if b else None,
            f.source if f else None,
            (b.file, b.line) if b else (None, None),
            (f.file, f.line) if f else (None, None),
            best_code=f"best code from what the changed statement touches: {rule.why}",
            statements=len(members) if len(members) > 1 else None,
            buggy_lines=[m.buggy.line for m in members if m.buggy is not None] or None,
            fixed_lines=[m.fixed.line for m in members if m.fixed is not None] or None,
            before_number=part.before,
            after_number=part.after,
        )
        component.evidence["best_code"] = rule.why
        out.append(component)
    return out
