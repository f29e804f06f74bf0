"""Helpers shared by the operator families: layer sites, argument edits, value texts.

Why a module: every layer operator walks the same layer groups (one constructor call, maybe
several layer instances when built in a loop or a helper), finds one argument by its canonical
name (legacy spellings and positional arguments included) and writes either a replacement of the
argument's value or a new keyword argument. Keeping that in one place keeps the families short.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import libcst as cst

from mutreal.mutation.operators.base import Change, Component, Edit, Operator, Program, Site, number_text
from mutreal.program import keras_api
from mutreal.program.model import FoldedLayer, Layer


def accepts_arg(layer: Layer, arg: str, era: str) -> bool:
    """Whether a layer class takes argument ``arg`` (written, or with a known default)."""
    return arg in layer.args or keras_api.default_arg(layer.cls, arg, era) is not keras_api.NO_DEFAULT


#: layers whose weights are a table, not a kernel: their initializer/regularizer arguments
_TABLE_WEIGHTS = {"Embedding": "embeddings"}


def weights_arg(layer: Layer, what: str) -> str:
    """The argument carrying a layer's weights' ``initializer`` or ``regularizer``: ``kernel_...``,
    or ``embeddings_...`` for an ``Embedding`` (its table is its weights, so WCI, RAW, RCW and RRW
    edit it there, as DeepCrime does)."""
    return f"{_TABLE_WEIGHTS.get(layer.cls, 'kernel')}_{what}"


def code_of(program: Program, node: cst.CSTNode) -> str:
    return program.module.code_for_node(node)


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
