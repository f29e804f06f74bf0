"""The study's research questions over whole benchmarks, beside classify.

Manifests from published benchmark layouts (:mod:`.layouts`), manual labels and results read
together (:mod:`.labelsfile`), agreement with readers (:mod:`.agree`,
:mod:`.confidence_agreement`), RQ1 correspondence (:mod:`.correspond`), RQ2 training data
(:mod:`.datasets`), fault co-occurrence (:mod:`.mining`) and how well an operator set
reproduces real faults (:mod:`.validate`).
"""
