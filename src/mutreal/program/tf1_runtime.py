"""What a worker of TensorFlow 1-era programs adds to TensorFlow at run time (no text is rewritten).

The worker of the ``tf1`` and ``tf_keras`` frameworks (:mod:`mutreal.execution.frameworks`) calls
:func:`install` once, before any program runs:

* ``tensorflow.contrib`` and ``tensorflow.examples`` are served (:mod:`mutreal.program.tf1_contrib`);
* in graph mode (``tf1``), ``TensorArray.pack``/``unpack`` (TensorFlow 0.x names of ``stack``/
  ``unstack``, removed in 2.0) are given back;
* in graph mode, every ``tf.Graph`` a program creates starts with the run's seed as its graph-level
  seed (:func:`seed_new_graphs`, called before every run). The worker seeds the default graph, but a
  program that builds its model ``with tf.Graph().as_default():`` gets a graph without a seed, and
  with op determinism enabled (as mutreal's workers run) TensorFlow refuses its random ops; a
  TensorFlow 1 graph without a seed drew random ones, so a seeded graph changes no semantics, only
  makes the run repeatable, like every other seed the worker sets.
"""

from __future__ import annotations

from typing import Any

#: the seed new graphs get (None: TensorFlow's default, no graph-level seed)
_SEED: dict[str, int | None] = {"seed": None}
#: removed TensorFlow methods given back in graph mode: class path -> {old name: today's name}
RESTORED_METHODS: dict[str, dict[str, str]] = {
    "tensorflow.TensorArray": {"pack": "stack", "unpack": "unstack"},
}


def install(framework: str) -> None:
    """Set up this worker for TensorFlow 1-era programs of ``framework`` (``tf1`` or ``tf_keras``)."""
    from mutreal.program import tf1_contrib

    tf1_contrib.install()
    if framework == "tf1":
        _restore_methods()
        _seed_graphs_on_creation()


def _restore_methods() -> None:
    from mutreal.program.tf1_contrib import resolve

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
