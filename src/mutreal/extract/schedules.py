"""User-written learning-rate schedules: the functions a ``LearningRateScheduler`` callback or the
optimizer's learning rate reads (``LearningRateScheduler(step_decay)``, ``Adam(lr=schedule(0))``),
with their bodies normalised as loss bodies are (:func:`mutreal.extract.losses.normalised_body`).

Why: a fix that rewrites the schedule changes the learning rate of every epoch (the study's HLR)
while no compile or fit argument changes: the callback still names the same function. Read with
Python's ``ast`` and only when a cheap text test says the program may hold such a function.
"""

from __future__ import annotations

import ast
import re

from mutreal.extract.losses import user_function_bodies

#: cheap pre-test: a scheduler callback, or a learning rate computed by calling a name
_MAYBE_SCHEDULE = re.compile(r"LearningRateScheduler|\b(?:lr|learning_rate)\s*=\s*[A-Za-z_]\w*\s*[(,)\n]")
_RATE_KEYWORDS = frozenset({"lr", "learning_rate"})


def _callee(node: ast.Call) -> str | None:
    func = node.func
    return func.attr if isinstance(func, ast.Attribute) else func.id if isinstance(func, ast.Name) else None


def _schedule_names(tree: ast.Module) -> list[str]:
    """Names a scheduler callback is given, or an optimizer's learning rate calls or names."""
    names: list[str] = []
    for node in ast.walk(tree):
        if not isinstance(node, ast.Call):
            continue
        if _callee(node) == "LearningRateScheduler":
            first = node.args[0] if node.args else None
            first = first or next((k.value for k in node.keywords if k.arg == "schedule"), None)
            if isinstance(first, ast.Name):
                names.append(first.id)
        for kw in node.keywords:
            if kw.arg not in _RATE_KEYWORDS:
                continue
            value = kw.value
            if isinstance(value, ast.Call) and isinstance(value.func, ast.Name):
                names.append(value.func.id)
            elif isinstance(value, ast.Name):
                names.append(value.id)
    return list(dict.fromkeys(names))


def _functions(tree: ast.Module) -> dict[str, ast.FunctionDef]:
    """Every ``def f`` and ``f = lambda ...`` of the file, by name (the first one of a name);
    a lambda becomes the function returning its expression, so both spellings compare alike."""
    out: dict[str, ast.FunctionDef] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.FunctionDef):
            out.setdefault(node.name, node)
        elif (
            isinstance(node, ast.Assign)
            and len(node.targets) == 1
            and isinstance(node.targets[0], ast.Name)
            and isinstance(node.value, ast.Lambda)
        ):
            lam = node.value
            fn = ast.FunctionDef(
                name=node.targets[0].id, args=lam.args, body=[ast.Return(lam.body)], decorator_list=[]
            )
            fn.lineno = node.lineno
            out.setdefault(fn.name, fn)
    return out


def find_schedule_functions(source: str, tree: ast.Module | None = None) -> dict[str, tuple[int, str]]:
    """Function name -> (line, normalised body) for each user function that gives the learning rate.

    Empty when the program has none, when ``ast`` cannot parse the text, or when the named function
    is not defined in this file (a number held in a variable named ``lr`` is no function).
    """
    return user_function_bodies(source, tree, _MAYBE_SCHEDULE, _schedule_names, _functions)
