"""Do a mutant's provenance and classify agree? (item 5: classify(original, mutant) must return
exactly the components the provenance lists, matched on element path, operator and values).

Why here: the property test, ``hom-generate`` (HOMs whose classify components equal their
provenance) and ``validate-operators`` all need the same matching rule. Values are compared after
normalising source texts: quotes, whitespace, numbers (``1e-3`` == ``0.001``), and names written
with a module prefix (``tf.nn.relu`` == ``'relu'``).
"""

from __future__ import annotations

import ast
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from mutreal.mutation.operators.base import Component
from mutreal.program.model import canonical_path


def normalise_value(text: str | None) -> Any:
    """A comparable form of a value's source text (None stays None)."""
    if text is None:
        return None
    t = "".join(str(text).split())
    try:
        v = ast.literal_eval(t)
    except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
        v = t
    if isinstance(v, bool):
        return v
    if isinstance(v, int | float):
        return float(v)
    if isinstance(v, str):
        return v.rsplit(".", 1)[-1].lower() if "(" not in v else v.lower()
    return repr(v)


def same_value(a: str | None, b: str | None) -> bool:
    return normalise_value(a) == normalise_value(b)


def _get(c: Any, key: str) -> Any:
    return c.get(key) if isinstance(c, Mapping) else getattr(c, key, None)


@dataclass
class Agreement:
    """Result of matching provenance components against classify components."""

    matched: list[tuple[Component, Any]] = field(default_factory=list)
    missing: list[Component] = field(default_factory=list)  # in the provenance, not found by classify
    extra: list[Any] = field(default_factory=list)  # reported by classify, not in the provenance
    wrong: list[tuple[Component, Any, str]] = field(default_factory=list)  # same element, other op/values

    @property
    def ok(self) -> bool:
        return not (self.missing or self.extra or self.wrong)

    def describe(self) -> str:
        parts = []
        for c, got, why in self.wrong:
            parts.append(
                f"{c.element}: expected {c.operator} {c.before!r}->{c.after!r}, classify gave "
                f"{_get(got, 'deepcrime')} ({_get(got, 'code')}) {_get(got, 'before')!r}->{_get(got, 'after')!r} [{why}]"
            )
        parts += [f"missing {c.element} {c.operator}" for c in self.missing]
        parts += [
            f"extra {_get(x, 'element')} {_get(x, 'kind')} {_get(x, 'deepcrime')} ({_get(x, 'code')})"
            for x in self.extra
        ]
        return "; ".join(parts) or "ok"


def compare_components(
    expected: Sequence[Component], found: Iterable[Any], *, check_values: bool = True
) -> Agreement:
    """Match provenance components with classify components (``ComponentResult``s or dicts)."""
    out = Agreement()
    pool = list(found)
    for comp in expected:
        path = canonical_path(comp.element)
        hit = None
        for i, got in enumerate(pool):
            other = canonical_path(_get(got, "element"))
            # a catalogue element naming a whole preprocessing chain matches a step of it
            if other == path or (path.endswith(".preprocess") and other.startswith(path + "[")):
                hit = pool.pop(i)
                break
        if hit is None:
            out.missing.append(comp)
            continue
        why = []
        if _get(hit, "deepcrime") != comp.operator:
            why.append("operator")
        if check_values and not same_value(comp.after, _get(hit, "after")):
            why.append("after")
        if check_values and comp.before is not None and not same_value(comp.before, _get(hit, "before")):
            why.append("before")
        if why:
            out.wrong.append((comp, hit, ",".join(why)))
        else:
            out.matched.append((comp, hit))
    out.extra = pool
    return out
