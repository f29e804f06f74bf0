"""Keras semantics, data: datasets, file readers, arrays, preprocessing, scalers, augmenters, splits.

Every array a program trains on is followed from its source (:class:`~mutreal.program.model.DataSource`)
through its preprocessing steps (:class:`~mutreal.program.model.DataOp`) as a
:class:`~mutreal.extract.data.DataChain`; ``tf.data`` pipelines and generator flows as
:class:`~mutreal.extract.data.Flow`.
"""

from __future__ import annotations

import math
from typing import Any

import libcst as cst

from mutreal.extract import data, names
from mutreal.extract.interpreter.calls import CallInterpreter
from mutreal.extract.interpreter.values import (
    Env,
    FuncObj,
    Unknown,
)
from mutreal.program.model import (
    CONST,
    NAME,
    OPAQUE,
    REF,
    SEQ,
    DataSource,
    Value,
)

#: tf.data.Dataset methods (a pipeline over the training arrays)
DATASET_METHODS = frozenset(
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
        "apply",
    }
)


class KerasData(CallInterpreter):
    """Data sources and preprocessing steps (see module docstring)."""

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

    def dataset_method(self, receiver: data.Flow | tuple, method: str, node: cst.Call, env: Env) -> Any:
        """A ``tf.data`` method (``batch``, ``shuffle``, ``map``...) on a pipeline over (x, y): the
        batch size is kept for ``fit``; steps that reorder or select apply to both arrays."""
        if isinstance(receiver, tuple):
            # tf.data pipeline over (x, y): a flow of both arrays
            x, y = receiver
            receiver = data.Flow(
                x if isinstance(x, data.DataChain) else None, y if isinstance(y, data.DataChain) else None, {}
            )
        if method == "apply" and receiver.x is not None:
            mapped = self._map_and_batch(receiver, node, env)
            if mapped is not None:
                return mapped
        if method not in DATASET_METHODS:
            self.call_args(node, env)
            return receiver
        if method == "map" and receiver.x is not None:
            mapped = self.follow_map(receiver, _map_function(node), env)
            if mapped is not None:
                self.call_args(node, env)
                return mapped
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

    def dataset_elements(self, elements: Any, node: cst.CSTNode) -> Any:
        """``Dataset.from_tensor_slices((a, b))``: the pipeline's (x, y). Elements the walker cannot
        follow to a source (lists of file names read later by a mapped function) become opaque
        chains, so the steps a mapped function applies to them are still seen."""
        if isinstance(elements, Value) and elements.kind == SEQ:
            elements = tuple(elements.args)
        if not isinstance(elements, tuple | list) or isinstance(elements, Value) or len(elements) != 2:
            return elements
        nodes = list(node.elements) if isinstance(node, cst.Tuple | cst.List) else []
        if len(nodes) != 2:
            return elements
        return tuple(self.as_chain(e, n.value) for e, n in zip(elements, nodes, strict=True))

    def branch_result(self, qn: str, node: cst.Call, env: Env) -> Any:
        """``tf.cond(p, lambda: a, lambda: b)`` / ``tf.case([(p, lambda: a)], default=lambda: b)``
        (a random flip of an image): the array either branch returns, so the chain of a mapped
        function's element is not lost at a branch both programs share. The step is one ``call``."""
        self.call_args(node, env)
        lambdas = [n for n in _lambdas(node) if not n.params.params]
        for branch in reversed(lambdas):  # the default / false branch first
            chain = self.ev(branch.body, env)
            if isinstance(chain, data.DataChain):
                return chain.derive(self._op("call", qn, {}, node))
        return Unknown(node, self.cur_line)

    def follow_map(self, flow: data.Flow, fn_node: cst.BaseExpression | None, env: Env) -> data.Flow | None:
        """``ds.map(fn)`` with a function of this program (a ``def`` or a lambda): the function runs
        with the pipeline's elements, so a normalisation, resize or encoding inside it is a step of
        those arrays as it would be outside it. None when the function is not the program's or does
        not hand the elements back (then the step stays an opaque ``map``)."""
        if fn_node is None:
            return None
        inputs = [c for c in (flow.x, flow.y) if c is not None]
        if type(fn_node) is cst.Lambda:
            params = fn_node.params.params
            if len(params) != len(inputs) or fn_node.params.star_arg not in (cst.MaybeSentinel.DEFAULT, None):
                return None
            local = Env(env)
            for p, chain in zip(params, inputs, strict=True):
                local.set(p.name.value, chain)
            result = self.ev(fn_node.body, local)
        else:
            fn = self.ev(fn_node, env)
            if not isinstance(fn, FuncObj):
                return None
            result = self.inline(fn, None, env, None, given=inputs)
        outputs = list(result) if isinstance(result, list | tuple) and not isinstance(result, Value) else [result]
        if len(outputs) != len(inputs):
            return None
        followed = [
            out if isinstance(out, data.DataChain) and out.source is chain.source else None
            for out, chain in zip(outputs, inputs, strict=True)
        ]
        if followed[0] is None:
            return None
        y = followed[1] if flow.y is not None and len(followed) > 1 else flow.y
        return data.Flow(followed[0], y if y is not None else flow.y, flow.kwargs)

    def _map_and_batch(self, flow: data.Flow, node: cst.Call, env: Env) -> data.Flow | None:
        """``ds.apply(tf.data.experimental.map_and_batch(map_func=fn, batch_size=n))``: the map
        followed as :meth:`follow_map` and the batch size kept."""
        inner = node.args[0].value if node.args else None
        if type(inner) is not cst.Call or not (names.dotted(inner.func) or "").endswith("map_and_batch"):
            return None
        fn_node = _map_function(inner, "map_func")
        mapped = self.follow_map(flow, fn_node, env)
        if mapped is None:
            return None
        _, kwargs, _, kw_nodes = self.call_args(inner, env)
        size = self.kwvalues_of(kwargs, kw_nodes).get("batch_size")
        positional = [a for a in inner.args if a.keyword is None]
        if size is None and len(positional) > 1:
            size = self.to_value(self.ev(positional[1].value, env), positional[1].value)
        return data.Flow(mapped.x, mapped.y, {**mapped.kwargs, **({"batch_size": size} if size else {})})


def _lambdas(node: cst.CSTNode) -> list[cst.Lambda]:
    """Every lambda among a call's arguments (also inside lists and tuples), in source order."""
    found: list[cst.Lambda] = []

    class _Collect(cst.CSTVisitor):
        def visit_Lambda(self, lam: cst.Lambda) -> bool:
            found.append(lam)
            return False

    for arg in getattr(node, "args", ()):
        arg.value.visit(_Collect())
    return found


def _map_function(node: cst.Call, keyword: str = "map_func") -> cst.BaseExpression | None:
    """The function argument of ``map(fn)`` / ``map(map_func=fn)`` / ``map_and_batch(fn, n)``."""
    for arg in node.args:
        if arg.keyword is not None and arg.keyword.value == keyword:
            return arg.value
    positional = [a for a in node.args if a.keyword is None]
    return positional[0].value if positional else None
