"""The program model (IR) of a Keras program: models, layers, compile, fit and data operations.

``mutreal.extract`` builds a :class:`ProgramModel` from LibCST; ``mutreal.compare`` compares two of them
and never looks at source text again. Every class here is a plain dataclass with ``to_dict()`` /
``from_dict()`` (the field copy of :class:`mutreal.serialise.Record`) so models can be cached and
shipped between processes as JSON.

Values keep both a normalised form (what the diff compares, see :meth:`Value.key`) and the source
text (what reports show). Anything the extractor could not resolve is an ``opaque`` :class:`Value`
that still carries its text: nothing is dropped silently.

The value type lives in :mod:`mutreal.program.model_value` and the element-path grammar (see
``docs/element-paths.md``) in :mod:`mutreal.program.element_paths`; both are re-exported here, so
``from mutreal.program.model import Value, layer_path`` keeps working.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from mutreal.program.element_paths import (  # noqa: F401 - re-exported: the model's path grammar
    _SEGMENT,
    _indexed,
    canonical_path,
    compile_path,
    data_path,
    evaluation_path,
    fit_path,
    format_path,
    layer_path,
    parse_path,
)
from mutreal.program.model_value import (  # noqa: F401 - re-exported: the model's value type
    CALL,
    CONST,
    NAME,
    OPAQUE,
    REF,
    SEQ,
    VALUE_KINDS,
    Value,
    _freeze,
    implicit_default,
    written_at,
)
from mutreal.serialise import Record, wire

# ---------------------------------------------------------------------------------------------------
# Models and layers
# ---------------------------------------------------------------------------------------------------


@dataclass
class Layer(Record):
    """One layer instance of a model, in model order.

    ``cls`` is the canonical Keras class name (``Conv2D`` for ``Convolution2D``) when
    ``known``; else the name as written (a custom layer or an opaque expression). ``args`` maps
    canonical argument names to values *as written* (legacy names already mapped, positional
    arguments named where the era's signature is known, unnamed ones as ``"_0"``, ``"_1"``).
    Implicit defaults are not stored: use :meth:`arg` with an era to read them.
    """

    cls: str
    args: dict[str, Value] = field(default_factory=dict)
    known: bool = True
    file: str = "<string>"
    line: int | None = None
    text: str = ""
    #: how the layer entered the model: "list", "add", "functional", "subclass", "helper", "loop",
    #: "graph" (an operation of TensorFlow 1 graph code, :mod:`mutreal.extract.tf_graph`)
    origin: str = "add"
    #: the variable the layer (or its output tensor, in functional code) was bound to
    var: str | None = None
    #: functional API: indexes (in the model's ``layers``) of the layers feeding this one; [] = model input
    inbound: list[int] = field(default_factory=list)
    #: for wrappers (TimeDistributed, Bidirectional): the wrapped layer
    inner: Layer | None = field(default=None, metadata=wire(omit="none"))
    #: the headers of the ``if``/``for``/``while`` blocks the layer is built in (their lines, outer
    #: first, within its function): a component adding, dropping or rebuilding it points at them too
    blocks: list[int] = field(default_factory=list, compare=False, metadata=wire(omit="empty"))
    #: a ``Lambda`` layer whose function is a user function of the file: the first and last line of
    #: that function's body (the layer computes it, so a component adding or dropping it points there)
    function_body: list[int] = field(default_factory=list, compare=False, metadata=wire(omit="empty"))
    #: functional API: the other lines that call this layer object on a tensor (a layer built once
    #: and applied later, ``autoencoder.layers[-1](encoded)``): each puts it into a model
    applied_at: list[int] = field(default_factory=list, compare=False, metadata=wire(omit="empty"))

    def arg(self, name: str, era: str | None = None) -> Value | None:
        """The value of argument ``name``: as written, else the era's default (``implicit=True``)."""
        if name in self.args:
            return self.args[name]

        if name == "strides" and "Pooling" in self.cls and not self.cls.startswith("Global"):
            # pooling strides default to the pool size
            pool = self.arg("pool_size", era)
            if pool is not None:
                return Value(
                    pool.kind,
                    pool.value,
                    pool.args,
                    pool.kwargs,
                    text=pool.text,
                    line=pool.line,
                    implicit=True,
                )
        return implicit_default(self.cls, name, era)

    @property
    def is_activation_layer(self) -> bool:
        """An ``Activation`` layer, or ``ReLU()`` / ``Softmax()`` with default arguments.

        The noise rule 'activation layer == activation argument' folds these into the layer before.
        """
        return self.cls == "Activation" or (self.cls in _PLAIN_ACTIVATION_LAYERS and not self.args)

    @property
    def activation_of_layer(self) -> Value | None:
        """The activation an activation layer applies (``Activation('relu')``, ``ReLU()`` -> 'relu')."""
        if self.cls == "Activation":
            return self.args.get("activation")
        if self.cls in _PLAIN_ACTIVATION_LAYERS and not self.args:
            return Value.const(_PLAIN_ACTIVATION_LAYERS[self.cls], text=self.text, line=self.line)
        return None


@dataclass
class FoldedLayer:
    """A layer of the activation-folded view (see :meth:`KerasModel.folded_layers`)."""

    layer: Layer
    #: indexes in ``KerasModel.layers`` this folded layer stands for (the layer + its Activation layers)
    sources: list[int]
    #: the effective activation (canonical name, or None when the layer has no activation argument)
    activation: Value | None


#: activation-only layers equal to an activation argument when written without arguments
_PLAIN_ACTIVATION_LAYERS = {"ReLU": "relu", "Softmax": "softmax"}

#: layer classes that take an ``activation`` argument (an ``Activation`` layer after them can fold in)
_TAKES_ACTIVATION = re.compile(
    r"^(Dense|Conv[123]D|Conv[123]DTranspose|SeparableConv[12]D|DepthwiseConv[12]D|LocallyConnected[12]D|"
    r"SimpleRNN|GRU|LSTM|ConvLSTM[123]D|SimpleRNNCell|GRUCell|LSTMCell|MaxoutDense|Highway)$"
)


@dataclass
class KerasModel(Record):
    """One model built in the program.

    ``kind``: ``"sequential"``, ``"functional"``, ``"subclass"`` or ``"unknown"`` (e.g. loaded
    from a file). Models are numbered (``index``) in source order of the statement creating them.
    """

    index: int
    kind: str
    cls: str = "Sequential"
    var: str | None = None
    layers: list[Layer] = field(default_factory=list)
    file: str = "<string>"
    line: int | None = None
    text: str = ""
    #: arguments of the constructor other than layers (name=..., inputs/outputs text)
    args: dict[str, Value] = field(default_factory=dict)

    def folded_layers(self, era: str | None = None) -> list[FoldedLayer]:
        """Layers with ``Activation`` layers folded into the layer before them.

        ``Dense(10); Activation('relu')`` and ``Dense(10, activation='relu')`` give the same view,
        which is the study's rule that an activation written as a separate layer is not a fault.
        An Activation layer is folded when the previous layer takes an activation argument whose
        value is linear/None; otherwise it stays a layer of its own.
        """
        out: list[FoldedLayer] = []
        for i, layer in enumerate(self.layers):
            if layer.is_activation_layer and out:
                prev = out[-1]
                act = layer.activation_of_layer
                if _TAKES_ACTIVATION.match(prev.layer.cls) and (
                    prev.activation is None or prev.activation.value in ("linear", None)
                ):
                    prev.sources.append(i)
                    prev.activation = act
                    continue
            act = layer.arg("activation", era) if _TAKES_ACTIVATION.match(layer.cls) else None
            if layer.is_activation_layer:
                act = layer.activation_of_layer
            out.append(FoldedLayer(layer, [i], act))
        return out


# ---------------------------------------------------------------------------------------------------
# compile / fit
# ---------------------------------------------------------------------------------------------------


@dataclass
class Optimizer(Record):
    """The optimizer of a compile call: canonical class (``Adam``) and hyperparameters.

    ``spelling`` is ``"string"`` (``'adam'``), ``"object"`` (``Adam(...)``) or ``"opaque"``.
    ``args`` holds canonical hyperparameter names as written (``lr`` -> ``learning_rate``);
    :meth:`arg` fills in the era's defaults, so ``'adam'`` and ``Adam()`` compare equal.
    """

    cls: str | None = None
    args: dict[str, Value] = field(default_factory=dict)
    spelling: str = "object"
    text: str = ""
    file: str = "<string>"
    line: int | None = None

    def arg(self, name: str, era: str | None = None) -> Value | None:
        if name in self.args:
            return self.args[name]
        if self.cls is None:
            return None
        return implicit_default(self.cls, name, era)


@dataclass
class Compile(Record):
    """One ``model.compile(...)`` call.

    ``loss`` is normalised to the canonical function name as a constant (``'mse'``,
    ``keras.losses.mean_squared_error`` and ``MeanSquaredError()`` all give
    ``Value(const, 'mean_squared_error')``) with the original text kept. ``model`` is the index of
    the compiled model, None when it could not be resolved.
    """

    index: int
    model: int | None = None
    loss: Value | None = None
    optimizer: Optimizer | None = None
    metrics: Value | None = None
    #: other keyword arguments (loss_weights, run_eagerly, ...), canonical names
    args: dict[str, Value] = field(default_factory=dict)
    file: str = "<string>"
    line: int | None = None
    text: str = ""


@dataclass
class Callback(Record):
    """A callback passed to fit (``EarlyStopping(patience=3)``), canonical class name."""

    cls: str
    args: dict[str, Value] = field(default_factory=dict)
    known: bool = True
    text: str = ""
    file: str = "<string>"
    line: int | None = None


@dataclass
class Fit(Record):
    """One training call: ``fit``, ``fit_generator``, ``train_on_batch`` (``method``).

    ``args`` uses canonical names (``nb_epoch`` -> ``epochs``, ``samples_per_epoch`` ->
    ``steps_per_epoch``); positional arguments are named by the method's signature (``x``, ``y``,
    ``batch_size``, ``epochs`` for fit). Callbacks resolved to classes are in ``callbacks``.
    """

    index: int
    method: str = "fit"
    model: int | None = None
    args: dict[str, Value] = field(default_factory=dict)
    callbacks: list[Callback] = field(default_factory=list)
    file: str = "<string>"
    line: int | None = None
    text: str = ""
    #: how many times the call runs when it sits in a loop with literal bounds (train_on_batch loops)
    repeat: int | None = None
    #: the lines that write ``repeat``: the loop's header and where its bounds were written
    #: (``n_rounds = 100`` ... ``for i in range(n_rounds):``)
    repeat_lines: list[int] = field(default_factory=list, compare=False)
    #: the learning rate set on the model's optimizer after compile, before this call
    #: (``K.set_value(model.optimizer.lr, v)``); None when no statement set one
    learning_rate: Value | None = None

    def arg(self, name: str, era: str | None = None) -> Value | None:
        if name in self.args:
            return self.args[name]
        return implicit_default(self.method, name, era)


# ---------------------------------------------------------------------------------------------------
# Data
# ---------------------------------------------------------------------------------------------------


@dataclass
class DataSource(Record):
    """Where a training array comes from.

    ``kind``: ``"keras_dataset"`` (name ``mnist``), ``"sklearn"`` (``load_iris``/``make_moons``),
    ``"file"`` (name = file name, ``reader`` = read_csv/loadtxt/open/...), ``"random"``
    (np.random.* with ``shape``), ``"literal"`` (an array written out, e.g. an XOR table, with
    ``shape``), ``"generated"`` (np.arange/linspace/zeros...), ``"generator"`` (flow_from_directory,
    a Python generator) or ``"opaque"``.
    """

    kind: str
    name: str | None = None
    #: which part of the source this array is (``x_train`` of a load_data tuple, ``data``/``target``)
    part: str | None = None
    #: ``"real"`` (a published data set or a file) or ``"synthetic"`` (random/generated/literal arrays)
    origin: str | None = None
    reader: str | None = None
    shape: list[Any] | None = None
    size: int | None = None
    text: str = ""
    file: str = "<string>"
    line: int | None = None

    def key(self) -> Any:
        """Normalised form for comparisons (kind, name, reader, shape, part)."""
        return (self.kind, self.name, self.reader, _freeze(self.shape), self.part)


@dataclass
class DataOp(Record):
    """One preprocessing step applied to a training array, in application order.

    ``op`` is canonical: ``divide``, ``multiply``, ``subtract``, ``add``, ``reshape``, ``astype``,
    ``to_categorical``, ``one_hot``, ``expand_dims``, ``normalize``, ``scale`` (a scaler's
    fit_transform/transform; the scaler class in ``args['scaler']``), ``train_test_split``,
    ``slice``, ``augment`` (ImageDataGenerator and friends), ``transpose``, ``flatten``, ``clip``,
    ``log``, ``mean_std`` (x - mean) / std, ``call`` (anything else; the callee in ``name``).
    """

    op: str
    name: str | None = None
    args: dict[str, Value] = field(default_factory=dict)
    text: str = ""
    file: str = "<string>"
    line: int | None = None

    def key(self) -> Any:
        """Normalised form for comparisons (op, callee, argument keys)."""
        return (self.op, self.name, tuple(sorted((k, v.key()) for k, v in self.args.items())))


@dataclass
class TensorOp(Record):
    """One shape-changing tensor operation of TensorFlow graph code, in source order.

    ``op`` is the TensorFlow function's last name (``reshape``, ``expand_dims``, ``squeeze``,
    ``transpose``, ``stack``, ``concat``...); ``args`` its shape arguments by name (``shape``,
    ``axis``, ``perm``). Graph programs change tensor shapes with these calls where Keras programs
    change layers, so the study's TWS (wrong tensor shape) faults live here. ``role`` is
    ``"labels"`` for the placeholder a training run feeds the labels to (its shape is then a step
    of their data chain).
    """

    op: str
    args: dict[str, Value] = field(default_factory=dict)
    text: str = ""
    file: str = "<string>"
    line: int | None = None
    role: str | None = None

    def key(self) -> Any:
        """Normalised form for comparisons (op, argument keys)."""
        return (self.op, tuple(sorted((k, v.key()) for k, v in self.args.items())))


#: data roles, in the order reports list them (``x_pred``: the first input given to ``predict``)
DATA_ROLES = ("x_train", "y_train", "x_val", "y_val", "x_test", "y_test", "x_pred")


@dataclass
class DataVar(Record):
    """A training array by role (``x_train``...): its source and the preprocessing chain."""

    role: str
    var: str | None = None
    source: DataSource | None = None
    preprocess: list[DataOp] = field(default_factory=list)


# ---------------------------------------------------------------------------------------------------
# Source facts: what the comparison reads as written, not as the walk followed it
# ---------------------------------------------------------------------------------------------------


@dataclass
class HyperparameterLiteral(Record):
    """A module-level ``epochs = 5`` / ``batch_size = 32`` number literal (rule ``unused_hyperparameter``).

    The program's stated training budget, kept whether or not a training call reads the variable:
    a fix that changes only the literal still changes what the author meant to train with.
    """

    name: str
    kind: str  # an element of program.training_budget.BUDGET_ELEMENTS
    value: float
    text: str = ""  # the literal as written
    line: int = 0  # 0 when the assignment could not be found in the text again


@dataclass
class RuntimeDataCall(Record):
    """A ``targets = <mutreal.runtime.training_data>.fn(...)`` statement (rule
    ``training_data_runtime_calls``): a training-data mutant's seeded change, found in the source even
    where the arrays it rebinds were not followed. ``roles`` are the training roles
    (``x_train``/``y_train``) of its targets; ``text`` is the call with whitespace runs collapsed."""

    function: str
    roles: list[str] = field(default_factory=list)
    text: str = ""
    file: str | None = None
    line: int | None = None

    def key(self) -> tuple[str, str]:
        """The call as compared: its function and its arguments' text, whitespace aside."""
        text = "".join(self.text.split())
        return self.function, text[text.find("(") :] if "(" in text else text


# ---------------------------------------------------------------------------------------------------
# The program
# ---------------------------------------------------------------------------------------------------

#: frameworks a program can be written for
FRAMEWORKS = ("keras", "tensorflow", "pytorch", "other", "none")


@dataclass
class ProgramModel(Record):
    """Everything mutreal knows about one source file.

    ``framework`` is ``"keras"`` for Keras in any packaging (keras, tf.keras, tensorflow.keras),
    ``"tensorflow"`` for raw TensorFlow without Keras, ``"pytorch"``, ``"other"`` or ``"none"``.
    ``era`` is the Keras API era assumed for defaults and positional arguments (see
    :data:`mutreal.program.keras_api.ERAS`), or ``tf1`` for TensorFlow 1 graph code (read by
    :mod:`mutreal.extract.tf_graph`; defaults as in ``keras2``); ``era_evidence`` says why.
    """

    path: str = "<string>"
    framework: str = "keras"
    era: str = "keras2"
    era_evidence: list[str] = field(default_factory=list)
    models: list[KerasModel] = field(default_factory=list)
    compiles: list[Compile] = field(default_factory=list)
    fits: list[Fit] = field(default_factory=list)
    #: evaluate / predict calls (``Fit`` records; ``index`` counts within ``evaluate*`` or ``predict*``)
    evaluations: list[Fit] = field(default_factory=list)
    data: dict[str, DataVar] = field(default_factory=dict)
    #: local alias -> canonical module/object name for every import (``np`` -> ``numpy``)
    imports: dict[str, str] = field(default_factory=dict)
    #: things the extractor noticed but could not model (free text, one per item)
    notes: list[str] = field(default_factory=list)
    #: the program uses raw TensorFlow to build or train (alone: framework "tensorflow"; with Keras: mixed)
    raw_tensorflow: bool = False
    #: only for a program that never trains (no fit call, so no ``x_train``/``y_train`` roles): the
    #: arrays its module level binds, by variable name; the diff compares the arrays a fix starts
    #: training on with what this program already did to the same variables
    untrained_data: dict[str, DataVar] = field(default_factory=dict)
    #: user functions that compute the training loss (``compile(loss=f)``, or ``tape.gradient`` of
    #: their result): name -> [line, body normalised by :mod:`mutreal.extract.losses`, last line of
    #: the body where the function is a ``def``]
    loss_functions: dict[str, list] = field(default_factory=dict)
    #: user functions that give the learning rate (a ``LearningRateScheduler``'s, or called for the
    #: optimizer's ``lr``): name -> [line, body normalised by :mod:`mutreal.extract.schedules`, last
    #: line of the body where the function is a ``def``]
    schedule_functions: dict[str, list] = field(default_factory=dict)
    #: module-level ``epochs = 5`` / ``batch_size = 32`` number literals, by variable name, read as
    #: written (rule ``unused_hyperparameter``; :func:`mutreal.extract.source_facts.find_hyperparameter_literals`)
    hyperparameter_literals: dict[str, HyperparameterLiteral] = field(default_factory=dict)
    #: every ``targets = <mutreal.runtime.training_data>.fn(...)`` statement, in source order (rule
    #: ``training_data_runtime_calls``; :func:`mutreal.extract.source_facts.find_runtime_data_calls`)
    runtime_data_calls: list[RuntimeDataCall] = field(default_factory=list)
    #: graph code only: shape-changing tensor operations (``tf.reshape``, ``tf.expand_dims``...) in
    #: source order (:mod:`mutreal.extract.tf_graph`); written out only when there are some
    tensor_ops: list[TensorOp] = field(default_factory=list, metadata=wire(omit="empty"))

    # -- convenience -------------------------------------------------------------------------------
    @property
    def is_keras(self) -> bool:
        return self.framework == "keras"

    def opaque_counts(self) -> tuple[int, int]:
        """(opaque, total) arguments over all layers, compiles and fits (callbacks included)."""
        opaque = total = 0

        def count(args: dict[str, Value]) -> None:
            nonlocal opaque, total
            for v in args.values():
                total += 1
                opaque += v.is_opaque

        for m in self.models:
            for layer in m.layers:
                count(layer.args)
                if not layer.known:
                    total += 1
                    opaque += 1
        for c in self.compiles:
            for v in (c.loss, c.metrics):
                if v is not None:
                    total += 1
                    opaque += v.is_opaque
            if c.optimizer is not None:
                total += 1
                opaque += c.optimizer.cls is None
                count(c.optimizer.args)
            count(c.args)
        for f in self.fits:
            count(f.args)
            for cb in f.callbacks:
                count(cb.args)
        return opaque, total

    def value_origins(self) -> set[tuple[str, int]]:
        """(file, line) of every line a value of a compared element was written on before the
        element read it (:attr:`Value.origins`: ``epochs = 50`` above ``fit(epochs=epochs)``, a
        helper's default, an argparse default, a training loop's bounds), over the elements
        :func:`mutreal.compare.coverage.modelled_lines` lists. A changed statement there that no
        component explains holds a value the passes followed into the element and found equal
        under the noise rules (decision value-origins). Only folded (constant) values count: an
        expression the extractor could not fold was compared by its text, not by where it came from."""
        lines: set[int] = set()

        def add(v: Value | None) -> None:
            if v is None:
                return
            if v.kind == CONST:  # folded: the pass compared the value itself, not a name for it
                lines.update(v.origins)
            for inner in (*v.args, *v.kwargs.values()):
                add(inner)

        def add_all(args: dict[str, Value]) -> None:
            for v in args.values():
                add(v)

        for m in self.models:
            add_all(m.args)
            for layer in m.layers:
                add_all(layer.args)
                if layer.inner is not None:
                    add_all(layer.inner.args)
        for c in self.compiles:
            add_all(c.args)
            add(c.loss)
            add(c.metrics)
            if c.optimizer is not None:
                add_all(c.optimizer.args)
        for f in (*self.fits, *self.evaluations):
            add_all(f.args)
            add(f.learning_rate)
            lines.update(f.repeat_lines)
            for cb in f.callbacks:
                add_all(cb.args)
        for var in (*self.data.values(), *self.untrained_data.values()):
            for op in var.preprocess:
                add_all(op.args)
        return {(self.path, n) for n in lines}

    def opaque_share(self) -> float:
        """Share of layer/compile/fit arguments mutreal could not resolve (0.0 when there are none)."""
        opaque, total = self.opaque_counts()
        return opaque / total if total else 0.0
