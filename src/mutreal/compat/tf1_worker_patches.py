"""What a worker of TensorFlow 1-era programs adds to TensorFlow at run time (no text is rewritten).

The worker of the ``tf1`` and ``tf_keras`` frameworks (:mod:`mutreal.execution.frameworks`) calls
:func:`install` once, before any program runs:

* ``tensorflow.contrib`` and ``tensorflow.examples`` are served (:mod:`mutreal.compat.tf1_contrib`);
* in graph mode (``tf1``), ``TensorArray.pack``/``unpack`` (TensorFlow 0.x names of ``stack``/
  ``unstack``, removed in 2.0) are given back;
* in graph mode, every ``tf.Graph`` a program creates starts with the run's seed as its graph-level
  seed (:func:`seed_new_graphs`, called before every run). The worker seeds the default graph, but a
  program that builds its model ``with tf.Graph().as_default():`` gets a graph without a seed, and
  with op determinism enabled (as mutreal's workers run) TensorFlow refuses its random ops; a
  TensorFlow 1 graph without a seed drew random ones, so a seeded graph changes no semantics, only
  makes the run repeatable, like every other seed the worker sets;
* in graph mode, the program's own modules (``import rbm`` beside the entry) are converted when
  imported, as the entry was before the run (:class:`HelperConverter`): TensorFlow's upgrader, the
  removed-API rewrites and the instrumentation removal of :func:`mutreal.compat.framework_choice.prepare_runtime`,
  so ``assert tf.__version__ == "1.8.0"`` in a helper is the same scaffolding it is in the entry; what
  was rewritten is listed by :func:`helper_rewrites` and added to the run's record by the worker.

The command-line flags a program defined (``tf.app.flags``) are forgotten by the worker after every
run, whatever its framework (:func:`mutreal.execution.worker.forget_program_flags`).
"""

from __future__ import annotations

import importlib.abc
import importlib.machinery
import os
import sys
import tokenize
from typing import Any

#: the seed new graphs get (None: TensorFlow's default, no graph-level seed)
_SEED: dict[str, int | None] = {"seed": None}
#: removed TensorFlow methods given back in graph mode: class path -> {old name: today's name}
RESTORED_METHODS: dict[str, dict[str, str]] = {
    "tensorflow.TensorArray": {"pack": "stack", "unpack": "unstack"},
}


def install(framework: str) -> None:
    """Set up this worker for TensorFlow 1-era programs of ``framework`` (``tf1`` or ``tf_keras``)."""
    from mutreal.compat import tf1_contrib

    tf1_contrib.install()
    if framework == "tf1":
        _restore_methods()
        _seed_graphs_on_creation()
        if not any(isinstance(finder, HelperConverter) for finder in sys.meta_path):
            sys.meta_path.insert(0, HelperConverter("tf1"))


def _restore_methods() -> None:
    from mutreal.compat.tf1_contrib import resolve

    for owner_path, names in RESTORED_METHODS.items():
        owner = resolve(owner_path)
        for old, new in names.items():
            if not hasattr(owner, old) and hasattr(owner, new):
                setattr(owner, old, getattr(owner, new))


def _seed_graphs_on_creation() -> None:
    import tensorflow as tf

    graph = tf.Graph
    if getattr(graph.__init__, "_mutreal_seeded", False):
        return
    original = graph.__init__

    def __init__(self: Any, *args: Any, **kwargs: Any) -> None:  # noqa: N807 - wraps Graph.__init__
        original(self, *args, **kwargs)
        if _SEED["seed"] is not None:
            self.seed = _SEED["seed"]

    __init__._mutreal_seeded = True  # type: ignore[attr-defined]
    graph.__init__ = __init__  # type: ignore[method-assign]


def seed_new_graphs(seed: int | None) -> None:
    """Graphs created from now on start with ``seed`` as their graph-level seed (None: none)."""
    _SEED["seed"] = seed


def new_run(seed: int | None) -> None:
    """Start a run in a graph-mode worker: new graphs seeded with ``seed``, the previous program's
    helper-module rewrites cleared."""
    seed_new_graphs(seed)
    _HELPER_REWRITES.clear()


# --- the program's own modules, converted like its entry ------------------------------------------

#: what the helper modules imported in this run were rewritten with ("<module>: <rewrite>")
_HELPER_REWRITES: list[str] = []


def helper_rewrites() -> list[str]:
    """The rewrites of the program's own modules imported since the run began, one line each."""
    return list(_HELPER_REWRITES)


class _ConvertingLoader(importlib.machinery.SourceFileLoader):
    """A module of the program's folder, run through the rewrites its entry got (no bytecode cache:
    the converted text is not the file's)."""

    framework = "tf1"

    def get_code(self, fullname: str) -> Any:
        from mutreal.compat.framework_choice import prepare_runtime

        with tokenize.open(self.path) as handle:
            source = handle.read()
        prepared = prepare_runtime(source, self.framework)
        _HELPER_REWRITES.extend(f"{fullname}: {line}" for line in prepared.rewrites)
        return compile(prepared.source, self.path, "exec", dont_inherit=True)


class HelperConverter(importlib.abc.MetaPathFinder):
    """Finds the modules of the running program's own folder and loads them through
    :class:`_ConvertingLoader`; every other import is left to Python. The program's folder is the one
    that holds ``__main__``'s file and is first on ``sys.path``, as the worker sets both for a run
    (so the worker's own package, imported while no program runs, is never converted)."""

    def __init__(self, framework: str) -> None:
        self.framework = framework

    def find_spec(self, fullname: str, path: Any, target: Any = None) -> importlib.machinery.ModuleSpec | None:
        main = getattr(sys.modules.get("__main__"), "__file__", None)
        if not main:
            return None
        folder = os.path.dirname(os.path.abspath(main))
        if not sys.path or os.path.abspath(sys.path[0] or os.curdir) != folder:
            return None
        top = os.path.join(folder, fullname.split(".")[0])
        if not (os.path.isfile(top + ".py") or os.path.isdir(top)):  # a library's import: no second lookup
            return None
        spec = importlib.machinery.PathFinder.find_spec(fullname, path)
        origin = getattr(spec, "origin", None) or ""
        if spec is None or not origin.endswith(".py") or not os.path.abspath(origin).startswith(folder + os.sep):
            return None
        loader = _ConvertingLoader(fullname, origin)
        loader.framework = self.framework
        spec.loader = loader
        return spec
