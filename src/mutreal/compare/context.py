"""The explicit state the comparison passes share: both programs, their source facts, and the facts
one pass hands to a later one (named fields, never a scan of earlier passes' components)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from mutreal.compare.components import FaultComponent
from mutreal.compare.kinds import ComponentKind
from mutreal.compare.source_facts import HyperVariable, RuntimeCall
from mutreal.program.model import DataVar, ProgramModel


@dataclass
class CompareContext:
    """Both programs and what the passes learn about them, in the order the passes run.

    ``new_input_shapes`` is written by the models pass (the shapes a changed model input declares,
    as item texts) and read by the data pass (decision LIS-reshape-once). ``budget_kinds`` holds the
    training-budget kinds (:data:`mutreal.program.training_budget.BUDGET`) a pass has already emitted a component
    for: the evaluation pass and the unused-variable pass code a budget change once.
    """

    buggy: ProgramModel
    fixed: ProgramModel
    runtime_calls: tuple[list[RuntimeCall], list[RuntimeCall]] | None = None
    hyper_variables: tuple[dict[str, HyperVariable], dict[str, HyperVariable]] | None = None
    new_input_shapes: list[tuple[str, ...] | None] = field(default_factory=list)
    budget_kinds: set[ComponentKind] = field(default_factory=set)
    #: the compile pass found a learning rate changed: a schedule the rate is computed by is then
    #: that same change (decision HLR-schedule codes it once)
    learning_rate_changed: bool = False

    @property
    def era_b(self) -> str:
        return self.buggy.era

    @property
    def era_f(self) -> str:
        return self.fixed.era

    def training_inputs(self) -> tuple[DataVar | None, DataVar | None]:
        """The ``x_train`` data of each program."""
        return self.buggy.data.get("x_train"), self.fixed.data.get("x_train")


#: a comparison pass: the components it finds, in order
ComparePass = Callable[[CompareContext], list[FaultComponent]]
