"""Programs of earlier eras made to run on today's libraries: the runner's compatibility layer.

Benchmark programs were written for Keras 1/2, ``tf.keras`` of TensorFlow 1 and 2, NumPy 1,
pandas < 3 and SciPy < 1.3. Before a run, the runner chooses the framework of the program's era
(:mod:`.framework_choice`) and rewrites what cannot run today (:mod:`.modernize`,
:mod:`.removed_apis`, :mod:`.scaffolding`, :mod:`.tf_upgrade`); inside a worker of that era it gives
back what the era's programs relied on (:mod:`.era_behaviour`, :mod:`.tf1_worker_patches`,
:mod:`.tf1_contrib`, :mod:`.tf1_mnist`, :mod:`.scipy_misc`, :mod:`.numpy1_scalars`,
:mod:`.inert_tracker`). Classify never imports this package: it reads programs as written.
"""
