"""The program stage: a benchmark's source file read, modelled and rewritten.

Reading a file into LibCST (:mod:`.source`), the program model of a Keras program
(:mod:`.model`, :mod:`.model_value`, :mod:`.element_paths`), the Keras knowledge that model is
written in (:mod:`.keras_api`, :mod:`.keras_eras`) and the rewrite of old Keras programs for
today's Keras (:mod:`.modernize`). Extraction (:mod:`mutreal.extract`) fills the model; the diff
(:mod:`mutreal.compare`) reads it.
"""
