"""Equality of argument values under the noise rules (renamed variables, values moved into variables)."""

from __future__ import annotations

import re
from typing import Any

from mutreal.compare.noise import noise_rule
from mutreal.program.model import Value


def short(v: Value | None) -> str | None:
    return None if v is None else v.short()


def number(v: Value | None) -> float | None:
    """The value as a number when it is a numeric constant (booleans are not numbers here)."""
    if v is not None and v.is_const and isinstance(v.value, (int, float)) and not isinstance(v.value, bool):
        return v.value
    return None


def activation_name(v: Value | None) -> str:
    """Canonical activation name; None/absent means linear."""
    if v is None:
        return "linear"
    name = v.name
    if v.is_const and v.value is None:
        return "linear"
    return str(name if name is not None else v.key()).split(".")[-1].lower()


_IDENTIFIER = re.compile(r"(?<![.\w])[A-Za-z_]\w*")


def _anonymous(text: str) -> str:
    return _IDENTIFIER.sub("_", "".join(text.split()))


@noise_rule("renamed_variables", "a variable renamed consistently denotes the same value")
def same_expression_renamed(a: str, b: str) -> bool:
    """Two source texts that differ in their variable names only (attribute names kept):
    ``len(x_list[0])`` equals ``len(xs[0])``."""
    return _anonymous(a) == _anonymous(b)


_BARE_NAME = re.compile(r"^[A-Za-z_]\w*$")


@noise_rule("value_moved_into_variable", "lr = 0.01 ... SGD(lr=lr) equals SGD(lr=0.01)")
def unresolved_name(v: Value) -> bool:
    """A variable the extractor could not fold (a name, or an opaque bare name): undecidable
    against anything, so no fault is claimed for it."""
    if v.kind == "ref" and str(v.value).startswith("data:"):
        return True  # a value computed from the data at run time (n_classes = y.nunique())
    return v.kind == "name" or (v.kind == "opaque" and bool(_BARE_NAME.match(v.text.strip())))


def items(v: Value) -> list[Value] | None:
    """The items of a sequence value (written or folded), or None."""
    if v.kind == "seq":
        return v.args
    if isinstance(v.value, (list, tuple)):
        return [Value.const(x) for x in v.value]
    return None


#: the two rules' functions, called directly in the hot path below (no rule-object indirection)
_unresolved = unresolved_name.apply
_renamed = same_expression_renamed.apply


def values_equal(a: Value | None, b: Value | None, strict_opaque: bool = False) -> bool:
    """Equality of two argument values under the noise rules.

    ``renamed_variables`` / ``value_moved_into_variable``: a variable the model could not fold is
    undecidable against anything, so no fault is claimed for it; two opaque expressions are equal
    when their texts are, variable names aside (``len(x_list[0])`` equals ``len(xs[0])``); an opaque
    expression against a constant is undecidable too, except with ``strict_opaque`` (shapes:
    ``input_shape=X.shape`` against ``(30, 1)`` is a changed input shape). Sequences and calls
    compare item by item.
    """
    if a is None and b is None:
        return True
    if a is None or b is None:
        return False
    if a.same(b) or (a.implicit and b.implicit):
        return True  # both unwritten: only the era's default differs, the program did not change
    if _unresolved(a) or _unresolved(b):
        return True
    if a.kind in ("seq", "const") and b.kind in ("seq", "const") and "seq" in (a.kind, b.kind):
        # two sequences, or a sequence against its folded constant: item by item
        items_a, items_b = items(a), items(b)
        if items_a is not None and items_b is not None:
            return len(items_a) == len(items_b) and all(
                values_equal(x, y) for x, y in zip(items_a, items_b, strict=True)
            )
    if (a.kind == "opaque" or b.kind == "opaque") and a.text and _renamed(a.text, b.text):
        return True  # the same expression, resolved on one side only
    if a.kind == "opaque" and b.kind == "opaque":
        return False
    if not strict_opaque and (a.kind == "opaque" or b.kind == "opaque"):
        return True  # a runtime value (desc[i], y.nunique()) against a constant: undecidable
    if a.kind == b.kind == "call" and a.value == b.value:
        return (
            len(a.args) == len(b.args)
            and all(values_equal(x, y) for x, y in zip(a.args, b.args, strict=True))
            and set(a.kwargs) == set(b.kwargs)
            and all(values_equal(a.kwargs[k], b.kwargs[k]) for k in a.kwargs)
        )
    return False


def shape_equal(a: Value | None, b: Value | None) -> bool:
    """input_dim=n equals input_shape=(n,)."""

    def norm(v: Value | None) -> Any:
        if v is None:
            return None
        if v.is_const:
            val = v.value
            if isinstance(val, (int, float)):
                return (val,)
            if isinstance(val, (list, tuple)):
                return tuple(val)
        return v.key()

    return norm(a) == norm(b)


def none_is_absent(v: Value | None) -> Value | None:
    """kernel_regularizer=None is no regulariser at all."""
    return None if v is not None and v.is_const and v.value is None else v


def folded_shape(v: Value) -> list[Any] | None:
    """A declared shape as folded numbers (``(timesteps, dim)`` -> [10, 1]); None when not constant."""
    if v.kind != "const":
        return None
    if isinstance(v.value, (int, float)) and not isinstance(v.value, bool):
        return [v.value]
    return list(v.value) if isinstance(v.value, (list, tuple)) else None
