"""The mutation stage: DeepCrime's operators as source edits, and higher-order mutants.

:mod:`mutreal.operator_catalogue` holds the operators as data (below label, which reads it too),
:mod:`.operators` implements each as a LibCST edit, :mod:`.operator_values` reads operator values
from real programs, :mod:`.mutate` finds sites and writes first-order mutants, :mod:`.hom` combines them as real bugs combine faults.
"""
