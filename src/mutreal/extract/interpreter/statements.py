"""Statements and binding: assignments, ``if``/``for``/``while``/``with``/``try`` and in-place changes.

Constant conditions select their branch, undecidable ones run every branch; loops with literal
bounds that build layers are unrolled, other loop bodies run once. Binding names values (a layer's
or model's variable), unpacks tuples and records in-place changes of arrays
(``np.random.shuffle(x)``, ``x[x > 1] = 1``, ``xs.append(a)``).
"""

from __future__ import annotations

import re
from typing import Any

import libcst as cst

from mutreal import keras_api
from mutreal.extract import data, names
from mutreal.extract.interpreter.core import _MAX_STEPS, _MAX_UNROLL
from mutreal.extract.interpreter.expressions import ExpressionEvaluator
from mutreal.extract.interpreter.values import (
    CallbackObj,
    Env,
    FuncObj,
    Instance,
    LayerObj,
    ModelObj,
    OptimizerObj,
    Tensor,
    Unknown,
    truthy,
)
from mutreal.model import (
    CONST,
    SEQ,
    DataOp,
    Value,
)

#: layer-building calls that make a loop worth unrolling
_BUILD_HINT = re.compile(r"\.add\(|\bDense\(|Conv|LSTM|GRU|Dropout|Pool|Activation|Flatten|layers\.")


class StatementRunner(ExpressionEvaluator):
    """Runs LibCST statements in source order over an environment."""

    def exec_block(self, body: Any, env: Env) -> None:
        for stmt in body:
            if self.steps > _MAX_STEPS:
                return
            try:
                self.exec_stmt(stmt, env)
            except RecursionError:
                self.program.notes.append("expression nesting too deep: statement skipped")

    def exec_stmt(self, stmt: cst.CSTNode, env: Env) -> None:
        self.steps += 1
        t = type(stmt)
        if t is cst.SimpleStatementLine:
            for small in stmt.body:  # type: ignore[attr-defined]
                self.exec_small(small, env)
        elif t is cst.FunctionDef:
            func = FuncObj(stmt, env)  # type: ignore[arg-type]
            env.set(stmt.name.value, func)  # type: ignore[attr-defined]
            self.functions.append(func)
        elif t is cst.ClassDef:
            self.define_class(stmt, env)  # type: ignore[arg-type]
        elif t is cst.If:
            self.exec_if(stmt, env)  # type: ignore[arg-type]
        elif t is cst.For:
            self.exec_for(stmt, env)  # type: ignore[arg-type]
        elif t is cst.While:
            self.exec_block(stmt.body.body, env)  # type: ignore[attr-defined]
            if stmt.orelse is not None:  # type: ignore[attr-defined]
                self.exec_block(stmt.orelse.body.body, env)  # type: ignore[attr-defined]
        elif t is cst.With:
            self.lines.current = stmt
            self.cur_line = self.lines.line(stmt)
            for item in stmt.items:  # type: ignore[attr-defined]
                value = self.ev(item.item, env)
                if item.asname is not None:
                    self.bind(item.asname.name, value, env)
            self.exec_block(stmt.body.body, env)  # type: ignore[attr-defined]
        elif t in (cst.Try, cst.TryStar):
            self.exec_block(stmt.body.body, env)  # type: ignore[attr-defined]
            for handler in stmt.handlers:  # type: ignore[attr-defined]
                self.exec_block(handler.body.body, env)
            if stmt.orelse is not None:  # type: ignore[attr-defined]
                self.exec_block(stmt.orelse.body.body, env)  # type: ignore[attr-defined]
            if stmt.finalbody is not None:  # type: ignore[attr-defined]
                self.exec_block(stmt.finalbody.body.body, env)  # type: ignore[attr-defined]
        elif hasattr(stmt, "body") and hasattr(stmt.body, "body"):  # match and future compound forms
            self.exec_block(stmt.body.body, env)  # type: ignore[attr-defined]

    def exec_small(self, small: cst.BaseSmallStatement, env: Env) -> None:
        self.lines.current = small
        self.cur_line = self.lines.line(small) or self.cur_line
        t = type(small)
        if t is cst.Expr:
            value = small.value  # type: ignore[attr-defined]
            if type(value) is cst.Call and self._is_append(value, env):
                self._accumulate(value.func.value.value, value, env)  # type: ignore[attr-defined]
                return
            self.ev(value, env)
            if type(value) is cst.Call:
                self._inplace_call(value, env)
                self._learning_rate_call(value, env)
        elif t is cst.Assign:
            value = self.ev(small.value, env)  # type: ignore[attr-defined]
            for target in small.targets:  # type: ignore[attr-defined]
                if not self._set_learning_rate(target.target, value, small.value, env):  # type: ignore[attr-defined]
                    self.bind(target.target, value, env, small.value)  # type: ignore[attr-defined]
        elif t is cst.AugAssign:
            target = small.target  # type: ignore[attr-defined]
            op_name = type(small.operator).__name__.replace("Assign", "")  # type: ignore[attr-defined]
            current = self.ev(target, env)
            right = self.ev(small.value, env)  # type: ignore[attr-defined]
            value = self.binary(op_name, current, right, small.value, small, env)  # type: ignore[attr-defined]
            self.bind(target, value, env, small)
        elif t is cst.AnnAssign:
            if small.value is not None:  # type: ignore[attr-defined]
                value = self.ev(small.value, env)  # type: ignore[attr-defined]
                self.bind(small.target, value, env, small.value)  # type: ignore[attr-defined]
        elif t is cst.Return:
            if small.value is not None and "__return__" not in env.vars:  # type: ignore[attr-defined]
                env.vars["__return__"] = self.ev(small.value, env)  # type: ignore[attr-defined]
        elif t in (cst.Import, cst.ImportFrom):
            self.imports.add(small)  # type: ignore[arg-type]

    def exec_if(self, stmt: cst.If, env: Env) -> None:
        """Run the branch a constant condition selects; when the condition is not constant, every branch.

        ``if USE_DROPOUT:`` with ``USE_DROPOUT = False`` adds no layer; ``if args.deep:`` runs both
        branches (the program model then holds what either could build, noted).
        """
        branch: Any = stmt
        while isinstance(branch, cst.If):
            self.lines.current = branch
            self.cur_line = self.lines.line(branch) or self.cur_line
            test = self.ev(branch.test, env)
            if isinstance(test, Value) and test.kind == CONST:
                if truthy(test.value):
                    self.exec_block(branch.body.body, env)
                    return
                branch = branch.orelse
                continue
            # not decidable: run this branch and every following one
            self.exec_block(branch.body.body, env)
            rest = branch.orelse
            while rest is not None:
                if isinstance(rest, cst.If):
                    self.ev(rest.test, env)
                    self.exec_block(rest.body.body, env)
                    rest = rest.orelse
                else:
                    self.exec_block(rest.body.body, env)
                    rest = None
            return
        if branch is not None:  # else block reached by constant conditions
            self.exec_block(branch.body.body, env)

    def exec_for(self, stmt: cst.For, env: Env) -> None:
        """Unroll loops with literal bounds that build layers; run other loop bodies once."""
        self.lines.current = stmt
        self.cur_line = self.lines.line(stmt)
        iterations, objects = self._literal_iterations(stmt.iter, env)
        body_text = None
        if iterations is not None and 0 < len(iterations) <= _MAX_UNROLL:
            body_text = self.lines.text(stmt) or self.text(stmt.body)
        if (
            body_text is not None
            and (objects or _BUILD_HINT.search(body_text))
            and ".fit" not in body_text
            and "train_on_batch" not in body_text
        ):
            saved = self.origin
            self.origin = self.origin or "loop"
            for item in iterations:  # type: ignore[union-attr]
                self.bind(stmt.target, item if objects else Value.const(item), env)
                self.exec_block(stmt.body.body, env)
            self.origin = saved
        else:
            if iterations:
                first = iterations[0]
                self.bind(stmt.target, first if objects else Value.const(first), env)
            else:
                self.bind(stmt.target, Unknown(stmt.iter, self.cur_line), env)
            fits_before, models_before = len(self.program.fits), len(self.program.models)
            self.exec_block(stmt.body.body, env)
            # the passes train one model again and again only when the loop builds none: a loop that
            # builds a model per item is a search over configurations, each trained once
            built = any(m.kind not in ("unknown", "loose") for m in self.program.models[models_before:])
            if iterations is not None and not built:
                for f in self.program.fits[fits_before:]:
                    f.repeat = len(iterations)
        if stmt.orelse is not None:
            self.exec_block(stmt.orelse.body.body, env)

    def bind(
        self, target: cst.BaseExpression, value: Any, env: Env, source: cst.CSTNode | None = None
    ) -> None:
        t = type(target)
        if t is cst.Name:
            name = target.value  # type: ignore[attr-defined]
            if isinstance(value, data.DataChain):
                value = data.DataChain(value.source, value.ops, name, value.part)
            elif isinstance(value, Unknown) and value.node is None:
                value = Unknown(source, self.cur_line)
            elif (
                isinstance(value, LayerObj)
                and value.layer.var is None
                or isinstance(value, Tensor)
                and value.layer is not None
                and value.layer.var is None
            ):
                value.layer.var = name
            elif isinstance(value, ModelObj) and value.model.var is None:
                value.model.var = name
            env.set(name, value)
        elif t in (cst.Tuple, cst.List):
            elements = [e.value for e in target.elements]  # type: ignore[attr-defined]
            items = self._unpack(value, len(elements))
            for el, item in zip(elements, items, strict=False):
                if isinstance(el, cst.StarredElement):
                    el = el.value
                self.bind(el, item, env, source)
        elif t is cst.Attribute:
            base = self.ev(target.value, env)  # type: ignore[attr-defined]
            attr = target.attr.value  # type: ignore[attr-defined]
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
        elif t is cst.Subscript:
            base = self.ev(target.value, env)  # type: ignore[attr-defined]
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
        while type(node) in (cst.Subscript, cst.Attribute):
            node = node.value  # type: ignore[attr-defined]
        return node.value if type(node) is cst.Name else None  # type: ignore[attr-defined]

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

    def _inplace_call(self, call: cst.Call, env: Env) -> None:
        """Calls that change an array in place: ``np.random.shuffle(x)``, ``df.dropna(inplace=True)``."""
        func = call.func
        inplace = any(
            a.keyword is not None
            and a.keyword.value == "inplace"
            and type(a.value) is cst.Name
            and a.value.value == "True"
            for a in call.args
        )
        if inplace and type(func) is cst.Attribute:
            method = func.attr.value
            self._rebind_root(func.value, env, data.ARRAY_METHODS.get(method) or method, call)
            return
        qn = self.imports.resolve(func) if type(func) in (cst.Name, cst.Attribute) else None
        if qn in ("numpy.random.shuffle", "random.shuffle") and call.args:
            self._rebind_root(call.args[0].value, env, "shuffle", call)

    def _is_append(self, call: cst.Call, env: Env) -> bool:
        """``name.append(x)`` / ``name.extend(x)`` on a list the walker follows."""
        func = call.func
        if not (
            type(func) is cst.Attribute
            and func.attr.value in ("append", "extend")
            and type(func.value) is cst.Name
            and len(call.args) == 1
        ):
            return False
        current = env.get(func.value.value)
        return (
            (isinstance(current, Value) and current.kind == CONST and current.value == [])
            or (isinstance(current, list) and not isinstance(current, Value))
            or (isinstance(current, data.DataChain) and current.part == "list")
        )

    def _accumulate(self, name: str, call: cst.Call, env: Env) -> None:
        """``X = []; for ...: X.append(item)``.

        Arrays appended to a list become one array with a ``stack`` step; other objects (layers,
        tensors, callbacks) make a Python list of them, so ``Model(outputs=outs)`` and
        ``callbacks=cbs`` see what was appended.
        """
        current = env.get(name)
        extend = call.func.attr.value == "extend"  # type: ignore[attr-defined]
        arg = call.args[0].value
        item = self.ev(arg, env)
        if isinstance(current, data.DataChain):
            return  # already an accumulated array; more appends add nothing new
        items = (
            list(item)
            if extend and isinstance(item, list | tuple) and not isinstance(item, Value)
            else [item]
        )
        if isinstance(current, list):
            env.set(name, [*current, *items])
            return
        if any(isinstance(i, Tensor | LayerObj | ModelObj | CallbackObj | OptimizerObj) for i in items):
            env.set(name, items)
            return
        chain = self.as_chain(item, arg)
        if not isinstance(chain, data.DataChain):
            chain = self.as_chain(Unknown(arg, self.cur_line), arg)
        stacked = chain.derive(self._op("stack", None, {}, call))
        env.set(name, data.DataChain(stacked.source, stacked.ops, name, "list"))
