"""Statements: assignments, ``if``/``for``/``while``/``with``/``try`` and in-place changes.

Constant conditions select their branch, undecidable ones run every branch; loops with literal
bounds that build layers are unrolled, other loop bodies run once. Binding (naming a layer's or
model's variable, unpacking tuples, ``x[x > 1] = 1``) is the core's
(:meth:`~mutreal.extract.interpreter.core.InterpreterCore.bind`); here in-place calls on arrays
(``np.random.shuffle(x)``, ``xs.append(a)``) are recorded.
"""

from __future__ import annotations

import re
from typing import Any

import libcst as cst

from mutreal.extract import data
from mutreal.extract.interpreter.core import _MAX_STEPS, _MAX_UNROLL
from mutreal.extract.interpreter.expressions import ExpressionEvaluator
from mutreal.extract.interpreter.values import (
    CallbackObj,
    Env,
    FuncObj,
    LayerObj,
    ModelObj,
    OptimizerObj,
    Tensor,
    Unknown,
    truthy,
)
from mutreal.program.model import (
    CONST,
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
        if type(stmt) is cst.SimpleStatementLine:
            for small in stmt.body:
                self.exec_small(small, env)
        elif type(stmt) is cst.FunctionDef:
            func = FuncObj(stmt, env)
            env.set(stmt.name.value, func)
            self.functions.append(func)
        elif type(stmt) is cst.ClassDef:
            self.define_class(stmt, env)
        elif type(stmt) is cst.If:
            self.exec_if(stmt, env)
        elif type(stmt) is cst.For:
            self.exec_for(stmt, env)
        elif type(stmt) is cst.While:
            self.exec_block(stmt.body.body, env)
            if stmt.orelse is not None:
                self.exec_block(stmt.orelse.body.body, env)
        elif type(stmt) is cst.With:
            self.lines.current = stmt
            self.cur_line = self.lines.line(stmt)
            for item in stmt.items:
                value = self.ev(item.item, env)
                if item.asname is not None:
                    self.bind(item.asname.name, value, env)
            self.exec_block(stmt.body.body, env)
        elif type(stmt) is cst.Try or type(stmt) is cst.TryStar:
            self.exec_block(stmt.body.body, env)
            for handler in stmt.handlers:
                self.exec_block(handler.body.body, env)
            if stmt.orelse is not None:
                self.exec_block(stmt.orelse.body.body, env)
            if stmt.finalbody is not None:
                self.exec_block(stmt.finalbody.body.body, env)
        else:  # match and future compound forms: their body, when they have one
            body = getattr(stmt, "body", None)
            if hasattr(body, "body"):
                self.exec_block(body.body, env)

    def exec_small(self, small: cst.BaseSmallStatement, env: Env) -> None:
        self.lines.current = small
        self.cur_line = self.lines.line(small) or self.cur_line
        if type(small) is cst.Expr:
            value = small.value
            if type(value) is cst.Call:
                receiver = self._append_receiver(value, env)
                if receiver is not None:
                    self._accumulate(receiver, value, env)
                    return
            self.ev(value, env)
            if type(value) is cst.Call:
                self._inplace_call(value, env)
                self._learning_rate_call(value, env)
        elif type(small) is cst.Assign:
            assigned = self.ev(small.value, env)
            for target in small.targets:
                if not self._set_learning_rate(target.target, assigned, small.value, env):
                    self.bind(target.target, assigned, env, small.value)
        elif type(small) is cst.AugAssign:
            op_name = type(small.operator).__name__.replace("Assign", "")
            current = self.ev(small.target, env)
            right = self.ev(small.value, env)
            result = self.binary(op_name, current, right, small.value, small, env)
            self.bind(small.target, result, env, small)
        elif type(small) is cst.AnnAssign:
            if small.value is not None:
                self.bind(small.target, self.ev(small.value, env), env, small.value)
        elif type(small) is cst.Return:
            if small.value is not None and "__return__" not in env.vars:
                env.vars["__return__"] = self.ev(small.value, env)
        elif type(small) is cst.Import or type(small) is cst.ImportFrom:
            self.imports.add(small)

    def exec_if(self, stmt: cst.If, env: Env) -> None:
        """Run the branch a constant condition selects; when the condition is not constant, every branch.

        ``if USE_DROPOUT:`` with ``USE_DROPOUT = False`` adds no layer; ``if args.deep:`` runs both
        branches (the program model then holds what either could build, noted).
        """
        branch: Any = stmt
        while type(branch) is cst.If:
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
                if type(rest) is cst.If:
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
        range_origins = self.range_origins
        body_text = None
        if iterations is not None and 0 < len(iterations) <= _MAX_UNROLL:
            body_text = self.lines.text(stmt) or self.text(stmt.body)
        if (
            iterations is not None
            and body_text is not None
            and (objects or _BUILD_HINT.search(body_text))
            and ".fit" not in body_text
            and "train_on_batch" not in body_text
        ):
            saved = self.origin
            self.origin = self.origin or "loop"
            for item in iterations:
                self.bind(stmt.target, item if objects else Value.const(item), env)
                self.exec_block(stmt.body.body, env)
            self.origin = saved
        else:
            if iterations:
                first = iterations[0]
                self.bind(stmt.target, first if objects else Value.const(first), env)
            else:
                self.bind(stmt.target, Unknown(stmt.iter, self.cur_line), env)
            fits_before, models_before = (
                len(self.program.fits),
                len(self.program.models),
            )
            self.exec_block(stmt.body.body, env)
            # the passes train one model again and again only when the loop builds none: a loop that
            # builds a model per item is a search over configurations, each trained once
            built = any(m.kind not in ("unknown", "loose") for m in self.program.models[models_before:])
            if iterations is not None and not built:
                header = [n for n in (self.lines.line(stmt),) if n is not None]
                for f in self.program.fits[fits_before:]:
                    f.repeat = len(iterations)
                    f.repeat_lines = list(dict.fromkeys([*header, *range_origins]))
        if stmt.orelse is not None:
            self.exec_block(stmt.orelse.body.body, env)

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

    def _append_receiver(self, call: cst.Call, env: Env) -> str | None:
        """The list's name in ``name.append(x)`` / ``name.extend(x)`` when the walker follows that
        list (empty list literal, list of objects, or accumulated array), else None. Plain type tests,
        not matchers: this runs for every call statement."""
        func = call.func
        if not (
            type(func) is cst.Attribute
            and func.attr.value in ("append", "extend")
            and type(func.value) is cst.Name
            and len(call.args) == 1
        ):
            return None
        name = func.value.value
        current = env.get(name)
        followed = (
            (isinstance(current, Value) and current.kind == CONST and current.value == [])
            or (isinstance(current, list) and not isinstance(current, Value))
            or (isinstance(current, data.DataChain) and current.part == "list")
        )
        return name if followed else None

    def _accumulate(self, name: str, call: cst.Call, env: Env) -> None:
        """``X = []; for ...: X.append(item)``.

        Arrays appended to a list become one array with a ``stack`` step; other objects (layers,
        tensors, callbacks) make a Python list of them, so ``Model(outputs=outs)`` and
        ``callbacks=cbs`` see what was appended.
        """
        current = env.get(name)
        extend = type(call.func) is cst.Attribute and call.func.attr.value == "extend"
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
