"""Weight operators: WCI (kernel initializer), WAB (add bias), WRB (remove bias).

Initializers are written as strings (``'he_normal'``, any Keras era accepts them); Keras 1 style
calls get ``init=`` and ``bias=`` keywords.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, ClassVar

import libcst as cst

from mutreal.mutation.operators.base import Change, Edit, Example, MutationError, Operator, Program, Site
from mutreal.mutation.operators.common import (
    era_name,
    graph_no_site_reasons,
    graph_op,
    groups_taking,
    layer_site,
    make_edit,
    set_value,
    site_arg,
    weights_arg,
)
from mutreal.mutation.operators.node_index import last_name
from mutreal.program import keras_api
from mutreal.program.model import Layer, layer_path


def _initializer_arg(layer: Layer) -> str:
    return weights_arg(layer, "initializer")


#: DeepCrime's initializer names as TensorFlow 1 expressions of a shape ``{s}`` under the program's
#: ``tf`` alias ``{tf}``: what a graph program's ``tf.Variable(<initial value>)`` is given instead
GRAPH_INITIALIZERS = {
    "zeros": "{tf}.zeros({s})",
    "ones": "{tf}.ones({s})",
    "random_normal": "{tf}.random_normal({s})",
    "random_uniform": "{tf}.random_uniform({s})",
    "truncated_normal": "{tf}.truncated_normal({s})",
    "orthogonal": "{tf}.orthogonal_initializer()({s})",
    "glorot_uniform": "{tf}.glorot_uniform_initializer()({s})",
    "glorot_normal": "{tf}.glorot_normal_initializer()({s})",
    "he_normal": "{tf}.initializers.he_normal()({s})",
    "he_uniform": "{tf}.initializers.he_uniform()({s})",
    "lecun_normal": "{tf}.initializers.lecun_normal()({s})",
    "lecun_uniform": "{tf}.initializers.lecun_uniform()({s})",
}


def _graph_initial_value(program: Program, layer: Layer) -> tuple[int, str, str] | None:
    """A graph layer's weights written ``tf.Variable(tf.truncated_normal(shape, ...))``: (the
    initial-value call, its shape's text, the ``tf`` alias); None when written otherwise."""
    v = layer.args.get("kernel_initializer")
    if v is None or not v.text:
        return None
    want = "".join(v.text.split())
    found = []
    for ids in program.index.calls_by_line.values():
        for cid in ids:
            if "".join(program.index.text(cid).split()) == want:
                found.append(cid)
    if len(found) != 1:
        return None
    call = program.node(found[0])
    parent = program.index.parents.get(program.index.parents.get(found[0], -1), -1)
    outer = program.index.nodes.get(parent)
    if not isinstance(call, cst.Call) or not isinstance(outer, cst.Call) or last_name(outer.func) != "Variable":
        return None
    shape = program.find_arg(found[0], ("shape",), 0)
    root = call.func
    while isinstance(root, cst.Attribute):
        root = root.value
    if shape is None or not isinstance(root, cst.Name) or program.model.imports.get(root.value) != "tensorflow":
        return None
    return found[0], program.module.code_for_node(shape[1].value), root.value


class ChangeWeightsInitialisation(Operator):
    """WCI: the kernel initializer of a layer (explicit or the default glorot_uniform); an
    Embedding's ``embeddings_initializer``."""

    id = "WCI"

    def find_sites(self, program: Program) -> list[Site]:
        sites = self._graph_sites(program)
        for g, canonical in groups_taking(program, _initializer_arg):
            v = g.layer.arg(canonical, program.era)
            if v is None or v.is_opaque:
                continue
            name = v.value if isinstance(v.value, str) else None
            sites.append(layer_site(self, program, g, canonical, name, repr(name)))
        return sites

    def _graph_sites(self, program: Program) -> list[Site]:
        sites = []
        for g in program.layer_groups:
            if graph_op(program, g) is None:
                continue
            found = _graph_initial_value(program, g.layer)
            if found is None:
                continue
            v = g.layer.args["kernel_initializer"]
            sites.append(
                program.make_site(
                    self,
                    found[0],
                    [layer_path(m, li, "kernel_initializer") for m, li, _ in g.instances],
                    program.index.text(found[0]),
                    v.value if isinstance(v.value, str) else None,
                    detail={"layer": g.layer.cls, "graph": True, "shape": found[1], "tf": found[2]},
                )
            )
        return sites

    def no_site_reasons(self, program: Program) -> list[str]:
        out = []
        for g in program.layer_groups:
            op = graph_op(program, g)
            if op is None or g.layer.cls in ("Activation", "Input") or _graph_initial_value(program, g.layer):
                continue
            line = program.index.position(g.call)[0]
            out.append(
                f"{op} at line {line} is a TensorFlow 1 graph operation: it takes no kernel_initializer, "
                "and its weights are not found written as tf.Variable(<initial value call>(shape, ...))"
            )
        return out

    def accepts(self, site: Site, value: Any) -> bool:
        if site.detail.get("graph"):
            return value in GRAPH_INITIALIZERS and value != site.original
        return keras_api.canonical_initializer(value) != site.original

    def values(self, program: Program, site: Site) -> list[Any]:
        # only the initializers the era can name by a string (Keras 3 has no ``'constant'``)
        return [v for v in super().values(program, site) if era_name("initializers", v, program.era)]

    def edit(self, program: Program, site: Site, value: Any, options: Mapping[str, Any]) -> Edit:
        if site.detail.get("graph"):
            assert site.anchor is not None
            code = GRAPH_INITIALIZERS[value].format(tf=site.detail["tf"], s=site.detail["shape"])
            return make_edit(self, site, value, site.old, code, [Change("replace", site.anchor, code=code)])
        layer, arg = site_arg(program, site, _initializer_arg)
        assert site.anchor is not None
        kw = "init" if program.uses_legacy_kwargs(site.anchor, layer.cls) else _initializer_arg(layer)
        spelled = era_name("initializers", value, program.era)
        if spelled is None:
            raise MutationError(f"WCI: Keras 3 has no initializer named {value!r}")
        code = program.string(spelled, arg[1].value if arg else None)
        return set_value(self, program, site, value, arg, code, kw)

    def examples(self) -> list[Example]:
        return [
            Example(
                "from keras.layers import Dense\nmodel.add(Dense(10, kernel_initializer='he_normal'))\n",
                "from keras.layers import Dense\nmodel.add(Dense(10, kernel_initializer='zeros'))\n",
                value="zeros",
                style="keras 2 keyword",
            ),
            Example(
                "from tensorflow.keras import layers\nx = layers.Conv2D(4, 3)(x)\n",
                'from tensorflow.keras import layers\nx = layers.Conv2D(4, 3, kernel_initializer="ones")(x)\n',
                value="ones",
                style="tf.keras functional, default initializer",
            ),
            Example(
                'from keras.layers import Dense\nmodel.add(Dense(10, init="uniform"))\n',
                'from keras.layers import Dense\nmodel.add(Dense(10, init="orthogonal"))\n',
                value="orthogonal",
                style="keras 1 init keyword",
            ),
            Example(
                "from tensorflow.keras import layers\nemb = layers.Embedding(100, 8)\n",
                'from tensorflow.keras import layers\nemb = layers.Embedding(100, 8, embeddings_initializer="ones")\n',
                value="ones",
                style="Embedding table, default initializer",
            ),
        ]


class _SetBias(Operator):
    """WAB, WRB: their sites are the layers whose ``use_bias`` (written, or the default True) is
    ``current``; the edit writes its opposite (Keras 1 calls: ``bias=``)."""

    current: ClassVar[bool] = True

    def find_sites(self, program: Program) -> list[Site]:
        sites = []
        for g, _ in groups_taking(program, "use_bias"):
            v = g.layer.arg("use_bias", program.era)
            if v is None or not v.is_const or not isinstance(v.value, bool) or v.value != self.current:
                continue
            sites.append(layer_site(self, program, g, "use_bias", self.current, repr(self.current)))
        return sites

    def no_site_reasons(self, program: Program) -> list[str]:
        return graph_no_site_reasons(program, "use_bias")

    def edit(self, program: Program, site: Site, value: Any, options: Mapping[str, Any]) -> Edit:
        layer, arg = site_arg(program, site, "use_bias")
        assert site.anchor is not None
        kw = "bias" if program.uses_legacy_kwargs(site.anchor, layer.cls) else "use_bias"
        code = repr(not self.current)
        return set_value(self, program, site, None, arg, code, kw, label=code)


class AddBias(_SetBias):
    """WAB: ``use_bias=False`` becomes True."""

    id = "WAB"
    current = False

    def examples(self) -> list[Example]:
        return [
            Example(
                "from keras.layers import Dense\nmodel.add(Dense(8, use_bias=False))\n",
                "from keras.layers import Dense\nmodel.add(Dense(8, use_bias=True))\n",
                style="keras 2",
            ),
            Example(
                "from keras.layers import Dense\nmodel.add(Dense(8, bias=False, init='normal'))\n",
                "from keras.layers import Dense\nmodel.add(Dense(8, bias=True, init='normal'))\n",
                style="keras 1 bias keyword",
            ),
        ]


class RemoveBias(_SetBias):
    """WRB: a layer with a bias (explicit or default) gets ``use_bias=False``."""

    id = "WRB"
    current = True

    def examples(self) -> list[Example]:
        return [
            Example(
                "import tensorflow as tf\nx = tf.keras.layers.Dense(8, activation='relu')(x)\n",
                "import tensorflow as tf\nx = tf.keras.layers.Dense(8, activation='relu', use_bias=False)(x)\n",
                style="tf.keras functional, default bias",
            ),
            Example(
                "from keras.layers import Conv2D\nmodel.add(Conv2D(\n    16,\n    (3, 3),\n    use_bias=True,\n))\n",
                "from keras.layers import Conv2D\nmodel.add(Conv2D(\n    16,\n    (3, 3),\n    use_bias=False,\n))\n",
                style="keras, one argument per line",
            ),
        ]
