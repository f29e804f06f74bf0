"""The study's research questions over whole benchmarks, beside classify.

Manifests from published benchmark layouts (:mod:`.layouts`), manual labels and results read
together (:mod:`.labelsfile`), agreement with readers (:mod:`.agree`,
:mod:`.confidence_agreement`), RQ1 correspondence (:mod:`.correspond`) and how
well an operator set reproduces real faults (:mod:`.validate`). RQ2's training-data classes and the
mining of fault co-occurrence are ``label``'s (classify writes the one, report and hom-generate read
the other).
"""
