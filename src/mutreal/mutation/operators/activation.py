"""Activation operators ACH (change), ARM (remove: set to linear), AAL (add to a linear layer).

Sites are layers that take an ``activation`` argument and ``Activation`` layers. An activation
written as a separate ``Activation`` layer after a layer belongs, in classify's folded view, to
the layer before it: the site is then the ``Activation`` layer's call (the one to edit) and the
element path names the owning layer. A layer built in a loop is one call and one site that
edits every layer it builds. New activations are written in the style of the old one: a string
in the same quotes, ``activations.<name>`` when the old value is an attribute of an
``activations`` module, else a string.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, ClassVar

import libcst as cst

from mutreal.mutation.operators.base import Change, Edit, Example, MutationError, Operator, Program, Site
from mutreal.mutation.operators.common import (
    accepts_arg,
    code_of,
    folded_owner,
    graph_op,
    layer_site,
    make_edit,
    set_value,
    site_arg,
)
from mutreal.program.model import layer_path

LINEAR = "linear"

#: DeepCrime's activation names as TensorFlow 1 graph functions, under the program's ``tf`` alias
#: (``hard_sigmoid`` has none: not offered on graph code)
GRAPH_ACTIVATIONS = {
    "relu": "nn.relu",
    "elu": "nn.elu",
    "selu": "nn.selu",
    "softplus": "nn.softplus",
    "softsign": "nn.softsign",
    "tanh": "nn.tanh",
    "sigmoid": "nn.sigmoid",
    "softmax": "nn.softmax",
    "exponential": "exp",
}


def _graph_function(program: Program, call_id: int) -> str | None:
    """The ``tf`` alias a graph activation call ``tf.nn.relu(x)`` is written through, when the call
    can take another activation function in its place: one positional argument (its input) and
    nothing else but ``name=``; None otherwise."""
    call = program.node(call_id)
    if not isinstance(call, cst.Call) or not isinstance(call.func, cst.Attribute):
        return None
    positional = [a for a in call.args if a.keyword is None and not a.star]
    others = [a for a in call.args if a.keyword is not None and a.keyword.value != "name"]
    if len(positional) != 1 or others or any(a.star for a in call.args):
        return None
    root = call.func
    while isinstance(root, cst.Attribute):
        root = root.value
    if not isinstance(root, cst.Name) or program.model.imports.get(root.value) != "tensorflow":
        return None
    return root.value


def _activation_sites(op: Operator, program: Program, want_linear: bool) -> list[Site]:
    sites: list[Site] = []
    for g in program.layer_groups:
        layer = g.layer
        is_act_layer = layer.cls == "Activation"
        graph = graph_op(program, g) is not None
        if graph and not (is_act_layer and _graph_function(program, g.call)):
            continue  # a graph op takes no activation keyword; an activation call of another shape
        if not is_act_layer and not accepts_arg(layer, "activation", program.era):
            continue
        elements = []
        current: str | None = None
        ok = True
        for mi, li, inst in g.instances:
            if g.wrapped:
                act = inst.arg("activation", program.era)
                if act is None or act.is_opaque or not isinstance(act.value, str | None):
                    ok = False
                    break
                current = LINEAR if act.value is None else act.value
                elements.append(layer_path(mi, li, "activation"))
                continue
            fl = folded_owner(program, mi, li)
            if fl is None:
                ok = False
                break
            if not is_act_layer and len(fl.sources) > 1:
                ok = False  # the activation lives in a separate Activation layer: that is the site
                break
            act = fl.activation if not is_act_layer else layer.args.get("activation")
            if act is not None and act.is_opaque:
                ok = False
                break
            name = LINEAR if act is None or act.value is None else act.value
            if not isinstance(name, str):
                ok = False
                break
            current = name
            elements.append(layer_path(mi, fl.sources[0], "activation"))
        if not ok or not elements or current is None:
            continue
        if (current == LINEAR) != want_linear:
            continue
        if graph:
            call = program.node(g.call)
            assert isinstance(call, cst.Call)
            sites.append(
                program.make_site(
                    op, g.call, elements, code_of(program, call.func), current,
                    detail={"layer": layer.cls, "activation_layer": True, "graph": True},
                )
            )
            continue
        sites.append(
            layer_site(
                op,
                program,
                g,
                "activation",
                current,
                repr(current),
                elements=elements,
                detail={"layer": layer.cls, "activation_layer": is_act_layer},
            )
        )
    return sites


def _activation_code(program: Program, arg: tuple[int, cst.Arg] | None, name: str) -> str:
    if arg is not None:
        v = arg[1].value
        if isinstance(v, cst.Attribute) and isinstance(v.value, cst.Name | cst.Attribute):
            base = code_of(program, v.value)
            if base.split(".")[-1] == "activations":
                return f"{base}.{name}"
        return program.string(name, v)
    return program.string(name)


class _SetActivation(Operator):
    """ACH, ARM, AAL: their sites are the layers whose activation is (``linear``) or is not linear;
    the edit writes another activation in the style of the old one."""

    linear: ClassVar[bool] = False

    def find_sites(self, program: Program) -> list[Site]:
        return _activation_sites(self, program, want_linear=self.linear)

    def no_site_reasons(self, program: Program) -> list[str]:
        out = []
        for g in program.layer_groups:
            op = graph_op(program, g)
            if op is None or g.layer.cls == "Input":
                continue
            line = program.index.position(g.call)[0]
            if g.layer.cls != "Activation":
                if self.linear:
                    out.append(
                        f"{op} at line {line} is a TensorFlow 1 graph operation: it takes no activation "
                        "(one would wrap its output, after the bias the program adds outside the call)"
                    )
            elif _graph_function(program, g.call) is None:
                out.append(
                    f"{op} at line {line}: an activation call whose arguments another activation "
                    "function does not take, or not written through the tensorflow module"
                )
        return out

    def _set(self, program: Program, site: Site, name: str, value: Any) -> Edit:
        if site.detail.get("graph"):
            return self._set_graph(program, site, name, value)
        _, arg = site_arg(program, site, "activation")
        return set_value(
            self, program, site, value, arg, _activation_code(program, arg, name), "activation", label=name
        )


    def _set_graph(self, program: Program, site: Site, name: str, value: Any) -> Edit:
        """A graph activation call: the function is swapped (``tf.nn.relu(h)`` -> ``tf.nn.elu(h)``),
        or removed for linear (``tf.nn.relu(h)`` -> ``(h)``); its input is kept as written."""
        assert site.anchor is not None
        call = program.node(site.anchor)
        assert isinstance(call, cst.Call)
        if name == LINEAR:
            inner = code_of(program, call.args[0].value)
            return make_edit(self, site, value, site.old, LINEAR, [Change("replace", site.anchor, code=f"({inner})")], label=name)
        fn = GRAPH_ACTIVATIONS.get(name)
        tf = _graph_function(program, site.anchor)
        if fn is None or tf is None:
            raise MutationError(f"{self.id}: TensorFlow 1 has no graph activation function for {name!r}")
        new = f"{tf}.{fn}"
        return make_edit(self, site, value, site.old, new, [Change("replace", id(call.func), code=new)], label=name)


class ChangeActivation(_SetActivation):
    """ACH: a non-linear activation becomes another non-linear one (to linear is ARM)."""

    id = "ACH"

    def accepts(self, site: Site, value: Any) -> bool:
        if site.detail.get("graph") and value not in GRAPH_ACTIVATIONS:
            return False
        return value != LINEAR and value != site.original

    def edit(self, program: Program, site: Site, value: Any, options: Mapping[str, Any]) -> Edit:
        return self._set(program, site, value, value)

    def examples(self) -> list[Example]:
        return [
            Example(
                "from keras.layers import Dense\nmodel.add(Dense(10, activation='softmax'))\n",
                "from keras.layers import Dense\nmodel.add(Dense(10, activation='sigmoid'))\n",
                value="sigmoid",
                style="keras Sequential, string activation",
            ),
            Example(
                "import tensorflow as tf\nx = tf.keras.layers.Dense(8, activation=tf.keras.activations.relu)(x)\n",
                "import tensorflow as tf\nx = tf.keras.layers.Dense(8, activation=tf.keras.activations.tanh)(x)\n",
                value="tanh",
                style="tf.keras functional, activations attribute",
            ),
            Example(
                'from keras.layers import Activation, Dense\nmodel.add(Dense(3))\nmodel.add(Activation("relu"))\n',
                'from keras.layers import Activation, Dense\nmodel.add(Dense(3))\nmodel.add(Activation("elu"))\n',
                value="elu",
                style="separate Activation layer",
            ),
            Example(
                "from keras.layers import Dense, TimeDistributed\n"
                "model.add(TimeDistributed(Dense(1, activation='sigmoid')))\n",
                "from keras.layers import Dense, TimeDistributed\n"
                "model.add(TimeDistributed(Dense(1, activation='tanh')))\n",
                value="tanh",
                style="layer inside a wrapper",
            ),
        ]


class RemoveActivation(_SetActivation):
    """ARM: a non-linear activation is set to ``linear`` (DeepCrime's reading of removal)."""

    id = "ARM"

    def edit(self, program: Program, site: Site, value: Any, options: Mapping[str, Any]) -> Edit:
        return self._set(program, site, LINEAR, None)

    def examples(self) -> list[Example]:
        return [
            Example(
                'from keras.layers import Dense\nmodel.add(Dense(64, activation="relu", input_dim=8))\n',
                'from keras.layers import Dense\nmodel.add(Dense(64, activation="linear", input_dim=8))\n',
                style="keras Sequential",
            ),
            Example(
                "from tensorflow.keras import layers\nh = layers.LSTM(16)(inputs)\n",
                'from tensorflow.keras import layers\nh = layers.LSTM(16, activation="linear")(inputs)\n',
                style="tf.keras functional, implicit default (LSTM tanh)",
            ),
        ]


class AddActivation(_SetActivation):
    """AAL: a layer without activation (linear or absent) gets one."""

    id = "AAL"
    linear = True

    def accepts(self, site: Site, value: Any) -> bool:
        return value != LINEAR

    def edit(self, program: Program, site: Site, value: Any, options: Mapping[str, Any]) -> Edit:
        if value == LINEAR:
            raise MutationError("AAL adds a non-linear activation")
        return self._set(program, site, value, value)

    def examples(self) -> list[Example]:
        return [
            Example(
                "from keras.layers import Dense\nmodel.add(Dense(1))\n",
                'from keras.layers import Dense\nmodel.add(Dense(1, activation="sigmoid"))\n',
                value="sigmoid",
                style="keras Sequential, absent activation",
            ),
            Example(
                "import tensorflow as tf\n"
                "model = tf.keras.Sequential([tf.keras.layers.Dense(4, activation='linear')])\n",
                "import tensorflow as tf\n"
                "model = tf.keras.Sequential([tf.keras.layers.Dense(4, activation='relu')])\n",
                value="relu",
                style="tf.keras list, explicit linear",
            ),
        ]
