"""Training-data operators TCL, TRD, TUD, TAN, TCO: one call inserted before ``fit``.

The call goes right before the statement holding the fit call, where the training arrays are
final, and uses the seeded functions of :mod:`mutreal.runtime.training_data`, e.g.::

    from mutreal.runtime import training_data as _mutreal_td
    x_train, y_train = _mutreal_td.remove(x_train, y_train, pct=10.0, seed=0)

Sites: fit calls whose inputs and labels are plain names (the arrays can be re-bound) and that do
not run in a loop (the fault must be applied once). The seed is the option ``seed`` (``mutate
--seed``).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, ClassVar

import libcst as cst

from mutreal.model import data_path
from mutreal.operators.base import Change, Component, Edit, Example, Operator, Program, Site
from mutreal.operators.common import make_edit, num
from mutreal.operators.hyperparameters import fit_arg_position, fit_calls

IMPORT = "from mutreal.runtime import training_data as _mutreal_td"


class _TrainingDataOperator(Operator):
    function: ClassVar[str] = ""
    #: which arrays the call rebinds: "xy", "x" or "y"
    arrays: ClassVar[str] = "xy"
    options = {"seed": 0}

    def find_sites(self, program: Program) -> list[Site]:
        sites = []
        for fi, _fit, cid in fit_calls(program):
            x = program.find_arg(cid, ("x",), fit_arg_position("fit", "x"))
            y = program.find_arg(cid, ("y",), fit_arg_position("fit", "y"))
            if (
                x is None
                or y is None
                or not isinstance(x[1].value, cst.Name)
                or not isinstance(y[1].value, cst.Name)
            ):
                continue
            stmt = program.index.statement_of(cid)
            if stmt is None or not isinstance(program.node(stmt), cst.SimpleStatementLine):
                continue
            if any(
                isinstance(program.index.nodes.get(a), cst.For | cst.While)
                for a in program.index.ancestors(stmt)
            ):
                continue
            elements = []
            if "x" in self.arrays:
                elements.append(data_path("x_train", "preprocess"))
            if "y" in self.arrays:
                elements.append(data_path("y_train", "preprocess"))
            sites.append(
                program.make_site(
                    self,
                    stmt,
                    elements,
                    None,
                    None,
                    detail={"fit": fi, "x": x[1].value.value, "y": y[1].value.value},
                )
            )
        return sites

    def call_code(self, site: Site, value: Any, seed: int) -> str:
        x, y = site.detail["x"], site.detail["y"]
        args = {"xy": f"{x}, {y}", "x": x, "y": y}[self.arrays]
        return f"_mutreal_td.{self.function}({args}, pct={num(float(value))}, seed={int(seed)})"

    def edit(self, program: Program, site: Site, value: Any, options: Mapping[str, Any]) -> Edit:
        assert site.anchor is not None
        seed = int(options.get("seed", 0))
        call = self.call_code(site, value, seed)
        x, y = site.detail["x"], site.detail["y"]
        targets = {"xy": f"{x}, {y}", "x": x, "y": y}[self.arrays]
        comps = [Component(e, self.id, None, call) for e in site.elements]
        return make_edit(
            self,
            site,
            value,
            None,
            call,
            [
                Change("insert_before", site.anchor, code=f"{IMPORT}\n"),
                Change("insert_before", site.anchor, code=f"{targets} = {call}\n"),
            ],
            options={"seed": seed},
            elements_components=comps,
        )

    def examples(self) -> list[Example]:
        v = 10.0
        return [
            Example(
                "model.fit(x_train, y_train, epochs=3)\n",
                f"{IMPORT}\n{self._assign('x_train', 'y_train', v, 0)}\nmodel.fit(x_train, y_train, epochs=3)\n",
                value=v,
                style="module level",
            ),
            Example(
                "def train(model, X, Y):\n\n    # train it\n    model.fit(X, Y, nb_epoch=5)\n",
                f"def train(model, X, Y):\n\n    # train it\n    {IMPORT}\n    {self._assign('X', 'Y', 25.0, 3)}\n"
                "    model.fit(X, Y, nb_epoch=5)\n",
                value=25.0,
                options={"seed": 3},
                style="inside a function, keras 1",
            ),
        ]

    def _assign(self, x: str, y: str, value: float, seed: int) -> str:
        targets = {"xy": f"{x}, {y}", "x": x, "y": y}[self.arrays]
        args = targets
        return f"{targets} = _mutreal_td.{self.function}({args}, pct={num(value)}, seed={seed})"


class ChangeLabels(_TrainingDataOperator):
    """TCL: relabel pct% of the most frequent class."""

    id = "TCL"
    function = "change_labels"
    arrays = "y"


class RemoveTrainingData(_TrainingDataOperator):
    """TRD: delete pct% of the training samples per class."""

    id = "TRD"
    function = "remove"


class UnbalanceTrainingData(_TrainingDataOperator):
    """TUD: delete pct% of the samples of the classes smaller than the mean."""

    id = "TUD"
    function = "unbalance"


class AddNoise(_TrainingDataOperator):
    """TAN: Gaussian noise on pct% of the training inputs."""

    id = "TAN"
    function = "add_noise"
    arrays = "x"


class OverlapClasses(_TrainingDataOperator):
    """TCO: duplicate pct% of the most frequent class relabelled as the second."""

    id = "TCO"
    function = "overlap"
