"""TensorFlow 1 graph semantics, training: ``optimizer.minimize(loss)`` and the session loop.

``minimize`` is the graph's compile: a :class:`~mutreal.program.model.Compile` with the loss the
layers module canonicalised and the ``tf.train`` optimizer. Running its train op in a session is a
:class:`~mutreal.program.model.Fit` of method ``session.run``: the loop around it gives the epochs
(the outermost loop's bound), its body the batch size (``next_batch(n)`` or a ``*batch_size*``
name), the arrays fed to the placeholders the training data (placeholders in the order they were
made: inputs before labels; scalar feeds such as a keep probability left out). A run or ``eval``
that trains nothing feeds the test data. Each call site is read once, however often a loop or an
inlined helper runs it.
"""

from __future__ import annotations

import re
from dataclasses import replace
from typing import Any

import libcst as cst

from mutreal.decisions import DecisionId as D
from mutreal.decisions import applies
from mutreal.extract import data, names
from mutreal.extract import tf_graph_api as api
from mutreal.extract.interpreter.values import Env, OptimizerObj, Unknown
from mutreal.extract.tf_graph import NOT_GRAPH, GraphTensor, SessionObj, TfGraphLayers, TrainOp
from mutreal.extract.tf_graph_data import TutorialData
from mutreal.program import keras_api
from mutreal.program.model import (
    CALL,
    CONST,
    OPAQUE,
    REF,
    Compile,
    DataOp,
    Fit,
    KerasModel,
    Value,
)

#: the method name of a training step run in a session (a :class:`Fit` record's ``method``)
SESSION_RUN = "session.run"

#: the key of a graph compile's hand-written metric in ``Compile.args`` (decision PMC-graph-metric)
GRAPH_METRIC = "graph_metric"

#: the comparisons of predictions with labels a hand-written accuracy is made of
METRIC_COMPARISONS = frozenset({"equal", "math.equal"})

_BATCH_NAME = re.compile(r"next_batch\(\s*([^,)]+)|\b(\w*batch_size\w*)\b", re.IGNORECASE)


class TfGraph(TfGraphLayers):
    """Graph training on top of the graph layers (see the module docstring)."""

    # -- methods: minimize, session.run, applying Keras layers to graph tensors ---------------------
    def graph_method(self, receiver: Any, method: str, node: cst.Call, env: Env) -> Any:
        """A method of a graph value, or :data:`NOT_GRAPH`."""
        if isinstance(receiver, OptimizerObj) and method == "minimize":
            return self._minimize(receiver, node, env)
        if isinstance(receiver, OptimizerObj) and method == "compute_gradients":
            args, kwargs, arg_nodes, kw_nodes = self.call_args(node, env)
            loss = args[0] if args else kwargs.get("loss")
            loss_node = arg_nodes[0] if arg_nodes else kw_nodes.get("loss")
            self.__dict__.setdefault("graph_gradients", {})[id(receiver)] = (loss, loss_node)
            return Unknown(node, self.cur_line)
        if isinstance(receiver, OptimizerObj) and method == "apply_gradients":
            known = self.__dict__.get("graph_gradients", {}).get(id(receiver))
            if known is not None:
                return self._minimize(receiver, node, env, known)
        if isinstance(receiver, TutorialData) and method == "next_batch":
            values, kwvalues = self.call_values(node, env)
            size = kwvalues.get("batch_size") or (values[0] if values else Value(OPAQUE, None))
            batch = receiver.next_batch(self._op("slice", "next_batch", {"batch_size": size}, node))
            return batch if batch is not None else Unknown(node, self.cur_line)
        if method == "run" and (
            isinstance(receiver, SessionObj | TrainOp) or self._fetches_train_op(node, env)
        ):
            return self._session_run(receiver, node, env)
        if method == "set_shape" and node.args:
            values, kwvalues = self.call_values(node, env)
            self._record_op("set_shape", {"shape": kwvalues.get("shape") or values[0]}, node)
            return None
        if method == "eval" and any(
            a.keyword is not None and a.keyword.value == "feed_dict" for a in node.args
        ):
            feed = next(
                a.value for a in node.args if a.keyword is not None and a.keyword.value == "feed_dict"
            )
            self._evaluation_feed(feed, env)
            return Unknown(node, self.cur_line)
        if isinstance(receiver, GraphTensor) and method in ("get_shape", "eval", "assign"):
            self.call_args(node, env)
            return Unknown(node, self.cur_line)
        return NOT_GRAPH

    def _minimize(
        self, opt: OptimizerObj, node: cst.Call, env: Env, gradients: tuple[Any, Any] | None = None
    ) -> TrainOp:
        """``optimizer.minimize(loss)``, or ``optimizer.apply_gradients(grads)`` of the gradients
        ``optimizer.compute_gradients(loss)`` gave (``gradients``: that loss and its node), the
        spelled-out minimize of programs that clip or log their gradients: the graph's compile."""
        key = id(node)
        known = self.graph_state().get(key)
        if isinstance(known, TrainOp):
            self.call_args(node, env)
            return known
        args, kwargs, arg_nodes, kw_nodes = self.call_args(node, env)
        if gradients is not None:
            loss, loss_node = gradients
        else:
            loss = args[0] if args else kwargs.get("loss")
            loss_node = arg_nodes[0] if arg_nodes else kw_nodes.get("loss")
        canon = (
            keras_api.canonical_loss(str(loss.value).rsplit(".", 1)[-1])
            if isinstance(loss, Value) and loss.kind in (CALL, REF)
            else None
        )
        if isinstance(loss, GraphTensor) and loss.loss is not None:
            value = loss.loss
        elif canon is not None:  # tf.losses.* read as Keras losses (tf.losses is tf.keras.losses in TF 2)
            value = Value(CONST, canon, text=loss.text)
        else:
            text = loss.text if isinstance(loss, GraphTensor) else (self.text(loss_node) if loss_node else "")
            value = Value(OPAQUE, None, text=text)
        comp = Compile(
            index=len(self.program.compiles),
            model=self.trained_model().index,
            loss=value,
            optimizer=opt.optimizer,
            file=self.path,
            line=self.line(node),
            text=self.text(node),
        )
        self.program.compiles.append(comp)
        self.graph_records.add(id(comp))
        op = TrainOp(comp)
        self.graph_state()[key] = op
        return op

    def _evaluation_feed(self, feed_node: cst.BaseExpression | None, env: Env) -> None:
        """A run or ``eval`` that trains nothing: the arrays it feeds are the test data (the data
        pass compares their preprocessing as it does for Keras' evaluate). A run that feeds the
        batch a training run is fed (the same text, before or after it in the loop) measures
        training, not test data: the first other run gives them."""
        fed = self._fed_arrays(feed_node, env)
        if not fed or "x_test" in self.program.data:
            return
        if self.text(fed[0][1]) in self.__dict__.get("graph_train_feeds", ()):
            return  # the training batch monitored, not test data
        for role, (value, vnode) in zip(("x_test", "y_test"), fed, strict=False):
            self._record_data(role, value, vnode)
        self.graph_test_feed = self.text(fed[0][1])

    def _fetches_train_op(self, node: cst.Call, env: Env) -> bool:
        if not node.args or "graph_calls" not in self.__dict__:
            return False
        first = node.args[0].value
        items = first.elements if type(first) in (cst.List, cst.Tuple) else [first]
        for item in items:
            value = item.value if isinstance(item, cst.Element) else item
            if isinstance(self.ev(value, env), TrainOp):
                return True
        return False

    def _session_run(self, receiver: Any, node: cst.Call, env: Env) -> Any:
        """``sess.run(train_op, feed_dict={x: xs, y: ys})`` inside the training loops."""
        fetches = [self.ev(a.value, env) for a in node.args if a.keyword is None]
        flat: list[Any] = []
        for f in fetches:
            flat.extend(f if isinstance(f, list | tuple) else [f])
        train = next(
            (f for f in flat if isinstance(f, TrainOp)), receiver if isinstance(receiver, TrainOp) else None
        )
        feed_node = next(
            (a.value for a in node.args if a.keyword is not None and a.keyword.value == "feed_dict"), None
        )
        if feed_node is None and len(node.args) > 1 and node.args[1].keyword is None:
            feed_node = node.args[1].value
        if train is None:
            self._evaluation_feed(feed_node, env)
            return Unknown(node, self.cur_line)
        key = id(node)
        calls = self.graph_state()
        if key in calls:
            return Unknown(node, self.cur_line)
        fit = Fit(
            index=len(self.program.fits),
            method=SESSION_RUN,
            model=self.trained_model().index,
            file=self.path,
            line=self.line(node),
            text=self.text(node),
        )
        calls[key] = fit
        self.graph_records.add(id(fit))
        loops = getattr(self, "graph_loops", [])
        if loops:
            fit.args["epochs" if _counts_epochs(loops) else "steps"] = loops[0][0]
        batch = self._batch_size(loops, env)
        if batch is not None:
            fit.args["batch_size"] = batch
        fed = self._fed_entries(feed_node, env)
        first = not self.data_fit_done
        if fed:
            trained = self.text(fed[0][2])
            self.__dict__.setdefault("graph_train_feeds", set()).add(trained)
            if getattr(self, "graph_test_feed", None) == trained:
                # a run before the training step that fed the same batch monitored training:
                # the test data are a later run's
                for role in ("x_test", "y_test"):
                    self.program.data.pop(role, None)
                self.graph_test_feed = None
        for role, (key, value, vnode) in zip(("x", "y"), fed, strict=False):
            fit.args[role] = self._data_ref(f"{role}_train" if first else None, value, vnode)
            if first:
                self._record_data(f"{role}_train", value, vnode)
                if role == "y":
                    self._labels_as_declared(key)
        if first and fed:
            self.data_fit_done = True
        self.program.fits.append(fit)
        return Unknown(node, self.cur_line)

    def _labels_as_declared(self, key: Any) -> None:
        """Decision CPP-label-placeholder: the placeholder the training labels are fed to declares
        the shape they must have (``tf.placeholder(tf.int32, [None, 1])``), a step of the labels'
        preparation, not a tensor of the model: a fix that changes it changes the format the labels
        are fed in (the study's CPP, 'change shape of data for labels'). The shape joins the
        labels' data chain as a reshape, which the data pass compares; the inputs' placeholder stays
        a tensor shape (TWS), the model's input."""
        labels = self.program.data.get("y_train")
        if (
            labels is None
            or not isinstance(key, GraphTensor)
            or key.kind != "placeholder"
            or key.declared is None
        ):
            return
        declared = key.declared
        declared.role = "labels"
        labels.preprocess.append(
            DataOp(
                "reshape",
                name="placeholder",
                args={"shape": key.shape if key.shape is not None else Value.const(None)},
                text=declared.text,
                file=declared.file,
                line=declared.line,
            )
        )

    def _fed_arrays(self, feed_node: cst.BaseExpression | None, env: Env) -> list[tuple[Any, cst.CSTNode]]:
        """The arrays fed to the graph's placeholders (:meth:`_fed_entries` without the keys)."""
        return [(v, n) for _, v, n in self._fed_entries(feed_node, env)]

    def _fed_entries(
        self, feed_node: cst.BaseExpression | None, env: Env
    ) -> list[tuple[Any, Any, cst.CSTNode]]:
        """The placeholders and the arrays fed to them, in the order the placeholders were made
        (inputs before labels); scalars (keep_prob, a learning rate) are left out."""
        if feed_node is None or type(feed_node) is not cst.Dict:
            if feed_node is not None:
                self.ev(feed_node, env)
            return []
        fed: list[tuple[int, Any, Any, cst.CSTNode]] = []
        layers_so_far = self._graph.layers if self._graph is not None else []
        order = {id(layer): i for i, layer in enumerate(layers_so_far)}
        for el in feed_node.elements:
            if type(el) is not cst.DictElement:
                continue
            k, v = self.ev(el.key, env), self.ev(el.value, env)
            if isinstance(v, Value) and v.kind == CONST and not isinstance(v.value, list):
                continue
            if isinstance(k, GraphTensor) and k.layer is not None:
                shape = k.shape.value if k.shape is not None and k.shape.kind == CONST else None
                if shape == [] or shape == ():
                    continue
                fed.append((order.get(id(k.layer), len(order)), k, v, el.value))
            else:
                fed.append((len(order) + len(fed), k, v, el.value))
        fed.sort(key=lambda item: item[0])
        return [(k, v, n) for _, k, v, n in fed]

    def _batch_size(self, loops: list[tuple[Value, str]], env: Env) -> Value | None:
        """The batch size the training loop's body reads: ``next_batch(n)`` or a ``*batch_size*`` name."""
        for _, body in reversed(loops):
            match = _BATCH_NAME.search(body)
            if match is None:
                continue
            text = (match.group(1) or match.group(2)).strip()
            value = env.get(text)
            if isinstance(value, Value) and value.kind == CONST:
                return Value(CONST, value.value, text=text, line=value.line)
            if re.fullmatch(r"\d+", text):
                return Value.const(int(text), text=text)
            return Value(OPAQUE, None, text=text)
        return None

    def exec_for(self, stmt: cst.For, env: Env) -> None:
        """Loops around a training step give its epochs (the outermost) and its batches (the body)."""
        if not self.graph_mode:
            super().exec_for(stmt, env)
            return
        loops: list[tuple[Value, str]] = self.__dict__.setdefault("graph_loops", [])
        bound: Value
        it = stmt.iter
        if (
            type(it) is cst.Call
            and type(it.func) is cst.Name
            and it.func.value in ("range", "xrange")
            and it.args
        ):
            last_arg = it.args[1].value if len(it.args) > 1 else it.args[0].value
            v = self.ev(last_arg, env)
            bound = v if isinstance(v, Value) else Value(OPAQUE, None, text=self.text(last_arg))
            if bound.kind != CONST or bound.text != self.text(last_arg):
                bound = Value(bound.kind, bound.value, bound.args, bound.kwargs, text=self.text(last_arg))
        else:
            bound = Value(OPAQUE, None, text=self.text(it))
        loops.append((bound, self.lines.text(stmt) or self.text(stmt.body)))
        fits_before = len(self.program.fits)
        try:
            super().exec_for(stmt, env)
        finally:
            loops.pop()
        for fit in self.program.fits[fits_before:]:
            if fit.method == SESSION_RUN:
                fit.repeat = None

    # -- the hand-written metric -------------------------------------------------------------------
    def graph_call(self, qn: str, node: cst.Call, env: Env) -> Any:
        """``tf.equal(tf.argmax(pred, 1), tf.argmax(y, 1))``: noted as the graph's metric (see
        :meth:`_note_metric`); every call is then read as before."""
        if api.graph_name(qn) in METRIC_COMPARISONS:
            self._note_metric(node, env)
        return super().graph_call(qn, node, env)

    @applies(D.PMC_GRAPH_METRIC)
    def _note_metric(self, node: cst.Call, env: Env) -> None:
        """Decision PMC-graph-metric: graph code writes its accuracy by hand, comparing what the
        model predicts with the labels (``tf.equal(tf.argmax(pred, 1), tf.argmax(y, 1))``). The
        first such comparison is kept as the skeletons of its two operands (functions and their
        constant arguments, tensors written ``_``: renamed tensors give the same skeletons) and
        given to the graph's compiles when the walk ends (``Compile.args['graph_metric']``)."""
        metrics = self.__dict__.setdefault("graph_metrics", [])
        if metrics:
            return
        operands = [
            self._skeleton(a.value, env)
            for a in node.args
            if a.keyword is None or a.keyword.value in ("x", "y")
        ]
        metrics.append(Value(CONST, operands, text=self.text(node), line=self.line(node)))

    def _skeleton(self, node: cst.BaseExpression, env: Env) -> str:
        """A metric expression with its tensors left out (see :meth:`_note_metric`)."""
        if type(node) is cst.Call:
            name = names.dotted(node.func)
            head = name.rsplit(".", 1)[-1] if name else "?"
            parts = [
                (f"{a.keyword.value}=" if a.keyword is not None else "") + self._skeleton(a.value, env)
                for a in node.args
            ]
            return f"{head}({', '.join(parts)})"
        if type(node) is cst.BinaryOperation or type(node) is cst.Comparison:
            return "_op_"
        if type(node) in (cst.Name, cst.Attribute, cst.Integer, cst.Float, cst.SimpleString):
            value = self.ev(node, env)
            if isinstance(value, Value) and value.kind == CONST and not isinstance(value.value, list | dict):
                return repr(value.value)
            if isinstance(value, Value) and value.kind == REF and isinstance(value.value, str):
                return value.value.rsplit(".", 1)[-1]
        return "_"

    def finish_graph(self) -> None:
        super().finish_graph()
        metrics = self.__dict__.get("graph_metrics")
        if metrics and "graph_calls" in self.__dict__:
            for comp in self.program.compiles:
                if id(comp) in self.graph_records:
                    comp.args.setdefault(GRAPH_METRIC, metrics[0])

    def enter_graph_mode(self) -> None:
        super().enter_graph_mode()
        self._evaluators[cst.ListComp] = self.ev_graph_comprehension

    @applies(D.CPP_ROW_MAP)
    def ev_graph_comprehension(self, node: cst.ListComp, env: Env) -> Any:
        """Decision CPP-row-map: ``[np.argmax(row) for row in y_batch]`` applies a data function to
        every row of an array, which is that function applied to the array: the chain the element
        expression gives, with the row bound to the array, is the comprehension's value (its new
        steps written as the comprehension). Graph programs prepare the batches they feed so (TF 1
        tutorials decode one-hot labels row by row). Only a NumPy function is mapped so (it builds
        nothing in the graph); any other comprehension as before."""
        comp = node.for_in
        if (
            comp.inner_for_in is None
            and not comp.ifs
            and type(comp.target) is cst.Name
            and _numpy_call(node.elt, self.imports)
        ):
            rows = self.ev(comp.iter, env)
            if isinstance(rows, data.DataChain):
                local = Env(env)
                self.bind(comp.target, rows, local)
                mapped = self.ev(node.elt, local)
                if (
                    isinstance(mapped, data.DataChain)
                    and mapped.source is rows.source
                    and len(mapped.ops) > len(rows.ops)
                    and mapped.ops[: len(rows.ops)] == rows.ops
                ):
                    text, line = self.text(node), self.line(node)
                    steps = [replace(op, text=text, line=line) for op in mapped.ops[len(rows.ops) :]]
                    return data.DataChain(rows.source, [*rows.ops, *steps], rows.var, rows.part)
        return self.ev_comprehension(node, env)

    def trained_model(self) -> KerasModel:
        """The model a ``minimize`` or training ``run`` belongs to: the graph's, or in a program that
        builds a Keras model and trains it in a session, that Keras model (read once, not twice)."""
        if self._graph is None:
            keras_models = [m for m in self.program.models if m.kind not in ("graph", "loose")]
            if keras_models:
                return keras_models[-1]
        return self.graph_model()


def _numpy_call(node: cst.BaseExpression, imports: names.ImportTable) -> bool:
    """Whether an expression is a call of a NumPy function (``np.argmax(row)``)."""
    if type(node) is not cst.Call or type(node.func) not in (cst.Name, cst.Attribute):
        return False
    return (imports.resolve(node.func) or "").startswith("numpy.")


@applies(D.HNE_GRAPH_EPOCHS)
def _counts_epochs(loops: list[tuple[Value, str]]) -> bool:
    """Decision HNE-graph-epochs: the outermost loop around a training run counts epochs when it
    says so (``for epoch in range(n)``, ``range(training_epochs)``) or when a loop over batches runs
    inside it (a pass over the data per turn); a single loop that says nothing of epochs,
    ``for i in range(20000): sess.run(train, feed_dict=next_batch(50))``, counts training steps,
    one batch each, which the study did not read as a number of epochs (it is kept as ``steps``)."""
    header = loops[0][1].split("\n", 1)[0]
    return len(loops) > 1 or "epoch" in header.lower() or "epoch" in (loops[0][0].text or "").lower()
