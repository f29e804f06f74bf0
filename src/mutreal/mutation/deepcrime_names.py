"""DeepCrime's mutant names, both ways: ``<key>_mutated0_MP_<params>`` <-> (operator, site, value).

Why a module: DeepCrime names each trained mutant after its operator and parameters
(``change_activation_function_mutated0_MP_elu_1``, ``add_weights_regularisation_mutated0_MP_l1_l2_4``,
``delete_training_data_mutated0_MP_99``), and so do the studies that publish its mutants (Ahmed
et al. prefix them ``MM_<bug>_``; DeepCrime's ``trained_models/`` adds a subject prefix and
``_<run>.h5``). A user holding such a name, or a paper's table of them, asks mutreal for the same
mutant: this module parses the name into a typed request, finds the site it names in a program
through the operator API, makes the mutant, and gives the name back from a mutant's provenance.
Every name that cannot be made is refused with its reason, never approximated. Reading and writing
a name as text is :mod:`mutreal.mutation.deepcrime_name_syntax` (re-exported here); this module
finds what a name asks for in a program.

How DeepCrime forms a name (``utils/execute_mutants.py``, ``concat_params_for_file_name``): the
values of the operator's properties whose keys contain ``pct``, ``lbl``, ``rate``, ``batch_size``
or one of its ``..._udp`` keys, joined by ``_``, then ``_<layer index>`` for a layer operator. That
gives doubled values (``change_batch_size_mutated0_MP_64_64``: ``change_batch_size_udp`` and
``batch_size``; ``change_dropout_rate_mutated0_MP_0.25_0.25_3``: ``dropout_rate_udp`` and ``rate``)
and a literal ``False`` (``change_learning_rate_mutated0_MP_False_0.001``: ``learning_rate_udp``).
Each operator's pattern is written once, as ``deepcrime_name`` in ``operators/deepcrime.yaml``.

DeepCrime's layer index is an index into the Keras model's ``get_config()['layers']``, which its
operators edit: every layer counts (Flatten, Dropout, pooling, Activation layers), a functional
model's Input layers count, and a Sequential model whose input shape is known when it is built
(an ``input_shape``/``input_dim``/``batch_input_shape`` on its first layer, or an ``Input`` in the
stack) has an ``InputLayer`` at index 0 (TensorFlow 2's Sequential config lists it; ``model.layers``
does not). Most of Ahmed et al.'s bugs count that way (their layer indices start at 1 where the
first layer is the InputLayer); a few start at 0 at the first Dense layer, ``model.layers``' count
(the count DeepCrime's ``layers_num`` makes): ``counting="layers"`` (``--deepcrime-layers layers``)
reads names so. :func:`deepcrime_layers` reconstructs either list from the program model; a name
whose index falls on a layer without the operator's site is refused, and the reason says what
that index is under the other counting when the operator applies there.

Where DeepCrime's operator and mutreal's split a change differently, the same edit is made by the
operator mutreal has for it, and the provenance says so (``deepcrime.made_by``): DeepCrime's ACH to
``linear`` is ARM's edit, its ACH of a linear layer AAL's. A linear layer followed by an
``Activation`` layer (``Dense(8); Activation('relu')``) is two layers to DeepCrime and one to
mutreal's activation operators (classify's folded view, whose site is the Activation layer): a
name at the Activation layer is made there; DeepCrime's ACH or AAL at the linear layer sets that
layer's own activation, made as AAL's edit of it (a site AAL does not number: ``site`` -1, named
back from its element); its ARM there sets linear to linear, an equivalent mutant, refused so.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from mutreal.mutation.deepcrime_name_syntax import (
    REASONS,
    DeepCrimeName,
    DeepCrimeNameError,
    NameFormat,
    format_name,
    format_of,
    name_formats,
    parse_name,
)
from mutreal.mutation.mutate import equivalence, write_program_files
from mutreal.mutation.operators import Mutant, MutationError, Program, Site, apply_edits, registry
from mutreal.program.model import KerasModel

__all__ = [
    "REASONS",
    "COUNTINGS",
    "DeepCrimeNameError",
    "NameFormat",
    "DeepCrimeName",
    "LayerSlot",
    "Resolved",
    "NameReport",
    "name_formats",
    "parse_name",
    "format_name",
    "deepcrime_layers",
    "resolve",
    "make_mutant",
    "name_of_site",
    "name_from_provenance",
    "mutate_names",
]

#: how a name's layer index counts: ``config``, the model config's layers DeepCrime's operators edit
#: (a Sequential model with an input shape has its InputLayer at 0: TensorFlow 2, as DeepCrime ran);
#: ``layers``, Keras's ``model.layers`` (no InputLayer in a Sequential model: what DeepCrime's
#: ``layers_num`` counts, and Keras versions whose Sequential config omits it)
COUNTINGS = ("config", "layers")

#: Keras classes of input layers (``keras.Input`` is recorded as ``Input``)
_INPUT_CLASSES = frozenset({"Input", "InputLayer"})

#: constructor arguments that give a Sequential model's first layer its input shape
_INPUT_SHAPE_ARGS = frozenset({"input_shape", "batch_input_shape", "batch_shape"})

# ---------------------------------------------------------------------------------------------------
# DeepCrime's layer list of a model
# ---------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class LayerSlot:
    """One entry of DeepCrime's layer list (``model.get_config()['layers']``) of a model."""

    index: int
    cls: str
    #: the layer's index in mutreal's program model (``model[m].layer[raw]``); None: Keras's own
    #: InputLayer of a Sequential model, which the source does not write
    raw: int | None
    line: int | None = None

    def describe(self) -> str:
        where = f" (line {self.line})" if self.line else ""
        return (
            f"{self.cls}{where}"
            if self.raw is not None
            else "the InputLayer Keras adds to a Sequential model"
        )


def _target_model(program: Program, model: int | None, name: str) -> KerasModel:
    models = program.model.models
    if model is not None:
        for km in models:
            if km.index == model:
                return km
        raise DeepCrimeNameError(name, "no_model", f"{program.path} has no model[{model}]")
    fitted = sorted({f.model for f in program.model.fits if f.model is not None})
    if len(fitted) == 1:
        return next(km for km in models if km.index == fitted[0])
    if len(fitted) > 1:
        raise DeepCrimeNameError(
            name,
            "no_model",
            f"{program.path} trains several models ({', '.join(f'model[{i}]' for i in fitted)}); "
            "DeepCrime's layer index does not say which",
        )
    if len(models) == 1:
        return models[0]
    raise DeepCrimeNameError(name, "no_model", f"{program.path} builds {len(models)} models and trains none")


def deepcrime_layers(program: Program, km: KerasModel, counting: str = "config") -> list[LayerSlot]:
    """DeepCrime's layer list of model ``km`` (see the module docstring for how it counts), or with
    ``counting="layers"`` Keras's ``model.layers`` (a Sequential model's Input layers left out).

    Raises :class:`DeepCrimeNameError` (reason ``no_model``) for models whose Keras order mutreal
    does not reconstruct: subclassed or unknown models, and functional graphs that branch (Keras
    orders those by depth in the graph, not as written)."""
    layers = km.layers
    if km.kind == "functional":
        consumers: dict[int, int] = {}
        for layer in layers:
            for src in layer.inbound:
                consumers[src] = consumers.get(src, 0) + 1
        inputs = sum(1 for layer in layers if layer.cls in _INPUT_CLASSES)
        if (
            inputs > 1
            or any(len(layer.inbound) > 1 for layer in layers)
            or any(n > 1 for n in consumers.values())
        ):
            raise DeepCrimeNameError(
                "",
                "no_model",
                f"model[{km.index}] is a branched functional graph: Keras lists its layers by graph depth, "
                "which mutreal does not reconstruct",
            )
        return [LayerSlot(i, layer.cls, i, layer.line) for i, layer in enumerate(layers)]
    if km.kind != "sequential":
        raise DeepCrimeNameError(
            "",
            "no_model",
            f"model[{km.index}] is a {km.kind} model: DeepCrime's layer operators edit a model's config, "
            "which only Sequential and functional models have",
        )
    slots: list[LayerSlot] = []
    first = next((layer for layer in layers if layer.cls not in _INPUT_CLASSES), None)
    explicit_input = bool(layers) and layers[0].cls in _INPUT_CLASSES
    implicit_input = first is not None and (
        bool(_INPUT_SHAPE_ARGS & set(first.args))
        or (first.cls == "Embedding" and "input_length" in first.args)
    )
    if implicit_input and not explicit_input:
        slots.append(LayerSlot(0, "InputLayer", None))
    for i, layer in enumerate(layers):
        if layer.cls in _INPUT_CLASSES and (i > 0 or counting == "layers"):
            continue  # a second Input in a Sequential stack is not a layer of its config
        slots.append(LayerSlot(len(slots), layer.cls, i, layer.line))
    if counting == "layers":
        slots = [
            LayerSlot(n, s.cls, s.raw, s.line) for n, s in enumerate(x for x in slots if x.raw is not None)
        ]
    return slots


# ---------------------------------------------------------------------------------------------------
# Resolving a name against a program
# ---------------------------------------------------------------------------------------------------


@dataclass
class Resolved:
    """A name resolved against a program: the operator, its site and value, and the layer named."""

    request: DeepCrimeName
    operator: str
    site: Site
    value: Any
    model: int | None = None
    layer: LayerSlot | None = None
    notes: list[str] = field(default_factory=list)
    #: how the layer index was counted (:data:`COUNTINGS`)
    counting: str = "config"

    def to_dict(self) -> dict[str, Any]:
        return {
            **self.request.to_dict(),
            "made_by": self.operator,
            "site": self.site.index,
            "element": self.site.element,
            "line": self.site.line,
            "model": self.model,
            "layer_class": self.layer.cls if self.layer else None,
            "counting": self.counting,
            "notes": list(self.notes),
        }


def _site_of_slot(program: Program, op_id: str, km: KerasModel, slot: LayerSlot) -> tuple[Site | None, int]:
    """The operator's site at the slot's layer and how many layers that site's call builds."""
    for group in program.layer_groups:
        if group.wrapped or (km.index, slot.raw) not in [(m, li) for m, li, _ in group.instances]:
            continue
        for site in registry.get(op_id).sites(program):
            if site.anchor == group.call:
                return site, len(group.instances)
        return None, len(group.instances)
    return None, 1


def _layer_site(
    program: Program, request: DeepCrimeName, km: KerasModel, op_id: str, counting: str
) -> tuple[Site, LayerSlot]:
    name, i = request.name, request.layer
    assert i is not None
    try:
        slots = deepcrime_layers(program, km, counting)
    except DeepCrimeNameError as exc:
        raise DeepCrimeNameError(name, exc.reason, f"{name!r}: {exc}") from None
    listing = ("config layers: " if counting == "config" else "model.layers: ") + ", ".join(
        f"{s.index} {s.cls}" for s in slots
    )
    if i >= len(slots):
        raise DeepCrimeNameError(
            name,
            "layer_count",
            f"{name!r}: model[{km.index}] has {len(slots)} layers ({listing}); no layer {i}",
        )
    slot = slots[i]
    site, built = (None, 1) if slot.raw is None else _site_of_slot(program, op_id, km, slot)
    if site is not None and built > 1:
        raise DeepCrimeNameError(
            name,
            "several_layers",
            f"{name!r}: layer {i} ({slot.describe()}) is one of {built} layers one constructor call builds "
            f"(a loop or a helper); a source edit changes all of them, DeepCrime's mutant only this one",
        )
    if site is not None:
        return site, slot
    other = _other_counting(program, km, op_id, i, counting)
    if slot.raw is None:
        raise DeepCrimeNameError(
            name,
            "layer_count",
            f"{name!r}: layer {i} is {slot.describe()} ({listing}){other}",
        )
    why = f"{name!r}: {op_id} has no site at layer {i}, {slot.describe()} ({listing})"
    folded = _folded_activation(km, slot, program.era)
    if folded is not None and op_id in _ACTIVATION_OPS:
        if op_id == "AAL" and built > 1:
            raise DeepCrimeNameError(
                name,
                "several_layers",
                f"{name!r}: layer {i} ({slot.describe()}) is one of {built} layers one constructor call builds "
                f"(a loop or a helper); a source edit changes all of them, DeepCrime's mutant only this one",
            )
        if op_id == "AAL":
            site = _site_before_activation_layer(program, km, slot, folded)
            if site is not None:
                return site, slot
        if op_id == "ARM":
            raise DeepCrimeNameError(
                name,
                "equivalent",
                f"{name!r}: layer {i}, {slot.describe()}, is linear already (its activation is the "
                f"Activation layer after it, layer {folded.index}): DeepCrime's ARM sets linear to linear "
                "here, its mutant is the original",
            )
        why += (
            f"; mutreal reads its activation as the Activation layer after it ({folded.describe()}) and "
            "edits that layer, DeepCrime edits this one"
        )
    else:
        why += other
    raise DeepCrimeNameError(name, "no_site", why)


def _site_before_activation_layer(program: Program, km: KerasModel, slot: LayerSlot, folded: LayerSlot) -> Site | None:
    """AAL's edit of a linear layer followed by an ``Activation`` layer: the layer's own activation.

    Why: DeepCrime edits a model's config, where ``Dense(8); Activation('relu')`` are two layers and
    the Dense layer is linear, so its ACH and AAL mutants there set the Dense layer's activation
    (``Dense(8, activation='tanh'); Activation('relu')``). mutreal's activation operators read the
    pair as one layer whose activation is the Activation layer's (classify's folded view), so none
    of their sites is the Dense call; this site is (outside AAL's numbered sites: index -1), and
    the edit is AAL's, which writes a linear layer's activation."""
    from mutreal.mutation.operators.common import accepts_arg, graph_op, layer_site
    from mutreal.program.element_paths import layer_path

    group = next(
        (g for g in program.layer_groups if (km.index, slot.raw) in [(m, li) for m, li, _ in g.instances]), None
    )
    if group is None or group.wrapped or graph_op(program, group) is not None:
        return None  # a wrapped layer's or a TensorFlow 1 graph op's activation is not this keyword
    if not accepts_arg(group.layer, "activation", program.era):
        return None
    return layer_site(
        registry.get("AAL"), program, group, "activation", "linear", repr("linear"),
        elements=[layer_path(km.index, slot.raw, "activation")],
        detail={"layer": group.layer.cls, "activation_layer": False, "before_activation_layer": folded.raw},
    )  # fmt: skip


def _other_counting(program: Program, km: KerasModel, op_id: str, i: int, counting: str) -> str:
    """What layer ``i`` is under the other counting, when the operator applies there ("" if not)."""
    other = COUNTINGS[1 - COUNTINGS.index(counting)]
    slots = deepcrime_layers(program, km, other)
    if i >= len(slots) or slots[i].raw is None or slots == deepcrime_layers(program, km, counting):
        return ""
    if _site_of_slot(program, op_id, km, slots[i])[0] is None:
        return ""
    return f"; counting {other} (--deepcrime-layers {other}), layer {i} is {slots[i].describe()}, where {op_id} applies"


#: the operators whose site mutreal moves to an Activation layer folded into the layer before it
_ACTIVATION_OPS = frozenset({"ACH", "ARM", "AAL"})


def _folded_activation(km: KerasModel, slot: LayerSlot, era: str) -> LayerSlot | None:
    """The Activation layer that mutreal folds into the slot's layer (``Dense(8); Activation('relu')``)."""
    if slot.raw is None:
        return None
    for folded in km.folded_layers(era):
        if folded.sources[0] == slot.raw and len(folded.sources) > 1:
            raw = folded.sources[1]
            layer = km.layers[raw]
            return LayerSlot(slot.index + raw - slot.raw, layer.cls, raw, layer.line)
    return None


def _program_site(program: Program, request: DeepCrimeName, km: KerasModel | None) -> tuple[Site, list[str]]:
    op = registry.get(request.operator)
    sites = op.sites(program)
    if not sites:
        why = "; ".join(op.no_site_reasons(program))
        raise DeepCrimeNameError(
            request.name,
            "no_site",
            f"{request.name!r}: {op.id} has no site in {program.path}" + (f" ({why})" if why else ""),
        )
    if len(sites) == 1 or km is None:
        return sites[0], []
    mine = [s for s in sites if _site_model(program, s) == km.index] or sites
    notes = []
    if len(mine) > 1:
        notes.append(
            f"{op.id} has {len(mine)} sites for model[{km.index}]; the first (line {mine[0].line}) is used"
        )
    return mine[0], notes


def _site_model(program: Program, site: Site) -> int | None:
    detail = site.detail
    if "fit" in detail:
        return program.model.fits[int(detail["fit"])].model
    if "compile" in detail:
        return program.model.compiles[int(detail["compile"])].model
    return None


def resolve(
    program: Program, request: DeepCrimeName | str, *, model: int | None = None, counting: str = "config"
) -> Resolved:
    """Find the site a name asks for in ``program`` (``model``: which model index, default the one
    the program trains; ``counting``: see :data:`COUNTINGS`). Raises :class:`DeepCrimeNameError`
    with the reason it cannot be made."""
    if counting not in COUNTINGS:
        raise ValueError(f"counting must be one of {', '.join(COUNTINGS)}; got {counting!r}")
    if isinstance(request, str):
        request = parse_name(request)
    fmt = format_of(request.operator)
    km: KerasModel | None
    if fmt.has_layer:
        km = _target_model(program, model, request.name)
        if request.operator == "ACH" and request.value == "linear":
            # DeepCrime's ACH may write linear; mutreal leaves that to ARM, which writes the same edit
            site, slot = _layer_site(program, request, km, "ARM", counting)
            note = "ACH to linear is made by ARM (the same edit: the activation set to linear)"
            return Resolved(request, "ARM", site, None, km.index, slot, [note], counting)
        if request.operator == "ACH":
            made = _ach_on_a_linear_layer(program, request, km, counting)
            if made is not None:
                return made
        site, slot = _layer_site(program, request, km, request.operator, counting)
        notes = _value_notes(fmt, request)
        return Resolved(request, request.operator, site, request.value, km.index, slot, notes, counting)
    try:
        km = _target_model(program, model, request.name) if program.model.models else None
    except DeepCrimeNameError:
        km = None
    site, notes = _program_site(program, request, km)
    notes += _value_notes(fmt, request)
    return Resolved(request, request.operator, site, request.value, km.index if km else None, None, notes)


def _ach_on_a_linear_layer(
    program: Program, request: DeepCrimeName, km: KerasModel, counting: str
) -> Resolved | None:
    """DeepCrime's ACH also changes a linear layer's activation; mutreal's ACH leaves linear layers
    to AAL, whose edit is the same (the activation set to the value). None: ACH has a site there,
    or AAL has none either (then ACH's own refusal says why)."""
    try:
        _layer_site(program, request, km, "ACH", counting)
        return None
    except DeepCrimeNameError:
        pass
    try:
        site, slot = _layer_site(program, request, km, "AAL", counting)
    except DeepCrimeNameError as exc:
        if exc.reason == "several_layers":  # AAL's edit is the one, but a loop builds the layer
            raise
        return None
    note = "ACH of a linear layer is made by AAL (the same edit: the activation set to the value)"
    fmt = format_of("ACH")
    return Resolved(
        request, "AAL", site, request.value, km.index, slot, [note, *_value_notes(fmt, request)], counting
    )


def _value_notes(fmt: NameFormat, request: DeepCrimeName) -> list[str]:
    """A name's value outside the catalogue's list of DeepCrime's values (another release's, or a
    study's own: ``variance_scaling``, ``cosine_similarity``) is written as named, and said so."""
    spec = fmt.spec.param
    if spec is None or spec.type != "str" or request.value in spec.values:
        return []
    return [f"{request.value} is not in the {spec.name} list of DeepCrime's last release; written as named"]


def make_mutant(
    program: Program,
    request: DeepCrimeName | str,
    *,
    model: int | None = None,
    seed: int = 0,
    counting: str = "config",
) -> tuple[Mutant, Resolved]:
    """The mutant a name asks for, and how the name was resolved.

    A categorical name value outside mutreal's list of DeepCrime's values (``variance_scaling``,
    ``cosine_similarity``: lists of other DeepCrime releases) is written as named. Raises
    :class:`DeepCrimeNameError` when the operator refuses the value or the mutant is equivalent."""
    resolved = resolve(program, request, model=model, counting=counting)
    op = registry.get(resolved.operator)
    name = resolved.request.name
    opts = {"seed": seed} if "seed" in op.options else {}
    written, note = _runnable_loss(program, resolved.operator, resolved.value)
    resolved.notes += [note] if note else []
    original = resolved.site.original
    if resolved.value is not None and original is not None and _same_value(resolved.value, original):
        raise DeepCrimeNameError(
            name,
            "equivalent",
            f"{name!r}: {resolved.site.element} already is {resolved.site.old} in {program.path}",
        )
    try:
        edit = op.apply(program, resolved.site, written, any_value=True, **opts)
        mutant = apply_edits(program, [edit], seed=seed)
    except MutationError as exc:
        raise DeepCrimeNameError(name, "bad_value", f"{name!r}: {exc}") from None
    why = equivalence(program, mutant)
    if why is not None:
        raise DeepCrimeNameError(
            name, "equivalent", f"{name!r}: the mutant is equivalent to the original: {why}"
        )
    return mutant, resolved


def _runnable_loss(program: Program, operator: str, value: Any) -> tuple[Any, str | None]:
    """The loss name to write for DeepCrime's ``value``: Keras 3 refuses some of DeepCrime's names
    (``'logcosh'`` is ``'log_cosh'``, ``'kullback_leibler_divergence'`` ``'kl_divergence'``), and a
    ``tf.keras`` program of TensorFlow 2 runs on Keras 3 here (``mutreal run``'s framework choice)
    while LCH renames only for a Keras 3 program: DeepCrime's mutant, which ran on Keras 2, must not
    become a stillborn one (DeepLocalize-GH gol_nn). The note says when the name was changed."""
    from mutreal.mutation.operators.common import KERAS3_NAMES

    new = KERAS3_NAMES["losses"].get(value) if operator == "LCH" and isinstance(value, str) else None
    if new is None or program.era == "keras3":
        return value, None
    from mutreal.compat.framework_choice import prepare_runtime

    if prepare_runtime(program.text, "auto").framework != "keras3":
        return value, None
    return new, f"{value} is {new!r} on Keras 3, which this program runs on: written so"


def _same_value(a: Any, b: Any) -> bool:
    try:
        return float(a) == float(b)
    except (TypeError, ValueError):
        return str(a).strip("'\"").lower() == str(b).strip("'\"").lower()


# ---------------------------------------------------------------------------------------------------
# From a mutant back to its name
# ---------------------------------------------------------------------------------------------------


def name_of_site(
    program: Program,
    operator: str,
    site: int,
    value: Any = None,
    *,
    model: int | None = None,
    counting: str = "config",
) -> str:
    """DeepCrime's name of the first-order mutant of ``operator`` at ``site`` with ``value``."""
    fmt = format_of(operator)
    layer = None
    if fmt.has_layer:
        the_site = registry.get(operator).sites(program)[site]
        km = _target_model(program, model, f"{operator} site {site}")
        slots = deepcrime_layers(program, km, counting)
        group = program.layer_groups_by_call.get(the_site.anchor) if the_site.anchor is not None else None
        raws = {li for m, li, _ in group.instances if m == km.index} if group else set()
        found = [s for s in slots if s.raw in raws]
        if not found:
            raise ValueError(f"{operator} site {site} is not a layer of model[{km.index}]")
        layer = found[0].index
    return format_name(operator, value if fmt.has_value else None, layer)


def name_from_provenance(program: Program, provenance: Mapping[str, Any]) -> str:
    """DeepCrime's name of a first-order mutant from its provenance record (``<mutant>.json``)
    and its original program."""
    if int(provenance.get("order", 1)) != 1:
        raise ValueError("DeepCrime names only first-order mutants")
    counting = (provenance.get("deepcrime") or {}).get("counting", "config")
    if int(provenance["site"]) < 0:  # a site outside the operator's numbered ones: named by its element
        return _name_at_element(program, provenance, counting)
    return name_of_site(
        program, provenance["operator"], int(provenance["site"]), provenance.get("value"), counting=counting
    )


_LAYER_ELEMENT = re.compile(r"model\[(?P<model>\d+)\]\.layer\[(?P<layer>\d+)\]")


def _name_at_element(program: Program, provenance: Mapping[str, Any], counting: str) -> str:
    """The name of a layer mutant whose site the operator does not number (the linear layer before
    an ``Activation`` layer, :func:`_site_before_activation_layer`): its layer from the element path."""
    operator, element = str(provenance["operator"]), str(provenance.get("element") or "")
    match = _LAYER_ELEMENT.match(element)
    if match is None or not format_of(operator).has_layer:
        raise ValueError(f"{operator} mutant at {element!r}: no layer to name")
    model, raw = int(match["model"]), int(match["layer"])
    km = _target_model(program, model, f"{operator} at {element}")
    found = [s.index for s in deepcrime_layers(program, km, counting) if s.raw == raw]
    if not found:
        raise ValueError(f"{element} is not a layer of model[{model}] DeepCrime counts")
    fmt = format_of(operator)
    return format_name(operator, provenance.get("value") if fmt.has_value else None, found[0])


# ---------------------------------------------------------------------------------------------------
# Writing the mutants of names (mutreal mutate --deepcrime-name)
# ---------------------------------------------------------------------------------------------------


@dataclass
class NameReport:
    """What :func:`mutate_names` wrote and which names could not be made (with why)."""

    written: list[dict[str, Any]] = field(default_factory=list)
    failures: list[DeepCrimeNameError] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        return {"written": self.written, "failures": [f.to_dict() for f in self.failures]}


def mutate_names(
    program: Program,
    names: Iterable[str],
    out_dir: str,
    *,
    seed: int = 0,
    model: int | None = None,
    counting: str = "config",
    on_written: Any = None,
) -> NameReport:
    """Write the mutant of each name into ``out_dir`` (mutreal's file name, provenance with a
    ``deepcrime`` record of the name); a name that cannot be made is reported, the others go on."""
    report = NameReport()
    for name in names:
        try:
            mutant, resolved = make_mutant(program, name, model=model, seed=seed, counting=counting)
        except DeepCrimeNameError as exc:
            report.failures.append(exc)
            continue
        prov = mutant.provenance.to_dict()
        prov["deepcrime"] = resolved.to_dict()
        py, js = write_program_files(out_dir, mutant.name, mutant.code, prov, encoding=mutant.encoding)
        fields = ("operator", "site", "element", "old", "new", "value")
        report.written.append(
            {"name": name, "canonical": resolved.request.canonical, "mutant": py, "provenance": js}
            | {k: prov[k] for k in fields}
        )
        if on_written is not None:
            on_written(py)
    return report
