"""An inert stand-in for an experiment tracker a benchmark program imports (see
:data:`mutreal.program.training_observers.TRACKER_PACKAGES`).

A tracker only reports training to its service (Hyperdash's closed in 2019); it changes nothing the
program computes. The runner points the program's imports of such a package at this module, whose
every name is an :class:`Inert`: calling it, reading its attributes or using it as a context manager
does nothing, a decorator made of it returns the function it decorates, and ``param``/``metric``
return the value they are given, as the trackers' own did (``lr = exp.param("lr", 0.01)``).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

#: methods of trackers that log a value and hand it back (Hyperdash's ``param``, ``metric``)
VALUE_METHODS = frozenset({"param", "metric"})


class Inert:
    """Anything a tracker's API gives, doing nothing."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        pass

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        if len(args) == 1 and not kwargs and callable(args[0]) and not isinstance(args[0], Inert):
            return args[0]  # a decorator: the decorated function, unchanged
        return Inert()

    def __getattr__(self, name: str) -> Any:
        if name.startswith("__"):
            raise AttributeError(name)
        if name in VALUE_METHODS:
            return _value_of
        return Inert()

    def __enter__(self) -> Inert:
        return self

    def __exit__(self, *exc: Any) -> bool:
        return False

    def __iter__(self) -> Iterator[Any]:
        return iter(())

    def __bool__(self) -> bool:
        return False


def _value_of(name: Any = None, value: Any = None, *args: Any, **kwargs: Any) -> Any:
    return value


def __getattr__(name: str) -> Any:  # PEP 562: ``from <tracker> import Experiment, monitor``
    if name.startswith("__"):
        raise AttributeError(name)
    return Inert()
