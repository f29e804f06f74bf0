"""``tf.contrib`` and ``tensorflow.examples`` for TensorFlow 1 programs, served from where that API lives today.

TensorFlow 2 removed ``tf.contrib`` and no longer ships ``tensorflow.examples``, so a TensorFlow 1
program that imports them crashes at its first line, long before its fault is reached.
``tf_upgrade_v2`` (:mod:`mutreal.compat.tf_upgrade`) already renames the ``tf.contrib`` names that
kept a home with the same signature (``tf.contrib.rnn.BasicLSTMCell`` ->
``tf.compat.v1.nn.rnn_cell.BasicLSTMCell``, ``tf.contrib.framework.list_variables`` ->
``tf.train.list_variables``); this module does not repeat its tables. What the converter leaves --
whole-module imports (``from tensorflow.contrib import rnn``), ``tf.contrib.slim``,
``tf.contrib.layers.fully_connected``, ``tensorflow.examples.tutorials.mnist.input_data`` -- is served
at run time by an import hook (:class:`ContribFinder`) that the workers of TensorFlow 1-era programs
(frameworks ``tf1`` and ``tf_keras``) install, so the program's own helper modules (never converted)
are covered too. :data:`MODULES` is the whole table:

* ``slim``, ``layers``, ``framework``, ``losses``, ``metrics``: the ``tf-slim`` package, the maintained
  successor of ``tf.contrib.slim`` and of ``tf.contrib.layers``' layers, initializers and regularizers
  (and of contrib's losses and metrics, whose signatures differ from ``tf.compat.v1``'s);
* ``rnn``: ``tf.compat.v1.nn.rnn_cell`` and the static RNN functions of ``tf.compat.v1.nn``;
* ``distributions``, ``lookup``: their ``tf.compat.v1`` modules;
* ``keras``: ``tf.keras`` of the worker (Keras 2, ``tf_keras``, as ``tf.contrib.keras`` was);
* ``legacy_seq2seq``: its two basic functions, written here (no maintained home exists);
* ``eager``: ``Iterator`` (``iter`` over a data set, as eager execution is today's default).

What the table does not serve (``tf.contrib.learn``'s Estimators: TensorFlow 2.16 removed
``tf.estimator``) fails with a ``No module named 'tensorflow.contrib.…'`` error that says so.
Which contrib modules a program uses is listed in its run's rewrites (:func:`contrib_uses`).
"""

from __future__ import annotations

import copy
import importlib
import importlib.abc
import importlib.machinery
import importlib.util
import re
import sys
from types import ModuleType
from typing import Any

PACKAGE = "tensorflow.contrib"
#: the MNIST tutorial reader of TensorFlow 1 (``tensorflow/examples/tutorials/mnist/input_data.py``)
EXAMPLES = "tensorflow.examples"
MNIST_READER = "mutreal.compat.tf1_mnist"

_RNN = (
    "tensorflow.compat.v1.nn.rnn_cell",
    {
        "static_rnn": "tensorflow.compat.v1.nn.static_rnn",
        "static_bidirectional_rnn": "tensorflow.compat.v1.nn.static_bidirectional_rnn",
        "static_state_saving_rnn": "tensorflow.compat.v1.nn.static_state_saving_rnn",
    },
)
#: contrib module (below ``tensorflow.contrib``) -> (the module whose public names it has, or None;
#: {further name: where it lives today}). A sub-module not listed resolves below its listed parent's
#: module (``keras.api.keras.preprocessing`` -> ``tensorflow.keras.preprocessing``).
MODULES: dict[str, tuple[str | None, dict[str, str]]] = {
    "slim": ("tf_slim", {}),
    "layers": ("tf_slim", {}),
    "layers.python.layers": ("tf_slim.layers", {}),
    "framework": (
        "tf_slim",
        {"list_variables": "tensorflow.train.list_variables", "load_variable": "tensorflow.train.load_variable"},
    ),
    "rnn": _RNN,
    "rnn.python.ops.rnn": _RNN,
    "rnn.python.ops.rnn_cell": _RNN,
    "distributions": ("tensorflow.compat.v1.distributions", {}),
    "lookup": ("tensorflow.compat.v1.lookup", {"MutableHashTable": "tensorflow.lookup.experimental.MutableHashTable"}),
    "losses": ("tf_slim.losses", {}),  # contrib's order (logits first), not tf.compat.v1.losses'
    "metrics": ("tf_slim.metrics", {}),  # contrib's streaming_* metrics
    "keras": ("tensorflow.keras", {}),
    "keras.api.keras": ("tensorflow.keras", {}),
    "legacy_seq2seq": (
        None,
        {"rnn_decoder": f"{__name__}.rnn_decoder", "basic_rnn_seq2seq": f"{__name__}.basic_rnn_seq2seq"},
    ),
    "eager": (None, {"Iterator": "builtins.iter"}),
}
#: contrib modules known to be gone for good, and why (said in the import error and the rewrites)
GONE = {
    "learn": "tf.contrib.learn's Estimators left with tf.estimator (removed in TensorFlow 2.16)",
}


def import_prefix(dotted: str) -> tuple[ModuleType, list[str]] | None:
    """The module of the longest importable prefix of ``dotted`` and the attribute names after it;
    None where no prefix imports. Only ``ImportError`` means "not this prefix": any other error of an
    import is left to the caller. One search for :func:`resolve` and for the check of the names a
    mutant writes (:mod:`mutreal.mutation.operators.written_names`)."""
    parts = dotted.split(".")
    for cut in range(len(parts), 0, -1):
        try:
            module = importlib.import_module(".".join(parts[:cut]))
        except ImportError:
            continue
        return module, parts[cut:]
    return None


def resolve(dotted: str) -> Any:
    """The object ``dotted`` names: the longest importable module prefix, then attributes."""
    prefix = import_prefix(dotted)
    if prefix is None:
        raise ImportError(f"cannot resolve {dotted!r}")
    found: Any = prefix[0]
    for name in prefix[1]:
        found = getattr(found, name)
    return found


def _entry(relative: str) -> tuple[str, str | None, dict[str, str]] | None:
    """(table key, its base module, extras) of the longest listed prefix of ``relative``; the base
    module extended by the unlisted rest."""
    parts = relative.split(".")
    for cut in range(len(parts), 0, -1):
        key = ".".join(parts[:cut])
        if key in MODULES:
            base, extras = MODULES[key]
            rest = parts[cut:]
            if rest:
                return key, (".".join([base, *rest]) if base else None), {}
            return key, base, extras
    return None


def _missing(fullname: str, why: str) -> ModuleNotFoundError:
    return ModuleNotFoundError(f"No module named {fullname!r} ({why})", name=fullname)


def build(fullname: str) -> ModuleType:
    """The module a TensorFlow 1 program imports as ``fullname`` (``tensorflow.contrib...`` or
    ``tensorflow.examples...``), assembled from :data:`MODULES`."""
    if fullname in (EXAMPLES, f"{EXAMPLES}.tutorials", f"{EXAMPLES}.tutorials.mnist"):
        module = ModuleType(fullname, "TensorFlow 1's tutorial packages (only the MNIST reader is served)")
        module.__path__ = []  # a package: its children are found by ContribFinder
        return module
    if fullname == f"{EXAMPLES}.tutorials.mnist.input_data":
        return importlib.import_module(MNIST_READER)
    if fullname == PACKAGE:
        return _contrib_package()
    relative = fullname[len(PACKAGE) + 1 :]
    top = relative.split(".")[0]
    if top in GONE:
        raise _missing(fullname, GONE[top])
    entry = _entry(relative)
    if relative not in MODULES and any(key.startswith(relative + ".") for key in MODULES):
        module = ModuleType(fullname, "a package on the way to a served tf.contrib module")
        module.__path__ = []  # ``tensorflow.contrib.rnn.python`` of ``...rnn.python.ops.rnn``
        return module
    if entry is None:
        raise _missing(fullname, "tf.contrib was removed in TensorFlow 2; mutreal serves only " + ", ".join(sorted(MODULES)))
    _key, base, extras = entry
    module = ModuleType(fullname, f"tf.contrib.{relative} as served by mutreal from {base or 'its own code'}")
    module.__path__ = []
    if base is not None:
        try:
            target = resolve(base)
        except (ImportError, AttributeError) as error:
            raise _missing(fullname, f"its successor {base} is not available: {error}") from error
        names = getattr(target, "__all__", None) or [n for n in dir(target) if not n.startswith("_")]
        for name in names:
            try:
                module.__dict__[name] = getattr(target, name)
            except AttributeError:
                continue
    for name, where in extras.items():
        module.__dict__[name] = resolve(where)
    return module


def _contrib_package() -> ModuleType:
    package = ModuleType(PACKAGE, "tf.contrib as served by mutreal (mutreal.compat.tf1_contrib)")
    package.__path__ = []
    children = sorted({key.split(".")[0] for key in MODULES})
    package.__all__ = children  # type: ignore[attr-defined] - ``from tensorflow.contrib import *``

    def __getattr__(name: str) -> Any:  # noqa: N807 - PEP 562: ``tf.contrib.rnn`` without an import
        if name in children or name in GONE:
            return importlib.import_module(f"{PACKAGE}.{name}")
        raise AttributeError(f"module {PACKAGE!r} has no attribute {name!r} (tf.contrib was removed in TensorFlow 2)")

    package.__getattr__ = __getattr__  # type: ignore[attr-defined]
    return package


class _Loader(importlib.abc.Loader):
    def create_module(self, spec: importlib.machinery.ModuleSpec) -> ModuleType:
        return build(spec.name)

    def exec_module(self, module: ModuleType) -> None:  # built complete by create_module
        return None


class ContribFinder(importlib.abc.MetaPathFinder):
    """``tensorflow.contrib[.…]`` and ``tensorflow.examples[.…]`` imported from :func:`build`."""

    def find_spec(self, fullname: str, path: Any, target: Any = None) -> importlib.machinery.ModuleSpec | None:
        if not any(fullname == root or fullname.startswith(root + ".") for root in (PACKAGE, EXAMPLES)):
            return None
        return importlib.util.spec_from_loader(fullname, _Loader(), is_package=True)


def install() -> None:
    """Serve ``tensorflow.contrib`` and ``tensorflow.examples`` in this process from now on, and
    give ``tf.contrib`` to programs that reach it as an attribute (idempotent)."""
    if not any(isinstance(finder, ContribFinder) for finder in sys.meta_path):
        sys.meta_path.insert(0, ContribFinder())
    import tensorflow as tf

    if "contrib" not in tf.__dict__:
        tf.contrib = importlib.import_module(PACKAGE)  # type: ignore[attr-defined]


# --- tf.contrib.legacy_seq2seq: the two basic functions, as TensorFlow 1.x defined them -------------


def rnn_decoder(decoder_inputs: list[Any], initial_state: Any, cell: Any, loop_function: Any = None,
                scope: Any = None) -> tuple[list[Any], Any]:  # fmt: skip
    """Run ``cell`` over ``decoder_inputs`` from ``initial_state`` (one list entry per step); with
    ``loop_function``, each step after the first reads ``loop_function(previous output, step)``."""
    import tensorflow as tf

    v1 = tf.compat.v1
    with v1.variable_scope(scope or "rnn_decoder"):
        state, outputs, previous = initial_state, [], None
        for step, value in enumerate(decoder_inputs):
            if loop_function is not None and previous is not None:
                with v1.variable_scope("loop_function", reuse=True):
                    value = loop_function(previous, step)
            if step > 0:
                v1.get_variable_scope().reuse_variables()
            output, state = cell(value, state)
            outputs.append(output)
            if loop_function is not None:
                previous = output
    return outputs, state


def basic_rnn_seq2seq(encoder_inputs: list[Any], decoder_inputs: list[Any], cell: Any, dtype: Any = None,
                      scope: Any = None) -> tuple[list[Any], Any]:  # fmt: skip
    """Encode ``encoder_inputs`` with a copy of ``cell``; decode ``decoder_inputs`` from its final state."""
    import tensorflow as tf

    v1 = tf.compat.v1
    with v1.variable_scope(scope or "basic_rnn_seq2seq"):
        _, state = v1.nn.static_rnn(copy.deepcopy(cell), encoder_inputs, dtype=dtype or tf.float32)
        return rnn_decoder(decoder_inputs, state, cell)


# --- what a program uses, for its run's rewrites ---------------------------------------------------

_USE = re.compile(
    r"\b(?:tf|tensorflow)\.contrib\.(\w+(?:\.\w+)*)|\bfrom\s+tensorflow\.contrib(?:\.(\w+(?:\.\w+)*))?\s+import[ \t]+([\w \t,*()]+)"
    r"|\btensorflow\.examples\.tutorials\.mnist\b"
)


def uses_removed_modules(source: str) -> bool:
    """Does ``source`` reach ``tf.contrib`` or ``tensorflow.examples`` (TensorFlow 1-era code)?"""
    return bool(_USE.search(source))


def _described(relative: str) -> str:
    top = relative.split(".")[0]
    if top in GONE:
        return f"tf.contrib.{top}: not served ({GONE[top]})"
    key = _longest_listed(relative)
    if key not in MODULES:
        return f"tf.contrib.{top}: not served (no successor in mutreal's table)"
    base, extras = MODULES[key]
    where = ", ".join(filter(None, [base, *(f"{name}={target}" for name, target in extras.items())]))
    return f"tf.contrib.{key}: served at run time from {where} (mutreal.compat.tf1_contrib)"


def contrib_uses(source: str) -> list[str]:
    """One line per ``tf.contrib`` module (and the MNIST tutorial reader) ``source`` uses: where
    the worker's import hook serves it from, or why it cannot."""
    lines: list[str] = []
    for match in _USE.finditer(source):
        attribute, module, imported = match.groups()
        if match.group(0).startswith("tensorflow.examples"):
            found = ["tensorflow.examples.tutorials.mnist: served at run time by " + MNIST_READER]
        elif attribute is not None:
            found = [_described(attribute)]
        else:  # from tensorflow.contrib[.module] import name [as alias], ...
            names = [part.split()[0] for part in (imported or "").replace("(", " ").replace(")", " ").split(",")
                     if part.split() and part.split()[0] != "*"]  # fmt: skip
            prefix = f"{module}." if module else ""
            if module is None and not names:  # ``from tensorflow.contrib import *``
                names = sorted({key.split(".")[0] for key in MODULES})
            found = [_described(prefix + n if (prefix + n) in MODULES or not module else module) for n in names]
            found = found or [_described(module or "")]
        lines.extend(line for line in found if line not in lines)
    return lines


def _longest_listed(relative: str) -> str:
    """``relative`` cut to its longest prefix listed in :data:`MODULES` (attributes dropped)."""
    parts = relative.split(".")
    for cut in range(len(parts), 0, -1):
        if ".".join(parts[:cut]) in MODULES:
            return ".".join(parts[:cut])
    return parts[0]
