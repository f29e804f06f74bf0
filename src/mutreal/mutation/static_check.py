"""Static check of a mutant: is every name it introduces bound before its first use, and does every
keyword argument it adds exist in the called API of the framework its program runs on?

Why: a mutant that dies with a ``NameError`` on an import mutreal placed below its use, or a
``TypeError`` on a keyword mutreal added to a call that does not take it
(``tf.nn.conv2d(..., kernel_regularizer='l1')``), is no fault: it measures mutreal, not the
model. ``mutate`` and ``hom-generate`` refuse such a mutant before writing it, and
``benchmarks/mutant_validity.py`` counts them over whole corpora, both through :func:`check_mutant`.

Only what the mutant adds is judged: the original's own late bindings (a helper that reads a
global assigned further down) are subtracted, so a program is never blamed on a mutant.

Keyword arguments are checked against the *installed* framework of the program's era
(:mod:`mutreal.compat.framework_choice`: ``keras3``, ``tf_keras`` or ``tf1``), by
``inspect.signature`` of the callee in a subprocess (importing TensorFlow costs seconds and must not
load it into the caller); answers are memoised in-process and on disk per installed versions.
A callee that does not resolve to a framework object (a method of a model, a user function)
is not judged.
"""

from __future__ import annotations

import ast
import builtins
import hashlib
import json
import os
import subprocess
import sys
from collections import Counter
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from mutreal.mutation.operators.written_names import dotted_name

__all__ = [
    "Violation",
    "SignatureOracle",
    "default_oracle",
    "unbound_names",
    "added_keywords",
    "check_names",
    "check_keywords",
    "check_mutant",
    "check_code",
    "program_framework",
]

_BUILTINS = frozenset(dir(builtins)) | {"__file__", "__name__", "__doc__", "__spec__", "__builtins__"}


@dataclass(frozen=True)
class Violation:
    """One reason a mutant cannot run: ``kind`` is ``unbound-name`` or ``keyword``."""

    kind: str
    message: str
    line: int | None = None

    def __str__(self) -> str:
        where = f" (line {self.line})" if self.line is not None else ""
        return f"{self.kind}: {self.message}{where}"


# ---------------------------------------------------------------------------------------------------
# names bound before use
# ---------------------------------------------------------------------------------------------------


def _target_names(node: ast.AST) -> Iterable[str]:
    for sub in ast.walk(node):
        if isinstance(sub, ast.Name) and isinstance(sub.ctx, ast.Store | ast.Del):
            yield sub.id
        elif isinstance(sub, ast.Starred) and isinstance(sub.value, ast.Name):
            yield sub.value.id


class _Bindings(ast.NodeVisitor):
    """The names a scope binds (a function's locals, whatever their order; the module's with the
    line of each binding) without descending into nested scopes."""

    def __init__(self) -> None:
        self.lines: dict[str, list[int]] = {}
        self.star_lines: list[int] = []
        self.globals: set[str] = set()

    def bind(self, name: str, line: int) -> None:
        self.lines.setdefault(name, []).append(line)

    def visit_FunctionDef(self, node: ast.FunctionDef | ast.AsyncFunctionDef) -> None:
        self.bind(node.name, node.lineno)
        for dec in node.decorator_list:
            self.visit(dec)
        for default in [*node.args.defaults, *node.args.kw_defaults]:
            if default is not None:
                self.visit(default)
        # ``global x`` assigned in a function binds a module name (when it runs: not judged)
        for sub in ast.walk(node):
            if isinstance(sub, ast.Global):
                self.globals.update(sub.names)

    visit_AsyncFunctionDef = visit_FunctionDef  # type: ignore[assignment]

    def visit_ClassDef(self, node: ast.ClassDef) -> None:
        self.bind(node.name, node.lineno)
        for dec in [*node.decorator_list, *node.bases, *(k.value for k in node.keywords)]:
            self.visit(dec)

    def visit_Lambda(self, node: ast.Lambda) -> None:
        return

    def _comprehension(self, node: ast.AST) -> None:
        return

    visit_ListComp = visit_SetComp = visit_DictComp = visit_GeneratorExp = _comprehension  # type: ignore[assignment]

    def visit_Import(self, node: ast.Import) -> None:
        for a in node.names:
            self.bind(a.asname or a.name.split(".")[0], node.lineno)

    def visit_ImportFrom(self, node: ast.ImportFrom) -> None:
        for a in node.names:
            if a.name == "*":
                self.star_lines.append(node.lineno)
            else:
                self.bind(a.asname or a.name, node.lineno)

    def visit_Name(self, node: ast.Name) -> None:
        if isinstance(node.ctx, ast.Store | ast.Del):
            self.bind(node.id, node.lineno)

    def visit_NamedExpr(self, node: ast.NamedExpr) -> None:
        self.bind(node.target.id, node.lineno)
        self.visit(node.value)

    def visit_ExceptHandler(self, node: ast.ExceptHandler) -> None:
        if node.name:
            self.bind(node.name, node.lineno)
        self.generic_visit(node)

    def visit_Global(self, node: ast.Global) -> None:
        self.globals.update(node.names)

    def visit_Nonlocal(self, node: ast.Nonlocal) -> None:
        self.globals.update(node.names)

    def visit_MatchAs(self, node: Any) -> None:  # pragma: no cover - rare in benchmarks
        if node.name:
            self.bind(node.name, node.lineno)
        self.generic_visit(node)


def _scope_bindings(body: Iterable[ast.AST]) -> _Bindings:
    b = _Bindings()
    for stmt in body:
        b.visit(stmt)
    return b


def _args_names(args: ast.arguments) -> set[str]:
    out = {a.arg for a in [*args.posonlyargs, *args.args, *args.kwonlyargs]}
    if args.vararg:
        out.add(args.vararg.arg)
    if args.kwarg:
        out.add(args.kwarg.arg)
    return out


_Pos = tuple[int, int]


class _LocalOrder(ast.NodeVisitor):
    """Where each name a function binds is first bound, in reading order: an assignment binds at
    its end (its value is read first), a loop target after its iterable, the rest where written.
    Nested functions, classes and comprehensions are their own scopes: not entered."""

    def __init__(self) -> None:
        self.first: dict[str, _Pos] = {}

    def _bind(self, names: Iterable[str], pos: _Pos) -> None:
        for n in names:
            if n not in self.first or pos < self.first[n]:
                self.first[n] = pos

    @staticmethod
    def _end(node: ast.AST) -> _Pos:
        return (getattr(node, "end_lineno", None) or node.lineno, getattr(node, "end_col_offset", None) or 0)  # type: ignore[attr-defined]

    def visit_Assign(self, node: ast.Assign) -> None:
        for t in node.targets:
            self._bind(_target_names(t), self._end(node))
        self.generic_visit(node)

    def visit_AugAssign(self, node: ast.AugAssign) -> None:
        self._bind(_target_names(node.target), self._end(node))
        self.generic_visit(node)

    def visit_AnnAssign(self, node: ast.AnnAssign) -> None:
        if node.value is not None:
            self._bind(_target_names(node.target), self._end(node))
        self.generic_visit(node)

    def visit_For(self, node: ast.For | ast.AsyncFor) -> None:
        self._bind(_target_names(node.target), self._end(node.iter))
        self.generic_visit(node)

    visit_AsyncFor = visit_For  # type: ignore[assignment]

    def visit_withitem(self, node: ast.withitem) -> None:
        if node.optional_vars is not None:
            self._bind(_target_names(node.optional_vars), self._end(node.context_expr))
        self.generic_visit(node)

    def visit_NamedExpr(self, node: ast.NamedExpr) -> None:
        self._bind([node.target.id], self._end(node))
        self.visit(node.value)

    def visit_Import(self, node: ast.Import | ast.ImportFrom) -> None:
        self._bind([a.asname or a.name.split(".")[0] for a in node.names if a.name != "*"], (node.lineno, node.col_offset))

    visit_ImportFrom = visit_Import  # type: ignore[assignment]

    def visit_ExceptHandler(self, node: ast.ExceptHandler) -> None:
        if node.name:
            self._bind([node.name], (node.lineno, node.col_offset))
        self.generic_visit(node)

    def visit_FunctionDef(self, node: ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef) -> None:
        self._bind([node.name], (node.lineno, node.col_offset))

    visit_AsyncFunctionDef = visit_ClassDef = visit_FunctionDef  # type: ignore[assignment]

    def visit_Lambda(self, node: ast.Lambda) -> None:
        return

    def _skip(self, node: ast.AST) -> None:
        return

    visit_ListComp = visit_SetComp = visit_DictComp = visit_GeneratorExp = _skip  # type: ignore[assignment]


class _Uses(ast.NodeVisitor):
    """Every name read where no binding of it precedes: module names count from their line on; in a
    function, a name it binds counts from where it is first bound in reading order (a read before
    is an UnboundLocalError), those of the functions around it whatever their line."""

    def __init__(self, module: _Bindings) -> None:
        self.module = module
        self.local: list[set[str]] = []
        self.found: list[tuple[str, int]] = []
        #: per enclosing function: where each of its locals (not parameters, not global) is first
        #: bound; a read before that is an UnboundLocalError (``data = f(data)`` inserted in a
        #: function that read the global ``data``)
        self.order: list[dict[str, _Pos]] = []

    def _bound(self, name: str, line: int) -> bool:
        if name in _BUILTINS or name in self.module.globals:
            return True
        if any(name in scope for scope in self.local):
            return True
        if any(s <= line for s in self.module.star_lines):
            return True
        return any(b <= line for b in self.module.lines.get(name, ()))

    def visit_Name(self, node: ast.Name) -> None:
        if not isinstance(node.ctx, ast.Load):
            return
        local = self.order[-1] if self.order else {}
        read_before_bound = node.id in local and (node.lineno, node.col_offset) < local[node.id]
        if read_before_bound or not self._bound(node.id, node.lineno):
            self.found.append((node.id, node.lineno))

    def _function(self, node: ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda) -> None:
        for default in [*node.args.defaults, *node.args.kw_defaults]:
            if default is not None:
                self.visit(default)
        if not isinstance(node, ast.Lambda):
            for dec in node.decorator_list:
                self.visit(dec)
        body = node.body if isinstance(node.body, list) else [node.body]
        inner = _scope_bindings(body)
        self.local.append(_args_names(node.args) | set(inner.lines) | inner.globals)
        order = _LocalOrder()
        if not isinstance(node, ast.Lambda):
            for stmt in body:
                order.visit(stmt)
        params = _args_names(node.args) | inner.globals
        self.order.append({n: p for n, p in order.first.items() if n not in params})
        for stmt in body:
            self.visit(stmt)
        self.local.pop()
        self.order.pop()

    visit_FunctionDef = visit_AsyncFunctionDef = visit_Lambda = _function  # type: ignore[assignment]

    def visit_ClassDef(self, node: ast.ClassDef) -> None:
        for dec in [*node.decorator_list, *node.bases, *(k.value for k in node.keywords)]:
            self.visit(dec)
        self.local.append(set(_scope_bindings(node.body).lines))
        self.order.append({})
        for stmt in node.body:
            self.visit(stmt)
        self.local.pop()
        self.order.pop()

    def _comprehension(self, node: Any) -> None:
        names: set[str] = set()
        for gen in node.generators:
            names.update(_target_names(gen.target))
        for sub in ast.walk(node):
            if isinstance(sub, ast.NamedExpr):
                names.add(sub.target.id)
        self.local.append(names)
        self.generic_visit(node)
        self.local.pop()

    visit_ListComp = visit_SetComp = visit_DictComp = visit_GeneratorExp = _comprehension  # type: ignore[assignment]


def unbound_names(tree: ast.Module) -> list[tuple[str, int]]:
    """(name, line) of each read of a name no binding precedes (builtins and star imports count as
    bindings); the original's own entries are subtracted by :func:`check_names`."""
    uses = _Uses(_scope_bindings(tree.body))
    for stmt in tree.body:
        uses.visit(stmt)
    return uses.found


def check_names(original: ast.Module | Counter[str], mutant: ast.Module) -> list[Violation]:
    """The reads of a name the mutant has unbound where the original has none (or fewer);
    ``original`` is the original's tree or its :func:`unbound_names` counted by name."""
    before = original if isinstance(original, Counter) else Counter(n for n, _ in unbound_names(original))
    out = []
    seen: Counter[str] = Counter()
    for name, line in unbound_names(mutant):
        seen[name] += 1
        if seen[name] > before[name]:
            out.append(Violation("unbound-name", f"{name} is used before anything binds it", line))
    return out


# ---------------------------------------------------------------------------------------------------
# keyword arguments the called API accepts
# ---------------------------------------------------------------------------------------------------

#: module roots whose callables are judged: the frameworks a program runs on
_FRAMEWORK_ROOTS = ("keras", "tensorflow", "tf_keras")


def _import_table(tree: ast.Module) -> dict[str, str]:
    table: dict[str, str] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for a in node.names:
                if a.asname:
                    table.setdefault(a.asname, a.name)
                else:
                    root = a.name.split(".")[0]
                    table.setdefault(root, root)
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            for a in node.names:
                if a.name != "*":
                    table.setdefault(a.asname or a.name, f"{node.module}.{a.name}")
    return table


def _resolve(func: ast.AST, table: Mapping[str, str]) -> str | None:
    text = dotted_name(func)
    if text is None:
        return None
    root, _, rest = text.partition(".")
    target = table.get(root)
    if target is None:
        return None
    full = f"{target}.{rest}" if rest else target
    return full if full.split(".")[0] in _FRAMEWORK_ROOTS else None


def _keyword_pairs(tree: ast.Module) -> list[tuple[str, str, int]]:
    table = _import_table(tree)
    out = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Call):
            callee = _resolve(node.func, table)
            if callee is not None:
                out.extend((callee, kw.arg, node.lineno) for kw in node.keywords if kw.arg)
    return out


def added_keywords(
    original: ast.Module | Counter[tuple[str, str]], mutant: ast.Module
) -> list[tuple[str, str, int]]:
    """(callee as imported, keyword, line) of each keyword argument on a framework callable that
    the mutant writes more often than the original does (``original``: its tree, or its pairs
    counted)."""
    before = original if isinstance(original, Counter) else Counter((c, k) for c, k, _ in _keyword_pairs(original))
    seen: Counter[tuple[str, str]] = Counter()
    out = []
    for callee, kw, line in _keyword_pairs(mutant):
        seen[(callee, kw)] += 1
        if seen[(callee, kw)] > before[(callee, kw)]:
            out.append((callee, kw, line))
    return out


def candidates(callee: str, framework: str) -> list[str]:
    """Where the installed packages hold ``callee`` (as the program imports it) when the program
    runs on ``framework``: Keras names on Keras 3 (``keras3``) or ``tf_keras``; TensorFlow 1 names
    through ``tf.compat.v1`` where the converter puts them (``tf1``, ``tf_keras``)."""
    root, _, rest = callee.partition(".")
    keras_rest = None
    if root in ("keras", "tf_keras"):
        keras_rest = rest
    elif root == "tensorflow" and rest.startswith(("keras.", "python.keras.")):
        keras_rest = rest.split("keras.", 1)[1]
    if keras_rest is not None:
        base = "keras" if framework == "keras3" else "tf_keras"
        return [f"{base}.{keras_rest}"] if keras_rest else []
    if root != "tensorflow" or rest.startswith("contrib"):
        return []  # tf.contrib is served by tf-slim at run time: not judged here
    if framework in ("tf1", "tf_keras"):
        return [f"tensorflow.compat.v1.{rest}", f"tensorflow.{rest}"]
    return [f"tensorflow.{rest}", f"tensorflow.compat.v1.{rest}"]


_PROBE = r"""
import inspect, json, os, sys, importlib
os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
def resolve(path):
    parts = path.split(".")
    for i in range(len(parts), 0, -1):
        try:
            obj = importlib.import_module(".".join(parts[:i]))
        except Exception:
            continue
        try:
            for p in parts[i:]:
                obj = getattr(obj, p)
        except AttributeError:
            return None
        return obj
    return None
def params(obj):
    names, var_kw = set(), False
    chain = [obj]
    if inspect.isclass(obj):
        chain = [c.__init__ for c in obj.__mro__ if "__init__" in vars(c) and c is not object]
    for fn in chain:
        try:
            sig = inspect.signature(fn)
        except (TypeError, ValueError):
            return None
        var_kw = False
        for p in sig.parameters.values():
            if p.kind is p.VAR_KEYWORD:
                var_kw = True
            elif p.kind is not p.VAR_POSITIONAL:
                names.add(p.name)
        if not var_kw:
            break
    return {"params": sorted(names), "var_kw": var_kw}
out = {}
for path in json.load(sys.stdin):
    obj = resolve(path)
    out[path] = None if obj is None or not callable(obj) else params(obj)
json.dump(out, sys.stdout)
"""


def _versions() -> str:
    from importlib import metadata

    got = []
    for dist in ("tensorflow", "keras", "tf-keras"):
        try:
            got.append(f"{dist}={metadata.version(dist)}")
        except metadata.PackageNotFoundError:
            got.append(f"{dist}=-")
    return ",".join(got)


class SignatureOracle:
    """The parameters of framework callables, by ``inspect.signature`` in a subprocess.

    Memoised in-process and, with ``cache_dir``, on disk in one JSON file per installed versions
    of TensorFlow, Keras and tf_keras (a later mutate reads it instead of importing TensorFlow)."""

    def __init__(self, cache_dir: str | None = None) -> None:
        self.known: dict[str, dict[str, Any] | None] = {}
        self.cache_path: str | None = None
        if cache_dir:
            digest = hashlib.sha256(_versions().encode()).hexdigest()[:12]
            self.cache_path = os.path.join(cache_dir, f"signatures-{digest}.json")
            try:
                with open(self.cache_path, encoding="utf-8") as fh:
                    self.known.update(json.load(fh))
            except (OSError, ValueError):
                pass

    def lookup(self, paths: Iterable[str]) -> None:
        """Resolve every path not known yet, in one subprocess."""
        missing = sorted({p for p in paths if p not in self.known})
        if not missing:
            return
        env = {**os.environ, "TF_CPP_MIN_LOG_LEVEL": "3", "KERAS_BACKEND": "tensorflow"}
        try:
            proc = subprocess.run(
                [sys.executable, "-c", _PROBE],
                input=json.dumps(missing),
                capture_output=True,
                text=True,
                env=env,
                timeout=300,
                check=False,
            )
            got = json.loads(proc.stdout or "{}")
        except (OSError, ValueError, subprocess.TimeoutExpired):
            got = {}
        for p in missing:
            self.known[p] = got.get(p)
        if self.cache_path and got:
            try:
                os.makedirs(os.path.dirname(self.cache_path), exist_ok=True)
                tmp = f"{self.cache_path}.{os.getpid()}"
                with open(tmp, "w", encoding="utf-8") as fh:
                    json.dump(self.known, fh)
                os.replace(tmp, self.cache_path)
            except OSError:
                pass

    def accepts(self, callee: str, keyword: str, framework: str) -> tuple[bool | None, str | None]:
        """Whether ``callee`` (as imported) takes ``keyword`` on ``framework``: (answer, where it
        was found); None when the callee does not resolve there or takes ``**kwargs``."""
        paths = candidates(callee, framework)
        self.lookup(paths)
        for path in paths:
            info = self.known.get(path)
            if info is None:
                continue
            if info["var_kw"] or keyword in info["params"]:
                return (None if info["var_kw"] and keyword not in info["params"] else True), path
            return False, path
        return None, None


_DEFAULT: SignatureOracle | None = None


def default_oracle() -> SignatureOracle:
    """The process's oracle, cached under ``$MUTREAL_CACHE`` (default ``~/.cache/mutreal``)."""
    global _DEFAULT
    if _DEFAULT is None:
        cache = os.environ.get("MUTREAL_CACHE") or os.path.join(
            os.environ.get("XDG_CACHE_HOME") or os.path.expanduser("~/.cache"), "mutreal"
        )
        _DEFAULT = SignatureOracle(cache)
    return _DEFAULT


def _keras_canonical(callee: str, keyword: str) -> str:
    """A Keras 1 keyword (``init=``, ``W_regularizer=``) as the runner's rewrite spells it."""
    from mutreal.program import keras_api

    if keyword in keras_api.LEGACY_LAYER_KWARGS:
        return keras_api.canonical_kwarg(callee.rsplit(".", 1)[-1], keyword)
    return keyword


def check_keywords(
    original: ast.Module | Counter[tuple[str, str]],
    mutant: ast.Module,
    framework: str,
    oracle: SignatureOracle | None = None,
) -> list[Violation]:
    """The keyword arguments the mutant adds to framework callables that do not take them."""
    added = added_keywords(original, mutant)
    if not added:
        return []
    oracle = oracle or default_oracle()
    oracle.lookup(p for callee, _, _ in added for p in candidates(callee, framework))
    out = []
    for callee, kw, line in added:
        if framework != "keras3":
            kw = _keras_canonical(callee, kw)
        ok, where = oracle.accepts(callee, kw, framework)
        if ok is False:
            out.append(Violation("keyword", f"{where} takes no keyword {kw!r} ({framework})", line))
    return out


@dataclass
class _Original:
    """What the check needs of an original, computed once for all its mutants."""

    names: Counter[str]
    keywords: Counter[tuple[str, str]]

    @classmethod
    def of(cls, text: str) -> _Original:
        try:
            tree = ast.parse(text)
        except SyntaxError:
            tree = ast.parse("")
        return cls(
            Counter(n for n, _ in unbound_names(tree)),
            Counter((c, k) for c, k, _ in _keyword_pairs(tree)),
        )


def check_code(
    original: str | _Original,
    mutant: str,
    framework: str | Callable[[], str] | None,
    oracle: SignatureOracle | None = None,
) -> list[Violation]:
    """Every violation of the mutant text against its original (``framework`` None: names only; a
    callable is asked only when the mutant adds a keyword to a framework callable)."""
    before = original if isinstance(original, _Original) else _Original.of(original)
    try:
        after = ast.parse(mutant)
    except SyntaxError as exc:
        return [Violation("syntax", str(exc.msg), exc.lineno)]
    out = check_names(before.names, after)
    if framework is not None and added_keywords(before.keywords, after):
        fw = framework() if callable(framework) else framework
        out.extend(check_keywords(before.keywords, after, fw, oracle))
    return out


def program_framework(program: Any) -> str:
    """The framework ``--framework auto`` runs a program on (memoised on the program): TensorFlow 1
    graph code is ``tf1`` without running the converter; the rest as the runner decides."""
    got = getattr(program, "_framework", None)
    if got is None:
        if program.model.era == "tf1":
            got = "tf1"
        else:
            from mutreal.compat.framework_choice import prepare_runtime

            got = prepare_runtime(program.text).framework
        program._framework = got
    return got


def check_mutant(
    program: Any, mutant: Any, oracle: SignatureOracle | None = None, *, keywords: bool = True
) -> list[Violation]:
    """The static check of a mutant (a :class:`~mutreal.mutation.operators.records.Mutant`, first
    or higher order) of ``program``: [] when it passes."""
    framework = (lambda: program_framework(program)) if keywords else None
    original = getattr(program, "_static_original", None)
    if original is None:
        original = program._static_original = _Original.of(program.text)
    return check_code(original, mutant.code, framework, oracle)
