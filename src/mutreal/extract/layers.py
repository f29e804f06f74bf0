"""Layer arguments -> canonical form (names, positional arguments, legacy spellings, value spellings).

The walker hands over a layer call's class name, its positional and keyword argument values (already
folded :class:`~mutreal.program.model.Value` objects) and the era; :func:`normalise_layer_args` returns the
canonical argument dict the program model stores. Value normalisers for activations,
initializers and regularizers are shared with compile (losses use the same shapes).
"""

from __future__ import annotations

from mutreal.program import keras_api
from mutreal.program.model import CALL, CONST, REF, SEQ, Value

#: where a reference's last dotted component names an activation function
_ACTIVATION_MODULES = ("activations", "nn", "math", "keras", "tensorflow", "tf", "backend")


def last_part(name: str) -> str:
    return name.rsplit(".", 1)[-1]


def _renamed(v: Value, value: object, kind: str = CONST) -> Value:
    return Value(
        kind,
        value,
        args=v.args if kind == CALL else [],
        kwargs=v.kwargs if kind == CALL else {},
        text=v.text,
        line=v.line,
    )


def normalise_activation(v: Value) -> Value:
    """``'relu'``, ``activations.relu``, ``tf.nn.relu``, ``None`` -> ``Value(const, 'relu'/'linear')``."""
    if v.kind == CONST and (v.value is None or isinstance(v.value, str)):
        canon = keras_api.canonical_activation(v.value)
        return _renamed(v, canon) if canon else v
    if v.kind == REF and isinstance(v.value, str):
        canon = keras_api.canonical_activation(last_part(v.value))
        if canon:
            return _renamed(v, canon)
    if v.kind == CALL and isinstance(v.value, str):
        name = last_part(v.value)
        act = keras_api.ACTIVATION_LAYERS.get(name)
        if act and not v.args and not v.kwargs:
            return _renamed(v, act)
        if act:
            return Value(CALL, act, args=v.args, kwargs=v.kwargs, text=v.text, line=v.line)
    return v


def normalise_initializer(v: Value) -> Value:
    """``'he_normal'``, ``HeNormal()``, ``initializers.he_normal(seed=1)`` -> canonical name."""
    if v.kind == CONST and isinstance(v.value, str):
        canon = keras_api.canonical_initializer(v.value)
        return _renamed(v, canon) if canon else v
    if v.kind in (REF, CALL) and isinstance(v.value, str):
        canon = keras_api.canonical_initializer(last_part(v.value))
        if canon:
            kwargs = {k: a for k, a in v.kwargs.items() if k != "seed"}
            if v.kind == REF or (not v.args and not kwargs):
                return _renamed(v, canon)
            return Value(CALL, canon, args=v.args, kwargs=kwargs, text=v.text, line=v.line)
    return v


def normalise_regularizer(v: Value) -> Value:
    """``l2(0.01)``, ``regularizers.l2(l=0.01)``, ``L2(l2=0.01)``, ``'l2'`` -> ``Value(call, 'l2', kwargs={'l2': 0.01})``."""
    factor_default = Value.const(keras_api.REGULARIZER_DEFAULT_FACTOR)
    factor_default.implicit = True
    if v.kind == CONST and isinstance(v.value, str):
        kind = keras_api.canonical_regularizer(v.value)
        if kind in ("l1", "l2"):
            return Value(CALL, kind, kwargs={kind: factor_default}, text=v.text, line=v.line)
        if kind == "l1_l2":
            return Value(
                CALL, kind, kwargs={"l1": factor_default, "l2": factor_default}, text=v.text, line=v.line
            )
        return v
    if v.kind == CALL and isinstance(v.value, str):
        kind = keras_api.canonical_regularizer(last_part(v.value))
        if kind in ("l1", "l2"):
            factor = v.args[0] if v.args else v.kwargs.get(kind, v.kwargs.get("l", factor_default))
            return Value(CALL, kind, kwargs={kind: factor}, text=v.text, line=v.line)
        if kind == "l1_l2":
            zero = Value.const(0.0)
            zero.implicit = True
            l1 = v.args[0] if v.args else v.kwargs.get("l1", zero)
            l2 = v.args[1] if len(v.args) > 1 else v.kwargs.get("l2", zero)
            # l1_l2 with one factor zero is the plain regularizer
            if l1.kind == CONST and l1.value == 0:
                return Value(CALL, "l2", kwargs={"l2": l2}, text=v.text, line=v.line)
            if l2.kind == CONST and l2.value == 0:
                return Value(CALL, "l1", kwargs={"l1": l1}, text=v.text, line=v.line)
            return Value(CALL, kind, kwargs={"l1": l1, "l2": l2}, text=v.text, line=v.line)
    return v


def _tuple_arg(v: Value, rank: int | None) -> Value:
    """An int where Keras expects an N-tuple means the same int in every dimension."""
    if v.kind != CONST:
        return v
    if isinstance(v.value, int) and not isinstance(v.value, bool) and rank:
        return _renamed(v, [v.value] * rank)
    if isinstance(v.value, tuple):
        return _renamed(v, list(v.value))
    return v


def _shape(v: Value) -> Value:
    """Shapes compare as lists; ``(784,)`` and ``[784]`` and ``784`` (Keras 1 style) are equal."""
    if v.kind == CONST and isinstance(v.value, int) and not isinstance(v.value, bool):
        return _renamed(v, [v.value])
    if v.kind == CONST and isinstance(v.value, tuple):
        return _renamed(v, list(v.value))
    return v


def normalise_layer_args(
    cls: str, args: list[Value], kwargs: dict[str, Value], era: str
) -> tuple[dict[str, Value], list[str]]:
    """Canonical argument dict for a layer call and the legacy spellings met (era evidence).

    ``Convolution2D(32, 3, 3)`` in Keras 1 gives ``filters=32, kernel_size=[3, 3]``, and so does
    standalone Keras 2 (its legacy interface converted three integers to filters, rows, cols); in
    tf.keras and Keras 3 it gives ``filters=32, kernel_size=[3, 3], strides=[3, 3]`` (what they
    really do with it).
    """
    out: dict[str, Value] = {}
    legacy: list[str] = []
    params = keras_api.positional_params(cls, era)
    if (
        era == "keras2"
        and cls == "Conv2D"
        and len(args) == 3
        and all(a.kind == CONST and isinstance(a.value, int) and not isinstance(a.value, bool) for a in args)
    ):
        # standalone Keras 2 kept Keras 1's Conv2D(filters, rows, cols) through its legacy interface
        params = keras_api.positional_params(cls, "keras1")
        legacy.append("nb_row")
    rows_cols: dict[str, Value] = {}
    for i, v in enumerate(args):
        name = params[i] if i < len(params) else f"_{i}"
        if name in ("_rows", "_cols", "_dim1", "_dim2", "_dim3"):
            rows_cols[name] = v
        else:
            out[name] = v
    for key, v in kwargs.items():
        if key in ("nb_row", "nb_col", "kernel_dim1", "kernel_dim2", "kernel_dim3"):
            rows_cols[{"nb_row": "_rows", "nb_col": "_cols"}.get(key, "_" + key[7:])] = v
            legacy.append(key)
            continue
        canon = keras_api.canonical_kwarg(cls, key, era)
        if canon != key:
            legacy.append(key)
        out[canon] = v
    if rows_cols:
        parts = [rows_cols[k] for k in ("_rows", "_cols", "_dim1", "_dim2", "_dim3") if k in rows_cols]
        if all(p.kind == CONST for p in parts):
            out["kernel_size"] = Value(
                CONST, [p.value for p in parts], text=", ".join(p.text for p in parts), line=parts[0].line
            )
        else:
            out["kernel_size"] = Value(
                SEQ, None, args=parts, text=", ".join(p.text for p in parts), line=parts[0].line
            )
    # input_dim / input_length / batch_input_shape -> input_shape
    if cls != "Embedding" and "input_dim" in out:
        dim = out.pop("input_dim")
        length = out.pop("input_length", None)
        if dim.kind == CONST and (length is None or length.kind == CONST):
            shape = [dim.value] if length is None else [length.value, dim.value]
            text = dim.text if length is None else f"{length.text}, {dim.text}"
            out["input_shape"] = Value(CONST, shape, text=text, line=dim.line)
        else:
            out["input_shape"] = (
                dim if length is None else Value(SEQ, None, args=[length, dim], text=dim.text)
            )
    if "batch_input_shape" in out and "input_shape" not in out:
        b = out.pop("batch_input_shape")
        if b.kind == CONST and isinstance(b.value, list | tuple) and b.value:
            out["input_shape"] = Value(CONST, list(b.value[1:]), text=b.text, line=b.line)
            out["batch_size"] = Value(CONST, b.value[0], text=b.text, line=b.line)
        else:
            out["batch_input_shape"] = b
    rank = keras_api._layer_rank(cls)
    for key in list(out):
        v = out[key]
        if key in ("activation", "recurrent_activation"):
            out[key] = normalise_activation(v)
        elif key.endswith("_initializer"):
            out[key] = normalise_initializer(v)
        elif key.endswith("_regularizer"):
            out[key] = normalise_regularizer(v)
        elif key in keras_api.TUPLE_ARGS or (
            key == "padding" and cls.startswith(("ZeroPadding", "Cropping"))
        ):
            out[key] = _tuple_arg(v, rank)
        elif key in ("input_shape", "target_shape", "shape", "dims"):
            out[key] = _shape(v)
        elif (
            key == "data_format"
            and v.kind == CONST
            and isinstance(v.value, str)
            and v.value in keras_api.DATA_FORMAT_VALUES
        ):
            out[key] = _renamed(v, keras_api.DATA_FORMAT_VALUES[v.value])
        elif key == "use_bias" and v.kind == CONST and isinstance(v.value, int):
            out[key] = _renamed(v, bool(v.value))
    return out, legacy
