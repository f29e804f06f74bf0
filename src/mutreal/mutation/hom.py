"""Higher-order mutants (HOMs) that follow the fault combinations real bugs show.

Why: 46% of real faults are of higher order and first-order mutants cannot represent them (study,
section 7.2). ``mutreal hom-generate`` therefore combines first-order edits the way real bugs
combine faults: the frequent multisets of *simulable* fault codes over classified bugs (mined by
:mod:`mutreal.label.mining`, support counted over bugs) or, without a results file, the shipped table
``operators/combinations.csv`` (derived from the study's dev split). For each combination, most
frequent first, one HOM is built for the subject where it has the sites:

- each code is realised by a registered operator whose catalogue fault code it is (ACH by ACH, ARM
  or AAL depending on the site; HBS by HBS or HDB; plugin operators with a ``fault_code`` too);
- parameter values repeat what the real faults did where the results record it: a learning rate
  100x too large is applied as the same ratio to the subject's rate, softmax replaced by sigmoid
  writes sigmoid (a site holding the real fault's original value is preferred); else a seeded
  choice from the catalogue's list;
- combinations that would touch one element twice, or whose net change equals a lower-order
  mutant (one edit masks another, or the program model does not see one of the parts), are
  skipped with the reason.

Each HOM is one file plus its provenance JSON: the operators' own provenance of every first-order
part (:class:`mutreal.mutation.operators.Provenance`), where each value came from, and the combination and
support it was built for. Everything is deterministic for a given seed.
"""

from __future__ import annotations

import hashlib
import os
import random
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, ClassVar

from mutreal.label.mining import Combination, codes_per_bug, frequent_combinations
from mutreal.mutation.operator_values import checked_value, number, same_value, spelled_name, value_from_text
from mutreal.mutation.operators import (
    Edit,
    Mutant,
    MutationError,
    Operator,
    Program,
    Provenance,
    Site,
    apply_edits,
    registry,
)
from mutreal.operator_catalogue import activation_operator
from mutreal.serialise import Record

if TYPE_CHECKING:
    from mutreal.results import BugResult

__all__ = [
    "RealExample",
    "CombinationSource",
    "ValueOrigin",
    "HomRecord",
    "SkippedCombination",
    "HomReport",
    "parse_orders",
    "combinations_from_results",
    "shipped_combinations",
    "build_homs",
    "hom_generate",
    "mutation_operator",
    "operators_for_code",
    "value_from_text",
]

SHIPPED_SOURCE = "shipped table operators/combinations.csv (derived from the study's dev split)"
#: how many candidate assignments one combination may try before it is skipped
MAX_ATTEMPTS = 64


# ---------------------------------------------------------------------------------------------------
# Records
# ---------------------------------------------------------------------------------------------------


@dataclass
class RealExample:
    """One real fault component in the *mutation* direction: what turns the fixed program into
    the buggy one (``fixed`` is the value the fix has, ``buggy`` the value the fault writes)."""

    bug: str
    code: str
    operator: str | None
    element: str
    fixed: str | None
    buggy: str | None

    def to_dict(self) -> dict[str, Any]:
        return dict(self.__dict__)

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> RealExample:
        return cls(d["bug"], d["code"], d.get("operator"), d["element"], d.get("fixed"), d.get("buggy"))


@dataclass
class CombinationSource:
    """A frequent combination and the real fault components of the bugs that support it, by code."""

    combination: Combination
    examples: dict[str, list[RealExample]] = field(default_factory=dict)


@dataclass
class ValueOrigin:
    """Where the value of one part came from: a real fault (its bug and values, the ratio applied
    to a numeric value), the catalogue (seeded choice) or nowhere (an operator without a parameter)."""

    kind: str  # real_fault | catalogue | none
    bug: str | None = None
    fixed: str | None = None
    buggy: str | None = None
    ratio: float | None = None
    seed: int | None = None

    def to_dict(self) -> dict[str, Any]:
        return {k: v for k, v in self.__dict__.items() if v is not None}

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> ValueOrigin:
        return cls(
            kind=d["kind"],
            bug=d.get("bug"),
            fixed=d.get("fixed"),
            buggy=d.get("buggy"),
            ratio=d.get("ratio"),
            seed=d.get("seed"),
        )


@dataclass
class HomRecord:
    """One HOM: the operators' provenance, the combination it realises and where each value came from.

    ``codes`` pairs each part with the fault code it realises (same order as the parts);
    ``first_order`` holds each part's provenance as the first-order mutant ``mutreal mutate``
    would write for it (written under ``parts[i].first_order``).
    """

    rank: int
    codes: list[str]
    support: int
    source: str
    provenance: Provenance
    origins: list[ValueOrigin]
    first_order: list[Provenance] = field(default_factory=list)
    file: str | None = None
    code: str = field(default="", repr=False)

    @property
    def order(self) -> int:
        return self.provenance.order

    def to_dict(self) -> dict[str, Any]:
        prov = self.provenance.to_dict()
        for i, (part, code, origin) in enumerate(zip(prov["parts"], self.codes, self.origins, strict=True)):
            part["fault_code"] = code
            part["value_origin"] = origin.to_dict()
            if i < len(self.first_order):
                part["first_order"] = self.first_order[i].to_dict()
        prov["combination"] = {
            "codes": sorted(self.codes),
            "support": self.support,
            "source": self.source,
            "rank": self.rank,
        }
        if self.file is not None:
            prov["file"] = self.file
        return prov

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> HomRecord:
        combo = d["combination"]
        return cls(
            rank=int(combo["rank"]),
            codes=[p.get("fault_code", "") for p in d["parts"]],
            support=int(combo["support"]),
            source=combo["source"],
            provenance=Provenance.from_dict(d),
            origins=[ValueOrigin.from_dict(p.get("value_origin") or {"kind": "none"}) for p in d["parts"]],
            first_order=[Provenance.from_dict(p["first_order"]) for p in d["parts"] if p.get("first_order")],
            file=d.get("file"),
        )


@dataclass
class SkippedCombination(Record):
    """A combination no HOM was built for, and why (written with its ``order``, read back without)."""

    codes: list[str]
    support: int
    reason: str

    wire_derived: ClassVar = {"order": "support"}

    @property
    def order(self) -> int:
        return len(self.codes)


@dataclass
class HomReport(Record):
    """What ``hom-generate`` built and skipped, and where its combinations came from (written and
    read back field by field, :class:`~mutreal.serialise.Record`)."""

    subject: str
    source: str
    seed: int
    orders: list[int]
    homs: list[HomRecord] = field(default_factory=list)
    skipped: list[SkippedCombination] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)


# ---------------------------------------------------------------------------------------------------
# Values: a real fault's values transferred to the subject (text -> value: mutreal.mutation.operator_values)
# ---------------------------------------------------------------------------------------------------


def _value_for_subject(op: Operator, site: Site, ex: RealExample) -> tuple[Any, ValueOrigin] | None:
    """What the real fault ``ex`` did, transferred to ``site``: the same ratio for numbers, the same
    value for names; None when it does not transfer (the caller falls back to the catalogue)."""
    spec = op.spec.param
    origin = ValueOrigin("real_fault", bug=ex.bug, fixed=ex.fixed, buggy=ex.buggy)
    if spec is None:
        return None, origin
    if spec.type in ("int", "float"):
        b, f = number(ex.buggy), number(ex.fixed)
        orig = site.original
        if b is None or f is None or f == 0 or isinstance(orig, bool) or not isinstance(orig, int | float):
            return None
        ratio = b / f
        raw = float(orig) * ratio
        value: Any = int(round(raw)) if spec.type == "int" else float(f"{raw:.6g}")
        if spec.type == "int" and value == orig:
            return None
        ok, v, _ = checked_value(op, site, value)
        if not ok:
            return None
        origin.ratio = float(f"{ratio:.6g}")
        return v, origin
    ok, v, _ = value_from_text(op, site, ex.buggy)
    return (v, origin) if ok else None


# ---------------------------------------------------------------------------------------------------
# Operators of a fault code
# ---------------------------------------------------------------------------------------------------


def _fault_code(op: Operator) -> str | None:
    try:
        return op.spec.fault_code
    except (KeyError, AttributeError):
        return None


def operators_for_code(code: str) -> list[Operator]:
    """Registered operators (plugins included) realising a fault code, the one named like it first."""
    found = [op for op in registry.operators().values() if _fault_code(op) == code]
    return sorted(found, key=lambda op: op.id != code)


def mutation_operator(code: str, fixed: str | None, buggy: str | None, labelled: str | None) -> str | None:
    """The operator that turns the fixed value into the buggy one (the mutation direction).

    Results rows are classified buggy -> fixed, so a direction-specific label (ARM/AAL) may name the
    operator of the opposite edit; for activations the values decide: a buggy ``linear`` where the
    fix has an activation is ARM, an activation where the fix has none is AAL.
    """
    if code == "ACH":
        return activation_operator(spelled_name(fixed), spelled_name(buggy))  # the rule, fixed -> buggy
    return labelled or code


# ---------------------------------------------------------------------------------------------------
# Combinations
# ---------------------------------------------------------------------------------------------------


def parse_orders(text: str) -> list[int]:
    """``"2..4"`` -> [2, 3, 4]; ``"3"`` -> [3]; ``"2,4"`` -> [2, 4]. ValueError when malformed."""
    out: set[int] = set()
    for part in str(text).split(","):
        part = part.strip()
        if ".." in part:
            lo, _, hi = part.partition("..")
            a, b = int(lo), int(hi)
            if a > b:
                raise ValueError(f"order range {part!r} is empty")
            out.update(range(a, b + 1))
        elif part:
            out.add(int(part))
    if not out or min(out) < 2:
        raise ValueError(f"orders must be 2 or more, got {text!r}")
    return sorted(out)


def _get(obj: Any, key: str) -> Any:
    return obj.get(key) if isinstance(obj, Mapping) else getattr(obj, key, None)


def combinations_from_results(rows: Iterable[Any], orders: Sequence[int]) -> list[CombinationSource]:
    """Frequent multisets of simulable codes over classified bugs (``ResultRow``s or dicts), with
    the real fault components of the bugs supporting each, most frequent first."""
    rows = [r for r in rows if (_get(r, "status") or "ok") == "ok"]
    bugs = codes_per_bug(rows, simulable_only=True)
    combos = frequent_combinations(bugs, min_order=min(orders), max_order=max(orders))
    combos = [c for c in combos if c.order in set(orders)]
    # per bug: its simulable components in the mutation direction
    per_bug: list[tuple[Counter[str], list[RealExample]]] = []
    for row in rows:
        exs: list[RealExample] = []
        for comp in _get(row, "components") or []:
            code = str(_get(comp, "code") or "").upper()
            sim = _get(comp, "simulable")
            if sim is None:
                sim = _get(comp, "deepcrime") is not None
            if not code or not sim:
                continue
            fixed, buggy = _get(comp, "after"), _get(comp, "before")
            exs.append(
                RealExample(
                    bug=str(_get(row, "id")),
                    code=code,
                    operator=mutation_operator(code, fixed, buggy, _get(comp, "deepcrime")),
                    element=str(_get(comp, "element") or ""),
                    fixed=fixed,
                    buggy=buggy,
                )
            )
        if exs:
            per_bug.append((Counter(e.code for e in exs), exs))
    out = []
    for combo in combos:
        need = Counter(combo.codes)
        examples: dict[str, list[RealExample]] = {}
        for have, exs in per_bug:
            if all(have[c] >= n for c, n in need.items()):
                for e in exs:
                    if e.code in need:
                        examples.setdefault(e.code, []).append(e)
        out.append(CombinationSource(combo, examples))
    return out


def shipped_combinations(orders: Sequence[int]) -> list[CombinationSource]:
    """The shipped frequency table (``operators/combinations.csv``), most frequent first."""
    from mutreal.operator_catalogue import load_combinations

    combos = [c.counts_only() for c in load_combinations(orders)]
    combos.sort(key=lambda c: (-c.support, c.order, c.codes))
    return [CombinationSource(c) for c in combos]


# ---------------------------------------------------------------------------------------------------
# Building HOMs
# ---------------------------------------------------------------------------------------------------


@dataclass
class _Candidate:
    op: Operator
    site: Site
    value: Any
    origin: ValueOrigin


def _site_order(op: Operator, sites: Sequence[Site], prefer: Any = None) -> list[Site]:
    """Sites holding the real fault's original value first; then, for layer operators, the last
    layer first (most real activation faults are in the output layer), else in program order."""
    layer = getattr(op.spec, "scope", "program") == "layer"

    def key(s: Site) -> tuple[int, int]:
        match = (
            0
            if prefer is not None and same_value(s.original if s.original is not None else s.old, prefer)
            else 1
        )
        return (match, -s.index if layer else s.index)

    return sorted(sites, key=key)


def _rng(seed: int, *parts: Any) -> random.Random:
    text = "|".join(str(p) for p in (seed, *parts))
    return random.Random(int.from_bytes(hashlib.sha256(text.encode()).digest()[:8], "big"))


def _candidates(
    program: Program, code: str, examples: Sequence[RealExample], seed: int, slot: str
) -> list[_Candidate]:
    """Ways to realise one code in the program, best first: real-fault values, then the catalogue."""
    out: list[_Candidate] = []
    ops = operators_for_code(code)
    by_id = {op.id: op for op in ops}
    # the most frequent real edits first (same operator, values), then by bug id for determinism
    counts = Counter((e.operator, _norm(e.fixed), _norm(e.buggy)) for e in examples)
    unique: list[RealExample] = []
    seen: set[tuple[Any, ...]] = set()
    for ex in sorted(examples, key=lambda e: (-counts[(e.operator, _norm(e.fixed), _norm(e.buggy))], e.bug)):
        key = (ex.operator, _norm(ex.fixed), _norm(ex.buggy))
        if key not in seen and ex.operator in by_id:
            seen.add(key)
            unique.append(ex)
    # first every real edit at the sites that hold its original value (numbers: any site, as a
    # ratio), then the same edits at the other sites: repeated codes then take distinct edits
    for matching in (True, False):
        for ex in unique:
            op = by_id[ex.operator or ""]
            numeric = op.spec.param is not None and op.spec.param.type in ("int", "float")
            for site in _site_order(op, op.sites(program), ex.fixed):
                here = numeric or same_value(
                    site.original if site.original is not None else site.old, ex.fixed
                )
                if here != matching:
                    continue
                got = _value_for_subject(op, site, ex)
                if got is not None:
                    out.append(_Candidate(op, site, got[0], got[1]))
    for op in ops:
        for site in _site_order(op, op.sites(program)):
            if op.spec.param is None:
                out.append(_Candidate(op, site, None, ValueOrigin("none")))
                continue
            values = op.values(program, site)
            if not values:
                continue
            rng = _rng(seed, slot, op.id, site.index)
            out.append(_Candidate(op, site, rng.choice(values), ValueOrigin("catalogue", seed=seed)))
    return out


def _norm(text: str | None) -> str | None:
    if text is None:
        return None
    n = number(text)
    if n is not None:
        return repr(n)
    name = spelled_name(text)
    return name.lower() if name else "".join(text.split())


def _elements(site: Site) -> set[str]:
    return set(site.elements or [site.element])


def _assignments(slots: list[list[_Candidate]]) -> Iterable[list[_Candidate]]:
    """Candidate choices, one per slot, no element touched twice (depth first, best candidates first)."""

    def walk(i: int, chosen: list[_Candidate], used: set[str]) -> Iterable[list[_Candidate]]:
        if i == len(slots):
            yield list(chosen)
            return
        tried: set[tuple[str, int]] = set()
        for cand in slots[i]:
            key = (cand.op.id, cand.site.index)
            if key in tried:
                continue  # the best value for this site was tried already
            els = _elements(cand.site)
            if els & used:
                continue
            tried.add(key)
            chosen.append(cand)
            yield from walk(i + 1, chosen, used | els)
            chosen.pop()

    yield from walk(0, [], set())


def _masks_lower_order(program: Program, edits: Sequence[Edit], mutant: Mutant) -> str | None:
    """Why the HOM's net change equals a lower-order mutant (None when it does not).

    Textually: leaving one edit out gives the same file. In the program model: one part changes
    none of the elements it claims (another part overwrote or undid it).
    """
    for i in range(len(edits)):
        rest = [e for j, e in enumerate(edits) if j != i]
        try:
            if apply_edits(program, rest).code == mutant.code:
                return f"the {edits[i].operator} edit changes nothing once the others are applied"
        except MutationError:
            return f"without the {edits[i].operator} edit nothing changes"
    from mutreal.compare import diff_models
    from mutreal.program.model import canonical_path

    try:
        hom_model = Program(mutant.code, program.path).model
        changed = {canonical_path(c.element) for c in diff_models(program.model, hom_model)}
    except Exception as exc:  # the check is advisory: a model that cannot be built is reported
        return f"the HOM's program model cannot be built ({type(exc).__name__}: {exc})"
    for e in edits:
        claimed = {canonical_path(c.element) for c in e.components}
        if claimed and not any(_covers(c, changed) for c in claimed):
            return f"the {e.operator} edit at {e.site.element} is not visible in the HOM's program model"
    return None


def _covers(element: str, changed: set[str]) -> bool:
    return element in changed or any(
        c.startswith(element + "[") or c.startswith(element + ".") for c in changed
    )


def _hom_name(program: Program, rank: int, edits: Sequence[Edit]) -> str:
    from mutreal.mutation.operators.base import mutant_name

    base = mutant_name(program.path, edits)
    stem, _, rest = base.partition("__")
    return f"{stem}__hom{rank:02d}__{rest}"


def build_homs(
    program: Program,
    sources: Sequence[CombinationSource],
    *,
    source: str,
    top: int | None = 10,
    seed: int = 0,
    orders: Sequence[int] = (2, 3, 4),
) -> HomReport:
    """One HOM per combination (most frequent first) that the program has the sites for, up to ``top``."""
    report = HomReport(subject=program.path, source=source, seed=seed, orders=list(orders))
    for src in sources:
        if top is not None and len(report.homs) >= top:
            break
        combo = src.combination
        codes = list(combo.codes)
        missing = [c for c in dict.fromkeys(codes) if not operators_for_code(c)]
        if missing:
            report.skipped.append(
                SkippedCombination(codes, combo.support, f"no operator for {', '.join(missing)}")
            )
            continue
        slots = []
        for i, code in enumerate(codes):
            slots.append(
                _candidates(program, code, src.examples.get(code, []), seed, f"{'+'.join(codes)}#{i}")
            )
        empty = [c for c, s in zip(codes, slots, strict=True) if not s]
        if empty:
            report.skipped.append(
                SkippedCombination(
                    codes, combo.support, f"no site in the subject for {', '.join(dict.fromkeys(empty))}"
                )
            )
            continue
        rank = len(report.homs) + 1
        reason = None
        built = None
        for attempt, choice in enumerate(_assignments(slots)):
            if attempt >= MAX_ATTEMPTS:
                break
            try:
                edits = [c.op.apply(program, c.site, c.value) for c in choice]
                edits_sorted = sorted(
                    zip(edits, choice, strict=True),
                    key=lambda ec: (ec[0].site.line, ec[0].site.col, ec[0].operator),
                )
                edits = [e for e, _ in edits_sorted]
                choice = [c for _, c in edits_sorted]
                mutant = apply_edits(program, edits, seed=seed, name=_hom_name(program, rank, edits))
                first_order = [apply_edits(program, [e], seed=seed).provenance for e in edits]
            except MutationError as exc:
                reason = f"operator error: {exc}"
                continue
            lower = _masks_lower_order(program, edits, mutant)
            if lower is not None:
                reason = f"equals a lower order: {lower}"
                continue
            from mutreal.mutation.mutate import invalid_reason

            bad = invalid_reason(program, mutant)
            if bad is not None:
                reason = bad  # the same static check as first-order mutants: not written
                continue
            codes_in_order = [_fault_code(c.op) or "" for c in choice]
            built = HomRecord(
                rank=rank,
                codes=codes_in_order,
                support=combo.support,
                source=source,
                provenance=mutant.provenance,
                origins=[c.origin for c in choice],
                first_order=first_order,
                code=mutant.code,
            )
            break
        if built is None:
            if reason is None:
                reason = "the subject has too few distinct elements (one element would be touched twice)"
            report.skipped.append(SkippedCombination(codes, combo.support, reason))
            continue
        report.homs.append(built)
    return report


def hom_generate(
    subject: str,
    *,
    results: str | os.PathLike[str] | Iterable[BugResult] | None = None,
    orders: Sequence[int] = (2, 3, 4),
    top: int | None = 10,
    seed: int = 0,
    out_dir: str | None = None,
) -> HomReport:
    """Mine combinations (``results``: a results JSONL, classified bugs already in memory, or None
    for the shipped table), build HOMs of ``subject``, and write each as
    ``<stem>__homNN__<parts>.py`` + ``.json`` provenance into ``out_dir`` (if given)."""
    from mutreal.results import ReadProblem, read_results

    problems: list[ReadProblem] = []
    if results is not None:
        from_file = isinstance(results, (str, os.PathLike))
        rows = read_results(results, problems) if from_file else list(results)
        sources = combinations_from_results(rows, orders)
        n_sim = len(codes_per_bug([r for r in rows if r.ok], simulable_only=True))
        where = results if from_file else "classified bugs"
        source = f"mined from {where} ({len(rows)} bugs, {n_sim} with simulable components)"
    else:
        sources = shipped_combinations(orders)
        source = SHIPPED_SOURCE
    program = Program.from_file(subject)
    report = build_homs(program, sources, source=source, top=top, seed=seed, orders=orders)
    report.problems = [f"{results}:{p.line}: {p.message}" for p in problems]
    if out_dir is not None:
        from mutreal.mutation.mutate import write_program_files

        for hom in report.homs:
            hom.file = os.path.join(out_dir, hom.provenance.mutant)  # the provenance names its file
            write_program_files(
                out_dir, hom.provenance.mutant, hom.code, hom.to_dict(), encoding=program.encoding
            )
    return report
