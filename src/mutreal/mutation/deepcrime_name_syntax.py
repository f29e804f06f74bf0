"""DeepCrime's mutant names as text: ``<key>_mutated0_MP_<params>`` <-> (operator, value, layer).

Why a module of its own: reading and writing a name needs only the catalogue's name patterns
(``deepcrime_name`` in ``operators/deepcrime.yaml``), never a program; users who only read a
paper's table of names (``benchmarks/deepcrime_names_published.py``) need this half alone. Finding
the site a name asks for in a program, and making the mutant, is :mod:`mutreal.mutation.deepcrime_names`,
whose docstring tells how DeepCrime forms its names and counts its layers.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

import yaml

from mutreal.operator_catalogue import OperatorSpec, load_catalogue
from mutreal.resources import data_dir

#: why a name cannot be made, one word each (the ``reason`` of :class:`DeepCrimeNameError`)
REASONS = {
    "not_a_name": "not a DeepCrime mutant name (no _mutated<N>_MP)",
    "unknown_operator": "no DeepCrime operator of that name",
    "encoding": "the parameter part is not the operator's encoding",
    "no_value": "the name does not record the mutant's value",
    "bad_value": "the value is not one the operator can write",
    "no_model": "no model DeepCrime's layer operators could mutate",
    "layer_count": "the layer index is outside the model or counted differently",
    "no_site": "the operator has no site there",
    "several_layers": "the layer is one of several built by one constructor call",
    "equivalent": "the mutant would not change the program",
}


_MARKER = re.compile(r"_mutated(?P<n>\d+)_MP")
#: the text DeepCrime puts between the operator key and the parameters
_MIDDLE = "_mutated0_MP"
#: the values DeepCrime writes when it drew the value at random (not recorded in the name)
_UNRECORDED = frozenset({"None", "False", "-1"})


class DeepCrimeNameError(ValueError):
    """A name that cannot be made: ``reason`` is a key of :data:`REASONS`, the message says why."""

    def __init__(self, name: str, reason: str, message: str) -> None:
        super().__init__(message)
        self.name = name
        self.reason = reason

    def to_dict(self) -> dict[str, str]:
        return {"name": self.name, "reason": self.reason, "error": str(self)}


# ---------------------------------------------------------------------------------------------------
# The name table, derived from the catalogue
# ---------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class NameFormat:
    """How DeepCrime names one operator's mutants (from ``deepcrime_name`` in the catalogue)."""

    operator: str
    key: str
    #: the parameter tail: ``{value}`` / ``{layer}`` placeholders, other text literal; "" = none
    params: str
    spec: OperatorSpec

    @property
    def has_layer(self) -> bool:
        return "{layer}" in self.params

    @property
    def has_value(self) -> bool:
        return "{value}" in self.params

    def pattern(self, with_run: bool) -> re.Pattern[str]:
        """A regex of the tail after ``_MP`` (a repeated ``{value}`` must repeat the same text);
        ``with_run`` adds DeepCrime's ``_<run>`` of a trained model file."""
        parts: list[str] = []
        seen_value = False
        for piece in re.split(r"(\{value\}|\{layer\})", self.params):
            if piece == "{value}":
                parts.append("(?P=value)" if seen_value else "(?P<value>.+)")
                seen_value = True
            elif piece == "{layer}":
                parts.append(r"(?P<layer>\d+)")
            else:
                parts.append(re.escape(piece))
        body = "".join(parts)
        tail = f"_{body}" if body else ""
        return re.compile(tail + (r"_(?P<run>\d+)" if with_run else ""))

    def render(self, value: Any, layer: int | None) -> str:
        """The name of the mutant with ``value`` (at DeepCrime layer ``layer``)."""
        tail = self.params.replace("{value}", _value_text(value)).replace("{layer}", str(layer))
        return f"{self.key}{_MIDDLE}" + (f"_{tail}" if tail else "")


def _value_text(value: Any) -> str:
    """A value as DeepCrime's ``str()`` writes it (``0.001``, ``8e-05``, ``64``, ``l1_l2``)."""
    if isinstance(value, bool) or value is None:
        return str(value)
    if isinstance(value, float):
        return repr(value)
    return str(value)


@lru_cache(maxsize=1)
def _formats() -> dict[str, NameFormat]:
    doc = yaml.safe_load((data_dir("operators") / "deepcrime.yaml").read_text(encoding="utf-8"))
    specs = load_catalogue()
    out: dict[str, NameFormat] = {}
    for raw in doc["operators"]:
        naming = raw.get("deepcrime_name")
        if naming is None:
            continue
        spec = specs[raw["id"]]
        key = naming.get("key") or spec.deepcrime_key
        out[key] = NameFormat(spec.id, key, str(naming.get("params") or ""), spec)
    return out


def name_formats() -> dict[str, NameFormat]:
    """Every operator's name format, by the key its names start with (``change_label``, ...)."""
    return dict(_formats())


def format_of(operator: str) -> NameFormat:
    """The name format of ``operator`` (KeyError when the catalogue gives it none)."""
    for fmt in _formats().values():
        if fmt.operator == operator:
            return fmt
    raise KeyError(f"{operator} has no DeepCrime name format in the catalogue")


# ---------------------------------------------------------------------------------------------------
# Parsing and formatting
# ---------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class DeepCrimeName:
    """A parsed DeepCrime mutant name: which operator, value and DeepCrime layer index it asks for."""

    name: str
    operator: str
    key: str
    value: Any
    layer: int | None
    #: what stood before the operator key (``MM_deepfd006``, a subject ``mnist``; "" = none)
    prefix: str = ""
    #: the training run of a ``trained_models/<...>_<run>.h5`` file (the same mutant for every run)
    run: int | None = None

    @property
    def canonical(self) -> str:
        """The name as DeepCrime would write it, without prefix and run."""
        return format_of(self.operator).render(self.value, self.layer)

    def to_dict(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "canonical": self.canonical,
            "operator": self.operator,
            "key": self.key,
            "value": self.value,
            "layer": self.layer,
            "prefix": self.prefix,
            "run": self.run,
        }


def parse_name(text: str) -> DeepCrimeName:
    """Parse a DeepCrime mutant name (a path, ``.h5`` and a ``MM_<bug>_`` or subject prefix allowed).

    Raises :class:`DeepCrimeNameError` (reasons ``not_a_name``, ``unknown_operator``, ``encoding``,
    ``no_value``, ``bad_value``) with a message that names the part it could not read."""
    name = text.strip()
    base = os.path.basename(name)
    with_run = base.endswith(".h5")
    stem = base[:-3] if with_run else base
    marker = _MARKER.search(stem)
    if marker is None:
        raise DeepCrimeNameError(
            text,
            "not_a_name",
            f"{text!r} is not a DeepCrime mutant name (<operator>_mutated0_MP[_<parameters>])",
        )
    head, tail = stem[: marker.start()], stem[marker.end() :]
    fmt = None
    for key in sorted(_formats(), key=len, reverse=True):
        if head == key or head.endswith("_" + key):
            fmt = _formats()[key]
            break
    if fmt is None:
        known = ", ".join(sorted(_formats()))
        raise DeepCrimeNameError(
            text, "unknown_operator", f"{text!r}: {head!r} names no DeepCrime operator (known: {known})"
        )
    prefix = head[: -len(fmt.key)].rstrip("_")
    m = fmt.pattern(with_run).fullmatch(tail)
    if m is None:
        shape = fmt.params or "nothing"
        raise DeepCrimeNameError(
            text,
            "encoding",
            f"{text!r}: {fmt.key} names end _MP_{fmt.params} ({fmt.operator}), got {tail!r}"
            if fmt.params
            else f"{text!r}: {fmt.key} names carry {shape} after _MP ({fmt.operator}), got {tail!r}",
        )
    groups = m.groupdict()
    value = _typed_value(text, fmt, groups.get("value"))
    layer = int(groups["layer"]) if groups.get("layer") is not None else None
    run = int(groups["run"]) if groups.get("run") is not None else None
    return DeepCrimeName(text, fmt.operator, fmt.key, value, layer, prefix, run)


def _typed_value(text: str, fmt: NameFormat, token: str | None) -> Any:
    spec = fmt.spec.param
    if spec is None:
        return None
    if token is None:
        raise DeepCrimeNameError(
            text,
            "no_value",
            f"{text!r}: DeepCrime's {fmt.key} names do not record the {spec.name} ({fmt.operator} needs one)",
        )
    if token in _UNRECORDED:
        raise DeepCrimeNameError(
            text,
            "no_value",
            f"{text!r}: the {spec.name} is {token} in the name (DeepCrime drew it at run time; the name "
            "does not record it)",
        )
    if spec.type == "str":
        if not re.fullmatch(r"[A-Za-z][A-Za-z0-9_]*", token):
            raise DeepCrimeNameError(text, "bad_value", f"{text!r}: {token!r} is not a {spec.name} name")
        run = re.fullmatch(r"(?P<value>.+)_\d+", token)
        if token not in spec.values and run and run["value"] in spec.values:
            raise DeepCrimeNameError(
                text,
                "encoding",
                f"{text!r}: {token!r} ends in a number after the {spec.name} {run['value']!r}: a trained "
                "model's run? (write the file name with .h5, or drop the run)",
            )
        return token
    try:
        value = spec.validate(token)
    except ValueError as exc:
        raise DeepCrimeNameError(text, "bad_value", f"{text!r}: {exc}") from None
    return value


def format_name(operator: str, value: Any = None, layer: int | None = None) -> str:
    """The DeepCrime name of ``operator`` with ``value`` at DeepCrime layer index ``layer``."""
    fmt = format_of(operator)
    if fmt.has_layer and layer is None:
        raise ValueError(f"{operator} names need a layer index")
    if fmt.spec.param is not None and fmt.has_value:
        value = fmt.spec.param.coerce(value)
    return fmt.render(value, layer)
