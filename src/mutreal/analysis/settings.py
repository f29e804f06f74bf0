"""How runs are decided: the compared metric and its direction, the test and its alpha.

One value for every decision (reproduce, kill, compare, sensitivity, the benchmark campaigns), so
the four settings travel together from the command line to the statistics instead of as four
keyword arguments repeated by every function on the way.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

#: the two-group tests of :mod:`mutreal.stats.two_groups` (DeepCrime's GLM is the study's)
DEFAULT_TEST = "glm"
DEFAULT_ALPHA = 0.05


@dataclass(frozen=True)
class DecisionSettings:
    """``metric``: the compared metric (``None``: the runner's default choice); ``lower_is_better``:
    its direction (``None``: from its name); ``test`` and ``alpha``: the two-group test and level."""

    metric: str | None = None
    lower_is_better: bool | None = None
    test: str = DEFAULT_TEST
    alpha: float = DEFAULT_ALPHA

    @classmethod
    def of(cls, given: DecisionSettings | Mapping[str, Any] | None) -> DecisionSettings:
        """Settings from a command's ``statistics`` mapping (``None`` values mean the default).

        An unknown key is a ``ValueError``: a misspelt setting would otherwise be ignored silently."""
        if isinstance(given, DecisionSettings):
            return given
        data = dict(given or {})
        names = {f.name for f in dataclasses.fields(cls)}
        unknown = sorted(set(data) - names)
        if unknown:
            raise ValueError(f"unknown statistics settings: {', '.join(unknown)} (known: {', '.join(sorted(names))})")
        return cls(**{k: v for k, v in data.items() if v is not None})

    def as_tuple(self) -> tuple[str | None, bool | None, str, float]:
        """(metric, lower_is_better, test, alpha), for unpacking where all four are used."""
        return self.metric, self.lower_is_better, self.test, self.alpha

    def for_bug(self, metric: str | None, lower_is_better: bool | None) -> DecisionSettings:
        """These settings with a manifest row's own ``metric`` / ``lower_is_better`` where it gives them."""
        return dataclasses.replace(
            self,
            metric=metric or self.metric,
            lower_is_better=lower_is_better if lower_is_better is not None else self.lower_is_better,
        )
