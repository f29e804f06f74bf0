"""DeepCrime's 24 operators as data, loaded from ``operators/``: ids, parameters, value lists.

Why a module of its own: the operator implementations, classify's DeepCrime matching, the
``mutate --all`` value enumeration and ``hom-generate`` must agree on which operators exist, which
program element each changes and which values each may write. ``operators/deepcrime.yaml`` is that
single source of truth; this module turns it into typed specs and answers the questions those
parts ask (candidate values, valid values, whether an operator changes an element path). It sits at the
top level, below every stage, because classify's labels (``label``) read it as much as ``mutation`` does.

It also loads ``operators/combinations.csv``, the frequency table of co-occurring simulable
fault codes derived from the study's dev split, the default input of ``hom-generate``.
"""

from __future__ import annotations

import csv
import math
import re
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import asdict, dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Any

import yaml

from mutreal.combinations import Combination, sub_multisets
from mutreal.resources import data_dir

#: parameter kinds of the catalogue
PARAM_KINDS = ("none", "categorical", "integer", "percentage", "continuous")
#: operator scopes: a layer operator has one site per applicable layer
SCOPES = ("program", "layer")
_TYPES = {"int": int, "float": float, "str": str}


@dataclass(frozen=True)
class ParamSpec:
    """The parameter of an operator: its kind, DeepCrime's value list, valid range, ``--all`` grid.

    ``values`` is DeepCrime's own list (categorical ones, RCP's patience); ``grid`` is mutreal's
    list for parameters DeepCrime searched (binary search); with ``grid_relative`` the grid values
    are factors of the original value (learning rate x 0.1, ...). ``modes`` names alternative
    arguments the value can go to (OCG: ``clipvalue`` or ``clipnorm``; the first is the default).
    """

    name: str
    kind: str
    type: str
    values: tuple[Any, ...] = ()
    grid: tuple[float, ...] = ()
    grid_relative: bool = False
    exclude_original: bool = False
    min: float | None = None
    max: float | None = None
    min_exclusive: bool = False
    max_exclusive: bool = False
    modes: tuple[str, ...] = ()

    def coerce(self, value: Any) -> Any:
        """Convert a CLI string (``"0.1"``, ``"sigmoid"``) or a number to this parameter's type."""
        py = _TYPES[self.type]
        if py is int and isinstance(value, str):
            as_float = float(value)
            if not as_float.is_integer():
                raise ValueError(f"{self.name} must be an integer, got {value!r}")
            return int(as_float)
        if py is int and isinstance(value, float):
            if not value.is_integer():
                raise ValueError(f"{self.name} must be an integer, got {value!r}")
            return int(value)
        return py(value)

    def in_range(self, value: float) -> bool:
        """True when a numeric value respects the range (bounds and their exclusivity)."""
        if self.min is not None and (value < self.min or (self.min_exclusive and value == self.min)):
            return False
        return not (self.max is not None and (value > self.max or (self.max_exclusive and value == self.max)))

    def validate(self, value: Any) -> Any:
        """Coerce and check a value; raise ValueError with the reason when it is not allowed.

        Categorical values must be in DeepCrime's list only for string parameters (a mutation
        tool developer may still ask for a batch size of 128 or a dropout rate of 0.5: they are
        checked against the range).
        """
        v = self.coerce(value)
        if self.kind == "categorical" and self.type == "str":
            if v not in self.values:
                raise ValueError(f"{self.name} must be one of {', '.join(map(str, self.values))}; got {v!r}")
            return v
        if isinstance(v, int | float) and (not self.in_range(float(v)) or math.isnan(float(v))):
            raise ValueError(f"{self.name}={v!r} is outside {self.range_text()}")
        return v

    def range_text(self) -> str:
        lo = "(" if self.min_exclusive else "["
        hi = ")" if self.max_exclusive else "]"
        return (
            f"{lo}{'-inf' if self.min is None else self.min}, {'inf' if self.max is None else self.max}{hi}"
        )

    def candidates(self, original: Any = None) -> list[Any]:
        """The values ``mutate --all`` writes: DeepCrime's list, else the grid (relative grids
        scaled by ``original``), in range, rounded for integers, without the original when
        ``exclude_original``; duplicates dropped, order kept."""
        if self.values:
            raw: list[Any] = list(self.values)
        elif self.grid_relative:
            if original is None:
                return []
            raw = [float(original) * f for f in self.grid]
        else:
            raw = list(self.grid)
        out: list[Any] = []
        for value in raw:
            v = value
            if self.type == "int":
                v = max(int(round(float(v))), int(self.min) if self.min is not None else -(10**9))
            elif self.type == "float":
                v = float(f"{float(v):.6g}")
            if isinstance(v, int | float) and not self.in_range(float(v)):
                continue
            if self.exclude_original and original is not None and _same(v, original):
                continue
            if v not in out:
                out.append(v)
        return out

    def to_dict(self) -> dict[str, Any]:
        d = asdict(self)
        for k in ("values", "grid", "modes"):
            d[k] = list(d[k])
        return d

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> ParamSpec:
        rng = d.get("range") or {}
        return cls(
            name=d["name"],
            kind=d["kind"],
            type=d["type"],
            values=tuple(d.get("values") or ()),
            grid=tuple(d.get("grid") or ()),
            grid_relative=bool(d.get("grid_relative", False)),
            exclude_original=bool(d.get("exclude_original", False)),
            min=d.get("min", rng.get("min")),
            max=d.get("max", rng.get("max")),
            min_exclusive=bool(d.get("min_exclusive", rng.get("min_exclusive", False))),
            max_exclusive=bool(d.get("max_exclusive", rng.get("max_exclusive", False))),
            modes=tuple(d.get("modes") or ()),
        )


def _same(a: Any, b: Any) -> bool:
    try:
        return math.isclose(float(a), float(b), rel_tol=1e-9)
    except (TypeError, ValueError):
        return str(a).lower() == str(b).lower()


@dataclass(frozen=True)
class OperatorSpec:
    """One DeepCrime operator as the catalogue describes it (see ``operators/deepcrime.yaml``)."""

    id: str
    name: str
    category: str
    deepcrime_key: str
    scope: str
    elements: tuple[str, ...]
    summary: str
    param: ParamSpec | None
    direction_deepcrime: str
    direction_mutreal: str
    fault_code: str | None
    taxonomy_leaf_id: str | None
    deepcrime_enabled: bool
    deepcrime_search: str
    deepcrime_defects: tuple[str, ...] = ()
    applies_when: Mapping[str, str] = field(default_factory=dict)
    #: the function of :mod:`mutreal.runtime.training_data` a training-data operator's mutants call
    runtime_function: str | None = None

    @property
    def code(self) -> str:
        """The fault code of what this operator changes: the study's (``fault_code``), else the
        operator's own id (TAN: the study met no such fault; mutreal's extension code is TAN). The
        one code-to-operator map: the taxonomy's operators per code and classify's kind rules read it."""
        return self.fault_code or self.id

    @property
    def parameter_kind(self) -> str:
        """``none``, ``categorical``, ..., prefixed ``layer x`` for layer operators (``layer x categorical``)."""
        kind = self.param.kind if self.param else "none"
        if self.scope != "layer":
            return kind
        return "layer" if kind == "none" else f"layer x {kind}"

    def matches_element(self, path: str) -> bool:
        """True when an element path (``model[0].layer[3].activation``) is one this operator changes."""
        return any(_pattern(e).fullmatch(path) for e in self.elements)

    def to_dict(self) -> dict[str, Any]:
        d = asdict(self)
        d["elements"] = list(self.elements)
        d["deepcrime_defects"] = list(self.deepcrime_defects)
        d["applies_when"] = dict(self.applies_when)
        d["param"] = self.param.to_dict() if self.param else None
        return d

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> OperatorSpec:
        return cls(
            **{
                **d,
                "elements": tuple(d["elements"]),
                "deepcrime_defects": tuple(d.get("deepcrime_defects", ())),
                "applies_when": dict(d.get("applies_when") or {}),
                "param": ParamSpec.from_dict(d["param"]) if d.get("param") else None,
            }
        )


@lru_cache(maxsize=256)
def _pattern(element: str) -> re.Pattern[str]:
    """Regex of an element pattern: ``[*]`` is any index; ``compile``/``fit`` without an index
    match every compile/fit call (``compile[1].loss`` too), as canonical paths omit ``[0]``."""
    rx = re.escape(element).replace(r"\[\*\]", r"\[\d+\]")
    rx = re.sub(r"^(compile|fit)(?!\\\[)", r"\1(?:\\[\\d+\\])?", rx)
    return re.compile(rx)


def _operator_from_yaml(raw: Mapping[str, Any]) -> OperatorSpec:
    direction = raw.get("direction") or {}
    dc = raw.get("deepcrime") or {}
    return OperatorSpec(
        id=raw["id"],
        name=raw["name"],
        category=raw["category"],
        deepcrime_key=raw["deepcrime_key"],
        scope=raw["scope"],
        elements=tuple(raw["elements"]),
        summary=raw.get("summary", ""),
        param=ParamSpec.from_dict(raw["param"]) if raw.get("param") else None,
        direction_deepcrime=direction.get("deepcrime", "n/a"),
        direction_mutreal=direction.get("mutreal", "n/a"),
        fault_code=raw.get("fault_code"),
        taxonomy_leaf_id=raw.get("taxonomy_leaf_id"),
        deepcrime_enabled=bool(dc.get("enabled", False)),
        deepcrime_search=str(dc.get("search", "none")),
        deepcrime_defects=tuple(dc.get("defects") or ()),
        applies_when={str(k): str(v) for k, v in (raw.get("applies_when") or {}).items()},
        runtime_function=raw.get("runtime_function"),
    )


def load_catalogue_from(path: Path) -> dict[str, OperatorSpec]:
    """Load an operator catalogue YAML file (ordered as written); validates kinds and scopes."""
    doc = yaml.safe_load(path.read_text(encoding="utf-8"))
    specs: dict[str, OperatorSpec] = {}
    for raw in doc["operators"]:
        spec = _operator_from_yaml(raw)
        if spec.id in specs:
            raise ValueError(f"{path.name}: operator {spec.id} listed twice")
        if spec.scope not in SCOPES:
            raise ValueError(f"{path.name}: {spec.id} has unknown scope {spec.scope!r}")
        if spec.param is not None and (spec.param.kind not in PARAM_KINDS or spec.param.type not in _TYPES):
            raise ValueError(f"{path.name}: {spec.id} has a bad parameter spec")
        specs[spec.id] = spec
    return specs


@lru_cache(maxsize=1)
def _shipped() -> dict[str, OperatorSpec]:
    return load_catalogue_from(data_dir("operators") / "deepcrime.yaml")


def load_catalogue() -> dict[str, OperatorSpec]:
    """DeepCrime's 24 operators by id, in the catalogue's order (a fresh dict; the specs are frozen)."""
    return dict(_shipped())


def value_lists() -> dict[str, list[Any]]:
    """The named value lists of the catalogue (``activations``, ``losses``, ``optimizers``, ...)."""
    doc = yaml.safe_load((data_dir("operators") / "deepcrime.yaml").read_text(encoding="utf-8"))
    return {k: list(v) for k, v in doc["value_lists"].items()}


def runtime_function_operators() -> dict[str, str]:
    """Function of :mod:`mutreal.runtime.training_data` -> the operator whose mutants call it: the
    catalogue's ``runtime_function``, read by classify's labels (a call in a diff names its operator)."""
    return {spec.runtime_function: spec.id for spec in _shipped().values() if spec.runtime_function}


ACTIVATION_ADDED, ACTIVATION_REMOVED, ACTIVATION_CHANGED = "AAL", "ARM", "ACH"


def activation_operator(before: str | None, after: str | None) -> str:
    """The activation operator that turns a layer activated ``before`` into one activated ``after``
    (None: no activation written, ``linear``): from linear to another activation adds one (AAL),
    the reverse removes it (ARM), anything else changes it (ACH). One rule for classify's labels
    (first program -> second) and hom-generate (fixed -> buggy, the mutation's direction)."""
    first, second = (before or "linear").lower(), (after or "linear").lower()
    if first == "linear" and second != "linear":
        return ACTIVATION_ADDED
    if first != "linear" and second == "linear":
        return ACTIVATION_REMOVED
    return ACTIVATION_CHANGED


def operators_for_code(code: str) -> list[OperatorSpec]:
    """The operators that simulate a fault code (ARM and AAL simulate ACH, HDB simulates HBS...),
    the operator with the code's own id first, then in catalogue order: the study's reading of
    "simulable", which the taxonomy's ``FaultCode.operators`` is."""
    found = [spec for spec in _shipped().values() if spec.code == code]
    return sorted(found, key=lambda spec: spec.id != code)


# ---------------------------------------------------------------------------------------------------
# Frequency table of simulable fault-code combinations (operators/combinations.csv)
# ---------------------------------------------------------------------------------------------------


def read_combinations(path: Path) -> list[Combination]:
    """Read a combinations CSV (``#`` comment lines allowed), ordered as written."""
    lines = [ln for ln in path.read_text(encoding="utf-8").splitlines() if ln and not ln.startswith("#")]
    out = []
    for row in csv.DictReader(lines):
        out.append(
            Combination(
                codes=tuple(row["codes"].split()),
                support=int(row["support"]),
                exact=int(row["exact"]),
                support_fully_simulable=int(row["support_fully_simulable"]),
            )
        )
    return out


def load_combinations(orders: Sequence[int] | None = None) -> list[Combination]:
    """The shipped frequency table (derived from the study's dev split), optionally of some orders;
    ordered by order, then support (highest first), then codes."""
    combos = read_combinations(data_dir("operators") / "combinations.csv")
    if orders is not None:
        combos = [c for c in combos if c.order in set(orders)]
    return combos


def count_combinations(
    bugs: Iterable[tuple[Sequence[str], Sequence[bool]]], max_order: int = 6
) -> list[Combination]:
    """Count the multisets of simulable codes over bugs given as (codes, DeepCrime flags) pairs.

    Each bug contributes its multiset of codes flagged simulable; every sub-multiset of order 1 to
    ``max_order`` of it is supported by that bug once. Ordered by order, support (highest first),
    codes. Bugs whose flags do not pair one to one with their codes are an error (ValueError): the
    caller decides whether to skip them.
    """
    support: Counter[tuple[str, ...]] = Counter()
    exact: Counter[tuple[str, ...]] = Counter()
    full: Counter[tuple[str, ...]] = Counter()
    for codes, flags in bugs:
        if len(codes) != len(flags):
            raise ValueError(f"{len(codes)} codes but {len(flags)} flags: {list(codes)}")
        simulable = Counter(c for c, f in zip(codes, flags, strict=True) if f)
        fully = bool(codes) and all(flags)
        if simulable:
            exact[tuple(sorted(simulable.elements()))] += 1
        for sub in sub_multisets(simulable.elements(), 1, max_order):
            support[sub] += 1
            if fully:
                full[sub] += 1
    combos = [Combination(k, n, exact[k], full[k]) for k, n in support.items()]
    combos.sort(key=lambda c: (c.order, -c.support, c.codes))
    return combos


def write_combinations(combos: Sequence[Combination], path: Path, header: Sequence[str] = ()) -> None:
    """Write a combinations CSV with ``#`` comment lines first (where the counts come from)."""
    lines = [f"# {h}" if h else "#" for h in header]
    lines.append("order,codes,support,exact,support_fully_simulable")
    lines += [
        f"{c.order},{' '.join(c.codes)},{c.support},{c.exact},{c.support_fully_simulable}" for c in combos
    ]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
