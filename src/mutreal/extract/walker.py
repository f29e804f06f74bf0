"""The extractor's single pass: a small abstract interpreter over the LibCST tree.

Statements run in source order with an environment of names -> abstract values: folded constants
(:class:`~mutreal.model.Value`), layers not yet in a model, models, symbolic tensors of the
functional API, optimizers, callbacks, data chains, user functions and classes. Calls that matter
(``model.add``, ``Dense(..)(x)``, ``compile``, ``fit``, data loaders and preprocessing) update the
program model as they are met. Loops with literal bounds that build layers are unrolled, helper
functions are inlined at their call sites (so a helper called twice builds two models), and
functions or classes never called are run once at the end with unknown arguments, so nothing
written in a file is skipped. Anything unresolved stays an opaque value with its source text.

No metadata providers are used: line numbers come from :func:`~mutreal.extract.lines.line_index` (Python's ``ast`` of the same text)
and names from :class:`~mutreal.extract.names.ImportTable`.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field
from typing import Any

import libcst as cst

from mutreal import keras_api
from mutreal.extract import constants, data, layers, losses, names, training
from mutreal.extract.lines import line_index
from mutreal.model import (
    CALL,
    CONST,
    NAME,
    OPAQUE,
    REF,
    SEQ,
    Callback,
    Compile,
    DataOp,
    DataSource,
    Fit,
    KerasModel,
    Layer,
    Optimizer,
    ProgramModel,
    Value,
)

_MAX_UNROLL = 64
_MAX_INLINE_DEPTH = 4
_MAX_STEPS = 20000  # statements executed per file (loops and inlining included)

# ---------------------------------------------------------------------------------------------------
# abstract values
# ---------------------------------------------------------------------------------------------------


class _NoLines:
    """Line index of last resort (the module could not be regenerated): no lines, no call text."""

    current: cst.CSTNode | None = None
    code = ""

    def line(self, node: cst.CSTNode | None) -> int | None:
        return None

    def text(self, node: cst.CSTNode) -> str | None:
        return None


class LazyValue(Value):
    """A :class:`Value` that renders its source text on first use (see :meth:`Walker.lazy`)."""

    def __init__(
        self,
        kind: str,
        value: Any,
        walker: Walker,
        node: cst.CSTNode,
        line: int | None,
        args: list | None = None,
    ) -> None:
        super().__init__(kind, value, args if args is not None else [], {}, "", line)
        self.__dict__["_text"] = None
        self.__dict__["_pending"] = (walker, node)

    @property  # type: ignore[override]
    def text(self) -> str:
        t = self.__dict__.get("_text")
        if t is None:
            pending = self.__dict__.get("_pending")
            t = pending[0].text(pending[1]) if pending else ""
            self.__dict__["_text"] = t
            self.__dict__["_pending"] = None
        return t

    @text.setter
    def text(self, value: str) -> None:
        self.__dict__["_text"] = value if value else self.__dict__.get("_text")


class Unknown:
    """A value the walker cannot model; remembers the expression for opaque data sources."""

    __slots__ = ("node", "line")

    def __init__(self, node: cst.CSTNode | None = None, line: int | None = None) -> None:
        self.node = node
        self.line = line


@dataclass
class LayerObj:
    layer: Layer
    applied: bool = False


@dataclass
class ModelObj:
    model: KerasModel


@dataclass
class Tensor:
    layer: Layer | None
    parents: list[Tensor]
    seq: int


@dataclass
class OptimizerObj:
    optimizer: Optimizer


@dataclass
class CallbackObj:
    callback: Callback


@dataclass
class FuncObj:
    node: cst.FunctionDef
    env: Env
    called: bool = False
    owner: ClassObj | None = None


@dataclass
class ClassObj:
    node: cst.ClassDef
    env: Env
    keras_model: bool
    keras_layer: bool
    methods: dict[str, FuncObj] = field(default_factory=dict)
    instantiated: bool = False
    instance: Instance | None = None


@dataclass
class Instance:
    cls: ClassObj
    attrs: dict[str, Any] = field(default_factory=dict)
    model: KerasModel | None = None  # subclassed Keras models collect their layers here


@dataclass
class ArgParserObj:
    """An ``argparse.ArgumentParser``: the default of every option added to it, by destination."""

    defaults: dict[str, Any] = field(default_factory=dict)


@dataclass
class ArgsNamespace:
    """What ``parser.parse_args()`` returns: each option's default (the command line is unknown)."""

    values: dict[str, Any]


@dataclass
class BoundMethod:
    func: FuncObj
    self_obj: Any


def _is_text(obj: Any) -> bool:
    """A string constant: an operand that makes ``+``/``%`` build text, not transform an array."""
    return isinstance(obj, Value) and obj.kind == CONST and isinstance(obj.value, str)


class Env:
    """A scope: local names, then the enclosing (module) scope."""

    __slots__ = ("vars", "parent")

    def __init__(self, parent: Env | None = None) -> None:
        self.vars: dict[str, Any] = {}
        self.parent = parent

    def get(self, name: str) -> Any:
        env: Env | None = self
        while env is not None:
            if name in env.vars:
                return env.vars[name]
            env = env.parent
        return None

    def set(self, name: str, value: Any) -> None:
        self.vars[name] = value


class _Return(Exception):
    """Not used for control flow across statements; kept for clarity of intent."""


_LEGACY_TEXT = re.compile(
    r"\bnb_epoch\b|\bborder_mode\b|\bnb_filter\b|\bW_regularizer\b|\bb_regularizer\b|\bsubsample\s*=|"
    r"\boutput_dim\s*=|\binit\s*=|\bdim_ordering\b|\bsamples_per_epoch\b|\bnb_val_samples\b|"
    r"\bConvolution[123]D\(\s*[\w.]+\s*,\s*\d+\s*,\s*\d+\s*[,)]|\bMerge\(|\bdropout_[WU]\b|\bpool_length\b|"
    r"\binner_activation\b|\bnb_row\b"
)
_KERAS2_TEXT = re.compile(
    r"\bepochs\s*=|\bunits\s*=|\bkernel_initializer\b|\bkernel_regularizer\b|\bpadding\s*=|\bConv[123]D\(|"
    r"\bkernel_size\b|\bfilters\s*=|\blearning_rate\s*=|\bsteps_per_epoch\b|\brate\s*=|\brecurrent_dropout\b"
)
_KERAS3_TEXT = re.compile(
    r"\bkeras\.ops\b|\bkeras_core\b|\bkeras\.src\b|\bfrom keras import ops\b|\.keras['\"]\)"
)

#: nodes whose ``value`` is their source text
_ATOMS = frozenset({cst.Name, cst.Integer, cst.Float, cst.SimpleString, cst.Imaginary})

_COMPARE = {
    cst.Equal: lambda a, b: a == b,
    cst.NotEqual: lambda a, b: a != b,
    cst.LessThan: lambda a, b: a < b,
    cst.LessThanEqual: lambda a, b: a <= b,
    cst.GreaterThan: lambda a, b: a > b,
    cst.GreaterThanEqual: lambda a, b: a >= b,
    cst.Is: lambda a, b: a is b,
    cst.IsNot: lambda a, b: a is not b,
    cst.In: lambda a, b: a in b,
    cst.NotIn: lambda a, b: a not in b,
}

_UNARY = {cst.Minus: "-", cst.Plus: "+", cst.BitInvert: "~", cst.Not: "not "}
_BINARY = {
    cst.Add: "+",
    cst.Subtract: "-",
    cst.Multiply: "*",
    cst.Divide: "/",
    cst.FloorDivide: "//",
    cst.Modulo: "%",
    cst.Power: "**",
    cst.MatrixMultiply: "@",
}

#: methods that make an unknown receiver a model (built elsewhere, or never built in a snippet)
_MODEL_METHODS = frozenset(
    {
        "compile",
        "fit",
        "fit_generator",
        "train_on_batch",
        "predict",
        "predict_classes",
        "predict_proba",
        "evaluate",
        "evaluate_generator",
    }
)

#: tf.data.Dataset methods (a pipeline over the training arrays)
_DATASET_METHODS = frozenset(
    {
        "batch",
        "shuffle",
        "repeat",
        "prefetch",
        "cache",
        "map",
        "filter",
        "take",
        "skip",
        "unbatch",
        "padded_batch",
    }
)

#: builtins whose result is a plain value even when given arrays (``len(x)``, ``print(x)``)
_BUILTIN_SCALARS = frozenset(
    {
        "len",
        "print",
        "str",
        "repr",
        "type",
        "isinstance",
        "max",
        "min",
        "sum",
        "round",
        "abs",
        "range",
        "enumerate",
        "zip",
        "sorted",
        "id",
        "hash",
        "format",
        "bool",
        "open_",
    }
)

#: layer-building calls that make a loop worth unrolling
_BUILD_HINT = re.compile(r"\.add\(|\bDense\(|Conv|LSTM|GRU|Dropout|Pool|Activation|Flatten|layers\.")


class Walker:
    """Builds a :class:`ProgramModel` from one LibCST module (see module docstring)."""

    def __init__(
        self, module: cst.Module, path: str = "<string>", era: str | None = None, source: str | None = None
    ) -> None:
        self.module = module
        self.path = path
        try:
            self.lines: Any = line_index(module, source if source is not None else module.code)
        except RecursionError:  # a tree too deep to regenerate: no line numbers, still a model
            self.lines = _NoLines()
        self.imports = names.ImportTable()
        self.program = ProgramModel(path=path)
        self.keras_seen = False
        self.forced_era = era
        self.era = era or keras_api.DEFAULT_ERA
        self.seq = 0
        self.steps = 0
        self.depth = 0
        self.origin = ""
        self.cur_line: int | None = None
        self.functions: list[FuncObj] = []
        self.classes: list[ClassObj] = []
        self.legacy_seen: set[str] = set()
        self.data_fit_done = False
        self.eval_done = False
        self._text_cache: dict[int, str] = {}
        self.created_layers: list[Layer] = []
        self.keras_defined = False
        #: model index -> the learning rate a statement after compile set on its optimizer
        self.lr_settings: dict[int, Value] = {}

    # ---------------------------------------------------------------------------------------------
    # entry
    # ---------------------------------------------------------------------------------------------
    def run(self) -> ProgramModel:
        code = self.lines.code
        self._decide_era_upfront(code)
        env = Env()
        self.exec_block(self.module.body, env)
        self._run_leftovers()
        self._collect_loose_layers()
        _materialise(self.program)
        pm = self.program
        if not pm.fits:
            pm.untrained_data = {
                name: value.to_var(name)
                for name, value in env.vars.items()
                if isinstance(value, data.DataChain) and value.source is not None
            }
        keras_built = bool(pm.models or pm.compiles or pm.fits) or self.keras_defined
        pm.loss_functions = {n: list(v) for n, v in losses.find_loss_functions(self.lines.code).items()}
        pm.raw_tensorflow = names.uses_raw_tensorflow(self.lines.code, self.imports)
        pm.framework = names.framework_of(self.imports, self.keras_seen, keras_built, pm.raw_tensorflow)
        pm.imports = dict(self.imports.aliases)
        if pm.framework == "tensorflow":
            pm.notes.append("raw TensorFlow code (no Keras model built or trained)")
        elif pm.raw_tensorflow and pm.framework == "keras":
            pm.notes.append(
                "mixes raw TensorFlow (sessions, placeholders, tf.train, GradientTape) with Keras"
            )
        return self.program

    def _decide_era_upfront(self, code: str) -> None:
        """Pick the era before the walk: positional arguments and defaults depend on it."""
        evidence = self.program.era_evidence
        # imports are mostly at the top; a cheap scan of import lines decides the packaging
        for stmt in self.module.body:
            if isinstance(stmt, cst.SimpleStatementLine):
                for small in stmt.body:
                    if isinstance(small, cst.Import | cst.ImportFrom):
                        self.imports.add(small)
        era, ev = names.era_from_imports(self.imports)
        evidence.extend(ev)
        legacy = _LEGACY_TEXT.search(code)
        if _KERAS3_TEXT.search(code):
            era = "keras3"
            evidence.append("uses Keras 3 only API (keras.ops / keras_core / .keras files)")
        elif legacy and era != "tf2":
            modern = _KERAS2_TEXT.search(code)
            if modern:
                era = era or "keras2"
                evidence.append(
                    f"Keras 1 spelling {legacy.group(0).strip()!r} next to Keras 2 spelling "
                    f"{modern.group(0).strip()!r}: Keras 2 (which still accepts the old names)"
                )
            else:
                era = "keras1"
                evidence.append(f"Keras 1 spelling {legacy.group(0).strip()!r}")
        elif legacy:
            evidence.append(f"Keras 1 spelling {legacy.group(0).strip()!r} with tf.keras imports: kept tf2")
        if era is None:
            era = keras_api.DEFAULT_ERA
            evidence.append("no era-specific evidence: assumed standalone Keras 2")
        if self.forced_era:
            evidence.append(f"era given by caller: {self.forced_era}")
            era = self.forced_era
        self.era = era
        self.program.era = era
        # start again with an empty table: the walk adds imports in order
        self.imports = names.ImportTable()

    # ---------------------------------------------------------------------------------------------
    # helpers
    # ---------------------------------------------------------------------------------------------
    def text(self, node: cst.CSTNode) -> str:
        key = id(node)
        t = self._text_cache.get(key)
        if t is None:
            try:
                nt = type(node)
                if nt in _ATOMS and not node.lpar:  # type: ignore[attr-defined]
                    return node.value  # type: ignore[attr-defined]
                t = self._fast_text(node)
            except Exception:  # noqa: BLE001 - text is best effort
                t = "<?>"
            t = t.strip()
            if len(t) > 400:
                t = t[:397] + "..."
            self._text_cache[key] = t
        return t

    def _fast_text(self, node: cst.CSTNode) -> str:
        """Source text of an expression, rebuilt from its parts for common shapes (code generation
        of LibCST is slow); calls come from the line index, anything unusual from LibCST."""
        nt = type(node)
        if nt in _ATOMS:
            out = node.value  # type: ignore[attr-defined]
        elif nt is cst.Attribute:
            out = f"{self._fast_text(node.value)}.{node.attr.value}"  # type: ignore[attr-defined]
        elif nt is cst.Call:
            t = self.lines.text(node)
            return t if t is not None else self.module.code_for_node(node)
        elif nt in (cst.Tuple, cst.List) and all(type(e) is cst.Element for e in node.elements):  # type: ignore[attr-defined]
            items = [self._fast_text(e.value) for e in node.elements]  # type: ignore[attr-defined]
            if nt is cst.List:
                return "[" + ", ".join(items) + "]"
            body = ", ".join(items) + ("," if len(items) == 1 else "")
            return f"({body})" if node.lpar else body  # type: ignore[attr-defined]
        elif nt is cst.UnaryOperation and type(node.operator) in _UNARY:  # type: ignore[attr-defined]
            out = _UNARY[type(node.operator)] + self._fast_text(node.expression)  # type: ignore[attr-defined]
        elif nt is cst.BinaryOperation and type(node.operator) in _BINARY:  # type: ignore[attr-defined]
            op = _BINARY[type(node.operator)]  # type: ignore[attr-defined]
            out = f"{self._fast_text(node.left)} {op} {self._fast_text(node.right)}"  # type: ignore[attr-defined]
        else:
            return self.module.code_for_node(node)
        lpar = getattr(node, "lpar", ())
        return f"{'(' * len(lpar)}{out}{')' * len(lpar)}" if lpar else out

    def line(self, node: cst.CSTNode | None) -> int | None:
        return self.lines.line(node) or self.cur_line

    def lazy(
        self, kind: str, value: Any, node: cst.CSTNode, line: int | None, args: list | None = None
    ) -> Value:
        """A value whose source text is computed only if the model keeps it (most are dropped)."""
        return LazyValue(kind, value, self, node, line, args)

    def next_seq(self) -> int:
        self.seq += 1
        return self.seq

    # ---------------------------------------------------------------------------------------------
    # statements
    # ---------------------------------------------------------------------------------------------
    def exec_block(self, body: Any, env: Env) -> None:
        for stmt in body:
            if self.steps > _MAX_STEPS:
                return
            try:
                self.exec_stmt(stmt, env)
            except RecursionError:
                self.program.notes.append("expression nesting too deep: statement skipped")

    def exec_stmt(self, stmt: cst.CSTNode, env: Env) -> None:
        self.steps += 1
        t = type(stmt)
        if t is cst.SimpleStatementLine:
            for small in stmt.body:  # type: ignore[attr-defined]
                self.exec_small(small, env)
        elif t is cst.FunctionDef:
            func = FuncObj(stmt, env)  # type: ignore[arg-type]
            env.set(stmt.name.value, func)  # type: ignore[attr-defined]
            self.functions.append(func)
        elif t is cst.ClassDef:
            self.define_class(stmt, env)  # type: ignore[arg-type]
        elif t is cst.If:
            self.exec_if(stmt, env)  # type: ignore[arg-type]
        elif t is cst.For:
            self.exec_for(stmt, env)  # type: ignore[arg-type]
        elif t is cst.While:
            self.exec_block(stmt.body.body, env)  # type: ignore[attr-defined]
            if stmt.orelse is not None:  # type: ignore[attr-defined]
                self.exec_block(stmt.orelse.body.body, env)  # type: ignore[attr-defined]
        elif t is cst.With:
            self.lines.current = stmt
            self.cur_line = self.lines.line(stmt)
            for item in stmt.items:  # type: ignore[attr-defined]
                value = self.ev(item.item, env)
                if item.asname is not None:
                    self.bind(item.asname.name, value, env)
            self.exec_block(stmt.body.body, env)  # type: ignore[attr-defined]
        elif t in (cst.Try, cst.TryStar):
            self.exec_block(stmt.body.body, env)  # type: ignore[attr-defined]
            for handler in stmt.handlers:  # type: ignore[attr-defined]
                self.exec_block(handler.body.body, env)
            if stmt.orelse is not None:  # type: ignore[attr-defined]
                self.exec_block(stmt.orelse.body.body, env)  # type: ignore[attr-defined]
            if stmt.finalbody is not None:  # type: ignore[attr-defined]
                self.exec_block(stmt.finalbody.body.body, env)  # type: ignore[attr-defined]
        elif hasattr(stmt, "body") and hasattr(stmt.body, "body"):  # match and future compound forms
            self.exec_block(stmt.body.body, env)  # type: ignore[attr-defined]

    def exec_small(self, small: cst.BaseSmallStatement, env: Env) -> None:
        self.lines.current = small
        self.cur_line = self.lines.line(small) or self.cur_line
        t = type(small)
        if t is cst.Expr:
            value = small.value  # type: ignore[attr-defined]
            if type(value) is cst.Call and self._is_append(value, env):
                self._accumulate(value.func.value.value, value, env)  # type: ignore[attr-defined]
                return
            self.ev(value, env)
            if type(value) is cst.Call:
                self._inplace_call(value, env)
                self._learning_rate_call(value, env)
        elif t is cst.Assign:
            value = self.ev(small.value, env)  # type: ignore[attr-defined]
            for target in small.targets:  # type: ignore[attr-defined]
                if not self._set_learning_rate(target.target, value, small.value, env):  # type: ignore[attr-defined]
                    self.bind(target.target, value, env, small.value)  # type: ignore[attr-defined]
        elif t is cst.AugAssign:
            target = small.target  # type: ignore[attr-defined]
            op_name = type(small.operator).__name__.replace("Assign", "")  # type: ignore[attr-defined]
            current = self.ev(target, env)
            right = self.ev(small.value, env)  # type: ignore[attr-defined]
            value = self.binary(op_name, current, right, small.value, small, env)  # type: ignore[attr-defined]
            self.bind(target, value, env, small)
        elif t is cst.AnnAssign:
            if small.value is not None:  # type: ignore[attr-defined]
                value = self.ev(small.value, env)  # type: ignore[attr-defined]
                self.bind(small.target, value, env, small.value)  # type: ignore[attr-defined]
        elif t is cst.Return:
            if small.value is not None and "__return__" not in env.vars:  # type: ignore[attr-defined]
                env.vars["__return__"] = self.ev(small.value, env)  # type: ignore[attr-defined]
        elif t in (cst.Import, cst.ImportFrom):
            self.imports.add(small)  # type: ignore[arg-type]

    def exec_if(self, stmt: cst.If, env: Env) -> None:
        """Run the branch a constant condition selects; when the condition is not constant, every branch.

        ``if USE_DROPOUT:`` with ``USE_DROPOUT = False`` adds no layer; ``if args.deep:`` runs both
        branches (the program model then holds what either could build, noted).
        """
        branch: Any = stmt
        while isinstance(branch, cst.If):
            self.lines.current = branch
            self.cur_line = self.lines.line(branch) or self.cur_line
            test = self.ev(branch.test, env)
            if isinstance(test, Value) and test.kind == CONST:
                if _truthy(test.value):
                    self.exec_block(branch.body.body, env)
                    return
                branch = branch.orelse
                continue
            # not decidable: run this branch and every following one
            self.exec_block(branch.body.body, env)
            rest = branch.orelse
            while rest is not None:
                if isinstance(rest, cst.If):
                    self.ev(rest.test, env)
                    self.exec_block(rest.body.body, env)
                    rest = rest.orelse
                else:
                    self.exec_block(rest.body.body, env)
                    rest = None
            return
        if branch is not None:  # else block reached by constant conditions
            self.exec_block(branch.body.body, env)

    def exec_for(self, stmt: cst.For, env: Env) -> None:
        """Unroll loops with literal bounds that build layers; run other loop bodies once."""
        self.lines.current = stmt
        self.cur_line = self.lines.line(stmt)
        iterations, objects = self._literal_iterations(stmt.iter, env)
        body_text = None
        if iterations is not None and 0 < len(iterations) <= _MAX_UNROLL:
            body_text = self.lines.text(stmt) or self.text(stmt.body)
        if (
            body_text is not None
            and (objects or _BUILD_HINT.search(body_text))
            and ".fit" not in body_text
            and "train_on_batch" not in body_text
        ):
            saved = self.origin
            self.origin = self.origin or "loop"
            for item in iterations:  # type: ignore[union-attr]
                self.bind(stmt.target, item if objects else Value.const(item), env)
                self.exec_block(stmt.body.body, env)
            self.origin = saved
        else:
            if iterations:
                first = iterations[0]
                self.bind(stmt.target, first if objects else Value.const(first), env)
            else:
                self.bind(stmt.target, Unknown(stmt.iter, self.cur_line), env)
            fits_before, models_before = len(self.program.fits), len(self.program.models)
            self.exec_block(stmt.body.body, env)
            # the passes train one model again and again only when the loop builds none: a loop that
            # builds a model per item is a search over configurations, each trained once
            built = any(m.kind not in ("unknown", "loose") for m in self.program.models[models_before:])
            if iterations is not None and not built:
                for f in self.program.fits[fits_before:]:
                    f.repeat = len(iterations)
        if stmt.orelse is not None:
            self.exec_block(stmt.orelse.body.body, env)

    def _literal_iterations(self, node: cst.BaseExpression, env: Env) -> tuple[list | None, bool]:
        """The items a loop runs over when known, and whether they are objects (layers, ...) not constants."""
        iterations = self._literal_range(node, env)
        if isinstance(iterations, list) and iterations and not isinstance(iterations[0], int | float | str):
            return iterations, True
        return iterations, False

    def _literal_range(self, node: cst.BaseExpression, env: Env) -> list | None:
        if isinstance(node, cst.Call) and isinstance(node.func, cst.Name) and node.func.value == "range":
            vals = [self.ev(a.value, env) for a in node.args]
            if (
                all(isinstance(v, Value) and v.kind == CONST and isinstance(v.value, int) for v in vals)
                and vals
            ):
                bounds = [v.value for v in vals]
                try:
                    r = range(*bounds)
                except (TypeError, ValueError):
                    return None
                if len(r) <= 10_000:
                    return list(r)
            return None
        v = self.ev(node, env)
        if isinstance(v, Value) and v.kind == CONST and isinstance(v.value, list):
            return list(v.value)
        if isinstance(v, list | tuple) and all(
            isinstance(i, LayerObj | ModelObj | Tensor | CallbackObj | data.DataChain) for i in v
        ):
            return list(v)
        return None

    # ---------------------------------------------------------------------------------------------
    # binding
    # ---------------------------------------------------------------------------------------------
    def bind(
        self, target: cst.BaseExpression, value: Any, env: Env, source: cst.CSTNode | None = None
    ) -> None:
        t = type(target)
        if t is cst.Name:
            name = target.value  # type: ignore[attr-defined]
            if isinstance(value, data.DataChain):
                value = data.DataChain(value.source, value.ops, name, value.part)
            elif isinstance(value, Unknown) and value.node is None:
                value = Unknown(source, self.cur_line)
            elif (
                isinstance(value, LayerObj)
                and value.layer.var is None
                or isinstance(value, Tensor)
                and value.layer is not None
                and value.layer.var is None
            ):
                value.layer.var = name
            elif isinstance(value, ModelObj) and value.model.var is None:
                value.model.var = name
            env.set(name, value)
        elif t in (cst.Tuple, cst.List):
            elements = [e.value for e in target.elements]  # type: ignore[attr-defined]
            items = self._unpack(value, len(elements))
            for el, item in zip(elements, items, strict=False):
                if isinstance(el, cst.StarredElement):
                    el = el.value
                self.bind(el, item, env, source)
        elif t is cst.Attribute:
            base = self.ev(target.value, env)  # type: ignore[attr-defined]
            attr = target.attr.value  # type: ignore[attr-defined]
            if isinstance(base, Instance):
                base.attrs[attr] = value
                if base.model is not None:
                    self._collect_subclass_layer(base.model, value)
            elif isinstance(base, LayerObj | Tensor) and base.layer is not None:
                # ``model.layers[0].trainable = False``: the layer's argument changes after the fact
                layer = base.layer
                layer.args[keras_api.canonical_kwarg(layer.cls, attr, self.era)] = self.to_value(
                    value, source
                )
            else:
                key = names.dotted(target)
                if key:
                    env.set(key, value)
        elif t is cst.Subscript:
            base = self.ev(target.value, env)  # type: ignore[attr-defined]
            if isinstance(base, Instance) and base.model is not None:
                self._collect_subclass_layer(base.model, value)
            else:
                # ``y[y == 2] = 1`` / ``df['c'] = ...``: an in-place change of the array
                self._rebind_root(target, env, "setitem", source or target)

    def _optimizer_rate_owner(self, node: cst.BaseExpression, env: Env) -> KerasModel | None:
        """The model whose optimizer's learning rate ``node`` names: ``model.optimizer.lr`` or
        ``model.optimizer.learning_rate`` (a model variable known to the walker), else None."""
        if not (
            isinstance(node, cst.Attribute)
            and node.attr.value in keras_api.LEARNING_RATE_ATTRIBUTES
            and isinstance(node.value, cst.Attribute)
            and node.value.attr.value == "optimizer"
        ):
            return None
        owner = self.ev(node.value.value, env)
        if isinstance(owner, Instance) and owner.model is not None:
            return owner.model
        return owner.model if isinstance(owner, ModelObj) else None

    def _set_learning_rate(
        self, target: cst.BaseExpression, value: Any, source: cst.CSTNode | None, env: Env
    ) -> bool:
        """Rule ``learning_rate_after_compile``: ``model.optimizer.lr = v`` (also ``K.set_value(
        model.optimizer.lr, v)`` and ``model.optimizer.learning_rate.assign(v)``, see
        :meth:`_learning_rate_call`) sets the learning rate the model's later training calls use; it is
        kept for them (``Fit.learning_rate``). True when the target was such a learning rate."""
        model = self._optimizer_rate_owner(target, env)
        if model is None:
            return False
        self.lr_settings[model.index] = self.to_value(value, source)
        return True

    def _learning_rate_call(self, call: cst.Call, env: Env) -> None:
        """``K.set_value(model.optimizer.lr, v)`` / ``model.optimizer.lr.assign(v)`` (rule
        ``learning_rate_after_compile``)."""
        func = call.func
        if not isinstance(func, cst.Attribute | cst.Name):
            return
        key = names.dotted(func)
        if isinstance(func, cst.Attribute) and func.attr.value == "assign" and len(call.args) == 1:
            target, value_node = func.value, call.args[0].value
        elif key and len(call.args) == 2 and key.rsplit(".", 1)[-1] == "set_value":
            qn = self.imports.resolve_name(key)
            if keras_api.keras_module_part(qn) is None and not qn.startswith("tensorflow."):
                return
            target, value_node = call.args[0].value, call.args[1].value
        else:
            return
        self._set_learning_rate(target, self.ev(value_node, env), value_node, env)

    def _root_name(self, node: cst.BaseExpression) -> str | None:
        while type(node) in (cst.Subscript, cst.Attribute):
            node = node.value  # type: ignore[attr-defined]
        return node.value if type(node) is cst.Name else None  # type: ignore[attr-defined]

    def _rebind_root(self, target: cst.BaseExpression, env: Env, op: str, node: cst.CSTNode) -> None:
        name = self._root_name(target)
        if name is None:
            return
        chain = env.get(name)
        if isinstance(chain, data.DataChain):
            text = self.text(node) if not isinstance(node, cst.BaseExpression) else self.text(node)
            step = DataOp(
                op,
                None,
                {},
                text=f"{self.text(target)} = {text}" if op == "setitem" else text,
                file=self.path,
                line=self.cur_line,
            )
            env.set(name, chain.derive(step))

    def _inplace_call(self, call: cst.Call, env: Env) -> None:
        """Calls that change an array in place: ``np.random.shuffle(x)``, ``df.dropna(inplace=True)``."""
        func = call.func
        inplace = any(
            a.keyword is not None
            and a.keyword.value == "inplace"
            and type(a.value) is cst.Name
            and a.value.value == "True"
            for a in call.args
        )
        if inplace and type(func) is cst.Attribute:
            method = func.attr.value
            self._rebind_root(func.value, env, data.ARRAY_METHODS.get(method) or method, call)
            return
        qn = self.imports.resolve(func) if type(func) in (cst.Name, cst.Attribute) else None
        if qn in ("numpy.random.shuffle", "random.shuffle") and call.args:
            self._rebind_root(call.args[0].value, env, "shuffle", call)

    def _is_append(self, call: cst.Call, env: Env) -> bool:
        """``name.append(x)`` / ``name.extend(x)`` on a list the walker follows."""
        func = call.func
        if not (
            type(func) is cst.Attribute
            and func.attr.value in ("append", "extend")
            and type(func.value) is cst.Name
            and len(call.args) == 1
        ):
            return False
        current = env.get(func.value.value)
        return (
            (isinstance(current, Value) and current.kind == CONST and current.value == [])
            or (isinstance(current, list) and not isinstance(current, Value))
            or (isinstance(current, data.DataChain) and current.part == "list")
        )

    def _accumulate(self, name: str, call: cst.Call, env: Env) -> None:
        """``X = []; for ...: X.append(item)``.

        Arrays appended to a list become one array with a ``stack`` step; other objects (layers,
        tensors, callbacks) make a Python list of them, so ``Model(outputs=outs)`` and
        ``callbacks=cbs`` see what was appended.
        """
        current = env.get(name)
        extend = call.func.attr.value == "extend"  # type: ignore[attr-defined]
        arg = call.args[0].value
        item = self.ev(arg, env)
        if isinstance(current, data.DataChain):
            return  # already an accumulated array; more appends add nothing new
        items = (
            list(item)
            if extend and isinstance(item, list | tuple) and not isinstance(item, Value)
            else [item]
        )
        if isinstance(current, list):
            env.set(name, [*current, *items])
            return
        if any(isinstance(i, Tensor | LayerObj | ModelObj | CallbackObj | OptimizerObj) for i in items):
            env.set(name, items)
            return
        chain = self.as_chain(item, arg)
        if not isinstance(chain, data.DataChain):
            chain = self.as_chain(Unknown(arg, self.cur_line), arg)
        stacked = chain.derive(self._op("stack", None, {}, call))
        env.set(name, data.DataChain(stacked.source, stacked.ops, name, "list"))

    def _unpack(self, value: Any, n: int) -> list[Any]:
        if isinstance(value, tuple | list) and not isinstance(value, Value):
            items = list(value)
        elif isinstance(value, Value) and value.kind == CONST and isinstance(value.value, list):
            items = [Value.const(v) for v in value.value]
        elif isinstance(value, Value) and value.kind == SEQ:
            items = list(value.args)
        elif isinstance(value, data.DataChain):
            # x, y = data (a chain unpacked): each part derives from the same source
            items = [
                value.derive(
                    DataOp(
                        "slice",
                        args={"index": Value.const(i)},
                        text=f"[{i}]",
                        file=self.path,
                        line=self.cur_line,
                    )
                )
                for i in range(n)
            ]
        else:
            items = [Unknown(None, self.cur_line) for _ in range(n)]
        if len(items) < n:
            items += [Unknown(None, self.cur_line)] * (n - len(items))
        return items

    # ---------------------------------------------------------------------------------------------
    # expressions
    # ---------------------------------------------------------------------------------------------
    def ev(self, node: cst.BaseExpression, env: Env) -> Any:
        t = type(node)
        if t is cst.Name:
            return self.ev_name(node, env)  # type: ignore[arg-type]
        if t is cst.Call:
            return self.ev_call(node, env)  # type: ignore[arg-type]
        if t is cst.Attribute:
            return self.ev_attribute(node, env)  # type: ignore[arg-type]
        if t in (cst.Integer, cst.Float, cst.SimpleString, cst.ConcatenatedString, cst.FormattedString):
            v = constants.literal(node)
            if v is constants.NOT_CONST:
                return self.lazy(OPAQUE, None, node, self.cur_line)
            return self.lazy(CONST, v, node, self.cur_line)
        if t is cst.UnaryOperation:
            inner = self.ev(node.expression, env)  # type: ignore[attr-defined]
            if isinstance(inner, Value) and inner.kind == CONST:
                v = constants.fold_unary(node.operator, inner.value)  # type: ignore[attr-defined]
                if v is not constants.NOT_CONST:
                    return self.lazy(CONST, v, node, self.cur_line)
            return self.lazy(OPAQUE, None, node, self.cur_line)
        if t is cst.BinaryOperation:
            left = self.ev(node.left, env)  # type: ignore[attr-defined]
            right = self.ev(node.right, env)  # type: ignore[attr-defined]
            return self.binary(type(node.operator).__name__, left, right, node.right, node, env)  # type: ignore[attr-defined]
        if t in (cst.Tuple, cst.List):
            return self.ev_sequence(node, env)  # type: ignore[arg-type]
        if t is cst.Subscript:
            return self.ev_subscript(node, env)  # type: ignore[arg-type]
        if t is cst.Dict:
            return self.ev_dict(node, env)  # type: ignore[arg-type]
        if t is cst.Comparison:
            return self.ev_comparison(node, env)  # type: ignore[arg-type]
        if t is cst.BooleanOperation:
            left = self.ev(node.left, env)  # type: ignore[attr-defined]
            right = self.ev(node.right, env)  # type: ignore[attr-defined]
            if (
                isinstance(left, Value)
                and left.kind == CONST
                and isinstance(right, Value)
                and right.kind == CONST
            ):
                is_and = isinstance(node.operator, cst.And)  # type: ignore[attr-defined]
                value = (left.value and right.value) if is_and else (left.value or right.value)
                return self.lazy(CONST, value, node, self.cur_line)
            return Unknown(node, self.cur_line)
        if t in (cst.ListComp, cst.GeneratorExp, cst.SetComp):
            return self.ev_comprehension(node, env)
        if t is cst.Lambda:
            return self.lazy(OPAQUE, None, node, self.cur_line)
        if t is cst.IfExp:
            self.ev(node.body, env)  # type: ignore[attr-defined]
            return self.lazy(OPAQUE, None, node, self.cur_line)
        if t is cst.NamedExpr:
            value = self.ev(node.value, env)  # type: ignore[attr-defined]
            self.bind(node.target, value, env)  # type: ignore[attr-defined]
            return value
        if t is cst.Await:
            return self.ev(node.expression, env)  # type: ignore[attr-defined]
        return Unknown(node, self.cur_line)

    def ev_comprehension(self, node: cst.BaseComp, env: Env) -> Any:
        """``[Dense(u) for u in (64, 32)]`` with known items: the list of built objects; over data: a step."""
        comp = node.for_in  # type: ignore[attr-defined]
        if comp.inner_for_in is None and not comp.ifs and type(node) is cst.ListComp:
            items, objects = self._literal_iterations(comp.iter, env)
            if items is not None and len(items) <= _MAX_UNROLL:
                local = Env(env)
                out = []
                for item in items:
                    self.bind(comp.target, item if objects else Value.const(item), local)
                    out.append(self.ev(node.elt, local))  # type: ignore[attr-defined]
                if all(isinstance(o, Value) and o.kind == CONST for o in out):
                    return self.lazy(CONST, [o.value for o in out], node, self.cur_line)
                return out
        source = self.ev(comp.iter, env)
        if isinstance(source, data.DataChain):
            return source.derive(self._op("map", None, {}, node))
        return Unknown(node, self.cur_line)

    def ev_comparison(self, node: cst.Comparison, env: Env) -> Any:
        left = self.ev(node.left, env)
        result = True
        for target in node.comparisons:
            right = self.ev(target.comparator, env)
            fn = _COMPARE.get(type(target.operator))
            if (
                fn is None
                or not (isinstance(left, Value) and left.kind == CONST)
                or not (isinstance(right, Value) and right.kind == CONST)
            ):
                return Unknown(node, self.cur_line)
            try:
                ok = fn(left.value, right.value)
            except TypeError:
                return Unknown(node, self.cur_line)
            result = result and bool(ok)
            left = right
        return self.lazy(CONST, result, node, self.cur_line)

    def ev_name(self, node: cst.Name, env: Env) -> Any:
        name = node.value
        value = env.get(name)
        if value is not None:
            if isinstance(value, Value):
                return Value(value.kind, value.value, value.args, value.kwargs, text=name, line=self.cur_line)
            return value
        if name in ("True", "False", "None"):
            return Value(
                CONST, {"True": True, "False": False, "None": None}[name], text=name, line=self.cur_line
            )
        qn = self.imports.resolve_name(name)
        if qn != name or self.imports.is_bound(name):
            return Value(REF, qn, text=name, line=self.cur_line)
        return Value(NAME, name, text=name, line=self.cur_line)

    def ev_attribute(self, node: cst.Attribute, env: Env) -> Any:
        key = names.dotted(node)
        if key is not None:
            value = env.get(key)
            if value is not None:
                return value
            head = key.partition(".")[0]
            if env.get(head) is None:
                qn = self.imports.resolve_name(key)
                if qn != key or self.imports.is_bound(head) or head in names.CONVENTIONAL_ALIASES:
                    return Value(REF, qn, text=key, line=self.cur_line)
        base = self.ev(node.value, env)
        attr = node.attr.value
        if isinstance(base, ArgsNamespace):
            return base.values.get(attr, Unknown(node, self.cur_line))
        if isinstance(base, Instance):
            if attr in base.attrs:
                return base.attrs[attr]
            method = base.cls.methods.get(attr)
            if method is not None:
                return BoundMethod(method, base)
            return Unknown(node, self.cur_line)
        if isinstance(base, data.DataChain):
            if attr in ("values", "iloc", "loc", "ix", "at", "iat", "str"):
                return base
            if attr == "T":
                return base.derive(self._op("transpose", None, {}, node))
            if attr == "shape":
                shape = base.shape()
                if shape is not None:
                    return self.lazy(CONST, shape, node, self.cur_line)
            if attr in data.STAT_METHODS or attr in ("shape", "dtype", "columns", "index", "size", "ndim"):
                return self.lazy(OPAQUE, None, node, self.cur_line)
            # df.column -> a column of the frame
            return base.derive(self._op("slice", None, {"index": Value.const(attr)}, node))
        if isinstance(base, data.Bunch):
            chain = base.attr(attr)
            if chain is not None:
                return chain
        if isinstance(base, ModelObj) and attr == "layers":
            return [LayerObj(layer, applied=True) for layer in base.model.layers]
        if isinstance(base, ModelObj) and attr in ("output", "outputs", "input", "inputs"):
            return Tensor(self._model_as_layer(base, node), [], self.next_seq())
        if isinstance(base, LayerObj) and attr in ("output", "input"):
            return Tensor(base.layer, [], self.next_seq())
        if isinstance(base, Value) and base.kind == REF:
            return self.lazy(REF, f"{base.value}.{attr}", node, self.cur_line)
        return Unknown(node, self.cur_line)

    def ev_sequence(self, node: cst.Tuple | cst.List, env: Env) -> Any:
        items = []
        for el in node.elements:
            if isinstance(el, cst.StarredElement):
                items.append(Unknown(el, self.cur_line))
            else:
                items.append(self.ev(el.value, env))
        if (
            type(node) is cst.List
            and len(items) > 2
            and all(isinstance(i, data.DataChain) and not i.ops and i.source is not None for i in items)
        ):
            # a list of arrays written out (one per batch, say): one array with a leading dimension
            first = items[0]
            src = first.source
            if src is not None and src.kind in ("literal", "random", "generated"):
                shape = [len(items), *src.shape] if src.shape else [len(items)]
                merged = DataSource(
                    src.kind,
                    name=src.name,
                    shape=shape,
                    size=len(items),
                    text=self.text(node),
                    file=self.path,
                    line=src.line,
                )
                return data.DataChain(merged, [])
        if all(isinstance(i, Value) for i in items):
            if all(i.kind == CONST for i in items):
                return self.lazy(CONST, [i.value for i in items], node, self.cur_line)
            return self.lazy(SEQ, None, node, self.cur_line, args=items)
        return tuple(items) if isinstance(node, cst.Tuple) else list(items)

    def ev_dict(self, node: cst.Dict, env: Env) -> Any:
        pairs = []
        for el in node.elements:
            if not isinstance(el, cst.DictElement):
                return self.lazy(OPAQUE, None, node, self.cur_line)
            k, v = self.ev(el.key, env), self.ev(el.value, env)
            if not (isinstance(k, Value) and k.kind == CONST and isinstance(v, Value) and v.kind == CONST):
                return self.lazy(OPAQUE, None, node, self.cur_line)
            pairs.append([k.value, v.value])
        return self.lazy(CONST, pairs, node, self.cur_line)

    def _slice_bounds(self, idx: cst.Slice, env: Env) -> list[int | None] | None:
        """A slice's (lower, upper, step) when each is a literal int or absent, else None."""
        bounds = []
        for part in (idx.lower, idx.upper, idx.step):
            v = self.ev(part, env) if part is not None else Value.const(None)
            bounds.append(v.value if isinstance(v, Value) and v.kind == CONST else constants.NOT_CONST)
        if all(b is None or isinstance(b, int) for b in bounds):
            return bounds
        return None

    def ev_subscript(self, node: cst.Subscript, env: Env) -> Any:
        base = self.ev(node.value, env)
        if isinstance(base, tuple | list) and not isinstance(base, Value) and len(node.slice) == 1:
            idx = node.slice[0].slice
            if isinstance(idx, cst.Slice):
                bounds = self._slice_bounds(idx, env)
                if bounds is not None:
                    try:
                        return list(base)[slice(*bounds)]
                    except ValueError:
                        return Unknown(node, self.cur_line)
            if isinstance(idx, cst.Index):
                i = self.ev(idx.value, env)
                if isinstance(i, Value) and i.kind == CONST and isinstance(i.value, int):
                    try:
                        return base[i.value]
                    except IndexError:
                        return Unknown(node, self.cur_line)
        if (
            isinstance(base, data.DataChain)
            and not base.ops
            and base.source is not None
            and base.source.name == "numpy.eye"
            and len(node.slice) == 1
            and isinstance(node.slice[0].slice, cst.Index)
        ):
            # np.eye(n)[y]: the one-hot encoding idiom, a step applied to y
            index_node = node.slice[0].slice.value
            labels = self.as_chain(self.ev(index_node, env), index_node)
            if isinstance(labels, data.DataChain):
                depth = Value.const(base.source.shape[0]) if base.source.shape else Value.opaque("?")
                return labels.derive(self._op("one_hot", "eye", {"depth": depth}, node))
        if isinstance(base, data.DataChain):
            index_text = self.text(node)[len(self.text(node.value)) :]
            return base.derive(self._op("slice", None, {"index": Value(OPAQUE, None, text=index_text)}, node))
        if (
            isinstance(base, Value)
            and base.kind == CONST
            and isinstance(base.value, list)
            and len(node.slice) == 1
        ):
            idx = node.slice[0].slice
            if isinstance(idx, cst.Slice):
                bounds = self._slice_bounds(idx, env)
                if bounds is not None:
                    try:
                        return Value(
                            CONST, base.value[slice(*bounds)], text=self.text(node), line=self.cur_line
                        )
                    except ValueError:
                        pass
            if isinstance(idx, cst.Index):
                i = self.ev(idx.value, env)
                if isinstance(i, Value) and i.kind == CONST and isinstance(i.value, int):
                    try:
                        return self.lazy(CONST, base.value[i.value], node, self.cur_line)
                    except IndexError:
                        pass
        if isinstance(base, ModelObj):
            return Unknown(node, self.cur_line)
        return self.lazy(OPAQUE, None, node, self.cur_line)

    def binary(
        self, op_name: str, left: Any, right: Any, right_node: cst.CSTNode, node: cst.CSTNode, env: Env
    ) -> Any:
        if isinstance(left, Value) and isinstance(right, Value):
            if left.kind == CONST and right.kind == CONST:
                op = getattr(cst, op_name, None)
                if op is not None:
                    v = constants.fold_binary(op(), left.value, right.value)
                    if v is not constants.NOT_CONST:
                        return self.lazy(CONST, v, node, self.cur_line)
            return self.lazy(OPAQUE, None, node, self.cur_line)
        canonical = data.BINARY_OPS.get(op_name, "call")
        if _is_text(left) or _is_text(right):
            return Unknown(node, self.cur_line)  # "dir/" + name[i]: a path or label text, not arithmetic
        if isinstance(left, data.DataChain):
            operand = self.to_value(right, right_node)
            return left.derive(self._op(canonical, None, {"operand": operand}, node))
        if isinstance(right, data.DataChain):
            left_node = getattr(node, "left", None) or getattr(node, "target", None)
            operand = self.to_value(left, left_node) if left_node is not None else Value.opaque("?")
            return right.derive(
                self._op(canonical, None, {"operand": operand, "reflected": Value.const(True)}, node)
            )
        return Unknown(node, self.cur_line)

    # ---------------------------------------------------------------------------------------------
    # values for the model
    # ---------------------------------------------------------------------------------------------
    def to_value(self, obj: Any, node: cst.CSTNode | None) -> Value:
        """Turn an abstract value into a :class:`Value` (argument of a layer, compile, fit, op)."""
        text = self.text(node) if node is not None else ""
        line = self.cur_line
        if isinstance(obj, Value):
            if node is not None and obj.text != text:
                return Value(obj.kind, obj.value, obj.args, obj.kwargs, text=text, line=line)
            return obj
        if isinstance(obj, LayerObj):
            return Value(CALL, obj.layer.cls, kwargs=dict(obj.layer.args), text=text, line=line)
        if isinstance(obj, OptimizerObj):
            return Value(
                CALL, obj.optimizer.cls or "?", kwargs=dict(obj.optimizer.args), text=text, line=line
            )
        if isinstance(obj, CallbackObj):
            return Value(CALL, obj.callback.cls, kwargs=dict(obj.callback.args), text=text, line=line)
        if isinstance(obj, data.DataChain):
            return Value(REF, f"data:{obj.var or obj.part or '?'}", text=text, line=line)
        if isinstance(obj, FuncObj):
            return Value(REF, f"user:{obj.node.name.value}", text=text, line=line)
        if isinstance(obj, tuple | list):
            items = [self.to_value(o, None) for o in obj]
            return Value(SEQ, None, args=items, text=text, line=line)
        return Value(OPAQUE, None, text=text, line=line)

    def _op(self, op: str, name: str | None, args: dict[str, Value], node: cst.CSTNode) -> DataOp:
        return DataOp(
            op=op,
            name=name,
            args=args,
            text=self.text(node),
            file=self.path,
            line=self.lines.line(node) or self.cur_line,
        )

    def call_args(
        self, node: cst.Call, env: Env
    ) -> tuple[list[Any], dict[str, Any], list[cst.CSTNode], dict[str, cst.CSTNode]]:
        args: list[Any] = []
        kwargs: dict[str, Any] = {}
        arg_nodes: list[cst.CSTNode] = []
        kw_nodes: dict[str, cst.CSTNode] = {}
        for a in node.args:
            value = self.ev(a.value, env)
            if a.keyword is not None:
                kwargs[a.keyword.value] = value
                kw_nodes[a.keyword.value] = a.value
            elif a.star == "**":
                kwargs[f"**{len(kwargs)}"] = value
                kw_nodes[f"**{len(kw_nodes)}"] = a.value
            else:
                args.append(value)
                arg_nodes.append(a.value)
        return args, kwargs, arg_nodes, kw_nodes

    def values_of(self, objs: list[Any], nodes: list[cst.CSTNode]) -> list[Value]:
        return [self.to_value(o, n) for o, n in zip(objs, nodes, strict=False)]

    def kwvalues_of(self, objs: dict[str, Any], nodes: dict[str, cst.CSTNode]) -> dict[str, Value]:
        return {k: self.to_value(o, nodes.get(k)) for k, o in objs.items()}

    # ---------------------------------------------------------------------------------------------
    # calls
    # ---------------------------------------------------------------------------------------------
    def ev_call(self, node: cst.Call, env: Env) -> Any:
        func = node.func
        if isinstance(func, cst.Attribute):
            key = names.dotted(func)
            head = key.partition(".")[0] if key else None
            if key is not None and env.get(head) is None and env.get(key.rsplit(".", 1)[0]) is None:
                qn = self.imports.resolve_name(key)
                if qn != key or self.imports.is_bound(head) or head in names.CONVENTIONAL_ALIASES:
                    return self.call_qualified(qn, node, env)
            receiver = self.ev(func.value, env)
            return self.call_method(receiver, func.attr.value, node, env)
        if isinstance(func, cst.Name):
            target = env.get(func.value)
            if target is None:
                return self.call_qualified(self.imports.resolve_name(func.value), node, env)
            return self.call_object(target, node, env, func.value)
        callee = self.ev(func, env)
        return self.call_object(callee, node, env, None)

    def call_object(self, target: Any, node: cst.Call, env: Env, name: str | None) -> Any:
        if isinstance(target, FuncObj):
            return self.inline(target, node, env, None)
        if isinstance(target, BoundMethod):
            return self.inline(target.func, node, env, target.self_obj)
        if isinstance(target, ClassObj):
            return self.instantiate(target, node, env)
        if isinstance(target, LayerObj | ModelObj):
            return self.apply_layer(target, node, env)
        if isinstance(target, Instance):
            if target.model is not None:
                return self.apply_layer(ModelObj(target.model), node, env)
            call = target.cls.methods.get("__call__")
            if call is not None:
                return self.inline(call, node, env, target)
        if isinstance(target, Value) and target.kind == REF and isinstance(target.value, str):
            return self.call_qualified(target.value, node, env)
        args, kwargs, _, _ = self.call_args(node, env)
        chain = next((a for a in args if isinstance(a, data.DataChain)), None)
        if chain is not None:
            return chain.derive(self._op("call", name or self.text(node.func), {}, node))
        return Unknown(node, self.cur_line)

    # -- qualified callables (imports, known Keras names, builtins) -----------------------------
    def call_qualified(self, qn: str, node: cst.Call, env: Env) -> Any:
        if qn == "argparse.ArgumentParser":
            self.call_args(node, env)
            return ArgParserObj()
        part = keras_api.keras_module_part(qn)
        last = qn.rsplit(".", 1)[-1]
        if part is not None:
            self.keras_seen = True
            return self.call_keras(part, last, qn, node, env)
        if qn.startswith("tensorflow.") and last in keras_api.TF_TRAIN_OPTIMIZERS:
            return self.make_optimizer(qn, node, env)
        if (
            qn.startswith(data.SKLEARN_PREFIX)
            or qn in data.FILE_READERS
            or qn in data.RANDOM_SAMPLERS
            or qn in data.GENERATORS
        ):
            return self.data_source(qn, last, node, env)
        if last in data.SCALERS and (qn.startswith(("sklearn.", "keras", "tensorflow")) or qn == last):
            return data.Scaler(last, data.SCALERS[last], self.text(node))
        if last in ("train_test_split",) or qn.endswith("utils.shuffle"):
            return self.split(last, node, env)
        if (
            qn in ("numpy.array", "numpy.asarray")
            or qn in data.ARRAY_FUNCTIONS
            or qn in data.COMBINE_FUNCTIONS
        ):
            return self.array_function(qn, node, env)
        if qn == "len" and len(node.args) == 1:
            arg = self.ev(node.args[0].value, env)
            shape = arg.shape() if isinstance(arg, data.DataChain) else None
            if shape and isinstance(shape[0], int):
                return self.lazy(CONST, shape[0], node, self.cur_line)
            if isinstance(arg, list | tuple) and not isinstance(arg, Value):
                return self.lazy(CONST, len(arg), node, self.cur_line)
            if isinstance(arg, Value) and arg.kind == CONST and isinstance(arg.value, list | str):
                return self.lazy(CONST, len(arg.value), node, self.cur_line)
            return self.lazy(OPAQUE, None, node, self.cur_line)
        if qn in ("os.path.join", "posixpath.join", "pathlib.Path", "str") and node.args:
            parts = [self.ev(a.value, env) for a in node.args]
            if all(isinstance(p, Value) and p.kind == CONST and isinstance(p.value, str) for p in parts):
                return self.lazy(CONST, "/".join(p.value for p in parts), node, self.cur_line)
            return Unknown(node, self.cur_line)
        if qn in _BUILTIN_SCALARS:
            self.call_args(node, env)
            return self.lazy(OPAQUE, None, node, self.cur_line)
        if qn.startswith("tensorflow.data.Dataset.from_tensor"):
            args, _, _, _ = self.call_args(node, env)
            if args:
                return args[0]
        args, kwargs, arg_nodes, _ = self.call_args(node, env)
        chain = next((a for a in args if isinstance(a, data.DataChain)), None)
        if chain is not None:
            return chain.derive(self._op("call", qn, {}, node))
        if last in keras_api.KNOWN_LAYERS and qn.startswith("tensorflow."):
            return self.make_layer(last, node, env, qn)
        return Unknown(node, self.cur_line)

    def call_keras(self, part: str, last: str, qn: str, node: cst.Call, env: Env) -> Any:
        category = part.split(".", 1)[0] if "." in part else ""
        if last in ("Sequential",):
            return self.make_sequential(node, env)
        if last in ("Model", "Functional") and category in ("", "models", "engine", "engine.training"):
            return self.make_functional(node, env)
        if category == "optimizers" or (
            keras_api.canonical_optimizer(last)
            and last[0].isupper()
            and category not in ("layers", "losses", "metrics")
        ):
            return self.make_optimizer(qn, node, env)
        if category == "callbacks" or last in keras_api.CALLBACKS:
            return self.make_callback(qn, node, env)
        if category == "datasets" or ".datasets." in qn:
            return self.keras_dataset(part, node, env)
        if last in (
            "load_img",
            "get_file",
            "image_dataset_from_directory",
            "text_dataset_from_directory",
            "timeseries_dataset_from_array",
        ):
            args, kwargs, arg_nodes, kw_nodes = self.call_args(node, env)
            first = args[0] if args else next(iter(kwargs.values()), None)
            name = (
                first.value
                if isinstance(first, Value) and first.kind == CONST
                else (self.text(arg_nodes[0]) if arg_nodes else None)
            )
            kind = "generator" if last.endswith("directory") else "file"
            src = DataSource(
                kind, name=name, reader=last, text=self.text(node), file=self.path, line=self.line(node)
            )
            return data.DataChain(src, [])
        if last == "img_to_array":
            args, _, _, _ = self.call_args(node, env)
            return args[0] if args and isinstance(args[0], data.DataChain) else Unknown(node, self.cur_line)
        if last in data.AUGMENTERS:
            args, kwargs, arg_nodes, kw_nodes = self.call_args(node, env)
            op = self._op("augment", last, self.kwvalues_of(kwargs, kw_nodes), node)
            return data.Augmenter(last, op)
        if last in ("to_categorical", "normalize", "pad_sequences", "one_hot"):
            return self.array_function(
                f"utils.{last}" if last != "pad_sequences" else "pad_sequences", node, env
            )
        if last in data.SCALERS:
            return data.Scaler(last, data.SCALERS[last], self.text(node))
        if last in ("load_model", "model_from_json", "model_from_yaml", "clone_model"):
            self.call_args(node, env)
            model = self.new_model("unknown", last, node)
            return ModelObj(model)
        if category == "applications" or ".applications." in qn:
            return self.make_layer(last, node, env, qn, known=True)
        if last in keras_api.MERGE_FUNCTIONS and last[0].islower():
            return self.merge_function(last, node, env)
        if keras_api.is_layer(last) or category == "layers":
            return self.make_layer(last, node, env, qn)
        args, kwargs, arg_nodes, kw_nodes = self.call_args(node, env)
        return Value(
            CALL,
            part or last,
            args=self.values_of(args, arg_nodes),
            kwargs=self.kwvalues_of(kwargs, kw_nodes),
            text=self.text(node),
            line=self.line(node),
        )

    def argparse_method(self, parser: ArgParserObj, method: str, node: cst.Call, env: Env) -> Any:
        """Rule ``command_line_defaults``: ``parser.add_argument('--epochs', type=int, default=50)``
        ... ``args = parser.parse_args()`` ... ``fit(epochs=args.epochs)`` trains with the default, as
        the program runs without arguments: ``args.epochs`` folds to 50 (string defaults converted by
        ``type=int``/``float`` like argparse does). Options without a written default and on/off
        flags (``store_true``: a run mode chosen on the command line, ``if args.train:``) stay unknown,
        so the code they guard is still read."""
        args, kwargs, _, _ = self.call_args(node, env)
        if method in ("add_argument_group", "add_mutually_exclusive_group"):
            return parser  # groups add to the same namespace
        if method == "set_defaults":
            parser.defaults.update(kwargs)
            return Unknown(node, self.cur_line)
        if method in ("parse_args", "parse_known_args"):
            namespace = ArgsNamespace(dict(parser.defaults))
            return (namespace, Unknown(node, self.cur_line)) if method == "parse_known_args" else namespace
        if method != "add_argument":
            return Unknown(node, self.cur_line)
        names_given = [a.value for a in args if isinstance(a, Value) and isinstance(a.value, str)]
        dest = kwargs.get("dest")
        if isinstance(dest, Value) and isinstance(dest.value, str):
            name = dest.value
        else:
            longs = [n for n in names_given if n.startswith("--")]
            shorts = [n for n in names_given if n.startswith("-")]
            chosen = longs[0] if longs else shorts[0] if shorts else names_given[0] if names_given else None
            if chosen is None:
                return Unknown(node, self.cur_line)
            name = chosen.lstrip("-").replace("-", "_")
        default = kwargs.get("default")
        convert = kwargs.get("type")
        if (
            isinstance(default, Value)
            and default.kind == CONST
            and isinstance(default.value, str)
            and isinstance(convert, Value)
            and convert.kind in (REF, NAME)
            and convert.value in ("int", "float")
        ):
            try:
                number = int(default.value) if convert.value == "int" else float(default.value)
                default = Value(CONST, number, text=default.text, line=default.line)
            except ValueError:
                pass
        parser.defaults[name] = default if default is not None else Unknown(node, self.cur_line)
        return Unknown(node, self.cur_line)

    # -- methods on abstract values -------------------------------------------------------------
    def call_method(self, receiver: Any, method: str, node: cst.Call, env: Env) -> Any:
        if isinstance(receiver, ModelObj):
            return self.model_method(receiver, method, node, env)
        if isinstance(receiver, ArgParserObj):
            return self.argparse_method(receiver, method, node, env)
        if isinstance(receiver, Instance):
            if method in receiver.attrs:
                return self.call_object(receiver.attrs[method], node, env, method)
            func = receiver.cls.methods.get(method)
            if func is not None:
                return self.inline(func, node, env, receiver)
            if receiver.model is not None:
                return self.model_method(ModelObj(receiver.model), method, node, env)
            return Unknown(node, self.cur_line)
        if isinstance(receiver, data.DataChain):
            return self.chain_method(receiver, method, node, env)
        if isinstance(receiver, data.Scaler):
            return self.scaler_method(receiver, method, node, env)
        if isinstance(receiver, data.Augmenter):
            return self.augmenter_method(receiver, method, node, env)
        if isinstance(receiver, tuple) and len(receiver) == 2 and method in _DATASET_METHODS:
            # tf.data pipeline over (x, y): a flow of both arrays
            x, y = receiver
            receiver = data.Flow(
                x if isinstance(x, data.DataChain) else None, y if isinstance(y, data.DataChain) else None, {}
            )
        if isinstance(receiver, data.Flow):
            if method not in _DATASET_METHODS:
                self.call_args(node, env)
                return receiver
            args, kwargs, arg_nodes, kw_nodes = self.call_args(node, env)
            values = self.values_of(args, arg_nodes)
            if method == "batch" and values:
                return data.Flow(receiver.x, receiver.y, {**receiver.kwargs, "batch_size": values[0]})
            if method in ("shuffle", "repeat", "map", "filter", "take", "skip") and receiver.x is not None:
                op_name = {"take": "slice", "skip": "slice", "filter": "map"}.get(method, method)
                op = self._op(op_name, method, {f"_{i}": v for i, v in enumerate(values)}, node)
                y = receiver.y.derive(op) if receiver.y is not None and method != "map" else receiver.y
                return data.Flow(receiver.x.derive(op), y, receiver.kwargs)
            return receiver
        if isinstance(receiver, LayerObj) and method in ("add",):
            return Unknown(node, self.cur_line)
        if (
            isinstance(receiver, Value)
            and receiver.kind == NAME
            and method in ("add", "compile", "fit", "fit_generator", "train_on_batch")
        ):
            # a model used but never built in this file (pasted snippet): model it implicitly
            model = self.new_model("sequential" if method == "add" else "unknown", "Sequential", node)
            model.var = receiver.value
            obj = ModelObj(model)
            if isinstance(node.func, cst.Attribute) and isinstance(node.func.value, cst.Name):
                env.set(node.func.value.value, obj)
            self.program.notes.append(f"model {receiver.value!r} used without being built in this file")
            return self.model_method(obj, method, node, env)
        if isinstance(receiver, Unknown | Value) and method in _MODEL_METHODS:
            return self.model_method(None, method, node, env)
        if isinstance(receiver, Value) and receiver.kind == REF:
            return self.call_qualified(f"{receiver.value}.{method}", node, env)
        args, kwargs, _, _ = self.call_args(node, env)
        chain = next((a for a in args if isinstance(a, data.DataChain)), None)
        if chain is not None:
            return chain.derive(self._op("call", method, {}, node))
        return Unknown(node, self.cur_line)

    # ---------------------------------------------------------------------------------------------
    # models and layers
    # ---------------------------------------------------------------------------------------------
    def new_model(self, kind: str, cls: str, node: cst.CSTNode) -> KerasModel:
        self.keras_seen = True
        model = KerasModel(
            index=len(self.program.models),
            kind=kind,
            cls=cls,
            file=self.path,
            line=self.line(node),
            text=self.text(node) if kind != "subclass" else cls,
        )
        self.program.models.append(model)
        return model

    def make_layer(
        self, written: str, node: cst.Call, env: Env, qn: str | None = None, known: bool | None = None
    ) -> LayerObj:
        self.keras_seen = True
        cls = keras_api.canonical_layer(written)
        args, kwargs, arg_nodes, kw_nodes = self.call_args(node, env)
        inner: Layer | None = None
        if cls in keras_api.WRAPPER_LAYERS and args and isinstance(args[0], LayerObj):
            inner = args[0].layer
            args = args[1:]
            arg_nodes = arg_nodes[1:]
            params = keras_api.positional_params(cls, self.era)[1:]
        else:
            params = None
        values = self.values_of(args, arg_nodes)
        kwvalues = self.kwvalues_of(kwargs, kw_nodes)
        if params is not None:
            for i, v in enumerate(values):
                kwvalues[params[i] if i < len(params) else f"_{i}"] = v
            values = []
        norm, legacy = layers.normalise_layer_args(cls, values, kwvalues, self.era)
        self.legacy_seen.update(legacy)
        layer = Layer(
            cls=cls,
            args=norm,
            known=keras_api.is_layer(cls) if known is None else known,
            file=self.path,
            line=self.line(node),
            text=self.text(node),
            origin=self.origin or "add",
            inner=inner,
        )
        if inner is not None:
            layer.args["layer"] = Value(
                CALL, inner.cls, kwargs=dict(inner.args), text=inner.text, line=inner.line
            )
        self.created_layers.append(layer)
        if cls == "Input":
            layer.origin = self.origin or "functional"
            return Tensor(layer, [], self.next_seq())
        return LayerObj(layer)

    def merge_function(self, name: str, node: cst.Call, env: Env) -> Any:
        args, kwargs, arg_nodes, kw_nodes = self.call_args(node, env)
        cls = keras_api.MERGE_FUNCTIONS[name]
        kwvalues = self.kwvalues_of(kwargs, kw_nodes)
        layer = Layer(
            cls=cls,
            args=kwvalues,
            file=self.path,
            line=self.line(node),
            text=self.text(node),
            origin="functional",
        )
        inputs = args[0] if args else []
        parents = [
            t for t in (inputs if isinstance(inputs, list | tuple) else [inputs]) if isinstance(t, Tensor)
        ]
        return Tensor(layer, parents, self.next_seq())

    def apply_layer(self, target: LayerObj | ModelObj, node: cst.Call, env: Env) -> Any:
        args, kwargs, _, _ = self.call_args(node, env)
        inputs = args[0] if args else kwargs.get("inputs")
        if isinstance(target, ModelObj):
            layer = self._model_as_layer(target, node)
        else:
            layer = target.layer
            target.applied = True
        flat = inputs if isinstance(inputs, list | tuple) else [inputs]
        parents = [t for t in flat if isinstance(t, Tensor)]
        if not parents and isinstance(inputs, data.DataChain):
            return inputs  # a layer applied to data eagerly (preprocessing layers)
        if layer.origin == "add":
            layer.origin = "functional" if not self.origin else self.origin
        return Tensor(layer, parents, self.next_seq())

    def _model_as_layer(self, obj: ModelObj, node: cst.CSTNode) -> Layer:
        m = obj.model
        return Layer(
            cls=m.cls if m.kind != "sequential" else "Sequential",
            args={},
            known=m.kind != "unknown",
            file=self.path,
            line=self.line(node),
            text=f"model[{m.index}]",
            origin="functional",
            var=m.var,
        )

    def make_sequential(self, node: cst.Call, env: Env) -> ModelObj:
        model = self.new_model("sequential", "Sequential", node)
        args, kwargs, arg_nodes, kw_nodes = self.call_args(node, env)
        items = args[0] if args else kwargs.pop("layers", None)
        if args:
            arg_nodes = arg_nodes[1:]
            args = args[1:]
        if isinstance(items, list | tuple) and not isinstance(items, Value):
            for item in items:
                self._append_layer(model, item, "list")
        elif isinstance(items, Value) and items.kind == SEQ:
            for item in items.args:
                self._append_layer(model, item, "list")
        elif isinstance(items, LayerObj):
            self._append_layer(model, items, "list")
        model.args = self.kwvalues_of(kwargs, kw_nodes)
        return ModelObj(model)

    def _append_layer(self, model: KerasModel, item: Any, origin: str) -> None:
        if isinstance(item, LayerObj):
            layer = item.layer
            if layer.origin in ("add", "list", "functional"):
                layer.origin = self.origin or origin
            model.layers.append(layer)
        elif isinstance(item, ModelObj):
            model.layers.append(self._model_as_layer(item, None))
        elif isinstance(item, Tensor) and item.layer is not None:
            model.layers.append(item.layer)
        elif isinstance(item, list | tuple) and not isinstance(item, Value):
            for sub in item:
                self._append_layer(model, sub, origin)
        elif isinstance(item, Value):
            model.layers.append(
                Layer(
                    cls=item.text or "?",
                    args={},
                    known=False,
                    file=self.path,
                    line=item.line or self.cur_line,
                    text=item.text,
                    origin=origin,
                )
            )
        elif isinstance(item, Unknown):
            text = self.text(item.node) if item.node is not None else "?"
            model.layers.append(
                Layer(
                    cls=text,
                    args={},
                    known=False,
                    file=self.path,
                    line=item.line or self.cur_line,
                    text=text,
                    origin=origin,
                )
            )

    def make_functional(self, node: cst.Call, env: Env) -> ModelObj:
        args, kwargs, arg_nodes, kw_nodes = self.call_args(node, env)
        inputs = kwargs.pop("inputs", kwargs.pop("input", args[0] if args else None))
        outputs = kwargs.pop("outputs", kwargs.pop("output", args[1] if len(args) > 1 else None))
        model = self.new_model("functional", "Model", node)
        out_tensors = [
            t for t in (outputs if isinstance(outputs, list | tuple) else [outputs]) if isinstance(t, Tensor)
        ]
        in_tensors = [
            t for t in (inputs if isinstance(inputs, list | tuple) else [inputs]) if isinstance(t, Tensor)
        ]
        model.layers = self._trace(out_tensors, in_tensors)
        for k in ("inputs", "outputs"):
            kw_nodes.pop(k, None)
        model.args = self.kwvalues_of({k: v for k, v in kwargs.items() if k in kw_nodes}, kw_nodes)
        if not out_tensors:
            self.program.notes.append(f"functional model at line {model.line}: outputs not resolvable")
        return ModelObj(model)

    def _trace(self, outputs: list[Tensor], inputs: list[Tensor]) -> list[Layer]:
        """Layers between inputs and outputs, in creation order (shared layers once)."""
        seen: dict[int, Tensor] = {}
        stack = list(outputs)
        while stack:
            t = stack.pop()
            if id(t) in seen:
                continue
            seen[id(t)] = t
            stack.extend(t.parents)
        for t in inputs:
            seen.setdefault(id(t), t)
        ordered = sorted(seen.values(), key=lambda t: t.seq)
        out: list[Layer] = []
        index: dict[int, int] = {}
        for t in ordered:
            if t.layer is None or id(t.layer) in index:
                continue
            index[id(t.layer)] = len(out)
            out.append(t.layer)
        for t in ordered:
            if t.layer is not None and not t.layer.inbound:
                t.layer.inbound = [
                    index[id(p.layer)] for p in t.parents if p.layer is not None and id(p.layer) in index
                ]
        return out

    def model_method(self, obj: ModelObj | None, method: str, node: cst.Call, env: Env) -> Any:
        model = obj.model if obj is not None else None
        if method == "add" and model is not None:
            args, kwargs, arg_nodes, _ = self.call_args(node, env)
            item = args[0] if args else kwargs.get("layer")
            if isinstance(item, LayerObj):
                item.layer.line = item.layer.line or self.line(node)
            self._append_layer(model, item if item is not None else Unknown(node, self.cur_line), "add")
            return None
        if method == "pop" and model is not None and model.layers:
            self.call_args(node, env)
            removed = model.layers.pop()
            self.program.notes.append(
                f"model[{model.index}].pop() removed {removed.cls} (line {self.line(node)})"
            )
            return None
        if method == "compile":
            self.record_compile(model, node, env)
            return None
        if method in training.TRAINING_METHODS:
            return self.record_fit(model, method, node, env)
        if method in ("predict", "predict_classes", "predict_proba", "predict_on_batch") or method in (
            "evaluate",
            "evaluate_generator",
        ):
            self.record_use(model, method, node, env)
            return Unknown(node, self.cur_line)
        if method in ("get_layer",) and model is not None:
            self.call_args(node, env)
            return Unknown(node, self.cur_line)
        self.call_args(node, env)
        return Unknown(node, self.cur_line)

    # -- subclassed models, user classes and functions ----------------------------------------------
    def define_class(self, node: cst.ClassDef, env: Env) -> None:
        bases = [self.imports.resolve(b.value) or "" for b in node.bases]
        keras_model = any(
            b.endswith(("Model", "Sequential"))
            and (keras_api.keras_module_part(b) is not None or b in ("Model", "Sequential"))
            for b in bases
        )
        keras_layer = any(b.endswith("Layer") and keras_api.keras_module_part(b) is not None for b in bases)
        if keras_model or keras_layer:
            self.keras_seen = True
        if any(keras_api.keras_module_part(b) is not None for b in bases):
            self.keras_defined = True  # a Keras layer/model/callback subclass: a Keras program part
        cls = ClassObj(node, env, keras_model, keras_layer)
        for stmt in node.body.body:
            if isinstance(stmt, cst.FunctionDef):
                f = FuncObj(stmt, env, owner=cls)
                cls.methods[stmt.name.value] = f
        # a subclass of a user class inherits its methods
        for b in node.bases:
            parent = env.get(b.value.value) if isinstance(b.value, cst.Name) else None
            if isinstance(parent, ClassObj):
                for k, v in parent.methods.items():
                    cls.methods.setdefault(k, v)
                cls.keras_model = cls.keras_model or parent.keras_model
        env.set(node.name.value, cls)
        self.classes.append(cls)

    def instantiate(self, cls: ClassObj, node: cst.Call | None, env: Env) -> Any:
        cls.instantiated = True
        inst = Instance(cls)
        if cls.instance is None:
            cls.instance = inst
        if cls.keras_layer and not cls.keras_model and node is not None:
            return self.make_layer(cls.node.name.value, node, env, known=False)
        if cls.keras_model:
            inst.model = self.new_model("subclass", cls.node.name.value, node or cls.node)
        init = cls.methods.get("__init__")
        start = len(self.created_layers)
        if init is not None:
            saved = self.origin
            self.origin = "subclass" if cls.keras_model else self.origin
            self.inline(init, node, env, inst)
            self.origin = saved
        elif node is not None:
            self.call_args(node, env)
        if inst.model is not None and not inst.model.layers:
            # functional code inside __init__ (super().__init__(inputs, outputs)): take what it built
            inners = {id(x.inner) for x in self.created_layers[start:] if x.inner is not None}
            inst.model.layers = [x for x in self.created_layers[start:] if id(x) not in inners]
        return inst

    def _collect_subclass_layer(self, model: KerasModel, value: Any) -> None:
        if isinstance(value, LayerObj):
            if not any(x is value.layer for x in model.layers):
                value.layer.origin = "subclass"
                model.layers.append(value.layer)
        elif isinstance(value, list | tuple) and not isinstance(value, Value):
            for v in value:
                self._collect_subclass_layer(model, v)
        elif isinstance(value, ModelObj) and value.model is not model:
            model.layers.append(self._model_as_layer(value, None))

    def inline(self, func: FuncObj, node: cst.Call | None, env: Env, self_obj: Any) -> Any:
        """Run a user function's body with its parameters bound to the call's argument values."""
        func.called = True
        if self.depth >= _MAX_INLINE_DEPTH or self.steps > _MAX_STEPS:
            if node is not None:
                self.call_args(node, env)
            return Unknown(node, self.cur_line)
        local = Env(func.env)
        params = func.node.params
        positional = [*params.posonly_params, *params.params]
        args: list[Any] = []
        kwargs: dict[str, Any] = {}
        if node is not None:
            args, kwargs, _, _ = self.call_args(node, env)
        if self_obj is not None and positional:
            local.set(positional[0].name.value, self_obj)
            positional = positional[1:]
        for i, p in enumerate(positional):
            if i < len(args):
                value = args[i]
            elif p.name.value in kwargs:
                value = kwargs[p.name.value]
            elif p.default is not None:
                value = self.ev(p.default, func.env)
            else:
                value = Unknown(None, self.cur_line)
            if isinstance(value, Value) and value.kind == NAME:
                value = Value(NAME, p.name.value, text=p.name.value)
            local.set(p.name.value, value)
        for p in params.kwonly_params:
            if p.name.value in kwargs:
                local.set(p.name.value, kwargs[p.name.value])
            elif p.default is not None:
                local.set(p.name.value, self.ev(p.default, func.env))
        self.depth += 1
        saved_origin, saved_line = self.origin, self.cur_line
        if not self.origin and func.owner is None:
            self.origin = "helper"
        try:
            body = func.node.body
            if isinstance(body, cst.IndentedBlock):
                self.exec_block(body.body, local)
            else:
                for small in body.body:  # type: ignore[attr-defined]
                    self.exec_small(small, local)
        finally:
            self.depth -= 1
            self.origin, self.cur_line = saved_origin, saved_line
        # names assigned with ``global`` in the function stay visible: copy module-level models back
        result = local.vars.get("__return__")
        return result if result is not None else Unknown(node, self.cur_line)

    def _collect_loose_layers(self) -> None:
        """Layers built but never put in a model (snippets) form one implicit model, in source order."""
        placed: set[int] = set()
        for m in self.program.models:
            for layer in m.layers:
                placed.add(id(layer))
                if layer.inner is not None:
                    placed.add(id(layer.inner))
        for layer in self.created_layers:
            if layer.inner is not None:
                placed.add(id(layer.inner))
        loose = [layer for layer in self.created_layers if id(layer) not in placed]
        if not loose:
            return
        model = KerasModel(
            index=len(self.program.models),
            kind="loose",
            cls="Sequential",
            file=self.path,
            line=loose[0].line,
            text="(layers not added to any model)",
        )
        model.layers = sorted(loose, key=lambda layer: layer.line or 0)
        self.program.models.append(model)
        self.program.notes.append(f"model[{model.index}]: {len(loose)} layer(s) built outside any model")

    def _run_leftovers(self) -> None:
        """Functions, classes and methods never called: run them once so their models are not missed."""
        for _ in range(3):
            pending = [f for f in self.functions if not f.called]
            classes = [c for c in self.classes if not c.instantiated]
            methods = [
                (c, m)
                for c in self.classes
                if c.instance is not None and not c.keras_model
                for name, m in c.methods.items()
                if not m.called and name != "__init__"
            ]
            if not pending and not classes and not methods:
                break
            for cls in classes:
                inst = self.instantiate(cls, None, cls.env)
                if isinstance(inst, Instance) and not cls.keras_model:
                    for name, method in cls.methods.items():
                        if name != "__init__" and not method.called:
                            self.inline(method, None, cls.env, inst)
            for cls, method in methods:
                if not method.called:
                    self.inline(method, None, cls.env, cls.instance)
            for f in pending:
                if not f.called:
                    self.inline(f, None, f.env, None)

    # ---------------------------------------------------------------------------------------------
    # compile / fit
    # ---------------------------------------------------------------------------------------------
    def make_optimizer(self, qn: str, node: cst.Call, env: Env) -> OptimizerObj:
        args, kwargs, arg_nodes, kw_nodes = self.call_args(node, env)
        opt, legacy = training.optimizer_from_call(
            qn,
            self.values_of(args, arg_nodes),
            self.kwvalues_of(kwargs, kw_nodes),
            self.text(node),
            self.path,
            self.line(node),
            self.era,
        )
        self.legacy_seen.update(legacy)
        return OptimizerObj(opt)

    def make_callback(self, qn: str, node: cst.Call, env: Env) -> CallbackObj:
        args, kwargs, arg_nodes, kw_nodes = self.call_args(node, env)
        cb = training.callback_from_call(
            qn,
            self.values_of(args, arg_nodes),
            self.kwvalues_of(kwargs, kw_nodes),
            self.text(node),
            self.path,
            self.line(node),
        )
        return CallbackObj(cb)

    def record_compile(self, model: KerasModel | None, node: cst.Call, env: Env) -> None:
        args, kwargs, arg_nodes, kw_nodes = self.call_args(node, env)
        named: dict[str, Any] = {}
        nodes: dict[str, cst.CSTNode] = {}
        for i, (a, n) in enumerate(zip(args, arg_nodes, strict=False)):
            key = training.COMPILE_POSITIONAL[i] if i < len(training.COMPILE_POSITIONAL) else f"_{i}"
            named[key], nodes[key] = a, n
        named.update(kwargs)
        nodes.update(kw_nodes)
        comp = Compile(
            index=len(self.program.compiles),
            model=model.index if model else None,
            file=self.path,
            line=self.line(node),
            text=self.text(node),
        )
        opt = named.pop("optimizer", None)
        if isinstance(opt, OptimizerObj):
            comp.optimizer = opt.optimizer
        elif isinstance(opt, Value) and opt.kind == CONST and isinstance(opt.value, str):
            comp.optimizer = training.optimizer_from_string(self.to_value(opt, nodes["optimizer"]), self.path)
        elif isinstance(opt, Value) and opt.kind == REF:
            cls = keras_api.canonical_optimizer(opt.value.rsplit(".", 1)[-1])
            comp.optimizer = Optimizer(
                cls=cls,
                spelling="object" if cls else "opaque",
                text=opt.text,
                file=self.path,
                line=self.line(node),
            )
        elif opt is not None:
            v = self.to_value(opt, nodes.get("optimizer"))
            comp.optimizer = Optimizer(
                cls=None, spelling="opaque", text=v.text, file=self.path, line=self.line(node)
            )
        else:
            comp.optimizer = None
        if comp.optimizer is not None:
            comp.optimizer.file = self.path
        loss = named.pop("loss", None)
        if loss is not None:
            comp.loss = training.normalise_loss(self.to_value(loss, nodes.get("loss")))
        metrics = named.pop("metrics", None)
        if metrics is not None:
            comp.metrics = training.normalise_metrics(self.to_value(metrics, nodes.get("metrics")))
        comp.args = {k: self.to_value(v, nodes.get(k)) for k, v in named.items()}
        self.program.compiles.append(comp)

    def record_fit(self, model: KerasModel | None, method: str, node: cst.Call, env: Env) -> Any:
        args, kwargs, arg_nodes, kw_nodes = self.call_args(node, env)
        positional = training.FIT_POSITIONAL[method]
        named: dict[str, Any] = {}
        nodes: dict[str, cst.CSTNode] = {}
        for i, (a, n) in enumerate(zip(args, arg_nodes, strict=False)):
            key = positional[i] if i < len(positional) else f"_{i}"
            named[key], nodes[key] = a, n
        for k, v in kwargs.items():
            canon = training.fit_kwarg(k)
            if canon != k:
                self.legacy_seen.add(k)
            named[canon], nodes[canon] = v, kw_nodes[k]
        fit = Fit(
            index=len(self.program.fits),
            method=method,
            model=model.index if model else None,
            file=self.path,
            line=self.line(node),
            text=self.text(node),
        )
        # data arguments
        x = named.pop("x", None) if "x" in named else named.pop("generator", None)
        x_node = nodes.pop("x", None) or nodes.pop("generator", None)
        y = named.pop("y", None)
        y_node = nodes.pop("y", None)
        if isinstance(x, data.Flow):
            for k, v in x.kwargs.items():
                if k == "batch_size" and "batch_size" not in named:
                    fit.args["batch_size"] = v
            x, y = x.x, (x.y if y is None else y)
        if isinstance(x, tuple) and len(x) == 2 and y is None:  # tf.data (x, y) pairs
            x, y = x
        first = not self.data_fit_done
        if x is not None:
            fit.args["x"] = self._data_ref("x_train" if first else None, x, x_node)
        if y is not None:
            fit.args["y"] = self._data_ref("y_train" if first else None, y, y_node)
        if first and isinstance(x, data.DataChain | Unknown | Value):
            self.data_fit_done = True
            self._record_data("x_train", x, x_node)
            self._record_data("y_train", y, y_node)
        val = named.pop("validation_data", None)
        val_node = nodes.pop("validation_data", None)
        if val is not None:
            if isinstance(val, data.Flow):
                val = (val.x, val.y)
            if isinstance(val, tuple | list) and not isinstance(val, Value) and len(val) >= 2:
                if first:
                    self._record_data("x_val", val[0])
                    self._record_data("y_val", val[1])
                fit.args["validation_data"] = Value(
                    SEQ,
                    None,
                    args=[
                        self._data_ref("x_val" if first else None, val[0], None),
                        self._data_ref("y_val" if first else None, val[1], None),
                    ],
                    text=self.text(val_node) if val_node is not None else "",
                    line=self.line(node),
                )
            else:
                fit.args["validation_data"] = self.to_value(val, val_node)
        callbacks = named.pop("callbacks", None)
        cb_node = nodes.pop("callbacks", None)
        if callbacks is not None:
            fit.args["callbacks"] = self.to_value(callbacks, cb_node)
            items = (
                callbacks
                if isinstance(callbacks, list | tuple) and not isinstance(callbacks, Value)
                else [callbacks]
            )
            if isinstance(callbacks, Value) and callbacks.kind == SEQ:
                items = callbacks.args
            for cb in items:
                if isinstance(cb, CallbackObj):
                    fit.callbacks.append(cb.callback)
                elif isinstance(cb, Value | Unknown):
                    text = cb.text if isinstance(cb, Value) else (self.text(cb.node) if cb.node else "?")
                    if isinstance(cb, Value) and cb.kind == CONST and cb.value is None:
                        continue
                    fit.callbacks.append(
                        Callback(cls=text, known=False, text=text, file=self.path, line=self.line(node))
                    )
        for k, v in named.items():
            fit.args[k] = self.to_value(v, nodes.get(k))
        if model is not None:
            fit.learning_rate = self.lr_settings.get(model.index)
        self.program.fits.append(fit)
        return Unknown(node, self.cur_line)

    def record_use(self, model: KerasModel | None, method: str, node: cst.Call, env: Env) -> None:
        """evaluate/predict calls: their arguments (batch size...) and the test/prediction data."""
        family = "evaluate" if method.startswith("evaluate") else "predict"
        args, kwargs, arg_nodes, kw_nodes = self.call_args(node, env)
        positional = training.FIT_POSITIONAL["evaluate" if family == "evaluate" else "predict"]
        named: dict[str, Any] = {}
        nodes: dict[str, cst.CSTNode] = {}
        for i, (a, n) in enumerate(zip(args, arg_nodes, strict=False)):
            key = positional[i] if i < len(positional) else f"_{i}"
            named[key], nodes[key] = a, n
        for k, v in kwargs.items():
            canon = training.fit_kwarg(k)
            named[canon], nodes[canon] = v, kw_nodes[k]
        if method.endswith("_generator") and "x" not in named and "generator" in named:
            named["x"], nodes["x"] = named.pop("generator"), nodes.pop("generator")
        index = sum(1 for e in self.program.evaluations if e.method.startswith(family))
        use = Fit(
            index=index,
            method=method,
            model=model.index if model else None,
            file=self.path,
            line=self.line(node),
            text=self.text(node),
        )
        x, y = named.pop("x", None), named.pop("y", None)
        x_node, y_node = nodes.pop("x", None), nodes.pop("y", None)
        if isinstance(x, data.Flow):
            x, y = x.x, (x.y if y is None else y)
        x_role, y_role = ("x_test", "y_test") if family == "evaluate" else ("x_pred", None)
        first = x_role not in self.program.data
        if x is not None:
            use.args["x"] = self._data_ref(x_role if first else None, x, x_node)
            if first:
                self._record_data(x_role, x, x_node)
        if y is not None and y_role is not None:
            use.args["y"] = self._data_ref(y_role if first else None, y, y_node)
            if first:
                self._record_data(y_role, y, y_node)
        for k, v in named.items():
            use.args[k] = self.to_value(v, nodes.get(k))
        self.program.evaluations.append(use)

    def _data_ref(self, role: str | None, obj: Any, node: cst.CSTNode | None) -> Value:
        text = (
            self.text(node)
            if node is not None
            else (obj.var if isinstance(obj, data.DataChain) else "") or ""
        )
        if role is not None:
            return Value(REF, f"data.{role}", text=text, line=self.cur_line)
        return self.to_value(obj, node) if node is not None else Value(OPAQUE, None, text=text)

    def _record_data(self, role: str, obj: Any, node: cst.CSTNode | None = None) -> None:
        if obj is None or role in self.program.data:
            return
        if isinstance(obj, data.Flow):
            obj = obj.x if role.startswith("x") else obj.y
            if obj is None:
                return
        if isinstance(obj, data.DataChain):
            self.program.data[role] = obj.to_var(role)
            return
        if isinstance(obj, list | tuple) and obj and not isinstance(obj, Value):
            # several inputs (multi-input models): x_train, x_train_2, ...
            for i, item in enumerate(obj):
                self._record_data(role if i == 0 else f"{role}_{i + 1}", item, None)
            return
        # not followed to a source: keep what is written as an opaque source
        if isinstance(obj, Unknown):
            text = self.text(obj.node) if obj.node is not None else "?"
            line = obj.line
        elif isinstance(obj, Value):
            if obj.kind == CONST:
                shape = data.shape_of_literal(obj.value)
                src = DataSource(
                    "literal",
                    name="list",
                    shape=shape,
                    size=data.size_of(shape),
                    text=obj.text,
                    file=self.path,
                    line=obj.line,
                )
                self.program.data[role] = data.DataChain(src, []).to_var(role)
                return
            text, line = obj.text, obj.line
        else:
            text = self.text(node) if node is not None else type(obj).__name__
            line = self.cur_line
        src = DataSource("opaque", text=text, file=self.path, line=line)
        var = text if isinstance(obj, Value) and obj.kind == NAME else None
        self.program.data[role] = data.DataChain(src, [], var=var).to_var(role)

    # ---------------------------------------------------------------------------------------------
    # data
    # ---------------------------------------------------------------------------------------------
    def keras_dataset(self, part: str, node: cst.Call, env: Env) -> Any:
        self.call_args(node, env)
        segments = part.split(".")
        name = (
            segments[1]
            if len(segments) > 2 and segments[0] == "datasets"
            else segments[-2]
            if len(segments) > 1
            else part
        )
        src = DataSource(
            "keras_dataset", name=name, text=self.text(node), file=self.path, line=self.line(node)
        )
        parts = ("x_train", "y_train", "x_test", "y_test")
        chains = [data.DataChain(src, [], part=p) for p in parts]
        return ((chains[0], chains[1]), (chains[2], chains[3]))

    def data_source(self, qn: str, last: str, node: cst.Call, env: Env) -> Any:
        args, kwargs, arg_nodes, kw_nodes = self.call_args(node, env)
        line = self.line(node)
        text = self.text(node)
        if qn.startswith(data.SKLEARN_PREFIX):
            name = last[5:] if last.startswith(("load_", "make_")) else last
            name = name[6:] if last.startswith("fetch_") else name
            shape = None
            n = kwargs.get("n_samples")
            if isinstance(n, Value) and n.kind == CONST:
                f = kwargs.get("n_features")
                shape = [n.value, f.value] if isinstance(f, Value) and f.kind == CONST else [n.value]
            src = DataSource(
                "sklearn",
                name=name,
                shape=shape,
                size=data.size_of(shape),
                text=text,
                file=self.path,
                line=line,
            )
            rxy = kwargs.get("return_X_y")
            if last.startswith("make_") or (isinstance(rxy, Value) and rxy.value is True):
                return (data.DataChain(src, [], part="X"), data.DataChain(src, [], part="y"))
            return data.Bunch(src)
        if qn in data.FILE_READERS:
            fname = None
            first = (
                args[0] if args else kwargs.get("filepath_or_buffer", kwargs.get("fname", kwargs.get("file")))
            )
            if isinstance(first, Value) and first.kind == CONST and isinstance(first.value, str):
                fname = first.value
            elif isinstance(first, data.DataChain) and first.source is not None:
                return first.derive(self._op("call", data.FILE_READERS[qn], {}, node))
            elif first is not None:
                fname = self.to_value(first, arg_nodes[0] if arg_nodes else None).text or None
            src = DataSource(
                "file", name=fname, reader=data.FILE_READERS[qn], text=text, file=self.path, line=line
            )
            return data.DataChain(src, [])
        if qn in data.RANDOM_SAMPLERS:
            how = data.RANDOM_SAMPLERS[qn]
            shape = None
            if how == "args" and all(isinstance(a, Value) and a.kind == CONST for a in args):
                shape = [a.value for a in args]
            elif how == "first" and args and isinstance(args[0], Value) and args[0].kind == CONST:
                shape = args[0].value if isinstance(args[0].value, list) else [args[0].value]
            elif how == "first" and isinstance(kwargs.get("size", kwargs.get("shape")), Value):
                s = kwargs.get("size", kwargs.get("shape"))
                shape = s.value if s.kind == CONST and isinstance(s.value, list) else None
            elif how == "size":
                s = kwargs.get("size", args[2] if len(args) > 2 else None)
                if isinstance(s, Value) and s.kind == CONST:
                    shape = s.value if isinstance(s.value, list) else [s.value]
            src = DataSource(
                "random", name=qn, shape=shape, size=data.size_of(shape), text=text, file=self.path, line=line
            )
            return data.DataChain(src, [])
        # generated arrays
        shape = None
        how = data.GENERATORS.get(qn)
        first_arg = args[0] if args else kwargs.get("shape", kwargs.get("N"))
        if how == "first" and isinstance(first_arg, Value) and first_arg.kind == CONST:
            shape = first_arg.value if isinstance(first_arg.value, list) else [first_arg.value]
        elif how in ("range", "linspace"):
            consts = [a.value for a in args if isinstance(a, Value) and a.kind == CONST]
            if how == "linspace" and len(consts) >= 3:
                shape = [consts[2]]
            elif how == "range" and consts and len(consts) == len(args) and len(consts) <= 3:
                start, stop, step = (
                    (0, consts[0], 1)
                    if len(consts) == 1
                    else (*consts[:2], consts[2] if len(consts) == 3 else 1)
                )
                try:
                    shape = [max(0, math.ceil((stop - start) / step))]
                except (TypeError, ValueError, ZeroDivisionError):
                    shape = None
        src = DataSource(
            "generated", name=qn, shape=shape, size=data.size_of(shape), text=text, file=self.path, line=line
        )
        return data.DataChain(src, [])

    def array_function(self, qn: str, node: cst.Call, env: Env) -> Any:
        args, kwargs, arg_nodes, kw_nodes = self.call_args(node, env)
        if qn in data.COMBINE_FUNCTIONS:
            seq = args[0] if args else None
            items = seq if isinstance(seq, list | tuple) and not isinstance(seq, Value) else [seq]
            chain = next((a for a in items if isinstance(a, data.DataChain)), None)
            if chain is None:
                return Unknown(node, self.cur_line)
            return chain.derive(self._op("concat", qn.rsplit(".", 1)[-1], {}, node))
        first = args[0] if args else (next(iter(kwargs.values())) if kwargs else None)
        if qn in ("numpy.array", "numpy.asarray") and isinstance(first, Value) and first.kind in (CONST, SEQ):
            shape = data.shape_of_literal(first.value) if first.kind == CONST else data.shape_of_value(first)
            src = DataSource(
                "literal",
                shape=shape,
                size=data.size_of(shape),
                text=self.text(node),
                file=self.path,
                line=self.line(node),
            )
            return data.DataChain(src, [])
        op = data.ARRAY_FUNCTIONS.get(qn)
        if op is None:
            for suffix, name in data.ARRAY_FUNCTIONS.items():
                if qn.endswith("." + suffix) or qn == suffix:
                    op = name
                    break
        if not isinstance(first, data.DataChain):
            if isinstance(first, Unknown | Value) and op not in (None, "noop"):
                # data we could not follow: start an opaque chain so the step is not lost
                src_text = self.text(arg_nodes[0]) if arg_nodes else "?"
                chain = data.DataChain(
                    DataSource("opaque", text=src_text, file=self.path, line=self.line(node)),
                    [],
                    var=src_text,
                )
                first = chain
            else:
                return first if first is not None else Unknown(node, self.cur_line)
        if op == "noop" or op is None and qn in ("numpy.array", "numpy.asarray"):
            dtype = kwargs.get("dtype")
            if dtype is not None and isinstance(first, data.DataChain):
                value = self._dtype(self.to_value(dtype, kw_nodes.get("dtype")))
                return first.derive(self._op("astype", None, {"dtype": value}, node))
            return first
        rest_values = self.values_of(args[1:], arg_nodes[1:])
        op_args: dict[str, Value] = {}
        pnames = {
            "to_categorical": ("num_classes",),
            "reshape": ("shape",),
            "expand_dims": ("axis",),
            "one_hot": ("depth",),
            "astype": ("dtype",),
            "clip": ("min", "max"),
            "transpose": ("axes",),
        }
        pn = pnames.get(op or "", ())
        for i, v in enumerate(rest_values):
            op_args[pn[i] if i < len(pn) else f"_{i + 1}"] = v
        for k, v in self.kwvalues_of(kwargs, kw_nodes).items():
            op_args[k] = v
        if op == "astype" and "dtype" not in op_args:
            op_args["dtype"] = Value.const(qn.rsplit(".", 1)[-1])
        return first.derive(self._op(op or "call", None if op else qn, op_args, node))

    def chain_method(self, chain: data.DataChain, method: str, node: cst.Call, env: Env) -> Any:
        args, kwargs, arg_nodes, kw_nodes = self.call_args(node, env)
        if method in data.STAT_METHODS:
            return self.lazy(OPAQUE, None, node, self.cur_line)
        if method in data.ARRAY_METHODS:
            op = data.ARRAY_METHODS[method]
            if op is None:
                return chain
            values = self.values_of(args, arg_nodes)
            op_args: dict[str, Value] = {}
            if op == "reshape":
                if len(values) == 1:
                    op_args["shape"] = values[0]
                elif values and all(v.kind == CONST for v in values):
                    op_args["shape"] = Value(
                        CONST, [v.value for v in values], text=", ".join(v.text for v in values)
                    )
                elif values:
                    op_args["shape"] = Value(SEQ, None, args=values, text=", ".join(v.text for v in values))
            elif op == "astype" and values:
                op_args["dtype"] = self._dtype(values[0])
            else:
                for i, v in enumerate(values):
                    op_args[f"_{i}"] = v
            op_args.update(self.kwvalues_of(kwargs, kw_nodes))
            return chain.derive(self._op(op, None if op != "map" else method, op_args, node))
        return chain.derive(self._op("call", method, self.kwvalues_of(kwargs, kw_nodes), node))

    def as_chain(self, obj: Any, node: cst.CSTNode | None) -> Any:
        """Data the walker could not follow to a source becomes an opaque chain (kept, with its text)."""
        if isinstance(obj, data.DataChain) or obj is None:
            return obj
        if isinstance(obj, Unknown) or (isinstance(obj, Value) and obj.kind in (NAME, OPAQUE, REF)):
            if isinstance(obj, Unknown) and obj.node is not None:
                text = self.text(obj.node)
            elif isinstance(obj, Value):
                text = obj.text
            else:
                text = self.text(node) if node is not None else "?"
            var = obj.value if isinstance(obj, Value) and obj.kind == NAME else None
            src = DataSource("opaque", text=text, file=self.path, line=self.cur_line)
            return data.DataChain(src, [], var=var)
        return obj

    @staticmethod
    def _dtype(v: Value) -> Value:
        name = v.value if v.kind == CONST else v.value if v.kind == REF else None
        if isinstance(name, str):
            short = name.rsplit(".", 1)[-1]
            return Value(
                CONST, {"float": "float64", "int": "int64"}.get(short, short), text=v.text, line=v.line
            )
        return v

    def scaler_method(self, scaler: data.Scaler, method: str, node: cst.Call, env: Env) -> Any:
        args, kwargs, arg_nodes, kw_nodes = self.call_args(node, env)
        if method in data.SCALER_TRANSFORMS:
            first = self.as_chain(
                args[0] if args else Unknown(node, self.cur_line), arg_nodes[0] if arg_nodes else node
            )
            if not isinstance(first, data.DataChain):
                return Unknown(node, self.cur_line)
            return first.derive(self._op(scaler.op, scaler.cls, {}, node))
        if method == "inverse_transform" and args and isinstance(args[0], data.DataChain):
            return args[0].derive(self._op("inverse_" + scaler.op, scaler.cls, {}, node))
        return scaler if method == "fit" else Unknown(node, self.cur_line)

    def augmenter_method(self, aug: data.Augmenter, method: str, node: cst.Call, env: Env) -> Any:
        args, kwargs, arg_nodes, kw_nodes = self.call_args(node, env)
        if method == "flow":
            x = args[0] if args else kwargs.get("x")
            y = args[1] if len(args) > 1 else kwargs.get("y")
            x = self.as_chain(x, arg_nodes[0] if arg_nodes else node)
            y = self.as_chain(y, arg_nodes[1] if len(arg_nodes) > 1 else node) if y is not None else None
            x = x.derive(aug.op) if isinstance(x, data.DataChain) else x
            extra = {k: self.to_value(v, kw_nodes.get(k)) for k, v in kwargs.items() if k not in ("x", "y")}
            return data.Flow(
                x if isinstance(x, data.DataChain) else None,
                y if isinstance(y, data.DataChain) else None,
                extra,
            )
        if method.startswith("flow_from"):
            first = args[0] if args else None
            name = first.value if isinstance(first, Value) and first.kind == CONST else None
            src = DataSource(
                "generator",
                name=name,
                reader=method,
                text=self.text(node),
                file=self.path,
                line=self.line(node),
            )
            chain = data.DataChain(src, [aug.op], part="x")
            extra = {k: self.to_value(v, kw_nodes.get(k)) for k, v in kwargs.items()}
            return data.Flow(chain, data.DataChain(src, [], part="y"), extra)
        return aug

    def split(self, last: str, node: cst.Call, env: Env) -> Any:
        args, kwargs, arg_nodes, kw_nodes = self.call_args(node, env)
        op_args = self.kwvalues_of(kwargs, kw_nodes)
        op_name = "train_test_split" if last == "train_test_split" else "shuffle"
        out: list[Any] = []
        for a, n in zip(args, arg_nodes, strict=False):
            chain = (
                a
                if isinstance(a, data.DataChain)
                else data.DataChain(
                    DataSource("opaque", text=self.text(n), file=self.path, line=self.line(node)),
                    [],
                    var=self.text(n),
                )
            )
            if op_name == "shuffle":
                out.append(chain.derive(self._op("shuffle", None, op_args, node)))
            else:
                out.append(
                    chain.derive(self._op(op_name, None, {**op_args, "part": Value.const("train")}, node))
                )
                out.append(
                    chain.derive(self._op(op_name, None, {**op_args, "part": Value.const("test")}, node))
                )
        return tuple(out)


def _plain(v: Value) -> Value:
    """A plain :class:`Value` (texts rendered, no reference to the walker or the tree)."""
    args = [_plain(a) for a in v.args]
    kwargs = {k: _plain(a) for k, a in v.kwargs.items()}
    if (
        type(v) is Value
        and all(a is b for a, b in zip(args, v.args, strict=True))
        and all(kwargs[k] is v.kwargs[k] for k in kwargs)
    ):
        return v
    return Value(v.kind, v.value, args, kwargs, text=v.text, line=v.line, implicit=v.implicit)


def _plain_args(args: dict[str, Value]) -> None:
    for k, v in list(args.items()):
        args[k] = _plain(v)


def _materialise(program: ProgramModel) -> None:
    """Replace lazy values in the finished model by plain ones (picklable, JSON-ready)."""
    for m in program.models:
        _plain_args(m.args)
        for layer in m.layers:
            _plain_args(layer.args)
            if layer.inner is not None:
                _plain_args(layer.inner.args)
    for c in program.compiles:
        _plain_args(c.args)
        c.loss = _plain(c.loss) if c.loss is not None else None
        c.metrics = _plain(c.metrics) if c.metrics is not None else None
        if c.optimizer is not None:
            _plain_args(c.optimizer.args)
    for f in [*program.fits, *program.evaluations]:
        _plain_args(f.args)
        if getattr(f, "learning_rate", None) is not None:
            f.learning_rate = _plain(f.learning_rate)
        for cb in f.callbacks:
            _plain_args(cb.args)
    for var in program.data.values():
        for op in var.preprocess:
            _plain_args(op.args)


def _truthy(value: Any) -> bool:
    try:
        return bool(value)
    except Exception:  # noqa: BLE001 - constants are plain Python values; be safe anyway
        return True
