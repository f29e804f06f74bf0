"""The framework names a mutant writes, and whether they exist in the installed framework of its era.

Why: a mutant that names an API its framework lacks (OCH writing ``tf.compat.v1.train.Adam()``
next to ``tf.compat.v1.train.GradientDescentOptimizer``) dies at start, a stillborn mutant any
test "kills". The operators pick names from tables; this module checks what they *wrote*, read
back from the edits' source snippets, against the packages installed here: Keras 3 (``keras``)
for a Keras 3 program, Keras 2 (``tf_keras``) for a Keras 1/2 or tf.keras program, TensorFlow
itself (``tf.compat.v1.train...``) for the rest. String values (``'adam'``, ``'relu'``,
``'mean_squared_error'``) are looked up with the era's ``<module>.get``.

:func:`written_names` is cheap (snippets only); :func:`missing_names` imports the frameworks and
is meant for tests and benchmarks, not for ``mutate`` itself.
"""

from __future__ import annotations

import ast
import inspect
from collections.abc import Iterable, Mapping
from dataclasses import asdict, dataclass
from functools import cache
from typing import Any

from mutreal.mutation.operators.program import Program
from mutreal.mutation.operators.records import Edit, Mutant

#: the Keras module whose ``get`` reads an operator's string value
STRING_KINDS: dict[str, str] = {
    "ACH": "activations",
    "AAL": "activations",
    "LCH": "losses",
    "OCH": "optimizers",
    "WCI": "initializers",
    "RAW": "regularizers",
    "RCW": "regularizers",
}

__all__ = ["WrittenName", "written_names", "missing_names", "STRING_KINDS"]


@dataclass(frozen=True)
class WrittenName:
    """One framework name a mutant writes: a dotted name (``tensorflow.keras.optimizers.SGD``),
    a keyword of such a call (``SGD.learning_rate``) or a string value of a Keras kind."""

    kind: str  # "name", "keyword" or a Keras module ("activations", "losses", ...)
    name: str
    keyword: str | None = None

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> WrittenName:
        return cls(**data)

    def __str__(self) -> str:
        if self.kind == "keyword":
            return f"{self.name}({self.keyword}=...)"
        if self.kind == "name":
            return self.name
        return f"{self.kind} {self.name!r}"


def dotted_name(node: ast.AST) -> str | None:
    """``a.b.c`` for an ``ast`` Name or chain of Attributes; None for any other expression."""
    parts = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if not isinstance(node, ast.Name):
        return None
    parts.append(node.id)
    return ".".join(reversed(parts))


def _import_aliases(tree: ast.AST) -> dict[str, str]:
    out = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for a in node.names:
                out[a.asname or a.name.split(".")[0]] = a.name if a.asname else a.name.split(".")[0]
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            for a in node.names:
                out[a.asname or a.name] = f"{node.module}.{a.name}"
    return out


def _parse(code: str) -> ast.AST | None:
    for mode in ("eval", "exec"):
        try:
            return ast.parse(code.strip(), mode=mode)
        except SyntaxError:
            continue
    return None


def _edit_names(program: Program, edit: Edit, aliases: Mapping[str, str]) -> list[WrittenName]:
    out: list[WrittenName] = []
    for ch in edit.changes:
        if ch.kind == "set_arg" and ch.keyword:
            # a keyword added to a call of the program: the callee must take it
            call = program.index.nodes.get(ch.target)
            dotted = None
            if call is not None and hasattr(call, "func"):
                tree = _parse(program.module.code_for_node(call.func))  # type: ignore[attr-defined]
                dotted = dotted_name(tree.body) if isinstance(tree, ast.Expression) else None
            root, _, rest = (dotted or "").partition(".")
            if root in aliases:
                full = f"{aliases[root]}.{rest}" if rest else aliases[root]
                out.append(WrittenName("keyword", full, ch.keyword))
        tree = _parse(ch.code) if ch.code else None
        if tree is None:
            continue
        if ch.kind == "import":
            out += [WrittenName("name", target) for target in _import_aliases(tree).values()]
            continue
        for node in ast.walk(tree):
            if not isinstance(node, ast.Attribute | ast.Name) or not isinstance(
                getattr(node, "ctx", None), ast.Load
            ):
                continue
            dotted = dotted_name(node)
            if dotted is None:
                continue
            root, _, rest = dotted.partition(".")
            target = aliases.get(root)
            if target is None:
                continue  # a program variable (``lambda_``, ``x_train``), not a framework name
            out.append(WrittenName("name", f"{target}.{rest}" if rest else target))
        for node in ast.walk(tree):
            if isinstance(node, ast.Call):
                dotted = dotted_name(node.func)
                root, _, rest = (dotted or "").partition(".")
                target = aliases.get(root)
                if target is None:
                    continue
                full = f"{target}.{rest}" if rest else target
                out += [WrittenName("keyword", full, k.arg) for k in node.keywords if k.arg]
    kind = STRING_KINDS.get(edit.operator)
    try:
        written = ast.literal_eval((edit.new or "").strip())
    except (ValueError, SyntaxError):
        written = None
    if kind and isinstance(written, str):  # the value written as a string (not a call)
        out.append(WrittenName(kind, written))
    return out


def written_names(program: Program, mutant: Mutant | Iterable[Edit]) -> list[WrittenName]:
    """The framework names a mutant's edits write (each once, in order): dotted names reached
    through the program's imports or the imports the edits add, keywords of calls to them, and
    string values of the operators in :data:`STRING_KINDS`."""
    edits = mutant.edits if isinstance(mutant, Mutant) else list(mutant)
    aliases = dict(program.model.imports)
    for e in edits:
        for ch in e.changes:
            if ch.kind == "import":
                tree = _parse(ch.code)
                if tree is not None:
                    aliases.update(_import_aliases(tree))
    seen: dict[WrittenName, None] = {}
    for e in edits:
        for n in _edit_names(program, e, aliases):
            seen.setdefault(n, None)
    return list(seen)


def _package(era: str) -> str:
    return "keras" if era == "keras3" else "tf_keras"


def _rebase(name: str, era: str) -> str:
    """The installed module path of a written name in the program's era."""
    pkg = _package(era)
    for prefix in (
        "tensorflow.contrib.keras.api.keras",
        "tensorflow.contrib.keras",
        "tensorflow.python.keras",
        "tensorflow.keras",
        "keras",
    ):
        if name == prefix or name.startswith(prefix + "."):
            return pkg + name[len(prefix) :]
    return name


def _lookup(name: str) -> tuple[bool, Any]:
    """:func:`_resolve`, with a TensorFlow 1 name (``tf.train.AdamOptimizer``) looked up where
    TensorFlow 2 keeps it (``tf.compat.v1.train.AdamOptimizer``)."""
    found = _resolve(name)
    if not found[0] and name.startswith("tensorflow.") and not name.startswith("tensorflow.compat."):
        return _resolve("tensorflow.compat.v1." + name[len("tensorflow.") :])
    return found


@cache
def _resolve(name: str) -> tuple[bool, Any]:
    from mutreal.compat.tf1_contrib import import_prefix

    try:
        prefix = import_prefix(name)
    except Exception:  # a package that fails to import here: the name cannot be checked
        return True, None
    if prefix is None:
        return False, None
    obj: Any = prefix[0]
    try:
        for attr in prefix[1]:
            obj = getattr(obj, attr)
    except AttributeError:
        return False, None
    return True, obj


def _takes_keyword(obj: Any, keyword: str) -> bool:
    try:
        params = inspect.signature(obj).parameters
    except (TypeError, ValueError):
        return True  # a builtin without a signature: cannot tell
    if keyword in params:
        return True
    return any(p.kind is inspect.Parameter.VAR_KEYWORD for p in params.values())


@cache
def _string_exists(kind: str, value: str, era: str) -> bool:
    ok, module = _resolve(f"{_package(era)}.{kind}")
    if not ok or module is None:
        return True
    try:
        module.get(value)
    except (ValueError, TypeError, KeyError):
        return False
    return True


def missing_names(names: Iterable[WrittenName], era: str) -> list[WrittenName]:
    """The written names the installed framework of ``era`` lacks (imports the frameworks).

    A keyword is missing when the callee's signature neither lists it nor takes ``**kwargs``
    (Keras 2's layers take ``**kwargs`` and check them inside: such keywords pass here)."""
    out = []
    for n in names:
        if n.kind == "name":
            if not _lookup(_rebase(n.name, era))[0]:
                out.append(n)
        elif n.kind == "keyword":
            ok, obj = _lookup(_rebase(n.name, era))
            if ok and obj is not None and not _takes_keyword(obj, n.keyword or ""):
                out.append(n)
        elif not _string_exists(n.kind, n.name, era):
            out.append(n)
    return out
