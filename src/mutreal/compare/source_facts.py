"""The source facts the comparison reads, under the names its passes use.

They are read once, by the extractor (:mod:`mutreal.extract.source_facts`), into the program model
(``ProgramModel.runtime_data_calls`` and ``.hyperparameter_literals``): the diff reads the model only.
"""

from __future__ import annotations

from mutreal.extract.source_facts import RUNTIME_TRAINING_DATA
from mutreal.program.model import HyperparameterLiteral as HyperVariable
from mutreal.program.model import RuntimeDataCall as RuntimeCall

__all__ = ["RUNTIME_TRAINING_DATA", "HyperVariable", "RuntimeCall"]
