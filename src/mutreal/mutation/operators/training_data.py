"""Training-data operators TCL, TRD, TUD, TAN, TCO: one call inserted before ``fit``.

The call goes right before the statement holding the fit call, where the training arrays are
final (TensorFlow 1 graph code: before the outermost loop of the session run that feeds slices of
them), and uses the seeded functions of :mod:`mutreal.runtime.training_data`, imported with the
module's imports like every name an operator adds (:func:`.apply.import_position`), e.g.::

    from mutreal.runtime import training_data as _mutreal_td
    x_train, y_train = _mutreal_td.remove(x_train, y_train, pct=10.0, seed=0)

Sites: fit calls that do not run in a loop (the fault must be applied once) whose training arrays
:mod:`.data_flow` finds as plain names (they can be rebound): given to fit directly, as a list or
dict of several inputs (all rebound with the same rows), or to a generator, ``Sequence``,
``tf.data`` or ``flow`` wrapper (rebound before the wrapper is built, where they are still arrays;
the component lists the arrays in ``arrays``). Arrays of file paths that a generator or
``Sequence`` reads (DeepCrime's self-driving subject) are rows like any other: TCL, TRD, TUD and
TCO change, remove or add rows of paths and targets together; TAN, which noises the inputs
themselves, has no site there. Where none are found, :meth:`no_site_reasons`
says why (``mutate --list`` shows it). The seed is the option ``seed`` (``mutate
--seed``).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, ClassVar

from mutreal.mutation.operators.base import Change, Component, Edit, Example, Growth, Operator, Program, Site
from mutreal.mutation.operators.common import make_edit, num
from mutreal.mutation.operators.data_flow import Arrays, TrainingDataFinder
from mutreal.program.model import data_path

IMPORT = "from mutreal.runtime import training_data as _mutreal_td"


class _TrainingDataOperator(Operator):
    @property
    def function(self) -> str:
        """The function of mutreal.runtime.training_data the mutant calls (the catalogue's, which classify reads)."""
        return self.spec.runtime_function or ""

    #: which arrays the call rebinds: "xy", "x" or "y"
    arrays: ClassVar[str] = "xy"
    #: whether the call removes or adds rows (TRD, TUD, TCO), which a graph fed whole arrays through
    #: a placeholder of fixed rows cannot take (:func:`.session_loop.fixed_rows_reason`)
    changes_rows: ClassVar[bool] = False
    options = {"seed": 0}

    def _graph_reason(self, program: Program, fit: int, arrays: Arrays) -> str:
        """Why a graph program's session loop cannot take this operator's arrays ('' when it can)."""
        if not self.changes_rows or arrays.via != "session loop":
            return ""
        from mutreal.mutation.operators.session_loop import fixed_rows_reason

        return fixed_rows_reason(program, fit)

    def _applies(self, arrays: Arrays) -> str:
        """Why this operator cannot rebind these arrays ('' when it can)."""
        if "y" in self.arrays and len(arrays.y) != 1:
            return "no labels found" if not arrays.y else "several label arrays (one per output)"
        if "x" in self.arrays and not arrays.x:
            return (
                f"the batch inputs of {arrays.wrapper} are not taken from an array given to it "
                "(read inside it, e.g. from files)"
            )
        if self.arrays == "x" and arrays.reads_files:
            return (
                f"the inputs given to {arrays.wrapper} are file paths it reads (the images are not "
                "arrays of the program: no noise can be added to them)"
            )
        return ""

    def find_sites(self, program: Program) -> list[Site]:
        sites = []
        for finding in TrainingDataFinder.of(program).findings():
            a = finding.arrays
            if a is None or self._applies(a) or self._graph_reason(program, finding.fit, a):
                continue
            # one fault of the training data however many arrays the call rebinds together: the
            # inputs' chain when it rebinds them, else the labels' (classify reports it there)
            elements = [data_path("x_train" if "x" in self.arrays else "y_train", "preprocess")]
            detail: dict[str, Any] = {"fit": finding.fit, "x": a.x_text, "y": a.y_text}
            if a.via != "direct":
                detail.update(arrays=self._changed(a), via=a.via)
                if a.wrapper:
                    detail["wrapper"] = a.wrapper
            sites.append(program.make_site(self, a.anchor, elements, None, None, detail=detail))
        return sites

    def _changed(self, a: Arrays) -> list[str]:
        return {"xy": a.names, "x": a.x, "y": a.y}[self.arrays]

    def no_site_reasons(self, program: Program) -> list[str]:
        out = []
        for finding in TrainingDataFinder.of(program).findings():
            fit = program.model.fits[finding.fit]
            why = finding.reason or (
                (self._applies(finding.arrays) or self._graph_reason(program, finding.fit, finding.arrays))
                if finding.arrays
                else ""
            )
            if why:
                out.append(f"{fit.method} call at line {fit.line}: {why}")
        return out

    def _targets(self, site: Site) -> str:
        x, y = site.detail["x"], site.detail["y"]
        return {"xy": f"{x}, {y}", "x": x, "y": y}[self.arrays]

    def call_code(self, site: Site, value: Any, seed: int) -> str:
        return (
            f"_mutreal_td.{self.function}({self._targets(site)}, pct={num(float(value))}, seed={int(seed)})"
        )

    def edit(self, program: Program, site: Site, value: Any, options: Mapping[str, Any]) -> Edit:
        assert site.anchor is not None
        seed = int(options.get("seed", 0))
        call = self.call_code(site, value, seed)
        targets = self._targets(site)
        arrays = list(site.detail.get("arrays") or [])
        comps = [Component(e, self.id, None, call, arrays=arrays) for e in site.elements]
        return make_edit(
            self,
            site,
            value,
            None,
            call,
            [
                Change("import", 0, code=IMPORT),  # with the module's imports, as every operator's
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
                f"{IMPORT}\ndef train(model, X, Y):\n\n    # train it\n    {self._assign('X', 'Y', 25.0, 3)}\n"
                "    model.fit(X, Y, nb_epoch=5)\n",
                value=25.0,
                options={"seed": 3},
                style="inside a function, keras 1",
            ),
            Example(
                "import tensorflow as tf\n"
                "ds = tf.data.Dataset.from_tensor_slices((xs, ys)).batch(32)\n"
                "model.fit(ds, epochs=2)\n",
                f"import tensorflow as tf\n{IMPORT}\n{self._assign('xs', 'ys', v, 0)}\n"
                "ds = tf.data.Dataset.from_tensor_slices((xs, ys)).batch(32)\n"
                "model.fit(ds, epochs=2)\n",
                value=v,
                style="tf.data dataset bound before fit",
            ),
            Example(
                "def batches(images, labels):\n    while True:\n        yield images[:8], labels[:8]\n\n\n"
                "model.fit(batches(x, y), steps_per_epoch=4)\n",
                f"{IMPORT}\ndef batches(images, labels):\n    while True:\n        yield images[:8], labels[:8]\n\n\n"
                f"{self._assign('x', 'y', v, 0)}\nmodel.fit(batches(x, y), steps_per_epoch=4)\n",
                value=v,
                style="generator function in the fit call",
            ),
            Example(
                "model.fit([img, head], gaze, epochs=2)\n",
                f"{IMPORT}\n{self._assign('[img, head]', 'gaze', v, 0)}\nmodel.fit([img, head], gaze, epochs=2)\n",
                value=v,
                style="two inputs",
            ),
        ]

    def _assign(self, x: str, y: str, value: float, seed: int) -> str:
        targets = {"xy": f"{x}, {y}", "x": x, "y": y}[self.arrays]
        args = targets
        return f"{targets} = _mutreal_td.{self.function}({args}, pct={num(value)}, seed={seed})"


class ChangeLabels(_TrainingDataOperator):
    """TCL: relabel pct% of the most frequent class."""

    id = "TCL"
    arrays = "y"


class RemoveTrainingData(_TrainingDataOperator):
    """TRD: delete pct% of the training samples per class."""

    id = "TRD"
    changes_rows = True


class UnbalanceTrainingData(_TrainingDataOperator):
    """TUD: delete pct% of the samples of the classes smaller than the mean."""

    id = "TUD"
    changes_rows = True


class AddNoise(_TrainingDataOperator):
    """TAN: Gaussian noise on pct% of the training inputs."""

    id = "TAN"
    arrays = "x"


class OverlapClasses(_TrainingDataOperator):
    """TCO: duplicate pct% of the most frequent class relabelled as the second."""

    id = "TCO"
    changes_rows = True

    def growth(self, old: Any, value: Any) -> Growth:
        """pct% of the fullest class added as copies: at most that much more data to train on."""
        pct = Growth.number(value)
        if pct is None:
            return Growth()
        return Growth(time=1 + pct / 100, memory=1 + pct / 100, why=f"{value}% of a class added as copies")
