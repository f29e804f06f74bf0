"""Hyperparameter operators: HBS (batch size), HLR (learning rate), HNE (epochs), HDB (full batch).

The new value is written into the mutant, in both directions where the catalogue's grid allows
(learning rate x0.001 ... x100, epochs x0.1 ... x10). Legacy keywords are edited in place
(``lr=``, ``nb_epoch=``); a missing argument is added with the era's keyword. HLR on a string
optimizer (``'adam'``) writes ``Adam(learning_rate=...)`` spelled with an alias the program already
imports (``optimizers.Adam``, ``tf.keras.optimizers.Adam``) or with an added import.
"""

from __future__ import annotations

import ast
from collections.abc import Collection, Iterator, Mapping
from typing import Any, ClassVar

import libcst as cst

from mutreal.mutation.operators.base import Change, Edit, Example, Growth, Operator, Program, Site
from mutreal.mutation.operators.common import (
    code_of,
    graph_reasons,
    is_number,
    keras_callee,
    make_edit,
    num,
    set_value,
)
from mutreal.mutation.operators.node_index import last_name
from mutreal.mutation.operators.session_loop import SESSION_RUN, loop_value_node
from mutreal.program import keras_api
from mutreal.program.model import Fit, Optimizer, compile_path, fit_path


def fit_arg_position(method: str, name: str) -> int | None:
    """Position of a fit argument (fit(x, y, batch_size, epochs); fit_generator(gen, steps, epochs))."""
    if method == "fit":
        return {"x": 0, "y": 1, "batch_size": 2, "epochs": 3}.get(name)
    if method == "fit_generator":
        return {"epochs": 2}.get(name)
    return None


def fit_calls(program: Program, methods: Collection[str] = ("fit",)) -> Iterator[tuple[int, Fit, int]]:
    """Each training call of ``methods`` run once (not in a loop) whose call node is known:
    (fit index, fit, call node)."""
    for fi, fit in enumerate(program.model.fits):
        if fit.method not in methods or fit.repeat:
            continue
        cid = program.fit_call(fi)
        if cid is not None:
            yield fi, fit, cid


def fit_no_site_reasons(
    program: Program, methods: Collection[str], key: str, skip: Collection[str] = ()
) -> list[str]:
    """Why a training call has no site for its ``key`` argument: it runs in a loop (the value is
    one of many trainings, a mutant must change it once), the call is not found, or the value is
    not a number the model folds."""
    out = []
    for fi, fit in enumerate(program.model.fits):
        where = f"{fit.method} call at line {fit.line}"
        if fit_path(fi, key) in skip:
            continue
        if fit.method == SESSION_RUN:
            out.append(
                f"{where}: the session loop's {key} is not one number written where the loop reads it "
                "(a literal, or a name assigned one number once)"
            )
        elif fit.method not in methods:
            out.append(
                f"{where}: {fit.method} takes no {key} this operator writes (nor a generator it traces)"
            )
        elif fit.repeat:
            out.append(f"{where}: runs in a loop ({fit.repeat}), so its {key} is not one value")
        elif program.fit_call(fi) is None:
            out.append(f"{where}: the call is not found in the source")
        elif not is_number(fit.arg(key, program.era)):
            out.append(f"{where}: {key} is not a number the program model folds")
    return out


class _FitNumber(Operator):
    """HBS, HNE: a number argument of fit (``key``, written under one of ``aliases``, in calls of
    ``methods``; explicit, positional or the era's default) becomes another."""

    key: ClassVar[str] = ""
    aliases: ClassVar[tuple[str, ...]] = ()
    methods: ClassVar[tuple[str, ...]] = ("fit",)

    def keyword(self, program: Program) -> str:
        """The keyword a missing argument is added with."""
        return self.key

    def _loop_sites(self, program: Program) -> list[Site]:
        """TensorFlow 1 graph code: the number a session loop reads its ``key`` from (see
        :func:`loop_value_node`); the edit writes the new number there."""
        sites = []
        for fi, fit in enumerate(program.model.fits):
            if fit.method != SESSION_RUN:
                continue
            node = loop_value_node(program, fi, self.key)
            if node is None:
                continue
            v = fit.args[self.key]
            sites.append(
                program.make_site(
                    self, id(node), [fit_path(fi, self.key)], code_of(program, node), v.value,
                    detail={"fit": fi, "method": fit.method, "via": "loop"},
                )
            )
        return sites

    def find_sites(self, program: Program) -> list[Site]:
        sites = self._loop_sites(program)
        for fi, fit, cid in fit_calls(program, self.methods):
            v = fit.arg(self.key, program.era)
            if not is_number(v):
                continue
            arg = self._arg(program, cid, fit.method)
            sites.append(
                program.make_site(
                    self,
                    cid,
                    [fit_path(fi, self.key)],
                    code_of(program, arg[1].value) if arg else num(v.value),
                    v.value,
                    implicit=arg is None,
                    detail={"fit": fi, "method": fit.method},
                )
            )
        return sites

    def _arg(self, program: Program, call: int, method: str) -> tuple[int, cst.Arg] | None:
        return program.find_arg(call, self.aliases, fit_arg_position(method, self.key))

    def no_site_reasons(self, program: Program) -> list[str]:
        looped = {e for site in self._loop_sites(program) for e in site.elements}
        return fit_no_site_reasons(program, self.methods, self.key, skip=looped)

    def accepts(self, site: Site, value: Any) -> bool:
        return value != site.original

    def edit(self, program: Program, site: Site, value: Any, options: Mapping[str, Any]) -> Edit:
        assert site.anchor is not None
        if site.detail.get("via") == "loop":
            code = num(value)
            return make_edit(self, site, value, site.old, code, [Change("replace", site.anchor, code=code)])
        arg = self._arg(program, site.anchor, site.detail["method"])
        return set_value(self, program, site, value, arg, num(value), self.keyword(program))


class ChangeBatchSize(_FitNumber):
    """HBS: fit's batch_size (explicit or the default 32) becomes one of DeepCrime's sizes; where
    a training call takes its batches from a generator that fixes their size
    (``flow_from_directory(..., batch_size=16)``), the generator's argument is the site."""

    id = "HBS"
    key = "batch_size"
    aliases = ("batch_size",)

    def growth(self, old: Any, value: Any) -> Growth:
        """Smaller batches: that many times the steps per epoch; larger: that much more memory."""
        before, after = Growth.number(old), Growth.number(value)
        if before is None or after is None or before == after:
            return Growth()
        if after < before:
            return Growth(time=before / after, why=f"batch size {old} -> {value}: {before / after:g} times the steps")
        return Growth(memory=after / before, why=f"batch size {old} -> {value}")

    def find_sites(self, program: Program) -> list[Site]:
        return super().find_sites(program) + self._generator_sites(program)

    def _generator_sites(self, program: Program) -> list[Site]:
        """One site per call written with ``batch_size=`` that a training call's batch size comes
        from (the program model traces it there), for training calls that take no batch size."""
        calls: dict[int, tuple[list[str], Any, cst.Arg]] = {}
        for fi, fit in enumerate(program.model.fits):
            v = fit.args.get("batch_size")
            if fit.method == "fit" or fit.repeat or not is_number(v) or v.line is None or v.line == fit.line:
                continue
            for cid in program.index.calls_by_line.get(v.line, []):
                arg = program.find_arg(cid, ("batch_size",), None)
                if arg is not None and code_of(program, arg[1].value) == v.text:
                    calls.setdefault(cid, ([], v.value, arg[1]))[0].append(fit_path(fi, "batch_size"))
                    break
        return [
            program.make_site(
                self, cid, elements, code_of(program, arg.value), value, detail={"via": "generator"}
            )
            for cid, (elements, value, arg) in calls.items()
        ]

    def edit(self, program: Program, site: Site, value: Any, options: Mapping[str, Any]) -> Edit:
        if site.detail.get("via") != "generator":
            return super().edit(program, site, value, options)
        assert site.anchor is not None
        arg = program.find_arg(site.anchor, ("batch_size",), None)
        return set_value(self, program, site, value, arg, num(value), "batch_size")

    def no_site_reasons(self, program: Program) -> list[str]:
        traced = {e for site in [*self._generator_sites(program), *self._loop_sites(program)] for e in site.elements}
        return fit_no_site_reasons(program, self.methods, self.key, skip=traced)

    def examples(self) -> list[Example]:
        return [
            Example(
                "model.fit(x_train, y_train, batch_size=128, epochs=5)\n",
                "model.fit(x_train, y_train, batch_size=32, epochs=5)\n",
                value=32,
                style="keyword",
            ),
            Example(
                "history = model.fit(\n    x,\n    y,\n    epochs=3,\n)\n",
                "history = model.fit(\n    x,\n    y,\n    epochs=3,\n    batch_size=256,\n)\n",
                value=256,
                style="one argument per line, default batch size",
            ),
            Example(
                "from keras.preprocessing.image import ImageDataGenerator\n"
                'batches = ImageDataGenerator().flow_from_directory("train", batch_size=16)\n'
                "model.fit_generator(batches, steps_per_epoch=10, epochs=2)\n",
                "from keras.preprocessing.image import ImageDataGenerator\n"
                'batches = ImageDataGenerator().flow_from_directory("train", batch_size=64)\n'
                "model.fit_generator(batches, steps_per_epoch=10, epochs=2)\n",
                value=64,
                style="batches from a generator",
            ),
        ]


class ChangeEpochs(_FitNumber):
    """HNE: fit's epochs (``epochs=``, ``nb_epoch=``, positional, or the default 1)."""

    id = "HNE"
    key = "epochs"
    aliases = ("epochs", "nb_epoch")
    methods = ("fit", "fit_generator")

    def growth(self, old: Any, value: Any) -> Growth:
        """More epochs: that many times the training."""
        before, after = Growth.number(old), Growth.number(value)
        if before is None or after is None or after <= before:
            return Growth()
        return Growth(time=after / before, why=f"epochs {old} -> {value}")

    def keyword(self, program: Program) -> str:
        return "nb_epoch" if program.era == "keras1" else "epochs"

    def examples(self) -> list[Example]:
        return [
            Example(
                "model.fit(X, Y, nb_epoch=20, batch_size=16)\n",
                "model.fit(X, Y, nb_epoch=2, batch_size=16)\n",
                value=2,
                style="keras 1 nb_epoch",
            ),
            Example(
                "model.fit(x_train, y_train, 64, 10)\n",
                "model.fit(x_train, y_train, 64, 100)\n",
                value=100,
                style="positional",
            ),
        ]


def _bound_above(program: Program, name: str, line: int) -> bool:
    """Whether an assignment above ``line`` binds ``name`` (so ``len(name)`` can be written there)."""
    for nid, node in program.index.nodes.items():
        if isinstance(node, cst.Assign) and program.index.position(nid)[0] < line:
            for t in node.targets:
                names = [t.target] if isinstance(t.target, cst.Name) else [
                    e.value for e in getattr(t.target, "elements", []) if isinstance(e.value, cst.Name)
                ]
                if any(n.value == name for n in names):
                    return True
    return False


class DisableBatching(Operator):
    """HDB: batch_size becomes the whole training set (``len(x)`` of fit's input)."""

    id = "HDB"

    def growth(self, old: Any, value: Any) -> Growth:
        """The whole training set in one batch: memory grows with the set, by a factor the edit
        does not fix."""
        return Growth(memory=float("inf"), why=f"batch size {old} -> the whole training set")

    def _loop_sites(self, program: Program) -> list[Site]:
        """TensorFlow 1 graph code: the batch size a session loop reads becomes the length of the
        array it feeds slices of (``batch_size = 100`` -> ``batch_size = len(x_train)``)."""
        from mutreal.mutation.operators.session_loop import session_finding

        sites = []
        for fi, fit in enumerate(program.model.fits):
            if fit.method != SESSION_RUN:
                continue
            node = loop_value_node(program, fi, "batch_size")
            # the whole array the loop feeds slices of (not a batch it rebinds inside the loop)
            arrays = session_finding(program, fi).arrays
            if node is None or arrays is None:
                continue
            array = arrays.x[0]
            line = program.index.position(id(node))[0]
            if not _bound_above(program, array, line):
                continue  # ``batch_size = 1`` written above the array it would take the length of
            sites.append(
                program.make_site(
                    self, id(node), [fit_path(fi, "batch_size")], code_of(program, node),
                    fit.args["batch_size"].value, detail={"fit": fi, "x": array, "via": "loop"},
                )
            )
        return sites

    def no_site_reasons(self, program: Program) -> list[str]:
        return graph_reasons(self, program)

    def find_sites(self, program: Program) -> list[Site]:
        sites = self._loop_sites(program)
        for fi, fit, cid in fit_calls(program):
            x = program.find_arg(cid, ("x",), 0)
            if x is None or not isinstance(x[1].value, cst.Name | cst.Attribute | cst.Subscript):
                continue
            b = fit.arg("batch_size", program.era)
            arg = program.find_arg(cid, ("batch_size",), 2)
            sites.append(
                program.make_site(
                    self,
                    cid,
                    [fit_path(fi, "batch_size")],
                    code_of(program, arg[1].value) if arg else (num(b.value) if b is not None else None),
                    b.value if b is not None else None,
                    implicit=arg is None,
                    detail={"fit": fi, "x": code_of(program, x[1].value)},
                )
            )
        return sites

    def edit(self, program: Program, site: Site, value: Any, options: Mapping[str, Any]) -> Edit:
        assert site.anchor is not None
        if site.detail.get("via") == "loop":
            code = f"len({site.detail['x']})"
            return make_edit(self, site, None, site.old, code, [Change("replace", site.anchor, code=code)], label="full")
        arg = program.find_arg(site.anchor, ("batch_size",), 2)
        return set_value(
            self, program, site, None, arg, f"len({site.detail['x']})", "batch_size", label="full"
        )

    def examples(self) -> list[Example]:
        return [
            Example(
                "model.fit(x_train, y_train, batch_size=32, epochs=5)\n",
                "model.fit(x_train, y_train, batch_size=len(x_train), epochs=5)\n",
                style="keyword batch size",
            ),
            Example(
                "model.fit(data.X, labels, nb_epoch=5)\n",
                "model.fit(data.X, labels, nb_epoch=5, batch_size=len(data.X))\n",
                style="keras 1, default batch size, attribute input",
            ),
        ]


# ---------------------------------------------------------------------------------------------------
# optimizers
# ---------------------------------------------------------------------------------------------------


def optimizer_target(program: Program, ci: int) -> tuple[str, int] | None:
    """Where compile ``ci``'s optimizer is written: ("string", string node) or ("object", call node).

    The optimizer may be written where compile names it, or bound to a name first (``opt =
    SGD(...)``, ``opt = 'adam'``), or be a default of a helper's parameter (``def build(...,
    optimizer=Adam(learning_rate=0.01))``: the model records the helper's call line there, so the
    node is looked for by its text, and taken when the program writes it once)."""
    comp = program.model.compiles[ci]
    opt = comp.optimizer
    if opt is None or opt.cls is None:
        return None
    cid = program.compile_call(ci)
    if cid is None:
        return _minimize_target(program, ci)
    arg = program.find_arg(cid, ("optimizer",), 0)
    if arg is None:
        return None
    v = arg[1].value
    if opt.spelling == "string":
        if isinstance(v, cst.SimpleString):
            return "string", id(v)
        found = _unique_string(program, opt.text)
        return ("string", found) if found is not None else None
    if isinstance(v, cst.Call):
        return "object", id(v)
    found = program.find_call(opt.line, opt.text, None)
    if found is None:
        found = _unique_call(program, opt.text)
    return ("object", found) if found is not None else None


def _minimize_target(program: Program, ci: int) -> tuple[str, int] | None:
    """TensorFlow 1 graph code's "compile": ``tf.train.AdamOptimizer(lr).minimize(loss)``, or an
    optimizer bound to a name first (``opt = tf.train.AdamOptimizer(lr)``; ``opt.minimize(loss)``):
    the optimizer's call is the object to edit (its learning rate, its class)."""
    comp = program.model.compiles[ci]
    opt = comp.optimizer
    assert opt is not None
    mid = program.find_call(comp.line, None, "minimize")
    if mid is not None:
        func = program.node(mid).func  # type: ignore[attr-defined]
        if isinstance(func, cst.Attribute) and isinstance(func.value, cst.Call):
            return "object", id(func.value)
    found = program.find_call(opt.line, opt.text, None) or _unique_call(program, opt.text)
    if found is None or last_name(program.node(found).func) not in keras_api.TF_TRAIN_OPTIMIZERS:  # type: ignore[attr-defined]
        return None
    return "object", found


def _unique_call(program: Program, text: str | None) -> int | None:
    """The one call of the program whose text is ``text`` (None: none, or several)."""
    if not text:
        return None
    want = "".join(text.split())
    found = [
        cid
        for ids in program.index.calls_by_line.values()
        for cid in ids
        if "".join(program.index.text(cid).split()).strip("()") == want.strip("()")
    ]
    return found[0] if len(found) == 1 else None


def _unique_string(program: Program, text: str | None) -> int | None:
    """The one string literal of the program that spells ``text`` (the optimizer's name)."""
    if not text:
        return None
    try:
        name = ast.literal_eval(text.strip())
    except (ValueError, SyntaxError):
        name = text.strip()
    if not isinstance(name, str):
        return None
    found = [
        nid
        for nid, node in program.index.nodes.items()
        if isinstance(node, cst.SimpleString) and node.evaluated_value == name
    ]
    return found[0] if len(found) == 1 else None


def optimizer_targets(program: Program) -> Iterator[tuple[int, Optimizer, tuple[str, int]]]:
    """Each compile whose optimizer can be edited: (compile index, optimizer, :func:`optimizer_target`)."""
    for ci, comp in enumerate(program.model.compiles):
        where = optimizer_target(program, ci)
        if where is not None:
            assert comp.optimizer is not None
            yield ci, comp.optimizer, where


def lr_keyword(program: Program) -> str:
    return "lr" if program.era == "keras1" else "learning_rate"


class ChangeLearningRate(Operator):
    """HLR: the optimizer's learning rate (explicit, legacy ``lr=``, positional, or the era's
    default), and a rate set on the compiled model before a training call
    (``K.set_value(model.optimizer.lr, 1e-4)``: element ``fit[i].learning_rate``)."""

    id = "HLR"

    def find_sites(self, program: Program) -> list[Site]:
        sites = []
        for ci, optimizer, (kind, node) in optimizer_targets(program):
            v = optimizer.arg("learning_rate", program.era)
            if not is_number(v):
                continue
            old = num(v.value)
            implicit = True
            if kind == "object":
                arg = program.find_arg(node, ("learning_rate", "lr"), 0)
                if arg is not None:
                    old, implicit = code_of(program, arg[1].value), False
            sites.append(
                program.make_site(
                    self,
                    node,
                    [compile_path(ci, "optimizer", "learning_rate")],
                    old,
                    v.value,
                    implicit=implicit,
                    detail={"compile": ci, "spelling": kind, "optimizer": optimizer.cls},
                )
            )
        return sites + self._set_value_sites(program)

    def _set_value_sites(self, program: Program) -> list[Site]:
        """One site per ``set_value`` call that sets the learning rate before training calls
        (every training call it governs is one of its elements)."""
        calls: dict[int, tuple[list[str], Any, cst.Arg]] = {}
        for fi, fit in enumerate(program.model.fits):
            v = fit.learning_rate
            if not is_number(v) or v.line is None:
                continue
            cid = program.find_call(v.line, None, "set_value")
            arg = program.find_arg(cid, ("value",), 1) if cid is not None else None
            if cid is None or arg is None:
                continue
            calls.setdefault(cid, ([], v.value, arg[1]))[0].append(fit_path(fi, "learning_rate"))
        return [
            program.make_site(
                self, cid, elements, code_of(program, arg.value), value, detail={"spelling": "set_value"}
            )
            for cid, (elements, value, arg) in calls.items()
        ]

    def accepts(self, site: Site, value: Any) -> bool:
        return float(value) != float(site.original)

    def edit(self, program: Program, site: Site, value: Any, options: Mapping[str, Any]) -> Edit:
        assert site.anchor is not None
        code = num(value)
        if site.detail["spelling"] == "set_value":
            arg = program.find_arg(site.anchor, ("value",), 1)
            return set_value(self, program, site, value, arg, code, "value")
        if site.detail["spelling"] == "object":
            arg = program.find_arg(site.anchor, ("learning_rate", "lr"), 0)
            return set_value(self, program, site, value, arg, code, lr_keyword(program))
        callee, imports = keras_callee(program, "optimizers", site.detail["optimizer"], at=site.anchor)
        new = f"{callee}({lr_keyword(program)}={code})"
        return make_edit(
            self, site, value, site.old, code, [Change("replace", site.anchor, code=new), *imports]
        )

    def examples(self) -> list[Example]:
        return [
            Example(
                "from keras.optimizers import SGD\nmodel.compile(loss='mse', optimizer=SGD(lr=0.01))\n",
                "from keras.optimizers import SGD\nmodel.compile(loss='mse', optimizer=SGD(lr=0.1))\n",
                value=0.1,
                style="keras legacy lr keyword",
            ),
            Example(
                "import tensorflow as tf\nmodel.compile(optimizer='adam', loss='mse')\n",
                "import tensorflow as tf\n"
                "model.compile(optimizer=tf.keras.optimizers.Adam(learning_rate=1e-05), loss='mse')\n",
                value=1e-05,
                style="tf.keras string optimizer",
            ),
            Example(
                "from keras.models import Sequential\nmodel.compile(loss='mse', optimizer='rmsprop')\n",
                "from keras.models import Sequential\nfrom keras.optimizers import RMSprop\n"
                "model.compile(loss='mse', optimizer=RMSprop(learning_rate=0.1))\n",
                value=0.1,
                style="keras string optimizer, import added",
            ),
            Example(
                "from keras import backend as K\n"
                "model.compile(optimizer='sgd', loss='mse')\n"
                "model.fit(x, y, epochs=2)\n"
                "K.set_value(model.optimizer.lr, 0.001)\n"
                "model.fit(x, y, epochs=2)\n",
                "from keras import backend as K\n"
                "model.compile(optimizer='sgd', loss='mse')\n"
                "model.fit(x, y, epochs=2)\n"
                "K.set_value(model.optimizer.lr, 0.1)\n"
                "model.fit(x, y, epochs=2)\n",
                site=1,
                value=0.1,
                style="rate set on the compiled model before a second fit",
            ),
        ]
