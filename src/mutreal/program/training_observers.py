"""What in a benchmark program observes training rather than being part of it: one source for classify
and the runner.

The study counts a benchmark's own instrumentation as noise, not as the fault: callbacks that only
watch training (TensorBoard, a checkpoint, DeepLocalize's own fault-localisation callback) and the
timing and exit scaffolding DeepLocalize wrapped around its buggy programs. classify leaves such
callbacks out of the comparison (:mod:`mutreal.compare.fit`, rule ``instrumentation_callbacks``:
every callback but those of :data:`TRAINING_CALLBACKS`); the runner removes what cannot run today
(:func:`mutreal.compat.scaffolding.strip_instrumentation`: the callbacks of :data:`BENCHMARK_CALLBACKS`, which exist in no
Keras, the experiment trackers of :data:`TRACKER_PACKAGES` whose service is gone, a ``sys.exit`` that ends the program after training, and an ``assert`` pinning the library
version the benchmark ran with), so a buggy program is not a crash
for its instrumentation after it trained to the end. Both read the tables here; the rewrite itself is the runner's (:mod:`mutreal.compat.scaffolding`).
"""

from __future__ import annotations

#: Callbacks that change training (compared argument by argument); every other callback observes.
TRAINING_CALLBACKS = frozenset({"EarlyStopping", "ReduceLROnPlateau", "LearningRateScheduler"})

#: Callbacks a benchmark added to its programs to observe them, which no Keras release defines
#: (DeepLocalize's ``keras.callbacks.DeepLocalize(x, y, layers, batch_size, start_time)``, and its
#: variants ``keras.callbacks.backpropagation(...)`` and ``keras.callbacks.generator(...)`` for
#: generator-fed programs, lived in the benchmark's patched Keras): removed from ``callbacks=[...]``
#: before a run. Only when called as an attribute of a ``callbacks`` module: a user's own
#: ``generator(...)`` in a callbacks list is left alone.
BENCHMARK_CALLBACKS = frozenset({"DeepLocalize", "backpropagation", "generator"})

#: Experiment trackers a program imports to report its training to a service: they observe, and a
#: closed service's package no longer installs. The runner points their imports at an inert stand-in
#: (:mod:`mutreal.compat.inert_tracker`); package -> why it cannot be installed.
TRACKER_PACKAGES: dict[str, str] = {"hyperdash": "Hyperdash's experiment tracker; its service closed in 2019"}
#: the module a tracker's imports are pointed at
INERT_TRACKER = "mutreal.compat.inert_tracker"

#: ``assert tf.__version__ == "1.8.0"``: TFBugs2018 pinned each program to the TensorFlow it ran on;
#: the program now runs on the framework of its era instead (the pin is replaced by ``pass``).
VERSION_ATTRIBUTE = "__version__"

#: Calls that end the program: at the end of a module, after training, they are scaffolding.
EXIT_CALLS = frozenset({"sys.exit", "exit", "quit", "os._exit"})
#: The training calls an exit must follow to be scaffolding (a program that only exits keeps its exit).
TRAINING_CALLS = frozenset(
    {"fit", "fit_generator", "train_on_batch", "cross_val_score", "cross_val_predict", "cross_validate"}
)
