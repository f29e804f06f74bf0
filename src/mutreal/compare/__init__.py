"""Semantic diff of two program models -> fault components, after the study's noise rules.

The study (section 4.2.1) read buggy/fixed diffs by hand and ignored what does not change the model,
its hyperparameters or its training. Each such equivalence is a :class:`~mutreal.compare.noise.NoiseRule`
in :data:`NOISE_RULES`, registered by the code that applies it; each code-boundary decision of
``taxonomy/decisions.csv`` is a :class:`~mutreal.decisions.DecisionId` cited by the function
that applies it. The comparison runs one pass per part of a program (:mod:`.layers`, :mod:`.compile`,
:mod:`.fit`, :mod:`.training_data`, :mod:`.data`) in the order :data:`~mutreal.compare.pipeline.PASSES`
lists, over an explicit :class:`~mutreal.compare.context.CompareContext`.
"""

from __future__ import annotations

from mutreal.compare.alignment import align_layers
from mutreal.compare.components import FaultComponent
from mutreal.compare.kinds import ComponentKind
from mutreal.compare.noise import NOISE_RULES, NoiseRule
from mutreal.compare.pipeline import PASSES, diff_models
from mutreal.compare.source_facts import HyperVariable, RuntimeCall
from mutreal.decisions import APPLIED_BY, DecisionId

__all__ = [
    "APPLIED_BY",
    "NOISE_RULES",
    "PASSES",
    "ComponentKind",
    "DecisionId",
    "FaultComponent",
    "HyperVariable",
    "NoiseRule",
    "RuntimeCall",
    "align_layers",
    "diff_models",
]
