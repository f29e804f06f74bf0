"""The extractor's abstract interpreter, without the Keras semantics it dispatches to.

Layered as a chain of classes, each one job: :mod:`.values` (abstract values, scopes),
:mod:`.core` (walk state, source text, argument evaluation, binding, hooks to the semantics),
:mod:`.expressions`, :mod:`.statements`, :mod:`.calls` (dispatch, user functions and classes). Constant folding is :mod:`mutreal.extract.constants`. The Keras semantics
(:mod:`mutreal.extract.keras_data`, :mod:`~mutreal.extract.keras_training`,
:mod:`~mutreal.extract.keras_layers`) extend :class:`~.calls.CallInterpreter`, and
:class:`mutreal.extract.walker.Walker` combines them.
"""
