"""The error of a program that asks for data the runner cannot serve offline.

Runs have no network: Keras' dataset downloads (:mod:`mutreal.execution.fit_capture`) and TensorFlow 1's
MNIST reader (:mod:`mutreal.compat.tf1_mnist`) are served from local files, and a file that is not there
raises :class:`MissingDatasetError`, which the worker records as ``missing-data`` (the run's setting,
never the program's fault). Defined here, below both, so that neither imports the other.
"""

from __future__ import annotations


class MissingDatasetError(FileNotFoundError):
    """A program asked for a data file that is not available offline (recorded as ``missing-data``)."""
