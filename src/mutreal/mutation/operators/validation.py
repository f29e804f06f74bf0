"""VRM: the validation set of a fit call is removed (``validation_data`` and ``validation_split``)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from mutreal.mutation.operators.base import Change, Edit, Example, Operator, Program, Site
from mutreal.mutation.operators.common import code_of, graph_reasons, make_edit
from mutreal.program.model import fit_path

_KEYS = ("validation_data", "validation_split")


class RemoveValidationSet(Operator):
    """VRM: removes ``validation_data=``/``validation_split=`` from fit."""

    id = "VRM"

    def no_site_reasons(self, program: Program) -> list[str]:
        return graph_reasons(self, program)

    def find_sites(self, program: Program) -> list[Site]:
        sites = []
        for fi, _fit in enumerate(program.model.fits):
            cid = program.fit_call(fi)
            if cid is None:
                continue
            found = [program.find_arg(cid, (k,), None) for k in _KEYS]
            present = [a for a in found if a is not None]
            if not present:
                continue
            old = ", ".join(code_of(program, a[1]).rstrip(", \n") for a in present)
            sites.append(
                program.make_site(self, cid, [fit_path(fi, "validation")], old, None, detail={"fit": fi})
            )
        return sites

    def edit(self, program: Program, site: Site, value: Any, options: Mapping[str, Any]) -> Edit:
        assert site.anchor is not None
        changes = [Change("remove_arg", site.anchor, aliases=(k,)) for k in _KEYS]
        return make_edit(self, site, None, site.old, None, changes, label="none")

    def examples(self) -> list[Example]:
        return [
            Example(
                "model.fit(x, y, epochs=10, validation_split=0.2, verbose=0)\n",
                "model.fit(x, y, epochs=10, verbose=0)\n",
                style="validation_split in the middle",
            ),
            Example(
                "history = model.fit(\n    x_train,\n    y_train,\n    validation_data=(x_val, y_val),\n)\n",
                "history = model.fit(\n    x_train,\n    y_train,\n)\n",
                style="validation_data last, one argument per line",
            ),
        ]
