"""mutreal's realism figures beside Ahmed et al.'s, on the same bugs and the same DeepCrime mutants.

Why: mutreal's coupling strength (CS) and detectability IoU were only ever checked against
themselves. Ahmed et al. published the same two measures for DeepCrime's mutants of real faults
(:mod:`mutreal.study.published_realism` reads them); where a bug of theirs is a program of a runtime
manifest, mutreal can make a sample of the same mutants (by DeepCrime name), train them beside the
fault with ``compare`` and set the two sets of figures side by side. This module holds the pure
part of that comparison, so that ``benchmarks/realism_published.py`` (which trains) stays thin and
the report (:mod:`mutreal.report.published`) reads the table it writes:

- :func:`sample_mutants`: which of their mutants to train (the rule is :func:`sample_rule`);
- :func:`join_rows`: their row and compare's row of the same mutant, by DeepCrime name;
- :func:`spearman`, :func:`median_abs_difference`, :func:`position`: the figures;
- :func:`bug_row`: one bug's row of the table, with the reasons of a disagreement read from data;
- :func:`summary`: the whole run's figures.
"""

from __future__ import annotations

import math
from collections import Counter, defaultdict
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from statistics import median
from typing import Any

from mutreal.study.published_realism import PublishedMutant

#: their reliability rule (scripts/quantify_realism.py), stated beside mutreal's in every table
THEIR_RELIABLE_RULE = (
    "reliable (Ahmed et al.): at least 5 inputs whose 90% Wilson intervals of KP(mutant) and KP(fault) "
    "do not overlap, and a mean interval width of at most 0.5"
)
#: instances per model in their training (5 as far as their scripts show)
THEIR_INSTANCES = 5
#: models they train per bug besides the mutants: the faulty and the original (clean) program
THEIR_EXTRA_MODELS = 2
#: a bug's comparison is read as a disagreement from these on (the issue's thresholds)
RHO_THRESHOLD, DIFFERENCE_THRESHOLD = 0.3, 0.3
#: the sample's defaults: mutants per bug, operators at least
SAMPLE_SIZE, MIN_OPERATORS = 12, 4
#: the schema of the table :func:`table` writes (the report refuses another)
TABLE_FORMAT = "mutreal-published-realism/1"


def operator_key(name: str) -> str:
    """The DeepCrime operator name of a mutant name (``change_activation_function`` of
    ``change_activation_function_mutated0_MP_elu_1``)."""
    return name.split("_mutated", 1)[0]


def sample_rule(size: int = SAMPLE_SIZE, min_operators: int = MIN_OPERATORS) -> str:
    """The sample's rule in words (printed by the benchmark and kept in its table)."""
    k = _spread_operators(size, min_operators)
    return (
        f"of the bug's published mutants that mutreal makes and that have a published CS: first, from each "
        f"of up to {k} operators (most mutants first, then by name), the mutant at the operator's median "
        f"CS; then, up to {size} in all, the unused mutant nearest each of evenly spaced CS targets from "
        f"the lowest to the highest published CS (ties by name); all of them when there are at most {size}"
    )


def _spread_operators(size: int, min_operators: int) -> int:
    return max(min_operators, size // 3)


def sample_mutants(
    candidates: Iterable[PublishedMutant], size: int = SAMPLE_SIZE, min_operators: int = MIN_OPERATORS
) -> list[PublishedMutant]:
    """A sample of ``candidates`` (their mutants that mutreal can make) spread over operators and CS.

    Guarantees (:func:`sample_rule`): ``min(size, n)`` mutants of the ``n`` with a CS, no name twice;
    at least ``min(min_operators, operators, size - 2)`` operators; the lowest and the highest published
    CS are in it when ``size`` leaves room for the CS targets. Deterministic: the same candidates in
    any order give the same sample."""
    if size < 1:
        raise ValueError(f"a sample needs at least one mutant, not {size}")
    first: dict[str, PublishedMutant] = {}  # a name given twice counts once, at its lowest CS
    for m in sorted((m for m in candidates if m.cs is not None), key=lambda m: (m.cs, m.name)):
        first.setdefault(m.name, m)
    pool = list(first.values())
    if len(pool) <= size:
        return pool
    by_op: dict[str, list[PublishedMutant]] = defaultdict(list)
    for m in pool:
        by_op[operator_key(m.name)].append(m)
    ops = sorted(by_op, key=lambda op: (-len(by_op[op]), op))
    chosen: dict[str, PublishedMutant] = {}
    for op in ops[: min(_spread_operators(size, min_operators), size - 2 if size > 2 else size)]:
        group = by_op[op]  # sorted by CS already
        pick = group[(len(group) - 1) // 2]
        chosen[pick.name] = pick
    left = size - len(chosen)
    lo, hi = pool[0].cs, pool[-1].cs
    targets = [lo] if left == 1 else [lo + (hi - lo) * i / (left - 1) for i in range(left)]
    for target in targets:
        free = [m for m in pool if m.name not in chosen]
        pick = min(free, key=lambda m: (abs(m.cs - target), m.name))
        chosen[pick.name] = pick
    return sorted(chosen.values(), key=lambda m: (m.cs, m.name))


#: a sampled mutant's reason that says its operator cannot be measured on this program here
UNPAIRED = "cannot be paired"


def can_top_up(row: Mapping[str, Any], wanted: int) -> bool:
    """Whether more mutants can give a bug's row more figures: fewer than ``wanted`` measured, and a
    fault that kills some input here (with no KP for the fault, or a fault not reproduced, no mutant
    of any operator gets a CS)."""
    return int(row.get("matched") or 0) < wanted and bool((row.get("fault") or {}).get("inputs_killing"))


def top_up(
    candidates: Iterable[PublishedMutant],
    sample: Sequence[PublishedMutant],
    measured: Sequence[Mapping[str, Any]],
    more: int,
    min_operators: int = MIN_OPERATORS,
) -> tuple[list[PublishedMutant], list[str]]:
    """``more`` of ``candidates`` beyond ``sample``, where too few of the sample got a figure here
    (``measured``: the row's mutants, :meth:`MatchedMutant.to_dict`), taken as :func:`sample_mutants`
    takes a sample; none of an operator whose sampled mutants could not be paired here (per-input
    correctness on validation data whose labels the operator changed: every mutant of it would be
    unpaired). Returns them and the operators left out, sorted."""
    left_out = sorted(
        {operator_key(m["name"]) for m in measured if m.get("our_cs") is None and UNPAIRED in str(m.get("reason"))}
    )
    used = {m.name for m in sample}
    rest = [m for m in candidates if m.name not in used and operator_key(m.name) not in left_out]
    if more < 1 or not rest:
        return [], left_out
    return sample_mutants(rest, more, min(min_operators, more)), left_out


@dataclass
class MatchedMutant:
    """One DeepCrime mutant measured on both sides: their figures and mutreal's."""

    name: str
    their_cs: float | None
    their_iou: float | None
    our_cs: float | None
    our_iou: float | None
    their_reliable: bool | None = None
    our_reliable: bool | None = None
    #: why mutreal has no figure for it (compare's reason, or its runs' outcomes)
    reason: str | None = None
    #: every run of the mutant crashed (before s12-outcomes a crash counted as a kill of every input)
    crashed: bool = False
    #: runs whose per-input classes do not give the mutant's own accuracy (compare's count)
    accuracy_disagreements: int = 0
    #: the mutant kills no input here while the fault kills some: mutreal's CS is 0/0, scored 0 as
    #: their script scores it (:data:`NO_KILL_RULE`)
    no_kill: bool = False

    def to_dict(self) -> dict[str, Any]:
        return dict(self.__dict__)


#: how a mutant that kills no input gets a CS in the comparison (their scripts/quantify_realism.py
#: starts its matrix at zeros and writes a CS only where the mutant's KPs sum above 0)
NO_KILL_RULE = (
    "a mutant that kills no input here, while the fault kills some, is scored CS 0 (0/0) as Ahmed et al.'s "
    "quantify_realism.py scores theirs (their matrix starts at 0); its IoU is 0 by definition"
)


def _kills_nothing(entry: Mapping[str, Any]) -> bool:
    """Whether compare measured the mutant and it killed no input while the fault killed some: its
    CS is 0/0 (compare says none), its IoU 0 (compare says 0, which needs the fault's KP)."""
    kp = entry.get("kp")
    return (
        entry.get("coupling") is None
        and isinstance(kp, Mapping)
        and kp.get("inputs_killing") == 0
        and not entry.get("similarity_reason")
        and not entry.get("failure")
        and _float(entry.get("iou")) == 0.0
    )


def _our_reason(entry: Mapping[str, Any], notes: Sequence[str] = ()) -> str | None:
    """Why compare gave this mutant no CS: its own reason when it says one, else the row's note on
    its file (``<file>: ...``), else whether it killed anything, else its runs' outcomes."""
    if entry.get("coupling") is not None:
        return None
    for key in ("similarity_reason", "reason"):  # compare's own word on the missing figure
        if entry.get(key):
            return str(entry[key])
    failure = entry.get("failure")  # a run that failed for mutreal's, the harness's or its own reasons
    if isinstance(failure, Mapping) and failure.get("reason"):
        return f"{failure.get('kind')}: {failure.get('reason')}"
    prefix = f"{entry.get('file')}: "
    for note in notes:
        if entry.get("file") and note.startswith(prefix):
            return note[len(prefix) :]
    kp = entry.get("kp")
    if isinstance(kp, Mapping) and kp.get("inputs_killing") == 0:
        return f"the mutant kills no input in {kp.get('n_instances')} runs: CS undefined"
    outcomes = entry.get("outcomes")
    if isinstance(outcomes, Mapping) and outcomes:
        return "no CS; runs: " + ", ".join(f"{k} {v}" for k, v in sorted(outcomes.items()))
    return "no CS in compare's row"


def join_rows(
    published: Iterable[PublishedMutant],
    compared: Iterable[Mapping[str, Any]],
    name_of: Callable[[Mapping[str, Any]], str | None],
    notes: Sequence[str] = (),
) -> list[MatchedMutant]:
    """Their mutants and compare's mutant entries of the same DeepCrime name (``name_of`` reads the
    name of an entry: the file it was written to), by name; a name on one side only is left out.
    ``notes`` are compare's row notes, read for why a mutant has no figure."""
    theirs = {m.name: m for m in published}
    matched = []
    for entry in compared:
        name = name_of(entry)
        if name is None or name not in theirs:
            continue
        m = theirs[name]
        no_kill = _kills_nothing(entry)  # their CS of a mutant that killed nothing is their matrix's 0
        matched.append(
            MatchedMutant(
                name,
                m.cs,
                m.iou,
                0.0 if no_kill else _float(entry.get("coupling")),
                _float(entry.get("iou")),
                m.cs_reliable,
                entry.get("reliable"),
                f"the mutant kills no input in {entry['kp'].get('n_instances')} runs: CS 0 (0/0, as theirs)"
                if no_kill
                else _our_reason(entry, notes),
                _all_crashed(entry),
                int(entry.get("accuracy_disagreements") or 0),
                no_kill,
            )  # fmt: skip
        )
    return sorted(matched, key=lambda x: x.name)


def _all_crashed(entry: Mapping[str, Any]) -> bool:
    outcomes = entry.get("outcomes")
    return isinstance(outcomes, Mapping) and bool(outcomes) and not outcomes.get("ok")


def _float(value: Any) -> float | None:
    try:
        number = float(value)
    except (TypeError, ValueError):
        return None
    return None if math.isnan(number) else number


def _pairs(xs: Sequence[float | None], ys: Sequence[float | None]) -> list[tuple[float, float]]:
    return [(x, y) for x, y in zip(xs, ys, strict=True) if x is not None and y is not None]


def spearman(xs: Sequence[float | None], ys: Sequence[float | None]) -> float | None:
    """Spearman's rho over the pairs where both sides have a value; None with fewer than 3 pairs or a
    constant side (rho is undefined there, and saying 0 would read as a disagreement)."""
    from scipy.stats import spearmanr

    pairs = _pairs(xs, ys)
    if len(pairs) < 3 or len({x for x, _ in pairs}) < 2 or len({y for _, y in pairs}) < 2:
        return None
    rho = spearmanr([x for x, _ in pairs], [y for _, y in pairs]).statistic
    return None if rho is None or math.isnan(rho) else float(rho)


def median_abs_difference(xs: Sequence[float | None], ys: Sequence[float | None]) -> float | None:
    """The median of |x - y| over the pairs where both sides have a value."""
    pairs = _pairs(xs, ys)
    return float(median(abs(x - y) for x, y in pairs)) if pairs else None


def position(value: float | None, distribution: Iterable[float | None]) -> dict[str, Any] | None:
    """Where ``value`` falls among ``distribution``: the share of its values at or below it (a
    percentile rank), and the distribution's median and best, so a row can say "above their median"."""
    values = sorted(v for v in distribution if v is not None)
    if value is None or not values:
        return None
    return {
        "value": value,
        "rank": sum(1 for v in values if v <= value) / len(values),
        "median": float(median(values)),
        "best": values[-1],
        "n": len(values),
        "at_least_median": value >= median(values),
    }


def their_trainings(n_mutants: int) -> int:
    """The trainings their grid used for a bug: its published mutants plus the faulty and the
    original program, each :data:`THEIR_INSTANCES` times."""
    return (n_mutants + THEIR_EXTRA_MODELS) * THEIR_INSTANCES


def _median(values: Iterable[float | None]) -> float | None:
    present = [v for v in values if v is not None]
    return float(median(present)) if present else None


def disagreement_reasons(
    matched: Sequence[MatchedMutant],
    *,
    runs: int,
    fault: Mapping[str, Any] | None,
    rho: float | None,
    difference: float | None,
    min_runs: int = 5,
    pairing: str | None = None,
    sides: Mapping[str, Sequence[float | None]] | None = None,
) -> list[str]:
    """Why mutreal's figures and theirs may differ for a bug, as far as the data tell: empty when the
    bug is within the thresholds. Each reason names the figure it comes from. ``sides`` holds the
    buggy and the fixed program's metric per run (compare's ``values``)."""
    within = (rho is None or rho >= RHO_THRESHOLD) and (
        difference is None or difference <= DIFFERENCE_THRESHOLD
    )
    if within and rho is not None:
        return []
    reasons = []
    kp = (fault or {}).get("kp") or {}
    not_reproduced = (fault or {}).get("not_reproduced")
    if not fault:
        reasons.append("the fault has no figures here (the fixed or buggy program did not train)")
    elif isinstance(not_reproduced, Mapping) and not_reproduced.get("reason"):
        reasons.append(f"{not_reproduced['reason']} (their fault did kill): no mutreal CS/IoU")
    elif not kp:
        reasons.append("no per-input correctness for the fault: no KP, so no CS/IoU here")
    elif not kp.get("inputs_killing"):
        reasons.append(
            f"fault not reproduced here: it kills none of {kp.get('n_inputs')} inputs in {runs} runs "
            "(their fault did kill), so every mutreal CS is 0 or undefined"
        )
    elif not fault.get("killed"):
        reasons.append(
            f"the fault kills {kp.get('inputs_killing')} of {kp.get('n_inputs')} inputs but its metric does "
            "not differ from the fixed program's here (a weak fault: KP near the noise)"
        )
    if runs < min_runs:
        reasons.append(f"too few runs: {runs} per program here against their 5 (KP steps of 1/{runs})")
    if pairing and "median n per input" in pairing:
        reasons.append(f"inputs differ between runs here: {pairing}")
    crashed = [m for m in matched if m.crashed and m.our_cs is not None]
    if crashed:
        reasons.append(
            f"{len(crashed)} of {len(matched)} mutants crashed in every run and still have a CS here "
            "(a crash read as a kill of every input)"
        )
    reasons += _side_reasons(sides or {})
    off = [m for m in matched if m.accuracy_disagreements]
    if off:
        names = ", ".join(sorted({operator_key(m.name) for m in off}))
        reasons.append(
            f"{len(off)} of {len(matched)} mutants ({names}) have runs whose per-input classes do not give "
            "their own accuracy: mutreal's KP counts other classes than their metric (before runner 6, a one-unit "
            "output read as a logit; since, NaN outputs: no class for mutreal, Keras' argmax takes class 0)"
        )
    silent = [m for m in matched if m.no_kill]
    if silent:
        reasons.append(
            f"{len(silent)} of {len(matched)} mutants kill no input here: CS 0 by their rule (0/0), "
            f"theirs {', '.join(_g(m.their_cs) for m in silent)}"
        )
    missing = [m for m in matched if m.our_cs is None]
    if missing:
        why = Counter(m.reason or "no CS" for m in missing).most_common(2)
        reasons.append(
            f"{len(missing)} of {len(matched)} mutants have no mutreal CS ({'; '.join(w for w, _ in why)})"
        )
    both = [m for m in matched if m.our_reliable is False and m.their_reliable is False]
    if both and len(both) * 2 >= len(matched):
        reasons.append(f"unreliable on both sides for {len(both)} of {len(matched)} mutants")
    elif matched and all(m.our_reliable is False for m in matched):
        reasons.append("no mutreal figure of this bug is reliable by mutreal's rule")
    ours = [m.our_cs for m in matched if m.our_cs is not None]
    if ours and len(set(ours)) == 1:
        reasons.append(f"every mutreal CS is {ours[0]:g}: no ranking to correlate")
    if rho is None and len(_pairs([m.their_cs for m in matched], [m.our_cs for m in matched])) < 3:
        reasons.append("fewer than 3 mutants with a CS on both sides: rho undefined")
    if kp.get("n_inputs"):
        reasons.append(
            f"another test set, as far as can be told: mutreal scores the benchmark program's own "
            f"{kp['n_inputs']} evaluated inputs; their adapted programs' test sets are not published"
        )
    return reasons


def _g(value: float | None) -> str:
    return "-" if value is None else f"{value:.2g}"


#: a program whose metric spans more than this over its runs is unstable (its own failing runs count in KP)
UNSTABLE_SPREAD = 0.2


def _side_reasons(sides: Mapping[str, Sequence[float | None]]) -> list[str]:
    """What the fault's and the fix's own runs say about a bug's KP: a buggy program whose metric is
    the same in every run while the fix's is not predicts the same way whatever the seed (one class
    for every input: its KP is the fix's correctness on the inputs of the other classes, and a
    mutant's CS the share of its kills on those); a fix whose metric spans more than
    :data:`UNSTABLE_SPREAD` fails in some runs itself, and its failing runs are kills of no one."""
    buggy = [v for v in sides.get("buggy") or () if v is not None]
    fixed = [v for v in sides.get("fixed") or () if v is not None]
    out = []
    if len(buggy) > 1 and len(set(buggy)) == 1 and len(set(fixed)) > 1:
        out.append(
            f"the buggy program scores {buggy[0]:.3g} in every run (a constant prediction, as far as its "
            "metric shows): its KP is the fixed program's correctness on the inputs it always gets wrong, "
            "and a mutant's CS the share of its kills among those, which another test set's class balance changes"
        )
    if len(fixed) > 1 and max(fixed) - min(fixed) > UNSTABLE_SPREAD:
        out.append(
            f"the fixed program is unstable here: its metric spans {min(fixed):.3g} to {max(fixed):.3g} over "
            f"{len(fixed)} runs (its weak runs kill nothing and mask kills: KP steps of 1/{len(fixed)} move with them)"
        )
    return out


def reconstruction_figures(
    entries: Sequence[Mapping[str, Any]],
    matched_ours_iou: Sequence[float | None],
    published: Sequence[PublishedMutant],
    is_combined: Callable[[Mapping[str, Any]], bool] | None = None,
    notes: Sequence[str] = (),
) -> dict[str, Any] | None:
    """mutreal's reconstructing mutant (the one ``is_combined`` names: the HOM of every simulable
    component, or the only one; else the last entry) against the matched DeepCrime mutants measured
    in the same runs and against their published distribution of the bug."""
    if not entries:
        return None
    combined = [e for e in entries if is_combined is not None and is_combined(e)]
    chosen = combined[0] if combined else entries[-1]
    cs, iou = _float(chosen.get("coupling")), _float(chosen.get("iou"))
    return {
        "file": "/".join(Path(str(chosen.get("file") or "")).parts[-2:]),
        "operator": chosen.get("operator"),
        "mutants": len(entries),
        # an exact reconstruction is the buggy program again: its CS/IoU of 1 with seeded runs is by construction
        "exact": (chosen.get("provenance") or {}).get("exact"),
        "cs": cs,
        "iou": iou,
        "reliable": chosen.get("reliable"),
        "crashed": _all_crashed(chosen),
        "reason": _our_reason(chosen, notes),
        "vs_same_runs_iou": position(iou, matched_ours_iou),
        "vs_published_cs": position(cs, [m.cs for m in published]),
        "vs_published_iou": position(iou, [m.iou for m in published]),
    }


def _runs_of(side: Mapping[str, Any] | None) -> int | None:
    """The runs a program got in compare's row: its outcomes counted (a run that failed counts)."""
    outcomes = (side or {}).get("outcomes")
    if isinstance(outcomes, Mapping) and outcomes:
        return sum(int(v or 0) for v in outcomes.values())
    return None


def runs_per_program(compared: Mapping[str, Any]) -> dict[str, Any]:
    """How many runs each program of a bug got: the buggy and the fixed program, and the fewest and
    most of any mutant (compare plans ``--runs`` for each; a stopped or failed run shows here)."""
    mutants = [n for n in (_runs_of(e) for e in compared.get("mutants") or []) if n is not None]
    return {
        "buggy": _runs_of(compared.get("buggy")),
        "fixed": _runs_of(compared.get("fixed")),
        "mutants_min": min(mutants, default=None),
        "mutants_max": max(mutants, default=None),
    }


def bug_row(
    bug: str,
    runtime_id: str,
    published: Sequence[PublishedMutant],
    sample: Sequence[PublishedMutant],
    compared: Mapping[str, Any],
    name_of: Callable[[Mapping[str, Any]], str | None],
    is_reconstruction: Callable[[Mapping[str, Any]], bool],
    is_combined: Callable[[Mapping[str, Any]], bool] | None = None,
) -> dict[str, Any]:
    """One bug's row of the table: their figures and mutreal's over the same mutants, rho and the
    median difference for CS and IoU, the fault's KP, the reconstructing mutant against both
    distributions, the trainings of each side, and the reasons of a disagreement.

    ``name_of`` gives a compare entry's DeepCrime name, ``is_reconstruction`` says whether it is one
    of mutreal's reconstructing mutants, ``is_combined`` whether it is the one that stands for the
    whole fault (a compare folder lists its files sorted, not in the order they were made)."""
    entries = list(compared.get("mutants") or [])
    dc_entries = [e for e in entries if not is_reconstruction(e)]
    notes = [str(n) for n in compared.get("notes") or []]
    matched = join_rows(sample, dc_entries, name_of, notes)
    runs = int(compared.get("runs") or 0)
    fault = compared.get("fault")
    cs_rho = spearman([m.their_cs for m in matched], [m.our_cs for m in matched])
    iou_rho = spearman([m.their_iou for m in matched], [m.our_iou for m in matched])
    cs_diff = median_abs_difference([m.their_cs for m in matched], [m.our_cs for m in matched])
    iou_diff = median_abs_difference([m.their_iou for m in matched], [m.our_iou for m in matched])
    kp = (fault or {}).get("kp") or {}
    pairing = (compared.get("per_input") or {}).get("pairing")
    reasons = disagreement_reasons(
        matched,
        runs=runs,
        fault=fault,
        rho=cs_rho,
        difference=cs_diff,
        pairing=str(pairing) if pairing else None,
        sides={side: list((compared.get(side) or {}).get("values") or []) for side in ("buggy", "fixed")},
    )
    if compared.get("status") not in (None, "ok"):
        reasons.insert(
            0, f"compare: {compared.get('status')}: {compared.get('error') or compared.get('reason')}"
        )
    return {
        "bug": bug,
        "runtime_id": runtime_id,
        "status": compared.get("status"),
        "published_mutants": len(published),
        "sampled": len(sample),
        "sample_operators": len({operator_key(m.name) for m in sample}),
        "matched": sum(1 for m in matched if m.our_cs is not None),
        "matched_no_kill": sum(1 for m in matched if m.no_kill),
        "runs": runs,
        "runs_per_program": runs_per_program(compared),
        "cs": {
            "rho": cs_rho,
            "median_abs_difference": cs_diff,
            "their_median": _median(m.their_cs for m in matched),
            "our_median": _median(m.our_cs for m in matched),
            "their_median_all": _median(m.cs for m in published),
        },  # fmt: skip
        "iou": {
            "rho": iou_rho,
            "median_abs_difference": iou_diff,
            "their_median": _median(m.their_iou for m in matched),
            "our_median": _median(m.our_iou for m in matched),
            "their_median_all": _median(m.iou for m in published),
        },  # fmt: skip
        "fault": {
            "killed": (fault or {}).get("killed"),
            "mean_kp": kp.get("mean_kp"),
            "inputs_killing": kp.get("inputs_killing"),
            "n_inputs": kp.get("n_inputs"),
        },  # fmt: skip
        "reconstruction": reconstruction_figures(
            [e for e in entries if is_reconstruction(e)],
            [m.our_iou for m in matched],
            published,
            is_combined,
            notes,
        ),
        "trainings": {
            # the trainings behind the figures (fault, fix and every mutant, each run), whether this
            # compare trained them or found them in the store; ``mutreal_new``: the ones it trained
            "mutreal": runs * (THEIR_EXTRA_MODELS + len(entries)),
            "mutreal_new": compared.get("trainings"),
            # what the reconstruction alone costs: the fault, the fix and the reconstructing mutants
            "reconstruction": runs * (THEIR_EXTRA_MODELS + sum(1 for e in entries if is_reconstruction(e))),
            "theirs": their_trainings(len(published)),
            "theirs_rule": f"(their {len(published)} mutants + faulty + original) x {THEIR_INSTANCES} instances",
        },  # fmt: skip
        "disagreement": reasons,
        "mutants": [m.to_dict() for m in matched],
        "reliable_rule": compared.get("reliable_rule"),
    }


def twin_agreement(
    bug: str, published: Sequence[PublishedMutant], twin: str, twin_published: Sequence[PublishedMutant]
) -> dict[str, Any] | None:
    """How their figures of one program under two of their ids agree (DeepFD and DeepLocalize both
    hold some Stack Overflow posts: ``deepfd026`` and ``deeplocalize026``), over the mutant names
    both publish: Spearman rho and the median |difference| of CS and of IoU.

    Why: it is the published figures' own reproducibility, the ceiling of any agreement with them
    (their two adapted programs of a post may differ, and each was trained with 5 instances);
    a row whose rho with mutreal is below it is read against it. None: no name in common."""
    theirs = {m.name: m for m in published}
    common = sorted(n for n in {m.name for m in twin_published} if n in theirs)
    if not common:
        return None
    other = {m.name: m for m in twin_published}
    a_cs, b_cs = [theirs[n].cs for n in common], [other[n].cs for n in common]
    a_iou, b_iou = [theirs[n].iou for n in common], [other[n].iou for n in common]
    return {
        "bug": bug, "twin": twin, "common": len(common),
        "cs": {"rho": spearman(a_cs, b_cs), "median_abs_difference": median_abs_difference(a_cs, b_cs)},
        "iou": {"rho": spearman(a_iou, b_iou), "median_abs_difference": median_abs_difference(a_iou, b_iou)},
    }  # fmt: skip


def twin_reason(twin: Mapping[str, Any]) -> str:
    """A row's reason from :func:`twin_agreement`: their own two ids of the program, side by side."""
    cs, iou = twin["cs"], twin["iou"]

    def f(v: float | None) -> str:
        return "-" if v is None else f"{v:.2f}"

    return (
        f"their own reproducibility: their figures of this post under {twin['twin']} against {twin['bug']}'s, over "
        f"the {twin['common']} mutant names both publish: CS rho {f(cs['rho'])} (median |difference| "
        f"{f(cs['median_abs_difference'])}), IoU rho {f(iou['rho'])} ({f(iou['median_abs_difference'])})"
    )


def summary(rows: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    """The whole run: median CS and IoU of the matched mutants on each side, and how often mutreal's
    reconstructing mutant reaches the median IoU of the bug's matched mutants (same runs) and the
    median of their published distribution."""
    mutants = [m for row in rows for m in row.get("mutants") or []]
    recs = [row["reconstruction"] for row in rows if row.get("reconstruction")]
    same = [r["vs_same_runs_iou"] for r in recs if r.get("vs_same_runs_iou")]
    pub = [r["vs_published_iou"] for r in recs if r.get("vs_published_iou")]
    ours = sum(int(row["trainings"]["mutreal"] or 0) for row in rows)
    theirs = sum(int(row["trainings"]["theirs"] or 0) for row in rows)
    return {
        "bugs": len(rows),
        "matched": sum(int(row.get("matched") or 0) for row in rows),
        "matched_no_kill": sum(int(row.get("matched_no_kill") or 0) for row in rows),
        "their_median_cs": _median(m["their_cs"] for m in mutants),
        "our_median_cs": _median(m["our_cs"] for m in mutants),
        "their_median_iou": _median(m["their_iou"] for m in mutants),
        "our_median_iou": _median(m["our_iou"] for m in mutants),
        "reconstruction_bugs": len(recs),
        "reconstruction_at_least_same_runs_median_iou": sum(1 for p in same if p["at_least_median"]),
        "reconstruction_with_same_runs_figure": len(same),
        "reconstruction_at_least_published_median_iou": sum(1 for p in pub if p["at_least_median"]),
        "reconstruction_with_published_figure": len(pub),
        "trainings": {
            "mutreal": ours,
            "reconstruction": sum(int(row["trainings"].get("reconstruction") or 0) for row in rows),
            "theirs": theirs,
        },
        "disagreements": sum(1 for row in rows if row.get("disagreement")),
    }


def table(
    rows: Sequence[Mapping[str, Any]],
    *,
    not_run: Sequence[Mapping[str, Any]],
    sample_rule_text: str,
    our_rule: str | None,
    command: str,
    runs: int,
    seconds: float | None = None,
) -> dict[str, Any]:
    """The JSON table the benchmark writes and the report reads (:data:`TABLE_FORMAT`)."""
    return {
        "format": TABLE_FORMAT,
        "command": command,
        "runs": runs,
        "seconds": seconds,
        "sample_rule": sample_rule_text,
        "no_kill_rule": NO_KILL_RULE,
        "reliability": {"theirs": THEIR_RELIABLE_RULE, "mutreal": our_rule},
        "thresholds": {"rho": RHO_THRESHOLD, "median_abs_difference": DIFFERENCE_THRESHOLD},
        "summary": summary(rows),
        "bugs": list(rows),
        "not_run": list(not_run),
    }
