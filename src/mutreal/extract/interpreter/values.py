"""The interpreter's abstract values and its scope.

What a name can be bound to while the extractor runs a program: folded constants
(:class:`~mutreal.program.model.Value`, rendered lazily by :class:`LazyValue`), layers not yet in a model,
models, symbolic tensors of the functional API, optimizers, callbacks, user functions, classes and
their instances, ``argparse`` parsers, and :class:`Unknown` for anything else. Data chains live in
:mod:`mutreal.extract.data`. :func:`materialise` turns the lazy values of a finished model into
plain ones.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Protocol

import libcst as cst

from mutreal.program.model import (
    CONST,
    Callback,
    KerasModel,
    Layer,
    Optimizer,
    ProgramModel,
    Value,
    written_at,
)


class NoLines:
    """Line index of last resort (the module could not be regenerated): no lines, no call text."""

    current: cst.CSTNode | None = None
    code = ""

    def line(self, node: cst.CSTNode | None) -> int | None:
        return None

    def text(self, node: cst.CSTNode) -> str | None:
        return None


class TextSource(Protocol):
    """What renders a node's source text (the interpreter, see :meth:`InterpreterCore.text`)."""

    def text(self, node: cst.CSTNode) -> str: ...


class LazyValue(Value):
    """A :class:`Value` that renders its source text on first use (see :meth:`InterpreterCore.lazy`)."""

    def __init__(
        self,
        kind: str,
        value: Any,
        walker: TextSource,
        node: cst.CSTNode,
        line: int | None,
        args: list | None = None,
        origins: tuple[int, ...] = (),
    ) -> None:
        super().__init__(kind, value, args if args is not None else [], {}, "", line, origins=origins)
        self.__dict__["_text"] = None
        self.__dict__["_pending"] = (walker, node)

    @property
    def text(self) -> str:
        t = self.__dict__.get("_text")
        if t is None:
            pending = self.__dict__.get("_pending")
            t = pending[0].text(pending[1]) if pending else ""
            self.__dict__["_text"] = t
            self.__dict__["_pending"] = None
        return t

    @text.setter
    def text(self, value: str) -> None:
        self.__dict__["_text"] = value if value else self.__dict__.get("_text")


class Unknown:
    """A value the walker cannot model; remembers the expression for opaque data sources."""

    __slots__ = ("line", "node")

    def __init__(self, node: cst.CSTNode | None = None, line: int | None = None) -> None:
        self.node = node
        self.line = line


@dataclass
class LayerObj:
    layer: Layer
    applied: bool = False


@dataclass
class ModelObj:
    model: KerasModel


@dataclass
class Tensor:
    layer: Layer | None
    parents: list[Tensor]
    seq: int


@dataclass
class OptimizerObj:
    optimizer: Optimizer


@dataclass
class CallbackObj:
    callback: Callback


@dataclass
class FuncObj:
    node: cst.FunctionDef
    env: Env
    called: bool = False
    owner: ClassObj | None = None


@dataclass
class ClassObj:
    node: cst.ClassDef
    env: Env
    keras_model: bool
    keras_layer: bool
    methods: dict[str, FuncObj] = field(default_factory=dict)
    instantiated: bool = False
    instance: Instance | None = None


@dataclass
class Instance:
    cls: ClassObj
    attrs: dict[str, Any] = field(default_factory=dict)
    model: KerasModel | None = None  # subclassed Keras models collect their layers here


@dataclass
class ArgParserObj:
    """An ``argparse.ArgumentParser``: the default of every option added to it, by destination."""

    defaults: dict[str, Any] = field(default_factory=dict)


@dataclass
class ArgsNamespace:
    """What ``parser.parse_args()`` returns: each option's default (the command line is unknown)."""

    values: dict[str, Any]


@dataclass
class EstimatorObj:
    """What ``keras.estimator.model_to_estimator(keras_model=model)`` returns: the model, trained by
    ``estimator.train(input_fn=...)``."""

    model: KerasModel | None


@dataclass
class InputFnObj:
    """What ``tf.estimator.inputs.numpy_input_fn(x, y, batch_size=..., num_epochs=...)`` returns:
    its arguments by name (the training budget an estimator's ``train`` reads) and their nodes."""

    kwargs: dict[str, Any]
    nodes: dict[str, Any]


@dataclass
class BoundMethod:
    func: FuncObj
    self_obj: Any


def is_text(obj: Any) -> bool:
    """A string constant: an operand that makes ``+``/``%`` build text, not transform an array."""
    return isinstance(obj, Value) and obj.kind == CONST and isinstance(obj.value, str)


class Env:
    """A scope: local names, then the enclosing (module) scope."""

    __slots__ = ("parent", "vars")

    def __init__(self, parent: Env | None = None) -> None:
        self.vars: dict[str, Any] = {}
        self.parent = parent

    def get(self, name: str) -> Any:
        env: Env | None = self
        while env is not None:
            if name in env.vars:
                return env.vars[name]
            env = env.parent
        return None

    def set(self, name: str, value: Any) -> None:
        self.vars[name] = value


def truthy(value: Any) -> bool:
    try:
        return bool(value)
    except Exception:  # noqa: BLE001 - constants are plain Python values; be safe anyway
        return True


def origins_before(line: int | None, *values: object) -> tuple[int, ...]:
    """The lines the values were written on (:func:`~mutreal.program.model_value.written_at`) other
    than ``line``: the origins of a value read, folded or passed on at ``line``."""
    return tuple(n for n in written_at(*values) if n != line)


def written_on(value: Any, line: int | None) -> Any:
    """``value`` as written on ``line``: a parameter's default is evaluated where the function is
    called, but written on the ``def`` line (the call's line is no origin of it)."""
    if not isinstance(value, Value) or line is None or line == value.line:
        return value
    return Value(
        value.kind,
        value.value,
        value.args,
        value.kwargs,
        text=value.text,
        line=line,
        implicit=value.implicit,
        origins=value.origins,
    )


def _plain(v: Value) -> Value:
    """A plain :class:`Value` (texts rendered, no reference to the walker or the tree)."""
    args = [_plain(a) for a in v.args]
    kwargs = {k: _plain(a) for k, a in v.kwargs.items()}
    if (
        type(v) is Value
        and all(a is b for a, b in zip(args, v.args, strict=True))
        and all(kwargs[k] is v.kwargs[k] for k in kwargs)
    ):
        return v
    return Value(v.kind, v.value, args, kwargs, text=v.text, line=v.line, implicit=v.implicit, origins=v.origins)


def _plain_args(args: dict[str, Value]) -> None:
    for k, v in list(args.items()):
        args[k] = _plain(v)


def materialise(program: ProgramModel) -> None:
    """Replace lazy values in the finished model by plain ones (picklable, JSON-ready)."""
    for m in program.models:
        _plain_args(m.args)
        for layer in m.layers:
            _plain_args(layer.args)
            if layer.inner is not None:
                _plain_args(layer.inner.args)
    for c in program.compiles:
        _plain_args(c.args)
        c.loss = _plain(c.loss) if c.loss is not None else None
        c.metrics = _plain(c.metrics) if c.metrics is not None else None
        if c.optimizer is not None:
            _plain_args(c.optimizer.args)
    for f in [*program.fits, *program.evaluations]:
        _plain_args(f.args)
        if getattr(f, "learning_rate", None) is not None:
            f.learning_rate = _plain(f.learning_rate)
        for cb in f.callbacks:
            _plain_args(cb.args)
    for var in program.data.values():
        for op in var.preprocess:
            _plain_args(op.args)
    for tensor_op in program.tensor_ops:
        _plain_args(tensor_op.args)
