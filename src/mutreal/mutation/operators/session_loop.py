"""TensorFlow 1 graph code's training loop: the numbers and arrays a ``session.run`` loop reads.

Why a module: graph code has no ``fit(epochs=, batch_size=)`` to edit; its epochs are the bound of
the outermost loop around the training run, its batch size the slice the loop body feeds, and its
training arrays the ones it feeds slices of. HNE, HBS and HDB edit the number there (a literal, or
the one ``name = <number>`` the loop names), the training-data operators rebind the fed arrays before
the loop (:mod:`.data_flow` asks :func:`session_finding`).
"""

from __future__ import annotations

import libcst as cst

from mutreal.mutation.operators.base import Program
from mutreal.mutation.operators.common import code_of, is_number
from mutreal.mutation.operators.data_flow import Arrays, Finding
from mutreal.mutation.operators.node_index import last_name

#: the training call of TensorFlow 1 graph code: ``session.run(train_op, feed_dict=...)`` in loops
SESSION_RUN = "session.run"


def _single_number_binding(program: Program, name: str) -> cst.CSTNode | None:
    """The number node of the one assignment ``name = <number>`` of the module, when nothing else
    binds ``name`` (so the edit changes exactly the value the loop reads)."""
    found: list[cst.CSTNode] = []
    others = 0
    for node in program.index.nodes.values():
        if isinstance(node, cst.Assign):
            for t in node.targets:
                if isinstance(t.target, cst.Name) and t.target.value == name:
                    if len(node.targets) == 1 and isinstance(node.value, cst.Integer | cst.Float):
                        found.append(node.value)
                    else:
                        others += 1
                elif name in {n.value for n in _names_in(t.target)}:
                    others += 1
        elif isinstance(node, cst.AugAssign | cst.AnnAssign) and isinstance(node.target, cst.Name):
            if node.target.value == name:
                others += 1
        elif isinstance(node, cst.For) and name in {n.value for n in _names_in(node.target)}:
            others += 1
    return found[0] if len(found) == 1 and not others else None


def _names_in(node: cst.CSTNode) -> list[cst.Name]:
    if isinstance(node, cst.Name):
        return [node]
    if isinstance(node, cst.Tuple | cst.List):
        return [n for el in node.elements for n in _names_in(el.value)]
    return []


def loop_value_node(program: Program, fi: int, key: str) -> cst.CSTNode | None:
    """The number node a graph program's training loop reads its ``key`` from (``epochs``: the
    outermost loop's ``range`` bound; ``batch_size``: the batch the loop body slices or asks
    ``next_batch`` for): a literal written there, or the one ``name = <number>`` assignment of the
    name written there. None when it is not found or not one number."""
    fit = program.model.fits[fi]
    v = fit.args.get(key)
    if not is_number(v) or not v.text:
        return None
    text = v.text.strip()
    if text.isidentifier():
        return _single_number_binding(program, text)
    cid = program.find_call(fit.line, None, "run")
    if cid is None:
        return None
    loops = [a for a in program.index.ancestors(cid) if isinstance(program.node(a), cst.For)]
    if key == "epochs" and loops:
        it = program.node(loops[-1]).iter  # type: ignore[attr-defined]
        if isinstance(it, cst.Call) and it.args and code_of(program, it.args[-1].value) == text:
            return it.args[-1].value
    if key == "batch_size" and loops:
        for nid, node in program.index.nodes.items():
            if (
                isinstance(node, cst.Call)
                and last_name(node.func) == "next_batch"
                and node.args
                and code_of(program, node.args[0].value) == text
                and loops[0] in program.index.ancestors(nid)
            ):
                return node.args[0].value
    return None



def fed_array(text: str | None) -> str | None:
    """The array a fed value is a slice of (``x_train[i:i + n]``, ``x_train[idx]``) or is."""
    if not text:
        return None
    try:
        node = cst.parse_expression(text)
    except cst.ParserSyntaxError:
        return None
    if isinstance(node, cst.Subscript):
        node = node.value
    return node.value if isinstance(node, cst.Name) else None


def _target_names(target: cst.BaseExpression) -> set[str]:
    if isinstance(target, cst.Name):
        return {target.value}
    if isinstance(target, cst.Tuple | cst.List):
        return {n for el in target.elements for n in _target_names(el.value)}
    if isinstance(target, cst.StarredElement):
        return _target_names(target.value)
    return set()


def assigned_in(node: cst.CSTNode, names: set[str]) -> bool:
    """Whether a statement binds any of ``names`` (assignment or loop target) inside it."""
    bound: set[str] = set()

    class _Targets(cst.CSTVisitor):
        def visit_Assign(self, n: cst.Assign) -> None:
            for t in n.targets:
                bound.update(_target_names(t.target))

        def visit_AugAssign(self, n: cst.AugAssign) -> None:
            bound.update(_target_names(n.target))

        def visit_AnnAssign(self, n: cst.AnnAssign) -> None:
            bound.update(_target_names(n.target))

        def visit_For(self, n: cst.For) -> None:
            bound.update(_target_names(n.target))

    node.visit(_Targets())
    return bool(bound & names)



def session_finding(program: Program, fi: int) -> Finding:
    """TensorFlow 1 graph code: the arrays a session loop feeds slices of
    (``feed_dict={x: x_train[i:i + n], y: y_train[i:i + n]}``), rebound before the outermost
    loop around the training run, where they are still whole arrays."""
    fit = program.model.fits[fi]
    cid = program.find_call(fit.line, None, "run")
    if cid is None:
        return Finding(fi, reason="the session.run call is not found in the source")
    loops = [a for a in program.index.ancestors(cid) if isinstance(program.index.nodes.get(a), cst.For | cst.While)]
    if not loops:
        return Finding(fi, reason="the training run is not in a loop over its data")
    outer = loops[-1]
    names = []
    for role in ("x", "y"):
        v = fit.args.get(role)
        root = fed_array(v.text if v is not None else None)
        if root is None:
            return Finding(fi, reason=f"the fed {'inputs' if role == 'x' else 'labels'} are not slices of a named array")
        names.append(root)
    if assigned_in(program.index.nodes[outer], set(names)):
        return Finding(fi, reason="the fed arrays are rebound inside the training loop (batches, not the training set)")
    if program.index.statement_of(outer) is None:
        return Finding(fi, reason="the training loop is not a statement")
    return Finding(fi, Arrays(outer, [names[0]], [names[1]], names[0], names[1], "session loop"))


def _placeholder_rows(program: Program, name: str) -> str | None:
    """The first dimension of the placeholder ``name`` is bound to (``name = tf.placeholder(dtype,
    [2, T])``), as written, when it is a fixed number (a literal, or a name bound to one number);
    None when it is ``None``/``-1`` (any number of rows), not written, or not found."""
    for node in program.index.nodes.values():
        if not (isinstance(node, cst.Assign) and len(node.targets) == 1 and isinstance(node.targets[0].target, cst.Name)):
            continue
        if node.targets[0].target.value != name or not isinstance(node.value, cst.Call):
            continue
        if last_name(node.value.func) != "placeholder":
            return None
        args = node.value.args
        shape = next((a.value for a in args if a.keyword is not None and a.keyword.value == "shape"), None)
        if shape is None:
            positional = [a for a in args if a.keyword is None]
            shape = positional[1].value if len(positional) > 1 else None
        if not isinstance(shape, cst.List | cst.Tuple) or not shape.elements:
            return None
        first = shape.elements[0].value
        if isinstance(first, cst.Integer):
            return code_of(program, shape)
        if isinstance(first, cst.Name) and first.value != "None" and _single_number_binding(program, first.value):
            return code_of(program, shape)
        return None
    return None


def fixed_rows_reason(program: Program, fi: int) -> str:
    """Why rows cannot be removed from or added to the arrays a graph program's training run feeds
    (``''`` when they can): a whole array (not a slice of it) fed to a placeholder whose first
    dimension is a fixed number. Such a graph takes exactly that many rows (or its samples are
    columns, ``X = tf.placeholder(tf.float32, [2, T])`` with ``tf.matmul(W, X)``): a training set of
    another length cannot be fed, so TRD, TUD and TCO, which change the number of rows, have no
    site there (a mutant would die on its first feed, measuring nothing of the fault)."""
    fit = program.model.fits[fi]
    cid = program.find_call(fit.line, None, "run")
    call = program.index.nodes.get(cid) if cid is not None else None
    if not isinstance(call, cst.Call):
        return ""
    feed = next((a.value for a in call.args if a.keyword is not None and a.keyword.value == "feed_dict"), None)
    if feed is None and len(call.args) > 1 and call.args[1].keyword is None:
        feed = call.args[1].value
    if not isinstance(feed, cst.Dict):
        return ""
    for element in feed.elements:
        if not isinstance(element, cst.DictElement) or not isinstance(element.key, cst.Name):
            continue
        if not isinstance(element.value, cst.Name):  # a slice or batch: rows of any number are fed in turn
            continue
        shape = _placeholder_rows(program, element.key.value)
        if shape is not None:
            return (
                f"the whole array {element.value.value} is fed to the placeholder {element.key.value} of fixed "
                f"shape {shape}: a training set with other rows cannot be fed (its graph takes exactly those rows, "
                "or its samples are columns)"
            )
    return ""

