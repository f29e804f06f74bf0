"""TensorFlow 1 graph semantics: placeholders, graph layers, losses, ``minimize`` and session loops.

Graph code builds no Keras model, yet the study labelled its faults with the same codes, so this
front-end reads it into the same :class:`~mutreal.program.model.ProgramModel` the Keras semantics
fill: one model of kind ``"graph"`` whose layers are the graph's operations in source order
(placeholders as ``Input``, ``tf.layers.dense`` / ``tf.matmul(x, W) + b`` as ``Dense``, ``tf.nn.relu``
as ``Activation``, ``tf.nn.conv2d`` as ``Conv2D``...), a ``Compile`` per ``optimizer.minimize(loss)``
(the loss canonicalised as for Keras, the optimizer through the ``tf.train`` table), a ``Fit`` of
method ``session.run`` per training ``sess.run(train_op, feed_dict=...)`` (epochs from the loop
around it, the batch size its feed slices or ``next_batch`` read, the fed arrays as the training
data), and the shape-changing tensor operations (``tf.reshape``, ``tf.expand_dims``...) as
:class:`~mutreal.program.model.TensorOp` records. Training (``minimize``, session loops) is
:mod:`mutreal.extract.tf_graph_training`. Only a program the walker found raw TensorFlow in
(``graph_mode``) is read this way, so Keras programs walk exactly as before; a Keras model
trained in a session, or graph layers fed to a Keras ``fit``, are read by both, each element once.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import libcst as cst

from mutreal.extract import constants, data, layers, names
from mutreal.extract import tf_graph_api as api
from mutreal.extract import tf_graph_data as tutorial
from mutreal.extract.interpreter.values import Env, LayerObj, ModelObj, Unknown
from mutreal.extract.keras_layers import KerasLayers
from mutreal.program import keras_api
from mutreal.program.model import (
    CALL,
    CONST,
    OPAQUE,
    REF,
    Compile,
    KerasModel,
    Layer,
    TensorOp,
    Value,
)

#: what a graph-code call returns when it is none of the graph's business
NOT_GRAPH = object()


@dataclass
class GraphTensor:
    """A tensor of the graph: what produced it (a graph layer, a variable, a loss)."""

    layer: Layer | None = None
    kind: str = "tensor"  # placeholder, variable, tensor, loss
    shape: Value | None = None
    #: a variable's initializer (canonical name) and its shape as constants when known
    init: Value | None = None
    dims: list[Any] | None = None
    #: the canonical loss name when this tensor is (a reduction of) a loss
    loss: Value | None = None
    text: str = ""
    #: a variable's shape as a tensor operation (dropped when a layer's weights read it)
    op: TensorOp | None = None
    #: a placeholder's declared shape as a tensor operation (dropped when it is fed the labels)
    declared: TensorOp | None = None


@dataclass
class GraphCell:
    """A recurrent cell (``BasicLSTMCell(128)``) before ``dynamic_rnn`` runs it."""

    cls: str
    args: dict[str, Value] = field(default_factory=dict)
    text: str = ""


@dataclass
class TrainOp:
    """``optimizer.minimize(loss)``: running it in a session is a training step."""

    compile: Compile


@dataclass
class GraphDict:
    """A dict literal of graph tensors by name (``weights = {'wc1': tf.Variable(...)}``)."""

    entries: dict[str, Any]


@dataclass
class SessionObj:
    """A ``tf.Session()``."""


class TfGraphLayers(KerasLayers):
    """Graph semantics on top of the Keras ones: layers, losses and tensor operations (the module
    docstring); :class:`~mutreal.extract.tf_graph_training.TfGraph` adds training."""

    graph_mode: bool = False
    _graph: KerasModel | None = None

    # -- the graph model ---------------------------------------------------------------------------
    def graph_state(self) -> dict[int, Any]:
        """The call sites already read (a loop or an inlined helper runs a site again)."""
        calls = self.__dict__.get("graph_calls")
        if calls is None:
            calls = self.__dict__["graph_calls"] = {}
            self.graph_records: set[int] = set()
        return calls

    def graph_model(self) -> KerasModel:
        """The one model of the graph, created with its first layer."""
        self.graph_state()
        if self._graph is None:
            self._graph = KerasModel(
                index=len(self.program.models),
                kind="graph",
                cls="Graph",
                file=self.path,
                line=self.cur_line,
                text="(TensorFlow graph)",
            )
            self.program.models.append(self._graph)
        return self._graph

    def graph_layer(self, cls: str, args: dict[str, Value], node: cst.CSTNode) -> GraphTensor:
        layer = Layer(
            cls=cls,
            args={k: v for k, v in args.items() if v is not None},
            known=keras_api.is_layer(cls),
            file=self.path,
            line=self.line(node),
            text=self.text(node),
            origin="graph",
        )
        self.graph_model().layers.append(layer)
        return GraphTensor(layer=layer, text=layer.text)

    # -- dispatch ----------------------------------------------------------------------------------
    def graph_call(self, qn: str, node: cst.Call, env: Env) -> Any:
        """A ``tensorflow.*`` call in graph code, or :data:`NOT_GRAPH` when it builds nothing here."""
        name = api.graph_name(qn)
        if name is None:
            return NOT_GRAPH
        last = name.rsplit(".", 1)[-1]
        if name == tutorial.LOADER:
            values, kwvalues = self.call_values(node, env)
            return tutorial.tutorial_source(values, kwvalues, self.text(node), self.path, self.line(node))
        if name == "placeholder" or name == "placeholder_with_default":
            return self._placeholder(node, env)
        if name in ("Variable", "get_variable"):
            return self._variable(name, node, env)
        if name in api.ACTIVATIONS:
            return self._activation(qn, api.ACTIVATIONS[name], node, env)
        if name in api.LAYER_FUNCTIONS:
            return self._layer_function(name, node, env)
        if name in ("matmul", "linalg.matmul"):
            return self._matmul(node, env)
        if name in ("add", "nn.bias_add", "math.add"):
            args, _, _, _ = self.call_args(node, env)
            if len(args) == 2 and isinstance(args[0], GraphTensor):
                return self.graph_binary(args[0], args[1], node)
            return next((a for a in args if isinstance(a, GraphTensor)), NOT_GRAPH)
        if name in ("nn.conv2d", "nn.conv1d"):
            return self._conv(name, node, env)
        if name in ("nn.max_pool", "nn.avg_pool", "nn.max_pool2d", "nn.avg_pool2d"):
            return self._pool(name, node, env)
        if name == "nn.dropout":
            return self._dropout(node, env)
        if last in api.RNN_CELLS and name.startswith(("rnn.", "nn.rnn_cell.", "contrib.rnn.")):
            values, kwvalues = self.call_values(node, env)
            units = kwvalues.get("num_units") or (values[0] if values else None)
            return GraphCell(
                api.RNN_CELLS[last], {"units": units} if units is not None else {}, self.text(node)
            )
        if last in api.RNN_RUNNERS:
            return self._rnn(node, env)
        if name in api.LOSSES:
            return self._loss(api.LOSSES[name], node, env)
        if name in api.REDUCTIONS or name in ("square", "math.square", "squared_difference", "abs", "log"):
            return self._reduction(qn, name, node, env)
        if name in api.SHAPE_OPS:
            return self._shape_op(qn, name, node, env)
        if name in api.INITIALISERS or last in api.INITIALISERS:
            return self.initialiser_call(name, node, env)
        if last in api.SESSIONS or name in api.SESSIONS:
            self.call_args(node, env)
            self.graph_state()
            self.graph_session = True
            return SessionObj()
        return NOT_GRAPH

    # -- inputs and variables ----------------------------------------------------------------------
    def _placeholder(self, node: cst.Call, env: Env) -> GraphTensor:
        values, kwvalues = self.call_values(node, env)
        dtype = kwvalues.get("dtype") or (values[0] if values else None)
        shape = kwvalues.get("shape") or (values[1] if len(values) > 1 else None)
        if dtype is not None and dtype.kind == REF and api.graph_name(str(dtype.value)):
            dtype = Value(
                REF, f"tensorflow.{api.graph_name(str(dtype.value))}", text=dtype.text, line=dtype.line
            )
        # the shape is a tensor's (decision TWS-placeholder): a tensor operation, not a layer argument
        op = self._record_op(
            "placeholder", {"shape": shape if shape is not None else Value.const(None)}, node
        )
        t = self.graph_layer("Input", {"dtype": dtype} if dtype is not None else {}, node)
        t.kind, t.shape, t.declared = "placeholder", shape, op
        return t

    def _variable(self, name: str, node: cst.Call, env: Env) -> GraphTensor:
        args, kwargs, arg_nodes, kw_nodes = self.call_args(node, env)
        if name == "get_variable":
            shape = kwargs.get("shape", args[1] if len(args) > 1 else None)
            init = kwargs.get("initializer")
        else:
            init = args[0] if args else kwargs.get("initial_value")
            shape = init.shape if isinstance(init, GraphTensor) else None
        dims = shape.value if isinstance(shape, Value) and shape.kind == CONST else None
        init_value = init.init if isinstance(init, GraphTensor) else None
        if init_value is None and isinstance(init, Value) and init.kind in (CALL, REF):
            init_value = Value.const(_initializer_name(str(init.value)) or str(init.value), text=init.text)
        op = None
        if isinstance(shape, Value):
            op = self._record_op("Variable", {"shape": shape}, node)
        return GraphTensor(
            kind="variable",
            shape=shape if isinstance(shape, Value) else None,
            init=init_value,
            dims=list(dims) if isinstance(dims, list | tuple) else None,
            text=self.text(node),
            op=op,
        )

    def _record_op(self, name: str, args: dict[str, Value], node: cst.CSTNode) -> TensorOp:
        """A tensor operation, once per call site (loops and inlined helpers run a site again)."""
        calls = self.graph_state()
        known = calls.get(id(node))
        if isinstance(known, TensorOp):
            return known
        op = TensorOp(op=name, args=args, text=self.text(node), file=self.path, line=self.line(node))
        calls[id(node)] = op
        self.program.tensor_ops.append(op)
        return op

    def _weights_read(self, weight: Any) -> None:
        """A variable a layer reads as its weights: its shape is the layer's (units, filters)."""
        if isinstance(weight, GraphTensor) and weight.op is not None and weight.op in self.program.tensor_ops:
            self.program.tensor_ops.remove(weight.op)

    def initialiser_call(self, name: str, node: cst.Call, env: Env) -> Any:
        """``tf.random_normal([784, 10])``: a variable's initial value with its shape."""
        values, kwvalues = self.call_values(node, env)
        shape = kwvalues.get("shape") or (values[0] if values else None)
        init = _initializer_name(name)
        return GraphTensor(
            kind="initial",
            shape=shape,
            init=Value.const(init, text=self.text(node)) if init else None,
            text=self.text(node),
        )

    # -- layers ------------------------------------------------------------------------------------
    def _activation(self, qn: str, name: str, node: cst.Call, env: Env) -> Any:
        args, _, _, _ = self.call_args(node, env)
        if args and isinstance(args[0], data.DataChain):
            return args[0].derive(self._op("call", qn, {}, node))
        return self.graph_layer(
            "Activation", {"activation": Value(CONST, name, text=self.text(node), line=self.line(node))}, node
        )

    def _layer_function(self, name: str, node: cst.Call, env: Env) -> GraphTensor:
        cls, params, default_activation = api.LAYER_FUNCTIONS[name]
        args, kwargs, arg_nodes, kw_nodes = self.call_args(node, env)
        values = self.values_of(args[1:], arg_nodes[1:])
        kwvalues = {
            api.LAYER_KWARGS.get(k, k): v
            for k, v in self.kwvalues_of(kwargs, kw_nodes).items()
            if k not in ("inputs", "name", "reuse", "training", "scope", "x")
        }
        named: dict[str, Value] = {}
        for i, v in enumerate(values):
            named[params[i] if i < len(params) else f"_{i}"] = v
        named.update(kwvalues)
        if "keep_prob" in named:
            named["rate"] = _one_minus(named.pop("keep_prob"))
        if "activation" in named:
            named["activation"] = _activation_value(named["activation"])
        elif default_activation is not None:
            named["activation"] = Value.const(default_activation)
        norm, _ = layers.normalise_layer_args(cls, [], named, self.era)
        return self.graph_layer(cls, norm, node)

    def _matmul(self, node: cst.Call, env: Env) -> Any:
        args, kwargs, _, _ = self.call_args(node, env)
        a = args[0] if args else kwargs.get("a")
        b = args[1] if len(args) > 1 else kwargs.get("b")
        weight = b if isinstance(b, GraphTensor) and b.kind == "variable" else None
        if weight is None:
            if isinstance(a, GraphTensor | GraphCell) or isinstance(b, GraphTensor):
                return GraphTensor(text=self.text(node))
            return NOT_GRAPH
        self._weights_read(weight)
        dims = weight.dims or []
        args_out: dict[str, Value] = {}
        if len(dims) == 2:
            args_out["units"] = _const(dims[1])
        elif weight.shape is not None:
            args_out["units"] = Value(OPAQUE, None, text=weight.shape.text)
        if weight.init is not None:
            args_out["kernel_initializer"] = weight.init
        return self.graph_layer("Dense", args_out, node)

    def _conv(self, name: str, node: cst.Call, env: Env) -> Any:
        args, kwargs, arg_nodes, kw_nodes = self.call_args(node, env)
        filt = args[1] if len(args) > 1 else kwargs.get("filter", kwargs.get("filters"))
        out: dict[str, Value] = {}
        self._weights_read(filt)
        dims = filt.dims if isinstance(filt, GraphTensor) else None
        if dims and len(dims) >= 3:
            out["filters"] = _const(dims[-1])
            out["kernel_size"] = _const(list(dims[:-2]))
        if isinstance(filt, GraphTensor) and filt.init is not None:
            out["kernel_initializer"] = filt.init
        kw = self.kwvalues_of(kwargs, kw_nodes)
        pos = self.values_of(args, arg_nodes)
        strides = kw.get("strides") or (pos[2] if len(pos) > 2 else None)
        padding = kw.get("padding") or (pos[3] if len(pos) > 3 else None)
        if strides is not None:
            out["strides"] = _inner_dims(strides)
        if padding is not None:
            out["padding"] = _lower(padding)
        return self.graph_layer("Conv2D" if name.endswith("2d") else "Conv1D", out, node)

    def _pool(self, name: str, node: cst.Call, env: Env) -> GraphTensor:
        values, kwvalues = self.call_values(node, env)
        ksize = kwvalues.get("ksize") or (values[1] if len(values) > 1 else None)
        strides = kwvalues.get("strides") or (values[2] if len(values) > 2 else None)
        padding = kwvalues.get("padding") or (values[3] if len(values) > 3 else None)
        out: dict[str, Value] = {}
        if ksize is not None:
            out["pool_size"] = _inner_dims(ksize)
        if strides is not None:
            out["strides"] = _inner_dims(strides)
        if padding is not None:
            out["padding"] = _lower(padding)
        return self.graph_layer("MaxPooling2D" if "max" in name else "AveragePooling2D", out, node)

    def _dropout(self, node: cst.Call, env: Env) -> GraphTensor:
        values, kwvalues = self.call_values(node, env)
        if "rate" in kwvalues:
            rate: Value | None = kwvalues["rate"]
        else:
            keep = kwvalues.get("keep_prob") or (values[1] if len(values) > 1 else None)
            rate = _one_minus(keep) if keep is not None else None
        return self.graph_layer("Dropout", {"rate": rate} if rate is not None else {}, node)

    def _rnn(self, node: cst.Call, env: Env) -> Any:
        args, kwargs, _, _ = self.call_args(node, env)
        cell = args[0] if args else kwargs.get("cell")
        cells = [c for c in (cell if isinstance(cell, list | tuple) else [cell]) if isinstance(c, GraphCell)]
        if not cells:
            return GraphTensor(text=self.text(node))
        out: GraphTensor | None = None
        for c in cells:
            out = self.graph_layer(c.cls, dict(c.args), node)
        return (out, GraphTensor(text=self.text(node)))

    # -- losses and shapes -------------------------------------------------------------------------
    def _loss(self, name: str, node: cst.Call, env: Env) -> GraphTensor:
        self.call_args(node, env)
        loss = Value(CONST, name, text=self.text(node), line=self.line(node))
        return GraphTensor(kind="loss", loss=loss, text=self.text(node))

    def _reduction(self, qn: str, name: str, node: cst.Call, env: Env) -> Any:
        args, kwargs, _, _ = self.call_args(node, env)
        first = args[0] if args else kwargs.get("input_tensor")
        chain = next((a for a in args if isinstance(a, data.DataChain)), None)
        if chain is not None:
            return chain.derive(self._op("call", qn, {}, node))
        text = self.text(node)
        if name in api.REDUCTIONS:
            if isinstance(first, GraphTensor) and first.loss is not None:
                return GraphTensor(kind="loss", loss=first.loss, text=text)
            return GraphTensor(
                kind="loss", loss=Value(OPAQUE, None, text=text, line=self.line(node)), text=text
            )
        if name in ("square", "math.square", "squared_difference"):
            return GraphTensor(
                kind="loss",
                loss=Value(CONST, "mean_squared_error", text=text, line=self.line(node)),
                text=text,
            )
        if name == "abs":
            return GraphTensor(
                kind="loss",
                loss=Value(CONST, "mean_absolute_error", text=text, line=self.line(node)),
                text=text,
            )
        return GraphTensor(text=text)

    def _shape_op(self, qn: str, name: str, node: cst.Call, env: Env) -> Any:
        args, kwargs, arg_nodes, kw_nodes = self.call_args(node, env)
        chain = next((a for a in args if isinstance(a, data.DataChain)), None)
        if chain is not None:
            return chain.derive(self._op("call", qn, {}, node))
        params = api.SHAPE_OPS[name]
        skip = 0 if name in api.SHAPE_CONSTRUCTORS else 1  # the tensor the operation reshapes
        values = self.values_of(args[skip:], arg_nodes[skip:])
        named = {params[i] if i < len(params) else f"_{i}": v for i, v in enumerate(values)}
        named.update(
            {
                k: v
                for k, v in self.kwvalues_of(kwargs, kw_nodes).items()
                if k not in ("name", "tensor", "input")
            }
        )
        if name in api.SHAPE_OPS_NEEDING_ARGS and not named:
            first = args[0] if args else None
            return first if isinstance(first, GraphTensor) else GraphTensor(text=self.text(node))
        self._record_op(name, named, node)
        first = args[0] if args else None
        if isinstance(first, GraphTensor) and first.loss is not None:
            return first
        return GraphTensor(text=self.text(node))

    def graph_apply(self, target: LayerObj, inputs: Any, node: cst.Call) -> Any:
        """A Keras layer applied to a graph tensor: a layer of the graph."""
        layer = target.layer
        target.applied = True
        layer.origin = "graph"
        self.graph_model().layers.append(layer)
        return GraphTensor(layer=layer, text=layer.text)

    def graph_binary(self, left: Any, right: Any, node: cst.CSTNode) -> Any:
        """``x @ W + b``, ``y - pred``: arithmetic on graph tensors stays a graph tensor (a bias added
        to a Dense's output is the Dense's bias); a loss keeps its name through scaling."""
        for side in (left, right):
            if isinstance(side, GraphTensor) and side.loss is not None:
                return side
        for side, other in ((left, right), (right, left)):
            if isinstance(side, GraphTensor) and side.layer is not None and isinstance(other, GraphTensor):
                self._weights_read(other)  # a bias variable added to a layer's output
        if isinstance(left, GraphTensor) and left.kind != "variable":
            return left if left.layer is not None else GraphTensor(text=self.text(node))
        if isinstance(right, GraphTensor) and right.kind != "variable":
            return right if right.layer is not None else GraphTensor(text=self.text(node))
        return GraphTensor(text=self.text(node))

    def enter_graph_mode(self) -> None:
        """Graph code from here on: negated tensors are read by :meth:`ev_graph_unary` (only graph
        programs pay for it; the walker's other expressions are evaluated as before)."""
        self.graph_mode = True
        self.graph_fragment = not self.imports.aliases
        self._evaluators[cst.UnaryOperation] = self.ev_graph_unary
        self._evaluators[cst.Attribute] = self.ev_graph_attribute
        self._evaluators[cst.Comparison] = self.ev_graph_comparison
        self._evaluators[cst.Dict] = self.ev_graph_dict
        self._evaluators[cst.Subscript] = self.ev_graph_subscript

    def ev_graph_dict(self, node: cst.Dict, env: Env) -> Any:
        """``weights = {'wc1': tf.Variable(...), ...}``: the weights of a graph kept in a dict by
        name (TF 1 tutorials write their models so); a :class:`GraphDict` whose entries the
        layers read through ``weights['wc1']`` as they read a variable; any other dict as before."""
        if node.elements and all(
            type(el) is cst.DictElement and type(el.key) is cst.SimpleString for el in node.elements
        ):
            entries = {
                el.key.evaluated_value: self.ev(el.value, env)  # type: ignore[union-attr]
                for el in node.elements
            }
            if any(isinstance(v, GraphTensor) for v in entries.values()):
                return GraphDict(entries)
        return self.ev_dict(node, env)

    def ev_graph_subscript(self, node: cst.Subscript, env: Env) -> Any:
        """``weights['wc1']`` of a :class:`GraphDict`: its entry; any other subscript as before."""
        if len(node.slice) == 1 and type(node.slice[0].slice) is cst.Index:
            key = node.slice[0].slice.value
            if type(key) is cst.SimpleString:
                base = self.ev(node.value, env)
                if isinstance(base, GraphDict) and key.evaluated_value in base.entries:
                    return base.entries[key.evaluated_value]
        return self.ev_subscript(node, env)

    def graph_fragment_names(self) -> None:
        """In a graph fragment that imports nothing, ``rnn.`` is TensorFlow 1's
        ``tensorflow.contrib.rnn`` (its tutorials' ``from tensorflow.contrib import rnn``), as
        ``tf.`` is TensorFlow: the cells and runners of a posted snippet are read as the completed
        program's are."""
        if getattr(self, "graph_fragment", False):
            self.imports.aliases.setdefault("rnn", "tensorflow.contrib.rnn")

    def ev_graph_comparison(self, node: cst.Comparison, env: Env) -> Any:
        """``(np.arange(n) == y[:, None])``: the labels compared with every class id, the one-hot
        encoding graph programs write by hand (decision CPP-one-hot), a step of the labels' chain;
        any other comparison as before."""
        if len(node.comparisons) == 1 and type(node.comparisons[0].operator) is cst.Equal:
            sides = (node.left, node.comparisons[0].comparator)
            for side, other in (sides, sides[::-1]):
                other_name = names.dotted(other.func) if type(other) is cst.Call else None
                if other_name is None or other_name.rsplit(".", 1)[-1] != "arange":
                    continue
                chain = self.ev(side, env)
                if isinstance(chain, data.DataChain):
                    return chain.derive(self._op("one_hot", "arange", {}, node))
        return self.ev_comparison(node, env)

    def ev_graph_attribute(self, node: cst.Attribute, env: Env) -> Any:
        """``mnist.train.images``: the tutorial data sets' arrays; any other attribute as before."""
        key = names.dotted(node)
        if key is not None:
            head, *rest = key.split(".")
            value = env.get(head)
            if isinstance(value, tutorial.TutorialData) and env.get(key) is None:
                for attr in rest:
                    value = value.attribute(attr) if isinstance(value, tutorial.TutorialData) else None
                return value if value is not None else Unknown(node, self.cur_line)
        return self.ev_attribute(node, env)

    def ev_graph_unary(self, node: cst.UnaryOperation, env: Env) -> Any:
        """``-tf.reduce_sum(y * tf.log(p))``: a negated graph tensor stays one (a hand-written loss)."""
        inner = self.ev(node.expression, env)
        if isinstance(inner, GraphTensor):
            text = self.text(node)
            loss = Value(OPAQUE, None, text=text) if inner.loss is not None else None
            return GraphTensor(kind=inner.kind if loss is None else "loss", loss=loss, text=text)
        if isinstance(inner, Value) and inner.kind == CONST:
            v = constants.fold_unary(node.operator, inner.value)
            if v is not constants.NOT_CONST:
                return self.lazy(CONST, v, node, self.cur_line)
        return self.lazy(OPAQUE, None, node, self.cur_line)

    def binary(
        self, op_name: str, left: Any, right: Any, right_node: cst.CSTNode, node: cst.CSTNode, env: Env
    ) -> Any:
        if self.graph_mode and (isinstance(left, GraphTensor) or isinstance(right, GraphTensor)):
            return self.graph_binary(left, right, node)
        return super().binary(op_name, left, right, right_node, node, env)

    def apply_layer(self, target: LayerObj | ModelObj, node: cst.Call, env: Env) -> Any:
        if self.graph_mode and isinstance(target, LayerObj) and node.args:
            first = node.args[0].value
            if type(first) in (cst.Name, cst.Attribute, cst.Subscript):
                value = self.ev(first, env)
                if isinstance(value, GraphTensor):
                    self.call_args(node, env)
                    return self.graph_apply(target, value, node)
        return super().apply_layer(target, node, env)

    def is_graph_record(self, record: Any) -> bool:
        """Whether a compile or fit record came from graph code (not from a Keras call)."""
        return "graph_calls" in self.__dict__ and id(record) in self.graph_records

    @property
    def graph_model_or_none(self) -> KerasModel | None:
        return self._graph

    def finish_graph(self) -> None:
        """A graph whose layers this file never builds (a snippet that minimizes a loss made out of
        view) is a model used without being built, like a Keras model compiled but never built."""
        graph = self._graph
        if graph is not None and all(layer.cls == "Input" for layer in graph.layers):
            graph.kind, graph.layers = "unknown", []
            self.program.notes.append("TensorFlow graph trained without its layers being built in this file")

    def graph_tensor_chain(self, chain: data.DataChain) -> bool:
        """Decision CPP-completion-data in graph code: a chain of an array never followed to a
        source (``1.0 / tf.cast(input_size, tf.float32)`` of a tensor's dimension) whose every step
        is a TensorFlow call is tensor arithmetic of the graph, not data the program binds; a
        snippet with only such chains has no data of its own for a completion to be compared with."""
        source = chain.source
        return (
            source is not None
            and source.kind == "opaque"
            and bool(chain.ops)
            and all("tf." in (op.text or "") for op in chain.ops)
        )

    @property
    def graph_read(self) -> bool:
        """Whether the walk met graph code at all (a session, a variable, a tensor operation)."""
        return "graph_calls" in self.__dict__


def _const(v: Any) -> Value:
    return Value.const(v, text=str(v))


def _initializer_name(name: str) -> str | None:
    last = name.rsplit(".", 1)[-1]
    short = name.split("tensorflow.", 1)[-1].replace("compat.v1.", "")
    return api.INITIALISERS.get(short) or api.INITIALISERS.get(last)


def _activation_value(v: Value) -> Value:
    if v.kind in (REF, CALL) and isinstance(v.value, str):
        last = v.value.rsplit(".", 1)[-1]
        canon = keras_api.canonical_activation(last)
        if canon:
            return Value(CONST, canon, text=v.text, line=v.line)
    if v.kind == CONST and v.value is None:
        return Value(CONST, "linear", text=v.text, line=v.line)
    return v


def _one_minus(v: Value) -> Value:
    """A keep probability as a drop rate."""
    if v.kind == CONST and isinstance(v.value, int | float) and not isinstance(v.value, bool):
        return Value(CONST, round(1 - v.value, 10), text=v.text, line=v.line)
    return Value(v.kind, v.value, v.args, v.kwargs, text=f"1 - ({v.text})", line=v.line)


def _inner_dims(v: Value) -> Value:
    """``[1, 2, 2, 1]`` (NHWC) -> ``[2, 2]``: the spatial part Keras layers take."""
    if v.kind == CONST and isinstance(v.value, list | tuple) and len(v.value) == 4:
        return Value(CONST, list(v.value[1:3]), text=v.text, line=v.line)
    return v


def _lower(v: Value) -> Value:
    if v.kind == CONST and isinstance(v.value, str):
        return Value(CONST, v.value.lower(), text=v.text, line=v.line)
    return v
