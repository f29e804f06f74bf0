"""The program model (IR) of a Keras program: models, layers, compile, fit and data operations.

``mutreal.extract`` builds a :class:`ProgramModel` from LibCST; ``mutreal.diff`` compares two of them
and never looks at source text again. Every class here is a plain dataclass with ``to_dict()`` /
``from_dict()`` so models can be cached and shipped between processes as JSON.

Values keep both a normalised form (what the diff compares, see :meth:`Value.key`) and the source
text (what reports show). Anything the extractor could not resolve is an ``opaque`` :class:`Value`
that still carries its text: nothing is dropped silently.

Element paths (see ``docs/element-paths.md``) are built and parsed by the helpers at the end of
this module so that classify components and mutant provenance share one grammar.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

# ---------------------------------------------------------------------------------------------------
# Values
# ---------------------------------------------------------------------------------------------------

#: kinds of :class:`Value`
CONST = "const"  # a folded Python literal (number, str, bool, None, or a list of constants)
REF = "ref"  # a reference to a known Keras/NumPy object, canonical dotted or short name in ``value``
CALL = "call"  # a call of ``value`` (canonical name) with ``args``/``kwargs``
SEQ = "seq"  # a list/tuple with at least one non-constant item (items in ``args``)
NAME = "name"  # a variable that could not be folded (name in ``value``)
OPAQUE = "opaque"  # anything else; only ``text`` is meaningful

VALUE_KINDS = (CONST, REF, CALL, SEQ, NAME, OPAQUE)


def _freeze(obj: Any) -> Any:
    """Make a JSON-like value hashable (lists -> tuples) so keys can be compared and hashed."""
    if isinstance(obj, list | tuple):
        return tuple(_freeze(o) for o in obj)
    if isinstance(obj, dict):
        return tuple(sorted((k, _freeze(v)) for k, v in obj.items()))
    if isinstance(obj, float) and obj.is_integer():
        return int(obj)  # 1.0 == 1 for comparisons: Keras accepts both
    return obj


@dataclass
class Value:
    """One argument value as the program writes it, normalised where mutreal understands it.

    ``kind`` says how far it was resolved (see :data:`VALUE_KINDS`). ``text`` is the source text
    exactly as written (before folding), ``line`` its line when known.
    """

    kind: str
    value: Any = None
    args: list[Value] = field(default_factory=list)
    kwargs: dict[str, Value] = field(default_factory=dict)
    text: str = ""
    line: int | None = None
    #: True when the value is an implicit default filled in from :mod:`mutreal.keras_api`
    implicit: bool = False

    # -- constructors -------------------------------------------------------------------------------
    @classmethod
    def const(cls, value: Any, text: str | None = None, line: int | None = None) -> Value:
        return cls(CONST, value, text=repr(value) if text is None else text, line=line)

    @classmethod
    def opaque(cls, text: str, line: int | None = None) -> Value:
        return cls(OPAQUE, None, text=text, line=line)

    # -- queries -----------------------------------------------------------------------------------
    @property
    def is_const(self) -> bool:
        return self.kind == CONST

    @property
    def is_opaque(self) -> bool:
        """True when mutreal could not resolve the value (opaque expression or unknown variable)."""
        return self.kind in (OPAQUE, NAME)

    def key(self) -> Any:
        """Hashable normalised form: equal keys mean the same value, whatever the spelling."""
        if self.kind == CONST:
            return (CONST, _freeze(self.value))
        if self.kind == REF:
            return (REF, self.value)
        if self.kind == CALL:
            return (
                CALL,
                self.value,
                tuple(a.key() for a in self.args),
                tuple(sorted((k, v.key()) for k, v in self.kwargs.items())),
            )
        if self.kind == SEQ:
            return (SEQ, tuple(a.key() for a in self.args))
        if self.kind == NAME:
            return (NAME, self.value)
        return (OPAQUE, " ".join(self.text.split()))

    def same(self, other: Value | None) -> bool:
        """Whether ``other`` denotes the same value (ignoring spelling, text and line)."""
        return other is not None and self.key() == other.key()

    @property
    def name(self) -> str | None:
        """The canonical name of a constant string, reference or call (e.g. ``'relu'``, ``'Adam'``)."""
        if self.kind in (REF, CALL) or (self.kind == CONST and isinstance(self.value, str)):
            return self.value
        return None

    def short(self, limit: int = 80) -> str:
        """Source text for reports, collapsed to one line and cut at ``limit`` characters."""
        text = " ".join((self.text or repr(self.value)).split())
        return text if len(text) <= limit else text[: limit - 3] + "..."

    # -- serialisation ------------------------------------------------------------------------------
    def to_dict(self) -> dict[str, Any]:
        d: dict[str, Any] = {"kind": self.kind, "text": self.text}
        if self.value is not None:
            d["value"] = self.value
        if self.args:
            d["args"] = [a.to_dict() for a in self.args]
        if self.kwargs:
            d["kwargs"] = {k: v.to_dict() for k, v in self.kwargs.items()}
        if self.line is not None:
            d["line"] = self.line
        if self.implicit:
            d["implicit"] = True
        return d

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> Value:
        return cls(
            kind=d["kind"],
            value=d.get("value"),
            args=[cls.from_dict(a) for a in d.get("args", [])],
            kwargs={k: cls.from_dict(v) for k, v in d.get("kwargs", {}).items()},
            text=d.get("text", ""),
            line=d.get("line"),
            implicit=d.get("implicit", False),
        )


def _args_to_dict(args: dict[str, Value]) -> dict[str, Any]:
    return {k: v.to_dict() for k, v in args.items()}


def _args_from_dict(d: dict[str, Any] | None) -> dict[str, Value]:
    return {k: Value.from_dict(v) for k, v in (d or {}).items()}


# ---------------------------------------------------------------------------------------------------
# Models and layers
# ---------------------------------------------------------------------------------------------------


def implicit_default(callee: str, name: str, era: str | None) -> Value | None:
    """The era's default of argument ``name`` of ``callee`` (a class or fit method) as an implicit
    constant, or None when it has none (an argument that is not written reads as its default)."""
    from mutreal import keras_api  # local import: keras_api imports nothing from here

    default = keras_api.default_arg(callee, name, era or keras_api.DEFAULT_ERA)
    if default is keras_api.NO_DEFAULT:
        return None
    v = Value.const(default)
    v.implicit = True
    return v


@dataclass
class Layer:
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
    #: how the layer entered the model: "list", "add", "functional", "subclass", "helper", "loop"
    origin: str = "add"
    #: the variable the layer (or its output tensor, in functional code) was bound to
    var: str | None = None
    #: functional API: indexes (in the model's ``layers``) of the layers feeding this one; [] = model input
    inbound: list[int] = field(default_factory=list)
    #: for wrappers (TimeDistributed, Bidirectional): the wrapped layer
    inner: Layer | None = None

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

    def to_dict(self) -> dict[str, Any]:
        d: dict[str, Any] = {
            "cls": self.cls,
            "args": _args_to_dict(self.args),
            "known": self.known,
            "file": self.file,
            "line": self.line,
            "text": self.text,
            "origin": self.origin,
            "var": self.var,
            "inbound": list(self.inbound),
        }
        if self.inner is not None:
            d["inner"] = self.inner.to_dict()
        return d

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> Layer:
        return cls(
            cls=d["cls"],
            args=_args_from_dict(d.get("args")),
            known=d.get("known", True),
            file=d.get("file", "<string>"),
            line=d.get("line"),
            text=d.get("text", ""),
            origin=d.get("origin", "add"),
            var=d.get("var"),
            inbound=list(d.get("inbound", [])),
            inner=cls.from_dict(d["inner"]) if d.get("inner") else None,
        )


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
class KerasModel:
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

    def to_dict(self) -> dict[str, Any]:
        return {
            "index": self.index,
            "kind": self.kind,
            "cls": self.cls,
            "var": self.var,
            "layers": [layer.to_dict() for layer in self.layers],
            "file": self.file,
            "line": self.line,
            "text": self.text,
            "args": _args_to_dict(self.args),
        }

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> KerasModel:
        return cls(
            index=d["index"],
            kind=d["kind"],
            cls=d.get("cls", "Sequential"),
            var=d.get("var"),
            layers=[Layer.from_dict(x) for x in d.get("layers", [])],
            file=d.get("file", "<string>"),
            line=d.get("line"),
            text=d.get("text", ""),
            args=_args_from_dict(d.get("args")),
        )


# ---------------------------------------------------------------------------------------------------
# compile / fit
# ---------------------------------------------------------------------------------------------------


@dataclass
class Optimizer:
    """The optimizer of a compile call: canonical class (``Adam``) and hyperparameters.

    ``spelling`` is ``"string"`` (``'adam'``), ``"object"`` (``Adam(...)``) or ``"opaque"``.
    ``args`` holds canonical hyperparameter names as written (``lr`` -> ``learning_rate``);
    :meth:`arg` fills in the era's defaults, so ``'adam'`` and ``Adam()`` compare equal.
    """

    cls: str | None
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

    def to_dict(self) -> dict[str, Any]:
        return {
            "cls": self.cls,
            "args": _args_to_dict(self.args),
            "spelling": self.spelling,
            "text": self.text,
            "file": self.file,
            "line": self.line,
        }

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> Optimizer:
        return cls(
            cls=d.get("cls"),
            args=_args_from_dict(d.get("args")),
            spelling=d.get("spelling", "object"),
            text=d.get("text", ""),
            file=d.get("file", "<string>"),
            line=d.get("line"),
        )


@dataclass
class Compile:
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

    def to_dict(self) -> dict[str, Any]:
        return {
            "index": self.index,
            "model": self.model,
            "loss": self.loss.to_dict() if self.loss else None,
            "optimizer": self.optimizer.to_dict() if self.optimizer else None,
            "metrics": self.metrics.to_dict() if self.metrics else None,
            "args": _args_to_dict(self.args),
            "file": self.file,
            "line": self.line,
            "text": self.text,
        }

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> Compile:
        return cls(
            index=d["index"],
            model=d.get("model"),
            loss=Value.from_dict(d["loss"]) if d.get("loss") else None,
            optimizer=Optimizer.from_dict(d["optimizer"]) if d.get("optimizer") else None,
            metrics=Value.from_dict(d["metrics"]) if d.get("metrics") else None,
            args=_args_from_dict(d.get("args")),
            file=d.get("file", "<string>"),
            line=d.get("line"),
            text=d.get("text", ""),
        )


@dataclass
class Callback:
    """A callback passed to fit (``EarlyStopping(patience=3)``), canonical class name."""

    cls: str
    args: dict[str, Value] = field(default_factory=dict)
    known: bool = True
    text: str = ""
    file: str = "<string>"
    line: int | None = None

    def to_dict(self) -> dict[str, Any]:
        return {
            "cls": self.cls,
            "args": _args_to_dict(self.args),
            "known": self.known,
            "text": self.text,
            "file": self.file,
            "line": self.line,
        }

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> Callback:
        return cls(
            cls=d["cls"],
            args=_args_from_dict(d.get("args")),
            known=d.get("known", True),
            text=d.get("text", ""),
            file=d.get("file", "<string>"),
            line=d.get("line"),
        )


@dataclass
class Fit:
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
    #: the learning rate set on the model's optimizer after compile, before this call
    #: (``K.set_value(model.optimizer.lr, v)``); None when no statement set one
    learning_rate: Value | None = None

    def arg(self, name: str, era: str | None = None) -> Value | None:
        if name in self.args:
            return self.args[name]
        return implicit_default(self.method, name, era)

    def to_dict(self) -> dict[str, Any]:
        return {
            "index": self.index,
            "method": self.method,
            "model": self.model,
            "args": _args_to_dict(self.args),
            "callbacks": [c.to_dict() for c in self.callbacks],
            "file": self.file,
            "line": self.line,
            "text": self.text,
            "repeat": self.repeat,
            "learning_rate": self.learning_rate.to_dict() if self.learning_rate is not None else None,
        }

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> Fit:
        return cls(
            index=d["index"],
            method=d.get("method", "fit"),
            model=d.get("model"),
            args=_args_from_dict(d.get("args")),
            callbacks=[Callback.from_dict(c) for c in d.get("callbacks", [])],
            file=d.get("file", "<string>"),
            line=d.get("line"),
            text=d.get("text", ""),
            repeat=d.get("repeat"),
            learning_rate=Value.from_dict(d["learning_rate"]) if d.get("learning_rate") else None,
        )


# ---------------------------------------------------------------------------------------------------
# Data
# ---------------------------------------------------------------------------------------------------


@dataclass
class DataSource:
    """Where a training array comes from.

    ``kind``: ``"keras_dataset"`` (name ``mnist``), ``"sklearn"`` (``load_iris``/``make_moons``),
    ``"file"`` (name = file name, ``reader`` = read_csv/loadtxt/open/...), ``"random"``
    (np.random.* with ``shape``), ``"literal"`` (an array written out, e.g. an XOR table, with
    ``shape``), ``"generated"`` (np.arange/linspace/zeros...), ``"generator"`` (flow_from_directory,
    a Python generator) or ``"opaque"``.
    """

    kind: str
    name: str | None = None
    reader: str | None = None
    shape: list[Any] | None = None
    size: int | None = None
    text: str = ""
    file: str = "<string>"
    line: int | None = None
    #: which part of the source this array is (``x_train`` of a load_data tuple, ``data``/``target``)
    part: str | None = None
    #: ``"real"`` (a published data set or a file) or ``"synthetic"`` (random/generated/literal arrays)
    origin: str | None = None

    def key(self) -> Any:
        """Normalised form for comparisons (kind, name, reader, shape, part)."""
        return (self.kind, self.name, self.reader, _freeze(self.shape), self.part)

    def to_dict(self) -> dict[str, Any]:
        return {
            "kind": self.kind,
            "name": self.name,
            "part": self.part,
            "origin": self.origin,
            "reader": self.reader,
            "shape": self.shape,
            "size": self.size,
            "text": self.text,
            "file": self.file,
            "line": self.line,
        }

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> DataSource:
        return cls(
            kind=d["kind"],
            name=d.get("name"),
            part=d.get("part"),
            origin=d.get("origin"),
            reader=d.get("reader"),
            shape=d.get("shape"),
            size=d.get("size"),
            text=d.get("text", ""),
            file=d.get("file", "<string>"),
            line=d.get("line"),
        )


@dataclass
class DataOp:
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

    def to_dict(self) -> dict[str, Any]:
        return {
            "op": self.op,
            "name": self.name,
            "args": _args_to_dict(self.args),
            "text": self.text,
            "file": self.file,
            "line": self.line,
        }

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> DataOp:
        return cls(
            op=d["op"],
            name=d.get("name"),
            args=_args_from_dict(d.get("args")),
            text=d.get("text", ""),
            file=d.get("file", "<string>"),
            line=d.get("line"),
        )


#: data roles, in the order reports list them (``x_pred``: the first input given to ``predict``)
DATA_ROLES = ("x_train", "y_train", "x_val", "y_val", "x_test", "y_test", "x_pred")


@dataclass
class DataVar:
    """A training array by role (``x_train``...): its source and the preprocessing chain."""

    role: str
    var: str | None = None
    source: DataSource | None = None
    preprocess: list[DataOp] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        return {
            "role": self.role,
            "var": self.var,
            "source": self.source.to_dict() if self.source else None,
            "preprocess": [op.to_dict() for op in self.preprocess],
        }

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> DataVar:
        return cls(
            role=d["role"],
            var=d.get("var"),
            source=DataSource.from_dict(d["source"]) if d.get("source") else None,
            preprocess=[DataOp.from_dict(o) for o in d.get("preprocess", [])],
        )


# ---------------------------------------------------------------------------------------------------
# The program
# ---------------------------------------------------------------------------------------------------

#: frameworks a program can be written for
FRAMEWORKS = ("keras", "tensorflow", "pytorch", "other", "none")


@dataclass
class ProgramModel:
    """Everything mutreal knows about one source file.

    ``framework`` is ``"keras"`` for Keras in any packaging (keras, tf.keras, tensorflow.keras),
    ``"tensorflow"`` for raw TensorFlow without Keras, ``"pytorch"``, ``"other"`` or ``"none"``.
    ``era`` is the Keras API era assumed for defaults and positional arguments (see
    :data:`mutreal.keras_api.ERAS`), ``era_evidence`` says why.
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
    #: their result): name -> [line, body normalised by :mod:`mutreal.extract.losses`]
    loss_functions: dict[str, list] = field(default_factory=dict)

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

    def opaque_share(self) -> float:
        """Share of layer/compile/fit arguments mutreal could not resolve (0.0 when there are none)."""
        opaque, total = self.opaque_counts()
        return opaque / total if total else 0.0

    # -- serialisation ------------------------------------------------------------------------------
    def to_dict(self) -> dict[str, Any]:
        return {
            "path": self.path,
            "framework": self.framework,
            "era": self.era,
            "era_evidence": list(self.era_evidence),
            "models": [m.to_dict() for m in self.models],
            "compiles": [c.to_dict() for c in self.compiles],
            "fits": [f.to_dict() for f in self.fits],
            "evaluations": [f.to_dict() for f in self.evaluations],
            "data": {k: v.to_dict() for k, v in self.data.items()},
            "imports": dict(self.imports),
            "notes": list(self.notes),
            "raw_tensorflow": self.raw_tensorflow,
            "untrained_data": {k: v.to_dict() for k, v in self.untrained_data.items()},
            "loss_functions": {k: list(v) for k, v in self.loss_functions.items()},
        }

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> ProgramModel:
        return cls(
            path=d.get("path", "<string>"),
            framework=d.get("framework", "keras"),
            era=d.get("era", "keras2"),
            era_evidence=list(d.get("era_evidence", [])),
            models=[KerasModel.from_dict(m) for m in d.get("models", [])],
            compiles=[Compile.from_dict(c) for c in d.get("compiles", [])],
            fits=[Fit.from_dict(f) for f in d.get("fits", [])],
            evaluations=[Fit.from_dict(f) for f in d.get("evaluations", [])],
            data={k: DataVar.from_dict(v) for k, v in d.get("data", {}).items()},
            imports=dict(d.get("imports", {})),
            notes=list(d.get("notes", [])),
            raw_tensorflow=d.get("raw_tensorflow", False),
            untrained_data={k: DataVar.from_dict(v) for k, v in d.get("untrained_data", {}).items()},
            loss_functions={k: list(v) for k, v in d.get("loss_functions", {}).items()},
        )


# ---------------------------------------------------------------------------------------------------
# Element paths (grammar in docs/element-paths.md)
# ---------------------------------------------------------------------------------------------------

_SEGMENT = re.compile(r"([A-Za-z_][A-Za-z0-9_]*)(?:\[(-?\d+)\])?")


def layer_path(model: int, layer: int | None = None, *rest: str) -> str:
    """``model[0]``, ``model[0].layer[3]``, ``model[0].layer[3].activation``."""
    out = f"model[{model}]"
    if layer is not None:
        out += f".layer[{layer}]"
    return ".".join([out, *rest]) if rest else out


def _indexed(root: str, index: int) -> str:
    return root if index == 0 else f"{root}[{index}]"


def compile_path(index: int = 0, *rest: str) -> str:
    """``compile.loss``, ``compile.optimizer.learning_rate``, ``compile[1].loss`` (index 0 omitted)."""
    return ".".join([_indexed("compile", index), *rest])


def fit_path(index: int = 0, *rest: str) -> str:
    """``fit.epochs``, ``fit.callbacks.EarlyStopping.patience``, ``fit[1].batch_size``."""
    return ".".join([_indexed("fit", index), *rest])


def evaluation_path(method: str, index: int = 0, *rest: str) -> str:
    """``evaluate.batch_size``, ``predict[1].batch_size`` (``method``: evaluate* or predict*)."""
    root = "evaluate" if method.startswith("evaluate") else "predict"
    return ".".join([_indexed(root, index), *rest])


def data_path(role: str, *rest: str | int) -> str:
    """``data.x_train.source``, ``data.x_train.preprocess[2]`` (pass ``"preprocess", 2``)."""
    out = f"data.{role}"
    parts = list(rest)
    while parts:
        p = parts.pop(0)
        if p == "preprocess" and parts and isinstance(parts[0], int):
            out += f".preprocess[{parts.pop(0)}]"
        else:
            out += f".{p}"
    return out


def parse_path(path: str) -> list[tuple[str, int | None]]:
    """Split an element path into (name, index) segments; ``compile``/``fit`` get index 0 if omitted.

    >>> parse_path("model[0].layer[3].activation")
    [('model', 0), ('layer', 3), ('activation', None)]
    >>> parse_path("compile.loss")
    [('compile', 0), ('loss', None)]
    """
    segments: list[tuple[str, int | None]] = []
    for i, part in enumerate(path.split(".")):
        m = _SEGMENT.fullmatch(part)
        if not m:
            raise ValueError(f"bad element path segment {part!r} in {path!r}")
        name, idx = m.group(1), m.group(2)
        index = int(idx) if idx is not None else None
        if i == 0 and name in ("compile", "fit", "evaluate", "predict") and index is None:
            index = 0
        segments.append((name, index))
    return segments


def format_path(segments: list[tuple[str, int | None]]) -> str:
    """Inverse of :func:`parse_path`, in canonical form (``compile[0]`` written ``compile``)."""
    parts = []
    for i, (name, index) in enumerate(segments):
        if index is None or (i == 0 and name in ("compile", "fit", "evaluate", "predict") and index == 0):
            parts.append(name)
        else:
            parts.append(f"{name}[{index}]")
    return ".".join(parts)


def canonical_path(path: str) -> str:
    """Normalise an element path (``compile[0].loss`` -> ``compile.loss``)."""
    return format_path(parse_path(path))
