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
seed evaluated other rows (a fault of the training data) are not paired: their inputs are not the
same test cases, and the caller keeps its note. Runs of one seed that evaluated the same rows with
other labels (a fault or a mutant that changes the labels, ``random.shuffle(y)``, a TCL mutant, in a
program that evaluates on its training data) are paired row by row, the faulty run judged on the
reference's labels: the fixed program is the oracle, and whether the faulty model predicts what it
should is the question per-input killing asks (its own changed labels would make a model that learned
them "right"). Its predictions must be classes, as the reference's labels are. Runs of one seed whose rows differ in bytes but have the same labels in the same order (the
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
    #: some faulty run evaluated the reference's rows with other labels and was judged on the reference's
    relabelled: bool = False

    def keep(self, columns: np.ndarray) -> PairedCorrectness:
        return PairedCorrectness(
            self.reference[:, columns], self.faulty[:, columns], self.counted[:, columns], self.relabelled
        )


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


#: how one instance's two runs are read: the reference's ids, the faulty run's ids (its test cases under
#: the reference's names), and the faulty run's correctness when it is judged on the reference's labels
_Instance = tuple[list[str], list[str], "list[bool] | None"]


def _instance_ids(reference: Any, faulty: Any) -> _Instance | str | None:
    """The ids under which each run of one instance is read (see :data:`_Instance`), None when both
    failed, or why the two runs evaluated other test cases."""
    ids_r, ids_f = run_ids(reference), run_ids(faulty)
    if ids_r is None or ids_f is None:
        if ids_r is None and ids_f is None:
            return None
        known = ids_r if ids_r is not None else ids_f  # may be empty: a run that evaluated no input
        return known, known, None  # type: ignore[return-value]
    if ids_r == ids_f or sorted(ids_r) == sorted(ids_f):
        return ids_r, ids_f, None
    if len(ids_r) == len(ids_f) and list(reference.labels or []) == list(faulty.labels or []):
        return ids_r, ids_r, None  # the same split, rows transformed otherwise by the program: by position
    relabelled = _on_reference_labels(reference, faulty, ids_r, ids_f)
    if relabelled is not None:
        return relabelled
    return f"seed {reference.seed}: {len(set(ids_r) & set(ids_f))} of {len(ids_r)} inputs shared"


def _row(test_case: str) -> str:
    """The row digest of a test-case id (``"<digest>:<label>"``, ``#j`` for a later copy)."""
    return test_case.split(":", 1)[0]


def _on_reference_labels(reference: Any, faulty: Any, ids_r: list[str], ids_f: list[str]) -> _Instance | None:
    """The faulty run read on the reference's test cases where both evaluated the same rows (the same
    row digests, as many times each) with other labels: its ``j``-th copy of a row is the reference's
    ``j``-th copy, and it is right where its predicted class is the reference's label. None when the
    rows differ or either side has no classes to compare."""
    predictions, labels = faulty.predictions, reference.labels
    kinds = {getattr(r.last_evaluation, "prediction_kind", None) for r in (reference, faulty)}
    if kinds != {"class"} or predictions is None or labels is None:
        return None
    if len(predictions) != len(ids_f) or len(labels) != len(ids_r) or len(ids_r) != len(ids_f):
        return None
    rows_r, rows_f = [_row(i) for i in ids_r], [_row(i) for i in ids_f]
    if sorted(rows_r) != sorted(rows_f):
        return None
    positions: dict[str, list[int]] = {}
    for position, row in enumerate(rows_r):
        positions.setdefault(row, []).append(position)
    named, correct = [], []
    for row, predicted in zip(rows_f, predictions, strict=True):
        position = positions[row].pop(0)
        named.append(ids_r[position])
        correct.append(str(predicted) == str(labels[position]))
    return ids_r, named, correct


def _same_inputs(reference: Sequence[Any]) -> list[str] | None:
    """The reference's test cases where every run it completed evaluated the same ones, else None."""
    found = [run_ids(r) for r in reference if r.outcome == Outcome.OK]
    if not found or any(ids is None or ids != found[0] for ids in found):
        return None
    return found[0]


def _rows(
    record: Any, ids: list[str], index: Mapping[str, int], width: int, judged: list[bool] | None = None
) -> tuple[np.ndarray, np.ndarray]:
    """(correct, evaluated) of one run over the universe; a failed run is wrong on ``ids``;
    ``judged``: its correctness on the reference's labels, in place of its own."""
    correct = np.zeros(width, dtype=bool)
    evaluated = np.zeros(width, dtype=bool)
    columns = [index[i] for i in ids]
    evaluated[columns] = True
    own = judged if judged is not None else record.correct
    if record.outcome == Outcome.OK and own is not None:
        correct[columns] = np.asarray(own, dtype=bool)
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
    plans: dict[str, list[tuple[Any, Any, _Instance | None]] | str] = {}
    universe: dict[str, int] = {}
    fixed_set = _same_inputs(ordered_ref)
    for name, records in others.items():
        ordered = _sorted(records)
        plan: list[tuple[Any, Any, _Instance | None]] = []
        for r, f in zip(ordered_ref, ordered, strict=False):
            found = _instance_ids(r, f)
            if found is None and fixed_set is not None:
                found = (fixed_set, fixed_set, None)  # both failed on a fixed test set: both wrong on it
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
            for ids in found[:2] if found else ():
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
            fault_c[row], fault_e = _rows(f, found[1], universe, width, found[2])
            counted[row] = ref_e & fault_e
        relabelled = any(found is not None and found[2] is not None for _, _, found in plan)
        paired[name] = PairedCorrectness(ref_c, fault_c, counted, relabelled)
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


def relabelled_note(programs: Sequence[str]) -> str:
    """What a row says of programs judged on the fixed program's labels (same rows, other labels)."""
    return (
        f"{', '.join(programs)} evaluated the fixed program's inputs with other labels (a fault of the "
        "labels) and is judged on the fixed program's labels"
    )


def mismatch_note(program: str, reason: str) -> str:
    """The note of a program whose runs of one seed evaluated other test cases than the reference's."""
    return (
        f"per-input correctness of {Path(program).name} is on other inputs than the fixed program's "
        f"with the same seed ({reason}: its data differ, e.g. other labels or rows): inputs cannot be "
        "paired, no per-input verdicts"
    )
