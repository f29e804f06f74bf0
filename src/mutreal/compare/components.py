"""Fault components: one changed program element between the buggy and the fixed program."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from mutreal.compare.kinds import ComponentKind
from mutreal.decisions import DecisionId as D
from mutreal.decisions import applies
from mutreal.program.model import Layer, Value
from mutreal.serialise import Record, wire

#: (file, line) of an element on one side; (None, None) where that side has none
Location = tuple[str | None, int | None]


@dataclass
class FaultComponent(Record):
    """One changed program element between the buggy and the fixed program.

    ``kind`` says what sort of element changed (:class:`ComponentKind`: ``layer.activation``,
    ``compile.loss``, ``fit.epochs``, ``data.preprocess``...; :mod:`mutreal.label.codes` maps kinds to
    codes); a string is accepted and must name a known kind. ``change`` is ``added`` (only the fixed
    program has it), ``removed`` (only the buggy one) or ``changed``. ``before``/``after`` are short
    source texts; ``detail`` holds facts the labels need.
    """

    element: str
    kind: ComponentKind
    change: str
    before: str | None = None
    after: str | None = None
    buggy_file: str | None = None
    buggy_line: int | None = None
    fixed_file: str | None = None
    fixed_line: int | None = None
    detail: dict[str, Any] = field(default_factory=dict)
    #: how sure classify is of this component (high / medium / low; :mod:`mutreal.compare.confidence`)
    confidence: str | None = None
    #: what lowered the confidence (None when high)
    confidence_reason: str | None = None
    #: facts about how the component was found, read by :mod:`mutreal.compare.confidence`: the value
    #: kind of each side (``before_kind``/``after_kind``), ``ambiguous_alignment``; not written out
    evidence: dict[str, Any] = field(
        default_factory=dict, compare=False, repr=False, metadata=wire(write=False)
    )

    def __post_init__(self) -> None:
        if not isinstance(self.kind, ComponentKind):
            try:
                self.kind = ComponentKind(self.kind)
            except ValueError:
                raise ValueError(f"unknown fault component kind {self.kind!r}") from None


def source_text(x: Value | Layer | str | None) -> str | None:
    """The short source text a component shows for a value, a layer or a text."""
    if x is None:
        return None
    if isinstance(x, Value):
        return x.short()
    if isinstance(x, Layer):
        t = " ".join((x.text or x.cls).split())
        return t if len(t) <= 80 else t[:77] + "..."
    return x


def value_kind(x: Value | Layer | str | None) -> str | None:
    """How a side of a component was known: a :class:`Value`'s kind, ``layer``, ``text`` or None."""
    if x is None:
        return None
    if isinstance(x, Value):
        return x.kind
    if isinstance(x, Layer):
        return "layer"
    return "text"


def make_component(
    element: str,
    kind: ComponentKind,
    change: str,
    before: Value | Layer | str | None,
    after: Value | Layer | str | None,
    b_loc: Location,
    f_loc: Location,
    **detail: Any,
) -> FaultComponent:
    """A component; ``detail`` keys whose value is None are left out. A value followed through
    names (decision value-origins) points the component at the lines it was written on as well
    (``buggy_lines``/``fixed_lines``), unless the caller gave them."""
    for key, side in (("buggy_lines", before), ("fixed_lines", after)):
        if detail.get(key) is None and isinstance(side, Value):
            detail[key] = list(origin_lines(side)) or None
    return FaultComponent(
        element=element,
        kind=kind,
        change=change,
        before=source_text(before),
        after=source_text(after),
        buggy_file=b_loc[0],
        buggy_line=b_loc[1],
        fixed_file=f_loc[0],
        fixed_line=f_loc[1],
        detail={k: v for k, v in detail.items() if v is not None},
        evidence={"before_kind": value_kind(before), "after_kind": value_kind(after)},
    )


@applies(D.VALUE_ORIGINS)
def origin_lines(v: Value) -> tuple[int, ...]:
    """The lines a value (and each value it holds: a tuple's items, a call's arguments) was
    written on before the element read it: ``input_shape=(img_size, img_size, 1)`` with
    ``img_size = 64`` written on line 39 has 39 (:attr:`Value.origins`). Decision value-origins:
    a component points at them, so a value changed where it is written is that component's."""
    lines: dict[int, None] = dict.fromkeys(v.origins)
    for inner in (*v.args, *v.kwargs.values()):
        lines.update(dict.fromkeys(origin_lines(inner)))
    return tuple(lines)


def lines_of(components: list[FaultComponent], side: str) -> list[int]:
    """The lines of one side (``buggy``/``fixed``) the components point into: their own and their
    ``detail`` lines (decision value-origins). One component that stands for several (one MWA for
    a rebuilt model's layer changes, one CPP for every preprocessing step a fix touched) points
    where each of them would have."""
    lines: dict[int, None] = {}
    for c in components:
        own = c.buggy_line if side == "buggy" else c.fixed_line
        if own is not None:
            lines[own] = None
        lines.update(dict.fromkeys(c.detail.get(f"{side}_lines") or ()))
    return list(lines)


def stands_for(first: FaultComponent, others: list[FaultComponent]) -> FaultComponent:
    """``first``, pointing also at the lines of the components of the same file pair it stands for
    (see :func:`lines_of`)."""
    for side in ("buggy", "fixed"):
        own = first.buggy_line if side == "buggy" else first.fixed_line
        lines = [n for n in lines_of([first, *others], side) if n != own]
        if lines:
            first.detail[f"{side}_lines"] = lines
    return first


def value_location(v: Value | None, default_file: str | None, default_line: int | None) -> Location:
    """Where a value is written: its own line when it has one, else the element's."""
    if v is None or v.implicit or v.line is None:
        return default_file, default_line
    return default_file, v.line


def change_of(before: object | None, after: object | None) -> str:
    """``added`` when only the fixed side has it, ``removed`` when only the buggy side, else ``changed``."""
    return "added" if before is None else "removed" if after is None else "changed"
