"""Helpers shared by the operator families: layer sites, argument edits, value texts.

Why a module: every layer operator walks the same layer groups (one constructor call, maybe
several layer instances when built in a loop or a helper), finds one argument by its canonical
name (legacy spellings and positional arguments included) and writes either a replacement of the
argument's value or a new keyword argument. Keeping that in one place keeps the families short.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from typing import Any, TypeGuard

import libcst as cst

from mutreal.mutation.operators.base import Change, Component, Edit, Operator, Program, Site, number_text
from mutreal.mutation.operators.program import LayerGroup
from mutreal.program import keras_api
from mutreal.program.model import FoldedLayer, Layer, Value, layer_path


def accepts_arg(layer: Layer, arg: str, era: str) -> bool:
    """Whether a layer class takes argument ``arg`` (written, or with a known default)."""
    return arg in layer.args or keras_api.default_arg(layer.cls, arg, era) is not keras_api.NO_DEFAULT


def resolved_callee(program: Program, call_id: int) -> tuple[str, str | None]:
    """A call's callee as written and as the program's imports resolve it (``tf.nn.conv2d``,
    ``tensorflow.nn.conv2d``; None when its root is not imported)."""
    call = program.node(call_id)
    assert isinstance(call, cst.Call)
    text = code_of(program, call.func)
    root, _, rest = text.partition(".")
    target = program.model.imports.get(root)
    if target is None:
        return text, None
    return text, f"{target}.{rest}" if rest else target


def graph_op(program: Program, group: LayerGroup) -> str | None:
    """The callee of a layer that is a TensorFlow 1 graph operation (``tf.nn.conv2d``,
    ``tf.matmul``, ``tf.contrib.layers.conv2d``), None for a layer built by a Keras-style
    constructor (Keras, ``tf.keras``, ``tf.layers``).

    Why: a graph operation takes none of the Keras keywords the layer operators write
    (``kernel_regularizer=``, ``use_bias=``, ``kernel_initializer=``, ``activation=``; tf.contrib's
    layers spell them ``weights_regularizer``/``activation_fn`` and take functions, not names), so
    its Keras-keyword sites are none: written there they give a TypeError, not a fault."""
    if group.layer.origin != "graph":
        return None
    text, full = resolved_callee(program, group.call)
    if full is not None and ".contrib." not in full and (
        full.split(".")[0] in ("keras", "tf_keras") or ".keras." in full or ".layers." in full
    ):
        return None
    return text


def graph_no_site_reasons(program: Program, argument: str) -> list[str]:
    """Why a layer-keyword operator has no site at the graph operations of a program (see
    :func:`graph_op`): one line per operation call."""
    out = []
    for g in program.layer_groups:
        op = graph_op(program, g)
        if op is not None and g.layer.cls not in ("Activation", "Input"):
            line = program.index.position(g.call)[0]
            out.append(
                f"{op} at line {line} is a TensorFlow 1 graph operation: it takes no {argument} "
                "(its weights are tf.Variables the program creates; only Keras-style layers take one)"
            )
    return out


#: why an operator has no site in TensorFlow 1 graph code that trains in a session loop, where
#: nothing of the program takes the part it edits (``mutate --list`` says it)
GRAPH_NO_SITE = {
    "RCD": "no dropout layer with a constant rate (graph code's tf.nn.dropout takes keep_prob, "
    "usually fed through a placeholder)",
    "RCP": "no EarlyStopping callback: a TensorFlow 1 session loop takes no callbacks",
    "VRM": "a TensorFlow 1 session loop takes no validation_split or validation_data (validation "
    "runs, if any, are the program's own session runs)",
    "LCH": "the loss is an expression of TensorFlow graph ops, which a Keras loss name or object "
    "cannot replace",
    "HDB": "the session loop's batch size is not one number written where the loop reads it, or "
    "the loop feeds batches it makes itself (next_batch), not slices of a whole array",
}


def session_training(program: Program) -> bool:
    """Whether the program trains in TensorFlow 1 session runs (graph code)."""
    return any(f.method == "session.run" for f in program.model.fits)


def graph_reasons(op: Operator, program: Program) -> list[str]:
    """:data:`GRAPH_NO_SITE`'s reason for ``op`` when the program trains in session runs and the
    operator found no site there."""
    why = GRAPH_NO_SITE.get(op.id)
    if why is None or not session_training(program) or op.sites(program):
        return []
    return [f"TensorFlow 1 graph code: {why}"]


def groups_taking(
    program: Program, canonical: str | Callable[[Layer], str]
) -> Iterator[tuple[LayerGroup, str]]:
    """The layer constructor calls whose layer takes argument ``canonical`` (a name, or the name as
    a function of the layer), with that name: where a layer-argument operator looks for sites.
    A graph operation (:func:`graph_op`) takes no Keras keyword: never one of them."""
    for g in program.layer_groups:
        name = canonical if isinstance(canonical, str) else canonical(g.layer)
        if accepts_arg(g.layer, name, program.era) and graph_op(program, g) is None:
            yield g, name


def is_number(value: Value | None) -> TypeGuard[Value]:
    """Whether an extracted value is a constant int or float (not a bool): what a numeric
    operator can scale."""
    return (
        value is not None
        and value.is_const
        and not isinstance(value.value, bool)
        and isinstance(value.value, int | float)
    )


#: layers whose weights are a table, not a kernel: their initializer/regularizer arguments
_TABLE_WEIGHTS = {"Embedding": "embeddings"}


def weights_arg(layer: Layer, what: str) -> str:
    """The argument carrying a layer's weights' ``initializer`` or ``regularizer``: ``kernel_...``,
    or ``embeddings_...`` for an ``Embedding`` (its table is its weights, so WCI, RAW, RCW and RRW
    edit it there, as DeepCrime does)."""
    return f"{_TABLE_WEIGHTS.get(layer.cls, 'kernel')}_{what}"


def code_of(program: Program, node: cst.CSTNode) -> str:
    return program.module.code_for_node(node)


def layer_site(
    op: Operator,
    program: Program,
    group: LayerGroup,
    canonical: str,
    original: Any,
    default: str | None = None,
    *,
    elements: Sequence[str] | None = None,
    detail: dict[str, Any] | None = None,
) -> Site:
    """The site of argument ``canonical`` of one layer constructor call.

    Its old text is the written argument's, else ``default`` (the era's default, so the site is
    marked implicit; None: the argument is absent). ``elements`` defaults to the argument's path in
    every layer the call builds, ``detail`` to the layer's class."""
    layer = group.layer
    arg = program.layer_arg(group.call, layer, canonical)
    return program.make_site(
        op,
        group.call,
        elements if elements is not None else [layer_path(m, li, canonical) for m, li, _ in group.instances],
        code_of(program, arg[1].value) if arg else default,
        original,
        implicit=arg is None and default is not None,
        detail=detail if detail is not None else {"layer": layer.cls},
    )


def site_arg(
    program: Program, site: Site, canonical: str | Callable[[Layer], str]
) -> tuple[Layer, tuple[int, cst.Arg] | None]:
    """The layer a layer site edits and its argument ``canonical`` (a name, or the name as a
    function of the layer: ``kernel_...`` or ``embeddings_...``), None when not written."""
    assert site.anchor is not None
    layer = program.layer_groups_by_call[site.anchor].layer
    name = canonical if isinstance(canonical, str) else canonical(layer)
    return layer, program.layer_arg(site.anchor, layer, name)


def set_value(
    op: Operator,
    program: Program,
    site: Site,
    value: Any,
    arg: tuple[int, cst.Arg] | None,
    code: str,
    keyword: str,
    label: str | None = None,
) -> Edit:
    """The edit that writes ``code`` as the value of ``arg`` of the site's call, or adds
    ``keyword=code`` where the argument is not written (most operators' whole change)."""
    assert site.anchor is not None
    return make_edit(
        op, site, value, site.old, code, [value_change(program, site.anchor, arg, code, keyword)], label=label
    )


def keras_callee(
    program: Program, module: str, name: str, like: cst.CSTNode | None = None, *, at: int | None = None
) -> tuple[str, list[Change]]:
    """How to call Keras' ``<module>.<name>`` here, with the import that needs (or none).

    A call ``like`` written through a module path (``optimizers.SGD(...)``,
    ``tf.keras.regularizers.l2(...)``) keeps that path; otherwise :meth:`Program.spell` picks an
    alias the program imports before node ``at`` (the edited node: an alias bound only by a later
    import would be a NameError there) or adds ``from <root>.<module> import <name>``."""
    if isinstance(like, cst.Call) and isinstance(like.func, cst.Attribute):
        return f"{code_of(program, like.func.value)}.{name}", []
    callee, imp = program.spell(module, name, before=None if at is None else program.index.position(at)[0])
    return callee, [Change("import", 0, code=imp)] if imp else []


def value_change(
    program: Program,
    call_id: int,
    arg: tuple[int, cst.Arg] | None,
    code: str,
    keyword: str,
) -> Change:
    """Replace the value of an existing argument, or append ``keyword=code`` to the call."""
    if arg is not None:
        return Change("replace", id(arg[1].value), code=code)
    return Change("set_arg", call_id, code=code, keyword=keyword, aliases=(keyword,))


def components(op: Operator, site: Site, before: str | None, after: str | None) -> list[Component]:
    """One component per written change: a site whose call builds several layers (a loop, a helper
    called twice) is one change in the source, reported at its first element (classify's rule
    'one component per changed source text'); ``instances`` lists them all."""
    instances = list(site.elements) if len(site.elements) > 1 else []
    return [
        Component(site.elements[0], op.id, before, after, implicit_before=site.implicit, instances=instances)
    ]


def make_edit(
    op: Operator,
    site: Site,
    value: Any,
    before: str | None,
    after: str | None,
    changes: Sequence[Change],
    label: str | None = None,
    options: dict[str, Any] | None = None,
    elements_components: list[Component] | None = None,
) -> Edit:
    return Edit(
        operator=op.id,
        site=site,
        value=value,
        old=before,
        new=after,
        components=elements_components
        if elements_components is not None
        else components(op, site, before, after),
        changes=list(changes),
        label=label if label is not None else value_label(value),
        options=dict(options or {}),
    )


#: DeepCrime's value strings that Keras 3 spells otherwise (its ``get`` refuses the old name), by
#: the Keras module reading them; None: Keras 3 has no string for it (``'constant'`` needs a value)
KERAS3_NAMES: dict[str, dict[str, str | None]] = {
    "losses": {
        "logcosh": "log_cosh",
        "huber_loss": "huber",
        "kullback_leibler_divergence": "kl_divergence",
    },
    "regularizers": {"l1_l2": "l1l2"},
    "initializers": {"constant": None},
}


def era_name(kind: str, value: str, era: str) -> str | None:
    """How the program's era writes DeepCrime's string ``value`` of Keras module ``kind``
    (``'logcosh'`` is ``'log_cosh'`` in Keras 3); None when the era has no string for it."""
    if era != "keras3":
        return value
    table = KERAS3_NAMES.get(kind, {})
    return table.get(value, value)


def value_label(value: Any) -> str:
    if isinstance(value, float):
        return f"{value:g}"
    return str(value)


def num(value: Any) -> str:
    return number_text(value)


def folded_owner(program: Program, model_index: int, layer_index: int) -> FoldedLayer | None:
    """The folded layer (activation view) that layer ``layer_index`` of a model belongs to."""
    for fl in _folded(program, model_index):
        if layer_index in fl.sources:
            return fl
    return None


def _folded(program: Program, model_index: int) -> list[FoldedLayer]:
    cache = program.__dict__.setdefault("_folded_cache", {})
    got = cache.get(model_index)
    if got is None:
        got = cache[model_index] = program.model.models[model_index].folded_layers(program.era)
    return got
