"""The models pass: layers, their arguments and each model's declared input shape.

Layers are compared on the folded view of a model (an ``Activation`` layer folded into the layer
before it, rule ``activation_layer_vs_argument``) after :func:`~mutreal.compare.alignment.align_layers`
paired them. A model rebuilt beyond repair is one MWA component rather than a list of layers.
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass

import libcst

from mutreal.compare.alignment import align_layers_with_ties, compared_layer_args, layer_base, pair_models
from mutreal.compare.components import FaultComponent, change_of, lines_of, make_component, value_location
from mutreal.compare.context import CompareContext
from mutreal.compare.kinds import ComponentKind as K
from mutreal.compare.noise import noise_rule
from mutreal.compare.values import (
    activation_name,
    folded_shape,
    none_is_absent,
    number,
    shape_equal,
    short,
    values_equal,
)
from mutreal.decisions import DecisionId as D
from mutreal.decisions import applies
from mutreal.program import keras_api
from mutreal.program.model import FoldedLayer, KerasModel, Layer, ProgramModel, Value, layer_path

#: layer argument -> component kind
LAYER_ARG_KINDS: dict[str, K] = {
    "activation": K.LAYER_ACTIVATION,
    "units": K.LAYER_UNITS,
    "filters": K.LAYER_UNITS,
    "kernel_size": K.LAYER_KERNEL_SIZE,
    "strides": K.LAYER_STRIDES,
    "input_shape": K.LAYER_INPUT_SHAPE,
    "input_dim": K.LAYER_INPUT_SHAPE,
    "batch_input_shape": K.LAYER_INPUT_SHAPE,
    "input_length": K.LAYER_INPUT_SHAPE,
    "shape": K.LAYER_INPUT_SHAPE,
    "batch_shape": K.LAYER_INPUT_SHAPE,
    "rate": K.LAYER_RATE,
    # a recurrent layer's input and recurrent dropout are dropout rates too (Keras 1: dropout_W/_U)
    "dropout": K.LAYER_RATE,
    "recurrent_dropout": K.LAYER_RATE,
    "kernel_initializer": K.LAYER_KERNEL_INITIALIZER,
    # an Embedding's table is its weights: its initialiser and regulariser are the kernel's (WCI, RCW)
    "embeddings_initializer": K.LAYER_KERNEL_INITIALIZER,
    "embeddings_regularizer": K.LAYER_REGULARIZER,
    "bias_initializer": K.LAYER_BIAS_INITIALIZER,
    # the weights a layer starts from, given (``weights=[m]``) or set before training
    # (``layer.set_weights([m])``): its initialisation (decision WCI-set-weights)
    "weights": K.LAYER_KERNEL_INITIALIZER,
    "kernel_regularizer": K.LAYER_REGULARIZER,
    "bias_regularizer": K.LAYER_REGULARIZER,
    "activity_regularizer": K.LAYER_REGULARIZER,
    "use_bias": K.LAYER_USE_BIAS,
    "return_sequences": K.LAYER_RETURN_SEQUENCES,
    "pool_size": K.LAYER_POOL_SIZE,
    "padding": K.LAYER_PADDING,
    "target_shape": K.LAYER_OUTPUT_SHAPE,
}
BN_ARG_KINDS = {"epsilon": K.LAYER_BN_EPSILON, "momentum": K.LAYER_BN_MOMENTUM}

_INPUT_ONLY = frozenset({"InputLayer", "Input"})
#: layers whose size is a table (vocabulary x dimension): input_dim and output_dim are its size, like
#: a Dense layer's units (decision LCN-embedding-size); one component per layer however many change
_TABLE_LAYERS = frozenset({"Embedding"})
_TABLE_SIZE_ARGS = frozenset({"input_dim", "output_dim"})

#: the argument that holds the weights a layer starts from: left out of the alignment's likeness
#: (:data:`mutreal.compare.alignment.IGNORED_LAYER_ARGS`), compared here (decision WCI-set-weights)
_STARTING_WEIGHTS = frozenset({"weights"})

#: layers appended after the end of a posted snippet's model that a benchmark completed
SNIPPET_COMPLETION_LAYERS = 2
#: this many layers added, removed or replaced in one model make one "wrong architecture" (MWA) component
MWA_STRUCTURAL_CHANGES = 4
_STRUCTURAL = frozenset({K.LAYER_MISSING, K.LAYER_REDUNDANT, K.LAYER_TYPE})
#: layers a classifier or regressor can end with; a model ending otherwise (a bare Conv1D) was cut short
_OUTPUT_LAYERS = frozenset({"Dense", "Activation", "Softmax", "TimeDistributed", "Lambda", "Reshape"})
#: layers that join several inputs (Keras 1 ``Merge`` and Keras 2's merge layers)
_MERGE_LAYERS = frozenset(keras_api.MERGE_FUNCTIONS.values())
_IDENTIFIER = re.compile(r"[A-Za-z_]\w*")
_MERGING = " merging branches"
#: activations f with f(f(x)) == f(x): a second one right after the first changes nothing
_IDEMPOTENT_ACTIVATIONS = frozenset({"relu", "relu6", "linear"})


def compare_models(ctx: CompareContext) -> list[FaultComponent]:
    """The models pass: every pair of models; records the new input shapes for the data pass."""
    out: list[FaultComponent] = []
    bs, fs = wired_loose_layers(ctx.buggy, ctx.fixed)
    for mi, bm, fm in pair_models(bs, fs, _compiled(ctx.buggy, bs), _compiled(ctx.fixed, fs)):
        out.extend(_diff_model(ctx, mi, bm, fm))
    ctx.new_input_shapes = _new_input_shapes(out)
    _point_at_data_reshapes(ctx, out)
    return out


@applies(D.LIS_RESHAPE_ONCE)
def _point_at_data_reshapes(ctx: CompareContext, components: list[FaultComponent]) -> None:
    """Decision LIS-reshape-once: the input data reshaped to exactly the model's new input shape is
    the same fix action as the declared shape, so the LIS points at those reshapes too (decision
    value-origins), the fixed step and the step of the same kind it replaces; a reshape to another
    shape is the data pass's own CPP (decision LIS-reshape-elsewhere) and is not pointed at."""
    from mutreal.compare.data import reshapes_to  # the data pass's rule (data.py imports nothing here)

    changed = [c for c in components if c.kind is K.LAYER_INPUT_SHAPE and c.change == "changed"]
    if not changed or not ctx.new_input_shapes:
        return
    lis = changed[0]
    lines: dict[str, list[int]] = {"buggy": [], "fixed": []}
    for role, fv in ctx.fixed.data.items():
        bv = ctx.buggy.data.get(role)
        if not role.startswith("x") or bv is None:
            continue
        b_keys, f_keys = {op.key() for op in bv.preprocess}, {op.key() for op in fv.preprocess}
        for op in fv.preprocess:
            if op.key() in b_keys or op.file != lis.fixed_file or not reshapes_to(op, ctx.new_input_shapes):
                continue
            lines["fixed"].append(op.line)
            lines["buggy"].extend(
                b.line
                for b in bv.preprocess
                if b.op == op.op and b.key() not in f_keys and b.file == lis.buggy_file
            )
    for side, found in lines.items():
        found = [n for n in found if n is not None]
        if found:
            known = lis.detail.get(f"{side}_lines") or []
            lis.detail[f"{side}_lines"] = list(dict.fromkeys([*known, *found]))


def _compiled(program: ProgramModel, models: list[KerasModel]) -> frozenset[int]:
    """Indexes in ``models`` of the models the program compiles."""
    compiled = [
        program.models[c.model]
        for c in program.compiles
        if c.model is not None and c.model < len(program.models)
    ]
    return frozenset(i for i, m in enumerate(models) if any(m is c for c in compiled))


def _new_input_shapes(components: list[FaultComponent]) -> list[tuple[str, ...] | None]:
    """The input shapes the fixed models declare where a model's input shape changed."""
    changed = [c for c in components if c.kind is K.LAYER_INPUT_SHAPE and c.change == "changed"]
    shapes = [_shape_items(c.after) for c in changed]
    return shapes + [
        tuple(str(x) for x in c.detail["after_shape"]) for c in changed if c.detail.get("after_shape")
    ]


def _shape_items(text: str | None) -> tuple[str, ...] | None:
    """``(rows, cols, 1)`` -> ('rows', 'cols', '1'); ``(n,)`` -> ('n',); None when not a literal tuple."""
    try:
        expr = libcst.parse_expression(text or "")
    except Exception:
        return None
    if isinstance(expr, (libcst.Tuple, libcst.List)):
        return tuple(_norm_text(e.value) for e in expr.elements)
    return None


def _norm_text(node: libcst.CSTNode) -> str:
    return "".join(libcst.Module(body=[]).code_for_node(node).split())


def _layer_signature(layer: Layer) -> tuple[str, str]:
    return layer.cls, "".join((layer.text or "").split())


@noise_rule(
    "wired_loose_layers",
    "layers built outside any model that the other program wires into one of its models are that "
    "model's change, not a second model",
)
def wired_loose_layers(buggy: ProgramModel, fixed: ProgramModel) -> tuple[list[KerasModel], list[KerasModel]]:
    """The models to compare: layers built outside any model (the extractor's ``loose`` model) that
    the other program places in one of its real models are a branch the buggy model never connected
    (or the fixed one cut off): that change shows in the real model's layers, so the loose layers are
    not compared a second time as a model of their own. Loose layers that stay loose on both sides
    (snippets, layers the extractor could not trace) are still compared."""
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


@dataclass
class LayerChanges:
    """How much of one model the fix changed: ``slots`` is the number of places of the layer
    alignment (a layer on both sides or on one), ``changed`` how many of them carry a component,
    ``components`` how many components the layers carry (the model's input shape not counted: it
    is compared once per model)."""

    slots: int = 0
    changed: int = 0
    components: int = 0


@applies(D.MWA_REPLACED_LAYERS)
def layers_mostly_replaced(changes: LayerChanges) -> bool:
    """Decision MWA-replaced-layers: most of the model's layers were written anew, one MWA however
    the edits spell out layer by layer (other activations, regularisers and initialisers on every
    layer of a model rebuilt by other code).

    Two thresholds, both from what the study's codes name. A layer code (LCN, ACH, WCI, RCW...)
    names one hyperparameter of one layer: a layer that differs in one respect was tuned, one that
    differs in two or more was replaced by another layer written in its place. The model was
    rebuilt when the changed layers are a strict majority of its places (the fix kept less of the
    model than it changed) and they differ in two or more respects each on average (replaced, not
    tuned); and the layers carry at least :data:`MWA_STRUCTURAL_CHANGES` components, the count the
    structural rule needs too (fewer is a multi-fault fix the study codes one by one). One edit
    repeated on every layer (every initialiser, every epsilon) differs in one respect per layer and
    stays its own code, layer by layer."""
    return (
        2 * changes.changed > changes.slots
        and changes.components >= 2 * changes.changed
        and changes.components >= MWA_STRUCTURAL_CHANGES
    )


@applies(D.MWA_REBUILT, D.TWP_ONCE)
def _diff_model(ctx: CompareContext, mi: int, bm: KerasModel, fm: KerasModel) -> list[FaultComponent]:
    """Components of one model pair; a rebuilt model (decision MWA-rebuilt) is one MWA component.

    Rebuilt: at least MWA_STRUCTURAL_CHANGES layers added, removed or replaced, and at least half as
    many as the layers left in place (a large model losing one block is not rebuilt); or most of
    its layers written anew (:func:`layers_mostly_replaced`). The study wrote one TWP for a model's
    padding (decision TWP-once).
    """
    changes = LayerChanges()
    mine = _diff_model_layers(ctx, mi, bm, fm, changes)
    paddings = [c for c in mine if c.kind is K.LAYER_PADDING]
    if len(paddings) > 1:
        mine = [c for c in mine if c.kind is not K.LAYER_PADDING or c is paddings[0]]
    structural = sum(c.kind in _STRUCTURAL for c in mine)
    kept = max(len(bm.layers), len(fm.layers)) - structural  # layers the fix left in place
    if (
        (structural >= MWA_STRUCTURAL_CHANGES and 2 * structural >= kept)
        or rejoins_branches(ctx, bm, fm, structural)
        or layers_mostly_replaced(changes)
    ):
        return [
            make_component(
                layer_path(mi),
                K.MODEL_ARCHITECTURE,
                "changed",
                f"{len(bm.layers)} layers{_MERGING if _merges(ctx.buggy, bm) else ''}",
                f"{len(fm.layers)} layers{_MERGING if _merges(ctx.fixed, fm) else ''}",
                (bm.file, bm.line),
                (fm.file, fm.line),
                structural_changes=structural,
                buggy_lines=[*lines_of(mine, "buggy"), *_blocks(bm)] or None,
                fixed_lines=[*lines_of(mine, "fixed"), *_blocks(fm)] or None,
            )
        ]
    return mine


def _built_at(layer: Layer) -> list[int]:
    """The lines besides its own that build a layer (decision value-origins): the headers of the
    blocks it is built in, the lines that apply a layer built earlier, and a ``Lambda`` layer's
    function body."""
    body = layer.function_body
    return [*layer.blocks, *layer.applied_at, *(range(body[0], body[1] + 1) if len(body) == 2 else ())]


def _blocks(model: KerasModel) -> list[int]:
    """The lines that build a model's layers besides their own (:func:`_built_at`)."""
    return list(dict.fromkeys(n for layer in model.layers for n in _built_at(layer)))


@applies(D.MWA_MERGED_MODELS)
def rejoins_branches(ctx: CompareContext, bm: KerasModel, fm: KerasModel, structural: int) -> bool:
    """Decision MWA-merged-models: one program's model merges the outputs of two or more models
    or branches (Keras 1 ``Merge([left, right])``, ``concatenate([a.output, b.output])``, a merge
    layer fed by two layers) and the other's does not: the model's topology changed, one MWA (the
    study's wrong architecture) rather than the merge layer and the layers around it one by one.
    Needs two structural changes besides, so a fix that only adds or drops the merge is not one."""
    if structural < 2:
        return False
    return _merges(ctx.buggy, bm) != _merges(ctx.fixed, fm)


def _merges(program: ProgramModel, model: KerasModel) -> bool:
    """Whether ``model`` joins two or more models or branches in a merge layer."""
    others = {m.var for m in program.models if m is not model and m.var}
    for layer in model.layers:
        if layer.cls not in _MERGE_LAYERS:
            continue
        if len(set(layer.inbound)) >= 2:
            return True
        named = {n for v in layer.args.values() for n in _IDENTIFIER.findall(v.text or "")}
        if len(named & others) >= 2:
            return True
    return False


def _input_shape(layer: Layer) -> Value | None:
    for key in ("input_shape", "batch_input_shape", "input_dim", "shape", "batch_shape"):
        if key == "input_dim" and layer.cls in _TABLE_LAYERS:
            continue  # an Embedding's input_dim is its vocabulary size (decision LCN-embedding-size)
        v = layer.args.get(key)
        if v is not None:
            return v
    return None


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


@applies(D.LIS_SAMPLE_COUNT)
def _reads_sample_count(v: Value) -> bool:
    """Decision LIS-sample-count: a declared input shape built from ``x.shape[0]``, the number of
    samples, where the other program uses the feature axes (``x.shape[1:]``, a literal): the classic
    wrong input shape, even when the arrays are unknown on one side and the shapes cannot be folded."""
    return bool(_SAMPLE_COUNT.search(v.text or ""))


@applies(D.LIS_FRONT_LAYER)
def _front_layer_inserted(
    bm: KerasModel,
    fm: KerasModel,
    bfold: list[FoldedLayer],
    ffold: list[FoldedLayer],
    pairs: list[tuple[int | None, int | None]],
) -> tuple[Layer, Value] | None | bool:
    """Decision LIS-front-layer: the fix puts a new layer in front of the buggy model's first layer,
    which declared the input shape, and declares none in front. What the fixed program still
    declares on that layer's counterpart stands for the model's input (a (layer, shape) pair); when
    it declares none there either, the input is left to the data the model is fitted on (True): the
    inserted layer is the fix (LRM), not a removed input shape. False when the rule does not apply."""
    b = _model_input(bm)
    if b is None or _model_input(fm) is not None or not ffold or (None, 0) not in pairs:
        return False
    bi = next((k for k, x in enumerate(bfold) if x.layer is b[0]), None)
    fi = next((j for i, j in pairs if i == bi and bi is not None), None)
    if bi is None:
        return False
    counterpart = ffold[fi].layer if fi is not None else None
    shape = _input_shape(counterpart) if counterpart is not None else None
    if counterpart is None or shape is None:
        return True
    return counterpart, shape


@applies(D.LIS_MODEL_INPUT, D.LIS_CHANGED, D.LIS_ONE_SIDE)
def _diff_model_input(
    mi: int, bm: KerasModel, fm: KerasModel, front: tuple[Layer, Value] | None | bool = False
) -> list[FaultComponent]:
    """Decision LIS-model-input: the model's declared input shape changed, was added or was removed.

    ``input_dim=n`` equals ``input_shape=(n,)`` and ``Input(shape=(n,))``; where it is written
    (Input layer or first layer) does not matter. ``front``: decision LIS-front-layer's reading.
    """
    if front is True:
        return []
    b = _model_input(bm)
    f = front if isinstance(front, tuple) else _model_input(fm)
    if b is None and f is None:
        return []
    if (
        b is not None
        and f is not None
        and (values_equal(b[1], f[1], strict_opaque=True) or shape_equal(b[1], f[1]))
        and _reads_sample_count(b[1]) == _reads_sample_count(f[1])
    ):
        return []
    layer = (b or f)[0]  # type: ignore[index]
    index = (bm if b else fm).layers.index(layer)
    return [
        make_component(
            layer_path(mi, index, "input_shape"),
            K.LAYER_INPUT_SHAPE,
            "changed" if b and f else "added" if f else "removed",
            b[1] if b else None,
            f[1] if f else None,
            value_location(b[1], b[0].file, b[0].line) if b else (None, None),
            value_location(f[1], f[0].file, f[0].line) if f else (None, None),
            layer_type=layer.cls,
            after_shape=folded_shape(f[1]) if f else None,
        )
    ]


@noise_rule(
    "completed_snippet",
    "a posted model without compile, or one ending in a layer no model ends with (a bare "
    "convolution), that the benchmark completed with an output head (4.2.1: authors may "
    "complete what a post does not show)",
)
@applies(D.COMPLETED_SNIPPET, D.COMPLETED_HEAD, D.MWA_APPENDED)
def drop_completed_snippet(
    pairs: list[tuple[int | None, int | None]], ctx: CompareContext, buggy: list[FoldedLayer] | None = None
) -> list[tuple[int | None, int | None]]:
    """The alignment without the layers a benchmark appended to complete a posted model.

    The study (4.2.1) let benchmark authors complete the parts a post did not show; layers the
    fixed program appends after the last layer of a buggy model that is never compiled, or whose
    last layer is not one a model ends with (a Conv1D output: the post was cut short), are that
    completion when there are two or three of them (an output head), not a fault; four or more
    appended layers rebuild the model (decision MWA-appended, counted as MWA).
    """
    last = max((k for k, (bi, _) in enumerate(pairs) if bi is not None), default=-1)
    if last < 0:
        return pairs
    if ctx.buggy.compiles and not (
        buggy is not None and layer_base(buggy[pairs[last][0]].layer.cls) not in _OUTPUT_LAYERS  # type: ignore[index]
    ):
        return pairs
    trailing = pairs[last + 1 :]
    head = SNIPPET_COMPLETION_LAYERS <= len(trailing) < MWA_STRUCTURAL_CHANGES
    if head and all(bi is None for bi, _ in trailing):
        return pairs[: last + 1]
    return pairs


@noise_rule(
    "activation_layer_vs_argument",
    "Dense(n); Activation('relu') equals Dense(n, activation='relu')",
)
@applies(D.IDEMPOTENT_ACTIVATION_LAYER, D.LAD_REPEATED_TANH)
def repeats_idempotent_activation(fold: list[FoldedLayer], index: int) -> bool:
    """``Dense(50, activation='relu')`` then ``Activation('relu')``: an Activation layer that repeats
    the idempotent activation of the layer before it computes the same function; adding or deleting
    it is not a fault (the study did not count it). The split form itself (``Dense(n)`` then
    ``Activation(a)``) is equal by the folded view the layers are compared on."""
    layer = fold[index].layer
    if not layer.is_activation_layer or index == 0:
        return False
    act = activation_name(fold[index].activation)
    return act in _IDEMPOTENT_ACTIVATIONS and activation_name(fold[index - 1].activation) == act


def _layer_name_for_leaf(layer: Layer) -> str:
    if layer.cls == "Activation":
        act = layer.args.get("activation")
        return f"Activation({activation_name(act)})"
    return layer.cls


@applies(D.LRM_DROPOUT, D.LRM_FLATTEN, D.LAD_REMOVED, D.LWS_SWAP, D.LWS_UNRELATED)
def _diff_model_layers(
    ctx: CompareContext, mi: int, bm: KerasModel, fm: KerasModel, changes: LayerChanges | None = None
) -> list[FaultComponent]:
    """The model's input shape, then its aligned layers: a layer on one side only is missing (LRM) or
    redundant (LAD), a paired layer of another class a wrong layer (LWS), else its arguments.
    ``changes`` (when given) receives how many places changed."""
    bfold = [x for x in bm.folded_layers(ctx.era_b) if x.layer.cls not in _INPUT_ONLY]
    ffold = [x for x in fm.folded_layers(ctx.era_f) if x.layer.cls not in _INPUT_ONLY]
    pairs, tied = align_layers_with_ties(bfold, ffold, ctx.era_b, ctx.era_f)
    out = _diff_model_input(mi, bm, fm, _front_layer_inserted(bm, fm, bfold, ffold, pairs))
    pairs = drop_completed_snippet(pairs, ctx, bfold)
    if changes is not None:
        changes.slots = len(pairs)
    for bi, fi in pairs:
        found = _aligned_pair_components(ctx, mi, bfold, ffold, bi, fi)
        if (bi, fi) in tied:  # another alignment as good would pair these layers otherwise
            for c in found:
                c.evidence["ambiguous_alignment"] = True
        if changes is not None:
            counted = [c for c in found if c.kind is not K.LAYER_INPUT_SHAPE]
            changes.changed += bool(counted)
            changes.components += len(counted)
        out.extend(found)
    return out


def _aligned_pair_components(
    ctx: CompareContext,
    mi: int,
    bfold: list[FoldedLayer],
    ffold: list[FoldedLayer],
    bi: int | None,
    fi: int | None,
) -> list[FaultComponent]:
    """The components of one pair of the layer alignment (a layer on one side only, or two)."""
    if bi is not None and fi is not None:
        b, f = bfold[bi], ffold[fi]
        li = b.sources[0]
        if b.layer.cls != f.layer.cls:
            return [_layer_type_component(mi, li, b.layer, f.layer)]
        return _diff_layer(ctx, mi, li, b, f)
    if (fi is not None and repeats_idempotent_activation(ffold, fi)) or (
        bi is not None and repeats_idempotent_activation(bfold, bi)
    ):
        return []
    if fi is not None:
        f = ffold[fi]
        return [
            make_component(
                layer_path(mi, f.sources[0]),
                K.LAYER_MISSING,
                "added",
                None,
                f.layer,
                (None, None),
                (f.layer.file, f.layer.line),
                layer_type=_layer_name_for_leaf(f.layer),
                fixed_lines=_built_at(f.layer) or None,
            )
        ]
    b = bfold[bi]  # type: ignore[index]
    return [
        make_component(
            layer_path(mi, b.sources[0]),
            K.LAYER_REDUNDANT,
            "removed",
            b.layer,
            None,
            (b.layer.file, b.layer.line),
            (None, None),
            layer_type=_layer_name_for_leaf(b.layer),
            buggy_lines=_built_at(b.layer) or None,
        )
    ]


def _layer_type_component(mi: int, li: int, b: Layer, f: Layer, *path: str) -> FaultComponent:
    return make_component(
        layer_path(mi, li, *path),
        K.LAYER_TYPE,
        "changed",
        b,
        f,
        (b.file, b.line),
        (f.file, f.line),
        before_layer_type=b.cls,
        after_layer_type=f.cls,
    )


def _diff_layer(
    ctx: CompareContext, mi: int, li: int, b: FoldedLayer, f: FoldedLayer
) -> list[FaultComponent]:
    """Two paired layers of the same class: the activation, then the other arguments."""
    return _diff_activation(mi, li, b, f) + _diff_layer_arguments(ctx, mi, li, b, f)


@applies(
    D.ACH_CHANGED, D.ACH_MISSING_SOFTMAX, D.ACH_SPLIT_LAYER, D.ACH_VS_LAYER, D.ACH_LAYER_TO_ARGUMENT,
    D.LAD_SOFTMAX_LAYER,
)  # fmt: skip
def _diff_activation(mi: int, li: int, b: FoldedLayer, f: FoldedLayer) -> list[FaultComponent]:
    """The activation of two paired layers, on the folded view (``Dense(n); Activation(a)`` equals
    ``Dense(n, activation=a)``). Decision ACH-vs-layer: an Activation *layer* present on one side
    only, with no activation at all on the other, is a missing (LRM) or redundant (LAD) layer, e.g.
    a softmax layer; an activation written on both sides (even 'linear') that differs is ACH."""
    bl, fl = b.layer, f.layer
    ba, fa = activation_name(b.activation), activation_name(f.activation)
    if (
        ba == fa
        or (b.activation is not None and b.activation.is_opaque)
        or (f.activation is not None and f.activation.is_opaque)
    ):
        return []
    change = "added" if ba == "linear" else "removed" if fa == "linear" else "changed"
    if change == "added" and len(f.sources) > 1 and (b.activation is None or b.activation.implicit):
        return [_activation_layer_component(mi, f, K.LAYER_MISSING, "added")]
    if change == "removed" and len(b.sources) > 1 and (f.activation is None or f.activation.implicit):
        return [_activation_layer_component(mi, b, K.LAYER_REDUNDANT, "removed")]
    return [
        make_component(
            layer_path(mi, li, "activation"),
            K.LAYER_ACTIVATION,
            change,
            b.activation if b.activation is not None else "linear",
            f.activation if f.activation is not None else "linear",
            value_location(b.activation, bl.file, bl.line),
            value_location(f.activation, fl.file, fl.line),
            before_activation=ba,
            after_activation=fa,
            layer_type=fl.cls,
        )
    ]


def _activation_layer_component(mi: int, fold: FoldedLayer, kind: K, change: str) -> FaultComponent:
    act_layer = fold.layer
    text = f"Activation({short(fold.activation)})"
    where = (act_layer.file, fold.activation.line if fold.activation else None)
    # the Activation layer itself is the last source of the folded layer
    return make_component(
        layer_path(mi, fold.sources[-1]),
        kind,
        change,
        None if change == "added" else text,
        text if change == "added" else None,
        (None, None) if change == "added" else where,
        where if change == "added" else (None, None),
        layer_type=f"Activation({activation_name(fold.activation)})",
    )


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


@noise_rule("api_spelling", "keras vs tf.keras imports, legacy argument names, string vs object spellings")
def positional_only_keys(bl: Layer, fl: Layer, era_b: str, era_f: str) -> set[str]:
    """Arguments both layers write with the very same positional texts.

    A benchmark running posted Keras 1 code under Keras 2 (``Convolution2D(32, 3, 3)``) did not
    change the program's text; the study did not count the era's reinterpretation as a fault.
    Returns the canonical argument names that come from those positionals (or defaults). (Imports
    and legacy keyword names are canonical in the program model already.)
    """
    from mutreal.program import keras_api

    bs, fs = _call_shape(bl.text), _call_shape(fl.text)
    if bs is None or fs is None or bs[0] != fs[0] or not bs[0]:
        return set()
    written = {keras_api.canonical_kwarg(bl.cls, k, era_b) for k in bs[1]}
    written |= {keras_api.canonical_kwarg(fl.cls, k, era_f) for k in fs[1]}
    return (set(bl.args) | set(fl.args)) - written


@applies(
    D.LCN_UNITS, D.LCN_EMBEDDING_SIZE, D.LCF_KERNEL, D.RCD_RATE, D.RCD_RECURRENT_DROPOUT, D.BNE_EPSILON,
    D.WCI_INIT, D.WCI_SET_WEIGHTS, D.LGR_RETURN_SEQUENCES,
)  # fmt: skip
def _diff_layer_arguments(
    ctx: CompareContext, mi: int, li: int, b: FoldedLayer, f: FoldedLayer
) -> list[FaultComponent]:
    """The arguments of two paired layers other than the activation, one component per kind that
    changed (:data:`LAYER_ARG_KINDS`); the input shape is compared once per model instead."""
    out: list[FaultComponent] = []
    bl, fl = b.layer, f.layer
    b_loc, f_loc = (bl.file, bl.line), (fl.file, fl.line)
    keys = compared_layer_args(set(bl.args) | set(fl.args)) - {"activation"}
    keys |= _STARTING_WEIGHTS & (set(bl.args) | set(fl.args))
    if ctx.era_b != ctx.era_f:
        keys -= positional_only_keys(bl, fl, ctx.era_b, ctx.era_f) - _STARTING_WEIGHTS
    if bl.inner is not None and fl.inner is not None:
        out.extend(_diff_wrapped(ctx, mi, li, bl.inner, fl.inner))
    seen_kinds: set[K] = set()
    is_bn = bl.cls == "BatchNormalization"
    for key in sorted(keys):
        kind = BN_ARG_KINDS.get(key) if is_bn else None
        is_table_size = bl.cls in _TABLE_LAYERS and fl.cls in _TABLE_LAYERS and key in _TABLE_SIZE_ARGS
        kind = K.LAYER_UNITS if is_table_size else kind or LAYER_ARG_KINDS.get(key)
        if kind is None or key.startswith("_"):
            continue
        bv, fv = bl.arg(key, ctx.era_b), fl.arg(key, ctx.era_f)
        if kind is K.LAYER_REGULARIZER:
            bv, fv = none_is_absent(bv), none_is_absent(fv)
        if kind is K.LAYER_INPUT_SHAPE and key != "input_length":
            continue  # compared once per model, see _diff_model_input
        if is_table_size and (values_equal(bv, fv, strict_opaque=True) or kind in seen_kinds):
            continue
        if key in _STARTING_WEIGHTS:
            # what the weights are is seldom folded (an array the program computes): that one side
            # starts the layer from given weights and the other from its initialiser is the change
            bv, fv = bl.args.get(key), fl.args.get(key)
            if (bv is None) == (fv is None):
                continue
        elif values_equal(bv, fv) or (kind is K.LAYER_INPUT_SHAPE and shape_equal(bv, fv)):
            continue
        if kind in seen_kinds and kind in (K.LAYER_INPUT_SHAPE, K.LAYER_REGULARIZER):
            continue
        seen_kinds.add(kind)
        out.append(
            make_component(
                layer_path(mi, li, key),
                kind,
                change_of(bv, fv),
                bv,
                fv,
                value_location(bv, *b_loc),
                value_location(fv, *f_loc),
                layer_type=fl.cls,
                before_value=None if bv is None else (bv.value if bv.is_const else bv.short()),
                after_value=None if fv is None else (fv.value if fv.is_const else fv.short()),
                before_number=number(bv),
                after_number=number(fv),
            )
        )
    return out


def _diff_wrapped(ctx: CompareContext, mi: int, li: int, bi: Layer, fi: Layer) -> list[FaultComponent]:
    """The layer inside a wrapper (TimeDistributed(Dense(3)), Bidirectional(LSTM(20))) compared as a layer."""
    if bi.cls != fi.cls:
        return [_layer_type_component(mi, li, bi, fi, "layer")]
    fb = FoldedLayer(bi, [li], bi.arg("activation", ctx.era_b))
    ff = FoldedLayer(fi, [li], fi.arg("activation", ctx.era_f))
    return _diff_layer(ctx, mi, li, fb, ff)


@applies(D.MWA_UNSEEN_MODEL, D.MWA_UNSEEN_MODEL_NO_USE)
def compare_unseen_model(ctx: CompareContext) -> list[FaultComponent]:
    """Decision MWA-unseen-model: the buggy program trains or runs a model that it never builds
    where one can see it (a helper from another module, a loaded file), and the fix builds a model
    of its own: the architecture was replaced, one MWA component. A buggy program that uses no
    model at all (data preparation only) was merely completed, so nothing is emitted for it.
    """
    buggy, fixed = ctx.buggy, ctx.fixed
    if buggy.models or not fixed.models:
        return []
    uses = [u for u in (*buggy.compiles, *buggy.fits, *buggy.evaluations) if u is not None]
    if not uses:
        return []
    fm = fixed.models[0]
    used = uses[0]
    return [
        make_component(
            layer_path(0),
            K.MODEL_ARCHITECTURE,
            "changed",
            "a model built out of view",
            f"{len(fm.layers)} layers",
            (used.file, used.line),
            (fm.file, fm.line),
            structural_changes=len(fm.layers),
        )
    ]
