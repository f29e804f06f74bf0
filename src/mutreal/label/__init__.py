"""The labelling stage: fault components named with the study's codes, taxonomy and operators.

:mod:`.codes` labels each component of the diff (fault code, taxonomy leaf, DeepCrime operator),
:mod:`.taxonomy` loads the taxonomy and the code table shipped in ``taxonomy/``, and
:mod:`.classify` runs the whole chain over pairs and manifests (source -> model -> diff -> labels),
:mod:`.data_class` tells real training data from fake (RQ2), :mod:`.mining` counts which codes
occur together.
"""
