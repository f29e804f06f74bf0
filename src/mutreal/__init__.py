"""mutreal: how real are the faults of deep-learning benchmarks and mutation tools?

The package is split by job (see docs/ARCHITECTURE.md): program model extraction, semantic diff,
labelling, mutation operators, reports, and a training runner. Importing ``mutreal`` never imports
TensorFlow: only the runner's worker processes do.
"""

__version__ = "0.1.0"
