"""Operator parameters from the source text of real programs: ``"0.1"`` -> 0.1, ``'tanh'`` -> tanh.

A real fault records its two sides as short source text (``before``/``after`` in the results
JSONL); to repeat the fault with an operator, that text must become a value the operator accepts
at a site: a number (constant arithmetic such as ``1/255`` included), or a name in the operator's
catalogue list through Keras' canonical spellings (``'Adam'``, ``optimizers.adam(...)``). Both
``hom-generate`` (values of higher-order mutants) and ``validate-operators`` (reconstructing a real
fault) need exactly this, so it lives here and not in either of them.
"""

from __future__ import annotations

import ast
import math
from collections.abc import Sequence
from typing import Any

from mutreal.mutation.operators import Operator, Site
from mutreal.program import keras_api

__all__ = ["checked_value", "literal_value", "number", "same_value", "spelled_name", "value_from_text"]


def literal_value(text: str | None) -> Any:
    """The value a literal (or constant arithmetic) text spells; None when it is not one."""
    if text is None:
        return None
    try:
        return ast.literal_eval(text.strip())
    except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
        pass
    try:  # simple arithmetic such as 1/255 or 10**-3
        return _arith(ast.parse(text.strip(), mode="eval").body)
    except (SyntaxError, ValueError, ArithmeticError, TypeError):
        return None


_BINOPS = {
    ast.Add: lambda a, b: a + b,
    ast.Sub: lambda a, b: a - b,
    ast.Mult: lambda a, b: a * b,
    ast.Div: lambda a, b: a / b,
    ast.FloorDiv: lambda a, b: a // b,
}


def _arith(node: ast.AST) -> float | int:
    """A constant arithmetic expression's value (no names, no calls; small powers only)."""
    if (
        isinstance(node, ast.Constant)
        and isinstance(node.value, int | float)
        and not isinstance(node.value, bool)
    ):
        return node.value
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub | ast.UAdd):
        v = _arith(node.operand)
        return -v if isinstance(node.op, ast.USub) else v
    if isinstance(node, ast.BinOp):
        a, b = _arith(node.left), _arith(node.right)
        if isinstance(node.op, ast.Pow):
            if abs(b) > 64 or abs(a) > 1e6:
                raise ValueError("power too large")
            return a**b
        op = _BINOPS.get(type(node.op))
        if op is not None:
            return op(a, b)
    raise ValueError("not a constant arithmetic expression")


def number(text: str | None) -> float | None:
    """A finite number the text spells (booleans are not numbers); None otherwise."""
    v = literal_value(text)
    if isinstance(v, bool) or not isinstance(v, int | float):
        return None
    f = float(v)
    return f if math.isfinite(f) else None


def spelled_name(text: str | None) -> str | None:
    """The name a value's text spells: ``'relu'`` -> relu, ``SGD(lr=0.1)`` -> SGD, ``tf.nn.relu`` -> relu."""
    if text is None:
        return None
    try:
        node = ast.parse(text.strip(), mode="eval").body
    except SyntaxError:
        return None
    if isinstance(node, ast.Call):
        node = node.func
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    if isinstance(node, ast.Attribute):
        return node.attr
    if isinstance(node, ast.Name):
        return node.id
    return None


_CANONICAL = (
    keras_api.canonical_activation,
    keras_api.canonical_loss,
    keras_api.canonical_optimizer,
    keras_api.canonical_initializer,
    keras_api.canonical_regularizer,
)


def _categorical(name: str, allowed: Sequence[Any]) -> str | None:
    """``name`` as one of ``allowed`` (a catalogue list), through Keras' canonical spellings."""
    options = {str(a).lower(): a for a in allowed}
    tries = [name, name.lower()]
    for canon in _CANONICAL:
        try:
            got = canon(name)
        except Exception:  # a canonicaliser that does not know the kind of name
            got = None
        if got:
            tries.append(str(got))
            tries.append(str(got).lower())
    for t in tries:
        if t.lower() in options:
            return options[t.lower()]
    return None


def value_from_text(op: Operator, site: Site, text: str | None) -> tuple[bool, Any, str]:
    """The parameter of ``op`` at ``site`` that writes the value ``text`` (a real program's source).

    Returns (ok, value, why-not). Operators without a parameter need none (ok, None).
    """
    spec = op.spec.param
    if spec is None:
        return True, None, ""
    if text is None:
        return False, None, f"the buggy program has no written value for {spec.name}"
    if spec.type in ("int", "float"):
        n = number(text)
        if n is None:
            return False, None, f"{text!r} is not a number"
        value: Any = n
    else:
        name = spelled_name(text)
        if name is None:
            return False, None, f"{text!r} names no {spec.name}"
        value = _categorical(name, spec.values) if spec.values else name
        if value is None:
            return False, None, f"{name!r} is not in {op.id}'s value list"
    return checked_value(op, site, value)


def checked_value(op: Operator, site: Site, value: Any) -> tuple[bool, Any, str]:
    """``value`` validated by the parameter spec and accepted by the operator at ``site``: (ok, value, why-not)."""
    spec = op.spec.param
    assert spec is not None
    try:
        v = spec.validate(value)
    except ValueError as exc:
        return False, None, str(exc)
    if not op.accepts(site, v):
        return False, None, f"{op.id} does not write {v!r} at {site.element}"
    return True, v, ""


def same_value(a: Any, b: Any) -> bool:
    """Whether two values (or their texts) are the same: names case-blind, numbers close."""
    if a is None or b is None:
        return a is None and b is None
    na, nb = (
        spelled_name(str(a)) if isinstance(a, str) else a,
        spelled_name(str(b)) if isinstance(b, str) else b,
    )
    if isinstance(na, str) and isinstance(nb, str):
        return na.lower() == nb.lower()
    try:
        return math.isclose(float(na), float(nb), rel_tol=1e-9)
    except (TypeError, ValueError):
        return False
