"""The code-boundary decisions (``taxonomy/decisions.csv``): their ids, cited where code applies them, and the table read.

A decision draws the line between neighbouring fault codes (or between a code and noise); its row
gives the reason and its example programs (``taxonomy/decisions/<ID>/``) pin it in a test. Code that
applies a decision says so with :func:`applies` on the function that applies it, so the table and
the code can be checked against each other: a row no code applies, or an id no row explains, fails
``tests/classify/test_decisions.py``.
"""

from __future__ import annotations

import csv
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TypeVar

from mutreal.resources import data_dir
from mutreal.serialise import Record, TextEnum


class DecisionId(TextEnum):
    """One row of the decision table (the value is the row's id)."""

    CPP_MISSING = "CPP-missing"
    CPP_RESHAPE = "CPP-reshape"
    CPP_LABELS = "CPP-labels"
    LIS_CHANGED = "LIS-changed"
    LIS_ONE_SIDE = "LIS-one-side"
    LRM_DROPOUT = "LRM-dropout"
    LRM_FLATTEN = "LRM-flatten"
    LAD_REMOVED = "LAD-removed"
    LWS_SWAP = "LWS-swap"
    LWS_UNRELATED = "LWS-unrelated"
    MWA_REBUILT = "MWA-rebuilt"
    ACH_SPLIT_LAYER = "ACH-split-layer"
    ACH_MISSING_SOFTMAX = "ACH-missing-softmax"
    ACH_CHANGED = "ACH-changed"
    OCH_CLASS = "OCH-class"
    HLR_CHANGED = "HLR-changed"
    LCH_CHANGED = "LCH-changed"
    LCH_USER_LOSS_OBJECT = "LCH-user-loss-object"
    HNE_CHANGED = "HNE-changed"
    HBS_CHANGED = "HBS-changed"
    LCN_UNITS = "LCN-units"
    LCF_KERNEL = "LCF-kernel"
    RCD_RATE = "RCD-rate"
    BNE_EPSILON = "BNE-epsilon"
    WCI_INIT = "WCI-init"
    WCI_SET_WEIGHTS = "WCI-set-weights"
    LGR_RETURN_SEQUENCES = "LGR-return-sequences"
    RCP_PATIENCE = "RCP-patience"
    VALIDATION_ADDED_NOISE = "validation-added-noise"
    VRM_REMOVED = "VRM-removed"
    VRM_ADDED_MONITORED = "VRM-added-monitored"
    VALIDATION_WITH_DATA_SWAP = "validation-with-data-swap"
    DATA_SOURCE_NOISE = "data-source-noise"
    HLR_EXPLICIT = "HLR-explicit"
    OCH_SWALLOWS_HLR = "OCH-swallows-HLR"
    CPP_ONCE = "CPP-once"
    TWP_ONCE = "TWP-once"
    COMPLETED_SNIPPET = "completed-snippet"
    COMPLETED_SNIPPET_VALUES = "completed-snippet-values"
    LAD_SOFTMAX_LAYER = "LAD-softmax-layer"
    ACH_LAYER_TO_ARGUMENT = "ACH-layer-to-argument"
    IWF_FORMAT = "IWF-format"
    CPP_ONE_HOT = "CPP-one-hot"
    CPP_LABEL_ENCODING = "CPP-label-encoding"
    CPP_ONE_SIDE_ROLE = "CPP-one-side-role"
    RAW_OPERATOR_DIRECTION = "RAW-operator-direction"
    WRB_OPERATOR_DIRECTION = "WRB-operator-direction"
    COMPLETED_HEAD = "completed-head"
    IDEMPOTENT_ACTIVATION_LAYER = "idempotent-activation-layer"
    LAD_REPEATED_TANH = "LAD-repeated-tanh"
    MWA_APPENDED = "MWA-appended"
    TCO_RUNTIME_CALL = "TCO-runtime-call"
    TAN_RUNTIME_CALL = "TAN-runtime-call"
    LCN_EMBEDDING_SIZE = "LCN-embedding-size"
    LIS_RESHAPE_ONCE = "LIS-reshape-once"
    LIS_EXPAND_DIMS_ONCE = "LIS-expand-dims-once"
    LIS_RESHAPE_ELSEWHERE = "LIS-reshape-elsewhere"
    MWA_UNSEEN_MODEL = "MWA-unseen-model"
    MWA_UNSEEN_MODEL_NO_USE = "MWA-unseen-model-no-use"
    HBS_EVALUATE = "HBS-evaluate"
    HBS_EVALUATE_CALL_REPLACED = "HBS-evaluate-call-replaced"
    HNE_UNUSED_VARIABLE = "HNE-unused-variable"
    HNE_VARIABLE_USED_ONCE = "HNE-variable-used-once"
    HBS_EVALUATE_WITH_FIT = "HBS-evaluate-with-fit"
    CPP_UNTRAINED_SIDE = "CPP-untrained-side"
    CPP_UNTRAINED_SIDE_ADDED = "CPP-untrained-side-added"
    CPP_BATCH_AXIS = "CPP-batch-axis"
    IWS_COLOR_MODE = "IWS-color-mode"
    RCD_RECURRENT_DROPOUT = "RCD-recurrent-dropout"
    LWC_CUSTOM_LOSS = "LWC-custom-loss"
    CPP_UNTRAINED_SIDE_SWAPPED = "CPP-untrained-side-swapped"
    HLR_AFTER_COMPILE = "HLR-after-compile"
    CPP_SINGLE_ROW_BATCH = "CPP-single-row-batch"
    LIS_SAMPLE_COUNT = "LIS-sample-count"
    CPP_TEST_STEP_CHANGED = "CPP-test-step-changed"
    HNE_LOOP_PASSES = "HNE-loop-passes"
    ACH_VS_LAYER = "ACH-vs-layer"
    CPP_STEPS = "CPP-steps"
    LIS_MODEL_INPUT = "LIS-model-input"
    TRD_SUBSET = "TRD-subset"
    TWS_TENSOR_OP = "TWS-tensor-op"
    TWS_PLACEHOLDER = "TWS-placeholder"
    CPP_LABEL_PLACEHOLDER = "CPP-label-placeholder"
    HNE_GRAPH_EPOCHS = "HNE-graph-epochs"
    GRAPH_KERAS_ONLY = "graph-Keras-only"
    ACH_GRAPH_FUNCTION = "ACH-graph-function"
    LWC_GRAPH_EXPRESSION = "LWC-graph-expression"
    TRD_DATA_FILE = "TRD-data-file"
    TCL_LABEL_REMAP = "TCL-label-remap"
    HBS_FULL_BATCH = "HBS-full-batch"
    CPP_SWAPPED_LABELS = "CPP-swapped-labels"
    CPP_SWAPPED_SOURCE_STEPS = "CPP-swapped-source-steps"
    DATA_SPLIT_NOISE = "data-split-noise"
    CPP_COMPLETION_DATA = "CPP-completion-data"
    RCP_EARLY_STOPPING = "RCP-early-stopping"
    MWA_MERGED_MODELS = "MWA-merged-models"
    CPP_COMPLETION_LABELS = "CPP-completion-labels"
    LIS_FRONT_LAYER = "LIS-front-layer"
    HLR_WITH_OCH = "HLR-with-OCH"
    MWA_REPLACED_LAYERS = "MWA-replaced-layers"
    HLR_SCHEDULE = "HLR-schedule"
    CPP_ROW_MAP = "CPP-row-map"
    PMC_GRAPH_METRIC = "PMC-graph-metric"
    LOST_BLOCK_NOISE = "lost-block-noise"
    BEST_CODE_STATEMENT = "best-code-statement"
    BEST_CODE_THROUGH_NAMES = "best-code-through-names"
    ONE_INCONSISTENCY = "one-inconsistency-one-component"
    IWS_GRAPH_FED_SHAPE = "IWS-graph-fed-shape"
    MMR_SESSION_MEMORY = "MMR-session-memory"
    HBI_BATCH_BOUNDS = "HBI-batch-bounds"
    REGROUPED_BLOCK_NOISE = "regrouped-block-noise"
    REWRITTEN_PROGRAM = "rewritten-program"
    CUT_PROGRAM = "cut-program"
    RESTORED_MODEL_NOISE = "restored-model-noise"
    APW_GRAPH_API = "APW-graph-api"
    APD_GRAPH_REMOVED_API = "APD-graph-removed-api"
    IWF_GRAPH_DTYPE = "IWF-graph-dtype"
    APW_GRAPH_FUNCTION = "APW-graph-function"
    LWC_GRAPH_UPDATE = "LWC-graph-update"
    VSM_GRAPH_SCOPE = "VSM-graph-scope"
    DEFINED_ELEMENT_BODY = "defined-element-body"
    CUSTOM_LAYER_API = "custom-layer-api"
    MODEL_BUILT_BY_BLOCK = "model-built-by-block"
    RESULT_ASSIGNED_IN_CALLEE = "result-assigned-in-callee"
    PLACEHOLDER_MADE_ARGUMENT = "placeholder-made-argument"
    ARGUMENT_MADE_ATTRIBUTE = "argument-made-attribute"
    VALUE_ORIGINS = "value-origins"
    REWRITTEN_BINDING = "rewritten-binding"
    UNWRAPPED_TRAINING_LOOP = "unwrapped-training-loop"
    SELF_INITIALISING_SESSION = "self-initialising-session"
    GRAPH_BUILT_IN_LOOP = "graph-built-in-loop"
    SHAPE_WRITTEN = "shape-written"
    SPLIT_TWIN = "split-twin"
    LABEL_ENCODER_MAP = "label-encoder-map"


#: decision -> qualified names of the functions that apply it (filled by :func:`applies` on import)
APPLIED_BY: dict[DecisionId, list[str]] = {}

F = TypeVar("F", bound=Callable)


def applies(*decisions: DecisionId) -> Callable[[F], F]:
    """Decorator: the decorated function applies these decisions (the function is returned unchanged)."""

    def cite(function: F) -> F:
        name = f"{function.__module__}.{function.__qualname__}"
        for decision in decisions:
            APPLIED_BY.setdefault(DecisionId(decision), []).append(name)
        return function

    return cite


# The table itself, read: what each row says and the example programs that pin it. Below compare
# and label alike, which both read it (compare's confidence levels, label's tests).


@dataclass(frozen=True)
class Decision(Record):
    """A row of ``taxonomy/decisions.csv`` (owned by classify): where a line between neighbouring
    codes is drawn, with the buggy/fixed example programs that pin it
    (``taxonomy/decisions/<id>/buggy.py`` and ``fixed.py``, plain files that read and diff as code)."""

    id: str
    boundary: str
    situation: str
    codes: tuple[str, ...]
    deepcrime: tuple[str, ...]
    simulable: tuple[bool, ...]
    rationale: str
    buggy: str
    fixed: str


def _comma_list(text: str | None) -> tuple[str, ...]:
    return tuple(p.strip() for p in (text or "").split(",") if p.strip())


def decision_example(folder: Path, decision_id: str, side: str) -> str:
    """The ``buggy`` or ``fixed`` example program of a decision; a missing file is a clear error."""
    path = folder / "decisions" / decision_id / f"{side}.py"
    try:
        return path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise ValueError(f"decisions.csv {decision_id}: its {side} example {path} is missing") from None


def load_decisions(folder: Path | None = None) -> list[Decision]:
    """The code-boundary decision table, typed, with each row's example programs read from
    ``decisions/<id>/``."""
    folder = folder or data_dir("taxonomy")
    with (folder / "decisions.csv").open(encoding="utf-8", newline="") as fh:
        return [
            Decision(
                id=row["id"],
                boundary=row["boundary"],
                situation=row["situation"],
                codes=_comma_list(row["codes"]),
                deepcrime=_comma_list(row["deepcrime"]),
                simulable=tuple(f.upper() == "Y" for f in _comma_list(row["simulable"])),
                rationale=row["rationale"],
                buggy=decision_example(folder, row["id"], "buggy"),
                fixed=decision_example(folder, row["id"], "fixed"),
            )
            for row in csv.DictReader(fh)
        ]
