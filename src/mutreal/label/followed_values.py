"""Values followed through names and function arguments, for the best code of a change
(decision best-code-through-names): the numbers each side binds once, a loop's count with them,
the functions whose argument becomes a variable's shape, whether a loop's body trains.

Why: a fix often changes a value where it is written (``num_steps = 1000``, a flag's default, a
helper's argument), not where it is used; :mod:`mutreal.label.best_code` reads these to code the
change by its use."""

from __future__ import annotations

import ast
import copy
import re
from dataclasses import dataclass

from mutreal.compare.statements import Statement


def call_name(node: ast.AST) -> str:
    """The name a call, an attribute, a name or a subscript goes by (``tf.nn.relu(x)``: ``relu``)."""
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        return node.attr
    if isinstance(node, ast.Call):
        return call_name(node.func)
    if isinstance(node, ast.Subscript):
        return call_name(node.value)
    return ""


def number(node: ast.AST) -> float | None:
    """The number a constant (or its negation) is, or None."""
    if (
        isinstance(node, ast.Constant)
        and isinstance(node.value, (int, float))
        and not isinstance(node.value, bool)
    ):
        return float(node.value)
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
        n = number(node.operand)
        return -n if n is not None else None
    return None


#: functions drawing a variable's initial value: their first argument (or ``shape=``) is its shape
INITIAL_VALUE = re.compile(
    r"^(normal|random_normal|truncated_normal|uniform|random_uniform|zeros|ones|glorot_uniform|"
    r"glorot_normal)$"
)
@dataclass(frozen=True)
class Context:
    """What the table reads of the two programs beyond the changed statement (decision
    best-code-through-names): values followed through names and function arguments."""

    #: functions the programs define whose argument at this position becomes a variable's shape
    #: (``def weight_variable(shape): return tf.Variable(tf.truncated_normal(shape))``)
    shape_helpers: tuple[tuple[str, int], ...] = ()
    #: each side's names bound once, to a number (``num_steps = 1000``)
    constants: tuple[dict[str, float], dict[str, float]] = ({}, {})
    #: each side's statements (a name's readers)
    sides: tuple[tuple[Statement, ...], tuple[Statement, ...]] = ((), ())


def shape_helpers(statements: list[Statement]) -> tuple[tuple[str, int], ...]:
    """The functions of a program whose argument (by position) is the shape of a variable's
    initial value in their body: ``def weight_variable(shape): initial =
    tf.truncated_normal(shape, stddev=0.1); return tf.Variable(initial)``."""
    out: list[tuple[str, int]] = []
    for st in statements:
        node = st.node
        if not isinstance(node, ast.FunctionDef):
            continue
        params = [a.arg for a in node.args.args]
        if params and params[0] == "self":
            params = params[1:]
        body = [o for o in statements if st.line < o.line <= st.end and o.node is not None]
        for other in body:
            for call in (n for n in ast.walk(other.node) if isinstance(n, ast.Call)):  # type: ignore[arg-type]
                if not INITIAL_VALUE.match(call_name(call.func)) or "np." in other.source:
                    continue
                shape = call.args[0] if call.args else next(
                    (k.value for k in call.keywords if k.arg == "shape"), None
                )
                if isinstance(shape, ast.Name) and shape.id in params:
                    out.append((node.name, params.index(shape.id)))
    return tuple(dict.fromkeys(out))


def constants(statements: list[Statement]) -> dict[str, float]:
    """The names a side binds once, and only to a number (``num_steps = 1000``)."""
    values: dict[str, float | None] = {}
    for st in statements:
        node = st.node
        for name in st.binds:
            value = None
            if (
                isinstance(node, ast.Assign)
                and len(node.targets) == 1
                and isinstance(node.targets[0], ast.Name)
                and node.targets[0].id == name
            ):
                value = evaluate(node.value, {})
            values[name] = value if name not in values else None
    return {k: v for k, v in values.items() if v is not None}


def evaluate(node: ast.AST, names: dict[str, float]) -> float | None:
    """A number written with numbers, names bound to numbers and + - * // (None otherwise)."""
    value = number(node)
    if value is not None:
        return value
    if isinstance(node, ast.Name):
        return names.get(node.id)
    if isinstance(node, ast.BinOp) and isinstance(node.op, (ast.Add, ast.Sub, ast.Mult, ast.FloorDiv)):
        left, right = evaluate(node.left, names), evaluate(node.right, names)
        if left is None or right is None or (isinstance(node.op, ast.FloorDiv) and right == 0):
            return None
        ops = {ast.Add: left + right, ast.Sub: left - right, ast.Mult: left * right}
        return ops[type(node.op)] if type(node.op) in ops else left // right
    return None


def loop_count(node: ast.stmt | None, names: dict[str, float]) -> float | None:
    """The number of turns of ``for ... in range(...)`` with the side's constants, or None."""
    if not (isinstance(node, ast.For) and isinstance(node.iter, ast.Call)):
        return None
    if call_name(node.iter.func) not in ("range", "xrange") or node.iter.keywords or not node.iter.args:
        return None
    bounds = [evaluate(a, names) for a in node.iter.args]
    if any(b is None or b != int(b) for b in bounds) or len(bounds) > 3 or bounds[-1:] == [0] and len(bounds) == 3:
        return None
    return float(len(range(*(int(b) for b in bounds))))  # type: ignore[arg-type]


_ONE_HOT = re.compile(r"\bone_hot\s*=\s*True\b")


def one_hot(statement: Statement | None) -> bool:
    """The statement loads data with its labels one-hot encoded (``read_data_sets(d, one_hot=True)``)."""
    return statement is not None and bool(_ONE_HOT.search(statement.text))


#: a statement that trains: a training op built or run, a fit
_TRAINING = re.compile(r"\b(minimize|apply_gradients|fit|train_on_batch|fit_generator)\(")


def trains_within(header: Statement, side: tuple[Statement, ...]) -> bool:
    """A statement of the header's body trains: it runs a training operation of its side (a
    name bound by ``minimize(...)``), or a name holding ``train``, or fits a model."""
    train_ops = {b for st in side if re.search(r"minimize\(|apply_gradients\(", st.text) for b in st.binds}
    for st in side:
        if not header.line < st.line <= header.end:
            continue
        roots = {r.split(".")[0] for r in st.reads}
        if _TRAINING.search(st.text) or (
            re.search(r"\brun\(", st.text) and (roots & train_ops or any("train" in r.lower() for r in roots))
        ):
            return True
    return False


class Substitute(ast.NodeTransformer):
    def __init__(self, name: str, value: float) -> None:
        self.name, self.value = name, value

    def visit_Name(self, node: ast.Name) -> ast.AST:
        if node.id == self.name and isinstance(node.ctx, ast.Load):
            return ast.Constant(int(self.value) if self.value == int(self.value) else self.value)
        return node


def clone_tree(node: ast.AST) -> ast.AST:
    return copy.deepcopy(node)
