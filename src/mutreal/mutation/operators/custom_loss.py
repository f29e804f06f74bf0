"""User-defined losses as LCH sites: a ``def``, a lambda or a ``keras.losses.Loss`` subclass.

Why a module: DeepCrime's LCH replaces a custom loss with one of its Keras losses of the same kind
of task (a regression loss for a regression output, a classification loss for a classification
one). The extractor records such a loss as an opaque value, so this reads the compile call's
``loss`` argument from the operators' tree (also one entry per output of a dict or list), finds
the definition (here or in a module of the program's folder) and the output layer it applies to,
and says which task that output is: a softmax or sigmoid output classifies, any other regresses.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

import libcst as cst

from mutreal.mutation.operators.generator_roles import definitions
from mutreal.mutation.operators.node_index import last_name
from mutreal.mutation.operators.program import Program
from mutreal.program.model import Compile, KerasModel, Layer, Value

#: DeepCrime's losses by the task they fit (LCH offers only those of the output's task)
REGRESSION_LOSSES = frozenset(
    {
        "mean_squared_error",
        "mean_absolute_error",
        "mean_absolute_percentage_error",
        "mean_squared_logarithmic_error",
        "logcosh",
        "huber_loss",
        "poisson",
    }
)
CLASSIFICATION_LOSSES = frozenset(
    {
        "categorical_crossentropy",
        "binary_crossentropy",
        "kullback_leibler_divergence",
        "hinge",
        "squared_hinge",
        "categorical_hinge",
    }
)
_CLASSIFYING_ACTIVATIONS = frozenset({"softmax", "sigmoid"})


@dataclass
class CustomLoss:
    """One user-defined loss written in a compile call (``output``: dict key or list position)."""

    compile: int
    node: cst.BaseExpression
    kind: str  # "def", "lambda", "Loss subclass"
    name: str
    task: str | None  # "regression", "classification", None (output not found)
    output: str | int | None = None
    #: the dict or list of per-output losses holding it (None: the loss argument itself)
    container: cst.BaseExpression | None = None


def _custom_kind(program: Program, node: cst.BaseExpression) -> tuple[str, str] | None:
    """(kind, name) when ``node`` is a user-defined loss, else None (a Keras loss, an unknown name)."""
    if isinstance(node, cst.Lambda):
        return "lambda", "lambda"
    target = node.func if isinstance(node, cst.Call) else node
    if not isinstance(target, cst.Name):
        return None
    found = definitions(program).find(target.value)
    if found is None:
        return None
    defn = found[0]
    if isinstance(defn, cst.FunctionDef) and not isinstance(node, cst.Call):
        return "def", target.value
    if isinstance(defn, cst.ClassDef) and isinstance(node, cst.Call):
        bases = [b.value for b in defn.bases]
        if any(isinstance(b, cst.Name | cst.Attribute) and last_name(b) == "Loss" for b in bases):
            return "Loss subclass", target.value
    return None


def _outputs(model: KerasModel) -> list[Layer]:
    """The model's output layers in order: those named in ``outputs=[...]``, else the layers no
    other layer feeds on (a Sequential model: its last layer)."""
    text = model.args.get("outputs").text if model.args.get("outputs") is not None else ""
    if text:
        try:
            expr = cst.parse_expression(text)
        except cst.ParserSyntaxError:
            expr = None
        names = (
            [e.value.value for e in expr.elements if isinstance(e.value, cst.Name)]
            if isinstance(expr, cst.List | cst.Tuple)
            else [expr.value]
            if isinstance(expr, cst.Name)
            else []
        )
        by_var = {layer.var: layer for layer in model.layers if layer.var}
        if names and all(n in by_var for n in names):
            return [by_var[n] for n in names]
    if model.kind == "functional":
        fed = {i for layer in model.layers for i in layer.inbound}
        return [layer for i, layer in enumerate(model.layers) if i not in fed and layer.cls != "Input"]
    return model.layers[-1:]


def _task(layer: Layer | None, era: str) -> str | None:
    if layer is None:
        return None
    act = layer.activation_of_layer if layer.is_activation_layer else layer.arg("activation", era)
    name = (act.name or str(act.value)) if act is not None and act.value is not None else "linear"
    return (
        "classification" if str(name).rsplit(".", 1)[-1].lower() in _CLASSIFYING_ACTIVATIONS else "regression"
    )


def _output_layer(model: KerasModel | None, key: str | int | None) -> Layer | None:
    if model is None:
        return None
    outs = _outputs(model)
    if isinstance(key, str):
        for layer in model.layers:
            v = layer.args.get("name")
            if v is not None and v.is_const and v.value == key:
                return layer
        return None
    if isinstance(key, int):
        return outs[key] if key < len(outs) else None
    return outs[-1] if outs else None


def loss_args(program: Program) -> Iterator[tuple[int, Compile, cst.Arg]]:
    """Each compile call whose ``loss`` argument (keyword or second positional) is in the
    operators' tree: (compile index, compile, the argument node)."""
    for ci, comp in enumerate(program.model.compiles):
        cid = program.compile_call(ci)
        if cid is None:
            continue
        arg = program.find_arg(cid, ("loss",), 1)
        if arg is not None:
            yield ci, comp, arg[1]


def custom_losses(program: Program) -> Iterator[CustomLoss]:
    """Every user-defined loss of every compile call (one per output of a dict or list)."""
    for ci, comp, arg in loss_args(program):
        if comp.loss is not None and comp.loss.is_const:
            continue
        value = arg.value
        entries: list[tuple[str | int | None, cst.BaseExpression]]
        if isinstance(value, cst.Dict):
            entries = [
                (e.key.evaluated_value, e.value)
                for e in value.elements
                if isinstance(e, cst.DictElement) and isinstance(e.key, cst.SimpleString)
            ]
        elif isinstance(value, cst.List | cst.Tuple):
            entries = [(i, e.value) for i, e in enumerate(value.elements)]
        else:
            entries = [(None, value)]
        model = program.model.models[comp.model] if comp.model is not None else None
        for key, node in entries:
            got = _custom_kind(program, node)
            if got is None:
                continue
            task = _task(_output_layer(model, key), program.era)
            container = value if key is not None else None
            yield CustomLoss(ci, node, got[0], got[1], task, key, container)


def custom_loss_at(program: Program, node_id: int) -> CustomLoss | None:
    """The custom loss whose node has id ``node_id`` (cached per program)."""
    cache = program.__dict__.get("_custom_losses")
    if cache is None:
        cache = program.__dict__["_custom_losses"] = {id(c.node): c for c in custom_losses(program)}
    return cache.get(node_id)


def whole_loss_texts(program: Program, custom: CustomLoss, code: str) -> tuple[str, str]:
    """(before, after) source text of the whole loss argument when one entry becomes ``code``: what
    classify reports, since it reads a per-output dict or list as one value (shortened as reports
    shorten a long value, :meth:`mutreal.program.model.Value.short`)."""
    if custom.container is None:
        return program.module.code_for_node(custom.node), code
    before = program.module.code_for_node(custom.container)
    after = program.module.code_for_node(
        custom.container.deep_replace(custom.node, cst.parse_expression(code))
    )
    return Value.opaque(before).short(), Value.opaque(after).short()
