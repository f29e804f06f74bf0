"""Folding of simple constants: literals, arithmetic on literals, tuples/lists of constants.

Programs write ``lr = 0.01`` and use ``lr`` later, ``epochs=10*2``, ``input_shape=(28, 28, 1)``
or ``1e-3``; the diff must see numbers, not spellings. :func:`literal` folds a node whose value
does not depend on the environment; the walker looks names up itself and calls :func:`fold_binary`
/ :func:`fold_unary` on values it already has.
"""

from __future__ import annotations

import ast
import math
import operator
from typing import Any

import libcst as cst

#: marker for "not a constant"
NOT_CONST: Any = object()

_BINOPS = {
    cst.Add: operator.add,
    cst.Subtract: operator.sub,
    cst.Multiply: operator.mul,
    cst.Divide: operator.truediv,
    cst.FloorDivide: operator.floordiv,
    cst.Modulo: operator.mod,
    cst.Power: operator.pow,
}


def fold_binary(op: cst.BaseBinaryOp, left: Any, right: Any) -> Any:
    """``left op right`` for numbers (and str/list/tuple concatenation/repetition), else NOT_CONST."""
    fn = _BINOPS.get(type(op))
    if fn is None or left is NOT_CONST or right is NOT_CONST:
        return NOT_CONST
    numeric = (int, float)
    if isinstance(left, bool) or isinstance(right, bool):
        return NOT_CONST
    try:
        if isinstance(left, numeric) and isinstance(right, numeric):
            if fn is operator.pow and (abs(right) > 64 or abs(left) > 1e6):
                return NOT_CONST
            result = fn(left, right)
            if isinstance(result, float) and (math.isnan(result) or math.isinf(result)):
                return NOT_CONST
            return result
        if fn is operator.add and type(left) is type(right) and isinstance(left, str | list):
            return left + right
        if (
            fn is operator.mul
            and isinstance(left, list | str)
            and isinstance(right, int)
            and 0 <= right <= 64
        ):
            return left * right
    except (ArithmeticError, ValueError, TypeError, OverflowError):
        return NOT_CONST
    return NOT_CONST


def fold_unary(op: cst.BaseUnaryOp, value: Any) -> Any:
    if value is NOT_CONST:
        return NOT_CONST
    if isinstance(op, cst.Minus) and isinstance(value, int | float) and not isinstance(value, bool):
        return -value
    if isinstance(op, cst.Plus) and isinstance(value, int | float):
        return value
    if isinstance(op, cst.Not):
        return not value
    return NOT_CONST


def number(node: cst.Integer | cst.Float) -> Any:
    """The value of a number literal (``1_000``, ``1e-3``, ``0x10``)."""
    text = node.value.replace("_", "")
    try:
        if isinstance(node, cst.Integer):
            return int(text, 0) if text[:2].lower() in ("0x", "0o", "0b") else int(text)
        return float(text)
    except ValueError:
        try:
            return ast.literal_eval(node.value)
        except (ValueError, SyntaxError):
            return NOT_CONST


def string(node: cst.BaseString) -> Any:
    """The value of a string literal without expressions; bytes and f-strings with fields are not constant."""
    if isinstance(node, cst.SimpleString):
        prefix = node.prefix.lower()
        if "b" in prefix:
            return NOT_CONST
        raw = node.value
        if not prefix and "\\" not in raw:
            q = 3 if raw[:3] in ('"""', "'''") else 1
            return raw[q:-q]
        try:
            return ast.literal_eval(node.value)
        except (ValueError, SyntaxError):
            return NOT_CONST
    if isinstance(node, cst.ConcatenatedString):
        left, right = string(node.left), string(node.right)
        if left is NOT_CONST or right is NOT_CONST:
            return NOT_CONST
        return left + right
    if isinstance(node, cst.FormattedString):
        if all(isinstance(p, cst.FormattedStringText) for p in node.parts):
            return "".join(p.value for p in node.parts)  # type: ignore[union-attr]
        return NOT_CONST
    return NOT_CONST


_NAMED = {"True": True, "False": False, "None": None}


def literal(node: cst.BaseExpression) -> Any:
    """Fold ``node`` when it is constant on its own (no names except True/False/None), else NOT_CONST."""
    if isinstance(node, cst.Integer | cst.Float):
        return number(node)
    if isinstance(node, cst.BaseString):
        return string(node)
    if isinstance(node, cst.Name):
        return _NAMED.get(node.value, NOT_CONST) if node.value in _NAMED else NOT_CONST
    if isinstance(node, cst.UnaryOperation):
        return fold_unary(node.operator, literal(node.expression))
    if isinstance(node, cst.BinaryOperation):
        return fold_binary(node.operator, literal(node.left), literal(node.right))
    if isinstance(node, cst.Tuple | cst.List):
        items = []
        for el in node.elements:
            if isinstance(el, cst.StarredElement):
                return NOT_CONST
            v = literal(el.value)
            if v is NOT_CONST:
                return NOT_CONST
            items.append(v)
        return items
    return NOT_CONST
