"""Kill, reproduction and similarity statistics over training runs (pure functions over arrays).

Every function here takes plain sequences of numbers or booleans and returns a dataclass with
``to_dict()`` / ``from_dict()``; nothing here trains, reads files or imports TensorFlow. The
commands (``stats``, ``reproduce``, ``kill``, ``compare``) and :mod:`mutreal.analysis` build on it.

Modules, one job each:

- :mod:`.effect` -- descriptive summaries, Cohen's d (pooled sd), effect-size labels;
- :mod:`.two_groups` -- GLM / Mann-Whitney U / paired Wilcoxon comparison of two groups of runs,
  power, per-seed stability, DeepCrime's kill rule;
- :mod:`.fisher` -- the monotone per-input Fisher formulation of killing (Kim et al. 2025);
- :mod:`.multiple` -- Holm's correction across many mutants;
- :mod:`.reproduction` -- the realism study's reproduction rule (crash / performance symptom);
- :mod:`.killing_probability` -- per-input killing probability with Wilson intervals, coupling
  strength and detectability IoU (Ahmed et al.);
- :mod:`.sequential` -- the optional sequential (``--adaptive``) stopping rule.
"""

from __future__ import annotations

from mutreal.stats.effect import Summary, cohen_d, effect_label, pooled_sd, summarise
from mutreal.stats.fisher import FisherKill, fisher_kill, fisher_kill_p_values
from mutreal.stats.killing_probability import (
    KillingProbabilities,
    Similarity,
    counted_on_both,
    coupling_strength,
    detectability_iou,
    killing_probabilities,
    similarity,
    wilson_interval,
)
from mutreal.stats.multiple import HolmResult, holm
from mutreal.stats.reproduction import ReproductionVerdict, reproduction_verdict
from mutreal.stats.sequential import Look, SequentialDecision, sequential_decision
from mutreal.stats.two_groups import (
    TESTS,
    GroupComparison,
    KillVerdict,
    compare_groups,
    deepcrime_kill,
    minimum_detectable_effect,
    power_for,
)

__all__ = [
    "TESTS",
    "FisherKill",
    "GroupComparison",
    "HolmResult",
    "KillVerdict",
    "KillingProbabilities",
    "Look",
    "ReproductionVerdict",
    "SequentialDecision",
    "Similarity",
    "Summary",
    "cohen_d",
    "compare_groups",
    "counted_on_both",
    "coupling_strength",
    "deepcrime_kill",
    "detectability_iou",
    "effect_label",
    "fisher_kill",
    "fisher_kill_p_values",
    "holm",
    "killing_probabilities",
    "minimum_detectable_effect",
    "pooled_sd",
    "power_for",
    "reproduction_verdict",
    "sequential_decision",
    "similarity",
    "summarise",
    "wilson_interval",
]
