"""Semantic diff of two program models -> fault components, after the study's noise rules.

The study (section 4.2.1) read buggy/fixed diffs by hand and ignored what does not change the model,
its hyperparameters or its training: prints, logging, plots, verbosity, instrumentation callbacks,
renamed variables, a value moved into a variable, an activation written as a separate
``Activation`` layer instead of an argument, result-file paths, reordered keyword arguments. Each is
a named rule in :data:`NOISE_RULES` (tested one by one); most hold by construction because the
program model never records those things, the others are checks applied below.

Layers are aligned with a global sequence alignment (Needleman-Wunsch over layer classes and
arguments), never by position, so an inserted Dropout does not shift every later comparison.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from typing import Any

import libcst

from mutreal.model import (
    DATA_ROLES,
    Compile,
    DataOp,
    DataSource,
    DataVar,
    Fit,
    FoldedLayer,
    KerasModel,
    Layer,
    ProgramModel,
    Value,
    compile_path,
    data_path,
    fit_path,
    layer_path,
)

# ---------------------------------------------------------------------------------------------------
# Fault components
# ---------------------------------------------------------------------------------------------------


@dataclass
class FaultComponent:
    """One changed program element between the buggy and the fixed program.

    ``kind`` says what sort of element changed (``layer.activation``, ``compile.loss``,
    ``fit.epochs``, ``data.preprocess``...; :mod:`mutreal.labels` maps kinds to codes), ``change``
    is ``added`` (only the fixed program has it), ``removed`` (only the buggy one) or ``changed``.
    ``before``/``after`` are short source texts; ``detail`` holds facts the labels need.
    """

    element: str
    kind: str
    change: str
    before: str | None = None
    after: str | None = None
    buggy_file: str | None = None
    buggy_line: int | None = None
    fixed_file: str | None = None
    fixed_line: int | None = None
    detail: dict[str, Any] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> FaultComponent:
        return cls(**data)


# ---------------------------------------------------------------------------------------------------
# Noise rules
# ---------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class NoiseRule:
    """One equivalence the study applied by hand: a difference of this sort is not a fault."""

    name: str
    description: str


NOISE_RULES: dict[str, NoiseRule] = {
    r.name: r
    for r in [
        NoiseRule("prints", "print statements and calls are debugging output, not part of the model"),
        NoiseRule("logging", "logging calls and logger set-up only report"),
        NoiseRule("plotting", "matplotlib/seaborn plots and summaries only show results"),
        NoiseRule("verbosity", "verbose= of fit/evaluate/predict and model.summary() only change output"),
        NoiseRule(
            "instrumentation_callbacks",
            "TensorBoard, ModelCheckpoint, CSVLogger, ProgbarLogger, TerminateOnNaN, History, "
            "LambdaCallback and unknown debugging callbacks observe training without changing it",
        ),
        NoiseRule("renamed_variables", "a variable renamed consistently denotes the same value"),
        NoiseRule("value_moved_into_variable", "lr = 0.01 ... SGD(lr=lr) equals SGD(lr=0.01)"),
        NoiseRule(
            "activation_layer_vs_argument",
            "Dense(n); Activation('relu') equals Dense(n, activation='relu')",
        ),
        NoiseRule("result_file_paths", "where results, models, logs or plots are written does not matter"),
        NoiseRule("reordered_kwargs", "keyword arguments in another order are the same call"),
        NoiseRule("layer_names", "name= of layers and models is a label only"),
        NoiseRule("metrics", "metrics= of compile only report; training does not read them"),
        NoiseRule(
            "synthetic_data_source",
            "a benchmark replacing the posted data loading with random or generated arrays of the "
            "same role is set-up, not a fault; the preprocessing applied to the data still counts",
        ),
        NoiseRule(
            "api_spelling", "keras vs tf.keras imports, legacy argument names, string vs object spellings"
        ),
        NoiseRule(
            "training_data_runtime_calls",
            "a call of mutreal.runtime.training_data (a training-data mutant) is its own component, "
            "never a preprocessing step; the arrays it returns keep the steps applied before it",
        ),
        NoiseRule(
            "reshape_sample_count",
            "a reshape of the data whose target differs in its leading (sample) axis only, (n, 784) vs "
            "(-1, 784) or another n: every sample gets the same shape; the count is the data set's size",
        ),
        NoiseRule(
            "completed_snippet",
            "a posted model without compile, or one ending in a layer no model ends with (a bare "
            "convolution), that the benchmark completed with an output head (4.2.1: authors may "
            "complete what a post does not show)",
        ),
    ]
}

#: callbacks that observe training without changing it (rule ``instrumentation_callbacks``)
INSTRUMENTATION_CALLBACKS = frozenset(
    {
        "TensorBoard",
        "ModelCheckpoint",
        "CSVLogger",
        "ProgbarLogger",
        "BaseLogger",
        "History",
        "TerminateOnNaN",
        "LambdaCallback",
        "RemoteMonitor",
        "BackupAndRestore",
        "Callback",
    }
)
#: callbacks that change training: compared argument by argument
TRAINING_CALLBACKS = frozenset({"EarlyStopping", "ReduceLROnPlateau", "LearningRateScheduler"})

#: layer arguments that never matter (rules ``layer_names``, ``result_file_paths``)
IGNORED_LAYER_ARGS = frozenset({"name", "trainable", "dtype", "weights", "autocast", "dynamic"})
#: fit arguments that never matter (rules ``verbosity``, ``instrumentation_callbacks``)
IGNORED_FIT_ARGS = frozenset(
    {
        "verbose",
        "callbacks",
        "x",
        "y",
        "generator",
        "show_accuracy",
        "initial_epoch",
        "workers",
        "use_multiprocessing",
        "max_queue_size",
        "pickle_safe",
        "max_q_size",
        "nb_worker",
    }
)
VALIDATION_ARGS = (
    "validation_data",
    "validation_split",
    "validation_steps",
    "validation_freq",
    "nb_val_samples",
)

#: layer argument -> component kind
LAYER_ARG_KINDS: dict[str, str] = {
    "activation": "layer.activation",
    "units": "layer.units",
    "filters": "layer.units",
    "kernel_size": "layer.kernel_size",
    "strides": "layer.strides",
    "input_shape": "layer.input_shape",
    "input_dim": "layer.input_shape",
    "batch_input_shape": "layer.input_shape",
    "input_length": "layer.input_shape",
    "shape": "layer.input_shape",
    "batch_shape": "layer.input_shape",
    "rate": "layer.rate",
    # a recurrent layer's input and recurrent dropout are dropout rates too (Keras 1: dropout_W/_U)
    "dropout": "layer.rate",
    "recurrent_dropout": "layer.rate",
    "kernel_initializer": "layer.kernel_initializer",
    "bias_initializer": "layer.bias_initializer",
    "kernel_regularizer": "layer.regularizer",
    "bias_regularizer": "layer.regularizer",
    "activity_regularizer": "layer.regularizer",
    "use_bias": "layer.use_bias",
    "return_sequences": "layer.return_sequences",
    "pool_size": "layer.pool_size",
    "padding": "layer.padding",
    "target_shape": "layer.output_shape",
}
BN_ARG_KINDS = {"epsilon": "layer.bn_epsilon", "momentum": "layer.bn_momentum"}

_CONV = re.compile(r"^(Conv|SeparableConv|DepthwiseConv|Convolution|AtrousConv|Deconv)")
_INPUT_ONLY = frozenset({"InputLayer", "Input"})
#: layers whose size is a table (vocabulary x dimension): input_dim and output_dim are its size, like
#: a Dense layer's units (decision LCN-embedding-size); one component per layer however many change
_TABLE_LAYERS = frozenset({"Embedding"})
_TABLE_SIZE_ARGS = frozenset({"input_dim", "output_dim"})


def _short(v: Value | None) -> str | None:
    return None if v is None else v.short()


def _number(v: Value | None) -> float | None:
    if v is not None and v.is_const and isinstance(v.value, (int, float)) and not isinstance(v.value, bool):
        return v.value
    return None


def _act_name(v: Value | None) -> str:
    """Canonical activation name; None/absent means linear."""
    if v is None:
        return "linear"
    name = v.name
    if v.is_const and v.value is None:
        return "linear"
    return str(name if name is not None else v.key()).split(".")[-1].lower()


_IDENTIFIER = re.compile(r"(?<![.\w])[A-Za-z_]\w*")


def _anonymous(text: str) -> str:
    """Source text with variable names blanked (attribute names kept): rule ``renamed_variables``."""
    return _IDENTIFIER.sub("_", "".join(text.split()))


_BARE_NAME = re.compile(r"^[A-Za-z_]\w*$")


def _unresolved_name(v: Value) -> bool:
    """A variable the extractor could not fold (a name, or an opaque bare name)."""
    if v.kind == "ref" and str(v.value).startswith("data:"):
        return True  # a value computed from the data at run time (n_classes = y.nunique())
    return v.kind == "name" or (v.kind == "opaque" and bool(_BARE_NAME.match(v.text.strip())))


def _items(v: Value) -> list[Value] | None:
    if v.kind == "seq":
        return v.args
    if isinstance(v.value, (list, tuple)):
        return [Value.const(x) for x in v.value]
    return None


def _values_equal(a: Value | None, b: Value | None, strict_opaque: bool = False) -> bool:
    """Equality of two argument values under the noise rules.

    ``renamed_variables`` / ``value_moved_into_variable``: a variable the model could not fold is
    undecidable against anything, so no fault is claimed for it; two opaque expressions are equal
    when their texts are, variable names aside (``len(x_list[0])`` equals ``len(xs[0])``); an opaque
    expression against a constant is undecidable too, except with ``strict_opaque`` (shapes:
    ``input_shape=X.shape`` against ``(30, 1)`` is a changed input shape). Sequences and calls
    compare item by item.
    """
    if a is None and b is None:
        return True
    if a is None or b is None:
        return False
    if a.same(b) or (a.implicit and b.implicit):
        return True  # both unwritten: only the era's default differs, the program did not change
    if _unresolved_name(a) or _unresolved_name(b):
        return True
    if a.kind in ("seq", "const") and b.kind in ("seq", "const") and "seq" in (a.kind, b.kind):
        items_a, items_b = _items(a), _items(b)
        if items_a is not None and items_b is not None:
            return len(items_a) == len(items_b) and all(
                _values_equal(x, y) for x, y in zip(items_a, items_b, strict=True)
            )
    if (a.kind == "opaque" or b.kind == "opaque") and a.text and _anonymous(a.text) == _anonymous(b.text):
        return True  # the same expression, resolved on one side only
    if a.kind == "opaque" and b.kind == "opaque":
        return False
    if not strict_opaque and (a.kind == "opaque" or b.kind == "opaque"):
        return True  # a runtime value (desc[i], y.nunique()) against a constant: undecidable
    if a.kind == b.kind == "seq":
        return len(a.args) == len(b.args) and all(
            _values_equal(x, y) for x, y in zip(a.args, b.args, strict=True)
        )
    if a.kind == b.kind == "call" and a.value == b.value:
        return (
            len(a.args) == len(b.args)
            and all(_values_equal(x, y) for x, y in zip(a.args, b.args, strict=True))
            and set(a.kwargs) == set(b.kwargs)
            and all(_values_equal(a.kwargs[k], b.kwargs[k]) for k in a.kwargs)
        )
    return False


# ---------------------------------------------------------------------------------------------------
# Layer alignment
# ---------------------------------------------------------------------------------------------------


_DIMENSION = re.compile(r"(\d)D$")


def _layer_base(cls: str) -> str:
    """Class name without its dimension and spelling variants: Conv1D/Conv2D -> Conv, MaxPool2D -> MaxPooling."""
    base = _DIMENSION.sub("", cls)
    base = re.sub(r"Pool$", "Pooling", base)
    return {"Convolution": "Conv", "CuDNNLSTM": "LSTM", "CuDNNGRU": "GRU"}.get(base, base)


#: classes one of which replaces another in the same place: a wrong layer (LWS), not a missing one
_SWAPPABLE = (
    frozenset({"LSTM", "GRU", "SimpleRNN"}),
    frozenset({"MaxPooling", "AveragePooling"}),
    frozenset({"GlobalMaxPooling", "GlobalAveragePooling"}),
    frozenset({"Conv", "SeparableConv", "DepthwiseConv"}),
)


def _replaceable(a: str, b: str) -> bool:
    """Whether layer class ``b`` in the fixed program is the same slot as ``a`` in the buggy one (LWS)."""
    ba, bb = _layer_base(a), _layer_base(b)
    return ba == bb or any(ba in group and bb in group for group in _SWAPPABLE)


def _layer_similarity(a: FoldedLayer, b: FoldedLayer, era_a: str, era_b: str) -> float:
    """Score for pairing two layers: same class scores high, more so with equal arguments."""
    if a.layer.cls == b.layer.cls:
        keys = set(a.layer.args) | set(b.layer.args)
        keys -= IGNORED_LAYER_ARGS
        if not keys:
            return 3.0
        # a layer's size (units/filters) says more about which layer it is than its other arguments
        weights = {k: 2.0 if k in ("units", "filters") else 1.0 for k in keys}
        same = sum(
            w for k, w in weights.items() if _values_equal(a.layer.arg(k, era_a), b.layer.arg(k, era_b))
        )
        return 2.0 + same / sum(weights.values())
    if _replaceable(a.layer.cls, b.layer.cls):
        return 1.5
    return -1.0


def align_layers(
    buggy: list[FoldedLayer], fixed: list[FoldedLayer], era_b: str = "keras2", era_f: str = "keras2"
) -> list[tuple[int | None, int | None]]:
    """Global alignment of two layer sequences: pairs of indexes, None for a gap."""
    n, m = len(buggy), len(fixed)
    score = [[0.0] * (m + 1) for _ in range(n + 1)]
    move = [[0] * (m + 1) for _ in range(n + 1)]  # 0 diag, 1 up (buggy gap), 2 left (fixed gap)
    for i in range(1, n + 1):
        move[i][0] = 1
    for j in range(1, m + 1):
        move[0][j] = 2
    for i in range(1, n + 1):
        for j in range(1, m + 1):
            sim = _layer_similarity(buggy[i - 1], fixed[j - 1], era_b, era_f)
            best, how = score[i - 1][j], 1
            if score[i][j - 1] > best:
                best, how = score[i][j - 1], 2
            if sim > 0 and score[i - 1][j - 1] + sim >= best:
                best, how = score[i - 1][j - 1] + sim, 0
            score[i][j], move[i][j] = best, how
    pairs: list[tuple[int | None, int | None]] = []
    i, j = n, m
    while i > 0 or j > 0:
        how = move[i][j]
        if how == 0:
            pairs.append((i - 1, j - 1))
            i, j = i - 1, j - 1
        elif how == 1:
            pairs.append((i - 1, None))
            i -= 1
        else:
            pairs.append((None, j - 1))
            j -= 1
    pairs.reverse()
    return pairs


# ---------------------------------------------------------------------------------------------------
# The diff
# ---------------------------------------------------------------------------------------------------


@dataclass
class _Sides:
    buggy: ProgramModel
    fixed: ProgramModel

    @property
    def era_b(self) -> str:
        return self.buggy.era

    @property
    def era_f(self) -> str:
        return self.fixed.era


def _component(
    element: str,
    kind: str,
    change: str,
    before: Value | Layer | str | None,
    after: Value | Layer | str | None,
    b_loc: tuple[str | None, int | None],
    f_loc: tuple[str | None, int | None],
    **detail: Any,
) -> FaultComponent:
    def text(x: Value | Layer | str | None) -> str | None:
        if x is None:
            return None
        if isinstance(x, Value):
            return x.short()
        if isinstance(x, Layer):
            t = " ".join((x.text or x.cls).split())
            return t if len(t) <= 80 else t[:77] + "..."
        return x

    return FaultComponent(
        element=element,
        kind=kind,
        change=change,
        before=text(before),
        after=text(after),
        buggy_file=b_loc[0],
        buggy_line=b_loc[1],
        fixed_file=f_loc[0],
        fixed_line=f_loc[1],
        detail={k: v for k, v in detail.items() if v is not None},
    )


def _loc_value(
    v: Value | None, default_file: str | None, default_line: int | None
) -> tuple[str | None, int | None]:
    if v is None or v.implicit or v.line is None:
        return default_file, default_line
    return default_file, v.line


def _folded_activation(fl: FoldedLayer) -> Value | None:
    return fl.activation


def _diff_layer_args(
    out: list[FaultComponent],
    sides: _Sides,
    mi: int,
    li: int,
    b: FoldedLayer,
    f: FoldedLayer,
) -> None:
    bl, fl = b.layer, f.layer
    b_loc, f_loc = (bl.file, bl.line), (fl.file, fl.line)
    # activation, on the folded view (rule activation_layer_vs_argument)
    ba, fa = _act_name(b.activation), _act_name(f.activation)
    if ba != fa and not (
        (b.activation is not None and b.activation.is_opaque)
        or (f.activation is not None and f.activation.is_opaque)
    ):
        change = "added" if ba == "linear" else "removed" if fa == "linear" else "changed"
        # decision ACH-vs-layer: an Activation *layer* present on one side only, with no activation
        # at all on the other, is a missing (LRM) or redundant (LAD) layer, e.g. a softmax layer
        if change == "added" and len(f.sources) > 1 and (b.activation is None or b.activation.implicit):
            out.append(_activation_layer_component(mi, f, "layer.missing", "added"))
            return _diff_layer_args_rest(out, sides, mi, li, b, f)
        if change == "removed" and len(b.sources) > 1 and (f.activation is None or f.activation.implicit):
            out.append(_activation_layer_component(mi, b, "layer.redundant", "removed"))
            return _diff_layer_args_rest(out, sides, mi, li, b, f)
        out.append(
            _component(
                layer_path(mi, li, "activation"),
                "layer.activation",
                change,
                b.activation if b.activation is not None else "linear",
                f.activation if f.activation is not None else "linear",
                _loc_value(b.activation, *b_loc),
                _loc_value(f.activation, *f_loc),
                before_activation=ba,
                after_activation=fa,
                layer_type=fl.cls,
            )
        )
    _diff_layer_args_rest(out, sides, mi, li, b, f)


def _activation_layer_component(mi: int, fold: FoldedLayer, kind: str, change: str) -> FaultComponent:
    act_layer = fold.layer
    # the Activation layer itself is the last source of the folded layer
    return _component(
        layer_path(mi, fold.sources[-1]),
        kind,
        change,
        None if change == "added" else _act_text(fold),
        _act_text(fold) if change == "added" else None,
        (None, None)
        if change == "added"
        else (act_layer.file, fold.activation.line if fold.activation else None),
        (act_layer.file, fold.activation.line if fold.activation else None)
        if change == "added"
        else (None, None),
        layer_type=f"Activation({_act_name(fold.activation)})",
    )


def _act_text(fold: FoldedLayer) -> str:
    return f"Activation({_short(fold.activation)})"


@functools.lru_cache(maxsize=8192)
def _call_shape(text: str) -> tuple[tuple[str, ...], frozenset[str]] | None:
    """(positional argument texts, keyword names) of a layer constructor call's source text."""
    try:
        expr = libcst.parse_expression(text)
    except Exception:
        return None
    while isinstance(expr, libcst.Call) and isinstance(expr.func, libcst.Call):
        expr = expr.func  # functional API: Dense(10)(x) -> Dense(10)
    if not isinstance(expr, libcst.Call):
        return None
    module = libcst.Module(body=[])
    positional = tuple(
        " ".join(module.code_for_node(a.value).split()) for a in expr.args if a.keyword is None and not a.star
    )
    keywords = frozenset(a.keyword.value for a in expr.args if a.keyword is not None)
    return positional, keywords


def _positional_only_keys(bl: Layer, fl: Layer, era_b: str, era_f: str) -> set[str]:
    """Arguments both layers write with the very same positional texts (rule ``api_spelling``).

    A benchmark running posted Keras 1 code under Keras 2 (``Convolution2D(32, 3, 3)``) did not
    change the program's text; the study did not count the era's reinterpretation as a fault.
    Returns the canonical argument names that come from those positionals (or defaults).
    """
    from mutreal import keras_api

    bs, fs = _call_shape(bl.text), _call_shape(fl.text)
    if bs is None or fs is None or bs[0] != fs[0] or not bs[0]:
        return set()
    written = {keras_api.canonical_kwarg(bl.cls, k, era_b) for k in bs[1]}
    written |= {keras_api.canonical_kwarg(fl.cls, k, era_f) for k in fs[1]}
    return (set(bl.args) | set(fl.args)) - written


def _diff_layer_args_rest(
    out: list[FaultComponent], sides: _Sides, mi: int, li: int, b: FoldedLayer, f: FoldedLayer
) -> None:
    bl, fl = b.layer, f.layer
    b_loc, f_loc = (bl.file, bl.line), (fl.file, fl.line)
    keys = (set(bl.args) | set(fl.args)) - IGNORED_LAYER_ARGS - {"activation"}
    if sides.era_b != sides.era_f:
        keys -= _positional_only_keys(bl, fl, sides.era_b, sides.era_f)
    if bl.inner is not None and fl.inner is not None:
        _diff_wrapped(out, sides, mi, li, bl.inner, fl.inner)
    seen_kinds: set[str] = set()
    is_bn = bl.cls == "BatchNormalization"
    for key in sorted(keys):
        kind = BN_ARG_KINDS.get(key) if is_bn else None
        is_table_size = bl.cls in _TABLE_LAYERS and fl.cls in _TABLE_LAYERS and key in _TABLE_SIZE_ARGS
        kind = "layer.units" if is_table_size else kind or LAYER_ARG_KINDS.get(key)
        if kind is None or key.startswith("_"):
            continue
        bv, fv = bl.arg(key, sides.era_b), fl.arg(key, sides.era_f)
        if kind == "layer.regularizer":
            bv, fv = _none_is_absent(bv), _none_is_absent(fv)
        if kind == "layer.input_shape" and key != "input_length":
            continue  # compared once per model, see _diff_model_input
        if is_table_size and (_values_equal(bv, fv, strict_opaque=True) or kind in seen_kinds):
            continue
        if _values_equal(bv, fv) or (kind == "layer.input_shape" and _shape_equal(bv, fv)):
            continue
        if kind in seen_kinds and kind in ("layer.input_shape", "layer.regularizer"):
            continue
        seen_kinds.add(kind)
        change = "added" if bv is None else "removed" if fv is None else "changed"
        out.append(
            _component(
                layer_path(mi, li, key),
                kind,
                change,
                bv,
                fv,
                _loc_value(bv, *b_loc),
                _loc_value(fv, *f_loc),
                layer_type=fl.cls,
                before_value=None if bv is None else (bv.value if bv.is_const else bv.short()),
                after_value=None if fv is None else (fv.value if fv.is_const else fv.short()),
                before_number=_number(bv),
                after_number=_number(fv),
            )
        )


def _diff_wrapped(out: list[FaultComponent], sides: _Sides, mi: int, li: int, bi: Layer, fi: Layer) -> None:
    """The layer inside a wrapper (TimeDistributed(Dense(3)), Bidirectional(LSTM(20))) compared as a layer."""
    if bi.cls != fi.cls:
        out.append(
            _component(
                layer_path(mi, li, "layer"),
                "layer.type",
                "changed",
                bi,
                fi,
                (bi.file, bi.line),
                (fi.file, fi.line),
                before_layer_type=bi.cls,
                after_layer_type=fi.cls,
            )
        )
        return
    fb = FoldedLayer(bi, [li], bi.arg("activation", sides.era_b))
    ff = FoldedLayer(fi, [li], fi.arg("activation", sides.era_f))
    _diff_layer_args(out, sides, mi, li, fb, ff)


def _none_is_absent(v: Value | None) -> Value | None:
    """kernel_regularizer=None is no regulariser at all."""
    return None if v is not None and v.is_const and v.value is None else v


def _input_shape(layer: Layer) -> Value | None:
    for key in ("input_shape", "batch_input_shape", "input_dim", "shape", "batch_shape"):
        if key == "input_dim" and layer.cls in _TABLE_LAYERS:
            continue  # an Embedding's input_dim is its vocabulary size (decision LCN-embedding-size)
        v = layer.args.get(key)
        if v is not None:
            return v
    return None


def _shape_equal(a: Value | None, b: Value | None) -> bool:
    """input_dim=n equals input_shape=(n,)."""

    def norm(v: Value | None) -> Any:
        if v is None:
            return None
        if v.is_const:
            val = v.value
            if isinstance(val, (int, float)):
                return (val,)
            if isinstance(val, (list, tuple)):
                return tuple(val)
        return v.key()

    return norm(a) == norm(b)


def _layer_name_for_leaf(layer: Layer) -> str:
    if layer.cls == "Activation":
        act = layer.args.get("activation")
        return f"Activation({_act_name(act)})"
    return layer.cls


#: layers appended after the end of a posted snippet's model that a benchmark completed
SNIPPET_COMPLETION_LAYERS = 2


#: layers a classifier or regressor can end with; a model ending otherwise (a bare Conv1D) was cut short
_OUTPUT_LAYERS = frozenset({"Dense", "Activation", "Softmax", "TimeDistributed", "Lambda", "Reshape"})


def _drop_completed_snippet(
    pairs: list[tuple[int | None, int | None]], sides: _Sides, buggy: list[FoldedLayer] | None = None
) -> list[tuple[int | None, int | None]]:
    """Rule ``completed_snippet``: a posted model without compile, completed by the benchmark.

    The study (4.2.1) let benchmark authors complete the parts a post did not show; layers the
    fixed program appends after the last layer of a buggy model that is never compiled, or whose
    last layer is not one a model ends with (a Conv1D output: the post was cut short), are that
    completion when there are two or three of them (an output head), not a fault; four or more
    appended layers rebuild the model (decision MWA-appended, counted as MWA below).
    """
    last = max((k for k, (bi, _) in enumerate(pairs) if bi is not None), default=-1)
    if last < 0:
        return pairs
    if sides.buggy.compiles and not (
        buggy is not None and _layer_base(buggy[pairs[last][0]].layer.cls) not in _OUTPUT_LAYERS  # type: ignore[index]
    ):
        return pairs
    trailing = pairs[last + 1 :]
    head = SNIPPET_COMPLETION_LAYERS <= len(trailing) < MWA_STRUCTURAL_CHANGES
    if head and all(bi is None for bi, _ in trailing):
        return pairs[: last + 1]
    return pairs


#: this many layers added, removed or replaced in one model make one "wrong architecture" (MWA) component
MWA_STRUCTURAL_CHANGES = 4
_STRUCTURAL = frozenset({"layer.missing", "layer.redundant", "layer.type"})


def _diff_model(out: list[FaultComponent], sides: _Sides, mi: int, bm: KerasModel, fm: KerasModel) -> None:
    """Components of one model pair; a rebuilt model (decision MWA-rebuilt) is one MWA component.

    Rebuilt: at least MWA_STRUCTURAL_CHANGES layers added, removed or replaced, and at least half as
    many as the layers left in place (a large model losing one block is not rebuilt).
    """
    mine: list[FaultComponent] = []
    _diff_model_layers(mine, sides, mi, bm, fm)
    paddings = [c for c in mine if c.kind == "layer.padding"]
    if len(paddings) > 1:  # decision TWP-once: the study wrote one TWP for a model's padding
        mine = [c for c in mine if c.kind != "layer.padding" or c is paddings[0]]
    structural = sum(c.kind in _STRUCTURAL for c in mine)
    kept = max(len(bm.layers), len(fm.layers)) - structural  # layers the fix left in place
    if structural >= MWA_STRUCTURAL_CHANGES and 2 * structural >= kept:
        mine = [
            _component(
                layer_path(mi),
                "model.architecture",
                "changed",
                f"{len(bm.layers)} layers",
                f"{len(fm.layers)} layers",
                (bm.file, bm.line),
                (fm.file, fm.line),
                structural_changes=structural,
            )
        ]
    out.extend(mine)


def _model_input(model: KerasModel) -> tuple[Layer, Value] | None:
    """The input shape a model declares: its Input layer's shape, else its first layer's input shape."""
    for layer in model.layers:
        shape = _input_shape(layer)
        if shape is not None:
            return layer, shape
        if layer.cls not in _INPUT_ONLY:
            return None
    return None


_SAMPLE_COUNT = re.compile(r"\.shape\s*\[\s*0\s*\]")


def _reads_sample_count(v: Value) -> bool:
    """Decision LIS-sample-count: a declared input shape built from ``x.shape[0]``, the number of
    samples, where the other program uses the feature axes (``x.shape[1:]``, a literal): the classic
    wrong input shape, even when the arrays are unknown on one side and the shapes cannot be folded."""
    return bool(_SAMPLE_COUNT.search(v.text or ""))


def _diff_model_input(out: list[FaultComponent], mi: int, bm: KerasModel, fm: KerasModel) -> None:
    """Decision LIS-model-input: the model's declared input shape changed, was added or was removed.

    ``input_dim=n`` equals ``input_shape=(n,)`` and ``Input(shape=(n,))``; where it is written
    (Input layer or first layer) does not matter.
    """
    b, f = _model_input(bm), _model_input(fm)
    if b is None and f is None:
        return
    if (
        b is not None
        and f is not None
        and (_values_equal(b[1], f[1], strict_opaque=True) or _shape_equal(b[1], f[1]))
        and _reads_sample_count(b[1]) == _reads_sample_count(f[1])
    ):
        return
    layer = (b or f)[0]  # type: ignore[index]
    index = (bm if b else fm).layers.index(layer)
    out.append(
        _component(
            layer_path(mi, index, "input_shape"),
            "layer.input_shape",
            "changed" if b and f else "added" if f else "removed",
            b[1] if b else None,
            f[1] if f else None,
            _loc_value(b[1], b[0].file, b[0].line) if b else (None, None),
            _loc_value(f[1], f[0].file, f[0].line) if f else (None, None),
            layer_type=layer.cls,
            after_shape=_folded_shape(f[1]) if f else None,
        )
    )


def _folded_shape(v: Value) -> list[Any] | None:
    """A declared shape as folded numbers (``(timesteps, dim)`` -> [10, 1]); None when not constant."""
    if v.kind != "const":
        return None
    if isinstance(v.value, (int, float)) and not isinstance(v.value, bool):
        return [v.value]
    return list(v.value) if isinstance(v.value, (list, tuple)) else None


#: activations f with f(f(x)) == f(x): a second one right after the first changes nothing
_IDEMPOTENT_ACTIVATIONS = frozenset({"relu", "relu6", "linear"})


def _repeats_idempotent_activation(fold: list[FoldedLayer], index: int) -> bool:
    """Rule ``activation_layer_vs_argument``: ``Dense(50, activation='relu')`` then ``Activation('relu')``.

    An Activation layer that repeats the idempotent activation of the layer before it computes the
    same function; adding or deleting it is not a fault (the study did not count it).
    """
    layer = fold[index].layer
    if not layer.is_activation_layer or index == 0:
        return False
    act = _act_name(fold[index].activation)
    return act in _IDEMPOTENT_ACTIVATIONS and _act_name(fold[index - 1].activation) == act


def _diff_model_layers(
    out: list[FaultComponent], sides: _Sides, mi: int, bm: KerasModel, fm: KerasModel
) -> None:
    _diff_model_input(out, mi, bm, fm)
    bfold = [x for x in bm.folded_layers(sides.era_b) if x.layer.cls not in _INPUT_ONLY]
    ffold = [x for x in fm.folded_layers(sides.era_f) if x.layer.cls not in _INPUT_ONLY]
    pairs = align_layers(bfold, ffold, sides.era_b, sides.era_f)
    pairs = _drop_completed_snippet(pairs, sides, bfold)
    for bi, fi in pairs:
        if bi is not None and fi is not None:
            b, f = bfold[bi], ffold[fi]
            li = b.sources[0]
            if b.layer.cls != f.layer.cls:
                out.append(
                    _component(
                        layer_path(mi, li),
                        "layer.type",
                        "changed",
                        b.layer,
                        f.layer,
                        (b.layer.file, b.layer.line),
                        (f.layer.file, f.layer.line),
                        before_layer_type=b.layer.cls,
                        after_layer_type=f.layer.cls,
                    )
                )
                continue
            _diff_layer_args(out, sides, mi, li, b, f)
        elif (fi is not None and _repeats_idempotent_activation(ffold, fi)) or (
            bi is not None and _repeats_idempotent_activation(bfold, bi)
        ):
            continue
        elif fi is not None:
            f = ffold[fi]
            out.append(
                _component(
                    layer_path(mi, f.sources[0]),
                    "layer.missing",
                    "added",
                    None,
                    f.layer,
                    (None, None),
                    (f.layer.file, f.layer.line),
                    layer_type=_layer_name_for_leaf(f.layer),
                )
            )
        elif bi is not None:
            b = bfold[bi]
            out.append(
                _component(
                    layer_path(mi, b.sources[0]),
                    "layer.redundant",
                    "removed",
                    b.layer,
                    None,
                    (b.layer.file, b.layer.line),
                    (None, None),
                    layer_type=_layer_name_for_leaf(b.layer),
                )
            )


#: optimizer hyperparameters -> kind
OPTIMIZER_ARG_KINDS = {
    "learning_rate": "compile.learning_rate",
    "clipnorm": "compile.clipping",
    "clipvalue": "compile.clipping",
    "global_clipnorm": "compile.clipping",
    "epsilon": "compile.epsilon",
}


def _diff_compile(out: list[FaultComponent], sides: _Sides, ci: int, bc: Compile, fc: Compile) -> None:
    b_loc, f_loc = (bc.file, bc.line), (fc.file, fc.line)
    if (bc.loss is not None or fc.loss is not None) and not _values_equal(bc.loss, fc.loss):
        out.append(
            _component(
                compile_path(ci, "loss"),
                "compile.loss",
                "changed" if bc.loss and fc.loss else "added" if fc.loss else "removed",
                bc.loss,
                fc.loss,
                _loc_value(bc.loss, *b_loc),
                _loc_value(fc.loss, *f_loc),
            )
        )
    bo, fo = bc.optimizer, fc.optimizer
    if bo is None or fo is None:
        if (bo is None) != (fo is None):
            present = bo or fo
            if present is not None and present.cls is not None and present.args:
                pass  # an optimizer only on one side: undecidable (the other compile is incomplete)
        return
    if bo.cls is None or fo.cls is None:
        return
    if bo.cls.lower() != fo.cls.lower():
        out.append(
            _component(
                compile_path(ci, "optimizer"),
                "compile.optimizer",
                "changed",
                bo.text or bo.cls,
                fo.text or fo.cls,
                (bo.file, bo.line or bc.line),
                (fo.file, fo.line or fc.line),
                before_value=bo.cls,
                after_value=fo.cls,
            )
        )
        # decision OCH-class: a new optimizer is one OCH component; DeepCrime's OCH, too, swaps the
        # optimizer with its own hyperparameters
        return
    keys = set(bo.args) | set(fo.args)
    for key in sorted(keys):
        kind = OPTIMIZER_ARG_KINDS.get(key)
        if kind is None:
            continue
        bv, fv = bo.arg(key, sides.era_b), fo.arg(key, sides.era_f)
        if _values_equal(bv, fv):
            continue
        bn, fn = _number(bv), _number(fv)
        if bn is not None and fn is not None and abs(bn - fn) <= 1e-12 * max(abs(bn), abs(fn), 1):
            continue
        out.append(
            _component(
                compile_path(ci, "optimizer", key),
                kind,
                "added" if bv is None else "removed" if fv is None else "changed",
                bv,
                fv,
                _loc_value(bv, bo.file, bo.line or bc.line),
                _loc_value(fv, fo.file, fo.line or fc.line),
                before_number=bn,
                after_number=fn,
                optimizer_spelling=bo.spelling,
            )
        )


_LENGTH_OF_DATA = re.compile(r"^(len\(.*\)|.*\.shape\[0\])$")


def _full_batch(v: Value | None) -> bool:
    """batch_size = len(x) / x.shape[0]: the whole training set in one batch (DeepCrime's HDB)."""
    return v is not None and bool(_LENGTH_OF_DATA.match("".join((v.text or "").split())))


def _callbacks(fit: Fit) -> dict[str, Any]:
    return {cb.cls: cb for cb in fit.callbacks if cb.known and cb.cls in TRAINING_CALLBACKS}


def _diff_fit(out: list[FaultComponent], sides: _Sides, fi: int, bf: Fit, ff: Fit) -> None:
    b_loc, f_loc = (bf.file, bf.line), (ff.file, ff.line)
    for key, kind in (("epochs", "fit.epochs"), ("batch_size", "fit.batch_size")):
        bv, fv = bf.arg(key, sides.era_b), ff.arg(key, sides.era_f)
        if bf.method != "fit" or ff.method != "fit":
            bv, fv = bf.args.get(key), ff.args.get(key)
            if bv is None or fv is None:
                continue
        bn, fn = _number(bv), _number(fv)
        # decision HNE-loop-passes: fit in a loop with literal bounds trains epochs x passes
        looped = key == "epochs" and bool(bf.repeat and ff.repeat) and bn is not None and fn is not None
        if looped and bf.repeat != ff.repeat:
            before, after = f"{_short(bv)} (x{bf.repeat} loop)", f"{_short(fv)} (x{ff.repeat} loop)"
        else:
            before, after = bv, fv  # type: ignore[assignment]
            if _values_equal(
                bv, fv, strict_opaque=key == "batch_size" and _full_batch(bv) != _full_batch(fv)
            ):
                continue
        if looped:
            bn, fn = bn * bf.repeat, fn * ff.repeat  # type: ignore[operator]
            if bn == fn:
                continue
        out.append(
            _component(
                fit_path(fi, key),
                kind,
                "added" if bv is None else "removed" if fv is None else "changed",
                before,
                after,
                _loc_value(bv, *b_loc),
                _loc_value(fv, *f_loc),
                before_number=bn,
                after_number=fn,
                full_batch=True if key == "batch_size" and (_full_batch(bv) or _full_batch(fv)) else None,
            )
        )
    _diff_validation(out, sides, fi, bf, ff)
    _diff_later_learning_rate(out, fi, bf, ff)
    bcb, fcb = _callbacks(bf), _callbacks(ff)
    for name in sorted(set(bcb) & set(fcb)):
        if name != "EarlyStopping":
            continue
        bv, fv = bcb[name].args.get("patience"), fcb[name].args.get("patience")
        if bv is None and fv is None:
            continue
        if not _values_equal(bv, fv):
            out.append(
                _component(
                    fit_path(fi, "callbacks", name, "patience"),
                    "fit.patience",
                    "changed",
                    bv,
                    fv,
                    (bcb[name].file, bcb[name].line),
                    (fcb[name].file, fcb[name].line),
                    before_number=_number(bv),
                    after_number=_number(fv),
                )
            )


def _diff_later_learning_rate(out: list[FaultComponent], fi: int, bf: Fit, ff: Fit) -> None:
    """Rule ``learning_rate_after_compile``: the learning rate a statement sets on the model's
    optimizer after compile (``K.set_value(model.optimizer.lr, v)``) before this training call is a
    learning rate like compile's (HLR). Compared per training call; a setting that several later calls
    keep is one component (one source text, see :func:`_dedupe_same_source`)."""
    bv, fv = bf.learning_rate, ff.learning_rate
    if (bv is None and fv is None) or _values_equal(bv, fv):
        return
    out.append(
        _component(
            fit_path(fi, "learning_rate"),
            "compile.learning_rate",
            "added" if bv is None else "removed" if fv is None else "changed",
            bv,
            fv,
            _loc_value(bv, bf.file, bf.line) if bv is not None else (None, None),
            _loc_value(fv, ff.file, ff.line) if fv is not None else (None, None),
            before_number=_number(bv),
            after_number=_number(fv),
            set_after_compile=True,
        )
    )


#: the arguments that give fit its validation set (validation_steps/freq only tune it)
_VALIDATION_SETS = ("validation_data", "validation_split")


def _validation_text(fit: Fit) -> str | None:
    parts = [f"{k}={fit.args[k].text}" for k in _VALIDATION_SETS if k in fit.args]
    return ", ".join(parts) or None


def _monitors_validation(fit: Fit) -> bool:
    """A callback that changes training (EarlyStopping, ReduceLROnPlateau) watches a validation
    quantity (``val_*``; both default to ``val_loss``)."""
    for cb in fit.callbacks:
        if not cb.known or cb.cls not in ("EarlyStopping", "ReduceLROnPlateau"):
            continue
        monitor = cb.args.get("monitor")
        name = "val_loss" if monitor is None else str(monitor.value if monitor.is_const else monitor.text)
        if name.strip("'\" ").startswith("val_"):
            return True
    return False


def _same_training_source(sides: _Sides) -> bool:
    """Both programs load their training inputs from the same source (rule synthetic_data_source)."""
    bv, fv = sides.buggy.data.get("x_train"), sides.fixed.data.get("x_train")
    if bv is None or fv is None or bv.source is None or fv.source is None:
        return bv is None and fv is None
    return bv.source.key() == fv.source.key()


def _diff_validation(out: list[FaultComponent], sides: _Sides, fi: int, bf: Fit, ff: Fit) -> None:
    """Decisions VRM-removed, VRM-added-monitored, validation-added-noise, validation-with-data-swap.

    A program LOSING its validation set while it keeps the data it trains on is VRM (DeepCrime's
    VRM edit: the argument goes, the arrays stay); a benchmark that swaps the posted data for
    generated arrays drops the validation set with the data (set-up, rule synthetic_data_source).
    A validation set the second program ADDS is VRM only when a callback of the first program
    already monitored a validation quantity it never had; added only to report metrics, it is not
    counted (the study did not count it).
    """
    btext, ftext = _validation_text(bf), _validation_text(ff)
    if (btext is None) == (ftext is None):
        return  # both have one (other values only tune monitoring) or neither
    if ftext is None:
        if not _same_training_source(sides):
            return
        change = "removed"
    else:
        if not _monitors_validation(bf):
            return
        change = "added"
    out.append(
        _component(
            fit_path(fi, "validation"),
            "fit.validation",
            change,
            btext,
            ftext,
            (bf.file, bf.line),
            (ff.file, ff.line),
        )
    )


#: preprocessing operations that count (decision CPP-steps); astype/array conversions, slices, splits,
#: shuffles and unknown calls are set-up or format and are not counted
_CPP_OPS = frozenset(
    {
        "divide",
        "multiply",
        "subtract",
        "add",
        "normalize",
        "scale",
        "mean_std",
        "clip",
        "log",
        "to_categorical",
        "one_hot",
        "reshape",
        "expand_dims",
        "transpose",
        "flatten",
        "augment",
        "pad_sequences",
        "squeeze",
        "swapaxes",
        "sqrt",
        "exp",
        "power",
        "pca",
        "resize",
        "vectorize",
        "tokenize",
        "texts_to_sequences",
        "texts_to_matrix",
        "sequences_to_matrix",
    }
)
#: ``encode`` (LabelEncoder: class names -> integer ids) is not listed: it only re-spells the labels
#: the loss reads, like astype (decision CPP-label-encoding)
#: operations that change the container type of the training arrays (lists vs arrays): IWF
_FORMAT_OPS = frozenset({"tolist", "to_list", "list"})
#: data roles compared in full; for the other roles (test and prediction inputs) only steps the
#: fix adds or changes count, since benchmarks often drop a post's evaluation code
_TRAIN_ROLES = ("x_train", "y_train")


def _without_comments(text: str) -> str:
    """Source text without its ``# ...`` comments (a call written over several commented lines)."""
    if "#" not in text:
        return text
    import io
    import tokenize

    try:
        tokens = list(tokenize.generate_tokens(io.StringIO(text).readline))
    except (tokenize.TokenError, SyntaxError, IndentationError):
        return text
    lines = text.splitlines(keepends=True)
    for tok in reversed([t for t in tokens if t.type == tokenize.COMMENT]):
        (row, col), (_, end) = tok.start, tok.end
        lines[row - 1] = lines[row - 1][:col] + lines[row - 1][end:]
    return "".join(lines)


def _op_text(op: DataOp) -> str:
    t = " ".join(_without_comments(op.text or op.op).split())
    return t if len(t) <= 80 else t[:77] + "..."


_EYE_INDEXING = re.compile(r"\beye\s*\(")


#: spellings of one-hot encoding (decision CPP-one-hot): ``to_categorical(y)``, ``np.eye(n)[y]``, one_hot
_ONE_HOT_OPS = frozenset({"one_hot", "to_categorical"})


def _op_kind(op: DataOp) -> str:
    """Canonical operation: every spelling of one-hot encoding is ``one_hot`` (``np.eye(n)[y]``
    indexing, ``to_categorical``, ``one_hot``), so a fix that re-spells it changes nothing."""
    if op.op == "slice" and _EYE_INDEXING.search(op.text or ""):
        return "one_hot"
    if op.op in _ONE_HOT_OPS:
        return "one_hot"
    return op.op


def _align_key(op: DataOp) -> str:
    kind = _op_kind(op)
    return kind if kind == "one_hot" else repr(op.key())


def _align_ops(b: list[DataOp], f: list[DataOp]) -> list[tuple[int | None, int | None]]:
    """Longest-common-subsequence alignment of two preprocessing chains by their keys."""
    import difflib

    bk = [_align_key(x) for x in b]
    fk = [_align_key(x) for x in f]
    pairs: list[tuple[int | None, int | None]] = []
    sm = difflib.SequenceMatcher(a=bk, b=fk, autojunk=False)
    for tag, i1, i2, j1, j2 in sm.get_opcodes():
        if tag == "equal":
            pairs += [(i1 + k, j1 + k) for k in range(i2 - i1)]
            continue
        bi, fj = list(range(i1, i2)), list(range(j1, j2))
        # same operation with other arguments: a changed step; the rest added/removed
        for i in list(bi):
            for j in fj:
                if _op_kind(b[i]) == _op_kind(f[j]):
                    pairs.append((i, j))
                    bi.remove(i)
                    fj.remove(j)
                    break
        pairs += [(i, None) for i in bi] + [(None, j) for j in fj]
    return pairs


#: the module whose seeded functions a training-data mutant calls (mutreal.runtime.training_data)
RUNTIME_TRAINING_DATA = "mutreal.runtime.training_data"


def runtime_training_function(op: DataOp) -> str | None:
    """The function of :mod:`mutreal.runtime.training_data` a step calls (``remove``...), if any.

    Recognised by the callee's canonical name, resolved like every other name (``import ... as``).
    """
    if op.op != "call" or not op.name:
        return None
    prefix = RUNTIME_TRAINING_DATA + "."
    if op.name.startswith(prefix) and "." not in op.name[len(prefix) :]:
        return op.name[len(prefix) :]
    return None


@dataclass
class _RuntimeSplit:
    """A preprocessing chain with its training-data runtime calls taken out."""

    ops: list[DataOp]  # the chain without the runtime calls and their tuple-unpacking steps
    calls: list[tuple[int, DataOp]]  # (index in the original chain, call)
    prefix_len: int = 0  # steps of ``ops`` before the first call
    prefix_known: bool = True  # False: the steps before the call were followed from another array


def _split_runtime_calls(ops: list[DataOp]) -> _RuntimeSplit:
    """Take the runtime calls out of a chain (rule ``training_data_runtime_calls``).

    ``x, y = remove(x, y, ...)`` returns a tuple: the extractor follows the call's first argument,
    so the chain of ``y`` (unpacked with ``[1]``) carries the steps of ``x`` before the call; those
    steps are then not this array's and are marked unknown.
    """
    split = _RuntimeSplit([], [])
    i = 0
    while i < len(ops):
        op = ops[i]
        if runtime_training_function(op) is None:
            split.ops.append(op)
            i += 1
            continue
        if not split.calls:
            split.prefix_len = len(split.ops)
        split.calls.append((i, op))
        i += 1
        if i < len(ops) and ops[i].op == "slice" and "index" in ops[i].args:
            index = ops[i].args["index"].value
            if index != 0 and len(split.calls) == 1:
                split.prefix_known = False
            i += 1
    return split


def _without_runtime_calls(bops: list[DataOp], fops: list[DataOp]) -> tuple[list[DataOp], list[DataOp]]:
    """Both chains without runtime calls; an unknown prefix is taken as the other side's chain."""
    bs, fs = _split_runtime_calls(bops), _split_runtime_calls(fops)
    bclean, fclean = bs.ops, fs.ops
    if not bs.prefix_known and fs.prefix_known and not fs.calls:
        bclean = fs.ops + bs.ops[bs.prefix_len :]
    if not fs.prefix_known and bs.prefix_known and not bs.calls:
        fclean = bs.ops + fs.ops[fs.prefix_len :]
    return bclean, fclean


@dataclass
class RuntimeCall:
    """A call of :mod:`mutreal.runtime.training_data` found in a program's source, with the
    training roles (``x_train``/``y_train``) of the arrays it rebinds."""

    function: str
    roles: list[str]
    text: str
    file: str | None
    line: int | None

    def key(self) -> tuple[str, str]:
        text = "".join(self.text.split())
        return self.function, text[text.find("(") :] if "(" in text else text


def _dotted(node: libcst.BaseExpression) -> str | None:
    if isinstance(node, libcst.Name):
        return node.value
    if isinstance(node, libcst.Attribute):
        head = _dotted(node.value)
        return f"{head}.{node.attr.value}" if head else None
    return None


#: names a program gives its training budget: ``epochs``, ``nb_epoch``, ``num_epochs``, ``EPOCHS``, ``batch_size``
_HYPER_VARIABLES = re.compile(
    r"^(?:(?P<epochs>(?:nb_|num_|n_)?epochs?)|(?P<batch>(?:nb_|num_|n_)?batch(?:_?size)?))$", re.IGNORECASE
)


@dataclass
class HyperVariable:
    """A module-level ``epochs = 5`` / ``batch_size = 32`` literal (rule ``unused_hyperparameter``)."""

    name: str
    kind: str  # fit.epochs or fit.batch_size
    value: float
    text: str
    line: int


def find_hyperparameter_variables(module: libcst.Module, source: str) -> dict[str, HyperVariable]:
    """Module-level number literals bound to a training-budget name (the parsed tree, no second parse)."""
    lowered = source.lower()
    if "epoch" not in lowered and "batch" not in lowered:
        return {}
    found: dict[str, HyperVariable] = {}
    for stmt in module.body:
        if not isinstance(stmt, libcst.SimpleStatementLine) or len(stmt.body) != 1:
            continue
        node = stmt.body[0]
        if not (isinstance(node, libcst.Assign) and len(node.targets) == 1):
            continue
        target = node.targets[0].target
        if not isinstance(target, libcst.Name) or not isinstance(node.value, (libcst.Integer, libcst.Float)):
            continue
        match = _HYPER_VARIABLES.match(target.value)
        if match is None:
            continue
        text = node.value.value
        where = re.search(rf"^{re.escape(target.value)}\s*=\s*{re.escape(text)}", source, re.MULTILINE)
        line = source.count("\n", 0, where.start()) + 1 if where else 0
        kind = "fit.epochs" if match.group("epochs") else "fit.batch_size"
        found[target.value] = HyperVariable(target.value, kind, float(node.value.evaluated_value), text, line)
    return found


def _fit_names(fits: list[Fit]) -> set[str]:
    """Names the training calls pass as their epochs or batch size."""
    names = set()
    for fit in fits:
        for key in ("epochs", "batch_size"):
            v = fit.args.get(key)
            if v is not None:
                names.add(v.short())
    return names


def _diff_unused_hyperparameters(
    out: list[FaultComponent],
    buggy: ProgramModel,
    fixed: ProgramModel,
    variables: tuple[dict[str, HyperVariable], dict[str, HyperVariable]],
) -> None:
    """Decision HNE-unused-variable: ``nb_epoch = 0`` becomes ``nb_epoch = 3`` although no training
    call reads it. The study read the program's stated training budget and coded the change (HNE or
    HBS) all the same. Only a variable both programs bind to a different number, when the training
    calls' own values did not change already and neither side passes the variable to them (that is
    compared as the call's argument).
    """
    bvars, fvars = variables
    used = _fit_names(buggy.fits) | _fit_names(fixed.fits)
    done = {c.kind for c in out}
    for name, bv in bvars.items():
        fv = fvars.get(name)
        if fv is None or fv.value == bv.value or name in used or bv.kind in done:
            continue
        done.add(bv.kind)
        out.append(
            _component(
                f"{'fit.epochs' if bv.kind == 'fit.epochs' else 'fit.batch_size'}",
                bv.kind,
                "changed",
                bv.text,
                fv.text,
                (buggy.path, bv.line),
                (fixed.path, fv.line),
                variable=name,
                before_number=bv.value,
                after_number=fv.value,
            )
        )


def find_runtime_calls(
    module: libcst.Module,
    imports: dict[str, str],
    fits: list[Fit],
    path: str | None = None,
    source: str | None = None,
) -> list[RuntimeCall]:
    """Every ``targets = <mutreal.runtime.training_data>.fn(...)`` statement of a program.

    Read from the source (rule ``training_data_runtime_calls``) so that a call is found even where
    the data it rebinds cannot be followed (arrays defined elsewhere). The callee is resolved like
    other names, through the program's imports; a target is a training role when a fit call takes
    it as its ``x`` or ``y``.
    """
    if "training_data" not in (source if source is not None else module.code):
        return []  # the cheap test first: most programs never mention the runtime module
    from libcst.metadata import MetadataWrapper, PositionProvider

    roles: dict[str, str] = {}
    for fit in fits:
        for arg, role in (("x", "x_train"), ("y", "y_train")):
            v = fit.args.get(arg)
            if v is not None and v.text:
                roles.setdefault("".join(v.text.split()), role)
    wrapper = MetadataWrapper(module, unsafe_skip_copy=True)
    positions = wrapper.resolve(PositionProvider)
    found: list[RuntimeCall] = []
    prefix = RUNTIME_TRAINING_DATA + "."

    class _Visitor(libcst.CSTVisitor):
        def visit_Assign(self, node: libcst.Assign) -> None:
            call = node.value
            if not isinstance(call, libcst.Call):
                return
            name = _dotted(call.func)
            if name is None:
                return
            head, _, rest = name.partition(".")
            canonical = imports.get(head, head) + (f".{rest}" if rest else "")
            if not canonical.startswith(prefix) or "." in canonical[len(prefix) :]:
                return
            targets: list[str] = []
            for t in node.targets:
                elems = t.target.elements if isinstance(t.target, libcst.Tuple) else [t.target]
                for e in elems:
                    expr = e.value if isinstance(e, libcst.Element) else e
                    targets.append("".join(module.code_for_node(expr).split()))
            pos = positions.get(node)
            found.append(
                RuntimeCall(
                    canonical[len(prefix) :],
                    [roles[t] for t in targets if t in roles],
                    " ".join(module.code_for_node(call).split()),
                    path,
                    pos.start.line if pos else None,
                )
            )

    wrapper.visit(_Visitor())
    return found


def _runtime_text(op: DataOp) -> str:
    return " ".join((op.text or op.name or op.op).split())


def _chain_runtime_calls(model: ProgramModel) -> list[RuntimeCall]:
    """Runtime calls as the extractor followed them into the training arrays' chains."""
    calls: dict[tuple, RuntimeCall] = {}
    for role in _TRAIN_ROLES:
        var = model.data.get(role)
        for _, op in _split_runtime_calls(var.preprocess).calls if var else []:
            key = (op.file, op.line, _runtime_text(op))
            call = calls.setdefault(
                key, RuntimeCall(runtime_training_function(op) or "", [], _runtime_text(op), op.file, op.line)
            )
            call.roles.append(role)
    return list(calls.values())


def _runtime_index(model: ProgramModel, role: str, call: RuntimeCall) -> int:
    """Position of the call in the role's chain (the chain's length when it was not followed)."""
    var = model.data.get(role)
    ops = var.preprocess if var else []
    for i, op in enumerate(ops):
        if runtime_training_function(op) == call.function and op.line == call.line:
            return i
    return len(ops)


def _diff_runtime_calls(
    out: list[FaultComponent],
    sides: _Sides,
    calls: tuple[list[RuntimeCall], list[RuntimeCall]] | None = None,
) -> None:
    """One component per training array a runtime training-data call rebinds (TCL, TRD, TUD, TAN,
    TCO mutants, as their provenance lists them), matched across the programs by function and
    arguments."""
    bcalls, fcalls = (
        calls
        if calls is not None
        else (
            _chain_runtime_calls(sides.buggy),
            _chain_runtime_calls(sides.fixed),
        )
    )
    bkeys = [c.key() for c in bcalls]
    fkeys = [c.key() for c in fcalls]
    for side_calls, other_keys, model, change in (
        (bcalls, fkeys, sides.buggy, "removed"),
        (fcalls, bkeys, sides.fixed, "added"),
    ):
        for call in side_calls:
            if call.key() in other_keys:
                continue
            loc = (call.file, call.line)
            for role in call.roles or ["x_train"]:
                out.append(
                    _component(
                        data_path(role, "preprocess", _runtime_index(model, role, call)),
                        "data.training_data",
                        change,
                        call.text if change == "removed" else None,
                        call.text if change == "added" else None,
                        loc if change == "removed" else (None, None),
                        loc if change == "added" else (None, None),
                        function=call.function,
                        role=role,
                    )
                )


def _norm_text(node: libcst.CSTNode) -> str:
    return "".join(libcst.Module(body=[]).code_for_node(node).split())


def _parse_call(text: str | None) -> libcst.Call | None:
    """The call written in ``text`` (a data step's or source's source text), or None."""
    try:
        expr = libcst.parse_expression(text or "")
    except Exception:
        return None
    return expr if isinstance(expr, libcst.Call) else None


def _shape_items(text: str | None) -> tuple[str, ...] | None:
    """``(rows, cols, 1)`` -> ('rows', 'cols', '1'); ``(n,)`` -> ('n',); None when not a literal tuple."""
    try:
        expr = libcst.parse_expression(text or "")
    except Exception:
        return None
    if isinstance(expr, (libcst.Tuple, libcst.List)):
        return tuple(_norm_text(e.value) for e in expr.elements)
    return None


def _reshapes_to(op: DataOp, shapes: list[tuple[str, ...] | None]) -> bool:
    """Decision LIS-reshape-once: the fix gives the model a new input shape and reshapes the input
    data to exactly that shape (``x.reshape(n, r, c, 1)`` for ``input_shape=(r, c, 1)``, or
    ``expand_dims(x, -1)`` for a shape ending in 1): one fix action, which the study coded once, as LIS.
    """
    shapes = [s for s in shapes if s]
    if not shapes or op.op not in ("reshape", "expand_dims"):
        return False
    expr = _parse_call(op.text)
    if expr is None:
        return False
    args = [a for a in expr.args if a.keyword is None or a.keyword.value in ("axis", "newshape", "shape")]
    is_method = isinstance(expr.func, libcst.Attribute) and not _norm_text(expr.func.value).startswith(
        ("np", "numpy", "tf")
    )
    operands = args if is_method else args[1:]  # np.reshape(x, shape) / expand_dims(x, axis)
    if op.op == "expand_dims":
        axis = _norm_text(operands[0].value) if operands else ""
        return axis == "-1" and any(s[-1] == "1" for s in shapes)
    folded = op.args.get("shape")
    if folded is not None and folded.kind == "const" and isinstance(folded.value, (list, tuple)):
        items = tuple(str(x) for x in folded.value[1:])
        if len(items) >= 1 and items in shapes:
            return True  # the folded target, names resolved (``reshape(1, steps, 1)``, ``(steps, 1)``)
    if len(operands) == 1 and isinstance(operands[0].value, (libcst.Tuple, libcst.List)):
        target = tuple(_norm_text(e.value) for e in operands[0].value.elements)
    else:
        target = tuple(_norm_text(a.value) for a in operands)
    return len(target) >= 2 and any(target[1:] == s for s in shapes)


#: array constructors whose first positional argument is the shape; ``rand``/``randn`` take the
#: dimensions as separate arguments; ``randint``/``uniform``/``normal`` take it third (``size``)
_SHAPE_FIRST = frozenset({"zeros", "ones", "empty", "full", "random", "random_sample", "zeros_like"})
_SHAPE_SPREAD = frozenset({"rand", "randn"})
_SHAPE_THIRD = frozenset({"randint", "uniform", "normal"})


def _constructor_shape(source: DataSource | None) -> tuple[str, ...] | None:
    """The shape written in a generated/random array's constructor, as normalised item texts
    (``np.zeros((1, n))`` -> ('1', 'n')), whether or not the names fold to numbers."""
    if source is None or source.kind not in ("generated", "random"):
        return None
    expr = _parse_call(source.text)
    if expr is None:
        return None
    func = _norm_text(expr.func).rsplit(".", 1)[-1]
    keywords = {a.keyword.value: a.value for a in expr.args if a.keyword is not None}
    positional = [a.value for a in expr.args if a.keyword is None]
    shape = keywords.get("shape") or keywords.get("size")
    if shape is None:
        if func in _SHAPE_SPREAD:
            return tuple(_norm_text(p) for p in positional) or None
        if func in _SHAPE_FIRST and positional:
            shape = positional[0]
        elif func in _SHAPE_THIRD and len(positional) >= 3:
            shape = positional[2]
    if shape is None:
        return None
    if isinstance(shape, (libcst.Tuple, libcst.List)):
        return tuple(_norm_text(e.value) for e in shape.elements)
    return (_norm_text(shape),)


#: ``x[i]``: one row by an integer index (a literal, a name or arithmetic on them), which drops the
#: sample axis; ``x[i:i + 1]`` / ``x[[i]]``: the same row with the axis kept
_ONE_ROW = re.compile(r"^\[(?![\[\'\"])[\w+\-* ]+\]$")
_ONE_ROW_KEPT = re.compile(r"^\[(?:[\w+\-* ]*:[\w+\-* ]+|\[[\w+\-* ]+\])\]$")


def _keeps_sample_axis(b: DataOp, f: DataOp) -> bool:
    """Decision CPP-single-row-batch: the buggy program passes one row ``x[0]`` (its sample axis
    dropped) where the fix passes ``x[0:1]`` (a batch of one): the input gains its batch axis, like a
    missing ``expand_dims`` (the study: 'CPP (expand dims for test data)')."""
    if b.op != "slice" or f.op != "slice":
        return False
    bi, fi = b.args.get("index"), f.args.get("index")
    if bi is None or fi is None:
        return False
    btext, ftext = "".join((bi.text or "").split()), "".join((fi.text or "").split())
    return bool(_ONE_ROW.match(btext)) and ":" not in btext and bool(_ONE_ROW_KEPT.match(ftext))


def _gains_batch_axis(b: DataSource | None, f: DataSource | None) -> bool:
    """Decision CPP-batch-axis: both programs build the array with the same constructor and the fix
    puts a leading axis of size 1 in front of the same shape (one sample given its batch axis, the
    ``expected ndim`` error of single-sample predictions): a reshape of the data, CPP."""
    if b is None or f is None or b.kind != f.kind or b.name != f.name:
        return False
    bs, fs = _constructor_shape(b), _constructor_shape(f)
    return bool(bs) and fs == ("1", *bs)  # type: ignore[misc]


def _untrained_counterpart(own: DataVar | None, other: DataVar | None, side: ProgramModel) -> DataVar | None:
    """Decision CPP-untrained-side: a program with no training call has no training-data roles; the
    array the other program trains on is then looked up by its variable name among the arrays this
    program binds, so steps both programs apply to it are not counted as added (or removed)."""
    if own is not None or other is None or side.fits or not other.var:
        return own
    return side.untrained_data.get(other.var)


def _diff_data(
    out: list[FaultComponent],
    sides: _Sides,
    runtime_calls: tuple[list[RuntimeCall], list[RuntimeCall]] | None = None,
) -> None:
    """Preprocessing differences of every data role, as at most one CPP component per file pair.

    The study wrote CPP once per bug however many steps the fix touched (decision CPP-once): the
    component names the first changed step and counts the others in ``detail['steps']``.
    """
    bdata, fdata = sides.buggy.data, sides.fixed.data
    found: list[FaultComponent] = []
    formats: list[tuple] = []
    roles = [r for r in DATA_ROLES if r in bdata or r in fdata]
    roles += sorted((set(bdata) | set(fdata)) - set(roles))
    new_shapes = [
        _shape_items(c.after) for c in out if c.kind == "layer.input_shape" and c.change == "changed"
    ]
    new_shapes += [
        tuple(str(x) for x in c.detail["after_shape"])
        for c in out
        if c.kind == "layer.input_shape" and c.change == "changed" and c.detail.get("after_shape")
    ]
    _diff_runtime_calls(out, sides, runtime_calls)
    for role in roles:
        bv: DataVar | None = bdata.get(role)
        fv: DataVar | None = fdata.get(role)
        # steps of an untrained buggy program's arrays that the fixed program lacks are that data's
        # preparation, not a fix (a benchmark completing a posted snippet swaps in generated arrays)
        partial = None
        if role in _TRAIN_ROLES:
            b0 = bv
            bv, fv = _untrained_counterpart(bv, fv, sides.buggy), _untrained_counterpart(fv, bv, sides.fixed)
            partial = "removed" if bv is not b0 else None
        if role not in _TRAIN_ROLES and (bv is None or fv is None):
            continue  # decision CPP-one-side-role: test/prediction data one program never has
        if bv is not None and fv is not None and _gains_batch_axis(bv.source, fv.source):
            found.append(
                _component(
                    data_path(role, "preprocess", 0),
                    "data.preprocess",
                    "added",
                    bv.source.text,  # type: ignore[union-attr]
                    fv.source.text,  # type: ignore[union-attr]
                    (bv.source.file, bv.source.line),  # type: ignore[union-attr]
                    (fv.source.file, fv.source.line),  # type: ignore[union-attr]
                    op="reshape",
                    role=role,
                )
            )
        bops, fops = _without_runtime_calls(bv.preprocess if bv else [], fv.preprocess if fv else [])
        for bi, fj in _align_ops(bops, fops):
            b = bops[bi] if bi is not None else None
            f = fops[fj] if fj is not None else None
            if b is not None and f is not None:
                if b.key() == f.key() or _ops_equal(b, f):
                    continue
                change = "changed"
            else:
                change = "added" if b is None else "removed"
            op = _op_kind(f or b)  # type: ignore[arg-type]
            if b is not None and f is not None and _keeps_sample_axis(b, f):
                op, change = "reshape", "added"  # decision CPP-single-row-batch
            if op in _FORMAT_OPS and role in _TRAIN_ROLES:
                formats.append((role, bi, fj, b, f, change, op))
                continue
            if op not in _CPP_OPS:
                continue  # slices and splits of the data set are set-up (decision data-split-noise)
            if role not in _TRAIN_ROLES and change == "removed":
                # decision CPP-test-step-changed: benchmarks drop a post's evaluation code, so a
                # removed step of test/prediction data is not counted; an added or changed one is
                continue
            if change == partial:
                continue  # decision CPP-untrained-side
            if f is not None and role.startswith("x") and _reshapes_to(f, new_shapes):
                continue  # decision LIS-reshape-once: the data reshaped to the model's new input shape
            index = bi if bi is not None else fj
            found.append(
                _component(
                    data_path(role, "preprocess", index or 0),
                    "data.preprocess",
                    change,
                    _op_text(b) if b else None,
                    _op_text(f) if f else None,
                    (b.file, b.line) if b else (None, None),
                    (f.file, f.line) if f else (None, None),
                    op=op,
                    role=role,
                )
            )
    if found:
        first = found[0]
        first.detail["steps"] = len(found)
        out.append(first)
    if formats:  # decision IWF-format: the arrays handed to fit as lists instead of arrays, once
        role, bi, fj, b, f, change, op = formats[0]
        out.append(
            _component(
                data_path(role, "preprocess", (bi if bi is not None else fj) or 0),
                "data.input_format",
                change,
                _op_text(b) if b else None,
                _op_text(f) if f else None,
                (b.file, b.line) if b else (None, None),
                (f.file, f.line) if f else (None, None),
                op=op,
                role=role,
            )
        )
    _diff_training_subset(out, sides)
    _diff_color_mode(out, sides)


def _color_mode(source: DataSource | None) -> str | None:
    """The ``color_mode`` an image reader is called with (``'rgb'``, its default, when unwritten); None
    for a source that is not read by a call or whose mode is not a literal."""
    if source is None or source.kind not in ("generator", "file"):
        return None
    expr = _parse_call(source.text)
    if expr is None:
        return None
    for arg in expr.args:
        if arg.keyword is not None and arg.keyword.value == "color_mode":
            return arg.value.evaluated_value if isinstance(arg.value, libcst.SimpleString) else None
    return "rgb"


def _diff_color_mode(out: list[FaultComponent], sides: _Sides) -> None:
    """Decision IWS-color-mode: the fix reads the training images in another colour mode (grayscale
    vs rgb): the number of channels of the input data changes, a wrong shape of input data (IWS).

    Only when both programs read the images with the same reader (a swapped-in data source is set-up).
    """
    bv, fv = sides.buggy.data.get("x_train"), sides.fixed.data.get("x_train")
    if bv is None or fv is None or bv.source is None or fv.source is None:
        return
    if bv.source.reader != fv.source.reader or not bv.source.reader:
        return
    b, f = _color_mode(bv.source), _color_mode(fv.source)
    if b is None or f is None or b == f:
        return
    out.append(
        _component(
            data_path("x_train", "source"),
            "data.reshape",
            "changed",
            repr(b),
            repr(f),
            (bv.source.file, bv.source.line),
            (fv.source.file, fv.source.line),
            setting="color_mode",
        )
    )


_ROW_SUBSET = re.compile(r"\[\s*:\s*([^\]:,]+?)\s*\]$")


def _row_subset(var: DataVar | None) -> DataOp | None:
    """The slice ``x[:n]`` that keeps only the first rows of a training array, if any."""
    if var is None:
        return None
    for op in var.preprocess:
        if op.op == "slice" and _ROW_SUBSET.search("".join((op.text or "").split())):
            return op
    return None


def _diff_training_subset(out: list[FaultComponent], sides: _Sides) -> None:
    """Decision TRD-subset: the buggy program trains on the first rows of the same data set only.

    Counted only when both programs load the training inputs from the same source (a benchmark
    swapping in generated data is set-up, rule ``synthetic_data_source``).
    """
    bv, fv = sides.buggy.data.get("x_train"), sides.fixed.data.get("x_train")
    if bv is None or fv is None or bv.source is None or fv.source is None:
        return
    if (bv.source.kind, bv.source.name) != (fv.source.kind, fv.source.name) or bv.source.kind == "opaque":
        return
    b, f = _row_subset(bv), _row_subset(fv)
    if b is None and f is None:
        return
    if b is not None and f is not None and "".join(b.text.split()) == "".join(f.text.split()):
        return
    out.append(
        _component(
            data_path("x_train", "preprocess", bv.preprocess.index(b) if b else 0),
            "data.size",
            "changed" if b and f else "removed" if b else "added",
            _op_text(b) if b else None,
            _op_text(f) if f else None,
            (b.file, b.line) if b else (None, None),
            (f.file, f.line) if f else (None, None),
        )
    )


def _same_sample_shape(a: Value | None, b: Value | None) -> bool:
    """Rule ``reshape_sample_count``: two reshape targets that differ in their leading (sample) axis
    only, ``(1746, 4096)`` against ``(6, 4096)`` or ``(-1, 4096)``: each reshapes every sample to the
    same shape; the number of samples is the data set's size (a benchmark shrinking the data it
    generates), not a preprocessing change."""
    if a is None or b is None:
        return False
    items_a, items_b = _items(a), _items(b)
    if items_a is None or items_b is None or len(items_a) != len(items_b) or len(items_a) < 2:
        return False
    return all(_values_equal(x, y, strict_opaque=True) for x, y in zip(items_a[1:], items_b[1:], strict=True))


def _ops_equal(a: DataOp, b: DataOp) -> bool:
    if _op_kind(a) == _op_kind(b) == "one_hot":
        return True  # the number of classes comes from the data either way (decision CPP-one-hot)
    if a.op != b.op or a.name != b.name:
        return False
    keys = set(a.args) | set(b.args)
    if a.op == "reshape" and keys == {"shape"} and _same_sample_shape(a.args["shape"], b.args["shape"]):
        return True
    return all(_values_equal(a.args.get(k), b.args.get(k)) for k in keys)


def _pair_by_index(bs: list, fs: list) -> list[tuple[int, Any, Any]]:
    return [(i, bs[i], fs[i]) for i in range(min(len(bs), len(fs)))]


def diff_models(
    buggy: ProgramModel,
    fixed: ProgramModel,
    runtime_calls: tuple[list[RuntimeCall], list[RuntimeCall]] | None = None,
    hyper_variables: tuple[dict[str, HyperVariable], dict[str, HyperVariable]] | None = None,
) -> list[FaultComponent]:
    """All fault components between a buggy and a fixed program model (noise rules applied).

    ``runtime_calls``: the training-data runtime calls of each program read from its source
    (:func:`find_runtime_calls`); without them, the calls the extractor followed into the chains.
    """
    if _empty_program(buggy) or _empty_program(fixed):
        return []  # rule empty_program: nothing to compare a program with
    sides = _Sides(buggy, fixed)
    out: list[FaultComponent] = []
    for mi, bm, fm in _pair_models(*_models_compared(buggy, fixed), sides):
        _diff_model(out, sides, mi, bm, fm)
    _diff_unseen_model(out, buggy, fixed)
    for ci, bc, fc in _pair_by_index(buggy.compiles, fixed.compiles):
        _diff_compile(out, sides, ci, bc, fc)
    for fi, bf, ff in _pair_by_index(buggy.fits, fixed.fits):
        _diff_fit(out, sides, fi, bf, ff)
    _diff_evaluation_batch(out, buggy, fixed)
    _diff_loss_functions(out, buggy, fixed)
    _diff_data(out, sides, runtime_calls)
    if hyper_variables is not None and buggy.fits and fixed.fits:
        _diff_unused_hyperparameters(out, buggy, fixed, hyper_variables)
    out = _dedupe_same_source(out)
    raw_tf = buggy.framework == "tensorflow" or fixed.framework == "tensorflow"
    if raw_tf:
        for c in out:
            c.detail["raw_tensorflow"] = True
    return out


def _diff_loss_functions(out: list[FaultComponent], buggy: ProgramModel, fixed: ProgramModel) -> None:
    """Decision LWC-custom-loss: the fix rewrites the body of the user function that computes the
    training loss (passed to compile, or differentiated with a GradientTape): a wrong loss function
    calculation (LWC). Bodies compare without docstrings, prints, formatting and with parameters
    and locals renamed by position (:mod:`mutreal.extract.losses`); functions pair by name, or the
    only one of each program with the other's."""
    bl, fl = buggy.loss_functions, fixed.loss_functions
    pairs = [(n, n) for n in bl if n in fl]
    if not pairs and len(bl) == len(fl) == 1:
        pairs = [(next(iter(bl)), next(iter(fl)))]
    for bn, fn in pairs:
        (b_line, b_body), (f_line, f_body) = bl[bn], fl[fn]
        if b_body == f_body:
            continue
        out.append(
            _component(
                compile_path(0, "loss"),
                "compile.loss_calculation",
                "changed",
                f"{bn}: " + " ".join(b_body.split()),
                f"{fn}: " + " ".join(f_body.split()),
                (buggy.path, b_line),
                (fixed.path, f_line),
                function=fn,
            )
        )


def _diff_evaluation_batch(out: list[FaultComponent], buggy: ProgramModel, fixed: ProgramModel) -> None:
    """Decision HBS-evaluate: the batch size written in an evaluate/predict call changed (HBS).

    Only the same call on both sides with a batch size written on both: a call the fix drops or
    turns into another (evaluate -> predict) is the benchmark's set-up, not a batch-size fix; and
    only when the training call's batch size did not change too (decision HBS-evaluate-with-fit).
    """
    from mutreal.model import evaluation_path

    if any(c.kind == "fit.batch_size" for c in out):
        return  # one batch-size fix (often one shared variable) is coded once, on the training call
    for be, fe in zip(buggy.evaluations, fixed.evaluations, strict=False):
        if be.method != fe.method:
            continue
        bv, fv = be.args.get("batch_size"), fe.args.get("batch_size")
        if bv is None or fv is None or _values_equal(bv, fv, strict_opaque=True):
            continue
        out.append(
            _component(
                evaluation_path(fe.method, fe.index, "batch_size"),
                "fit.batch_size",
                "changed",
                bv,
                fv,
                _loc_value(bv, be.file, be.line),
                _loc_value(fv, fe.file, fe.line),
                method=fe.method,
                before_number=_number(bv),
                after_number=_number(fv),
            )
        )


def _empty_program(program: ProgramModel) -> bool:
    """Rule ``empty_program``: a side with no model, compile, training or evaluation call and no data
    at all (an empty file in a benchmark) is compared with nothing, like a file on one side only:
    listing every element of the other program as added or removed would name no fault."""
    return not (
        program.models
        or program.compiles
        or program.fits
        or program.evaluations
        or program.data
        or program.untrained_data
        or program.loss_functions
    )


def _layer_signature(layer: Layer) -> tuple[str, str]:
    return layer.cls, "".join((layer.text or "").split())


def _models_compared(buggy: ProgramModel, fixed: ProgramModel) -> tuple[list[KerasModel], list[KerasModel]]:
    """Rule ``wired_loose_layers``: layers built outside any model (the extractor's ``loose`` model)
    that the other program places in one of its real models are a branch the buggy model never
    connected (or the fixed one cut off): that change shows in the real model's layers, so the loose
    layers are not compared a second time as a model of their own. Loose layers that stay loose on
    both sides (snippets, layers the extractor could not trace) are still compared."""
    placed = {
        side: {_layer_signature(layer) for m in program.models if m.kind != "loose" for layer in m.layers}
        for side, program in (("b", buggy), ("f", fixed))
    }

    def wired(model: KerasModel, other: str) -> bool:
        layers = [layer for layer in model.layers if layer.cls not in _INPUT_ONLY]
        return bool(layers) and all(_layer_signature(layer) in placed[other] for layer in layers)

    bs, fs = buggy.models, fixed.models
    bl = next((m for m in bs if m.kind == "loose"), None)
    fl = next((m for m in fs if m.kind == "loose"), None)
    if (bl is not None and wired(bl, "f")) or (fl is not None and wired(fl, "b")):
        bs, fs = [m for m in bs if m.kind != "loose"], [m for m in fs if m.kind != "loose"]
    return bs, fs


def _diff_unseen_model(out: list[FaultComponent], buggy: ProgramModel, fixed: ProgramModel) -> None:
    """Decision MWA-unseen-model: the buggy program trains or runs a model that it never builds
    where one can see it (a helper from another module, a loaded file), and the fix builds a model
    of its own: the architecture was replaced, one MWA component. A buggy program that uses no
    model at all (data preparation only) was merely completed, so nothing is emitted for it.
    """
    if buggy.models or not fixed.models:
        return
    uses = [u for u in (*buggy.compiles, *buggy.fits, *buggy.evaluations) if u is not None]
    if not uses:
        return
    fm = fixed.models[0]
    used = uses[0]
    out.append(
        _component(
            layer_path(0),
            "model.architecture",
            "changed",
            "a model built out of view",
            f"{len(fm.layers)} layers",
            (used.file, used.line),
            (fm.file, fm.line),
            structural_changes=len(fm.layers),
        )
    )


def _dedupe_same_source(components: list[FaultComponent]) -> list[FaultComponent]:
    """One component per changed source text: a helper building two models reports its edit once."""
    seen: set[tuple] = set()
    out = []
    for c in components:
        same_text_elsewhere = (c.buggy_line or c.fixed_line) and c.kind != "data.training_data"
        # a runtime call rebinding x and y is one edit of two arrays: one component per array
        where = c.element.rsplit(".", 1)[-1] if same_text_elsewhere else c.element
        key = (c.kind, where, c.buggy_file, c.buggy_line, c.fixed_file, c.fixed_line, c.before, c.after)
        if key in seen:
            continue
        seen.add(key)
        out.append(c)
    return out


def _pair_models(
    bs: list[KerasModel], fs: list[KerasModel], sides: _Sides
) -> list[tuple[int, KerasModel, KerasModel]]:
    """Pair models: by index when the counts agree, else the most similar pairs first (greedy)."""
    import difflib

    if len(bs) == len(fs):
        return [(i, bs[i], fs[i]) for i in range(len(bs))]
    scored = []
    for i, bm in enumerate(bs):
        for j, fm in enumerate(fs):
            ratio = difflib.SequenceMatcher(
                a=[x.cls for x in bm.layers], b=[x.cls for x in fm.layers], autojunk=False
            ).ratio()
            scored.append((-ratio, i, j))
    used_b: set[int] = set()
    used_f: set[int] = set()
    pairs = []
    for _, i, j in sorted(scored):
        if i in used_b or j in used_f:
            continue
        used_b.add(i)
        used_f.add(j)
        pairs.append((i, bs[i], fs[j]))
    return sorted(pairs, key=lambda p: p[0])


#: a hook for callers that post-process components (e.g. collapse to MWA); identity by default
ComponentFilter = Callable[[list[FaultComponent]], list[FaultComponent]]
