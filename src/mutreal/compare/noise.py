"""The study's noise rules as objects: a name, a description and the code that applies the rule.

The study (section 4.2.1) ignored differences that do not change the model, its hyperparameters or
its training. Each such equivalence is one :class:`NoiseRule` in :data:`NOISE_RULES`. A rule the
comparison applies wraps the function that applies it (:func:`noise_rule` registers it where it is
defined, in the pass that uses it), so the registry *is* the implementation; a rule that holds
because the program model never records the element (prints, plots...) names the place that leaves
it out in ``held_by`` instead.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from mutreal.decisions import DecisionId, applies
from mutreal.program.training_budget import BUDGET

if TYPE_CHECKING:
    from mutreal.compare.context import CompareContext


@dataclass(frozen=True)
class NoiseRule:
    """One equivalence the study applied by hand: a difference of this sort is not a fault.

    ``apply`` is the function the comparison calls where the rule applies (a predicate, or for
    ``completed_snippet`` the trimming of an alignment); calling the rule calls it. ``held_by``
    says where a rule holds without code of its own (the model has no element for it).
    """

    name: str
    description: str
    apply: Callable[..., Any] | None = None
    held_by: str | None = None

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        if self.apply is None:
            raise TypeError(f"noise rule {self.name} holds by construction ({self.held_by}); nothing to call")
        return self.apply(*args, **kwargs)


#: rule name -> rule; filled where each rule is defined (import :mod:`mutreal.compare` for all of them)
NOISE_RULES: dict[str, NoiseRule] = {}


def _register(rule: NoiseRule) -> NoiseRule:
    if rule.name in NOISE_RULES and NOISE_RULES[rule.name] != rule:
        raise ValueError(f"noise rule {rule.name} registered twice")
    NOISE_RULES[rule.name] = rule
    return rule


def noise_rule(name: str, description: str) -> Callable[[Callable[..., Any]], NoiseRule]:
    """Decorator: the decorated function applies the rule ``name``; it is replaced by the rule."""

    def register(function: Callable[..., Any]) -> NoiseRule:
        return _register(NoiseRule(name, description, apply=function))

    return register


def held_by_construction(name: str, description: str, held_by: str) -> NoiseRule:
    """A rule with no code of its own: ``held_by`` names what leaves the element out."""
    return _register(NoiseRule(name, description, held_by=held_by))


PRINTS = held_by_construction(
    "prints",
    "print statements and calls are debugging output, not part of the model",
    "mutreal.extract records no print call in the program model",
)
LOGGING = held_by_construction(
    "logging",
    "logging calls and logger set-up only report",
    "mutreal.extract records no logging call in the program model",
)
PLOTTING = held_by_construction(
    "plotting",
    "matplotlib/seaborn plots and summaries only show results",
    "mutreal.extract records no plotting call in the program model",
)
VERBOSITY = held_by_construction(
    "verbosity",
    "verbose= of fit/evaluate/predict and model.summary() only change output",
    f"mutreal.compare.fit compares {', '.join(BUDGET)}, the validation set and training callbacks only",
)
REORDERED_KWARGS = held_by_construction(
    "reordered_kwargs",
    "keyword arguments in another order are the same call",
    "the program model keys call arguments by their canonical name, not their position",
)
RESULT_FILE_PATHS = held_by_construction(
    "result_file_paths",
    "where results, models, logs or plots are written does not matter",
    "mutreal.extract records no save/write call in the program model",
)
METRICS = held_by_construction(  # the one statement of it (once also a decision row, metrics-noise)
    "metrics",
    "metrics= of compile only report; training does not read them",
    "mutreal.compare.compile compares the loss and the optimizer only",
)


@noise_rule(
    "synthetic_data_source",
    "a benchmark replacing the posted data loading with random or generated arrays of the "
    "same role is set-up, not a fault; the preprocessing applied to the data still counts",
)
@applies(DecisionId.DATA_SOURCE_NOISE, DecisionId.VALIDATION_WITH_DATA_SWAP)
def data_source_swapped(ctx: CompareContext, by: str) -> bool:
    """Whether the programs' training inputs come from different sources, so that what goes with
    the data (its validation set, its size, how its images are read) changed with the set-up.

    ``by`` says what must agree: ``"source"`` the whole source (with both programs lacking training
    inputs the same), ``"loader"`` the loading call (not an opaque one), ``"reader"`` the image reader.
    """
    bv, fv = ctx.training_inputs()
    if bv is None or fv is None or bv.source is None or fv.source is None:
        return not (bv is None and fv is None) if by == "source" else True
    b, f = bv.source, fv.source
    if by == "source":
        return b.key() != f.key()
    if by == "loader":
        return (b.kind, b.name) != (f.kind, f.name) or b.kind == "opaque"
    if by == "reader":
        return b.reader != f.reader or not b.reader
    raise ValueError(f"unknown data source comparison {by!r}")
