"""Is a mutant equivalent to its original? The program model, not the text, decides.

Why a module: ``mutate`` must not write a mutant that changes nothing once the program model
folds it (``batch_size=len(x)`` where the batch already is the sample count, ``l2(lambda_)`` made
``l1_l2(l1=lambda_, l2=lambda_)`` with ``lambda_ = 0``, an activation an ``Activation`` layer
right after it overrides): classify would find no change, and any test would "miss" it. The check
is general (the mutant's model is extracted and compared with the original's as classify does)
and cheap for most mutants: an edit that surely changes the program skips the extraction, so
``mutate --all`` stays about one parse per mutant.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Sequence

from mutreal.mutation.operators.base import Edit, Mutant, Program

__all__ = ["equivalence", "surely_changes"]


def equivalence(program: Program, mutant: Mutant) -> str | None:
    """Why ``mutant`` is equivalent to ``program`` (None when it is not, or cannot be told).

    General: the mutant's program model is extracted and compared with the original's exactly as
    classify compares a pair. An edit that surely changes the program (:func:`surely_changes`:
    most mutants) skips that extraction, so ``mutate --all`` stays about one parse per mutant."""
    if surely_changes(program, mutant.edits):
        return None
    from mutreal.compare import diff_models
    from mutreal.extract import extract_source

    try:
        model = extract_source(mutant.code, program.path)
        if diff_models(program.model, model):
            return None
    except Exception:  # an advisory check: a mutant whose model cannot be built is written
        return None
    texts = "; ".join(f"{e.old if e.old is not None else '(absent)'} -> {e.new}" for e in mutant.edits)
    return f"equivalent: the program model finds no change ({texts} is the same program once folded)"


def _names(code: str) -> set[str] | None:
    """The plain names an expression or statements read (None: does not parse)."""
    try:
        tree = ast.parse(code.strip() or "None")
    except SyntaxError:
        return None
    return {n.id for n in ast.walk(tree) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)}


def _bound(program: Program, edits: Sequence[Edit]) -> set[str]:
    """Names that are not program variables: the program's import aliases, those the edits import."""
    bound = set(program.model.imports) | {"True", "False", "None"}
    for e in edits:
        for c in e.changes:
            if c.kind == "import" or (
                c.kind == "insert_before" and c.code.lstrip().startswith(("import ", "from "))
            ):
                try:
                    tree = ast.parse(c.code)
                except SyntaxError:
                    continue
                for node in ast.walk(tree):
                    if isinstance(node, ast.Import | ast.ImportFrom):
                        bound.update((a.asname or a.name).split(".")[0] for a in node.names)
    return bound


_ACTIVATION = re.compile(r"^model\[(\d+)\]\.layer\[(\d+)\]\.activation$")


def _folds(program: Program, element: str) -> bool:
    """Whether a layer's activation folds with an ``Activation`` layer next to it (``Dense(50,
    activation='relu')`` then ``Activation('relu')``): the model, not the text, tells whether a
    new activation there changes anything."""
    m = _ACTIVATION.match(element)
    if m is None:
        return False
    from mutreal.mutation.operators.common import folded_owner

    mi, li = int(m.group(1)), int(m.group(2))
    try:
        owner = folded_owner(program, mi, li)
        layers = program.model.models[mi].layers
    except (IndexError, KeyError):
        return True
    if owner is not None and len(owner.sources) > 1:
        return True
    after = layers[li + 1].cls if li + 1 < len(layers) else ""
    return after in _ACTIVATION_LAYERS


#: layers that are only an activation (one after a layer folds with its activation argument)
_ACTIVATION_LAYERS = frozenset(
    {"Activation", "ReLU", "Softmax", "LeakyReLU", "ELU", "PReLU", "ThresholdedReLU"}
)


def surely_changes(program: Program, edits: Sequence[Edit]) -> bool:
    """Whether every change of a mutant's edits surely changes the program, so that no model
    needs to be built to tell: the old and the new text read no program variable (only literals
    and names the program imports: ``0.01`` -> ``0.001``, ``'relu'`` -> ``regularizers.l2(0.01)``)
    and differ; an import or a call of mutreal's runtime inserted (the training-data operators'
    seeded data step) changes it too. A removed argument, any text reading a variable
    (``len(x)``, ``l2(lambda_)``) or an activation that folds with an ``Activation`` layer takes
    the model. Needs only the edits (``mutate --list`` asks it before making any mutant)."""
    bound = _bound(program, edits)
    if any(_folds(program, c.element) for e in edits for c in e.components):
        return False
    for e in edits:
        for c in e.changes:
            if c.kind == "import":
                continue
            if c.kind == "insert_before":
                if "_mutreal_" not in c.code and not c.code.lstrip().startswith(("import ", "from ")):
                    return False
                continue
            if c.kind not in ("replace", "set_arg"):
                return False
            if c.kind == "replace":
                # the replaced node's text (an argument value the index skips: the edit's old text)
                old = program.index.text(c.target) if c.target in program.index.nodes else e.old
            else:
                old = ""
            if old is None:
                return False
            new_names, old_names = _names(c.code), _names(old)
            if new_names is None or old_names is None or (new_names | old_names) - bound:
                return False
            if "".join(old.split()) == "".join(c.code.split()):
                return False
    return True
