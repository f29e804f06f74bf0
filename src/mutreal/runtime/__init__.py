"""Small, seeded, numpy-only functions that mutants call at run time (see :mod:`.training_data`).

Mutants of the training-data operators import this package, so it must stay light: numpy only,
no TensorFlow, no mutreal imports.
"""
