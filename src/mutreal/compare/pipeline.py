"""The comparison: every pass, in an explicit order, over one :class:`CompareContext`.

The order is part of the output (components are listed in it) and of the rules: the models pass
records the new input shapes the data pass reads, the fit and evaluation passes the budget kinds
the later passes read (named fields of the context, see :mod:`mutreal.compare.context`).
"""

from __future__ import annotations

from mutreal.compare.compile import (
    compare_compiles,
    compare_graph_metrics,
    compare_learning_rate_schedules,
    compare_loss_functions,
)
from mutreal.compare.components import FaultComponent
from mutreal.compare.context import CompareContext, ComparePass
from mutreal.compare.data import compare_data
from mutreal.compare.data_sources import compare_color_mode, compare_data_files, compare_training_subset
from mutreal.compare.fit import compare_evaluations, compare_fits, compare_unused_hyperparameters
from mutreal.compare.layers import compare_models, compare_unseen_model
from mutreal.compare.noise import noise_rule
from mutreal.compare.source_facts import HyperVariable, RuntimeCall
from mutreal.compare.tensors import compare_tensor_ops
from mutreal.compare.training_data import compare_runtime_calls
from mutreal.program.model import ProgramModel

#: the passes in the order they run (and their components are listed)
PASSES: tuple[ComparePass, ...] = (
    compare_models,  # writes ctx.new_input_shapes
    compare_unseen_model,
    compare_compiles,
    compare_fits,  # writes ctx.budget_kinds
    compare_evaluations,  # reads and writes ctx.budget_kinds
    compare_loss_functions,
    compare_learning_rate_schedules,
    compare_runtime_calls,
    compare_data,  # reads ctx.new_input_shapes
    compare_training_subset,
    compare_data_files,
    compare_color_mode,
    compare_unused_hyperparameters,  # reads ctx.budget_kinds
    compare_tensor_ops,  # graph code only: shape-changing tensor operations
    compare_graph_metrics,  # graph code only: the hand-written accuracy
)


@noise_rule(
    "empty_program",
    "a side with no Keras element and no data at all (an empty benchmark file) is compared with "
    "nothing, like a file on one side only",
)
def empty_program(program: ProgramModel) -> bool:
    """A side with no model, compile, training or evaluation call and no data at all: listing every
    element of the other program as added or removed would name no fault."""
    return not (
        program.models
        or program.compiles
        or program.fits
        or program.evaluations
        or program.data
        or program.untrained_data
        or program.loss_functions
        or program.tensor_ops
        or program.era == "tf1"  # graph code run in a session: its tensors are the program
    )


def diff_models(
    buggy: ProgramModel,
    fixed: ProgramModel,
    runtime_calls: tuple[list[RuntimeCall], list[RuntimeCall]] | None = None,
    hyper_variables: tuple[dict[str, HyperVariable], dict[str, HyperVariable]] | None = None,
) -> list[FaultComponent]:
    """All fault components between a buggy and a fixed program model (noise rules applied).

    The diff reads the two models only: the training-data runtime calls and module-level budget
    variables are the models' ``runtime_data_calls`` and ``hyperparameter_literals``, which the
    extractor read from the source. ``runtime_calls`` / ``hyper_variables`` override them (tests).
    """
    if empty_program(buggy) or empty_program(fixed):
        return []
    if runtime_calls is None:
        runtime_calls = (list(buggy.runtime_data_calls), list(fixed.runtime_data_calls))
    if hyper_variables is None:
        hyper_variables = (dict(buggy.hyperparameter_literals), dict(fixed.hyperparameter_literals))
    ctx = CompareContext(buggy, fixed, runtime_calls, hyper_variables)
    out: list[FaultComponent] = []
    for compare in PASSES:
        out.extend(compare(ctx))
    out = dedupe_same_source(out)
    if buggy.framework == "tensorflow" or fixed.framework == "tensorflow":
        for c in out:
            c.detail["raw_tensorflow"] = True
    else:
        for c in out:
            if _trained_in_session(c, buggy) or _trained_in_session(c, fixed):
                c.detail["raw_tensorflow"] = True
    return out


def _trained_in_session(component: FaultComponent, program: ProgramModel) -> bool:
    """A compile or training component of a Keras model trained by TensorFlow 1 graph code
    (``optimizer.minimize(loss)``, ``session.run(train_op)``): no Keras call for DeepCrime to edit."""
    element = component.element
    if element.startswith("compile"):
        return any(".minimize(" in c.text for c in program.compiles)
    if element.startswith("fit"):
        return any(f.method == "session.run" for f in program.fits)
    return False


def dedupe_same_source(components: list[FaultComponent]) -> list[FaultComponent]:
    """One component per changed source text: a helper building two models reports its edit once."""
    seen: set[tuple] = set()
    out = []
    for c in components:
        same_text_elsewhere = c.buggy_line or c.fixed_line
        where = c.element.rsplit(".", 1)[-1] if same_text_elsewhere else c.element
        key = (c.kind, where, c.buggy_file, c.buggy_line, c.fixed_file, c.fixed_line, c.before, c.after)
        if key in seen:
            continue
        seen.add(key)
        out.append(c)
    return out
