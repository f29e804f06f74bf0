"""Weight operators: WCI (kernel initializer), WAB (add bias), WRB (remove bias).

Initializers are written as strings (``'he_normal'``, any Keras era accepts them); Keras 1 style
calls get ``init=`` and ``bias=`` keywords.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, ClassVar

from mutreal.mutation.operators.base import Edit, Example, MutationError, Operator, Program, Site
from mutreal.mutation.operators.common import (
    era_name,
    graph_no_site_reasons,
    groups_taking,
    layer_site,
    set_value,
    site_arg,
    weights_arg,
)
from mutreal.program import keras_api
from mutreal.program.model import Layer


def _initializer_arg(layer: Layer) -> str:
    return weights_arg(layer, "initializer")


class ChangeWeightsInitialisation(Operator):
    """WCI: the kernel initializer of a layer (explicit or the default glorot_uniform); an
    Embedding's ``embeddings_initializer``."""

    id = "WCI"

    def find_sites(self, program: Program) -> list[Site]:
        sites = []
        for g, canonical in groups_taking(program, _initializer_arg):
            v = g.layer.arg(canonical, program.era)
            if v is None or v.is_opaque:
                continue
            name = v.value if isinstance(v.value, str) else None
            sites.append(layer_site(self, program, g, canonical, name, repr(name)))
        return sites

    def accepts(self, site: Site, value: Any) -> bool:
        return keras_api.canonical_initializer(value) != site.original

    def values(self, program: Program, site: Site) -> list[Any]:
        # only the initializers the era can name by a string (Keras 3 has no ``'constant'``)
        return [v for v in super().values(program, site) if era_name("initializers", v, program.era)]

    def edit(self, program: Program, site: Site, value: Any, options: Mapping[str, Any]) -> Edit:
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
