"""User-written loss functions: which functions compute the training loss, and their bodies.

A program trains on a loss of its own in two ways: ``model.compile(loss=my_loss)`` or, in a custom
training loop, ``loss = my_loss(...)`` inside ``with tf.GradientTape()`` and then
``tape.gradient(loss, ...)``. A fix that rewrites such a function changes the loss calculation
(the study's LWC), which no layer, compile or fit argument shows. This module finds those functions
and keeps a normalised text of each body (comments, docstrings, prints, formatting and local
variable names removed), so that the diff can tell a rewritten calculation from a cosmetic edit.

It reads the source with Python's ``ast`` (a C parser, cheap next to the LibCST walk) and only when
a cheap text test says the program may hold a custom loss.
"""

from __future__ import annotations

import ast
import copy
import re
from collections.abc import Callable

#: cheap pre-test: a gradient call, or ``loss=`` followed by a bare name (not a string, not a module path)
_MAYBE_CUSTOM_LOSS = re.compile(r"\.gradient\(|\bloss\s*=\s*[A-Za-z_]\w*\s*[,)\n]")


def _called_name(node: ast.AST) -> str | None:
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name):
        return node.func.id
    return None


def _loss_names(tree: ast.Module) -> list[str]:
    """Names of functions used as the training loss, in the order the program first uses them."""
    names: list[str] = []
    assigned: dict[str, str] = {}  # variable -> function whose result it holds
    gradient_of: list[str] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Assign) and len(node.targets) == 1:
            target, fn = node.targets[0], _called_name(node.value)
            if isinstance(target, ast.Name) and fn is not None:
                assigned.setdefault(target.id, fn)
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
            if node.func.attr == "compile":
                for kw in node.keywords:
                    if kw.arg == "loss" and isinstance(kw.value, ast.Name):
                        names.append(kw.value.id)
            elif node.func.attr == "gradient" and node.args and isinstance(node.args[0], ast.Name):
                gradient_of.append(node.args[0].id)
    names += [assigned[v] for v in gradient_of if v in assigned]
    return list(dict.fromkeys(names))


def _is_noise(stmt: ast.stmt) -> bool:
    if isinstance(stmt, ast.Expr):
        value = stmt.value
        if isinstance(value, ast.Constant) and isinstance(value.value, str):
            return True  # a docstring
        if _called_name(value) == "print":
            return True
    return False


def normalised_body(fn: ast.FunctionDef) -> str:
    """The function's statements as text, without docstrings and prints, its parameters and local
    variables renamed by position (``p0``, ``l0``...): renaming them is the same calculation, while
    swapping two operands or calling another function is not. Global names are kept."""
    fn = copy.deepcopy(fn)
    a = fn.args
    params = [x.arg for x in (*a.posonlyargs, *a.args, *a.kwonlyargs)]
    params += [x.arg for x in (a.vararg, a.kwarg) if x is not None]
    stores = sorted(
        (n for n in ast.walk(fn) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)),
        key=lambda n: (n.lineno, n.col_offset),
    )
    rename = {name: f"p{i}" for i, name in enumerate(dict.fromkeys(params))}
    for name in dict.fromkeys(n.id for n in stores):
        rename.setdefault(name, f"l{len(rename) - len(params)}")
    for node in ast.walk(fn):
        if isinstance(node, ast.Name) and node.id in rename:
            node.id = rename[node.id]
    return "\n".join(ast.unparse(s) for s in fn.body if not _is_noise(s))


def find_loss_functions(source: str, tree: ast.Module | None = None) -> dict[str, tuple[int, str]]:
    """Function name -> (line, normalised body) for each user function that computes the training loss.

    ``tree`` is ``ast.parse(source)`` when the caller already has it (it is only read). Empty when
    the program has none, when the text cannot be parsed by ``ast`` (Python 2 left in a snippet) or
    when the function is not defined in this file.
    """
    return user_function_bodies(source, tree, _MAYBE_CUSTOM_LOSS, _loss_names, _def_functions)


def _def_functions(tree: ast.Module) -> dict[str, ast.FunctionDef]:
    """Every ``def f`` of the file, by name (the first one of a name)."""
    defs: dict[str, ast.FunctionDef] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.FunctionDef):
            defs.setdefault(node.name, node)
    return defs


def user_function_bodies(
    source: str,
    tree: ast.Module | None,
    marker: re.Pattern[str],
    names_of: Callable[[ast.Module], list[str]],
    functions_of: Callable[[ast.Module], dict[str, ast.FunctionDef]],
) -> dict[str, tuple[int, str]]:
    """Function name -> (line, normalised body) for the user functions ``names_of`` names in a file
    (a loss, a learning-rate schedule). ``marker`` is a cheap text test that skips the parse of
    programs that cannot have one; a text ``ast`` cannot parse has none."""
    if not marker.search(source):
        return {}
    if tree is None:
        try:
            tree = ast.parse(source)
        except (SyntaxError, ValueError, RecursionError, MemoryError):
            return {}
    names = names_of(tree)
    if not names:
        return {}
    defs = functions_of(tree)
    return {n: (defs[n].lineno, normalised_body(defs[n])) for n in names if n in defs}
