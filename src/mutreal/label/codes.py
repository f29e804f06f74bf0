"""Fault component -> fault code, taxonomy leaf or category, and the DeepCrime operator that could inject it.

The study (section 4.2.3-4.2.4) named each changed element with a three-letter code, mapped the code
to the taxonomy of real DL faults, and decided whether DeepCrime could have injected the change.
Here each component *kind* (what sort of element changed, from :mod:`mutreal.compare`) maps to a code;
the direction of the change picks the most specific DeepCrime operator (ARM/AAL/ACH, RAW/RRW/RCW,
WAB/WRB, HBS/HDB...), always as the operator that turns the first program into the second (the
buggy into the fixed one: a fix removing a regulariser is code RAW, operator RRW). ``simulable`` follows the study's reading (an operator changes this kind of
element, whatever the direction); ``deepcrime_strict`` is DeepCrime's own, narrower reading (it only
lowers learning rate, epochs and patience). A learning rate set over a string optimizer names HLR
but is neither simulable nor strict (DeepCrime's HLR fails there; the study flagged it N). A call of
:mod:`mutreal.runtime.training_data` (a training-data mutant) is labelled by its function.
"""

from __future__ import annotations

import re
from dataclasses import asdict, dataclass

from mutreal.compare.components import FaultComponent
from mutreal.compare.kinds import ComponentKind as K
from mutreal.decisions import DecisionId, applies
from mutreal.label.taxonomy import load_taxonomy
from mutreal.operator_catalogue import activation_operator, load_catalogue, runtime_function_operators

KERAS_ONLY_REASON = "none: DeepCrime mutates Keras programs only"
STRING_OPTIMIZER_REASON = (
    "the first program names its optimizer as a string ('adam'); DeepCrime's own HLR can only set the "
    "learning rate of an optimizer object (mutreal's HLR writes one)"
)


@dataclass(frozen=True)
class KindRule:
    """How one kind of changed element is labelled."""

    code: str
    operator: str | None  # DeepCrime operator for a change of this kind (refined by direction)
    reason: str | None = None  # why no operator applies, when operator is None


def _simulated(operator: str) -> KindRule:
    """A kind an operator changes: its code is the operator's in the catalogue (``fault_code`` of
    ``operators/deepcrime.yaml``, the one code-to-operator map), so the two never drift apart."""
    return KindRule(load_catalogue()[operator].code, operator)


#: component kind -> code and operator: a row for every kind :mod:`mutreal.compare` emits except
#: ``data.training_data`` (labelled by its runtime function), and for no other
KIND_RULES: dict[K, KindRule] = {
    K.LAYER_ACTIVATION: _simulated("ACH"),
    K.LAYER_MISSING: KindRule("LRM", None, "no DeepCrime operator adds or removes layers"),
    K.LAYER_REDUNDANT: KindRule("LAD", None, "no DeepCrime operator adds or removes layers"),
    K.LAYER_TYPE: KindRule("LWS", None, "no DeepCrime operator changes a layer's type"),
    K.LAYER_UNITS: KindRule("LCN", None, "no DeepCrime operator changes the number of neurons"),
    K.LAYER_KERNEL_SIZE: KindRule("LCF", None, "no DeepCrime operator changes filter sizes"),
    K.LAYER_STRIDES: KindRule("LCF", None, "no DeepCrime operator changes convolution strides"),
    K.LAYER_INPUT_SHAPE: KindRule("LIS", None, "no DeepCrime operator changes input shapes"),
    K.LAYER_OUTPUT_SHAPE: KindRule("LOS", None, "no DeepCrime operator changes output shapes"),
    K.LAYER_PADDING: KindRule("TWP", None, "no DeepCrime operator changes padding"),
    K.LAYER_POOL_SIZE: KindRule("LCP", None, "no DeepCrime operator changes pooling"),
    K.LAYER_RATE: _simulated("RCD"),
    K.LAYER_KERNEL_INITIALIZER: _simulated("WCI"),
    K.LAYER_BIAS_INITIALIZER: KindRule("BCI", None, "no DeepCrime operator changes bias initialisation"),
    K.LAYER_REGULARIZER: _simulated("RCW"),
    K.LAYER_USE_BIAS: _simulated("WAB"),
    K.LAYER_RETURN_SEQUENCES: KindRule("LGR", None, "no DeepCrime operator changes return_sequences"),
    K.LAYER_BN_EPSILON: KindRule("BNE", None, "no DeepCrime operator changes BatchNormalization epsilon"),
    K.LAYER_BN_MOMENTUM: KindRule("BNE", None, "no DeepCrime operator changes BatchNormalization momentum"),
    K.MODEL_ARCHITECTURE: KindRule("MWA", None, "no DeepCrime operator changes a model's architecture"),
    K.COMPILE_LOSS: _simulated("LCH"),
    K.COMPILE_LOSS_CALCULATION: KindRule("LWC", None, "no DeepCrime operator changes a custom loss"),
    K.COMPILE_OPTIMIZER: _simulated("OCH"),
    K.COMPILE_LEARNING_RATE: _simulated("HLR"),
    K.COMPILE_CLIPPING: _simulated("OCG"),
    K.COMPILE_EPSILON: KindRule("HAE", None, "no DeepCrime operator changes the optimiser's epsilon"),
    K.COMPILE_METRIC: KindRule("PMC", None, "no DeepCrime operator changes a performance metric"),
    K.FIT_EPOCHS: _simulated("HNE"),
    K.FIT_BATCH_SIZE: _simulated("HBS"),
    K.FIT_VALIDATION: _simulated("VRM"),
    K.FIT_PATIENCE: _simulated("RCP"),
    K.DATA_PREPROCESS: KindRule("CPP", None, "no DeepCrime operator changes preprocessing"),
    K.DATA_INPUT_FORMAT: KindRule("IWF", None, "no DeepCrime operator changes the input format"),
    K.DATA_RESHAPE: KindRule("IWS", None, "no DeepCrime operator changes the shape of input data"),
    K.DATA_SIZE: _simulated("TRD"),
    K.DATA_SOURCE_FILE: KindRule(
        "TRD", None, "DeepCrime's TRD only drops part of the same data; no operator reads another data file"
    ),
    K.DATA_LABELS: _simulated("TCL"),
    K.TENSOR_SHAPE: KindRule("TWS", None, "no DeepCrime operator changes tensor shapes"),
    K.EVALUATION_STEPS: KindRule("HES", None, "no DeepCrime operator changes the steps of an evaluation"),
    K.SESSION_MEMORY: KindRule("MMR", None, "no DeepCrime operator changes how memory is managed"),
    K.DATA_BATCHING: KindRule("HBI", None, "no DeepCrime operator changes how data is cut into batches"),
    K.MODEL_INITIALISATION: KindRule(
        "MWI", None, "no DeepCrime operator changes how a graph's variables are initialised"
    ),
    K.GRAPH_API: KindRule("APW", None, "no DeepCrime operator changes how TensorFlow's graph API is used"),
    K.CUSTOM_CLASS_API: KindRule("APW", None, "no DeepCrime operator rewrites a custom layer against the framework's API"),
    K.GRAPH_DEPRECATED_API: KindRule(
        "APD", None, "no DeepCrime operator calls a function TensorFlow removed or deprecated"
    ),
    K.GRAPH_VARIABLE_SCOPE: KindRule(
        "VSM", None, "no DeepCrime operator changes the variable scope of a graph's variables"
    ),
}

#: graph code (TensorFlow 1): kinds whose element is a tensor there, not a Keras layer's argument
#: (decision TWS-placeholder: a placeholder's shape, a weight variable's input dimension)
GRAPH_CODES: dict[K, str] = {K.LAYER_INPUT_SHAPE: "TWS"}


@dataclass
class Label:
    """What the study would write for one component."""

    code: str
    taxonomy: str | None
    taxonomy_id: str | None
    category: str | None
    deepcrime: str | None
    simulable: bool
    deepcrime_strict: bool
    reason: str | None

    def to_dict(self) -> dict:
        return asdict(self)

    @classmethod
    def from_dict(cls, data: dict) -> Label:
        return cls(**data)


def _code_for(component: FaultComponent, rule: KindRule) -> str:
    """The code, where the direction of the change picks between two (regularisation, bias)."""
    if component.kind is K.LAYER_REGULARIZER:
        return "RAW" if component.change == "removed" else "RCW"
    if component.kind is K.LAYER_USE_BIAS:
        before = str(component.detail.get("before_value", "true")).lower()
        return "WAB" if before in ("true", "1", "none") else "WRB"
    return rule.code


@applies(DecisionId.RAW_OPERATOR_DIRECTION, DecisionId.WRB_OPERATOR_DIRECTION)
def _operator_for(component: FaultComponent, rule: KindRule) -> str | None:
    """The most specific DeepCrime operator for this change, by its direction (decisions
    RAW-operator-direction, WRB-operator-direction: the operator turns the first program into the
    second, the code keeps the study's meaning)."""
    op = rule.operator
    if op is None:
        return None
    kind, change = component.kind, component.change
    if kind is K.LAYER_ACTIVATION:
        # the buggy program has an activation the fix removes: DeepCrime's ARM, and the reverse AAL
        return activation_operator(component.detail.get("before_activation"), component.detail.get("after_activation"))
    # the operator turns the first program into the second (like ARM/AAL above): a regulariser the
    # second program gains is DeepCrime's RAW, one it loses RRW; a bias it gains WAB, loses WRB
    if kind is K.LAYER_REGULARIZER:
        return {"added": "RAW", "removed": "RRW"}.get(change, "RCW")
    if kind is K.LAYER_USE_BIAS:
        before = str(component.detail.get("before_value", "true")).lower()
        return "WRB" if before in ("true", "1", "none") else "WAB"
    if kind is K.FIT_BATCH_SIZE and component.detail.get("full_batch"):
        return "HDB"
    return op


def _strict(component: FaultComponent, operator: str | None) -> bool:
    """DeepCrime's own reading: HLR/HNE/RCP only lower the value, so the buggy value must be the lower."""
    if operator is None:
        return False
    if operator in ("HLR", "HNE", "RCP"):
        before, after = component.detail.get("before_number"), component.detail.get("after_number")
        return isinstance(before, (int, float)) and isinstance(after, (int, float)) and before < after
    return True


#: function of mutreal.runtime.training_data -> the DeepCrime operator it implements (the catalogue's
#: ``runtime_function``; the operators write the same name into their mutants)
RUNTIME_FUNCTION_OPERATORS: dict[str, str] = runtime_function_operators()


def _label_runtime_call(component: FaultComponent) -> Label:
    """A call of mutreal.runtime.training_data: the operator is the function's; the code and leaf are
    the catalogue's for that operator (TUD is code TRD, TCO code TCL; TAN has no study code and keeps
    its operator id, with the catalogue's leaf)."""
    function = str(component.detail.get("function", ""))
    operator = RUNTIME_FUNCTION_OPERATORS.get(function)
    taxonomy = load_taxonomy()
    if operator is None:
        return Label(
            code="TRD",
            taxonomy=None,
            taxonomy_id=None,
            category=taxonomy.code("TRD").category,
            deepcrime=None,
            simulable=False,
            deepcrime_strict=False,
            reason=f"mutreal.runtime.training_data.{function} is no DeepCrime operator",
        )
    spec = load_catalogue()[operator]
    code = spec.code
    leaf = taxonomy.leaf(spec.taxonomy_leaf_id) if spec.taxonomy_leaf_id else None
    category = (
        taxonomy.code(code).category
        if taxonomy.has_code(code)
        else " > ".join(taxonomy.category_path(leaf.id))
        if leaf
        else None
    )
    return Label(
        code=code,
        taxonomy=leaf.name if leaf else None,
        taxonomy_id=leaf.id if leaf else None,
        category=category,
        deepcrime=operator,
        simulable=True,
        deepcrime_strict=True,
        reason=None,
    )


@applies(DecisionId.HLR_EXPLICIT, DecisionId.TWS_PLACEHOLDER, DecisionId.GRAPH_KERAS_ONLY)
def label_component(component: FaultComponent) -> Label:
    """Label one component (see the module docstring); a kind without a rule is an error (a kind
    added to :class:`~mutreal.compare.kinds.ComponentKind` needs its row in :data:`KIND_RULES`)."""
    if component.kind is K.DATA_TRAINING_DATA:
        return _label_runtime_call(component)
    rule = KIND_RULES.get(component.kind)
    if rule is None:
        raise KeyError(f"no labelling rule for component kind {component.kind!r}")
    taxonomy = load_taxonomy()
    code = _code_for(component, rule)
    if component.detail.get("raw_tensorflow"):
        code = _graph_code(component, code)
    info = taxonomy.code(code)
    facts = {"change": component.change, **{k: str(v) for k, v in component.detail.items() if v is not None}}
    leaf_obj = taxonomy.resolve_leaf(code, **facts)
    leaf_id, leaf = (leaf_obj.id, leaf_obj.name) if leaf_obj is not None else (None, None)
    operator = _operator_for(component, rule)
    reason = rule.reason if operator is None else None
    simulable = operator is not None
    strict = _strict(component, operator)
    if _string_optimizer_learning_rate(component):
        # decision HLR-explicit: mutreal's HLR (and the agreement with its mutants) names the
        # operator; DeepCrime's own HLR fails on a string optimizer and the study flagged it N
        simulable, strict, reason = False, False, STRING_OPTIMIZER_REASON
    if component.detail.get("raw_tensorflow"):
        # decision graph-Keras-only: DeepCrime's operators edit Keras calls; graph code has none
        operator, reason, simulable, strict = None, KERAS_ONLY_REASON, False, False
    return Label(
        code=code,
        taxonomy=leaf,
        taxonomy_id=leaf_id,
        category=info.category,
        deepcrime=operator,
        simulable=simulable,
        deepcrime_strict=strict,
        reason=reason,
    )


#: data steps that only change an array's shape (decision IWS-graph-fed-shape)
_FED_SHAPE_OPS = re.compile(r"^(reshape|expand_dims|squeeze|transpose|swapaxes|moveaxis|ravel|flatten)$")


@applies(DecisionId.ACH_GRAPH_FUNCTION, DecisionId.LWC_GRAPH_EXPRESSION, DecisionId.IWS_GRAPH_FED_SHAPE)
def _graph_code(component: FaultComponent, code: str) -> str:
    """Graph code's own readings (decision TWS-placeholder: a placeholder's shape is a tensor's;
    decision ACH-graph-function: an activation function applied or no longer applied to a tensor
    is a wrong activation, there being no layer to add or remove; decision LWC-graph-expression: a
    loss written out as tensor arithmetic on both sides, rewritten, is a wrong loss calculation;
    decision IWS-graph-fed-shape: a reshape or new axis of the arrays fed to the graph's
    placeholders makes the data agree with the shape the graph declares, a wrong shape of input
    data, not a preprocessing of its values)."""
    if component.kind in GRAPH_CODES:
        return GRAPH_CODES[component.kind]
    if (
        component.kind is K.DATA_PREPROCESS
        and _FED_SHAPE_OPS.match(str(component.detail.get("op", "")))
        and "placeholder" not in f"{component.before} {component.after}"  # decision CPP-label-placeholder
    ):
        return "IWS"  # decision IWS-graph-fed-shape
    if (
        component.kind is K.COMPILE_LOSS
        and component.evidence.get("before_kind") == component.evidence.get("after_kind") == "opaque"
    ):
        return "LWC"  # decision LWC-graph-expression
    if component.kind in (K.LAYER_MISSING, K.LAYER_REDUNDANT) and str(
        component.detail.get("layer_type", "")
    ).startswith("Activation"):
        return "ACH"
    return code


def _string_optimizer_learning_rate(component: FaultComponent) -> bool:
    """A learning rate against an optimizer the first program names as a string ('adam')."""
    return (
        component.kind is K.COMPILE_LEARNING_RATE and component.detail.get("optimizer_spelling") == "string"
    )
