"""Rewrite Keras 1/2-era programs so they run on current Keras, listing every change.

Benchmark programs are old: ``nb_epoch=``, ``lr=``, ``init=``, ``Convolution2D(32, 3, 3)``,
``keras.layers.core`` imports, optimizer ``decay=``, ``fit_generator``. Current Keras rejects all of
them, so a campaign over real faults would only measure crashes. :func:`modernize_source` rewrites
them with LibCST (comments and layout stay as they were), using the legacy-name tables of
:mod:`mutreal.program.keras_api` that classify also uses, and returns each change with its line, so a user
can check that the meaning was kept. What it cannot rewrite safely is reported as a warning.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any

import libcst as cst

from mutreal.extract.names import dotted as dotted_name
from mutreal.extract.positions import NodeIndex
from mutreal.program import keras_api

#: Keras 1/2 sub-modules whose contents now live in their parent package.
MOVED_MODULES: dict[str, str] = {
    "layers.core": "layers",
    "layers.convolutional": "layers",
    "layers.pooling": "layers",
    "layers.recurrent": "layers",
    "layers.normalization": "layers",
    "layers.embeddings": "layers",
    "layers.advanced_activations": "layers",
    "layers.merge": "layers",
    "layers.noise": "layers",
    "layers.wrappers": "layers",
    "layers.local": "layers",
    "layers.convolutional_recurrent": "layers",
    "layers.normalization_v2": "layers",
    "utils.np_utils": "utils",
    "utils.generic_utils": "utils",
    "utils.vis_utils": "utils",
    "utils.data_utils": "utils",
    "engine.topology": "layers",
    "engine.training": "models",
}
#: Model methods removed in Keras 3 whose plain counterpart accepts generators.
GENERATOR_METHODS: dict[str, str] = {
    "fit_generator": "fit",
    "evaluate_generator": "evaluate",
    "predict_generator": "predict",
}
#: numpy aliases removed in numpy 1.24 / 2.0 that benchmark programs still use, and what replaces
#: them (the builtin type, or the numpy name that stayed): real programs crash on ``np.float``.
NUMPY_REMOVED: dict[str, str] = {
    "float": "float", "int": "int", "bool": "bool", "object": "object", "str": "str",
    "complex": "complex", "long": "int", "unicode": "str",
    "float_": "np.float64", "complex_": "np.complex128", "string_": "np.bytes_", "unicode_": "np.str_",
    "NaN": "np.nan", "NAN": "np.nan", "Inf": "np.inf", "Infinity": "np.inf", "PINF": "np.inf",
    "NINF": "-np.inf", "product": "np.prod", "cumproduct": "np.cumprod", "alltrue": "np.all",
    "sometrue": "np.any", "round_": "np.round",
}  # fmt: skip


def numpy_aliases_to_rewrite() -> dict[str, str]:
    """The entries of :data:`NUMPY_REMOVED` that the installed numpy lacks (numpy 2 brought
    ``np.bool`` and ``np.long`` back): a name that still works is left as the author wrote it."""
    import warnings

    try:
        import numpy
    except ImportError:
        return dict(NUMPY_REMOVED)
    with warnings.catch_warnings():  # numpy warns on looking up a removed alias: that is the question
        warnings.simplefilter("ignore")
        return {name: new for name, new in NUMPY_REMOVED.items() if not hasattr(numpy, name)}


#: Optimizer arguments current Keras no longer accepts (dropped, with a note in the change).
REMOVED_OPTIMIZER_KWARGS: frozenset[str] = frozenset({"decay", "schedule_decay"})
#: fit() arguments of Keras 1 that no longer exist.
REMOVED_FIT_KWARGS: frozenset[str] = frozenset({"show_accuracy", "nb_worker", "pickle_safe", "max_q_size"})
#: Keras 1 convolution names whose positional arguments are (filters, rows, cols, ...).
KERAS1_CONV_NAMES: dict[str, int] = {
    "Convolution2D": 2,
    "AtrousConvolution2D": 2,
    "SeparableConvolution2D": 2,
    "Deconvolution2D": 2,
    "Convolution3D": 3,
    "Deconvolution3D": 3,
}
#: TensorFlow ops that Keras 2 let a functional model apply to its symbolic tensors (it wrapped them
#: in a TFOpLambda layer) and Keras 3 rejects ("A KerasTensor cannot be used as input to a
#: TensorFlow function"): op -> (its ``keras.ops`` counterpart, keyword renames). keras.ops accept
#: eager tensors too, so a call on arrays keeps working. A call with any other keyword is left alone.
TF_OPS_ON_SYMBOLIC: dict[str, tuple[str, dict[str, str]]] = {
    "concat": ("concatenate", {"values": "xs", "axis": "axis"}),
    "stack": ("stack", {"values": "x", "axis": "axis"}),
    "expand_dims": ("expand_dims", {"input": "x", "axis": "axis"}),
    "squeeze": ("squeeze", {"input": "x", "axis": "axis"}),
    "reshape": ("reshape", {"tensor": "x", "shape": "newshape"}),
    "transpose": ("transpose", {"a": "x", "perm": "axes"}),
    "reduce_sum": ("sum", {"input_tensor": "x", "axis": "axis", "keepdims": "keepdims"}),
    "reduce_mean": ("mean", {"input_tensor": "x", "axis": "axis", "keepdims": "keepdims"}),
    "reduce_max": ("max", {"input_tensor": "x", "axis": "axis", "keepdims": "keepdims"}),
    "matmul": ("matmul", {"a": "x1", "b": "x2"}),
}
#: A program builds a functional model when it calls ``Input(...)``: only there can a TF op meet a
#: symbolic tensor, so only there are the ops above rewritten (a TF 1 graph program keeps its ops).
_FUNCTIONAL_INPUT = re.compile(r"\bInput\s*\(")
#: Names current Keras lacks and modernize cannot replace: reported, not rewritten.
UNSUPPORTED: dict[str, str] = {
    "ImageDataGenerator": "keras.preprocessing.image.ImageDataGenerator was removed in Keras 3",
    "KerasClassifier": "keras.wrappers.scikit_learn was removed (use scikeras)",
    "KerasRegressor": "keras.wrappers.scikit_learn was removed (use scikeras)",
    "predict_classes": "Model.predict_classes was removed (use argmax of predict)",
    "predict_proba": "Model.predict_proba was removed (use predict)",
    "Merge": "the Merge layer was removed (use Concatenate/Add/...)",
    "set_image_dim_ordering": "use keras.backend.set_image_data_format",
}


@dataclass
class Change:
    """One rewrite: where, what kind, and the text before and after."""

    line: int
    kind: str
    before: str
    after: str

    def describe(self) -> str:
        return f"line {self.line}: {self.kind}: {self.before} -> {self.after}"

    def to_dict(self) -> dict[str, Any]:
        return dataclasses.asdict(self)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Change:
        return cls(**data)


@dataclass
class ModernizeResult:
    """The rewritten text, its changes, and what could not be rewritten."""

    source: str
    changes: list[Change] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)

    @property
    def changed(self) -> bool:
        return bool(self.changes)

    def to_dict(self) -> dict[str, Any]:
        return {
            "source": self.source,
            "changes": [c.to_dict() for c in self.changes],
            "warnings": list(self.warnings),
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> ModernizeResult:
        return cls(
            source=data["source"],
            changes=[Change.from_dict(c) for c in data.get("changes", [])],
            warnings=list(data.get("warnings", [])),
        )


def _module_name(node: cst.BaseExpression | None) -> str | None:
    return dotted_name(node) if node is not None else None


def _replace_module(name: str) -> str | None:
    """``keras.layers.core`` -> ``keras.layers`` (any Keras root); None when nothing moves."""
    for root in ("tensorflow.keras.", "keras.", "tensorflow.python.keras."):
        if name.startswith(root):
            rest = name[len(root) :]
            for old, new in MOVED_MODULES.items():
                if rest == old or rest.startswith(old + "."):
                    return root + new
    return None


def _dotted_expr(name: str) -> cst.BaseExpression:
    parts = name.split(".")
    node: cst.BaseExpression = cst.Name(parts[0])
    for part in parts[1:]:
        node = cst.Attribute(value=node, attr=cst.Name(part))
    return node


def _code(node: cst.CSTNode) -> str:
    return cst.Module(body=[]).code_for_node(node)


class _Modernizer(cst.CSTTransformer):
    """Rewrites one module; what it changes or cannot rewrite is noted against the original node,
    and lines are looked up once after the walk (:meth:`changes_and_warnings`), only when there are
    notes: most modules need no positions at all."""

    def __init__(self, functional: bool = False, keras3: bool = True) -> None:
        super().__init__()
        self.functional = functional  # the program calls Input(...): TF ops may meet KerasTensors
        self.keras3 = keras3  # the target is Keras 3 (else Keras 2, tf_keras: TF ops on its tensors work)
        self.tensorflow_names: set[str] = set()  # names bound to the tensorflow module
        self._changes: list[tuple[cst.CSTNode, str, str, str]] = []
        self._warnings: list[tuple[cst.CSTNode, str]] = []
        self.renamed_names: dict[str, str] = {}  # imported legacy layer names -> canonical
        self.optimizer_names: set[str] = set(keras_api.OPTIMIZERS.values())
        self.numpy_names: set[str] = set()  # names bound to the numpy module (`import numpy as np`)
        self.numpy_removed = numpy_aliases_to_rewrite()

    def _note(self, node: cst.CSTNode, kind: str, before: str, after: str) -> None:
        self._changes.append((node, kind, before, after))

    def _warn(self, node: cst.CSTNode, message: str) -> None:
        self._warnings.append((node, message))

    def changes_and_warnings(self, module: cst.Module) -> tuple[list[Change], list[str]]:
        """The changes in line order and the distinct warnings (``line N: ...``), sorted, of the
        walk over ``module`` (the original module: the notes hold its nodes)."""
        if not self._changes and not self._warnings:
            return [], []
        index = NodeIndex(module)

        def line(node: cst.CSTNode) -> int:
            try:
                return index.position(id(node))[0]
            except KeyError:
                return 0

        changes = [Change(line(node), kind, before, after) for node, kind, before, after in self._changes]
        warnings = {f"line {line(node)}: {message}" for node, message in self._warnings}
        return sorted(changes, key=lambda c: c.line), sorted(warnings)

    # -- imports -------------------------------------------------------------------------------
    def leave_ImportFrom(self, original: cst.ImportFrom, updated: cst.ImportFrom) -> cst.ImportFrom:
        module = _module_name(updated.module)
        if module is None:
            return updated
        new_module = _replace_module(module)
        if new_module is not None:
            self._note(original, "import", f"from {module}", f"from {new_module}")
            updated = updated.with_changes(module=_dotted_expr(new_module))
            module = new_module
        if isinstance(updated.names, cst.ImportStar):
            return updated
        if module.endswith(".utils") and len(updated.names) == 1:
            only = updated.names[0]
            name = dotted_name(only.name) or ""
            if name in ("np_utils", "generic_utils", "data_utils", "vis_utils"):
                # `from keras.utils import np_utils` -> `from keras import utils as np_utils`
                alias_name = only.asname.name.value if only.asname else name  # type: ignore[union-attr]
                parent = module.rsplit(".", 1)[0]
                self._note(
                    original,
                    "import",
                    f"from {module} import {name}",
                    f"from {parent} import utils as {alias_name}",
                )
                return updated.with_changes(
                    module=_dotted_expr(parent),
                    names=[
                        cst.ImportAlias(name=cst.Name("utils"), asname=cst.AsName(name=cst.Name(alias_name)))
                    ],
                )
        aliases = []
        for alias in updated.names:
            name = dotted_name(alias.name) or ""
            canonical = keras_api.LAYER_ALIASES.get(name)
            if module.endswith("layers") and canonical and canonical != name:
                if alias.asname is None:
                    self.renamed_names[name] = canonical
                self._note(original, "layer name", name, canonical)
                alias = alias.with_changes(name=cst.Name(canonical))
            elif (
                module.endswith("optimizers")
                and name.lower() in keras_api.OPTIMIZERS
                and name not in self.optimizer_names
            ):
                canonical = keras_api.OPTIMIZERS[name.lower()]
                if alias.asname is None:
                    self.renamed_names[name] = canonical
                self._note(original, "optimizer name", name, canonical)
                alias = alias.with_changes(name=cst.Name(canonical))
            elif name in UNSUPPORTED:
                self._warn(original, UNSUPPORTED[name])
            aliases.append(alias)
        return updated.with_changes(names=aliases)

    def leave_Import(self, original: cst.Import, updated: cst.Import) -> cst.Import:
        aliases = []
        for alias in updated.names:
            name = dotted_name(alias.name) or ""
            if name == "numpy":
                self.numpy_names.add(alias.asname.name.value if alias.asname else "numpy")  # type: ignore[union-attr]
            if name == "tensorflow":
                self.tensorflow_names.add(alias.asname.name.value if alias.asname else "tensorflow")  # type: ignore[union-attr]
            new_module = _replace_module(name)
            if new_module is not None and alias.asname is not None:
                self._note(original, "import", f"import {name}", f"import {new_module}")
                alias = alias.with_changes(name=_dotted_expr(new_module))
            aliases.append(alias)
        return updated.with_changes(names=aliases)

    # -- names ---------------------------------------------------------------------------------
    def leave_Attribute(self, original: cst.Attribute, updated: cst.Attribute) -> cst.BaseExpression:
        dotted = dotted_name(updated)
        if dotted:
            moved = _replace_module(dotted.rsplit(".", 1)[0])
            if moved is not None:  # keras.utils.np_utils.to_categorical -> keras.utils.to_categorical
                new = f"{moved}.{updated.attr.value}"
                self._note(original, "module", dotted, new)
                return _dotted_expr(new)
        attr = updated.attr.value
        parent = dotted_name(updated.value) or ""
        if parent in self.numpy_names and attr in self.numpy_removed:
            new = self.numpy_removed[attr].replace("np.", f"{parent}.", 1)
            self._note(original, "numpy alias", f"{parent}.{attr}", new)
            return cst.parse_expression(new)
        if parent.endswith("layers") and attr in keras_api.LAYER_ALIASES:
            canonical = keras_api.LAYER_ALIASES[attr]
            self._note(original, "layer name", f"{parent}.{attr}", f"{parent}.{canonical}")
            return updated.with_changes(attr=cst.Name(canonical))
        if (
            parent.endswith("optimizers")
            and attr.lower() in keras_api.OPTIMIZERS
            and attr not in self.optimizer_names
        ):
            canonical = keras_api.OPTIMIZERS[attr.lower()]
            self._note(original, "optimizer name", f"{parent}.{attr}", f"{parent}.{canonical}")
            return updated.with_changes(attr=cst.Name(canonical))
        if attr in GENERATOR_METHODS:
            self._note(original, "method", attr, GENERATOR_METHODS[attr])
            return updated.with_changes(attr=cst.Name(GENERATOR_METHODS[attr]))
        if attr == "lr" and parent.endswith("optimizer"):
            self._note(original, "attribute", f"{parent}.lr", f"{parent}.learning_rate")
            return updated.with_changes(attr=cst.Name("learning_rate"))
        if attr in UNSUPPORTED:
            self._warn(original, UNSUPPORTED[attr])
        return updated

    # -- calls ---------------------------------------------------------------------------------
    def leave_Call(self, original: cst.Call, updated: cst.Call) -> cst.Call:
        if isinstance(updated.func, cst.Name) and updated.func.value in self.renamed_names:
            updated = updated.with_changes(func=cst.Name(self.renamed_names[updated.func.value]))
        original_name = (dotted_name(original.func) or "").rsplit(".", 1)[-1]
        name = (dotted_name(updated.func) or "").rsplit(".", 1)[-1]
        if not name:
            return updated
        if keras_api.is_layer(name):
            return self._layer_call(original, updated, original_name, keras_api.canonical_layer(name))
        if name in self.optimizer_names or keras_api.canonical_optimizer(name) in self.optimizer_names:
            return self._optimizer_call(original, updated)
        if name in ("fit", "fit_generator", "evaluate", "evaluate_generator", "predict", "predict_generator"):
            return self._fit_call(original, updated)
        if self.functional and self.keras3 and name in TF_OPS_ON_SYMBOLIC:
            return self._tf_op_call(original, updated, name)
        if name == "ModelCheckpoint":
            return self._checkpoint_call(original, updated)
        return updated

    def _checkpoint_call(self, original: cst.Call, updated: cst.Call) -> cst.Call:
        """Keras 3 writes weights only to ``*.weights.h5``: a literal path of a weights-only checkpoint
        gets that ending (``best.h5`` -> ``best.weights.h5``, ``best`` -> ``best.weights.h5``)."""
        args = list(updated.args)
        weights_only = any(
            a.keyword and a.keyword.value == "save_weights_only" and _code(a.value) == "True" for a in args
        )
        at = next((i for i, a in enumerate(args) if (a.keyword is None and not a.star)
                   or (a.keyword and a.keyword.value == "filepath")), None)  # fmt: skip
        if not weights_only or at is None or not isinstance(args[at].value, cst.SimpleString):
            return updated
        path = args[at].value.evaluated_value
        if not isinstance(path, str) or path.endswith(".weights.h5") or "{" in path:
            return updated  # already right, or a format pattern whose ending is the author's
        stem = path[: -len(".hdf5")] if path.endswith(".hdf5") else path[: -len(".h5")] if path.endswith(".h5") else path
        new = stem + ".weights.h5"
        self._note(original, "argument value", repr(path), repr(new))
        args[at] = args[at].with_changes(value=cst.SimpleString(repr(new)))
        return updated.with_changes(args=args)

    def _tf_op_call(self, original: cst.Call, updated: cst.Call, name: str) -> cst.Call:
        """``tf.concat([a, b], -1)`` -> ``tf.keras.ops.concatenate([a, b], -1)`` (and the like)."""
        parent = (dotted_name(updated.func) or "").rsplit(".", 1)[0]
        if parent not in self.tensorflow_names:
            return updated
        new_name, keywords = TF_OPS_ON_SYMBOLIC[name]
        args = [a for a in updated.args if not (a.keyword and a.keyword.value == "name")]
        if any(a.star or (a.keyword and a.keyword.value not in keywords) for a in args):
            return updated  # an argument keras.ops has no counterpart for: meaning not kept, left alone
        args = self._rename_kwargs(original, args, keywords, "argument")
        if args and len(args) != len(updated.args):
            args[-1] = args[-1].with_changes(comma=cst.MaybeSentinel.DEFAULT)
        new_func = f"{parent}.keras.ops.{new_name}"
        self._note(original, "tensorflow op", f"{parent}.{name}", new_func)
        return updated.with_changes(func=_dotted_expr(new_func), args=args)

    def _rename_kwargs(
        self, original: cst.Call, args: list[cst.Arg], table: dict[str, str], kind: str
    ) -> list[cst.Arg]:
        renamed = []
        for arg in args:
            keyword = arg.keyword.value if arg.keyword else None
            if keyword and keyword in table and table[keyword] != keyword:
                self._note(original, kind, f"{keyword}=", f"{table[keyword]}=")
                arg = arg.with_changes(keyword=cst.Name(table[keyword]))
            renamed.append(arg)
        return renamed

    def _layer_call(self, original: cst.Call, updated: cst.Call, original_name: str, layer: str) -> cst.Call:
        args = list(updated.args)
        positional = [a for a in args if a.keyword is None and not a.star]
        keywords = [a for a in args if a not in positional]
        dims = KERAS1_CONV_NAMES.get(original_name)
        by_keyword = {a.keyword.value: a for a in keywords if a.keyword}
        if dims and len(positional) >= 1 + dims:
            # Keras 1: Convolution2D(filters, rows, cols, init, activation) -> Conv2D(filters, (rows, cols), ...)
            sizes = [a.value for a in positional[1 : 1 + dims]]
            kernel = cst.Tuple([cst.Element(v) for v in sizes])
            extra_names = keras_api.positional_params(layer, "keras1")[1 + dims :]
            extras = [
                cst.Arg(
                    value=a.value,
                    keyword=cst.Name(n),
                    equal=cst.AssignEqual(
                        whitespace_before=cst.SimpleWhitespace(""), whitespace_after=cst.SimpleWhitespace("")
                    ),
                )
                for n, a in zip(extra_names, positional[1 + dims :], strict=False)
            ]
            new_positional = [positional[0], cst.Arg(value=kernel)]
            before = ", ".join(_code(v) for v in sizes)
            self._note(
                original,
                "kernel size",
                f"{original_name}(..., {before}, ...)",
                f"{layer}(..., ({before}), ...)",
            )
            args = [*new_positional, *extras, *keywords]
            args = [a.with_changes(comma=cst.MaybeSentinel.DEFAULT) for a in args]
        elif {"nb_row", "nb_col"} <= set(by_keyword):
            rows, cols = by_keyword["nb_row"], by_keyword["nb_col"]
            kernel_arg = rows.with_changes(
                keyword=cst.Name("kernel_size"),
                value=cst.Tuple([cst.Element(rows.value), cst.Element(cols.value)]),
            )
            self._note(original, "kernel size", "nb_row=, nb_col=", "kernel_size=(rows, cols)")
            args = [kernel_arg if a is rows else a for a in args if a is not cols]
            args = [a.with_changes(comma=cst.MaybeSentinel.DEFAULT) for a in args]
        table = {
            a.keyword.value: keras_api.canonical_kwarg(layer, a.keyword.value, "keras1")
            for a in args
            if a.keyword is not None
        }
        table.pop("input_dim", None)
        args = self._rename_kwargs(original, args, table, "argument")
        fixed = []
        for arg in args:  # dim_ordering='th' -> data_format='channels_first'
            if arg.keyword and arg.keyword.value == "data_format" and isinstance(arg.value, cst.SimpleString):
                value = arg.value.evaluated_value
                mapped = keras_api.DATA_FORMAT_VALUES.get(value, value) if isinstance(value, str) else value
                if mapped is None:
                    self._note(original, "argument", f"data_format={value!r}", "(default)")
                    continue
                if mapped != value:
                    self._note(original, "argument value", repr(value), repr(mapped))
                    arg = arg.with_changes(value=cst.SimpleString(repr(mapped)))
            fixed.append(arg)
        if fixed and fixed[-1].comma is not cst.MaybeSentinel.DEFAULT and not original.args[-1].comma:
            fixed[-1] = fixed[-1].with_changes(comma=cst.MaybeSentinel.DEFAULT)
        return updated.with_changes(args=fixed)

    def _optimizer_call(self, original: cst.Call, updated: cst.Call) -> cst.Call:
        args = self._rename_kwargs(
            original, list(updated.args), keras_api.LEGACY_OPTIMIZER_KWARGS, "argument"
        )
        kept = []
        for arg in self._without_removed(original, args, REMOVED_OPTIMIZER_KWARGS):
            keyword = arg.keyword.value if arg.keyword else None
            if keyword == "epsilon" and isinstance(arg.value, cst.Name) and arg.value.value == "None":
                self._note(original, "removed argument", "epsilon=None", "(default)")
                continue
            kept.append(arg)
        return self._with_args(updated, args, kept)

    def _without_removed(
        self, original: cst.Call, args: list[cst.Arg], removed: Iterable[str]
    ) -> Iterator[cst.Arg]:
        """The arguments whose keyword current Keras still takes; each dropped one is noted."""
        dropped = set(removed)
        for arg in args:
            keyword = arg.keyword.value if arg.keyword else None
            if keyword in dropped:
                self._note(
                    original,
                    "removed argument",
                    f"{keyword}={_code(arg.value)}",
                    "(removed: no longer supported)",
                )
                continue
            yield arg

    @staticmethod
    def _with_args(updated: cst.Call, args: list[cst.Arg], kept: list[cst.Arg]) -> cst.Call:
        """``updated`` with only ``kept`` of its ``args`` (no trailing comma left after a drop)."""
        if kept and len(kept) != len(args):
            kept[-1] = kept[-1].with_changes(comma=cst.MaybeSentinel.DEFAULT)
        return updated.with_changes(args=kept)

    def _fit_call(self, original: cst.Call, updated: cst.Call) -> cst.Call:
        table = {k: v for k, v in keras_api.LEGACY_FIT_KWARGS.items() if k not in REMOVED_FIT_KWARGS}
        if (dotted_name(original.func) or "").rsplit(".", 1)[-1] in GENERATOR_METHODS:
            table["generator"] = "x"  # fit_generator(generator=g) -> fit(x=g): fit takes a generator as x
        args = self._rename_kwargs(original, list(updated.args), table, "argument")
        kept = []
        removed = {*REMOVED_FIT_KWARGS, "workers", "use_multiprocessing", "max_queue_size"}
        for arg in self._without_removed(original, args, removed):
            keyword = arg.keyword.value if arg.keyword else None
            if keyword == "steps_per_epoch" and any(
                a.keyword and a.keyword.value == "samples_per_epoch" for a in original.args
            ):
                self._warn(original, "samples_per_epoch counted samples, steps_per_epoch counts batches")
            kept.append(arg)
        return self._with_args(updated, args, kept)


def modernize_source(source: str, keras3: bool = True) -> ModernizeResult:
    """Rewrite ``source`` for current Keras; raises ``libcst.ParserSyntaxError`` if it does not parse.

    ``keras3=False`` targets Keras 2 as ``tf_keras`` maintains it: the Keras 1 spellings are rewritten
    but not what only Keras 3 rejects (TensorFlow ops on symbolic tensors, :data:`TF_OPS_ON_SYMBOLIC`).
    Python 2 programs are not converted here (``mutreal.program.source`` handles those for classify).
    """
    module = cst.parse_module(source)
    transformer = _Modernizer(functional=bool(_FUNCTIONAL_INPUT.search(source)), keras3=keras3)
    new_module = module.visit(transformer)
    changes, warnings = transformer.changes_and_warnings(module)
    return ModernizeResult(source=new_module.code, changes=changes, warnings=warnings)
