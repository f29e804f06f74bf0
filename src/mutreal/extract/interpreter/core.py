"""State and helpers every part of the interpreter shares, and the hooks to the Keras semantics.

:class:`InterpreterCore` holds the walk's state (import table, program model under construction,
era, steps, current line), renders source text cheaply, turns abstract values into model
:class:`~mutreal.program.model.Value` s, evaluates call arguments and binds assignment targets
(expressions bind too: ``:=`` and comprehensions). The methods under "hooks" are what the
interpreter asks of the Keras semantics (:mod:`mutreal.extract.keras_layers`,
:mod:`~mutreal.extract.keras_training`, :mod:`~mutreal.extract.keras_data`); the
:class:`~mutreal.extract.walker.Walker` that combines them implements every one.
"""

from __future__ import annotations

import ast
from typing import Any, cast

import libcst as cst

from mutreal.extract import data, names
from mutreal.extract.interpreter.values import (
    CallbackObj,
    ClassObj,
    Env,
    FuncObj,
    Instance,
    LayerObj,
    LazyValue,
    ModelObj,
    NoLines,
    OptimizerObj,
    Tensor,
    Unknown,
    origins_before,
)
from mutreal.extract.lines import line_index
from mutreal.program import keras_api
from mutreal.program.model import (
    CALL,
    CONST,
    OPAQUE,
    REF,
    SEQ,
    DataOp,
    KerasModel,
    Layer,
    ProgramModel,
    Value,
)
from mutreal.program.source import python_tree

_MAX_UNROLL = 64

_MAX_INLINE_DEPTH = 4

_MAX_STEPS = 20000  # statements executed per file (loops and inlining included)

#: nodes whose ``value`` is their source text
_Atom = cst.Name | cst.Integer | cst.Float | cst.SimpleString | cst.Imaginary
#: node types whose ``value`` is their source text (a set of exact types: ``isinstance`` on LibCST's
#: ABC-based classes costs several times a set lookup, and this runs for every rendered node)
_ATOMS = frozenset({cst.Name, cst.Integer, cst.Float, cst.SimpleString, cst.Imaginary})

_UNARY = {cst.Minus: "-", cst.Plus: "+", cst.BitInvert: "~", cst.Not: "not "}

_BINARY = {
    cst.Add: "+",
    cst.Subtract: "-",
    cst.Multiply: "*",
    cst.Divide: "/",
    cst.FloorDivide: "//",
    cst.Modulo: "%",
    cst.Power: "**",
    cst.MatrixMultiply: "@",
}


class InterpreterCore:
    """Walk state, source text, values for the model and call arguments (see module docstring)."""

    def __init__(
        self, module: cst.Module, path: str = "<string>", era: str | None = None, source: str | None = None
    ) -> None:
        self.module = module
        self.path = path
        #: the text that was parsed into ``module`` (None: regenerated from the module when needed)
        self.source = source
        #: Python's ``ast`` of the text (the syntax check's tree when there was one), None if not Python 3
        self.tree: ast.Module | None = None
        try:
            text = source if source is not None else module.code
            self.tree = python_tree(module, text)
            self.lines: Any = line_index(module, text, self.tree)
        except RecursionError:  # a tree too deep to regenerate: no line numbers, still a model
            self.lines = NoLines()
        self.imports = names.ImportTable()
        self.program = ProgramModel(path=path)
        self.keras_seen = False
        self.forced_era = era
        self.era = era or keras_api.DEFAULT_ERA
        self.seq = 0
        self.steps = 0
        self.depth = 0
        self.origin = ""
        self.cur_line: int | None = None
        self.functions: list[FuncObj] = []
        self.classes: list[ClassObj] = []
        self.data_fit_done = False
        self._text_cache: dict[int, str] = {}
        self.created_layers: list[Layer] = []
        self.keras_defined = False
        #: model index -> the learning rate a statement after compile set on its optimizer
        self.lr_settings: dict[int, Value] = {}

    def text(self, node: cst.CSTNode) -> str:
        """Source text of ``node``, stripped and cut at 400 characters (cached per node)."""
        key = id(node)
        t = self._text_cache.get(key)
        if t is None:
            try:
                if type(node) in _ATOMS and not cast(_Atom, node).lpar:
                    return cast(_Atom, node).value
                t = self._fast_text(node)
            except Exception:  # noqa: BLE001 - text is best effort
                t = "<?>"
            t = t.strip()
            if len(t) > 400:
                t = t[:397] + "..."
            self._text_cache[key] = t
        return t

    def _fast_text(self, node: cst.CSTNode) -> str:
        """Source text of an expression, rebuilt from its parts for common shapes (code generation
        of LibCST is slow); calls come from the line index, anything unusual from LibCST."""
        if type(node) in _ATOMS:
            out = cast(_Atom, node).value
        elif type(node) is cst.Attribute:
            out = f"{self._fast_text(node.value)}.{node.attr.value}"
        elif type(node) is cst.Call:
            t = self.lines.text(node)
            return t if t is not None else self.module.code_for_node(node)
        elif (type(node) is cst.Tuple or type(node) is cst.List) and all(
            type(e) is cst.Element for e in node.elements
        ):
            items = [self._fast_text(e.value) for e in node.elements if type(e) is cst.Element]
            if type(node) is cst.List:
                return "[" + ", ".join(items) + "]"
            body = ", ".join(items) + ("," if len(items) == 1 else "")
            return f"({body})" if node.lpar else body
        elif type(node) is cst.UnaryOperation and type(node.operator) in _UNARY:
            out = _UNARY[type(node.operator)] + self._fast_text(node.expression)
        elif type(node) is cst.BinaryOperation and type(node.operator) in _BINARY:
            op = _BINARY[type(node.operator)]
            out = f"{self._fast_text(node.left)} {op} {self._fast_text(node.right)}"
        else:
            return self.module.code_for_node(node)
        lpar = getattr(node, "lpar", ())
        return f"{'(' * len(lpar)}{out}{')' * len(lpar)}" if lpar else out

    def line(self, node: cst.CSTNode | None) -> int | None:
        return self.lines.line(node) or self.cur_line

    def lazy(
        self,
        kind: str,
        value: Any,
        node: cst.CSTNode,
        line: int | None,
        args: list | None = None,
        origins: tuple[int, ...] = (),
    ) -> Value:
        """A value whose source text is computed only if the model keeps it (most are dropped);
        ``origins``: the lines of the values it was folded from (:func:`origins_before`)."""
        return LazyValue(kind, value, self, node, line, args, origins)

    def next_seq(self) -> int:
        self.seq += 1
        return self.seq

    def to_value(self, obj: Any, node: cst.CSTNode | None) -> Value:
        """Turn an abstract value into a :class:`Value` (argument of a layer, compile, fit, op)."""
        text = self.text(node) if node is not None else ""
        line = self.cur_line
        if isinstance(obj, Value):
            if node is not None and obj.text != text:
                return Value(
                    obj.kind, obj.value, obj.args, obj.kwargs, text=text, line=line, origins=origins_before(line, obj)
                )
            return obj
        if isinstance(obj, LayerObj):
            return Value(CALL, obj.layer.cls, kwargs=dict(obj.layer.args), text=text, line=line)
        if isinstance(obj, OptimizerObj):
            return Value(
                CALL,
                obj.optimizer.cls or "?",
                kwargs=dict(obj.optimizer.args),
                text=text,
                line=line,
            )
        if isinstance(obj, CallbackObj):
            return Value(
                CALL,
                obj.callback.cls,
                kwargs=dict(obj.callback.args),
                text=text,
                line=line,
            )
        if isinstance(obj, data.DataChain):
            return Value(REF, f"data:{obj.var or obj.part or '?'}", text=text, line=line)
        if isinstance(obj, FuncObj):
            return Value(REF, f"user:{obj.node.name.value}", text=text, line=line)
        if isinstance(obj, tuple | list):
            items = [self.to_value(o, None) for o in obj]
            return Value(SEQ, None, args=items, text=text, line=line)
        return Value(OPAQUE, None, text=text, line=line)

    def _op(self, op: str, name: str | None, args: dict[str, Value], node: cst.CSTNode) -> DataOp:
        return DataOp(
            op=op,
            name=name,
            args=args,
            text=self.text(node),
            file=self.path,
            line=self.lines.line(node) or self.cur_line,
        )

    def call_args(
        self, node: cst.Call, env: Env
    ) -> tuple[list[Any], dict[str, Any], list[cst.CSTNode], dict[str, cst.CSTNode]]:
        args: list[Any] = []
        kwargs: dict[str, Any] = {}
        arg_nodes: list[cst.CSTNode] = []
        kw_nodes: dict[str, cst.CSTNode] = {}
        for a in node.args:
            value = self.ev(a.value, env)
            if a.keyword is not None:
                kwargs[a.keyword.value] = value
                kw_nodes[a.keyword.value] = a.value
            elif a.star == "**":
                kwargs[f"**{len(kwargs)}"] = value
                kw_nodes[f"**{len(kw_nodes)}"] = a.value
            else:
                args.append(value)
                arg_nodes.append(a.value)
        return args, kwargs, arg_nodes, kw_nodes

    def values_of(self, objs: list[Any], nodes: list[cst.CSTNode]) -> list[Value]:
        return [self.to_value(o, n) for o, n in zip(objs, nodes, strict=False)]

    def kwvalues_of(self, objs: dict[str, Any], nodes: dict[str, cst.CSTNode]) -> dict[str, Value]:
        return {k: self.to_value(o, nodes.get(k)) for k, o in objs.items()}

    def call_values(self, node: cst.Call, env: Env) -> tuple[list[Value], dict[str, Value]]:
        """A call's positional and keyword arguments as model values (see :meth:`call_args`)."""
        args, kwargs, arg_nodes, kw_nodes = self.call_args(node, env)
        return self.values_of(args, arg_nodes), self.kwvalues_of(kwargs, kw_nodes)

    # ---------------------------------------------------------------------------------------------
    # binding (assignments, loop targets, comprehensions and ``:=`` all bind)
    # ---------------------------------------------------------------------------------------------
    def bind(
        self,
        target: cst.BaseExpression,
        value: Any,
        env: Env,
        source: cst.CSTNode | None = None,
    ) -> None:
        """Bind ``value`` to an assignment target: a name (naming the layer, model or data it holds),
        a tuple or list (unpacked), an attribute or a subscript (an in-place change of an array)."""
        if type(target) is cst.Name:
            name = target.value
            if isinstance(value, data.DataChain):
                value = data.DataChain(value.source, value.ops, name, value.part)
            elif isinstance(value, Unknown) and value.node is None:
                value = Unknown(source, self.cur_line)
            elif isinstance(value, LayerObj | Tensor) and value.layer is not None and value.layer.var is None:
                value.layer.var = name
            elif isinstance(value, ModelObj) and value.model.var is None:
                value.model.var = name
            env.set(name, value)
        elif type(target) is cst.Tuple or type(target) is cst.List:
            elements = [e.value for e in target.elements]
            items = self._unpack(value, len(elements))
            for el, item in zip(elements, items, strict=False):
                if type(el) is cst.StarredElement:
                    el = el.value
                self.bind(el, item, env, source)
        elif type(target) is cst.Attribute:
            base = self.ev(target.value, env)
            attr = target.attr.value
            if isinstance(base, Instance):
                base.attrs[attr] = value
                if base.model is not None:
                    self._collect_subclass_layer(base.model, value)
            elif isinstance(base, LayerObj | Tensor) and base.layer is not None:
                # ``model.layers[0].trainable = False``: the layer's argument changes after the fact
                layer = base.layer
                layer.args[keras_api.canonical_kwarg(layer.cls, attr, self.era)] = self.to_value(
                    value, source
                )
            else:
                key = names.dotted(target)
                if key:
                    env.set(key, value)
        elif type(target) is cst.Subscript:
            base = self.ev(target.value, env)
            if isinstance(base, Instance) and base.model is not None:
                self._collect_subclass_layer(base.model, value)
            else:
                # ``y[y == 2] = 1`` / ``df['c'] = ...``: an in-place change of the array
                self._rebind_root(target, env, "setitem", source or target)

    def _unpack(self, value: Any, n: int) -> list[Any]:
        if isinstance(value, tuple | list) and not isinstance(value, Value):
            items = list(value)
        elif isinstance(value, Value) and value.kind == CONST and isinstance(value.value, list):
            items = [Value.const(v) for v in value.value]
        elif isinstance(value, Value) and value.kind == SEQ:
            items = list(value.args)
        elif isinstance(value, data.DataChain):
            # x, y = data (a chain unpacked): each part derives from the same source
            items = [
                value.derive(
                    DataOp(
                        "slice",
                        args={"index": Value.const(i)},
                        text=f"[{i}]",
                        file=self.path,
                        line=self.cur_line,
                    )
                )
                for i in range(n)
            ]
        else:
            items = [Unknown(None, self.cur_line) for _ in range(n)]
        if len(items) < n:
            items += [Unknown(None, self.cur_line)] * (n - len(items))
        return items

    def _root_name(self, node: cst.BaseExpression) -> str | None:
        while type(node) is cst.Subscript or type(node) is cst.Attribute:
            node = node.value
        return node.value if type(node) is cst.Name else None

    def _rebind_root(self, target: cst.BaseExpression, env: Env, op: str, node: cst.CSTNode) -> None:
        name = self._root_name(target)
        if name is None:
            return
        chain = env.get(name)
        if isinstance(chain, data.DataChain):
            text = self.text(node) if not isinstance(node, cst.BaseExpression) else self.text(node)
            step = DataOp(
                op,
                None,
                {},
                text=f"{self.text(target)} = {text}" if op == "setitem" else text,
                file=self.path,
                line=self.cur_line,
            )
            env.set(name, chain.derive(step))

    # ---------------------------------------------------------------------------------------------
    # the interpreter's later layers (expressions, statements, calls), declared for the earlier ones
    # ---------------------------------------------------------------------------------------------
    def ev(self, node: cst.BaseExpression, env: Env) -> Any:
        """The abstract value of an expression (:mod:`.expressions`)."""
        raise NotImplementedError

    def ev_call(self, node: cst.Call, env: Env) -> Any:
        """The abstract value of a call (:mod:`.calls`)."""
        raise NotImplementedError

    def define_class(self, node: cst.ClassDef, env: Env) -> None:
        """Bind a class statement (:mod:`.calls`)."""
        raise NotImplementedError

    def _collect_subclass_layer(self, model: KerasModel, value: Any) -> None:
        """Layers assigned to attributes of a subclassed model join it (:mod:`.calls`)."""
        raise NotImplementedError

    # ---------------------------------------------------------------------------------------------
    # hooks: what the interpreter asks of the Keras semantics (implemented by the Walker's mixins)
    # ---------------------------------------------------------------------------------------------
    def call_qualified(self, qn: str, node: cst.Call, env: Env) -> Any:
        """A call of a name resolved through the imports (``keras.layers.Dense``, ``np.array``)."""
        raise NotImplementedError

    def value_method(self, receiver: Any, method: str, node: cst.Call, env: Env) -> Any:
        """``receiver.method(...)`` on a value that is not a user object (model, data chain...)."""
        raise NotImplementedError

    def model_method(self, obj: ModelObj | None, method: str, node: cst.Call, env: Env) -> Any:
        """A method of a Keras model (``add``, ``compile``, ``fit``...)."""
        raise NotImplementedError

    def apply_layer(self, target: LayerObj | ModelObj, node: cst.Call, env: Env) -> Any:
        """``layer(x)`` / ``model(x)``: a node of a functional graph."""
        raise NotImplementedError

    def make_layer(
        self,
        written: str,
        node: cst.Call,
        env: Env,
        qn: str | None = None,
        known: bool | None = None,
    ) -> LayerObj | Tensor:
        """A layer built by a call (``Input`` gives its tensor)."""
        raise NotImplementedError

    def new_model(self, kind: str, cls: str, node: cst.CSTNode) -> KerasModel:
        """A model added to the program model."""
        raise NotImplementedError

    def _model_as_layer(self, obj: ModelObj, node: cst.CSTNode | None) -> Layer:
        """A model used as a layer of another model."""
        raise NotImplementedError

    def as_chain(self, obj: Any, node: cst.CSTNode | None) -> Any:
        """Data not followed to a source as an opaque data chain (other values unchanged)."""
        raise NotImplementedError

    def _set_learning_rate(
        self,
        target: cst.BaseExpression,
        value: Any,
        source: cst.CSTNode | None,
        env: Env,
    ) -> bool:
        """``model.optimizer.lr = v``: True when ``target`` was an optimizer's learning rate."""
        raise NotImplementedError

    def _learning_rate_call(self, call: cst.Call, env: Env) -> None:
        """``K.set_value(model.optimizer.lr, v)`` / ``model.optimizer.lr.assign(v)``."""
        raise NotImplementedError
