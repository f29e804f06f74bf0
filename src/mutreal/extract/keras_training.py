"""Keras semantics, training: optimizers, callbacks, ``compile``, ``fit`` and evaluate/predict.

Positional and legacy arguments are mapped to canonical names (:mod:`mutreal.extract.training`);
the first training call's data become the ``x_train``/``y_train`` roles of the model, and a
learning rate set after ``compile`` (``model.optimizer.lr = v``) is kept for the calls after it.
"""

from __future__ import annotations

from typing import Any

import libcst as cst

from mutreal.extract import data, names, training
from mutreal.extract.interpreter.values import (
    CallbackObj,
    Env,
    EstimatorObj,
    InputFnObj,
    Instance,
    ModelObj,
    OptimizerObj,
    Unknown,
)
from mutreal.extract.keras_data import KerasData
from mutreal.program import keras_api
from mutreal.program.model import (
    CONST,
    NAME,
    OPAQUE,
    REF,
    SEQ,
    Callback,
    Compile,
    DataSource,
    Fit,
    KerasModel,
    Optimizer,
    Value,
)
from mutreal.program.training_budget import BUDGET

#: the budget's arguments (:data:`BUDGET`) as an estimator's input function names them
_INPUT_FN_NAMES = {"epochs": "num_epochs"}


class KerasTraining(KerasData):
    """Optimizers, callbacks, compile, fit and their data roles."""

    def make_optimizer(self, qn: str, node: cst.Call, env: Env) -> OptimizerObj:
        values, kwvalues = self.call_values(node, env)
        opt, _legacy_names = training.optimizer_from_call(
            qn, values, kwvalues, self.text(node), self.path, self.line(node), self.era
        )
        return OptimizerObj(opt)

    def make_callback(self, qn: str, node: cst.Call, env: Env) -> CallbackObj:
        values, kwvalues = self.call_values(node, env)
        cb = training.callback_from_call(qn, values, kwvalues, self.text(node), self.path, self.line(node))
        return CallbackObj(cb)

    def record_compile(self, model: KerasModel | None, node: cst.Call, env: Env) -> None:
        args, kwargs, arg_nodes, kw_nodes = self.call_args(node, env)
        named: dict[str, Any] = {}
        nodes: dict[str, cst.CSTNode] = {}
        for i, (a, n) in enumerate(zip(args, arg_nodes, strict=False)):
            key = training.COMPILE_POSITIONAL[i] if i < len(training.COMPILE_POSITIONAL) else f"_{i}"
            named[key], nodes[key] = a, n
        named.update(kwargs)
        nodes.update(kw_nodes)
        comp = Compile(
            index=len(self.program.compiles),
            model=model.index if model else None,
            file=self.path,
            line=self.line(node),
            text=self.text(node),
        )
        opt = named.pop("optimizer", None)
        if isinstance(opt, OptimizerObj):
            comp.optimizer = opt.optimizer
        elif isinstance(opt, Value) and opt.kind == CONST and isinstance(opt.value, str):
            comp.optimizer = training.optimizer_from_string(self.to_value(opt, nodes["optimizer"]), self.path)
        elif isinstance(opt, Value) and opt.kind == REF:
            cls = keras_api.canonical_optimizer(opt.value.rsplit(".", 1)[-1])
            comp.optimizer = Optimizer(
                cls=cls,
                spelling="object" if cls else "opaque",
                text=opt.text,
                file=self.path,
                line=self.line(node),
            )
        elif opt is not None:
            v = self.to_value(opt, nodes.get("optimizer"))
            comp.optimizer = Optimizer(
                cls=None, spelling="opaque", text=v.text, file=self.path, line=self.line(node)
            )
        else:
            comp.optimizer = None
        if comp.optimizer is not None:
            comp.optimizer.file = self.path
        loss = named.pop("loss", None)
        if loss is not None:
            comp.loss = training.normalise_loss(self.to_value(loss, nodes.get("loss")))
        metrics = named.pop("metrics", None)
        if metrics is not None:
            comp.metrics = training.normalise_metrics(self.to_value(metrics, nodes.get("metrics")))
        comp.args = {k: self.to_value(v, nodes.get(k)) for k, v in named.items()}
        self.program.compiles.append(comp)

    def record_fit(self, model: KerasModel | None, method: str, node: cst.Call, env: Env) -> Any:
        named, nodes = self._training_args(node, env, training.FIT_POSITIONAL[method])
        fit = self._training_call(len(self.program.fits), method, model, node)
        # data arguments
        x = named.pop("x", None) if "x" in named else named.pop("generator", None)
        x_node = nodes.pop("x", None) or nodes.pop("generator", None)
        y = named.pop("y", None)
        y_node = nodes.pop("y", None)
        if isinstance(x, data.Flow):
            for k, v in x.kwargs.items():
                if k == "batch_size" and "batch_size" not in named:
                    fit.args["batch_size"] = v
            x, y = x.x, (x.y if y is None else y)
        if isinstance(x, tuple) and len(x) == 2 and y is None:  # tf.data (x, y) pairs
            x, y = x
        first = not self.data_fit_done
        if x is not None:
            fit.args["x"] = self._data_ref("x_train" if first else None, x, x_node)
        if y is not None:
            fit.args["y"] = self._data_ref("y_train" if first else None, y, y_node)
        if first and isinstance(x, data.DataChain | Unknown | Value):
            self.data_fit_done = True
            self._record_data("x_train", x, x_node)
            self._record_data("y_train", y, y_node)
        val = named.pop("validation_data", None)
        val_node = nodes.pop("validation_data", None)
        if val is not None:
            if isinstance(val, data.Flow):
                val = (val.x, val.y)
            if isinstance(val, tuple | list) and not isinstance(val, Value) and len(val) >= 2:
                if first:
                    self._record_data("x_val", val[0])
                    self._record_data("y_val", val[1])
                fit.args["validation_data"] = Value(
                    SEQ,
                    None,
                    args=[
                        self._data_ref("x_val" if first else None, val[0], None),
                        self._data_ref("y_val" if first else None, val[1], None),
                    ],
                    text=self.text(val_node) if val_node is not None else "",
                    line=self.line(node),
                )
            else:
                fit.args["validation_data"] = self.to_value(val, val_node)
        callbacks = named.pop("callbacks", None)
        cb_node = nodes.pop("callbacks", None)
        if callbacks is not None:
            fit.args["callbacks"] = self.to_value(callbacks, cb_node)
            items = (
                callbacks
                if isinstance(callbacks, list | tuple) and not isinstance(callbacks, Value)
                else [callbacks]
            )
            if isinstance(callbacks, Value) and callbacks.kind == SEQ:
                items = callbacks.args
            for cb in items:
                if isinstance(cb, CallbackObj):
                    fit.callbacks.append(cb.callback)
                elif isinstance(cb, Value | Unknown):
                    text = cb.text if isinstance(cb, Value) else (self.text(cb.node) if cb.node else "?")
                    if isinstance(cb, Value) and cb.kind == CONST and cb.value is None:
                        continue
                    fit.callbacks.append(
                        Callback(cls=text, known=False, text=text, file=self.path, line=self.line(node))
                    )
        for k, v in named.items():
            fit.args[k] = self.to_value(v, nodes.get(k))
        if model is not None:
            fit.learning_rate = self.lr_settings.get(model.index)
        self.program.fits.append(fit)
        return Unknown(node, self.cur_line)

    def make_estimator(self, node: cst.Call, env: Env) -> EstimatorObj:
        """``keras.estimator.model_to_estimator(keras_model=model)``: an estimator that trains the
        model (decision value-origins: its ``train`` call is the model's training call)."""
        args, kwargs, _, _ = self.call_args(node, env)
        given = kwargs.get("keras_model", args[0] if args else None)
        return EstimatorObj(given.model if isinstance(given, ModelObj) else None)

    def make_input_fn(self, node: cst.Call, env: Env) -> InputFnObj:
        """``tf.estimator.inputs.numpy_input_fn(x, y, batch_size=128, num_epochs=1, shuffle=...)``:
        the arguments by name, read when an estimator trains on it."""
        args, kwargs, arg_nodes, kw_nodes = self.call_args(node, env)
        named = dict(zip(("x", "y", "batch_size", "num_epochs", "shuffle"), args, strict=False))
        nodes = dict(zip(("x", "y", "batch_size", "num_epochs", "shuffle"), arg_nodes, strict=False))
        named.update(kwargs)
        nodes.update(kw_nodes)
        x_node = nodes.get("x")
        if isinstance(x_node, cst.Dict) and len(x_node.elements) == 1:
            only = x_node.elements[0]
            if isinstance(only, cst.DictElement):  # one named input ({"reviews_input": features})
                named["x"], nodes["x"] = self.ev(only.value, env), only.value
        return InputFnObj(named, nodes)

    def record_estimator_train(self, estimator: EstimatorObj, node: cst.Call, env: Env) -> Any:
        """``estimator.train(input_fn=numpy_input_fn(..., batch_size=b, num_epochs=n))``: a training
        call (method ``train``) whose epochs and batch size are the input function's (decision
        value-origins: written where the input function is built, often a helper's arguments).
        Only what the input function writes is kept: the fit pass compares a ``train`` call's
        budget where both programs write it, never against ``fit``'s defaults."""
        args, kwargs, _, _ = self.call_args(node, env)
        given = kwargs.get("input_fn", args[0] if args else None)
        fit = self._training_call(len(self.program.fits), "train", estimator.model, node)
        if isinstance(given, InputFnObj):
            for canon in BUDGET:  # the input function names the epochs num_epochs
                key = _INPUT_FN_NAMES.get(canon, canon)
                value = given.kwargs.get(key)
                if isinstance(value, Value) and value.kind == CONST:
                    fit.args[canon] = self.to_value(value, given.nodes.get(key))
            if not self.data_fit_done:  # the first training call's arrays are the training data
                x, y = given.kwargs.get("x"), given.kwargs.get("y")
                self.data_fit_done = True
                self._record_data("x_train", x, given.nodes.get("x"))
                self._record_data("y_train", y, given.nodes.get("y"))
        self.program.fits.append(fit)
        return Unknown(node, self.cur_line)

    def record_use(self, model: KerasModel | None, method: str, node: cst.Call, env: Env) -> None:
        """evaluate/predict calls: their arguments (batch size...) and the test/prediction data."""
        family = "evaluate" if method.startswith("evaluate") else "predict"
        named, nodes = self._training_args(node, env, training.FIT_POSITIONAL[family])
        if method.endswith("_generator") and "x" not in named and "generator" in named:
            named["x"], nodes["x"] = named.pop("generator"), nodes.pop("generator")
        index = sum(1 for e in self.program.evaluations if e.method.startswith(family))
        use = self._training_call(index, method, model, node)
        x, y = named.pop("x", None), named.pop("y", None)
        x_node, y_node = nodes.pop("x", None), nodes.pop("y", None)
        if isinstance(x, data.Flow):
            x, y = x.x, (x.y if y is None else y)
        x_role, y_role = ("x_test", "y_test") if family == "evaluate" else ("x_pred", None)
        first = x_role not in self.program.data
        if x is not None:
            use.args["x"] = self._data_ref(x_role if first else None, x, x_node)
            if first:
                self._record_data(x_role, x, x_node)
        if y is not None and y_role is not None:
            use.args["y"] = self._data_ref(y_role if first else None, y, y_node)
            if first:
                self._record_data(y_role, y, y_node)
        for k, v in named.items():
            use.args[k] = self.to_value(v, nodes.get(k))
        self.program.evaluations.append(use)

    def _training_args(
        self, node: cst.Call, env: Env, positional: tuple[str, ...]
    ) -> tuple[dict[str, Any], dict[str, cst.CSTNode]]:
        """A fit/evaluate/predict call's arguments and their nodes by canonical name: positional
        ones named as the method takes them (``positional``), keywords through their legacy names."""
        args, kwargs, arg_nodes, kw_nodes = self.call_args(node, env)
        named: dict[str, Any] = {}
        nodes: dict[str, cst.CSTNode] = {}
        for i, (a, n) in enumerate(zip(args, arg_nodes, strict=False)):
            key = positional[i] if i < len(positional) else f"_{i}"
            named[key], nodes[key] = a, n
        for k, v in kwargs.items():
            canon = training.fit_kwarg(k)
            named[canon], nodes[canon] = v, kw_nodes[k]
        return named, nodes

    def _training_call(self, index: int, method: str, model: KerasModel | None, node: cst.Call) -> Fit:
        """The record of a training or evaluation call, its arguments still to be filled."""
        return Fit(
            index=index,
            method=method,
            model=model.index if model else None,
            file=self.path,
            line=self.line(node),
            text=self.text(node),
        )

    def _data_ref(self, role: str | None, obj: Any, node: cst.CSTNode | None) -> Value:
        text = (
            self.text(node)
            if node is not None
            else (obj.var if isinstance(obj, data.DataChain) else "") or ""
        )
        if role is not None:
            return Value(REF, f"data.{role}", text=text, line=self.cur_line)
        return self.to_value(obj, node) if node is not None else Value(OPAQUE, None, text=text)

    def _record_data(self, role: str, obj: Any, node: cst.CSTNode | None = None) -> None:
        if obj is None or role in self.program.data:
            return
        if isinstance(obj, data.Flow):
            obj = obj.x if role.startswith("x") else obj.y
            if obj is None:
                return
        if isinstance(obj, data.DataChain):
            self.program.data[role] = obj.to_var(role)
            return
        if isinstance(obj, list | tuple) and obj and not isinstance(obj, Value):
            # several inputs (multi-input models): x_train, x_train_2, ...
            for i, item in enumerate(obj):
                self._record_data(role if i == 0 else f"{role}_{i + 1}", item, None)
            return
        # not followed to a source: keep what is written as an opaque source
        if isinstance(obj, Unknown):
            text = self.text(obj.node) if obj.node is not None else "?"
            line = obj.line
        elif isinstance(obj, Value):
            if obj.kind == CONST:
                shape = data.shape_of_literal(obj.value)
                src = DataSource(
                    "literal",
                    name="list",
                    shape=shape,
                    size=data.size_of(shape),
                    text=obj.text,
                    file=self.path,
                    line=obj.line,
                )
                self.program.data[role] = data.DataChain(src, []).to_var(role)
                return
            text, line = obj.text, obj.line
        else:
            text = self.text(node) if node is not None else type(obj).__name__
            line = self.cur_line
        src = DataSource("opaque", text=text, file=self.path, line=line)
        var = text if isinstance(obj, Value) and obj.kind == NAME else None
        self.program.data[role] = data.DataChain(src, [], var=var).to_var(role)

    def _optimizer_rate_owner(self, node: cst.BaseExpression, env: Env) -> KerasModel | None:
        """The model whose optimizer's learning rate ``node`` names: ``model.optimizer.lr`` or
        ``model.optimizer.learning_rate`` (a model variable known to the walker), else None."""
        if not (
            type(node) is cst.Attribute
            and node.attr.value in keras_api.LEARNING_RATE_ATTRIBUTES
            and type(node.value) is cst.Attribute
            and node.value.attr.value == "optimizer"
        ):
            return None
        owner = self.ev(node.value.value, env)
        if isinstance(owner, Instance) and owner.model is not None:
            return owner.model
        return owner.model if isinstance(owner, ModelObj) else None

    def _set_learning_rate(
        self, target: cst.BaseExpression, value: Any, source: cst.CSTNode | None, env: Env
    ) -> bool:
        """Rule ``learning_rate_after_compile``: ``model.optimizer.lr = v`` (also ``K.set_value(
        model.optimizer.lr, v)`` and ``model.optimizer.learning_rate.assign(v)``, see
        :meth:`_learning_rate_call`) sets the learning rate the model's later training calls use; it is
        kept for them (``Fit.learning_rate``). True when the target was such a learning rate."""
        model = self._optimizer_rate_owner(target, env)
        if model is None:
            return False
        self.lr_settings[model.index] = self.to_value(value, source)
        return True

    def _learning_rate_call(self, call: cst.Call, env: Env) -> None:
        """``K.set_value(model.optimizer.lr, v)`` / ``model.optimizer.lr.assign(v)`` (rule
        ``learning_rate_after_compile``)."""
        func = call.func
        if not (type(func) is cst.Attribute or type(func) is cst.Name):
            return
        key = names.dotted(func)
        if type(func) is cst.Attribute and func.attr.value == "assign" and len(call.args) == 1:
            target, value_node = func.value, call.args[0].value
        elif key and len(call.args) == 2 and key.rsplit(".", 1)[-1] == "set_value":
            qn = self.imports.resolve_name(key)
            if keras_api.keras_module_part(qn) is None and not qn.startswith("tensorflow."):
                return
            target, value_node = call.args[0].value, call.args[1].value
        else:
            return
        self._set_learning_rate(target, self.ev(value_node, env), value_node, env)
