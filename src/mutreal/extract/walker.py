"""The extractor's single pass: a small abstract interpreter over the LibCST tree, with Keras semantics.

:class:`Walker` combines the interpreter (:mod:`mutreal.extract.interpreter`: environment, values,
statements, expressions, calls, user functions and classes) with the Keras semantics it dispatches
to (:mod:`~mutreal.extract.keras_layers`, :mod:`~mutreal.extract.keras_training`,
:mod:`~mutreal.extract.keras_data`) and, in TensorFlow 1 graph code (decided before the walk, see
:func:`~mutreal.extract.names.uses_graph_code`), the graph semantics
(:mod:`~mutreal.extract.tf_graph`, :mod:`~mutreal.extract.tf_graph_training`). This module owns the entry (:meth:`Walker.run`), the era
decided before the walk, and the two dispatch tables from the interpreter to the semantics: named
callables (:meth:`Walker.call_qualified`, :meth:`Walker.call_keras`) and methods on modelled values
(:meth:`Walker.value_method`).

Statements run in source order; calls that matter (``model.add``, ``Dense(..)(x)``, ``compile``,
``fit``, data loaders and preprocessing) update the program model as they are met. Loops with
literal bounds that build layers are unrolled, helper functions are inlined at their call sites (so
a helper called twice builds two models), and functions or classes never called are run once at the
end with unknown arguments, so nothing written in a file is skipped. Anything unresolved stays an
opaque value with its source text.

No metadata providers are used: line numbers come from :func:`~mutreal.extract.lines.line_index`
(Python's ``ast`` of the same text) and names from :class:`~mutreal.extract.names.ImportTable`.
"""

from __future__ import annotations

import ast
import re
from typing import Any

import libcst as cst

from mutreal.extract import data, losses, names, schedules, source_facts
from mutreal.extract import tf_graph_data as tutorial
from mutreal.extract.interpreter.values import (
    ArgParserObj,
    Env,
    EstimatorObj,
    LayerObj,
    ModelObj,
    Unknown,
    materialise,
)
from mutreal.extract.keras_data import DATASET_METHODS
from mutreal.extract.tf_graph import NOT_GRAPH
from mutreal.extract.tf_graph_training import TfGraph
from mutreal.program import keras_api
from mutreal.program.model import CALL, CONST, NAME, OPAQUE, REF, DataSource, Layer, ProgramModel, Value

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

#: methods that make an unknown receiver a model (built elsewhere, or never built in a snippet)
#: methods only an array has (a number, a string or a model has none): the receiver is data even
#: when the walker could not follow it to a source
_ARRAY_ONLY_METHODS = frozenset({"reshape", "astype", "transpose", "swapaxes", "ravel", "squeeze"})


def receiver_is_data(receiver: Unknown | Value) -> bool:
    """An unknown receiver, or a value the walker holds only as a call's result or an unbound name."""
    return isinstance(receiver, Unknown) or receiver.kind in (CALL, OPAQUE, NAME)


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


class Walker(TfGraph):
    """Builds a :class:`ProgramModel` from one LibCST module (see module docstring)."""

    def run(self) -> ProgramModel:
        code = self.lines.code
        self._decide_era_upfront(code)
        env = Env()
        self.exec_block(self.module.body, env)
        self._run_leftovers()
        self._collect_loose_layers()
        materialise(self.program)
        pm = self.program
        if not pm.fits:
            pm.untrained_data = {
                name: value.to_var(name)
                for name, value in env.vars.items()
                if isinstance(value, data.DataChain)
                and value.source is not None
                and not (self.graph_mode and self.graph_tensor_chain(value))
            }
        keras_built = (
            any(m is not self.graph_model_or_none for m in pm.models)
            or any(not self.is_graph_record(r) for r in (*pm.compiles, *pm.fits))
            or self.keras_defined
        )
        pm.loss_functions = {
            n: list(v) for n, v in losses.find_loss_functions(self.lines.code, self.tree).items()
        }
        pm.schedule_functions = {
            n: list(v) for n, v in schedules.find_schedule_functions(self.lines.code, self.tree).items()
        }
        _add_last_lines(self.tree, pm.loss_functions, pm.schedule_functions)
        _add_blocks(self.tree, pm)
        pm.raw_tensorflow = names.uses_raw_tensorflow(self.lines.code, self.imports) or self.graph_mode
        pm.framework = names.framework_of(self.imports, self.keras_seen, keras_built, pm.raw_tensorflow)
        self.finish_graph()
        if self.graph_mode and pm.framework == "tensorflow" and not self.forced_era:
            pm.era = self.era = "tf1"
            pm.era_evidence.append("TensorFlow 1 graph code (placeholders, sessions, tf.train optimizers)")
        pm.imports = dict(self.imports.aliases)
        self._read_source_facts(pm)
        if pm.framework == "tensorflow":
            pm.notes.append("raw TensorFlow code (no Keras model built or trained)")
        elif pm.raw_tensorflow and pm.framework == "keras":
            pm.notes.append(
                "mixes raw TensorFlow (sessions, placeholders, tf.train, GradientTape) with Keras"
            )
        return self.program

    def _read_source_facts(self, pm: ProgramModel) -> None:
        """What the comparison reads as written (:mod:`~mutreal.extract.source_facts`): the
        training-budget literals and the runtime training-data calls (after the walk: their
        training roles come from the fit calls, their callees from the imports)."""
        source = self.source
        if source is None:
            try:
                source = self.module.code
            except RecursionError:  # a tree too deep to regenerate: no facts read from its text
                return
        pm.hyperparameter_literals = source_facts.find_hyperparameter_literals(self.module, source)
        pm.runtime_data_calls = source_facts.find_runtime_data_calls(
            self.module, source, pm.imports, pm.fits, self.path, self.lines.line
        )

    def _decide_era_upfront(self, code: str) -> None:
        """Pick the era before the walk: positional arguments and defaults depend on it."""
        evidence = self.program.era_evidence
        # imports are mostly at the top; a cheap scan of import lines decides the packaging
        for stmt in self.module.body:
            if type(stmt) is cst.SimpleStatementLine:
                for small in stmt.body:
                    if type(small) is cst.Import or type(small) is cst.ImportFrom:
                        self.imports.add(small)
        if names.uses_graph_code(code, self.imports):
            self.enter_graph_mode()
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
        if self.graph_mode:
            self.graph_fragment_names()

    def call_qualified(self, qn: str, node: cst.Call, env: Env) -> Any:
        if qn == "argparse.ArgumentParser":
            self.call_args(node, env)
            return ArgParserObj()
        part = keras_api.keras_module_part(qn)
        last = qn.rsplit(".", 1)[-1]
        if part is not None and last == "model_to_estimator":
            self.keras_seen = True
            return self.make_estimator(node, env)
        if part is not None:
            self.keras_seen = True
            return self.call_keras(part, last, qn, node, env)
        if qn.startswith("tensorflow.") and last in keras_api.TF_TRAIN_OPTIMIZERS:
            return self.make_optimizer(qn, node, env)
        if self.graph_mode:
            built = self.graph_call(qn, node, env)
            if built is not NOT_GRAPH:
                return built
        if qn.endswith(tutorial.LOADER):
            # a Keras program reading MNIST through TensorFlow 1's tutorial loader (a benchmark's
            # local copy in place of the post's loading): the same real data set graph code reads
            values, kwvalues, _, _ = self.call_args(node, env)
            return tutorial.tutorial_source(
                [v for v in values if isinstance(v, Value)],
                {k: v for k, v in kwvalues.items() if isinstance(v, Value)},
                self.text(node),
                self.path,
                self.line(node),
            )
        if last == "numpy_input_fn" and ".estimator." in qn:
            return self.make_input_fn(node, env)
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
        if qn in ("tensorflow.case", "tensorflow.cond"):
            return self.branch_result(qn, node, env)
        if qn.startswith("tensorflow.data.Dataset.from_tensor"):
            args, _, arg_nodes, _ = self.call_args(node, env)
            if args:
                return self.dataset_elements(args[0], arg_nodes[0])
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

    def _unfollowed_array(self, receiver: Unknown | Value, node: cst.Call) -> data.DataChain:
        """An array the walker could not follow to a source (the result of a loader it does not
        know) that the program reshapes or converts: an opaque chain, so the step is kept like the
        steps of any array (``x, y = loader(); x = x.reshape(n, 28, 28, 1)``)."""
        assert isinstance(node.func, cst.Attribute)
        owner = node.func.value
        text = receiver.text if isinstance(receiver, Value) and receiver.text else self.text(owner)
        var = owner.value if type(owner) is cst.Name else None
        src = DataSource("opaque", text=text, file=self.path, line=self.cur_line)
        return data.DataChain(src, [], var=var)

    def value_method(self, receiver: Any, method: str, node: cst.Call, env: Env) -> Any:
        """A method called on a value that is not a user object: models, data chains, scalers,
        augmenters, tf.data pipelines; an unknown receiver of ``fit``/``compile`` is taken as a model."""
        if isinstance(receiver, ModelObj):
            return self.model_method(receiver, method, node, env)
        if isinstance(receiver, EstimatorObj) and method == "train":
            return self.record_estimator_train(receiver, node, env)
        if self.graph_mode:
            built = self.graph_method(receiver, method, node, env)
            if built is not NOT_GRAPH:
                return built
        if isinstance(receiver, data.DataChain):
            return self.chain_method(receiver, method, node, env)
        if isinstance(receiver, tutorial.TutorialData) and method == "next_batch":
            args, kwargs, _, _ = self.call_args(node, env)
            size = kwargs.get("batch_size") or (args[0] if args else None)
            size = size if isinstance(size, Value) else Value(OPAQUE, None)
            batch = receiver.next_batch(self._op("slice", "next_batch", {"batch_size": size}, node))
            return batch if batch is not None else Unknown(node, self.cur_line)
        if isinstance(receiver, data.Scaler):
            return self.scaler_method(receiver, method, node, env)
        if isinstance(receiver, data.Augmenter):
            return self.augmenter_method(receiver, method, node, env)
        if isinstance(receiver, data.Flow) or (
            isinstance(receiver, tuple) and len(receiver) == 2 and method in DATASET_METHODS
        ):
            return self.dataset_method(receiver, method, node, env)
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
            if type(node.func) is cst.Attribute and type(node.func.value) is cst.Name:
                env.set(node.func.value.value, obj)
            self.program.notes.append(f"model {receiver.value!r} used without being built in this file")
            return self.model_method(obj, method, node, env)
        if isinstance(receiver, Unknown | Value) and method in _MODEL_METHODS:
            return self.model_method(None, method, node, env)
        if isinstance(receiver, Value) and receiver.kind == REF:
            return self.call_qualified(f"{receiver.value}.{method}", node, env)
        if method in _ARRAY_ONLY_METHODS and isinstance(receiver, Unknown | Value) and receiver_is_data(receiver):
            return self.chain_method(self._unfollowed_array(receiver, node), method, node, env)
        args, kwargs, _, _ = self.call_args(node, env)
        chain = next((a for a in args if isinstance(a, data.DataChain)), None)
        if chain is not None:
            return chain.derive(self._op("call", method, {}, node))
        return Unknown(node, self.cur_line)


def _add_last_lines(tree: ast.Module | None, *found: dict[str, list]) -> None:
    """Each user function's ``[line, body]`` gains the last line of its body (decision
    value-origins: the component of a rewritten loss or schedule points at its statements)."""
    if tree is None or not any(found):
        return
    last = {
        node.lineno: node.end_lineno
        for node in ast.walk(tree)
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) and node.end_lineno is not None
    }
    for functions in found:
        for entry in functions.values():
            if len(entry) == 2 and entry[0] in last:
                entry.append(last[entry[0]])


#: the blocks that choose or repeat what they hold (a layer built in one is built by its header too)
_BLOCKS = (ast.If, ast.For, ast.AsyncFor, ast.While)


def _add_blocks(tree: ast.Module | None, pm: ProgramModel) -> None:
    """Each layer's ``blocks``: the ``if``/``for``/``while`` headers around the statement that
    builds it, within its function (decision value-origins)."""
    layers = [layer for m in pm.models for layer in m.layers if layer.line is not None]
    if tree is None or not layers:
        return
    around: dict[int, tuple[int, ...]] = {}

    def visit(body: list[ast.stmt], headers: tuple[int, ...]) -> None:
        for node in body:
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
                visit(node.body, ())
                continue
            inner = (*headers, node.lineno) if isinstance(node, _BLOCKS) else headers
            nested = [getattr(node, name, None) for name in ("body", "orelse", "finalbody", "handlers")]
            if any(isinstance(b, list) and b and isinstance(b[0], ast.stmt | ast.excepthandler) for b in nested):
                for b in nested:
                    if isinstance(b, list):
                        visit([x for x in b if isinstance(x, ast.stmt)], inner)
                        for handler in (x for x in b if isinstance(x, ast.excepthandler)):
                            visit(handler.body, inner)
                continue
            if headers:
                for n in range(node.lineno, (node.end_lineno or node.lineno) + 1):
                    around[n] = headers

    visit(tree.body, ())
    for layer in layers:
        found = around.get(layer.line)  # type: ignore[arg-type]
        if found:
            layer.blocks = list(found)
    _add_function_bodies(tree, layers)


_CALLABLE = re.compile(r"^(?:[A-Za-z_]\w*\.)*([A-Za-z_]\w*)$")


def _add_function_bodies(tree: ast.Module, layers: list[Layer]) -> None:
    """A ``Lambda`` layer given a function of the file by name (``Lambda(self.concat_t)``) records
    that function's body lines (:attr:`Layer.function_body`), when one ``def`` has the name."""
    lambdas = [layer for layer in layers if layer.cls == "Lambda"]
    if not lambdas:
        return
    defs: dict[str, list[ast.FunctionDef | ast.AsyncFunctionDef]] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            defs.setdefault(node.name, []).append(node)
    for layer in lambdas:
        given = layer.args.get("function") or layer.args.get("_0")
        match = _CALLABLE.match("".join((given.text if given else "").split()))
        found = defs.get(match.group(1), []) if match else []
        if len(found) == 1 and found[0].body and found[0].end_lineno is not None:
            layer.function_body = [found[0].body[0].lineno, found[0].end_lineno]
