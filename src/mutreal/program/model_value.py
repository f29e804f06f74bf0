"""The argument value of the program model: :class:`Value`, its kinds and its JSON form.

Split from :mod:`mutreal.program.model` (which re-exports every name here) because values are the one type
every other element of the model is built from, and the folding and comparison rules live with it.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

# ---------------------------------------------------------------------------------------------------
# Values
# ---------------------------------------------------------------------------------------------------

#: kinds of :class:`Value`
CONST = "const"  # a folded Python literal (number, str, bool, None, or a list of constants)
REF = "ref"  # a reference to a known Keras/NumPy object, canonical dotted or short name in ``value``
CALL = "call"  # a call of ``value`` (canonical name) with ``args``/``kwargs``
SEQ = "seq"  # a list/tuple with at least one non-constant item (items in ``args``)
NAME = "name"  # a variable that could not be folded (name in ``value``)
OPAQUE = "opaque"  # anything else; only ``text`` is meaningful

VALUE_KINDS = (CONST, REF, CALL, SEQ, NAME, OPAQUE)


def _freeze(obj: Any) -> Any:
    """Make a JSON-like value hashable (lists -> tuples) so keys can be compared and hashed."""
    if isinstance(obj, list | tuple):
        return tuple(_freeze(o) for o in obj)
    if isinstance(obj, dict):
        return tuple(sorted((k, _freeze(v)) for k, v in obj.items()))
    if isinstance(obj, float) and obj.is_integer():
        return int(obj)  # 1.0 == 1 for comparisons: Keras accepts both
    return obj


@dataclass
class Value:
    """One argument value as the program writes it, normalised where mutreal understands it.

    ``kind`` says how far it was resolved (see :data:`VALUE_KINDS`). ``text`` is the source text
    exactly as written (before folding), ``line`` its line when known.
    """

    kind: str
    value: Any = None
    args: list[Value] = field(default_factory=list)
    kwargs: dict[str, Value] = field(default_factory=dict)
    text: str = ""
    line: int | None = None
    #: True when the value is an implicit default filled in from :mod:`mutreal.program.keras_api`
    implicit: bool = False
    #: the other lines of its file the value was written on before it reached ``line``, followed
    #: through names, function parameters and their defaults, call arguments and command-line
    #: defaults (``epochs = 50`` ... ``fit(epochs=epochs)``: the fit's value has line 2's literal
    #: among its origins); not part of :meth:`key`: where a value is written never changes what it is
    origins: tuple[int, ...] = field(default=(), compare=False)

    # -- constructors -------------------------------------------------------------------------------
    @classmethod
    def const(cls, value: Any, text: str | None = None, line: int | None = None) -> Value:
        return cls(CONST, value, text=repr(value) if text is None else text, line=line)

    @classmethod
    def opaque(cls, text: str, line: int | None = None) -> Value:
        return cls(OPAQUE, None, text=text, line=line)

    # -- queries -----------------------------------------------------------------------------------
    @property
    def is_const(self) -> bool:
        return self.kind == CONST

    @property
    def is_opaque(self) -> bool:
        """True when mutreal could not resolve the value (opaque expression or unknown variable)."""
        return self.kind in (OPAQUE, NAME)

    def key(self) -> Any:
        """Hashable normalised form: equal keys mean the same value, whatever the spelling."""
        if self.kind == CONST:
            return (CONST, _freeze(self.value))
        if self.kind == REF:
            return (REF, self.value)
        if self.kind == CALL:
            return (
                CALL,
                self.value,
                tuple(a.key() for a in self.args),
                tuple(sorted((k, v.key()) for k, v in self.kwargs.items())),
            )
        if self.kind == SEQ:
            return (SEQ, tuple(a.key() for a in self.args))
        if self.kind == NAME:
            return (NAME, self.value)
        return (OPAQUE, " ".join(self.text.split()))

    def same(self, other: Value | None) -> bool:
        """Whether ``other`` denotes the same value (ignoring spelling, text and line)."""
        return other is not None and self.key() == other.key()

    @property
    def name(self) -> str | None:
        """The canonical name of a constant string, reference or call (e.g. ``'relu'``, ``'Adam'``)."""
        if self.kind in (REF, CALL) or (self.kind == CONST and isinstance(self.value, str)):
            return self.value
        return None

    def short(self, limit: int = 80) -> str:
        """Source text for reports, collapsed to one line and cut at ``limit`` characters."""
        text = " ".join((self.text or repr(self.value)).split())
        return text if len(text) <= limit else text[: limit - 3] + "..."

    # -- serialisation ------------------------------------------------------------------------------
    def to_dict(self) -> dict[str, Any]:
        d: dict[str, Any] = {"kind": self.kind, "text": self.text}
        if self.value is not None:
            d["value"] = self.value
        if self.args:
            d["args"] = [a.to_dict() for a in self.args]
        if self.kwargs:
            d["kwargs"] = {k: v.to_dict() for k, v in self.kwargs.items()}
        if self.line is not None:
            d["line"] = self.line
        if self.implicit:
            d["implicit"] = True
        if self.origins:
            d["origins"] = list(self.origins)
        return d

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> Value:
        return cls(
            kind=d["kind"],
            value=d.get("value"),
            args=[cls.from_dict(a) for a in d.get("args", [])],
            kwargs={k: cls.from_dict(v) for k, v in d.get("kwargs", {}).items()},
            text=d.get("text", ""),
            line=d.get("line"),
            implicit=d.get("implicit", False),
            origins=tuple(d.get("origins", ())),
        )


def written_at(*values: object) -> tuple[int, ...]:
    """The lines the values were written on: each :class:`Value`'s line and its origins, in order,
    once each (what a value folded from them, or read through a name, came from)."""
    lines: dict[int, None] = {}
    for v in values:
        if isinstance(v, Value):
            lines.update(dict.fromkeys(v.origins))
            if v.line is not None:
                lines[v.line] = None
    return tuple(lines)


def implicit_default(callee: str, name: str, era: str | None) -> Value | None:
    """The era's default of argument ``name`` of ``callee`` (a class or fit method) as an implicit
    constant, or None when it has none (an argument that is not written reads as its default)."""
    from mutreal.program import keras_api  # local import: keras_api imports nothing from here

    default = keras_api.default_arg(callee, name, era or keras_api.DEFAULT_ERA)
    if default is keras_api.NO_DEFAULT:
        return None
    v = Value.const(default)
    v.implicit = True
    return v
