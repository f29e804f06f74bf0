"""A worker's framework, set up once in the worker process before TensorFlow is imported.

A process that imported Keras 3 cannot switch to Keras 2 (``tf_keras``), and graph mode
(``tf.compat.v1.disable_v2_behavior``) is for the whole process, so the framework is part of a
worker's identity, like its TensorFlow thread count: a worker runs one of
:data:`mutreal.compat.framework_choice.FRAMEWORKS` for its life, and a task that needs another one is run
by a worker started for it (:class:`mutreal.execution.worker_process.WorkerProcess`).

``tf_keras`` and ``tf1`` workers get ``TF_USE_LEGACY_KERAS=1`` in their environment (so ``tf.keras``
is ``tf_keras``) and resolve every ``import keras`` / ``from keras.x import`` to ``tf_keras`` with an
import hook (:class:`KerasAlias`), so a program, the modules of its folder it imports and anything
imported at run time (``importlib``) see one Keras 2. The hook, unlike a rewrite of the program's
import lines, also covers the program's own helper modules. A Keras 2 sub-module whose names its package
re-exported (``keras.layers.core``, ``keras.utils.np_utils``) resolves to that public package of
tf_keras; any other name Keras 2 kept only internally resolves to ``tf_keras.src``'s module of that name.
"""

from __future__ import annotations

import contextlib
import importlib
import importlib.abc
import importlib.machinery
import importlib.util
import os
import sys
from types import ModuleType
from typing import Any

#: what each framework's worker adds to its environment before it starts
ENVIRONMENT: dict[str, dict[str, str]] = {
    "keras3": {},
    "tf_keras": {"TF_USE_LEGACY_KERAS": "1"},
    "tf1": {"TF_USE_LEGACY_KERAS": "1"},
}
#: variables a framework's worker must not inherit from the caller (a keras3 worker with the caller's
#: ``TF_USE_LEGACY_KERAS=1`` would give its programs ``tf_keras`` as ``tf.keras``)
CLEARED: dict[str, tuple[str, ...]] = {"keras3": ("TF_USE_LEGACY_KERAS",), "tf_keras": (), "tf1": ()}
DEFAULT = "keras3"


def environment_for(framework: str, base: dict[str, str]) -> dict[str, str]:
    """``base`` with ``framework``'s variables set and those it must not inherit removed."""
    env = {k: v for k, v in base.items() if k not in CLEARED.get(framework, ())}
    env.update(ENVIRONMENT.get(framework, {}))
    return env


class _AliasLoader(importlib.abc.Loader):
    def __init__(self, target: str) -> None:
        self.target = target

    def create_module(self, spec: importlib.machinery.ModuleSpec) -> ModuleType:
        return importlib.import_module(self.target)

    def exec_module(self, module: ModuleType) -> None:  # already executed under its own name
        return None


class KerasAlias(importlib.abc.MetaPathFinder):
    """``keras`` and ``keras.*`` imported as ``tf_keras`` and ``tf_keras.*`` (else ``tf_keras.src.*``)."""

    def find_spec(self, fullname: str, path: Any, target: Any = None) -> importlib.machinery.ModuleSpec | None:
        if fullname != "keras" and not fullname.startswith("keras."):
            return None
        rest = fullname[len("keras") :]
        moved = _moved_to(rest[1:])
        for candidate in (f"tf_keras{rest}", f"tf_keras.{moved}" if moved else None,
                          f"tf_keras.src{rest}" if rest else None):  # fmt: skip
            if candidate is None:
                continue
            try:
                found = importlib.util.find_spec(candidate)
            except (ImportError, ValueError):
                found = None
            if found is not None:
                return importlib.util.spec_from_loader(fullname, _AliasLoader(candidate))
        return None


def _moved_to(path: str) -> str | None:
    """The public package a Keras 2 sub-module's contents live in (``layers.normalization`` ->
    ``layers``): Keras 2's package ``__init__`` re-exported every public name of these sub-modules, and
    tf_keras keeps some of them only as internal modules that no longer hold those names (its
    ``src.layers.normalization`` is a package of sub-modules), others not at all (``layers.recurrent``)."""
    from mutreal.compat.modernize import MOVED_MODULES

    return MOVED_MODULES.get(path)


def install_keras_alias() -> None:
    """Resolve ``keras`` to ``tf_keras`` in this process from now on (idempotent)."""
    if not any(isinstance(finder, KerasAlias) for finder in sys.meta_path):
        for name in [n for n in sys.modules if n == "keras" or n.startswith("keras.")]:
            del sys.modules[name]  # nothing of Keras 3 may be reused under the alias
        sys.meta_path.insert(0, KerasAlias())


def _predict_classes(self: Any, x: Any, batch_size: int = 32, verbose: int = 0) -> Any:
    """Keras 2.5's ``Sequential.predict_classes`` (removed in 2.6): argmax, or > 0.5 for one output."""
    proba = self.predict(x, batch_size=batch_size, verbose=verbose)
    if proba.shape[-1] > 1:
        return proba.argmax(axis=-1)
    return (proba > 0.5).astype("int32")


def _predict_proba(self: Any, x: Any, batch_size: int = 32, verbose: int = 0) -> Any:
    """Keras 2.5's ``Sequential.predict_proba`` (removed in 2.6): the predictions."""
    return self.predict(x, batch_size=batch_size, verbose=verbose)


def _count_outputs_after_build() -> None:
    """SciKeras counts a model's outputs before fitting it; a ``Sequential`` written without an input
    shape has none until its first batch, which Keras 2's own wrapper never asked for. Such a model is
    let through (Keras checks its output against the labels on the first batch, as it did then)."""
    from scikeras.wrappers import BaseWrapper

    original = BaseWrapper._check_model_compatibility
    if getattr(original, "_mutreal_unbuilt_ok", False):
        return

    def check(self: Any, y: Any) -> None:
        expected = getattr(self, "n_outputs_expected_", None)
        if expected and getattr(getattr(self, "model_", None), "outputs", None) is None:
            self.n_outputs_expected_ = None  # nothing to count yet
            try:
                return original(self, y)
            finally:
                self.n_outputs_expected_ = expected
        return original(self, y)

    check._mutreal_unbuilt_ok = True  # type: ignore[attr-defined]
    BaseWrapper._check_model_compatibility = check


def restore_removed_methods() -> None:
    """Give tf_keras' ``Sequential`` the Keras 2 methods removed in 2.6 (``predict_classes``,
    ``predict_proba``) with their last definition, so a program written for Keras 2.0-2.5 runs,
    ``tf.keras`` the ``__version__`` it had, its backend the Keras 2 names it lost, and its models the
    ``compiled`` SciKeras reads."""
    import tf_keras

    for name, method in (("predict_classes", _predict_classes), ("predict_proba", _predict_proba)):
        if not hasattr(tf_keras.Sequential, name):
            setattr(tf_keras.Sequential, name, method)
    import tensorflow as tf

    # Keras 2's backend API that tf_keras keeps only in TensorFlow's v1 namespace (K.get_session /
    # K.set_session), and the ``tf`` module Keras <= 2.2's TensorFlow backend exposed (``K.tf.clip_by_value``)
    with contextlib.suppress(Exception):
        for name in ("get_session", "set_session"):
            if not hasattr(tf_keras.backend, name):
                setattr(tf_keras.backend, name, getattr(tf.compat.v1.keras.backend, name))
        if not hasattr(tf_keras.backend, "tf"):
            tf_keras.backend.tf = tf
    # SciKeras, the maintained successor of keras.wrappers.scikit_learn, asks a model ``compiled`` (Keras
    # 3's name); tf_keras knows the same fact as ``_is_compiled``
    if not hasattr(tf_keras.Model, "compiled"):
        tf_keras.Model.compiled = property(lambda self: bool(getattr(self, "_is_compiled", False)))

    with contextlib.suppress(ImportError):
        _count_outputs_after_build()

    with contextlib.suppress(Exception):  # ``from tensorflow import keras; keras.__version__`` as in Keras 2
        if not hasattr(tf.keras, "__version__"):
            tf.keras.__version__ = tf_keras.__version__


def tf1_names_fallback() -> None:
    """``tf.X`` that TensorFlow 2 keeps only as ``tf.compat.v1.X`` resolves there (``tf.layers``,
    ``tf.Session``): TensorFlow 1's API *is* ``tf.compat.v1``. The converter renames most such uses
    in the program's text; this covers the names the installed converter no longer knows (its
    ``tf.layers`` rules left with Keras) and the modules of the program's folder (never converted)."""
    import tensorflow as tf

    if "__getattr__" in tf.__dict__:
        return

    def fallback(name: str) -> Any:
        v1 = tf.compat.v1
        if not name.startswith("__") and name in dir(v1):
            return getattr(v1, name)
        raise AttributeError(f"module 'tensorflow' has no attribute {name!r}")

    tf.__getattr__ = fallback  # type: ignore[attr-defined] - PEP 562: asked only for missing names


def set_up(framework: str) -> None:
    """Prepare this (fresh) worker process for ``framework``, before TensorFlow is imported."""
    if framework not in ENVIRONMENT:
        raise ValueError(f"unknown framework {framework!r}")
    for name in CLEARED[framework]:
        os.environ.pop(name, None)
    os.environ.update(ENVIRONMENT[framework])
    if framework in ("tf_keras", "tf1"):
        install_keras_alias()
        restore_removed_methods()
    if framework == "tf1":
        import tensorflow as tf

        tf.compat.v1.disable_v2_behavior()
        tf1_names_fallback()
    if framework in ("tf_keras", "tf1"):  # tf.contrib, tensorflow.examples; graph seeds in graph mode
        from mutreal.compat import era_behaviour, tf1_worker_patches

        tf1_worker_patches.install(framework)
        era_behaviour.install(framework)  # pandas < 3, standalone Keras' feeds and saves


def keras_module(framework: str) -> Any:
    """The Keras this framework's programs use (``keras`` 3, or ``tf_keras``)."""
    if framework in ("tf_keras", "tf1"):
        import tf_keras

        return tf_keras
    import keras

    return keras


def reset(framework: str, seed: int, deterministic: bool) -> None:
    """Reset Keras' (and in graph mode TensorFlow's default graph) global state and seed every generator,
    so runs with one seed are identical whatever ran before in this worker."""
    import numpy as np
    import tensorflow as tf

    keras = keras_module(framework)
    if framework == "tf1":
        tf.compat.v1.reset_default_graph()
        from mutreal.compat import tf1_worker_patches

        tf1_worker_patches.new_run(seed)  # graph seeds, helper-module rewrites cleared
    keras.backend.clear_session() if framework != "keras3" else keras.backend.clear_session(free_memory=False)
    if framework == "keras3":
        keras.config.set_floatx("float32")
        keras.config.set_epsilon(1e-7)
        keras.config.set_image_data_format("channels_last")
    else:
        keras.backend.set_floatx("float32")
        keras.backend.set_epsilon(1e-7)
        keras.backend.set_image_data_format("channels_last")
    with contextlib.suppress(Exception):
        keras.mixed_precision.set_global_policy("float32")
    if framework != "tf1":
        with contextlib.suppress(Exception):
            tf.config.run_functions_eagerly(False)
    np.seterr(all="warn", under="ignore")
    if deterministic:
        with contextlib.suppress(Exception):  # a previous program may have turned it off
            tf.config.experimental.enable_op_determinism()
    keras.utils.set_random_seed(seed)


def clear(framework: str) -> None:
    """Free the finished run's models (and graph)."""
    with contextlib.suppress(Exception):
        keras = keras_module(framework)
        if framework == "keras3":
            keras.backend.clear_session(free_memory=False)
        else:
            keras.backend.clear_session()
    if framework == "tf1":
        with contextlib.suppress(Exception):
            import tensorflow as tf

            tf.compat.v1.reset_default_graph()
