"""The operator registry: every operator registered under the entry-point group ``mutreal.mutation.operators``.

Built-in operators are registered in mutreal's own ``pyproject.toml`` exactly as a plugin package
would register its own (``[project.entry-points."mutreal.mutation.operators"]``, ``ID = "module:Class"``),
so a plugin's operator appears in ``mutate --list``, ``hom-generate`` and ``validate-operators``
with no change to mutreal. An entry point may name an :class:`~mutreal.mutation.operators.base.Operator`
subclass or instance. Should the installed metadata lag behind the source (an editable install
made before an operator was added), the built-in classes fill the gap (:func:`builtin_classes`).
"""

from __future__ import annotations

import functools
import importlib
import pkgutil
import sys
from importlib import metadata

from mutreal.mutation.operators.base import Operator
from mutreal.operator_catalogue import load_catalogue

GROUP = "mutreal.mutation.operators"
#: the group's name before the operators moved into ``mutreal.mutation`` (plugins written for it
#: still load; a plugin under both names counts once)
LEGACY_GROUP = "mutreal.operators"

#: the modules of mutreal's own operator families: their Operator classes are the built-ins
FAMILY_PACKAGE = "mutreal.mutation.operators"


@functools.cache
def builtin_classes() -> dict[str, type[Operator]]:
    """mutreal's own operators by id, in the catalogue's order: every concrete :class:`Operator`
    subclass defined in a module of :data:`FAMILY_PACKAGE` whose ``id`` is a catalogue id.

    The classes are the one list of built-ins: pyproject's entry points register them (a test pins
    that they name exactly these), ``validate-operators`` tells them from plugins, and :func:`load`
    falls back on them when the installed metadata lags behind the source (an editable install made
    before an operator was added)."""
    order = list(load_catalogue())
    found: dict[str, type[Operator]] = {}
    package = importlib.import_module(FAMILY_PACKAGE)
    for info in pkgutil.iter_modules(package.__path__, f"{FAMILY_PACKAGE}."):
        module = importlib.import_module(info.name)
        for obj in vars(module).values():
            if isinstance(obj, type) and issubclass(obj, Operator) and obj.__module__ == info.name and obj.id in order:
                found[obj.id] = obj
    return {oid: found[oid] for oid in order if oid in found}


def entry_point_target(cls: type[Operator]) -> str:
    """The ``module:Class`` an entry point names for an operator class."""
    return f"{cls.__module__}:{cls.__qualname__}"


_cache: dict[str, Operator] | None = None


def _instantiate(obj: object, name: str) -> Operator:
    if isinstance(obj, type) and issubclass(obj, Operator):
        obj = obj()
    if not isinstance(obj, Operator):
        raise TypeError(f"entry point {name!r} of {GROUP} is not a mutreal Operator: {obj!r}")
    return obj


def load() -> dict[str, Operator]:
    """All registered operators by id: built-ins in catalogue order, then plugins (entry-point order)."""
    ops: dict[str, Operator] = {}
    entry_points = [*metadata.entry_points(group=GROUP), *metadata.entry_points(group=LEGACY_GROUP)]
    for ep in entry_points:
        try:
            op = _instantiate(ep.load(), ep.name)
        except Exception as exc:  # one broken plugin must not hide the others
            print(f"mutreal: operator plugin {ep.name!r} failed to load: {exc}", file=sys.stderr)
            continue
        ops.setdefault(op.id or ep.name, op)
    builtins = builtin_classes()
    for oid, cls in builtins.items():
        if oid not in ops:
            ops[oid] = _instantiate(cls, oid)
    # built-ins in the catalogue's order, then plugins in entry-point order
    order = {oid: i for i, oid in enumerate(builtins)}
    return dict(sorted(ops.items(), key=lambda kv: order.get(kv[0], len(order))))


def operators() -> dict[str, Operator]:
    """The registered operators (cached; :func:`reload` re-reads the entry points)."""
    global _cache
    if _cache is None:
        _cache = load()
    return _cache


def reload() -> dict[str, Operator]:
    global _cache
    _cache = None
    return operators()


def ids() -> list[str]:
    return list(operators())


def get(op_id: str) -> Operator:
    """The operator registered as ``op_id`` (case-insensitive); KeyError with the known ids."""
    ops = operators()
    key = op_id.upper() if op_id.upper() in ops else op_id
    if key not in ops:
        raise KeyError(f"unknown operator {op_id!r}; known: {', '.join(ops)}")
    return ops[key]
