"""The program stage: a benchmark's source file read and modelled.

Reading a file into LibCST (:mod:`.source`), the program model of a Keras program
(:mod:`.model`, :mod:`.model_value`, :mod:`.element_paths`), the Keras knowledge that model is
written in (:mod:`.keras_api`, :mod:`.keras_eras`) and what in a program observes training rather
than being part of it (:mod:`.training_observers`). Extraction (:mod:`mutreal.extract`) fills the
model; the diff (:mod:`mutreal.compare`) reads it. Making old programs run today is the runner's
job (:mod:`mutreal.compat`).
"""
