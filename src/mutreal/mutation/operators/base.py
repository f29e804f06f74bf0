"""The shared machinery of mutation operators: programs, sites, edits, mutants, provenance.

Why this shape: ``mutate --all`` writes hundreds of mutants of one subject, ``hom-generate``
combines several first-order edits into one file and ``validate-operators`` applies operators
with inferred values. All three need the same cheap steps, so a :class:`Program` is parsed and
extracted once, its nodes are indexed in one code-generation pass (positions, parents, calls by
line), operators return :class:`Edit` objects that *describe* small changes keyed on node
identity, and :func:`apply_edits` applies any number of them in one targeted transformer pass
that only descends into the ancestors of the edited nodes. Everything else stays byte-identical.

Provenance is written from the operator's own edit (never by running classify): each edit lists
the :class:`Component` records (element path in the grammar of ``docs/element-paths.md``, the
operator, old and new source text) that ``classify(original, mutant)`` should report.

The parts live in their own modules (:mod:`.records`, :mod:`.node_index`, :mod:`.program`,
:mod:`.apply`); every name stays importable from here.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, ClassVar

from mutreal.extract.positions import NodeIndex
from mutreal.mutation.operators.apply import apply_edits, mutant_name, overlap
from mutreal.mutation.operators.program import LayerGroup, Program
from mutreal.mutation.operators.records import (
    Change,
    Component,
    Edit,
    Example,
    Mutant,
    MutationError,
    Part,
    Provenance,
    Site,
)
from mutreal.operator_catalogue import OperatorSpec, load_catalogue

__all__ = [
    "Component",
    "Site",
    "Change",
    "Edit",
    "Example",
    "Part",
    "Provenance",
    "Mutant",
    "MutationError",
    "NodeIndex",
    "LayerGroup",
    "Growth",
    "Operator",
    "Program",
    "apply_edits",
    "mutant_name",
    "number_text",
    "overlap",
]


@dataclass(frozen=True)
class Growth:
    """How many times an edit multiplies its run's training time and memory where it makes them
    larger by design: more epochs, more steps (smaller batches), more data, a larger batch, early
    stopping later. Why it exists: a mutant that mutreal's time or memory limit stops where its
    program's run finished is the operator's own effect only when this growth carries the
    program's run past the limit (:mod:`mutreal.analysis.run_failures`); any other such stop is the
    run's setting. ``inf``: larger by an amount the edit does not fix (the whole training set in
    one batch, early stopping that may now wait for every epoch)."""

    time: float = 1.0
    memory: float = 1.0
    #: what the edit makes larger, for the outputs (``epochs 10 -> 100``)
    why: str = ""

    @staticmethod
    def number(text: Any) -> float | None:
        """``text`` (a site's old source text or a value) as a positive number, None otherwise."""
        try:
            value = float(str(text).strip())
        except (TypeError, ValueError):
            return None
        return value if value > 0 and math.isfinite(value) else None


class Operator:
    """A mutation operator: finds sites in a program and builds edits there.

    Subclasses set ``id`` (a catalogue id, or their own for plugins together with ``spec``) and
    implement :meth:`find_sites` and :meth:`edit`. :meth:`apply` validates the value and returns
    the :class:`Edit`; :func:`apply_edits` turns edits into a mutant.
    """

    id: ClassVar[str] = ""
    #: operator-specific options and their defaults (``OCH``: keep_learning_rate)
    options: ClassVar[dict[str, Any]] = {}

    @property
    def spec(self) -> OperatorSpec:
        return load_catalogue()[self.id]

    @property
    def name(self) -> str:
        return self.spec.name

    @property
    def has_param(self) -> bool:
        return self.spec.param is not None

    # -- to implement -------------------------------------------------------------------------------
    def find_sites(self, program: Program) -> list[Site]:  # pragma: no cover - abstract
        raise NotImplementedError

    def edit(self, program: Program, site: Site, value: Any, options: Mapping[str, Any]) -> Edit:
        raise NotImplementedError  # pragma: no cover - abstract

    def examples(self) -> list[Example]:
        return []

    def no_site_reasons(self, program: Program) -> list[str]:
        """Why places that look like this operator's sites are not (``mutate --list`` shows them)."""
        return []

    def growth(self, old: Any, value: Any) -> Growth:
        """How the edit from ``old`` (the site's source text, as the provenance's part keeps it) to
        ``value`` grows its run's training time and memory (:class:`Growth`); most edits do not."""
        return Growth()

    # -- public API ---------------------------------------------------------------------------------
    def sites(self, program: Program) -> list[Site]:
        """Applicable sites, ordered by file, line and column of the edited node, numbered from 0."""
        return program.sites(self)

    def values(self, program: Program, site: Site) -> list[Any]:
        """The values ``mutate --all`` writes at a site (the catalogue's list or grid)."""
        if self.spec.param is None:
            return [None]
        return [v for v in self.spec.param.candidates(site.original) if self.accepts(site, v)]

    def accepts(self, site: Site, value: Any) -> bool:
        """Whether ``value`` makes a real change at ``site`` (subclasses narrow it)."""
        return True

    def default_value(self, program: Program, site: Site) -> Any:
        vals = self.values(program, site)
        if not vals:
            raise MutationError(f"{self.id}: no value applies at site {site.index}")
        return vals[0]

    def apply(
        self,
        program: Program,
        site: Site | int,
        value: Any = None,
        *,
        any_value: bool = False,
        **options: Any,
    ) -> Edit:
        """The edit of this operator at ``site`` (a :class:`Site` or its number) with ``value``.

        ``value`` None means the operator's first catalogue value for the site; it is validated
        against the catalogue's parameter spec otherwise. ``any_value`` admits string values
        outside DeepCrime's list (a real fault's ``'leaky_relu'`` or ``'sparse_categorical_crossentropy'``,
        for validate-operators); they are still type-checked and must change the site.
        """
        sites = self.sites(program)
        if isinstance(site, int):
            if not 0 <= site < len(sites):
                raise MutationError(
                    f"{self.id} has {len(sites)} site(s) in {program.path}; no site {site}"
                    if sites
                    else f"{self.id} does not apply to {program.path}"
                )
            site = sites[site]
        if self.spec.param is None:
            value = None
        elif value is None:
            value = self.default_value(program, site)
        else:
            try:
                if any_value and self.spec.param.kind == "categorical" and self.spec.param.type == "str":
                    value = str(value)
                else:
                    value = self.spec.param.validate(value)
            except ValueError as exc:
                raise MutationError(f"{self.id}: {exc}") from None
            if not self.accepts(site, value):
                raise MutationError(
                    f"{self.id}: value {value!r} does not apply at site {site.index} (see --list)"
                )
        opts = {**self.options, **options}
        unknown = set(options) - set(self.options)
        if unknown:
            raise MutationError(f"{self.id}: unknown option(s) {', '.join(sorted(unknown))}")
        return self.edit(program, site, value, opts)

    def mutant(self, program: Program, site: Site | int = 0, value: Any = None, **options: Any) -> Mutant:
        """Shortcut: a first-order mutant."""
        return apply_edits(program, [self.apply(program, site, value, **options)])

    def __repr__(self) -> str:
        return f"<operator {self.id}>"


def number_text(value: float | int) -> str:
    """Source text of a number (``0.01``, ``1e-05``, ``32``)."""
    if isinstance(value, bool):
        return repr(value)
    if isinstance(value, int):
        return str(value)
    f = float(value)
    if f.is_integer() and abs(f) < 1e15:
        return repr(f)
    return repr(float(f"{f:.6g}"))
