"""Keras semantics, models and layers: Sequential, functional and subclassed models.

Layers are normalised (:mod:`mutreal.extract.layers`), functional graphs traced from outputs back to
inputs, and layers built outside any model collected into one implicit model.
"""

from __future__ import annotations

from typing import Any

import libcst as cst

from mutreal.extract import data, layers, training
from mutreal.extract.interpreter.values import (
    Env,
    LayerObj,
    ModelObj,
    Tensor,
    Unknown,
)
from mutreal.extract.keras_training import KerasTraining
from mutreal.program import keras_api
from mutreal.program.model import (
    CALL,
    SEQ,
    KerasModel,
    Layer,
    Value,
)


class KerasLayers(KerasTraining):
    """Models, layers and the methods called on models."""

    def new_model(self, kind: str, cls: str, node: cst.CSTNode) -> KerasModel:
        self.keras_seen = True
        model = KerasModel(
            index=len(self.program.models),
            kind=kind,
            cls=cls,
            file=self.path,
            line=self.line(node),
            text=self.text(node) if kind != "subclass" else cls,
        )
        self.program.models.append(model)
        return model

    def make_layer(
        self, written: str, node: cst.Call, env: Env, qn: str | None = None, known: bool | None = None
    ) -> LayerObj | Tensor:
        self.keras_seen = True
        cls = keras_api.canonical_layer(written)
        args, kwargs, arg_nodes, kw_nodes = self.call_args(node, env)
        inner: Layer | None = None
        if cls in keras_api.WRAPPER_LAYERS and args and isinstance(args[0], LayerObj):
            inner = args[0].layer
            args = args[1:]
            arg_nodes = arg_nodes[1:]
            params = keras_api.positional_params(cls, self.era)[1:]
        else:
            params = None
        values = self.values_of(args, arg_nodes)
        kwvalues = self.kwvalues_of(kwargs, kw_nodes)
        if params is not None:
            for i, v in enumerate(values):
                kwvalues[params[i] if i < len(params) else f"_{i}"] = v
            values = []
        norm, _legacy_names = layers.normalise_layer_args(cls, values, kwvalues, self.era)
        layer = Layer(
            cls=cls,
            args=norm,
            known=keras_api.is_layer(cls) if known is None else known,
            file=self.path,
            line=self.line(node),
            text=self.text(node),
            origin=self.origin or "add",
            inner=inner,
        )
        if inner is not None:
            layer.args["layer"] = Value(
                CALL, inner.cls, kwargs=dict(inner.args), text=inner.text, line=inner.line
            )
        self.created_layers.append(layer)
        if cls == "Input":
            layer.origin = self.origin or "functional"
            return Tensor(layer, [], self.next_seq())
        return LayerObj(layer)

    def merge_function(self, name: str, node: cst.Call, env: Env) -> Any:
        args, kwargs, arg_nodes, kw_nodes = self.call_args(node, env)
        cls = keras_api.MERGE_FUNCTIONS[name]
        kwvalues = self.kwvalues_of(kwargs, kw_nodes)
        layer = Layer(
            cls=cls,
            args=kwvalues,
            file=self.path,
            line=self.line(node),
            text=self.text(node),
            origin="functional",
        )
        inputs = args[0] if args else []
        parents = [
            t for t in (inputs if isinstance(inputs, list | tuple) else [inputs]) if isinstance(t, Tensor)
        ]
        return Tensor(layer, parents, self.next_seq())

    def apply_layer(self, target: LayerObj | ModelObj, node: cst.Call, env: Env) -> Any:
        args, kwargs, _, _ = self.call_args(node, env)
        inputs = args[0] if args else kwargs.get("inputs")
        if isinstance(target, ModelObj):
            layer = self._model_as_layer(target, node)
        else:
            layer = target.layer
            target.applied = True
            at = self.line(node)
            if at is not None and at != layer.line and at not in layer.applied_at:
                layer.applied_at.append(at)  # decision value-origins: this line puts it in a model
        flat = inputs if isinstance(inputs, list | tuple) else [inputs]
        parents = [t for t in flat if isinstance(t, Tensor)]
        if not parents and isinstance(inputs, data.DataChain):
            return inputs  # a layer applied to data eagerly (preprocessing layers)
        if layer.origin == "add":
            layer.origin = "functional" if not self.origin else self.origin
        return Tensor(layer, parents, self.next_seq())

    def _model_as_layer(self, obj: ModelObj, node: cst.CSTNode | None) -> Layer:
        m = obj.model
        return Layer(
            cls=m.cls if m.kind != "sequential" else "Sequential",
            args={},
            known=m.kind != "unknown",
            file=self.path,
            line=self.line(node),
            text=f"model[{m.index}]",
            origin="functional",
            var=m.var,
        )

    def make_sequential(self, node: cst.Call, env: Env) -> ModelObj:
        model = self.new_model("sequential", "Sequential", node)
        args, kwargs, arg_nodes, kw_nodes = self.call_args(node, env)
        items = args[0] if args else kwargs.pop("layers", None)
        if args:
            arg_nodes = arg_nodes[1:]
            args = args[1:]
        if isinstance(items, list | tuple) and not isinstance(items, Value):
            for item in items:
                self._append_layer(model, item, "list")
        elif isinstance(items, Value) and items.kind == SEQ:
            for item in items.args:
                self._append_layer(model, item, "list")
        elif isinstance(items, LayerObj):
            self._append_layer(model, items, "list")
        model.args = self.kwvalues_of(kwargs, kw_nodes)
        return ModelObj(model)

    def _append_layer(self, model: KerasModel, item: Any, origin: str) -> None:
        if isinstance(item, LayerObj):
            layer = item.layer
            if layer.origin in ("add", "list", "functional"):
                layer.origin = self.origin or origin
            model.layers.append(layer)
        elif isinstance(item, ModelObj):
            model.layers.append(self._model_as_layer(item, None))
        elif isinstance(item, Tensor) and item.layer is not None:
            model.layers.append(item.layer)
        elif isinstance(item, list | tuple) and not isinstance(item, Value):
            for sub in item:
                self._append_layer(model, sub, origin)
        elif isinstance(item, Value):
            model.layers.append(
                Layer(
                    cls=item.text or "?",
                    args={},
                    known=False,
                    file=self.path,
                    line=item.line or self.cur_line,
                    text=item.text,
                    origin=origin,
                )
            )
        elif isinstance(item, Unknown):
            text = self.text(item.node) if item.node is not None else "?"
            model.layers.append(
                Layer(
                    cls=text,
                    args={},
                    known=False,
                    file=self.path,
                    line=item.line or self.cur_line,
                    text=text,
                    origin=origin,
                )
            )

    def make_functional(self, node: cst.Call, env: Env) -> ModelObj:
        args, kwargs, arg_nodes, kw_nodes = self.call_args(node, env)
        inputs = kwargs.pop("inputs", kwargs.pop("input", args[0] if args else None))
        outputs = kwargs.pop("outputs", kwargs.pop("output", args[1] if len(args) > 1 else None))
        model = self.new_model("functional", "Model", node)
        out_tensors = [
            t for t in (outputs if isinstance(outputs, list | tuple) else [outputs]) if isinstance(t, Tensor)
        ]
        in_tensors = [
            t for t in (inputs if isinstance(inputs, list | tuple) else [inputs]) if isinstance(t, Tensor)
        ]
        model.layers = self._trace(out_tensors, in_tensors)
        for k in ("inputs", "outputs"):
            kw_nodes.pop(k, None)
        model.args = self.kwvalues_of({k: v for k, v in kwargs.items() if k in kw_nodes}, kw_nodes)
        if not out_tensors:
            self.program.notes.append(f"functional model at line {model.line}: outputs not resolvable")
        return ModelObj(model)

    def _trace(self, outputs: list[Tensor], inputs: list[Tensor]) -> list[Layer]:
        """Layers between inputs and outputs, in creation order (shared layers once)."""
        seen: dict[int, Tensor] = {}
        stack = list(outputs)
        while stack:
            t = stack.pop()
            if id(t) in seen:
                continue
            seen[id(t)] = t
            stack.extend(t.parents)
        for t in inputs:
            seen.setdefault(id(t), t)
        ordered = sorted(seen.values(), key=lambda t: t.seq)
        out: list[Layer] = []
        index: dict[int, int] = {}
        for t in ordered:
            if t.layer is None or id(t.layer) in index:
                continue
            index[id(t.layer)] = len(out)
            out.append(t.layer)
        for t in ordered:
            if t.layer is not None and not t.layer.inbound:
                t.layer.inbound = [
                    index[id(p.layer)] for p in t.parents if p.layer is not None and id(p.layer) in index
                ]
        return out

    def model_method(self, obj: ModelObj | None, method: str, node: cst.Call, env: Env) -> Any:
        model = obj.model if obj is not None else None
        if method == "add" and model is not None:
            args, kwargs, arg_nodes, _ = self.call_args(node, env)
            item = args[0] if args else kwargs.get("layer")
            if isinstance(item, LayerObj):
                item.layer.line = item.layer.line or self.line(node)
            self._append_layer(model, item if item is not None else Unknown(node, self.cur_line), "add")
            return None
        if method == "pop" and model is not None and model.layers:
            self.call_args(node, env)
            removed = model.layers.pop()
            self.program.notes.append(
                f"model[{model.index}].pop() removed {removed.cls} (line {self.line(node)})"
            )
            return None
        if method == "compile":
            self.record_compile(model, node, env)
            return None
        if method in training.TRAINING_METHODS:
            return self.record_fit(model, method, node, env)
        if method in ("predict", "predict_classes", "predict_proba", "predict_on_batch") or method in (
            "evaluate",
            "evaluate_generator",
        ):
            self.record_use(model, method, node, env)
            return Unknown(node, self.cur_line)
        if method in ("get_layer",) and model is not None:
            self.call_args(node, env)
            return Unknown(node, self.cur_line)
        self.call_args(node, env)
        return Unknown(node, self.cur_line)

    def _collect_loose_layers(self) -> None:
        """Layers built but never put in a model (snippets) form one implicit model, in source order."""
        placed: set[int] = set()
        for m in self.program.models:
            for layer in m.layers:
                placed.add(id(layer))
                if layer.inner is not None:
                    placed.add(id(layer.inner))
        for layer in self.created_layers:
            if layer.inner is not None:
                placed.add(id(layer.inner))
        loose = [layer for layer in self.created_layers if id(layer) not in placed]
        if not loose:
            return
        model = KerasModel(
            index=len(self.program.models),
            kind="loose",
            cls="Sequential",
            file=self.path,
            line=loose[0].line,
            text="(layers not added to any model)",
        )
        model.layers = sorted(loose, key=lambda layer: layer.line or 0)
        self.program.models.append(model)
        self.program.notes.append(f"model[{model.index}]: {len(loose)} layer(s) built outside any model")
