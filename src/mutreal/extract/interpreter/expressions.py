"""Expressions: names, attributes, literals, operators, subscripts, sequences and comprehensions.

Constants fold (:mod:`mutreal.extract.constants`); operations on arrays the walker follows become
steps of their data chain; anything else is opaque (with its source text) or :class:`Unknown`.
"""

from __future__ import annotations

from typing import Any

import libcst as cst

from mutreal.extract import constants, data, names
from mutreal.extract.interpreter.core import _MAX_UNROLL, InterpreterCore
from mutreal.extract.interpreter.values import (
    ArgsNamespace,
    BoundMethod,
    CallbackObj,
    Env,
    Instance,
    LayerObj,
    ModelObj,
    Tensor,
    Unknown,
    is_text,
    origins_before,
)
from mutreal.extract.tf_graph_data import TutorialData
from mutreal.program.model import (
    CALL,
    CONST,
    NAME,
    OPAQUE,
    REF,
    SEQ,
    DataSource,
    Value,
)

_COMPARE = {
    cst.Equal: lambda a, b: a == b,
    cst.NotEqual: lambda a, b: a != b,
    cst.LessThan: lambda a, b: a < b,
    cst.LessThanEqual: lambda a, b: a <= b,
    cst.GreaterThan: lambda a, b: a > b,
    cst.GreaterThanEqual: lambda a, b: a >= b,
    cst.Is: lambda a, b: a is b,
    cst.IsNot: lambda a, b: a is not b,
    cst.In: lambda a, b: a in b,
    cst.NotIn: lambda a, b: a not in b,
}


#: literal node types :func:`~mutreal.extract.constants.literal` folds
_LITERALS = frozenset({cst.Integer, cst.Float, cst.SimpleString, cst.ConcatenatedString, cst.FormattedString})


#: expression types evaluated by a method of their own, by exact type (one dict lookup instead of a
#: chain of type tests; LibCST's node classes are final)
_EVALUATORS: dict[type, str] = {
    cst.Name: "ev_name",
    cst.Call: "ev_call",
    cst.Attribute: "ev_attribute",
    cst.Tuple: "ev_sequence",
    cst.List: "ev_sequence",
    cst.Subscript: "ev_subscript",
    cst.Dict: "ev_dict",
    cst.Comparison: "ev_comparison",
    cst.BooleanOperation: "ev_boolean",
    cst.ListComp: "ev_comprehension",
    cst.GeneratorExp: "ev_comprehension",
    cst.SetComp: "ev_comprehension",
}


#: arithmetic that scales or shifts data by a number (``x / 255.0``, ``x - mean``)
_SCALING = frozenset({"Divide", "FloorDivide", "Multiply", "Subtract", "Add"})


class ExpressionEvaluator(InterpreterCore):
    """Evaluates LibCST expressions to abstract values."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        #: the lines the bounds of the last ``range(...)`` folded were written on
        self.range_origins: tuple[int, ...] = ()
        #: expression type -> this walker's method for it (see :data:`_EVALUATORS`)
        self._evaluators: dict[type, Any] = {t: getattr(self, name) for t, name in _EVALUATORS.items()}

    def ev(self, node: cst.BaseExpression, env: Env) -> Any:
        """The abstract value of an expression: a method per node type (:data:`_EVALUATORS`),
        literals and operators folded here."""
        evaluate = self._evaluators.get(type(node))
        if evaluate is not None:
            return evaluate(node, env)
        if type(node) in _LITERALS:
            v = constants.literal(node)
            if v is constants.NOT_CONST:
                return self.lazy(OPAQUE, None, node, self.cur_line)
            return self.lazy(CONST, v, node, self.cur_line)
        if type(node) is cst.UnaryOperation:
            inner = self.ev(node.expression, env)
            if isinstance(inner, Value) and inner.kind == CONST:
                v = constants.fold_unary(node.operator, inner.value)
                if v is not constants.NOT_CONST:
                    return self.lazy(CONST, v, node, self.cur_line, origins=origins_before(self.cur_line, inner))
            return self.lazy(OPAQUE, None, node, self.cur_line)
        if type(node) is cst.BinaryOperation:
            left = self.ev(node.left, env)
            right = self.ev(node.right, env)
            return self.binary(type(node.operator).__name__, left, right, node.right, node, env)
        if type(node) is cst.Lambda:
            return self.lazy(OPAQUE, None, node, self.cur_line)
        if type(node) is cst.IfExp:
            self.ev(node.body, env)
            return self.lazy(OPAQUE, None, node, self.cur_line)
        if type(node) is cst.NamedExpr:
            value = self.ev(node.value, env)
            self.bind(node.target, value, env)
            return value
        if type(node) is cst.Await:
            return self.ev(node.expression, env)
        return Unknown(node, self.cur_line)

    def ev_boolean(self, node: cst.BooleanOperation, env: Env) -> Any:
        """``a and b`` / ``a or b`` of two constants folds (both sides are evaluated, as written)."""
        left = self.ev(node.left, env)
        right = self.ev(node.right, env)
        if (
            isinstance(left, Value)
            and left.kind == CONST
            and isinstance(right, Value)
            and right.kind == CONST
        ):
            is_and = type(node.operator) is cst.And
            value = (left.value and right.value) if is_and else (left.value or right.value)
            return self.lazy(CONST, value, node, self.cur_line)
        return Unknown(node, self.cur_line)

    def ev_comprehension(self, node: cst.ListComp | cst.GeneratorExp | cst.SetComp, env: Env) -> Any:
        """``[Dense(u) for u in (64, 32)]`` with known items: the list of built objects; over data: a step."""
        comp = node.for_in
        if comp.inner_for_in is None and not comp.ifs and type(node) is cst.ListComp:
            items, objects = self._literal_iterations(comp.iter, env)
            if items is not None and len(items) <= _MAX_UNROLL:
                local = Env(env)
                out = []
                for item in items:
                    self.bind(comp.target, item if objects else Value.const(item), local)
                    out.append(self.ev(node.elt, local))
                if all(isinstance(o, Value) and o.kind == CONST for o in out):
                    return self.lazy(CONST, [o.value for o in out], node, self.cur_line)
                return out
        source = self.ev(comp.iter, env)
        if isinstance(source, data.DataChain):
            return source.derive(self._op("map", None, {}, node))
        return Unknown(node, self.cur_line)

    def ev_comparison(self, node: cst.Comparison, env: Env) -> Any:
        left = self.ev(node.left, env)
        result = True
        for target in node.comparisons:
            right = self.ev(target.comparator, env)
            fn = _COMPARE.get(type(target.operator))
            if (
                fn is None
                or not (isinstance(left, Value) and left.kind == CONST)
                or not (isinstance(right, Value) and right.kind == CONST)
            ):
                return Unknown(node, self.cur_line)
            try:
                ok = fn(left.value, right.value)
            except TypeError:
                return Unknown(node, self.cur_line)
            result = result and bool(ok)
            left = right
        return self.lazy(CONST, result, node, self.cur_line)

    def ev_name(self, node: cst.Name, env: Env) -> Any:
        name = node.value
        value = env.get(name)
        if value is not None:
            if isinstance(value, Value):
                return Value(
                    value.kind,
                    value.value,
                    value.args,
                    value.kwargs,
                    text=name,
                    line=self.cur_line,
                    origins=origins_before(self.cur_line, value),
                )
            return value
        if name in ("True", "False", "None"):
            return Value(
                CONST,
                {"True": True, "False": False, "None": None}[name],
                text=name,
                line=self.cur_line,
            )
        qn = self.imports.resolve_name(name)
        if qn != name or self.imports.is_bound(name):
            return Value(REF, qn, text=name, line=self.cur_line)
        return Value(NAME, name, text=name, line=self.cur_line)

    def ev_attribute(self, node: cst.Attribute, env: Env) -> Any:
        key = names.dotted(node)
        if key is not None:
            value = env.get(key)
            if value is not None:
                return value
            head = key.partition(".")[0]
            if env.get(head) is None:
                qn = self.imports.resolve_name(key)
                if qn != key or self.imports.is_bound(head) or head in names.CONVENTIONAL_ALIASES:
                    return Value(REF, qn, text=key, line=self.cur_line)
        base = self.ev(node.value, env)
        attr = node.attr.value
        if isinstance(base, ArgsNamespace):
            return base.values.get(attr, Unknown(node, self.cur_line))
        if isinstance(base, TutorialData):
            # ``mnist.train`` / ``mnist.train.images``: the tutorial loader's splits and arrays
            found = base.attribute(attr)
            return found if found is not None else Unknown(node, self.cur_line)
        if isinstance(base, Instance):
            if attr in base.attrs:
                return base.attrs[attr]
            method = base.cls.methods.get(attr)
            if method is not None:
                return BoundMethod(method, base)
            return Unknown(node, self.cur_line)
        if isinstance(base, data.DataChain):
            if attr in ("values", "iloc", "loc", "ix", "at", "iat", "str"):
                return base
            if attr == "T":
                return base.derive(self._op("transpose", None, {}, node))
            if attr == "shape":
                shape = base.shape()
                if shape is not None:
                    return self.lazy(CONST, shape, node, self.cur_line)
            if attr in data.STAT_METHODS or attr in (
                "shape",
                "dtype",
                "columns",
                "index",
                "size",
                "ndim",
            ):
                return self.lazy(OPAQUE, None, node, self.cur_line)
            # df.column -> a column of the frame
            return base.derive(self._op("slice", None, {"index": Value.const(attr)}, node))
        if isinstance(base, data.Bunch):
            chain = base.attr(attr)
            if chain is not None:
                return chain
        if isinstance(base, ModelObj) and attr == "layers":
            return [LayerObj(layer, applied=True) for layer in base.model.layers]
        if isinstance(base, ModelObj) and attr in (
            "output",
            "outputs",
            "input",
            "inputs",
        ):
            return Tensor(self._model_as_layer(base, node), [], self.next_seq())
        if isinstance(base, LayerObj) and attr in ("output", "input"):
            return Tensor(base.layer, [], self.next_seq())
        if isinstance(base, Value) and base.kind == REF:
            return self.lazy(REF, f"{base.value}.{attr}", node, self.cur_line)
        return Unknown(node, self.cur_line)

    def ev_sequence(self, node: cst.Tuple | cst.List, env: Env) -> Any:
        items = []
        for el in node.elements:
            if type(el) is cst.StarredElement:
                items.append(Unknown(el, self.cur_line))
            else:
                items.append(self.ev(el.value, env))
        if (
            type(node) is cst.List
            and len(items) > 2
            and all(isinstance(i, data.DataChain) and not i.ops and i.source is not None for i in items)
        ):
            # a list of arrays written out (one per batch, say): one array with a leading dimension
            first = items[0]
            src = first.source
            if src is not None and src.kind in ("literal", "random", "generated"):
                shape = [len(items), *src.shape] if src.shape else [len(items)]
                merged = DataSource(
                    src.kind,
                    name=src.name,
                    shape=shape,
                    size=len(items),
                    text=self.text(node),
                    file=self.path,
                    line=src.line,
                )
                return data.DataChain(merged, [])
        if all(isinstance(i, Value) for i in items):
            origins = origins_before(self.cur_line, *items)
            if all(i.kind == CONST for i in items):
                return self.lazy(CONST, [i.value for i in items], node, self.cur_line, origins=origins)
            return self.lazy(SEQ, None, node, self.cur_line, args=items, origins=origins)
        return tuple(items) if type(node) is cst.Tuple else list(items)

    def ev_dict(self, node: cst.Dict, env: Env) -> Any:
        pairs = []
        for el in node.elements:
            if type(el) is not cst.DictElement:
                return self.lazy(OPAQUE, None, node, self.cur_line)
            k, v = self.ev(el.key, env), self.ev(el.value, env)
            if not (isinstance(k, Value) and k.kind == CONST and isinstance(v, Value) and v.kind == CONST):
                return self.lazy(OPAQUE, None, node, self.cur_line)
            pairs.append([k.value, v.value])
        return self.lazy(CONST, pairs, node, self.cur_line)

    def _slice_bounds(self, idx: cst.Slice, env: Env) -> list[int | None] | None:
        """A slice's (lower, upper, step) when each is a literal int or absent, else None."""
        bounds = []
        for part in (idx.lower, idx.upper, idx.step):
            v = self.ev(part, env) if part is not None else Value.const(None)
            bounds.append(v.value if isinstance(v, Value) and v.kind == CONST else constants.NOT_CONST)
        if all(b is None or isinstance(b, int) for b in bounds):
            return bounds
        return None

    def ev_subscript(self, node: cst.Subscript, env: Env) -> Any:
        base = self.ev(node.value, env)
        if isinstance(base, tuple | list) and not isinstance(base, Value) and len(node.slice) == 1:
            idx = node.slice[0].slice
            if type(idx) is cst.Slice:
                bounds = self._slice_bounds(idx, env)
                if bounds is not None:
                    try:
                        return list(base)[slice(*bounds)]
                    except ValueError:
                        return Unknown(node, self.cur_line)
            if type(idx) is cst.Index:
                i = self.ev(idx.value, env)
                if isinstance(i, Value) and i.kind == CONST and isinstance(i.value, int):
                    try:
                        return base[i.value]
                    except IndexError:
                        return Unknown(node, self.cur_line)
        if (
            isinstance(base, data.DataChain)
            and not base.ops
            and base.source is not None
            and base.source.name == "numpy.eye"
            and len(node.slice) == 1
            and type(node.slice[0].slice) is cst.Index
        ):
            # np.eye(n)[y]: the one-hot encoding idiom, a step applied to y
            index_node = node.slice[0].slice.value
            labels = self.as_chain(self.ev(index_node, env), index_node)
            if isinstance(labels, data.DataChain):
                depth = Value.const(base.source.shape[0]) if base.source.shape else Value.opaque("?")
                return labels.derive(self._op("one_hot", "eye", {"depth": depth}, node))
        if isinstance(base, data.DataChain):
            index_text = self.text(node)[len(self.text(node.value)) :]
            return base.derive(self._op("slice", None, {"index": Value(OPAQUE, None, text=index_text)}, node))
        if (
            isinstance(base, Value)
            and base.kind == CONST
            and isinstance(base.value, list)
            and len(node.slice) == 1
        ):
            idx = node.slice[0].slice
            if type(idx) is cst.Slice:
                bounds = self._slice_bounds(idx, env)
                if bounds is not None:
                    try:
                        return Value(
                            CONST,
                            base.value[slice(*bounds)],
                            text=self.text(node),
                            line=self.cur_line,
                        )
                    except ValueError:
                        pass
            if type(idx) is cst.Index:
                i = self.ev(idx.value, env)
                if isinstance(i, Value) and i.kind == CONST and isinstance(i.value, int):
                    try:
                        return self.lazy(CONST, base.value[i.value], node, self.cur_line)
                    except IndexError:
                        pass
        if isinstance(base, ModelObj):
            return Unknown(node, self.cur_line)
        return self.lazy(OPAQUE, None, node, self.cur_line)

    @staticmethod
    def _scales_unfollowed_data(op_name: str, left: Any, right: Any, node: cst.CSTNode) -> bool:
        """``x / 255.0`` where ``x`` is a name holding what the walker could not follow (the
        result of a loader it does not know): arithmetic with a number on such a name is a step on
        data, kept like the steps of any array, so a fix that adds it is not missed (CPP). A name
        folded to a constant or bound to anything the walker knows is not touched."""
        return (
            op_name in _SCALING
            and type(getattr(node, "left", None)) is cst.Name
            and (isinstance(left, Unknown) or (isinstance(left, Value) and left.kind in (CALL, OPAQUE)))
            and isinstance(right, Value)
            and right.kind == CONST
            and isinstance(right.value, int | float)
            and not isinstance(right.value, bool)
        )

    def _unfollowed_chain(self, left: Unknown | Value, node: cst.BinaryOperation) -> data.DataChain:
        """An opaque chain for the name on the left of ``node`` (see :meth:`_scales_unfollowed_data`)."""
        owner = node.left
        assert type(owner) is cst.Name
        text = left.text if isinstance(left, Value) and left.text else self.text(owner)
        src = DataSource("opaque", text=text, file=self.path, line=self.cur_line)
        return data.DataChain(src, [], var=owner.value)

    def binary(
        self,
        op_name: str,
        left: Any,
        right: Any,
        right_node: cst.CSTNode,
        node: cst.CSTNode,
        env: Env,
    ) -> Any:
        if self._scales_unfollowed_data(op_name, left, right, node):
            return self._unfollowed_chain(left, node).derive(  # type: ignore[arg-type]
                self._op(
                    data.BINARY_OPS.get(op_name, "call"),
                    None,
                    {"operand": self.to_value(right, right_node)},
                    node,
                )
            )
        if isinstance(left, Value) and isinstance(right, Value):
            if left.kind == CONST and right.kind == CONST:
                op = getattr(cst, op_name, None)
                if op is not None:
                    v = constants.fold_binary(op(), left.value, right.value)
                    if v is not constants.NOT_CONST:
                        return self.lazy(CONST, v, node, self.cur_line, origins=origins_before(self.cur_line, left, right))
            return self.lazy(OPAQUE, None, node, self.cur_line)
        canonical = data.BINARY_OPS.get(op_name, "call")
        if is_text(left) or is_text(right):
            return Unknown(node, self.cur_line)  # "dir/" + name[i]: a path or label text, not arithmetic
        if isinstance(left, data.DataChain):
            operand = self.to_value(right, right_node)
            return left.derive(self._op(canonical, None, {"operand": operand}, node))
        if isinstance(right, data.DataChain):
            left_node = getattr(node, "left", None) or getattr(node, "target", None)
            operand = self.to_value(left, left_node) if left_node is not None else Value.opaque("?")
            return right.derive(
                self._op(
                    canonical,
                    None,
                    {"operand": operand, "reflected": Value.const(True)},
                    node,
                )
            )
        return Unknown(node, self.cur_line)

    def _literal_iterations(self, node: cst.BaseExpression, env: Env) -> tuple[list | None, bool]:
        """The items a loop runs over when known, and whether they are objects (layers, ...) not constants."""
        iterations = self._literal_range(node, env)
        if isinstance(iterations, list) and iterations and not isinstance(iterations[0], int | float | str):
            return iterations, True
        return iterations, False

    def _literal_range(self, node: cst.BaseExpression, env: Env) -> list | None:
        """The items of ``range(...)`` with folded bounds (or of a constant list); the lines the
        bounds were written on are kept in ``range_origins`` (a training loop's count)."""
        self.range_origins = ()
        if type(node) is cst.Call and type(node.func) is cst.Name and node.func.value == "range":
            vals = [self.ev(a.value, env) for a in node.args]
            self.range_origins = origins_before(None, *vals)
            if (
                all(isinstance(v, Value) and v.kind == CONST and isinstance(v.value, int) for v in vals)
                and vals
            ):
                bounds = [v.value for v in vals]
                try:
                    r = range(*bounds)
                except (TypeError, ValueError):
                    return None
                if len(r) <= 10_000:
                    return list(r)
            return None
        v = self.ev(node, env)
        if isinstance(v, Value) and v.kind == CONST and isinstance(v.value, list):
            return list(v.value)
        if isinstance(v, list | tuple) and all(
            isinstance(i, LayerObj | ModelObj | Tensor | CallbackObj | data.DataChain) for i in v
        ):
            return list(v)
        return None
