"""Operator parameters from the source text of real programs: ``"0.1"`` -> 0.1, ``'tanh'`` -> tanh.

A real fault records its two sides as short source text (``before``/``after`` in the results
JSONL); to repeat the fault with an operator, that text must become a value the operator accepts
at a site: a number (constant arithmetic such as ``1/255`` included), or a name in the operator's
catalogue list through Keras' canonical spellings (``'Adam'``, ``optimizers.adam(...)``). Both
``hom-generate`` (values of higher-order mutants) and ``validate-operators`` (reconstructing a real
fault) need exactly this, so it lives here and not in either of them. :func:`infer_value` is the
reconstruction's whole rule (:mod:`mutreal.mutation.reconstruct`): the written value, else the one
classify resolved for a name, else the buggy program model's folded constant, else, for a value the
buggy program computes, the catalogue's, said so.
"""

from __future__ import annotations

import ast
import math
from collections.abc import Callable, Sequence
from typing import Any

from mutreal.mutation.operators import Operator, Site
from mutreal.program import keras_api
from mutreal.program.model import canonical_path, parse_path

__all__ = [
    "checked_value",
    "folded_value",
    "infer_value",
    "literal_value",
    "number",
    "same_value",
    "spelled_name",
    "value_from_text",
]


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


# ---------------------------------------------------------------------------------------------------
# A real fault's value: written, resolved, folded, or the catalogue's
# ---------------------------------------------------------------------------------------------------


def folded_value(model: Any, element: str) -> str | None:
    """The value at ``element`` as the program model folded it (a variable holding ``'mse'``, a
    constant ``EPOCHS``, an argument left to the era's default), as source text for
    :func:`~mutreal.mutation.operator_values.value_from_text`; None when the model has no constant
    there. Used when the component's own text is not a value (a name)."""
    try:
        segs = parse_path(canonical_path(element))
    except Exception:
        return None
    names = [name for name, _ in segs]
    value: Any = None
    try:
        if names[0] == "compile" and len(segs) >= 2:
            comp = model.compiles[segs[0][1] or 0]
            if names[1:] == ["loss"]:
                value = comp.loss
            elif names[1:] == ["optimizer"] and comp.optimizer is not None and comp.optimizer.cls:
                return repr(comp.optimizer.cls)
            elif names[1] == "optimizer" and len(names) == 3 and comp.optimizer is not None:
                value = comp.optimizer.arg(names[2], model.era)
        elif names[0] == "fit" and len(segs) == 2:
            value = model.fits[segs[0][1] or 0].arg(names[1], model.era)
        elif names[:2] == ["model", "layer"] and len(segs) == 3:
            folded = model.models[segs[0][1] or 0].folded_layers(model.era)[segs[1][1] or 0]
            value = folded.activation if names[2] == "activation" else folded.layer.arg(names[2], model.era)
    except (IndexError, KeyError, AttributeError, TypeError):
        return None
    if value is None or not getattr(value, "is_const", False) or value.value is None:
        return None
    return repr(value.value)


def _computed(op: Operator, text: str | None) -> bool:
    """Whether the buggy program has no written value for ``op``'s number parameter: none at all, or
    an expression computed at run time (``int(0.3 * len(y))``) rather than a literal or constant
    arithmetic. A written value the operator cannot take (``epochs=0``, a loss outside DeepCrime's
    list) is no such case: the catalogue would make another fault, not this one."""
    spec = op.spec.param
    if spec is None:
        return False
    if text is None:
        return True
    return spec.type in ("int", "float") and literal_value(text) is None and number(text) is None


def _removed_share(op: Operator, comp: Any, model: Any) -> float | None:
    """TRD's parameter (the percentage of training rows removed) from a slice of the buggy
    program's training array (``x_train[:600]``, ``x[: int(0.3 * len(x))]``) whose source size
    the program model knows (a Keras or scikit-learn data set): ``100 * (1 - kept / size)``."""
    element = comp.element or ""
    if op.id != "TRD" or model is None or not element.startswith("data."):
        return None
    role = element.split(".")[1]
    var = (getattr(model, "data", None) or {}).get(role)
    size = getattr(getattr(var, "source", None), "size", None)
    if not size:
        return None
    want = "".join(str(comp.after or "").split())
    slices = [o for o in var.preprocess if o.op == "slice"]
    step = next(
        (o for o in slices if "".join(o.text.split()) == want), slices[0] if len(slices) == 1 else None
    )
    if step is None:
        return None
    kept = _slice_length(step.text, int(size))
    if kept is None or not 0 < kept < size:
        return None
    return round(100.0 * (1 - kept / size), 4)


def _slice_length(text: str, size: int) -> int | None:
    """How many rows ``name[a:b]`` keeps of ``size``: bounds that are numbers, or arithmetic over
    ``len(...)`` (the array's size) with ``int``/``round``; None for anything else."""
    try:
        node = ast.parse(text.strip(), mode="eval").body
    except SyntaxError:
        return None
    if not isinstance(node, ast.Subscript) or not isinstance(node.slice, ast.Slice) or node.slice.step:
        return None

    def bound(expr: ast.expr | None, default: int) -> int | None:
        if expr is None:
            return default
        try:
            return int(_evaluate(expr, size))
        except (ValueError, TypeError, ArithmeticError):
            return None

    lo, hi = bound(node.slice.lower, 0), bound(node.slice.upper, size)
    if lo is None or hi is None:
        return None
    return len(range(size)[lo:hi])


def _evaluate(node: ast.expr, size: int) -> float:
    """Constant arithmetic where ``len(...)`` is ``size`` and ``int``/``round`` are allowed."""
    if (
        isinstance(node, ast.Constant)
        and isinstance(node.value, int | float)
        and not isinstance(node.value, bool)
    ):
        return node.value
    if (
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Name)
        and len(node.args) == 1
        and not node.keywords
    ):
        if node.func.id == "len":
            return size
        if node.func.id in ("int", "round"):
            inner = _evaluate(node.args[0], size)
            return int(inner) if node.func.id == "int" else round(inner)
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
        return -_evaluate(node.operand, size)
    if isinstance(node, ast.BinOp):
        a, b = _evaluate(node.left, size), _evaluate(node.right, size)
        ops = {ast.Add: a + b, ast.Sub: a - b, ast.Mult: a * b}
        if type(node.op) in ops:
            return ops[type(node.op)]
        if isinstance(node.op, ast.Div):
            return a / b
        if isinstance(node.op, ast.FloorDiv):
            return a // b
    raise ValueError("not a size expression")


def _catalogue_value(op: Operator, site: Site) -> tuple[bool, Any, str]:
    """The catalogue's first value the operator accepts at ``site`` (DeepCrime's list or grid)."""
    spec = op.spec.param
    if spec is None:
        return True, None, ""
    for candidate in spec.candidates(site.original):
        ok, value, _ = checked_value(op, site, candidate)
        if ok:
            return True, value, ""
    return False, None, f"no catalogue value of {op.id} applies at {site.element}"


def infer_value(
    op: Operator, site: Site, comp: Any, buggy_model: Callable[[], Any] | None
) -> tuple[bool, Any, str, str | None]:
    """(ok, value, why-not, origin) of the parameter that writes a real fault's buggy value at
    ``site``. ``comp`` is a classify component in the mutation direction (its ``after`` text, its
    ``resolved`` values, its ``element``); ``buggy_model`` lazily gives the buggy program's model.
    Origins: ``buggy`` (the text), ``resolved`` (classify's value of a name), ``folded`` (the
    model's constant, or TRD's share of a slice), ``catalogue`` (computed and not folded: the
    catalogue's first value the operator takes here, said in why-not's place)."""
    ok, value, why = value_from_text(op, site, comp.after)
    if ok:
        return ok, value, why, "buggy"
    resolved = (comp.resolved or {}).get("after")
    if resolved is not None:
        ok2, value2, _ = value_from_text(op, site, repr(resolved))
        if ok2:
            return True, value2, "", "resolved"
    model = buggy_model() if buggy_model is not None else None
    if model is not None:
        folded = folded_value(model, comp.element)
        if folded is not None:
            ok2, value2, _ = value_from_text(op, site, folded)
            if ok2:
                return True, value2, "", "folded"
            return False, None, f"{why} (folded: {folded})", None
    share = _removed_share(op, comp, model)
    if share is not None:
        ok4, value4, _ = checked_value(op, site, share)
        if ok4:
            return True, value4, "", "folded"
    if resolved is None and _computed(op, comp.after):
        # the buggy program computes the value (or has none written): the catalogue's, said so
        ok3, value3, why3 = _catalogue_value(op, site)
        if ok3:
            what = "has no written value" if comp.after is None else f"computes {comp.after!r}"
            note = (
                f"the buggy program {what} for {op.spec.param.name} and nothing folds it: "
                f"the catalogue's value {value3!r} is used"
            )
            return True, value3, note, "catalogue"
        return False, None, f"{why}; {why3}", None
    return False, None, why, None
