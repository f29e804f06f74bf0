"""A combination of fault codes: a multiset of codes and how many real bugs hold it.

A real bug is a *multiset* of fault codes (``["ACH", "ACH", "LCH"]``: two activation changes and a
loss change), so a combination is a sorted tuple with repeats kept. Two places count them: the
mining of classify results (:mod:`mutreal.label.mining`, support only) and the shipped frequency table of
the study's labels (:mod:`mutreal.operator_catalogue`, which also counts exact matches and fully simulable
bugs). Both use this one type and this one sub-multiset enumeration, so a combination read from the
table and one mined from results compare, sort and serialise the same way. It has no heavy imports
(no networkx), because the operator registry loads the table at start-up.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True, order=True)
class Combination:
    """A multiset of fault codes (sorted tuple, repeats kept) and the number of bugs containing it.

    ``support``: bugs whose codes contain the multiset. The shipped table also says ``exact``
    (bugs whose simulable codes are exactly it) and ``support_fully_simulable`` (bugs containing it
    all of whose codes the study flagged simulable); mined combinations leave them None.
    """

    codes: tuple[str, ...]
    support: int
    exact: int | None = None
    support_fully_simulable: int | None = None

    @property
    def order(self) -> int:
        """Number of codes in the multiset, repeats counted (the order of the mutant it suggests)."""
        return len(self.codes)

    def __str__(self) -> str:
        return "{" + ", ".join(self.codes) + "}"

    def to_dict(self) -> dict[str, Any]:
        d: dict[str, Any] = {"codes": list(self.codes), "support": self.support}
        if self.exact is not None:
            d["exact"] = self.exact
        if self.support_fully_simulable is not None:
            d["support_fully_simulable"] = self.support_fully_simulable
        d["order"] = self.order
        return d

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> Combination:
        def count(key: str) -> int | None:
            return None if d.get(key) is None else int(d[key])

        return cls(
            tuple(sorted(str(c) for c in d["codes"])),
            int(d["support"]),
            count("exact"),
            count("support_fully_simulable"),
        )

    def counts_only(self) -> Combination:
        """The combination with its support only (as mining gives it)."""
        return Combination(self.codes, self.support)


def sub_multisets(
    codes: Iterable[str], min_order: int = 1, max_order: int | None = None
) -> set[tuple[str, ...]]:
    """Every distinct sub-multiset of ``codes`` with ``min_order <= size <= max_order``, as sorted tuples.

    ``["ACH", "ACH", "LCH"]`` with orders 2..3 -> ``{(ACH, ACH), (ACH, LCH), (ACH, ACH, LCH)}``.
    Exhaustive: for counting small bugs and for checking the level-wise miner.
    """
    counts = sorted(Counter(codes).items())
    top = sum(c for _, c in counts) if max_order is None else max_order
    found: set[tuple[str, ...]] = set()

    def walk(i: int, chosen: list[str]) -> None:
        if i == len(counts):
            if min_order <= len(chosen) <= top:
                found.add(tuple(chosen))
            return
        code, available = counts[i]
        for take in range(0, available + 1):
            if len(chosen) + take > top:
                break
            walk(i + 1, chosen + [code] * take)

    walk(0, [])
    return found
