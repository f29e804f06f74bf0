"""Agreement between an automatic labelling (classify results) and manual labels, or two labellers.

The realism study labelled every bug by hand, and its pilot measured how far two labellers agreed
before the rest was labelled. A benchmark labelled automatically by ``mutreal classify`` is only
useful if it agrees with such labels, so this module computes, on the bugs the reference labels:

* micro precision / recall of fault codes matched as multisets per bug (two ACH labelled, one
  predicted: one match), exact-bug match and DeepCrime-flag agreement: the **same numbers** as the
  study's scoring script ``shared/tools/score_classify.py`` (a test runs it and compares);
* per-code precision / recall / F1 (the same multiset matching, restricted to one code);
* per-bug multiset match (matched components, missing and extra codes, multiset F1);
* Cohen's kappa over (bug, code) presence decisions: for every scored bug and every code that
  either side uses somewhere, "is this code present in this bug?" answered by each side;
* a confusion table of codes over the bugs with exactly one component on each side;
* the disagreeing bugs, with both label sets (notes kept).

The compared side is classify's results JSONL or a second labels CSV; the reference is always a
labels CSV. Labelled bugs with no code are not scored (as in the script); a labelled bug without an
ok result counts with an empty prediction and is listed in ``not_ok``.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, ClassVar

from mutreal.results import BugResult, ReadProblem, read_results
from mutreal.serialise import Record
from mutreal.study.labelsfile import LabelledBug, is_labels_file, read_labels, unknown_codes


@dataclass
class Annotation:
    """One side's view of one bug: its codes (upper-case), their DeepCrime flags, and display text."""

    id: str
    codes: list[str]
    flags: list[bool] | None
    ok: bool = True
    text: str = ""
    benchmark: str | None = None

    @classmethod
    def from_result(cls, row: BugResult) -> Annotation:
        codes = row.codes
        return cls(
            row.id,
            codes,
            [c.simulable for c in row.components],
            ok=row.ok,
            text=", ".join(codes) if row.ok else f"[{row.status}: {row.error or ''}]".strip(),
            benchmark=row.benchmark,
        )

    @classmethod
    def from_label(cls, bug: LabelledBug) -> Annotation:
        return cls(
            bug.id, list(bug.codes), bug.flags, ok=True, text=bug.codes_text(), benchmark=bug.benchmark
        )


@dataclass
class CodeScore(Record):
    """Precision, recall and F1 of one fault code (multiset matching per bug)."""

    code: str
    labelled: int
    predicted: int
    matched: int

    wire_derived: ClassVar = {"precision": None, "recall": None, "f1": None}

    @property
    def precision(self) -> float | None:
        return self.matched / self.predicted if self.predicted else None

    @property
    def recall(self) -> float | None:
        return self.matched / self.labelled if self.labelled else None

    @property
    def f1(self) -> float | None:
        total = self.labelled + self.predicted
        return 2 * self.matched / total if total else None


@dataclass
class BugMatch(Record):
    """How the two sides' code multisets compare on one bug."""

    id: str
    benchmark: str | None
    labelled: list[str]
    predicted: list[str]
    labelled_text: str
    predicted_text: str
    ok: bool
    matched: int
    missing: list[str]
    extra: list[str]
    flags_compared: int = 0
    flags_agreeing: int = 0

    wire_derived: ClassVar = {"exact": "extra", "multiset_f1": "exact"}

    @property
    def exact(self) -> bool:
        return not self.missing and not self.extra

    @property
    def multiset_f1(self) -> float:
        total = len(self.labelled) + len(self.predicted)
        return 2 * self.matched / total if total else 1.0


@dataclass
class Agreement:
    """Every agreement figure for one (compared, reference) pair of labellings."""

    mode: str  # "results" (classify vs labels) or "labels" (two labellers)
    bugs: list[BugMatch] = field(default_factory=list)
    codes: list[CodeScore] = field(default_factory=list)
    kappa: float | None = None
    kappa_decisions: int = 0
    confusion: dict[str, dict[str, int]] = field(default_factory=dict)
    unlabelled: list[str] = field(default_factory=list)
    problems: list[ReadProblem] = field(default_factory=list)
    by_benchmark: dict[str, dict[str, Any]] = field(default_factory=dict)
    #: codes of either side that are not fault codes of the taxonomy -> bug ids (typos, free text)
    unknown: dict[str, list[str]] = field(default_factory=dict)

    # --- the scoring script's figures -------------------------------------------------------------
    @property
    def components(self) -> int:
        return sum(len(b.labelled) for b in self.bugs)

    @property
    def predicted(self) -> int:
        return sum(len(b.predicted) for b in self.bugs)

    @property
    def matched(self) -> int:
        return sum(b.matched for b in self.bugs)

    @property
    def precision(self) -> float:
        return self.matched / self.predicted if self.predicted else 0.0

    @property
    def recall(self) -> float:
        return self.matched / self.components if self.components else 0.0

    @property
    def f1(self) -> float:
        total = self.components + self.predicted
        return 2 * self.matched / total if total else 0.0

    @property
    def exact(self) -> float:
        return sum(b.exact for b in self.bugs) / len(self.bugs) if self.bugs else 0.0

    @property
    def flag_agreement(self) -> float:
        n = sum(b.flags_compared for b in self.bugs)
        return sum(b.flags_agreeing for b in self.bugs) / n if n else 0.0

    @property
    def flags_compared(self) -> int:
        return sum(b.flags_compared for b in self.bugs)

    @property
    def not_ok(self) -> list[str]:
        return [b.id for b in self.bugs if not b.ok]

    @property
    def mean_multiset_f1(self) -> float:
        return sum(b.multiset_f1 for b in self.bugs) / len(self.bugs) if self.bugs else 0.0

    @property
    def disagreeing(self) -> list[BugMatch]:
        return [b for b in self.bugs if not b.exact]

    def score_line(self) -> dict[str, Any]:
        """The scoring script's output line, rounded as it rounds (3 decimals)."""
        return {
            "bugs": len(self.bugs),
            "components": self.components,
            "predicted": self.predicted,
            "precision": round(self.precision, 3),
            "recall": round(self.recall, 3),
            "exact": round(self.exact, 3),
            "flag_agreement": round(self.flag_agreement, 3),
            "not_ok": len(self.not_ok),
        }

    def to_dict(self) -> dict[str, Any]:
        return {
            "mode": self.mode,
            "summary": {
                **self.score_line(),
                "precision_exact": self.precision,
                "recall_exact": self.recall,
                "f1": self.f1,
                "exact_exact": self.exact,
                "flag_agreement_exact": self.flag_agreement,
                "flags_compared": self.flags_compared,
                "mean_multiset_f1": self.mean_multiset_f1,
                "kappa": self.kappa,
                "kappa_decisions": self.kappa_decisions,
                "disagreeing": len(self.disagreeing),
                "unlabelled": len(self.unlabelled),
            },
            "by_benchmark": self.by_benchmark,
            "codes": [c.to_dict() for c in self.codes],
            "confusion": self.confusion,
            "bugs": [b.to_dict() for b in self.bugs],
            "not_ok": self.not_ok,
            "unlabelled": self.unlabelled,
            "problems": [p.to_dict() for p in self.problems],
            "unknown_codes": self.unknown,
        }

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> Agreement:
        summary = d.get("summary", {})
        return cls(
            mode=d["mode"],
            bugs=[BugMatch.from_dict(b) for b in d.get("bugs", [])],
            codes=[CodeScore.from_dict(c) for c in d.get("codes", [])],
            kappa=summary.get("kappa"),
            kappa_decisions=summary.get("kappa_decisions", 0),
            confusion=d.get("confusion", {}),
            unlabelled=list(d.get("unlabelled", [])),
            problems=[ReadProblem.from_dict(p) for p in d.get("problems", [])],
            by_benchmark=d.get("by_benchmark", {}),
            unknown=d.get("unknown_codes", {}),
        )


# ---------------------------------------------------------------------------------------- figures


def _flag_matches(labelled: Annotation, predicted: Annotation) -> tuple[int, int]:
    """(compared, agreeing) flags of one bug, exactly as the scoring script counts them.

    Per code c matched m = min(labelled c, predicted c) times, the flags agree on
    min(min(labelled Y, predicted Y) + min(labelled N, predicted N), m) of those m components.
    """
    if labelled.flags is None or predicted.flags is None or len(predicted.flags) != len(predicted.codes):
        return 0, 0
    ct, cp = Counter(labelled.codes), Counter(predicted.codes)
    compared = agreeing = 0
    for code in ct:
        m = min(ct[code], cp[code])
        if not m:
            continue
        ty = sum(1 for c, f in zip(labelled.codes, labelled.flags, strict=True) if c == code and f)
        py = sum(1 for c, f in zip(predicted.codes, predicted.flags, strict=True) if c == code and f)
        tn, pn = ct[code] - ty, cp[code] - py
        compared += m
        agreeing += min(min(ty, py) + min(tn, pn), m)
    return compared, agreeing


def cohen_kappa(pairs: Iterable[tuple[bool, bool]]) -> tuple[float | None, int]:
    """Cohen's kappa of two raters' yes/no decisions, and the number of decisions.

    None when chance agreement is 1 (both raters always said the same single answer): kappa is
    undefined there, and reporting 1.0 or 0.0 would both mislead.
    """
    n = both_yes = both_no = yes_a = yes_b = 0
    for a, b in pairs:
        n += 1
        yes_a += a
        yes_b += b
        both_yes += a and b
        both_no += (not a) and (not b)
    if not n:
        return None, 0
    observed = (both_yes + both_no) / n
    chance = (yes_a / n) * (yes_b / n) + (1 - yes_a / n) * (1 - yes_b / n)
    if chance >= 1.0:
        return None, n
    return (observed - chance) / (1 - chance), n


def compare(reference: list[LabelledBug], compared: list[Annotation], mode: str = "results") -> Agreement:
    """All agreement figures of ``compared`` against the ``reference`` labels (see module docstring).

    ``compared`` rows are matched by id, the last row of an id winning (as in the scoring script).
    """
    by_id = {a.id: a for a in compared}
    agreement = Agreement(mode)
    labelled_ids = set()
    for bug in reference:
        if not bug.codes:
            continue
        labelled_ids.add(bug.id)
        truth = Annotation.from_label(bug)
        pred = by_id.get(bug.id)
        ok = pred is not None and pred.ok
        if not ok:
            shown = pred.text if pred is not None else "[missing]"
            pred = Annotation(bug.id, [], [], ok=False, text=shown)
        ct, cp = Counter(truth.codes), Counter(pred.codes)
        compared_flags, agreeing_flags = _flag_matches(truth, pred)
        agreement.bugs.append(
            BugMatch(
                id=bug.id,
                benchmark=bug.benchmark or pred.benchmark,
                labelled=truth.codes,
                predicted=pred.codes,
                labelled_text=truth.text,
                predicted_text=pred.text,
                ok=ok,
                matched=sum((ct & cp).values()),
                missing=sorted((ct - cp).elements()),
                extra=sorted((cp - ct).elements()),
                flags_compared=compared_flags,
                flags_agreeing=agreeing_flags,
            )
        )
    agreement.unlabelled = sorted(set(by_id) - labelled_ids)
    _per_code(agreement)
    _kappa(agreement)
    _confusion(agreement)
    _by_benchmark(agreement)
    return agreement


def _per_code(agreement: Agreement) -> None:
    labelled: Counter[str] = Counter()
    predicted: Counter[str] = Counter()
    matched: Counter[str] = Counter()
    for bug in agreement.bugs:
        ct, cp = Counter(bug.labelled), Counter(bug.predicted)
        labelled += ct
        predicted += cp
        matched += ct & cp
    codes = sorted(set(labelled) | set(predicted), key=lambda c: (-(labelled[c] + predicted[c]), c))
    agreement.codes = [CodeScore(c, labelled[c], predicted[c], matched[c]) for c in codes]


def _kappa(agreement: Agreement) -> None:
    universe = sorted({c for b in agreement.bugs for c in (*b.labelled, *b.predicted)})
    decisions = ((code in b.labelled, code in b.predicted) for b in agreement.bugs for code in universe)
    agreement.kappa, agreement.kappa_decisions = cohen_kappa(decisions)


def _confusion(agreement: Agreement) -> None:
    table: dict[str, Counter[str]] = {}
    for bug in agreement.bugs:
        if len(bug.labelled) == 1 and len(bug.predicted) == 1:
            table.setdefault(bug.labelled[0], Counter())[bug.predicted[0]] += 1
    agreement.confusion = {k: dict(sorted(v.items())) for k, v in sorted(table.items())}


def _by_benchmark(agreement: Agreement) -> None:
    groups: dict[str, list[BugMatch]] = {}
    for bug in agreement.bugs:
        groups.setdefault(bug.benchmark or "?", []).append(bug)
    if len(groups) < 2:
        agreement.by_benchmark = {}
        return
    for name, bugs in sorted(groups.items()):
        sub = Agreement(agreement.mode, bugs=bugs)
        agreement.by_benchmark[name] = sub.score_line()


# ------------------------------------------------------------------------------------ entry point


def agree_files(compared_path: str | Path, labels_path: str | Path) -> Agreement:
    """Compare a results JSONL file, or a second labels CSV, with a labels CSV.

    The compared file is read as labels when its header has ``id`` and ``codes`` columns (the
    pilot's two-labeller comparison); otherwise as results JSONL, whose unreadable lines are kept
    in ``problems`` rather than stopping the comparison.
    """
    reference = read_labels(labels_path)
    if is_labels_file(compared_path):
        second = read_labels(compared_path)
        agreement = compare(reference, [Annotation.from_label(b) for b in second], mode="labels")
        agreement.unknown = _unknown(reference + second)
        return agreement
    problems: list[ReadProblem] = []
    rows = read_results(compared_path, problems)
    agreement = compare(reference, [Annotation.from_result(r) for r in rows], mode="results")
    agreement.problems = problems
    agreement.unknown = _unknown(reference)
    return agreement


def _unknown(bugs: list[LabelledBug]) -> dict[str, list[str]]:
    try:
        return unknown_codes(bugs)
    except (OSError, ValueError, KeyError):  # no shipped taxonomy: nothing to check against
        return {}


def _fmt(x: float | None) -> str:
    return "-" if x is None else f"{x:.3f}"


def format_agreement(agreement: Agreement, max_bugs: int = 200) -> str:
    """A plain-text report: summary, per-code table, confusion table, disagreeing bugs."""
    s = agreement.to_dict()["summary"]
    other = "classify" if agreement.mode == "results" else "labeller B"
    lines = [
        f"Agreement of {other} with the reference labels ({s['bugs']} labelled bugs, "
        f"{s['components']} labelled components, {s['predicted']} {other} components)",
        f"  precision {_fmt(agreement.precision)}  recall {_fmt(agreement.recall)}  F1 {_fmt(agreement.f1)}",
        f"  exact bugs {_fmt(agreement.exact)}  mean multiset F1 {_fmt(agreement.mean_multiset_f1)}",
        f"  DeepCrime-flag agreement {_fmt(agreement.flag_agreement)} over {agreement.flags_compared} matched components",
        f"  Cohen's kappa {_fmt(agreement.kappa)} over {agreement.kappa_decisions} (bug, code) decisions",
        f"  not ok: {len(agreement.not_ok)}   {other} rows without a label: {len(agreement.unlabelled)}",
    ]
    if agreement.problems:
        lines.append(f"  unreadable result lines: {', '.join(str(p.line) for p in agreement.problems)}")
    if agreement.unknown:
        lines.append(
            "  labels with codes that are not fault codes: "
            + "; ".join(
                f"{code} ({', '.join(ids[:3])}{'...' if len(ids) > 3 else ''})"
                for code, ids in agreement.unknown.items()
            )
        )
    if agreement.by_benchmark:
        lines += ["", "benchmark        bugs  precision  recall  exact  flags"]
        for name, b in agreement.by_benchmark.items():
            lines.append(
                f"{name:<16} {b['bugs']:>4}  {b['precision']:>9.3f}  {b['recall']:>6.3f}  "
                f"{b['exact']:>5.3f}  {b['flag_agreement']:>5.3f}"
            )
    lines += ["", "code  labelled  predicted  matched  precision  recall     F1"]
    for c in agreement.codes:
        lines.append(
            f"{c.code:<5} {c.labelled:>8}  {c.predicted:>9}  {c.matched:>7}  "
            f"{_fmt(c.precision):>9}  {_fmt(c.recall):>6}  {_fmt(c.f1):>5}"
        )
    if agreement.confusion:
        cols = sorted({p for row in agreement.confusion.values() for p in row})
        lines += ["", "confusion (bugs with one component each; rows: reference, columns: " + other + ")"]
        lines.append("      " + " ".join(f"{c:>5}" for c in cols))
        for ref, row in agreement.confusion.items():
            lines.append(f"{ref:<5} " + " ".join(f"{row.get(c, 0) or '.':>5}" for c in cols))
    bad = agreement.disagreeing
    if bad:
        lines += ["", f"disagreeing bugs ({len(bad)}): reference | {other}"]
        for b in bad[:max_bugs]:
            lines.append(f"  {b.id}: {b.labelled_text} | {b.predicted_text or '(none)'}")
        if len(bad) > max_bugs:
            lines.append(f"  ... and {len(bad) - max_bugs} more (use --json)")
    return "\n".join(lines)
