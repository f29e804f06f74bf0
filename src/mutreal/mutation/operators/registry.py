"""The operator registry: every operator registered under the entry-point group ``mutreal.mutation.operators``.

Built-in operators are registered in mutreal's own ``pyproject.toml`` exactly as a plugin package
would register its own (``[project.entry-points."mutreal.mutation.operators"]``, ``ID = "module:Class"``),
so a plugin's operator appears in ``mutate --list``, ``hom-generate`` and ``validate-operators``
with no change to mutreal. An entry point may name an :class:`~mutreal.mutation.operators.base.Operator`
subclass or instance. Should the installed metadata lag behind the source (an editable install
made before an operator was added), the built-in table below fills the gap.
"""

from __future__ import annotations

import importlib
import sys
from importlib import metadata

from mutreal.mutation.operators.base import Operator

GROUP = "mutreal.mutation.operators"
#: the group's name before the operators moved into ``mutreal.mutation`` (plugins written for it
#: still load; a plugin under both names counts once)
LEGACY_GROUP = "mutreal.operators"

#: the built-in operators (the same table as pyproject's entry points)
BUILTINS: dict[str, str] = {
    "TCL": "mutreal.mutation.operators.training_data:ChangeLabels",
    "TRD": "mutreal.mutation.operators.training_data:RemoveTrainingData",
    "TUD": "mutreal.mutation.operators.training_data:UnbalanceTrainingData",
    "TAN": "mutreal.mutation.operators.training_data:AddNoise",
    "TCO": "mutreal.mutation.operators.training_data:OverlapClasses",
    "HBS": "mutreal.mutation.operators.hyperparameters:ChangeBatchSize",
    "HLR": "mutreal.mutation.operators.hyperparameters:ChangeLearningRate",
    "HNE": "mutreal.mutation.operators.hyperparameters:ChangeEpochs",
    "HDB": "mutreal.mutation.operators.hyperparameters:DisableBatching",
    "ACH": "mutreal.mutation.operators.activation:ChangeActivation",
    "ARM": "mutreal.mutation.operators.activation:RemoveActivation",
    "AAL": "mutreal.mutation.operators.activation:AddActivation",
    "RAW": "mutreal.mutation.operators.regularisation:AddWeightsRegularisation",
    "RCW": "mutreal.mutation.operators.regularisation:ChangeWeightsRegularisation",
    "RRW": "mutreal.mutation.operators.regularisation:RemoveWeightsRegularisation",
    "RCD": "mutreal.mutation.operators.regularisation:ChangeDropoutRate",
    "RCP": "mutreal.mutation.operators.regularisation:ChangePatience",
    "WCI": "mutreal.mutation.operators.weights:ChangeWeightsInitialisation",
    "WAB": "mutreal.mutation.operators.weights:AddBias",
    "WRB": "mutreal.mutation.operators.weights:RemoveBias",
    "LCH": "mutreal.mutation.operators.loss_optimiser:ChangeLoss",
    "OCH": "mutreal.mutation.operators.loss_optimiser:ChangeOptimiser",
    "OCG": "mutreal.mutation.operators.loss_optimiser:ChangeGradientClipping",
    "VRM": "mutreal.mutation.operators.validation:RemoveValidationSet",
}

_cache: dict[str, Operator] | None = None


def _instantiate(obj: object, name: str) -> Operator:
    if isinstance(obj, type) and issubclass(obj, Operator):
        obj = obj()
    if not isinstance(obj, Operator):
        raise TypeError(f"entry point {name!r} of {GROUP} is not a mutreal Operator: {obj!r}")
    return obj


def _load_target(target: str) -> object:
    module, _, attr = target.partition(":")
    return getattr(importlib.import_module(module), attr)


def load() -> dict[str, Operator]:
    """All registered operators by id: built-ins in catalogue order, then plugins (entry-point order)."""
    ops: dict[str, Operator] = {}
    entry_points = [*metadata.entry_points(group=GROUP), *metadata.entry_points(group=LEGACY_GROUP)]
    for ep in entry_points:
        try:
            op = _instantiate(ep.load(), ep.name)
        except Exception as exc:  # one broken plugin must not hide the others
            print(f"mutreal: operator plugin {ep.name!r} failed to load: {exc}", file=sys.stderr)
            continue
        ops.setdefault(op.id or ep.name, op)
    for oid, target in BUILTINS.items():
        if oid not in ops:
            ops[oid] = _instantiate(_load_target(target), oid)
    # built-ins in the catalogue's order, then plugins in entry-point order
    order = {oid: i for i, oid in enumerate(BUILTINS)}
    return dict(sorted(ops.items(), key=lambda kv: order.get(kv[0], len(order))))


def operators() -> dict[str, Operator]:
    """The registered operators (cached; :func:`reload` re-reads the entry points)."""
    global _cache
    if _cache is None:
        _cache = load()
    return _cache


def reload() -> dict[str, Operator]:
    global _cache
    _cache = None
    return operators()


def ids() -> list[str]:
    return list(operators())


def get(op_id: str) -> Operator:
    """The operator registered as ``op_id`` (case-insensitive); KeyError with the known ids."""
    ops = operators()
    key = op_id.upper() if op_id.upper() in ops else op_id
    if key not in ops:
        raise KeyError(f"unknown operator {op_id!r}; known: {', '.join(ops)}")
    return ops[key]
