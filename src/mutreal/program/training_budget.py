"""A program's training budget: how many passes over the data (epochs), in batches of what size.

Why a module of its own: the study coded a changed budget (HNE for the epochs, HBS for the batch
size), and four places must agree on what the budget is: extract reads the budget a program states
(a module-level ``EPOCHS = 5`` no call may read), compare emits a component when a training call's
budget or a stated one changes, reconstruct writes the stated budget back into a mutant, and
docs/element-paths.md lists the elements. They all read :data:`BUDGET`; nothing else names the two.

A fit argument the model records but no pass compares says so here with its reason
(:data:`NOT_COMPARED`), so that "why is this change no component?" has one answer, and a
decision that starts comparing one (a classify decision for ``steps_per_epoch``) starts here: move
the argument into :data:`BUDGET` with the element (and component kind) it becomes, or give it a
pass of its own and take it off the list.
"""

from __future__ import annotations

#: fit argument -> the element path a change of it is (also its ``ComponentKind``'s value)
BUDGET: dict[str, str] = {"epochs": "fit.epochs", "batch_size": "fit.batch_size"}

#: the budget's element paths (a stated budget literal is one of them: ``HyperparameterLiteral.kind``)
BUDGET_ELEMENTS: tuple[str, ...] = tuple(BUDGET.values())

#: fit arguments the model records (docs/element-paths.md names their elements) that no compare pass
#: compares, and why: a change of one alone gives no component
NOT_COMPARED: dict[str, str] = {
    "steps_per_epoch": (
        "the batches a generator yields per epoch; no decision yet says which code a change of it alone "
        "is (HNE, HBS or noise), so no pass compares it"
    ),
    "shuffle": "the order the samples are drawn in; no decision yet names a code for a change of it",
    "class_weight": "a weighting of the loss per class; no decision yet names a code for a change of it",
}
