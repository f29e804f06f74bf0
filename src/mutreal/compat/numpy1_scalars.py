"""NumPy 1's conversion of a one-element array to a Python number, for programs written before NumPy 2.

A TensorFlow 1 program fetches a variable of shape ``(1,)`` with ``sess.run`` and prints it with
``"w %g" % w`` or takes ``float(w)``: NumPy 1 converted the array's single element (deprecated, with a
warning, from NumPy 1.25), NumPy 2 raises ``TypeError: only 0-dimensional arrays can be converted to
Python scalars``, so the program stops in its training loop on a line that has nothing to do with its
fault. :mod:`mutreal.compat.removed_apis` rewrites those places in programs of that era to call the
functions below, which give NumPy 1's result. They change nothing but the values NumPy 2 refuses
(a one-element array of one or more dimensions): every other value, and every program that runs on
NumPy 2 already, behaves exactly as written. This module is imported by the rewritten program, so it
imports nothing but NumPy (which the programs it serves import themselves).
"""

from __future__ import annotations

from typing import Any

import numpy as np

#: printf conversions that turn their argument into a number (``%s``/``%r``/``%a`` print any object)
NUMERIC_CONVERSIONS = frozenset("diouxXeEfFgGc")


def as_scalar(value: Any) -> Any:
    """``value``, or, for a NumPy array of one element and one or more dimensions, that array as a
    0-d array: what NumPy 1 converted to a Python number (``float(a)``, ``"%g" % a``)."""
    if isinstance(value, np.ndarray) and value.ndim > 0 and value.size == 1:
        return value.reshape(())
    return value


def format_args(args: Any, conversions: str) -> Any:
    """The right operand of ``format % args`` with NumPy 1's conversion applied where ``format``
    converts to a number. ``conversions`` has one letter per argument the format consumes (its
    conversion type; ``*`` for a width or precision taken from the arguments). As ``%`` does, a
    tuple is the argument list and anything else is the only argument; a list that does not match
    the format is left as it is, for ``%`` to report."""
    if isinstance(args, tuple):
        return tuple(
            as_scalar(value) if index < len(conversions) and conversions[index] in NUMERIC_CONVERSIONS else value
            for index, value in enumerate(args)
        )
    if conversions[:1] and conversions[0] in NUMERIC_CONVERSIONS:  # the only argument: the first conversion's
        return as_scalar(args)
    return args
