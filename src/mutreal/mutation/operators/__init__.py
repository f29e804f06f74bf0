"""DeepCrime's 24 mutation operators as LibCST source transformations (and plugin operators).

Public API (used by ``mutreal mutate``, ``hom-generate``, ``validate-operators``, ``sensitivity``):

- :class:`Program` (``Program(text, path)`` / ``Program.from_file``): one parse, one extraction,
  one node index, shared by every operator and mutant of a file;
- :mod:`.registry`: ``registry.get("ACH")``, ``registry.operators()`` (entry points
  ``mutreal.mutation.operators``);
- ``Operator.sites(program) -> list[Site]``, ``Operator.values(program, site)``,
  ``Operator.apply(program, site, value, **options) -> Edit``;
- :func:`apply_edits` ``(program, edits) -> Mutant`` (several first-order edits combine into one
  higher-order mutant; edits on one call merge, ``strict=True`` refuses edits that mask each other,
  see :func:`~mutreal.mutation.operators.base.overlap`); :class:`Provenance` (``to_dict``/``from_dict``);
- :mod:`.agreement`: ``compare_components(provenance.components, classify_components)``.

A site is one written node: a layer constructor called in a loop (or in a helper called twice)
builds several layers but is one site, and its edit changes all of them (``Site.elements`` lists
them; the provenance component names the first, as classify reports one component per written
change, and lists all in ``instances``).
"""

from mutreal.mutation.operators.base import (
    Component,
    Edit,
    Example,
    Mutant,
    MutationError,
    Operator,
    Part,
    Program,
    Provenance,
    Site,
    apply_edits,
    mutant_name,
    overlap,
)

__all__ = [
    "Component",
    "Edit",
    "Example",
    "Mutant",
    "MutationError",
    "Operator",
    "Part",
    "Program",
    "Provenance",
    "Site",
    "apply_edits",
    "mutant_name",
    "overlap",
]
