"""Loss and optimiser operators: LCH (loss), OCH (optimiser), OCG (gradient clipping).

A new loss is written as a string (every Keras era accepts DeepCrime's names). A new optimiser
keeps the old one's spelling: a string stays a string (``'adam'`` -> ``'sgd'``), an object becomes
another class of the same module path (``optimizers.Adam(...)`` -> ``optimizers.SGD()``); with
option ``keep_learning_rate`` the old explicit learning rate is carried over (DeepCrime drops all
hyperparameters). OCG sets ``clipvalue`` (or ``clipnorm``, option ``mode``); on a string optimiser
it writes the class with that one argument. A TensorFlow 1 optimizer
(``tf.compat.v1.train.GradientDescentOptimizer(lr)``) becomes another TensorFlow 1 optimizer with
the same learning rate (``tf.compat.v1.train.AdamOptimizer(lr)``), never a Keras name in the
``train`` module, which does not exist.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import libcst as cst

from mutreal.mutation.operators.base import Change, Edit, Example, MutationError, Operator, Program, Site
from mutreal.mutation.operators.common import (
    code_of,
    era_name,
    graph_reasons,
    keras_callee,
    make_edit,
    num,
    value_change,
    value_label,
)
from mutreal.mutation.operators.custom_loss import (
    CLASSIFICATION_LOSSES,
    REGRESSION_LOSSES,
    custom_loss_at,
    custom_losses,
    loss_args,
    whole_loss_texts,
)
from mutreal.mutation.operators.hyperparameters import lr_keyword, optimizer_targets
from mutreal.mutation.operators.node_index import last_name
from mutreal.program import keras_api
from mutreal.program.model import compile_path


class ChangeLoss(Operator):
    """LCH: compile's loss (string, function or object) becomes another of DeepCrime's losses; a
    user-defined loss (def, lambda, Loss subclass; also one entry of a per-output dict or list)
    becomes a Keras loss of its output's task (see :mod:`.custom_loss`)."""

    id = "LCH"

    def find_sites(self, program: Program) -> list[Site]:
        sites = []
        for ci, comp, arg in loss_args(program):
            loss = comp.loss
            if loss is None or not loss.is_const or not isinstance(loss.value, str):
                continue
            sites.append(
                program.make_site(
                    self,
                    id(arg.value),
                    [compile_path(ci, "loss")],
                    code_of(program, arg.value),
                    loss.value,
                )
            )
        for custom in custom_losses(program):
            if custom.task is None:
                continue
            detail = {"custom": custom.kind, "name": custom.name, "task": custom.task}
            if custom.output is not None:
                detail["output"] = custom.output
            sites.append(
                program.make_site(
                    self,
                    id(custom.node),
                    [compile_path(custom.compile, "loss")],
                    code_of(program, custom.node),
                    None,
                    detail=detail,
                )
            )
        return sites

    def no_site_reasons(self, program: Program) -> list[str]:
        return [
            f"compile call {c.compile}: the output that custom loss {c.name} applies to is not found "
            "(its task, regression or classification, is unknown)"
            for c in custom_losses(program)
            if c.task is None
        ] + graph_reasons(self, program)

    def accepts(self, site: Site, value: Any) -> bool:
        task = site.detail.get("task")
        if task is not None:
            return value in (REGRESSION_LOSSES if task == "regression" else CLASSIFICATION_LOSSES)
        return keras_api.canonical_loss(value) != site.original

    def edit(self, program: Program, site: Site, value: Any, options: Mapping[str, Any]) -> Edit:
        assert site.anchor is not None
        code = program.string(
            era_name("losses", value, program.era) or value, program.index.nodes.get(site.anchor)
        )
        custom = custom_loss_at(program, site.anchor) if "custom" in site.detail else None
        if custom is not None and custom.container is not None:
            # one entry of a per-output dict/list: the component is the whole loss value, as classify reads it
            before, after = whole_loss_texts(program, custom, code)
            edit = make_edit(self, site, value, before, after, [Change("replace", site.anchor, code=code)])
            edit.old, edit.new = site.old, code
            return edit
        return make_edit(self, site, value, site.old, code, [Change("replace", site.anchor, code=code)])

    def examples(self) -> list[Example]:
        return [
            Example(
                "model.compile(loss='categorical_crossentropy', optimizer='adam')\n",
                "model.compile(loss='mean_squared_error', optimizer='adam')\n",
                value="mean_squared_error",
                style="string loss",
            ),
            Example(
                "import tensorflow as tf\n"
                "model.compile(optimizer='sgd', loss=tf.keras.losses.BinaryCrossentropy())\n",
                "import tensorflow as tf\nmodel.compile(optimizer='sgd', loss='hinge')\n",
                value="hinge",
                style="tf.keras loss object",
            ),
            Example(
                "def my_loss(t, p):\n    return (t - p) ** 2\n\n\n"
                "model = Sequential([Dense(1)])\nmodel.compile(loss=my_loss, optimizer='adam')\n",
                "def my_loss(t, p):\n    return (t - p) ** 2\n\n\n"
                "model = Sequential([Dense(1)])\nmodel.compile(loss='mean_absolute_error', optimizer='adam')\n",
                value="mean_absolute_error",
                style="custom def loss, regression output",
            ),
            Example(
                "model = Sequential([Dense(3, activation='softmax')])\n"
                "model.compile(loss=lambda t, p: -t * p, optimizer='adam')\n",
                "model = Sequential([Dense(3, activation='softmax')])\n"
                "model.compile(loss='categorical_crossentropy', optimizer='adam')\n",
                value="categorical_crossentropy",
                style="custom lambda loss, classification output",
            ),
            Example(
                "import keras\n\n\nclass Half(keras.losses.Loss):\n    def call(self, t, p):\n        return (t - p) / 2\n\n\n"
                "model = keras.Sequential([keras.layers.Dense(1)])\n"
                "model.compile(loss=Half(), optimizer='adam')\n",
                "import keras\n\n\nclass Half(keras.losses.Loss):\n    def call(self, t, p):\n        return (t - p) / 2\n\n\n"
                "model = keras.Sequential([keras.layers.Dense(1)])\n"
                "model.compile(loss='huber_loss', optimizer='adam')\n",
                value="huber_loss",
                style="custom Loss subclass",
            ),
        ]


#: the ``tf.compat.v1.train`` optimizer of each Keras optimizer TensorFlow 1 has
TF1_OPTIMIZERS = {
    "SGD": "GradientDescentOptimizer",
    "Adam": "AdamOptimizer",
    "RMSprop": "RMSPropOptimizer",
    "Adagrad": "AdagradOptimizer",
    "Adadelta": "AdadeltaOptimizer",
}


#: the calls that build TensorFlow 1's variable initialiser op (of the variables that exist then)
_INITIALISERS = frozenset({"global_variables_initializer", "initialize_all_variables", "variables_initializer"})


def initialised_before(program: Program, node: int) -> int | None:
    """The line of the last variable initialiser op a graph program builds, when it is built above
    the optimizer call ``node`` (and none below it): such an op initialises only the variables that
    exist when it is built, so the slot variables another optimizer makes (Adam's moments,
    Adagrad's accumulators: every ``tf.train`` optimizer but plain gradient descent) would stay
    uninitialised and its first step fails. None otherwise."""
    line = program.index.position(node)[0]
    found = [
        program.index.position(nid)[0]
        for nid, call in program.index.nodes.items()
        if isinstance(call, cst.Call) and last_name(call.func) in _INITIALISERS
    ]
    return max(found) if found and max(found) < line else None


class ChangeOptimiser(Operator):
    """OCH: compile's optimiser becomes another class (string or object spelling kept)."""

    id = "OCH"
    options = {"keep_learning_rate": False}

    def no_site_reasons(self, program: Program) -> list[str]:
        out = []
        for _ci, _optimizer, (_kind, node) in optimizer_targets(program):
            call = program.node(node)
            if isinstance(call, cst.Call) and last_name(call.func) in keras_api.TF_TRAIN_OPTIMIZERS:
                line = initialised_before(program, node)
                if line is not None:
                    out.append(
                        f"{last_name(call.func)} at line {program.index.position(node)[0]}: the variables are "
                        f"initialised at line {line}, before it is built; every other tf.train optimizer makes slot "
                        "variables that would stay uninitialised (its first step fails)"
                    )
        return out

    def find_sites(self, program: Program) -> list[Site]:
        sites = []
        for ci, optimizer, (kind, node) in optimizer_targets(program):
            detail = {"compile": ci, "spelling": kind, "optimizer": optimizer.cls}
            call = program.node(node)
            if isinstance(call, cst.Call) and last_name(call.func) in keras_api.TF_TRAIN_OPTIMIZERS:
                if initialised_before(program, node) is not None:
                    continue  # said by no_site_reasons
                detail["tf1"] = True  # ``tf.compat.v1.train.GradientDescentOptimizer(...)``
            sites.append(
                program.make_site(
                    self,
                    node,
                    [compile_path(ci, "optimizer")],
                    code_of(program, call),
                    optimizer.cls.lower() if optimizer.cls else None,
                    detail=detail,
                )
            )
        return sites

    def accepts(self, site: Site, value: Any) -> bool:
        cls = keras_api.canonical_optimizer(str(value))
        if site.detail.get("tf1") and cls not in TF1_OPTIMIZERS:
            return False  # TensorFlow 1 has no such optimizer (Adamax, Nadam)
        return cls != site.detail["optimizer"]

    def _tf1_call(self, program: Program, site: Site, cls: str) -> tuple[str, list[Change]]:
        """Another ``tf.compat.v1.train`` optimizer, in the module the old one is written from,
        with the old learning rate (three of them have no default: DeepCrime's dropping of the
        hyperparameters would not run; the same rate keeps the mutant one OCH)."""
        node = program.node(site.anchor)  # type: ignore[arg-type]
        assert isinstance(node, cst.Call)
        name = TF1_OPTIMIZERS[cls]
        imports: list[Change] = []
        if isinstance(node.func, cst.Attribute):
            callee = f"{code_of(program, node.func.value)}.{name}"
        else:
            callee = name
            module = program.model.imports.get(last_name(node.func) or "", "tensorflow.compat.v1.train.x")
            imports = [Change("import", 0, code=f"from {module.rsplit('.', 1)[0]} import {name}")]
        arg = program.find_arg(site.anchor, ("learning_rate",), 0)  # type: ignore[arg-type]
        if arg is not None:
            lr = code_of(program, arg[1].value)
            args = f"learning_rate={lr}" if arg[1].keyword else lr
        else:
            old = last_name(node.func) or ""
            args = "0.001" if old in ("AdamOptimizer", "AdadeltaOptimizer") else ""
        return f"{callee}({args})", imports

    def edit(self, program: Program, site: Site, value: Any, options: Mapping[str, Any]) -> Edit:
        assert site.anchor is not None
        cls = keras_api.canonical_optimizer(value)
        if cls is None:
            raise MutationError(f"OCH: unknown optimizer {value!r}")
        node = program.node(site.anchor)
        imports: list[Change] = []
        if site.detail["spelling"] == "string":
            code = program.string(value, node)
        elif site.detail.get("tf1"):
            if cls not in TF1_OPTIMIZERS:
                raise MutationError(f"OCH: TensorFlow 1 has no {cls} optimizer")
            code, imports = self._tf1_call(program, site, cls)
        else:
            assert isinstance(node, cst.Call)
            callee, imports = keras_callee(program, "optimizers", cls, node, at=site.anchor)
            args = ""
            if options.get("keep_learning_rate"):
                arg = program.find_arg(site.anchor, ("learning_rate", "lr"), 0)
                if arg is not None:
                    kw = arg[1].keyword.value if arg[1].keyword else lr_keyword(program)
                    args = f"{kw}={code_of(program, arg[1].value)}"
            code = f"{callee}({args})"
        changes = [Change("replace", site.anchor, code=code), *imports]
        # a mutant keeping the learning rate is another mutant than DeepCrime's: another file name
        label = f"{value}-keep-lr" if options.get("keep_learning_rate") else str(value)
        return make_edit(self, site, value, site.old, code, changes, label=label, options=dict(options))

    def examples(self) -> list[Example]:
        return [
            Example(
                "model.compile(loss='mse', optimizer='adam')\n",
                "model.compile(loss='mse', optimizer='sgd')\n",
                value="sgd",
                style="string optimizer",
            ),
            Example(
                "from keras import optimizers\n"
                "model.compile(loss='mse', optimizer=optimizers.SGD(lr=0.05, momentum=0.9))\n",
                "from keras import optimizers\nmodel.compile(loss='mse', optimizer=optimizers.Adagrad(lr=0.05))\n",
                value="adagrad",
                options={"keep_learning_rate": True},
                style="keras module attribute, keeping the learning rate",
            ),
            Example(
                "import tensorflow as tf\n"
                "model.compile(loss='mse', optimizer=tf.compat.v1.train.GradientDescentOptimizer(alpha))\n",
                "import tensorflow as tf\n"
                "model.compile(loss='mse', optimizer=tf.compat.v1.train.AdamOptimizer(alpha))\n",
                value="adam",
                style="TensorFlow 1 optimizer, learning rate kept",
            ),
            Example(
                "from tensorflow.keras.optimizers import Adam\nopt = Adam(learning_rate=0.01)\n"
                "model.compile(optimizer=opt, loss='mse')\n",
                "from tensorflow.keras.optimizers import Adam\nfrom tensorflow.keras.optimizers import RMSprop\n"
                "opt = RMSprop()\nmodel.compile(optimizer=opt, loss='mse')\n",
                value="rmsprop",
                style="tf.keras optimizer variable, import added",
            ),
        ]


class ChangeGradientClipping(Operator):
    """OCG: the optimiser's clipvalue (or clipnorm with option mode='clipnorm')."""

    id = "OCG"
    options = {"mode": "clipvalue"}

    def find_sites(self, program: Program) -> list[Site]:
        sites = []
        for ci, optimizer, (kind, node) in optimizer_targets(program):
            call = program.node(node)
            if isinstance(call, cst.Call) and last_name(call.func) in keras_api.TF_TRAIN_OPTIMIZERS:
                continue  # a TensorFlow 1 optimizer takes no clipvalue/clipnorm
            current = optimizer.args.get("clipvalue")
            sites.append(
                program.make_site(
                    self,
                    node,
                    [compile_path(ci, "optimizer", "clipvalue")],
                    current.text if current is not None else None,
                    current.value if current is not None and current.is_const else None,
                    detail={"compile": ci, "spelling": kind, "optimizer": optimizer.cls},
                )
            )
        return sites

    def no_site_reasons(self, program: Program) -> list[str]:
        out = []
        for ci, _optimizer, (_kind, node) in optimizer_targets(program):
            call = program.node(node)
            if isinstance(call, cst.Call) and last_name(call.func) in keras_api.TF_TRAIN_OPTIMIZERS:
                out.append(
                    f"compile call {ci}: TensorFlow 1 optimizer {last_name(call.func)} takes no "
                    "clipvalue or clipnorm"
                )
        return out

    def edit(self, program: Program, site: Site, value: Any, options: Mapping[str, Any]) -> Edit:
        assert site.anchor is not None
        mode = options.get("mode", "clipvalue")
        if mode not in self.spec.param.modes:  # type: ignore[union-attr]
            raise MutationError(f"OCG: mode must be one of {', '.join(self.spec.param.modes)}")  # type: ignore[union-attr]
        code = num(value)
        comp = program.model.compiles[site.detail["compile"]]
        assert comp.optimizer is not None
        current = comp.optimizer.args.get(mode)
        old = current.text if current is not None else None
        if current is not None and current.is_const and current.value == value:
            raise MutationError(f"OCG: {mode} is already {value}")
        if site.detail["spelling"] == "object":
            arg = program.find_arg(site.anchor, (mode,), None)
            changes = [value_change(program, site.anchor, arg, code, mode)]
        else:
            callee, imports = keras_callee(program, "optimizers", site.detail["optimizer"], at=site.anchor)
            changes = [Change("replace", site.anchor, code=f"{callee}({mode}={code})"), *imports]
        label = value_label(value) if mode == "clipvalue" else f"{mode}-{value_label(value)}"
        edit = make_edit(self, site, value, old, code, changes, label=label, options={"mode": mode})
        element = compile_path(site.detail["compile"], "optimizer", mode)
        for c in edit.components:
            c.element = element
        return edit

    def examples(self) -> list[Example]:
        return [
            Example(
                "from keras.optimizers import SGD\nmodel.compile(loss='mse', optimizer=SGD(lr=0.1))\n",
                "from keras.optimizers import SGD\nmodel.compile(loss='mse', optimizer=SGD(lr=0.1, clipvalue=0.5))\n",
                value=0.5,
                style="keras object optimizer",
            ),
            Example(
                "import tensorflow as tf\nmodel.compile(optimizer='adam', loss='mse')\n",
                "import tensorflow as tf\nmodel.compile(optimizer=tf.keras.optimizers.Adam(clipnorm=1.0), loss='mse')\n",
                value=1.0,
                options={"mode": "clipnorm"},
                style="tf.keras string optimizer, clipnorm",
            ),
        ]
