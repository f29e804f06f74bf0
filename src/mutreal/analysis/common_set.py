"""The one set of inputs a comparison judges every program on, where their last sets differ.

Per-input killing, coupling and IoU compare two programs input by input, so both must have been
judged on the same inputs. Each run's per-input record is the data of its last ``evaluate`` call,
else (mutreal predicts it after the program) its validation data, else its training data. A fault
can remove the evaluate call itself, or the fixed program adds one: then the buggy program's runs
are judged on validation data and the fixed program's on its test set, and nothing pairs. The
worker also records the validation data of a program that evaluated (it costs one prediction of
a share of the training data), so such a pair can be judged on the set both have: the best set,
in the order :data:`PREFERENCE`, that every completed run of every program recorded.

:func:`on_common_set` returns the records as views on that set (every other attribute is the
record's own) and a note for the row; records whose sets already agree are returned unchanged.

Nothing here trains.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from mutreal.execution.records import Outcome, PerInputView

#: per-input sets, best first: a program's own test set, then the held-out share, then training data
PREFERENCE = ("evaluate", "validation", "training")


class OnSet(PerInputView):
    """A run record whose per-input record is its last record on ``source``."""

    def __init__(self, record: Any, source: str) -> None:
        self._record = record
        self.per_input_source = source

    def __getattr__(self, name: str) -> Any:
        return getattr(self._record, name)

    @property
    def last_evaluation(self) -> Any:
        return _on(self._record, self.per_input_source)


def _on(record: Any, source: str) -> Any:
    """The record's last evaluation on ``source`` that has predictions, or None."""
    found = [
        e for e in getattr(record, "evaluations", []) or [] if getattr(e, "source", "evaluate") == source
    ]
    found = [e for e in found if e.predictions]
    return found[-1] if found else None


def _default_source(record: Any) -> str | None:
    last = record.last_evaluation
    return getattr(last, "source", "evaluate") if last is not None and last.predictions else None


def recorded_sets(records: Sequence[Any]) -> list[str]:
    """The sets (in :data:`PREFERENCE` order) on which every completed run of ``records`` has
    per-input predictions; all of them when no run completed (such a program constrains nothing)."""
    done = [r for r in records if r.outcome == Outcome.OK]
    return [s for s in PREFERENCE if all(_on(r, s) is not None for r in done)]


def on_common_set(
    buggy: Sequence[Any], fixed: Sequence[Any], mutants: Mapping[str, Sequence[Any]]
) -> tuple[Sequence[Any], Sequence[Any], dict[str, Sequence[Any]], str | None]:
    """``(buggy, fixed, mutants, note)``: the records on one per-input set where the buggy and fixed
    programs' last sets differ and a set common to every program (else to those two) exists; else
    the records as given and no note."""
    groups = {"buggy": buggy, "fixed": fixed, **mutants}
    defaults = {
        s
        for records in (buggy, fixed)
        for r in records
        if r.outcome == Outcome.OK and (s := _default_source(r))
    }
    if len(defaults) <= 1:  # the fault pair agrees: a mutant judged elsewhere keeps its own note
        return buggy, fixed, dict(mutants), None
    recorded = {name: recorded_sets(records) for name, records in groups.items()}
    shared = [s for s in PREFERENCE if all(s in sets for sets in recorded.values())]
    if not shared:
        shared = [s for s in PREFERENCE if s in recorded["buggy"] and s in recorded["fixed"]]
    if not shared:
        return buggy, fixed, dict(mutants), None
    source = shared[0]
    note = (
        f"per-input correctness on every program's {source} data: the programs' last per-input sets differ "
        f"({', '.join(s for s in PREFERENCE if s in defaults)}; a fault that adds or removes an evaluate call "
        f"does so), and {source} is the best set every completed run recorded"
    )

    def view(records: Sequence[Any]) -> list[Any]:
        return [OnSet(r, source) for r in records]

    return view(buggy), view(fixed), {name: view(records) for name, records in mutants.items()}, note
