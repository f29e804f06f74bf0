"""DeepCrime's 24 mutation operators as LibCST source transformations (and plugin operators).

Public API (used by ``mutreal mutate``, ``hom-generate``, ``validate-operators``, ``sensitivity``):

- :class:`Program` (``Program(text, path)`` / ``Program.from_file``): one parse, one extraction,
  one node index, shared by every operator and mutant of a file;
- :mod:`.registry`: ``registry.get("ACH")``, ``registry.operators()`` (entry points
  ``mutreal.operators``);
- ``Operator.sites(program) -> list[Site]``, ``Operator.values(program, site)``,
  ``Operator.apply(program, site, value, **options) -> Edit``;
- :func:`apply_edits` ``(program, edits) -> Mutant`` (several first-order edits combine into one
  higher-order mutant); :class:`Provenance` (``to_dict``/``from_dict``).
"""

from mutreal.operators.base import (
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
]
