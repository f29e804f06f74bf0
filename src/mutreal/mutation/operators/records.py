"""The records of a mutation: sites, changes, edits, provenance, mutants, examples.

Why a module: these plain dataclasses are what operators return, what ``mutate`` writes as JSON
next to a mutant and what ``hom-generate`` reads back; they have no dependency on parsing, so
every other part of the operator machinery (and the runner, which reads provenance) can import
them cheaply. Provenance is written from the operator's own edit (never by running classify):
each edit lists the :class:`Component` records (element path in the grammar of
``docs/element-paths.md``, the operator, old and new source text) that
``classify(original, mutant)`` should report.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import asdict, dataclass, field
from typing import Any

from mutreal import __version__


class MutationError(Exception):
    """An operator cannot produce a valid mutant (bad site or value, no change, does not parse)."""


# ---------------------------------------------------------------------------------------------------
# Data records
# ---------------------------------------------------------------------------------------------------


@dataclass
class Component:
    """One program element an edit changes: what ``classify(original, mutant)`` must report.

    ``before``/``after`` are source texts (``None``: the element is absent on that side);
    ``implicit_before`` marks a ``before`` that is the era's default rather than written text.
    """

    element: str
    operator: str
    before: str | None
    after: str | None
    implicit_before: bool = False
    #: every element the one written change affects when it builds several (a layer constructor in
    #: a loop or in a helper called twice); ``element`` is the first, the one classify reports
    instances: list[str] = field(default_factory=list)
    #: the program's arrays a training-data edit rebinds when they do not reach fit directly
    #: (``['x_train', 'y_train']`` given to a generator; ``['sepal', 'petal', 'y']`` of two inputs)
    arrays: list[str] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        d = asdict(self)
        if not self.instances:
            d.pop("instances")
        if not self.arrays:
            d.pop("arrays")
        return d

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> Component:
        return cls(
            element=d["element"],
            operator=d["operator"],
            before=d.get("before"),
            after=d.get("after"),
            implicit_before=bool(d.get("implicit_before", False)),
            instances=list(d.get("instances") or []),
            arrays=list(d.get("arrays") or []),
        )


@dataclass
class Site:
    """A place in a program where an operator applies (numbered from 0 per operator).

    ``elements`` are all element paths the site covers: a layer built in a loop, or by a helper
    called twice, is one constructor call in the source and so one site that edits every layer
    instance it builds. ``old`` is the current value's source text (or its default, with
    ``implicit``), ``original`` its normalised value (what relative grids scale).
    ``anchor`` is the id of the CST node the site edits (not serialised).
    """

    operator: str
    index: int
    element: str
    elements: list[str]
    file: str
    line: int
    col: int
    old: str | None = None
    original: Any = None
    implicit: bool = False
    detail: dict[str, Any] = field(default_factory=dict)
    anchor: int | None = field(default=None, repr=False, compare=False)

    def to_dict(self) -> dict[str, Any]:
        d = asdict(self)
        d.pop("anchor")
        return d

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> Site:
        return cls(
            operator=d["operator"],
            index=int(d["index"]),
            element=d["element"],
            elements=list(d.get("elements") or [d["element"]]),
            file=d.get("file", "<string>"),
            line=int(d.get("line", 0)),
            col=int(d.get("col", 0)),
            old=d.get("old"),
            original=d.get("original"),
            implicit=bool(d.get("implicit", False)),
            detail=dict(d.get("detail") or {}),
        )


@dataclass
class Change:
    """One elementary source change, keyed on the id of a node of the program's tree.

    kinds: ``set_arg`` (replace the value of an argument found by keyword alias or position, or
    append ``keyword=code``), ``remove_arg``, ``replace`` (an expression node by ``code``),
    ``insert_before`` (statements ``code`` before statement ``target``), ``import`` (a statement
    ``code`` after the module's last top-level import; ``target`` unused).
    """

    kind: str
    target: int
    code: str = ""
    keyword: str | None = None
    aliases: tuple[str, ...] = ()
    position: int | None = None


@dataclass
class Edit:
    """What one operator does at one site with one value (first order)."""

    operator: str
    site: Site
    value: Any
    old: str | None
    new: str | None
    components: list[Component]
    changes: list[Change] = field(default_factory=list, repr=False)
    #: short text for file names (``sigmoid``, ``0.01``, ``linear``)
    label: str = ""
    options: dict[str, Any] = field(default_factory=dict)

    def part(self) -> Part:
        return Part(
            operator=self.operator,
            site=self.site.index,
            element=self.site.element,
            old=self.old,
            new=self.new,
            value=self.value,
            options=dict(self.options),
            components=list(self.components),
        )


@dataclass
class Part:
    """The provenance of one first-order edit (a HOM lists several)."""

    operator: str
    site: int
    element: str
    old: str | None
    new: str | None
    value: Any
    options: dict[str, Any] = field(default_factory=dict)
    components: list[Component] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        d = asdict(self)
        d["components"] = [c.to_dict() for c in self.components]
        return d

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> Part:
        return cls(
            operator=d["operator"],
            site=int(d["site"]),
            element=d["element"],
            old=d.get("old"),
            new=d.get("new"),
            value=d.get("value"),
            options=dict(d.get("options") or {}),
            components=[Component.from_dict(c) for c in d.get("components", [])],
        )


@dataclass
class Provenance:
    """The JSON record written next to a mutant: where it comes from and what it changes.

    For a first-order mutant ``operator``/``site``/``element``/``old``/``new`` repeat its only
    part; for a higher-order mutant they are joined with ``+`` and ``parts`` lists each edit.
    """

    original: str
    original_sha256: str
    mutant: str
    parts: list[Part]
    seed: int = 0
    mutreal_version: str = __version__

    @property
    def order(self) -> int:
        return len(self.parts)

    @property
    def operator(self) -> str:
        return "+".join(p.operator for p in self.parts)

    @property
    def components(self) -> list[Component]:
        return [c for p in self.parts for c in p.components]

    def to_dict(self) -> dict[str, Any]:
        first = self.parts[0] if len(self.parts) == 1 else None
        return {
            "mutant": self.mutant,
            "original": self.original,
            "original_sha256": self.original_sha256,
            "order": self.order,
            "operator": self.operator,
            "site": first.site if first else [p.site for p in self.parts],
            "element": first.element if first else [p.element for p in self.parts],
            "old": first.old if first else [p.old for p in self.parts],
            "new": first.new if first else [p.new for p in self.parts],
            "value": first.value if first else [p.value for p in self.parts],
            "seed": self.seed,
            "mutreal_version": self.mutreal_version,
            "parts": [p.to_dict() for p in self.parts],
            "components": [c.to_dict() for c in self.components],
        }

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> Provenance:
        return cls(
            original=d["original"],
            original_sha256=d["original_sha256"],
            mutant=d["mutant"],
            parts=[Part.from_dict(p) for p in d["parts"]],
            seed=int(d.get("seed", 0)),
            mutreal_version=d.get("mutreal_version", __version__),
        )


@dataclass
class Mutant:
    """A mutant's text and provenance (not yet written anywhere)."""

    code: str
    edits: list[Edit]
    provenance: Provenance
    #: 1-based line ranges of the original touched by the edits (for readable-diff checks)
    regions: list[tuple[int, int]] = field(default_factory=list)
    #: the original file's encoding, which the mutant file is written in
    encoding: str = "utf-8"

    @property
    def name(self) -> str:
        return self.provenance.mutant


@dataclass
class Example:
    """A before/after example of an operator, run by the test suite for every registered operator."""

    before: str
    after: str
    site: int = 0
    value: Any = None
    options: dict[str, Any] = field(default_factory=dict)
    style: str = ""
