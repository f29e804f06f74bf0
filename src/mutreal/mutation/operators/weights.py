"""Weight operators: WCI (kernel initializer), WAB (add bias), WRB (remove bias).

Initializers are written as strings (``'he_normal'``, any Keras era accepts them); Keras 1 style
calls get ``init=`` and ``bias=`` keywords.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from mutreal.mutation.operators.base import Edit, Example, Operator, Program, Site
from mutreal.mutation.operators.common import accepts_arg, code_of, make_edit, value_change, weights_arg
from mutreal.program import keras_api
from mutreal.program.model import layer_path


class ChangeWeightsInitialisation(Operator):
    """WCI: the kernel initializer of a layer (explicit or the default glorot_uniform); an
    Embedding's ``embeddings_initializer``."""

    id = "WCI"

    def find_sites(self, program: Program) -> list[Site]:
        sites = []
        for g in program.layer_groups:
            layer = g.layer
            canonical = weights_arg(layer, "initializer")
            if not accepts_arg(layer, canonical, program.era):
                continue
            v = layer.arg(canonical, program.era)
            if v is None or v.is_opaque:
                continue
            name = v.value if isinstance(v.value, str) else None
            arg = program.layer_arg(g.call, layer, canonical)
            elements = [layer_path(m, li, canonical) for m, li, _ in g.instances]
            sites.append(
                program.make_site(
                    self,
                    g.call,
                    elements,
                    code_of(program, arg[1].value) if arg else repr(name),
                    name,
                    implicit=arg is None,
                    detail={"layer": layer.cls},
                )
            )
        return sites

    def accepts(self, site: Site, value: Any) -> bool:
        return keras_api.canonical_initializer(value) != site.original

    def edit(self, program: Program, site: Site, value: Any, options: Mapping[str, Any]) -> Edit:
        assert site.anchor is not None
        layer = program.layer_groups_by_call[site.anchor].layer
        canonical = weights_arg(layer, "initializer")
        arg = program.layer_arg(site.anchor, layer, canonical)
        code = program.string(value, arg[1].value if arg else None)
        kw = "init" if program.uses_legacy_kwargs(site.anchor, layer.cls) else canonical
        return make_edit(
            self, site, value, site.old, code, [value_change(program, site.anchor, arg, code, kw)]
        )

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


def _bias_sites(op: Operator, program: Program, current: bool) -> list[Site]:
    sites = []
    for g in program.layer_groups:
        layer = g.layer
        if not accepts_arg(layer, "use_bias", program.era):
            continue
        v = layer.arg("use_bias", program.era)
        if v is None or not v.is_const or not isinstance(v.value, bool) or v.value != current:
            continue
        arg = program.layer_arg(g.call, layer, "use_bias")
        elements = [layer_path(m, li, "use_bias") for m, li, _ in g.instances]
        sites.append(
            program.make_site(
                op,
                g.call,
                elements,
                code_of(program, arg[1].value) if arg else repr(current),
                current,
                implicit=arg is None,
                detail={"layer": layer.cls},
            )
        )
    return sites


def _set_bias(op: Operator, program: Program, site: Site, new: bool) -> Edit:
    assert site.anchor is not None
    layer = program.layer_groups_by_call[site.anchor].layer
    arg = program.layer_arg(site.anchor, layer, "use_bias")
    kw = "bias" if program.uses_legacy_kwargs(site.anchor, layer.cls) else "use_bias"
    code = repr(new)
    return make_edit(
        op, site, None, site.old, code, [value_change(program, site.anchor, arg, code, kw)], label=code
    )


class AddBias(Operator):
    """WAB: ``use_bias=False`` becomes True."""

    id = "WAB"

    def find_sites(self, program: Program) -> list[Site]:
        return _bias_sites(self, program, current=False)

    def edit(self, program: Program, site: Site, value: Any, options: Mapping[str, Any]) -> Edit:
        return _set_bias(self, program, site, True)

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


class RemoveBias(Operator):
    """WRB: a layer with a bias (explicit or default) gets ``use_bias=False``."""

    id = "WRB"

    def find_sites(self, program: Program) -> list[Site]:
        return _bias_sites(self, program, current=True)

    def edit(self, program: Program, site: Site, value: Any, options: Mapping[str, Any]) -> Edit:
        return _set_bias(self, program, site, False)

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
