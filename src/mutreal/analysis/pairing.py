"""Per-input correctness paired by the input's identity, for programs whose data differ per seed.

Real programs often make their data at random without a seed (``np.random.randn``, a shuffle, random
boards) or split fixed data with ``train_test_split`` and no ``random_state``. mutreal seeds every
run, so for seed ``k`` the fixed, buggy and mutant programs see the same data, but seeds ``k`` and
``k'`` see other inputs: "input t" has no position that means the same input in every run. The
worker names each evaluated test case by its content (``EvaluateRecord.input_ids``: the input row's
bytes, shape and dtype, and its label), and this module pairs by that id instead of the position:

- instances are still paired by seed (the reference's run ``k`` with the faulty program's run ``k``);
- in instance ``k`` an input counts when both paired runs evaluated it; a failed run is wrong on
  every input of its paired run (a crash fails every test), and two failed runs count nothing,
  unless the reference evaluated the same inputs in every run it completed (a fixed test set,
  only another program's data differ per seed): then both are wrong on those, as positionally,
  so a program's KP does not depend on which other programs it is compared with;
- each input then has its own ``n`` (the instances it counted in), and KP, Fisher, coupling and
  IoU use it (:mod:`mutreal.stats.killing_probability`, :mod:`mutreal.stats.fisher`).

The same row evaluated twice in one run (duplicates in the test set) is the same test case; its
``j``-th copy is paired with the ``j``-th copy of the other run. Two programs whose runs of one
seed evaluated other inputs (other labels or rows: a fault of the training data, a mutant that
changes labels) are not paired: their inputs are not the same test cases, and the caller keeps its
note. Runs of one seed whose rows differ in bytes but have the same labels in the same order (the
same split, transformed differently by the program, as a missing normalisation does) are paired by
position within that seed, with the reference run's ids, as positions are paired everywhere when
the data are fixed.

Nothing here trains.
"""

from __future__ import annotations

import statistics
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from mutreal.execution.records import Outcome

#: how the rows say inputs were paired
BY_POSITION = "by position: the same inputs in every run"


@dataclass
class PairedCorrectness:
    """A reference and a faulty program's correctness over shared inputs, instance by instance.

    All three are (paired instances x inputs): ``counted[k, t]`` when both runs of instance ``k``
    evaluated input ``t`` (or one of them failed and the other evaluated it)."""

    reference: np.ndarray
    faulty: np.ndarray
    counted: np.ndarray

    def keep(self, columns: np.ndarray) -> PairedCorrectness:
        return PairedCorrectness(self.reference[:, columns], self.faulty[:, columns], self.counted[:, columns])


def run_ids(record: Any) -> list[str] | None:
    """A completed run's test-case ids in the order of its per-input correctness, the ``j``-th copy of
    a duplicated test case marked ``#j``; None for a failed run or one without ids."""
    if record.outcome != Outcome.OK:
        return None
    last = record.last_evaluation
    ids = getattr(last, "input_ids", None) if last is not None else None
    correct = record.correct
    if ids is None or correct is None or len(ids) != len(correct):
        return None
    seen: dict[str, int] = {}
    keyed = []
    for name in ids:
        copy = seen.get(name, 0)
        seen[name] = copy + 1
        keyed.append(f"{name}#{copy}" if copy else name)
    return keyed


def content_pairable(*groups: Sequence[Any]) -> bool:
    """Whether these programs' runs can be paired by content: every completed run has per-input
    correctness with ids, on one kind of set (all ``evaluate``, or all ``validation``...), and at
    least one run completed."""
    done = [r for records in groups for r in records if r.outcome == Outcome.OK]
    if not done or any(run_ids(r) is None for r in done):
        return False
    return len(sources(*groups)) == 1


def sources(*groups: Sequence[Any]) -> set[str]:
    """The kinds of set (``evaluate``, ``validation``, ``training``) the completed runs' per-input
    records are on."""
    return {
        getattr(r.last_evaluation, "source", "evaluate")
        for records in groups
        for r in records
        if r.outcome == Outcome.OK and r.last_evaluation is not None
    }


def unpairable_note(reference: Sequence[Any], records: Sequence[Any]) -> str:
    """Why a program is not paired by content with the reference: other sets, or no ids."""
    found = sources(reference, records)
    if len(found) > 1:
        return (
            f"per-input correctness is on different sets ({', '.join(sorted(found))}): inputs cannot be "
            "paired, no per-input verdicts"
        )
    return "no per-input correctness with input ids on every completed run: no KP, CS, IoU"


def _sorted(records: Sequence[Any]) -> list[Any]:
    return sorted(records, key=lambda r: r.seed)


def _instance_ids(reference: Any, faulty: Any) -> tuple[list[str], list[str]] | str | None:
    """The ids under which each run of one instance is read: (reference's, faulty's), None when both
    failed, or why the two runs evaluated other test cases."""
    ids_r, ids_f = run_ids(reference), run_ids(faulty)
    if ids_r is None or ids_f is None:
        if ids_r is None and ids_f is None:
            return None
        known = ids_r if ids_r is not None else ids_f  # may be empty: a run that evaluated no input
        return known, known  # type: ignore[return-value]
    if ids_r == ids_f or sorted(ids_r) == sorted(ids_f):
        return ids_r, ids_f
    if len(ids_r) == len(ids_f) and list(reference.labels or []) == list(faulty.labels or []):
        return ids_r, ids_r  # the same split, rows transformed otherwise by the program: by position
    return f"seed {reference.seed}: {len(set(ids_r) & set(ids_f))} of {len(ids_r)} inputs shared"


def _same_inputs(reference: Sequence[Any]) -> list[str] | None:
    """The reference's test cases where every run it completed evaluated the same ones, else None."""
    found = [run_ids(r) for r in reference if r.outcome == Outcome.OK]
    if not found or any(ids is None or ids != found[0] for ids in found):
        return None
    return found[0]


def _rows(record: Any, ids: list[str], index: Mapping[str, int], width: int) -> tuple[np.ndarray, np.ndarray]:
    """(correct, evaluated) of one run over the universe; a failed run is wrong on ``ids``."""
    correct = np.zeros(width, dtype=bool)
    evaluated = np.zeros(width, dtype=bool)
    columns = [index[i] for i in ids]
    evaluated[columns] = True
    if record.outcome == Outcome.OK and record.correct is not None:
        correct[columns] = np.asarray(record.correct, dtype=bool)
    return correct, evaluated


def pair_by_content(
    reference: Sequence[Any], others: Mapping[str, Sequence[Any]]
) -> tuple[list[str], dict[str, PairedCorrectness | str]]:
    """Every program in ``others`` paired with ``reference`` by content, over one set of inputs.

    Returns the inputs (ids, in the order first seen: the reference's runs by seed, then the
    others') and per program its :class:`PairedCorrectness`, or the reason it cannot be paired (its
    runs of one seed evaluated other test cases than the reference's). Inputs counted in no pair
    are left out."""
    ordered_ref = _sorted(reference)
    plans: dict[str, list[tuple[Any, Any, tuple[list[str], list[str]] | None]] | str] = {}
    universe: dict[str, int] = {}
    fixed_set = _same_inputs(ordered_ref)
    for name, records in others.items():
        ordered = _sorted(records)
        plan: list[tuple[Any, Any, tuple[list[str], list[str]] | None]] = []
        for r, f in zip(ordered_ref, ordered, strict=False):
            found = _instance_ids(r, f)
            if found is None and fixed_set is not None:
                found = (fixed_set, fixed_set)  # both failed on a fixed test set: both wrong on it
            if isinstance(found, str):
                plans[name] = found
                break
            plan.append((r, f, found))
        else:
            plans[name] = plan
    for plan in plans.values():
        if isinstance(plan, str):
            continue
        for _, _, found in plan:
            for ids in found or ():
                for i in ids:
                    universe.setdefault(i, len(universe))
    width = len(universe)
    paired: dict[str, PairedCorrectness | str] = {}
    for name, plan in plans.items():
        if isinstance(plan, str):
            paired[name] = plan
            continue
        k = len(plan)
        ref_c, fault_c, counted = (np.zeros((k, width), dtype=bool) for _ in range(3))
        for row, (r, f, found) in enumerate(plan):
            if found is None:
                continue
            ref_c[row], ref_e = _rows(r, found[0], universe, width)
            fault_c[row], fault_e = _rows(f, found[1], universe, width)
            counted[row] = ref_e & fault_e
        paired[name] = PairedCorrectness(ref_c, fault_c, counted)
    used = np.zeros(width, dtype=bool)
    for pair in paired.values():
        if not isinstance(pair, str):
            used |= pair.counted.any(axis=0)
    columns = np.flatnonzero(used)
    ids = list(universe)
    return [ids[c] for c in columns], {
        name: pair if isinstance(pair, str) else pair.keep(columns) for name, pair in paired.items()
    }


def content_note(n_inputs: int, counts: Sequence[int]) -> str:
    """What a row says about pairing by content: how many inputs, and how often each was seen."""
    seen = [c for c in counts if c > 0]
    median = statistics.median(seen) if seen else 0
    return (
        "by input content: the runs evaluated other inputs (data made or split without a seed); "
        f"{n_inputs} distinct inputs, median n per input {median:g} (an input seen in one run has KP 0 or 1 "
        "and a wide interval)"
    )


def mismatch_note(program: str, reason: str) -> str:
    """The note of a program whose runs of one seed evaluated other test cases than the reference's."""
    return (
        f"per-input correctness of {Path(program).name} is on other inputs than the fixed program's "
        f"with the same seed ({reason}: its data differ, e.g. other labels or rows): inputs cannot be "
        "paired, no per-input verdicts"
    )
