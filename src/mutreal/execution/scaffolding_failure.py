"""Was a crash the model's? The failing statement of a program that trained, read statically.

A benchmark program often ends in scaffolding its benchmark wrote around the model: timing
(``import time`` ... ``end = time()``, which calls the module), printing the timing, saving a file
to a path its harness made. When such a statement raises after the model trained and evaluated,
the run's training and evaluation are whole: the crash is not the model's, and counting the run
as failed (wrong on every input) would make the fault "kill" every input (issue realism-published
item 0). A crash in a statement that uses the model, its data or its outputs (predict on a wrong
shape, evaluate with wrong labels) is the model's and stays a crash.

Decided in the worker, where the exception's frames are still alive, from the traceback's failing
line and a static reading of that statement, not from the error's text:

- the frames of the traceback that run the program's own files (its script, its helper modules);
- in each, the statement that was running (only the header of a compound statement: ``for x in
  data`` is not its body) must reference no *model name*;
- and the statements the crash skipped (the rest of each running block, and whole loops around
  it) must neither train nor evaluate (``fit``, ``evaluate``, ``train_on_batch``, ``Session.run``,
  or a function of the program that does): what the record holds is then all the model did.

A *model name* is a name whose value in a running frame (or the module) is the model, its data or
its outputs: an object of a numerical or deep-learning library (a Keras model, a tensor, an array,
a NumPy number, a frame, a ``History``), a container holding one, or a function or class of such a
library; or a name assigned anywhere in the program from an expression that reads a model name
(``score = model.evaluate(...)`` makes ``score`` one), or a function of the program whose body reads
one. Over-reading keeps a crash a crash, which is what every run was before.
"""

from __future__ import annotations

import ast
import types
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

#: top-level packages whose objects are a model, its data or its outputs
MODEL_PACKAGES = frozenset({
    "keras", "tensorflow", "tf_keras", "torch", "torchvision", "sklearn", "numpy", "pandas", "scipy",
    "xgboost", "lightgbm", "PIL", "cv2", "h5py", "tensorflow_datasets", "theano", "jax",
})  # fmt: skip

#: methods whose call trains or evaluates: a crash that skipped one cut the model's work short
MODEL_WORK_CALLS = frozenset({
    "fit", "fit_generator", "evaluate", "evaluate_generator", "train_on_batch", "test_on_batch",
    "run", "minimize", "apply_gradients", "partial_fit", "score",
})  # fmt: skip

#: how deep a container is searched for a model object, and how many of its items
_DEPTH, _ITEMS = 2, 50


@dataclass
class ScaffoldingFailure:
    """Where a run failed after its model's work: the program's line, its statement, the error."""

    file: str
    line: int
    statement: str
    error_type: str
    error_message: str

    def to_dict(self) -> dict[str, Any]:
        return {"file": self.file, "line": self.line, "statement": self.statement,
                "error_type": self.error_type, "error_message": self.error_message}  # fmt: skip


def _package(value: Any) -> str:
    if isinstance(value, (type, types.FunctionType, types.BuiltinFunctionType)):
        module = getattr(value, "__module__", None) or ""
    else:
        module = getattr(type(value), "__module__", None) or ""
    return module.split(".", 1)[0]


def is_model_value(value: Any, depth: int = 0) -> bool:
    """Whether ``value`` is (or holds) a model, its data or its outputs (see the module's doc)."""
    if isinstance(value, types.ModuleType) or value is None:
        return False
    if isinstance(value, (str, bytes, bool, int, float, complex, range)):
        return False
    if _package(value) in MODEL_PACKAGES:
        return True
    if depth >= _DEPTH:
        return False
    if isinstance(value, dict):
        items: Iterable[Any] = list(value.values())[:_ITEMS]
    elif isinstance(value, (list, tuple, set, frozenset)):
        items = list(value)[:_ITEMS]
    else:
        return False
    return any(is_model_value(item, depth + 1) for item in items)


def _loaded(nodes: Iterable[ast.AST]) -> set[str]:
    """The names read in ``nodes`` (nested functions' bodies included)."""
    return {n.id for node in nodes for n in ast.walk(node) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)}


def _stored(node: ast.AST | None) -> set[str]:
    if node is None:
        return set()
    return {n.id for n in ast.walk(node) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)}


def _bindings(tree: ast.AST) -> Iterator[tuple[set[str], set[str]]]:
    """(names bound, names read to bind them) of every binding of the program."""
    for node in ast.walk(tree):
        if isinstance(node, ast.Assign):
            yield set().union(*(_stored(t) for t in node.targets)), _loaded([node.value])
        elif isinstance(node, (ast.AugAssign, ast.AnnAssign)):
            yield _stored(node.target), _loaded([node.value] if node.value is not None else []) | (
                {node.target.id} if isinstance(node.target, ast.Name) else set())
        elif isinstance(node, (ast.For, ast.AsyncFor, ast.comprehension)):
            yield _stored(node.target), _loaded([node.iter])
        elif isinstance(node, ast.withitem):
            yield _stored(node.optional_vars), _loaded([node.context_expr])
        elif isinstance(node, ast.NamedExpr):
            yield _stored(node.target), _loaded([node.value])
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            yield {node.name}, _loaded(node.body) - _parameters(node)


def _parameters(node: ast.AST) -> set[str]:
    args = getattr(node, "args", None)
    if args is None:
        return set()
    every = [*args.posonlyargs, *args.args, *args.kwonlyargs, args.vararg, args.kwarg]
    return {a.arg for a in every if a is not None}


def model_names(tree: ast.AST, seeds: set[str]) -> set[str]:
    """``seeds`` (names whose running value is a model object) and every name bound from one, to a
    fixed point; a function of the program whose body reads one is one (scopes are not told apart:
    reading too much keeps a crash a crash)."""
    names = set(seeds)
    bindings = list(_bindings(tree))
    changed = True
    while changed:
        changed = False
        for bound, read in bindings:
            if read & names and not bound <= names:
                names |= bound
                changed = True
    return names


def _header(statement: ast.stmt) -> list[ast.AST]:
    """The parts of a statement that run when it starts: a compound statement without its body."""
    if isinstance(statement, (ast.For, ast.AsyncFor)):
        return [statement.target, statement.iter]
    if isinstance(statement, (ast.While, ast.If)):
        return [statement.test]
    if isinstance(statement, (ast.With, ast.AsyncWith)):
        return list(statement.items)
    if isinstance(statement, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
        arguments = getattr(statement, "args", None)
        return [*statement.decorator_list, *(arguments.defaults if isinstance(arguments, ast.arguments) else [])]
    if isinstance(statement, ast.Try):
        return []
    return [statement]


def _bodies(statement: ast.AST) -> list[list[ast.stmt]]:
    return [getattr(statement, name) for name in ("body", "orelse", "finalbody", "handlers")
            if isinstance(getattr(statement, name, None), list)]  # fmt: skip


def _path_to(body: list[ast.stmt], line: int) -> list[tuple[list[ast.stmt], int]]:
    """(block, index) from ``body`` down to the innermost statement holding ``line``."""
    for index, statement in enumerate(body):
        end = getattr(statement, "end_lineno", statement.lineno) or statement.lineno
        first = min([statement.lineno, *(d.lineno for d in getattr(statement, "decorator_list", []))])
        if first <= line <= end:
            for block in _bodies(statement):
                inner = _path_to(block, line)  # type: ignore[arg-type]
                if inner:
                    return [(body, index), *inner]
            return [(body, index)]
    return []


def _scope(tree: ast.Module, code_name: str, line: int) -> list[ast.stmt]:
    """The body of the frame's code: the module, or the innermost function holding ``line``."""
    if code_name == "<module>":
        return tree.body
    found: list[ast.stmt] = tree.body
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.name == code_name:
            end = getattr(node, "end_lineno", node.lineno) or node.lineno
            if node.lineno <= line <= end:
                found = node.body
    return found


def _calls_model_work(nodes: Iterable[ast.AST], workers: set[str]) -> bool:
    """Whether ``nodes`` train or evaluate: a :data:`MODEL_WORK_CALLS` method, or a function of the
    program that does (``workers``)."""
    for node in nodes:
        for call in ast.walk(node):
            if not isinstance(call, ast.Call):
                continue
            if isinstance(call.func, ast.Attribute) and call.func.attr in MODEL_WORK_CALLS:
                return True
            if isinstance(call.func, ast.Name) and call.func.id in workers:
                return True
    return False


def _workers(tree: ast.AST) -> set[str]:
    """The program's functions that train or evaluate (directly or through another one)."""
    functions = {n.name: n for n in ast.walk(tree) if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))}
    found: set[str] = set()
    changed = True
    while changed:
        changed = False
        for name, node in functions.items():
            if name not in found and _calls_model_work(node.body, found):
                found.add(name)
                changed = True
    return found


def _own_frames(error: BaseException, roots: list[Path]) -> list[types.FrameType | Any]:
    """(frame, line) of the traceback's frames that run the program's own files, outermost first."""
    frames = []
    tb = error.__traceback__
    while tb is not None:
        filename = tb.tb_frame.f_code.co_filename
        try:  # as imported (a run's folder of links to the program's files) and as the file it is
            seen = {Path(filename).absolute(), Path(filename).resolve()}
        except (OSError, ValueError):
            seen = {Path(filename)}
        if any(path == root or root in path.parents for path in seen for root in roots):
            frames.append((tb.tb_frame, tb.tb_lineno))
        tb = tb.tb_next
    return frames


def _source_tree(filename: str, sources: dict[str, str]) -> tuple[ast.Module, list[str]] | None:
    text = sources.get(filename)
    if text is None:
        try:
            text = Path(filename).read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError):
            return None
    try:
        return ast.parse(text), text.splitlines()
    except (SyntaxError, ValueError):
        return None


def scaffolding_failure(
    error: BaseException,
    script: str | Path,
    source: str,
    *,
    roots: Iterable[str | Path] = (),
    trained: bool,
) -> ScaffoldingFailure | None:
    """Where ``error`` was raised when it is not the model's (see the module's doc), else None.

    ``script`` is the program's path as it ran with ``source`` its text; ``roots`` the folders of
    its own modules (its working folder); ``trained``: the run completed every fit it started (a
    crash before or during training is always the model's)."""
    if not trained or isinstance(error, (SyntaxError, KeyboardInterrupt, MemoryError, SystemExit)):
        return None
    script = str(script)
    folders = [Path(script).resolve().parent, *(Path(r).resolve() for r in roots), *(Path(r).absolute() for r in roots)]
    frames = _own_frames(error, [Path(script).resolve(), Path(script).absolute(), *folders])
    if not frames:
        return None  # raised outside the program's own code before any of its lines ran
    sources = {script: source}
    failing: tuple[str, int, str] | None = None
    for frame, line in frames:
        parsed = _source_tree(frame.f_code.co_filename, sources)
        if parsed is None:
            return None
        tree, lines = parsed
        values = {**frame.f_globals, **frame.f_locals}
        seeds = {name for name, value in values.items() if not name.startswith("__") and is_model_value(value)}
        names = model_names(tree, seeds)
        program_functions = {n.name for n in ast.walk(tree) if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))}
        path = _path_to(_scope(tree, frame.f_code.co_name, line), line)
        if not path:
            return None
        block, index = path[-1]
        statement = block[index]
        innermost = frame is frames[-1][0]
        # a caller's statement calls the function judged in the next frame: its own name is not read
        read = _loaded(_header(statement)) - (set() if innermost else program_functions)
        if read & names:
            return None
        skipped: list[ast.AST] = []
        for level, (outer, position) in enumerate(path):
            skipped.extend(outer[position + 1 :])
            if level < len(path) - 1 and isinstance(outer[position], (ast.For, ast.AsyncFor, ast.While)):
                skipped.append(outer[position])  # its later iterations
        if _calls_model_work(skipped, _workers(tree)):
            return None
        failing = (frame.f_code.co_filename, line, lines[line - 1].strip() if 0 < line <= len(lines) else "")
    assert failing is not None
    message = str(error)
    return ScaffoldingFailure(
        file=Path(failing[0]).name, line=failing[1], statement=failing[2][:200],
        error_type=type(error).__name__, error_message=message[:500],
    )  # fmt: skip

