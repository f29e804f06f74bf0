"""Regularisation operators: RAW (add), RCW (change), RRW (remove) kernel regularisation, RCD
(dropout rate) and RCP (EarlyStopping patience).

Regularizers are written as Keras accepts them everywhere: a new one as a string identifier
(``'l2'``, the default factor 0.01), a changed one in the spelling of the old (``regularizers.l2(0.01)``
-> ``regularizers.l1(0.01)``; a bare imported ``l2(0.01)`` -> ``l1(0.01)`` with the import added
next to the program's imports), keeping the factor. Layers written with Keras 1 keywords get
``W_regularizer=``.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any, ClassVar

import libcst as cst

from mutreal.mutation.operators.base import (
    Change,
    Edit,
    Example,
    Growth,
    MutationError,
    Operator,
    Program,
    Site,
)
from mutreal.mutation.operators.common import (
    code_of,
    era_name,
    graph_no_site_reasons,
    graph_reasons,
    groups_taking,
    keras_callee,
    layer_site,
    make_edit,
    num,
    set_value,
    site_arg,
    weights_arg,
)
from mutreal.program import keras_api
from mutreal.program.model import Layer, fit_path

_DROPOUT = re.compile(r"(Spatial|Alpha|Gaussian)?Dropout(1D|2D|3D)?")


def _regularizer_arg(layer: Layer) -> str:
    return weights_arg(layer, "regularizer")


class _WeightsRegularisation(Operator):
    """RAW, RCW, RRW: their sites are the layers with (``present``) or without a kernel regularizer
    of DeepCrime's kinds (l1, l2, l1_l2)."""

    present: ClassVar[bool] = True

    def find_sites(self, program: Program) -> list[Site]:
        sites = []
        for g, canonical in groups_taking(program, _regularizer_arg):
            v = g.layer.args.get(canonical)
            has = v is not None and not (v.is_const and v.value is None)
            if has != self.present:
                continue
            kind = None
            if has:
                assert v is not None
                kind = v.value if v.kind == "call" else None
                if kind not in ("l1", "l2", "l1_l2"):
                    continue
            sites.append(layer_site(self, program, g, canonical, kind))
        return sites

    def no_site_reasons(self, program: Program) -> list[str]:
        return graph_no_site_reasons(program, "kernel_regularizer")


def _reg_keyword(program: Program, site: Site) -> str:
    assert site.anchor is not None
    return (
        "W_regularizer"
        if program.uses_legacy_kwargs(site.anchor, site.detail["layer"])
        else f"{'embeddings' if site.detail['layer'] == 'Embedding' else 'kernel'}_regularizer"
    )


class AddWeightsRegularisation(_WeightsRegularisation):
    """RAW: a layer without kernel regularisation gets ``kernel_regularizer='l2'`` (or l1, l1_l2)."""

    id = "RAW"
    present = False

    def edit(self, program: Program, site: Site, value: Any, options: Mapping[str, Any]) -> Edit:
        assert site.anchor is not None
        code = program.string(era_name("regularizers", value, program.era) or value)
        kw = _reg_keyword(program, site)
        change = Change("set_arg", site.anchor, code=code, keyword=kw, aliases=(kw,))
        return make_edit(self, site, value, None, code, [change])

    def examples(self) -> list[Example]:
        return [
            Example(
                "from keras.layers import Dense\nmodel.add(Dense(32, activation='relu'))\n",
                "from keras.layers import Dense\nmodel.add(Dense(32, activation='relu', kernel_regularizer='l2'))\n",
                value="l2",
                style="keras 2 Sequential",
            ),
            Example(
                'from keras.layers import Dense\nmodel.add(Dense(32, init="uniform"))\n',
                'from keras.layers import Dense\nmodel.add(Dense(32, init="uniform", W_regularizer="l1"))\n',
                value="l1",
                style="keras 1 keywords",
            ),
            Example(
                "from keras.layers import Embedding\nmodel.add(Embedding(50, 4))\n",
                'from keras.layers import Embedding\nmodel.add(Embedding(50, 4, embeddings_regularizer="l2"))\n',
                value="l2",
                style="Embedding table",
            ),
        ]


class ChangeWeightsRegularisation(_WeightsRegularisation):
    """RCW: an existing kernel regularizer becomes another kind, keeping its factor."""

    id = "RCW"

    def accepts(self, site: Site, value: Any) -> bool:
        return value != site.original

    def edit(self, program: Program, site: Site, value: Any, options: Mapping[str, Any]) -> Edit:
        layer, arg = site_arg(program, site, _regularizer_arg)
        assert arg is not None
        old = arg[1].value
        imports: list[Change] = []
        if isinstance(old, cst.SimpleString):
            code = program.string(value, old)
        elif isinstance(old, cst.Call):
            factor = _factor(layer.args[_regularizer_arg(layer)])
            callee, imports = keras_callee(program, "regularizers", value, old, at=site.anchor)
            code = f"{callee}(l1={factor}, l2={factor})" if value == "l1_l2" else f"{callee}({factor})"
        else:
            code = program.string(value)
        return make_edit(self, site, value, site.old, code, [Change("replace", id(old), code=code), *imports])

    def examples(self) -> list[Example]:
        return [
            Example(
                "from tensorflow.keras import layers, regularizers\n"
                "x = layers.Dense(8, kernel_regularizer=regularizers.l2(0.01))(x)\n",
                "from tensorflow.keras import layers, regularizers\n"
                "x = layers.Dense(8, kernel_regularizer=regularizers.l1(0.01))(x)\n",
                value="l1",
                style="tf.keras functional, regularizers module",
            ),
            Example(
                "from tensorflow.keras import layers, regularizers\n"
                "emb = layers.Embedding(9, 4, embeddings_regularizer=regularizers.l1(0.1))\n",
                "from tensorflow.keras import layers, regularizers\n"
                "emb = layers.Embedding(9, 4, embeddings_regularizer=regularizers.l2(0.1))\n",
                value="l2",
                style="Embedding table",
            ),
            Example(
                "from keras.layers import Dense\nfrom keras.regularizers import l2\n"
                "model.add(Dense(8, W_regularizer=l2(0.001)))\n",
                "from keras.layers import Dense\nfrom keras.regularizers import l2\n"
                "from keras.regularizers import l1_l2\n"
                "model.add(Dense(8, W_regularizer=l1_l2(l1=0.001, l2=0.001)))\n",
                value="l1_l2",
                style="keras 1 keyword, bare imported function",
            ),
        ]


def _factor(reg: Any) -> str:
    for key in ("l2", "l1"):
        f = reg.kwargs.get(key)
        if f is not None and f.is_const and isinstance(f.value, int | float):
            return f.text if f.text and not f.implicit else num(f.value)
    return num(keras_api.REGULARIZER_DEFAULT_FACTOR)


class RemoveWeightsRegularisation(_WeightsRegularisation):
    """RRW: the kernel regularizer argument is removed."""

    id = "RRW"

    def edit(self, program: Program, site: Site, value: Any, options: Mapping[str, Any]) -> Edit:
        assert site.anchor is not None
        _, arg = site_arg(program, site, _regularizer_arg)
        assert arg is not None
        change = Change("remove_arg", site.anchor, aliases=(arg[1].keyword.value,) if arg[1].keyword else ())
        if arg[1].keyword is None:
            raise MutationError("RRW: positional kernel regularizer")
        return make_edit(self, site, None, site.old, None, [change], label="none")

    def examples(self) -> list[Example]:
        return [
            Example(
                "import tensorflow as tf\n"
                "x = tf.keras.layers.Conv2D(8, 3, kernel_regularizer=tf.keras.regularizers.l2(1e-4))(x)\n",
                "import tensorflow as tf\nx = tf.keras.layers.Conv2D(8, 3)(x)\n",
                style="tf.keras functional",
            ),
            Example(
                "from keras.layers import Dense\nfrom keras.regularizers import l1\n"
                "model.add(Dense(16, W_regularizer=l1(0.01), init='normal'))\n",
                "from keras.layers import Dense\nfrom keras.regularizers import l1\n"
                "model.add(Dense(16, init='normal'))\n",
                style="keras 1 keywords",
            ),
            Example(
                "from keras.layers import Embedding\nmodel.add(Embedding(50, 4, embeddings_regularizer='l1'))\n",
                "from keras.layers import Embedding\nmodel.add(Embedding(50, 4))\n",
                style="Embedding table",
            ),
        ]


class ChangeDropoutRate(Operator):
    """RCD: the rate of a Dropout layer (positional, ``rate=`` or Keras 1 ``p=``)."""

    id = "RCD"

    def no_site_reasons(self, program: Program) -> list[str]:
        return graph_reasons(self, program)

    def find_sites(self, program: Program) -> list[Site]:
        sites = []
        for g in program.layer_groups:
            layer = g.layer
            if not _DROPOUT.fullmatch(layer.cls):
                continue
            v = layer.args.get("rate")
            if v is None or not v.is_const or not isinstance(v.value, int | float):
                continue
            if program.layer_arg(g.call, layer, "rate") is None:
                continue
            sites.append(layer_site(self, program, g, "rate", v.value))
        return sites

    def accepts(self, site: Site, value: Any) -> bool:
        return float(value) != float(site.original)

    def edit(self, program: Program, site: Site, value: Any, options: Mapping[str, Any]) -> Edit:
        _, arg = site_arg(program, site, "rate")
        return set_value(self, program, site, value, arg, num(value), "rate")

    def examples(self) -> list[Example]:
        return [
            Example(
                "from keras.layers import Dropout\nmodel.add(Dropout(0.5))\n",
                "from keras.layers import Dropout\nmodel.add(Dropout(0.25))\n",
                value=0.25,
                style="keras Sequential, positional",
            ),
            Example(
                "from tensorflow.keras import layers\nx = layers.Dropout(rate=0.2)(x)\n",
                "from tensorflow.keras import layers\nx = layers.Dropout(rate=0.75)(x)\n",
                value=0.75,
                style="tf.keras functional, keyword",
            ),
        ]


class ChangePatience(Operator):
    """RCP: the patience of an EarlyStopping callback passed to fit (explicit or default 0)."""

    id = "RCP"

    def growth(self, old: Any, value: Any) -> Growth:
        """More patience: early stopping later, up to every epoch the fit asks for (by how much,
        the model decides)."""
        before, after = Growth.number(old), Growth.number(value)
        if after is None or (before is not None and after <= before):
            return Growth()
        return Growth(time=float("inf"), why=f"patience {old} -> {value}: early stopping may wait for every epoch")

    def no_site_reasons(self, program: Program) -> list[str]:
        return graph_reasons(self, program)

    def find_sites(self, program: Program) -> list[Site]:
        by_call: dict[int, Site] = {}
        for fi, fit in enumerate(program.model.fits):
            for cb in fit.callbacks:
                if cb.cls != "EarlyStopping":
                    continue
                cid = program.find_call(cb.line, cb.text, None)
                if cid is None:
                    continue
                element = fit_path(fi, "callbacks", "EarlyStopping", "patience")
                if cid in by_call:
                    by_call[cid].elements.append(element)
                    continue
                v = cb.args.get("patience")
                if v is not None and not (v.is_const and isinstance(v.value, int)):
                    continue
                arg = program.find_arg(cid, ("patience",), 2)
                by_call[cid] = program.make_site(
                    self,
                    cid,
                    [element],
                    code_of(program, arg[1].value) if arg else "0",
                    v.value if v is not None else 0,
                    implicit=arg is None,
                )
        return list(by_call.values())

    def edit(self, program: Program, site: Site, value: Any, options: Mapping[str, Any]) -> Edit:
        assert site.anchor is not None
        arg = program.find_arg(site.anchor, ("patience",), 2)
        return set_value(self, program, site, value, arg, num(value), "patience")

    def examples(self) -> list[Example]:
        return [
            Example(
                "from keras.callbacks import EarlyStopping\n"
                "model.fit(x, y, callbacks=[EarlyStopping(monitor='val_loss', patience=10)])\n",
                "from keras.callbacks import EarlyStopping\n"
                "model.fit(x, y, callbacks=[EarlyStopping(monitor='val_loss', patience=2)])\n",
                value=2,
                style="keras, callback inline",
            ),
            Example(
                "import tensorflow as tf\nstop = tf.keras.callbacks.EarlyStopping()\n"
                "model.fit(x, y, epochs=5, callbacks=[stop])\n",
                "import tensorflow as tf\nstop = tf.keras.callbacks.EarlyStopping(patience=5)\n"
                "model.fit(x, y, epochs=5, callbacks=[stop])\n",
                value=5,
                style="tf.keras, callback variable, default patience",
            ),
        ]
