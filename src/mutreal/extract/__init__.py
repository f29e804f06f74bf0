"""LibCST -> :class:`~mutreal.program.model.ProgramModel`.

``extract_model`` runs one pass (:class:`~mutreal.extract.walker.Walker`) over an already parsed
module: import/alias resolution (:mod:`.names`), constant folding (:mod:`.constants`), layers
(:mod:`.layers`), compile/fit (:mod:`.training`), data (:mod:`.data`) and user-written loss
functions (:mod:`.losses`). It never raises on odd
programs: what it cannot follow becomes opaque values or notes in the model. ``extract_source``
parses text first (syntax errors propagate as ``libcst.ParserSyntaxError``).
"""

from __future__ import annotations

import libcst as cst

from mutreal.program.model import ProgramModel

__all__ = ["extract_model", "extract_source"]


def extract_model(
    module: cst.Module, path: str = "<string>", era: str | None = None, source: str | None = None
) -> ProgramModel:
    """Build the program model of a parsed module.

    ``path`` is recorded on every element; ``era`` (``keras1``/``keras2``/``tf2``/``keras3``)
    overrides the detected API era (the evidence then says so). ``source``, the exact text that was
    parsed into ``module``, makes line numbers cheap (Python's ``ast`` instead of a code generation
    pass); without it the text is regenerated from the module.
    """
    from mutreal.extract.walker import Walker

    return Walker(module, path, era, source).run()


def extract_source(text: str, path: str = "<string>", era: str | None = None) -> ProgramModel:
    """Parse ``text`` with LibCST and extract its program model."""
    return extract_model(cst.parse_module(text), path, era, source=text)
