"""The figures of a benchmark report (the study's RQ2 to RQ4), computed from classified or labelled bugs.

Everything here is plain counting over :class:`Bug` records, so a results JSONL (from ``mutreal
classify``) and a labels CSV (the study's manual codes) give the same tables by the same code:
Table 3 (order of the bugs and number of fault types), Table 4 (RSB: share of bugs all of whose
components DeepCrime can simulate; RSFC: share of simulable components), code and category
frequencies, the training-data summary (RQ2), co-occurrence and frequent code combinations.

Order-0 bugs (nothing left after the noise rules) and error rows are not bugs of these tables:
they are counted and listed apart, as the study set its unsuitable bugs apart.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, ClassVar

import networkx as nx

from mutreal.label.mining import Combination, cooccurrence_graph, frequent_combinations
from mutreal.serialise import Record, record_from_dict, record_kwargs, record_to_dict, wire
from mutreal.study.labelsfile import LabelledBug, ResultRow

#: the name of the row (and plot bar) that pools every benchmark, as the study's tables do
ALL = "ALL"
#: benchmark name for rows that name none
NO_BENCHMARK = "(no benchmark)"


def pct_half_up(num: int, den: int) -> int | None:
    """``100 * num / den`` rounded half up to a whole percent (Table 4's convention); None if den is 0.

    Integer arithmetic, so 62.5 -> 63 exactly (float rounding would be banker's or inexact).
    """
    if den <= 0:
        return None
    return (200 * num + den) // (2 * den)


def mean_half_up(total: int, n: int, decimals: int = 1) -> float | None:
    """``total / n`` rounded half up to ``decimals`` places (Table 3's averages); None if n is 0."""
    if n <= 0:
        return None
    scale = 10**decimals
    return ((2 * scale * total + n) // (2 * n)) / scale


@dataclass
class Bug(Record):
    """One bug as a report counts it: its codes with per-component DeepCrime flags and categories.

    ``simulable[i]`` is None when the source does not say (a labels row with unusable flags).
    ``realistic`` is the study's realism subset (labels' ``realistic`` column), None when unknown.
    """

    id: str
    benchmark: str
    codes: list[str] = field(default_factory=list)
    simulable: list[bool | None] = field(default_factory=list)
    categories: list[str | None] = field(default_factory=list)
    status: str = "ok"
    error: str | None = None
    realistic: bool | None = None
    data: dict[str, Any] = field(default_factory=dict)
    #: the statement diff's figures (classify results only; None in labels and older rows)
    changed_statements: int | None = None
    explained_statements: int | None = None
    #: what each unexplained change touches (:data:`mutreal.compare.statements.TOUCHES`), counted
    unexplained: dict[str, int] = field(default_factory=dict)

    @property
    def order(self) -> int:
        return len(self.codes)

    @property
    def ok(self) -> bool:
        return self.status == "ok"

    @property
    def is_simulable(self) -> bool | None:
        """All components simulable (the RSB numerator). False as soon as one component is not,
        None when no component says no but some flag is unknown (the bug is left out of RSB)."""
        if not self.codes or any(flag is False for flag in self.simulable):
            return False
        if any(flag is None for flag in self.simulable):
            return None
        return all(self.simulable)

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> Bug:
        """A bug from its dict; one without a benchmark counts under :data:`NO_BENCHMARK`."""
        return record_from_dict(cls, {**d, "benchmark": d.get("benchmark") or NO_BENCHMARK})


def code_lookup(attribute: str) -> Callable[[str], str | None]:
    """Code -> one attribute of its row in the shipped taxonomy (``category``, ``description``);
    None for an unknown code, and for every code when the taxonomy data cannot be read (the report
    still works without it: only categories and descriptions go)."""
    try:
        from mutreal.label.taxonomy import load_taxonomy

        taxonomy = load_taxonomy()
    except Exception:
        return lambda code: None

    def lookup(code: str) -> str | None:
        try:
            return getattr(taxonomy.code(code), attribute)
        except KeyError:
            return None

    return lookup


def bugs_from_results(
    rows: Iterable[ResultRow], category_of: Callable[[str], str | None] | None = None
) -> list[Bug]:
    """Classified bugs (results JSONL rows) as report bugs; a missing category is looked up by code."""
    lookup = category_of or code_lookup("category")
    out = []
    for row in rows:
        realistic = row.extra.get("realistic")
        out.append(
            Bug(
                id=row.id,
                benchmark=row.benchmark or NO_BENCHMARK,
                codes=[c.code for c in row.components] if row.ok else [],
                simulable=[bool(c.simulable) for c in row.components] if row.ok else [],
                categories=[c.category or lookup(c.code) for c in row.components] if row.ok else [],
                status=row.status,
                error=row.error,
                realistic=realistic if isinstance(realistic, bool) else None,
                data=row.data or {},
                changed_statements=row.changed_statements if row.ok else None,
                explained_statements=row.explained_statements if row.ok else None,
                unexplained=dict(Counter(str(u.get("touches", "other")) for u in row.unexplained))
                if row.ok
                else {},
            )
        )
    return out


def bugs_from_labels(
    labels: Iterable[LabelledBug], category_of: Callable[[str], str | None] | None = None
) -> list[Bug]:
    """Manually labelled bugs (a labels CSV) as report bugs: flags from ``is_mutant`` (Y = simulable)."""
    lookup = category_of or code_lookup("category")
    out = []
    for label in labels:
        flags: list[bool | None] = list(label.flags) if label.flags is not None else [None] * len(label.codes)
        out.append(
            Bug(
                id=label.id,
                benchmark=label.benchmark or NO_BENCHMARK,
                codes=list(label.codes),
                simulable=flags,
                categories=[lookup(code) for code in label.codes],
                realistic=label.realistic,
            )
        )
    return out


# ------------------------------------------------------------------------------------ the figures


@dataclass
class Ratio(Record):
    """A count out of a total, with the study's whole-percent rounding."""

    num: int
    den: int

    wire_derived: ClassVar = {"pct": None}

    @property
    def pct(self) -> int | None:
        return pct_half_up(self.num, self.den)

    def __str__(self) -> str:
        return f"{self.num}/{self.den} ({self.pct}%)" if self.den else f"{self.num}/0 (-)"


@dataclass
class GroupStats(Record):
    """Table 3 and Table 4 figures for a group of bugs (a benchmark, its realistic subset, or all).

    ``unknown_flags`` counts components whose DeepCrime flag is unknown: they are left out of
    RSFC, and bugs holding one are left out of RSB, so both ratios only count what is known.
    """

    bugs: int
    max_order: int = field(metadata=wire(key="max"))
    total: int
    fault_types: int
    rsb: Ratio
    rsfc: Ratio
    unknown_flags: int = 0

    wire_derived: ClassVar = {"mean": "max"}

    @property
    def mean(self) -> float | None:
        return mean_half_up(self.total, self.bugs)

    @property
    def mean_exact(self) -> float | None:
        return self.total / self.bugs if self.bugs else None


def group_stats(bugs: Sequence[Bug]) -> GroupStats:
    """Table 3/4 figures of ``bugs`` (callers pass only ok bugs of order >= 1)."""
    flags = [flag for bug in bugs for flag in bug.simulable]
    known = [flag for flag in flags if flag is not None]
    decided = [bug.is_simulable for bug in bugs if bug.is_simulable is not None]
    return GroupStats(
        bugs=len(bugs),
        max_order=max((bug.order for bug in bugs), default=0),
        total=sum(bug.order for bug in bugs),
        fault_types=len({code for bug in bugs for code in bug.codes}),
        rsb=Ratio(sum(decided), len(decided)),
        rsfc=Ratio(sum(known), len(known)),
        unknown_flags=len(flags) - len(known),
    )


@dataclass
class Table(Record):
    """One table of the report: written as Markdown, HTML and CSV (``name``.csv)."""

    name: str
    title: str
    columns: list[str]
    rows: list[list[Any]]
    note: str = ""

    def records(self) -> list[dict[str, Any]]:
        return [dict(zip(self.columns, row, strict=False)) for row in self.rows]


@dataclass
class BenchmarkFigures(Record):
    """What the report knows about one group: figures for all bugs and for the realistic subset."""

    name: str
    all: GroupStats
    realistic: GroupStats | None
    orders: Counter[int]
    order0: int = 0
    errors: int = 0

    def to_dict(self) -> dict[str, Any]:
        """The figures; ``orders`` keyed by the order as text, lowest first."""
        return {**record_to_dict(self), "orders": {str(k): v for k, v in sorted(self.orders.items())}}

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> BenchmarkFigures:
        orders = Counter({int(k): int(v) for k, v in d.get("orders", {}).items()})
        return cls(**{**record_kwargs(cls, d), "orders": orders})


def counted(bugs: Iterable[Bug]) -> list[Bug]:
    """The bugs the study's tables count: classified (or labelled) with at least one component."""
    return [bug for bug in bugs if bug.ok and bug.order > 0]


def benchmark_names(bugs: Iterable[Bug]) -> list[str]:
    """Benchmarks in order of first appearance."""
    return list(dict.fromkeys(bug.benchmark for bug in bugs))


def benchmark_figures(bugs: Sequence[Bug]) -> list[BenchmarkFigures]:
    """Per benchmark (first-appearance order) and :data:`ALL`: Table 3/4 figures and order counts."""
    has_realism = any(bug.realistic is not None for bug in bugs)
    groups: dict[str, list[Bug]] = defaultdict(list)
    for bug in bugs:
        groups[bug.benchmark].append(bug)
    out = []
    for name, members in [*((n, groups[n]) for n in benchmark_names(bugs)), (ALL, list(bugs))]:
        kept = counted(members)
        out.append(
            BenchmarkFigures(
                name=name,
                all=group_stats(kept),
                realistic=group_stats([b for b in kept if b.realistic]) if has_realism else None,
                orders=Counter(bug.order for bug in kept),
                order0=sum(1 for bug in members if bug.ok and bug.order == 0),
                errors=sum(1 for bug in members if not bug.ok),
            )
        )
    return out


# ---------------------------------------------------------------------------------------- tables


def _num(value: float | None) -> Any:
    return "" if value is None else value


def table3(figures: Sequence[BenchmarkFigures]) -> Table:
    """The study's Table 3: order of the bugs and number of fault types (realistic subset in R columns)."""
    with_r = any(f.realistic is not None for f in figures)
    columns = ["benchmark", "bugs", "max", "mean", "total", "#FT"]
    if with_r:
        columns += ["R bugs", "R max", "R mean", "R total", "R #FT"]
    rows = []
    for f in figures:
        row: list[Any] = [
            f.name,
            f.all.bugs,
            f.all.max_order,
            _num(f.all.mean),
            f.all.total,
            f.all.fault_types,
        ]
        if with_r and f.realistic is not None:
            r = f.realistic
            row += [r.bugs, r.max_order, _num(r.mean), r.total, r.fault_types]
        rows.append(row)
    note = "Order = number of fault components of a bug; #FT = distinct fault codes. Order-0 and error rows are not counted."
    if with_r:
        note += " R: the realistic subset (labels' realistic = Y)."
    return Table("table3_order", "Order of the bugs and fault types (Table 3)", columns, rows, note)


def table4(figures: Sequence[BenchmarkFigures]) -> Table:
    """The study's Table 4: RSB and RSFC, for all bugs and the realistic subset."""
    with_r = any(f.realistic is not None for f in figures)
    columns = ["benchmark", "RSB", "RSB %", "RSFC", "RSFC %"]
    if with_r:
        columns += ["RSB R", "RSB R %", "RSFC R", "RSFC R %"]
    rows = []
    unknown = 0
    for f in figures:
        row: list[Any] = [f.name, f"{f.all.rsb.num}/{f.all.rsb.den}", _num(f.all.rsb.pct)]
        row += [f"{f.all.rsfc.num}/{f.all.rsfc.den}", _num(f.all.rsfc.pct)]
        if with_r and f.realistic is not None:
            r = f.realistic
            row += [
                f"{r.rsb.num}/{r.rsb.den}",
                _num(r.rsb.pct),
                f"{r.rsfc.num}/{r.rsfc.den}",
                _num(r.rsfc.pct),
            ]
        rows.append(row)
        if f.name == ALL:
            unknown = f.all.unknown_flags
    note = (
        "RSB: bugs all of whose components DeepCrime can simulate / bugs. "
        "RSFC: simulable components / components. Percentages rounded half up."
    )
    if unknown:
        note += f" {unknown} component(s) without a usable DeepCrime flag are left out of both."
    return Table(
        "table4_similarity", "Similarity to artificial faults: RSB and RSFC (Table 4)", columns, rows, note
    )


def code_frequency_table(bugs: Sequence[Bug], describe: Callable[[str], str | None] | None = None) -> Table:
    """Each fault code: components, bugs holding it, share of components, simulable components, per benchmark."""
    kept = counted(bugs)
    names = benchmark_names(kept)
    components: Counter[str] = Counter()
    holders: Counter[str] = Counter()
    simulable: Counter[str] = Counter()
    per_benchmark: dict[str, Counter[str]] = defaultdict(Counter)
    category: dict[str, str] = {}
    for bug in kept:
        for code, flag, cat in zip(bug.codes, bug.simulable, bug.categories, strict=False):
            components[code] += 1
            simulable[code] += bool(flag)
            per_benchmark[bug.benchmark][code] += 1
            if cat and code not in category:
                category[code] = cat
        holders.update(set(bug.codes))
    total = sum(components.values())
    describe = describe or (lambda code: None)
    columns = ["code", "description", "category", "components", "bugs", "share %", "simulable", *names]
    rows = []
    for code, n in sorted(components.items(), key=lambda kv: (-kv[1], kv[0])):
        share = round(100 * n / total, 1) if total else ""
        row = [code, describe(code) or "", category.get(code, ""), n, holders[code], share, simulable[code]]
        rows.append(row + [per_benchmark[name][code] for name in names])
    return Table(
        "code_frequency",
        "Fault codes by frequency",
        columns,
        rows,
        "simulable: components DeepCrime can simulate.",
    )


def category_frequency_table(bugs: Sequence[Bug]) -> Table:
    """Each taxonomy category (the path the components carry): components and bugs."""
    components: Counter[str] = Counter()
    holders: Counter[str] = Counter()
    for bug in counted(bugs):
        cats = [cat or "(no category)" for cat in bug.categories] or ["(no category)"] * bug.order
        components.update(cats)
        holders.update(set(cats))
    total = sum(components.values())
    rows = [
        [cat, n, holders[cat], round(100 * n / total, 1) if total else ""]
        for cat, n in sorted(components.items(), key=lambda kv: (-kv[1], kv[0]))
    ]
    # top-level categories, the taxonomy's first split
    top: Counter[str] = Counter()
    for cat, n in components.items():
        top[cat.split(" > ")[0]] += n
    note = "Top level: " + ", ".join(f"{k} {v}" for k, v in top.most_common())
    return Table(
        "category_frequency",
        "Taxonomy categories by frequency",
        ["category", "components", "bugs", "share %"],
        rows,
        note,
    )


def order_distribution_table(figures: Sequence[BenchmarkFigures]) -> Table:
    """Number of bugs of each order, per benchmark (the order histogram's data)."""
    top = max((max(f.orders, default=0) for f in figures), default=0)
    columns = ["order", *(f.name for f in figures)]
    rows = [[k, *(f.orders.get(k, 0) for f in figures)] for k in range(1, top + 1)]
    return Table("order_distribution", "Bugs by order", columns, rows)


def explained_statements_table(bugs: Sequence[Bug]) -> Table | None:
    """ "Changed statements explained" per benchmark and overall: of the statements the fix changed
    (after the noise rules), the share a component explains; the rest are unexplained changes,
    counted by what they touch. None when no row was measured (labels, older results)."""
    measured = [b for b in bugs if b.ok and b.changed_statements is not None]
    if not measured:
        return None
    groups: dict[str, list[Bug]] = defaultdict(list)
    for bug in measured:
        groups[bug.benchmark].append(bug)
    rows = []
    for name, members in [*((n, groups[n]) for n in benchmark_names(measured)), (ALL, measured)]:
        changed = sum(b.changed_statements or 0 for b in members)
        explained = sum(b.explained_statements or 0 for b in members)
        touched: Counter[str] = Counter()
        for b in members:
            touched.update(b.unexplained)
        full = sum(1 for b in members if (b.explained_statements or 0) == (b.changed_statements or 0))
        kinds = ", ".join(f"{k} {n}" for k, n in touched.most_common())
        rows.append(
            [name, len(members), full, changed, explained, _num(pct_half_up(explained, changed)), kinds]
        )
    note = (
        "Statements the fix changed after the study's noise rules; explained = a fault component "
        "points into it, into its counterpart, or into a statement reading the name it binds. Every "
        "unexplained change is listed on its bug's page; 'fully explained' counts bugs with none."
    )
    return Table(
        "explained_statements",
        "Changed statements explained",
        [
            "benchmark",
            "bugs",
            "fully explained",
            "changed",
            "explained",
            "explained %",
            "unexplained by kind",
        ],
        rows,
        note,
    )


def order0_table(bugs: Sequence[Bug]) -> Table:
    """Bugs left with no fault component (after the noise rules): not counted in Tables 3 and 4."""
    rows = [[bug.id, bug.benchmark] for bug in bugs if bug.ok and bug.order == 0]
    return Table(
        "order0", "Order-0 bugs (no fault component; not in the tables above)", ["id", "benchmark"], rows
    )


def errors_table(bugs: Sequence[Bug], problems: Sequence[Any] = ()) -> Table:
    """Error rows of the results, and input lines the report could not read."""
    rows: list[list[Any]] = [[bug.id, bug.benchmark, bug.error or ""] for bug in bugs if not bug.ok]
    rows += [[f"line {p.line}", "", f"unreadable: {p.message}"] for p in problems]
    return Table(
        "errors", "Errors (classify failed or the line could not be read)", ["id", "benchmark", "error"], rows
    )


def _has_verdict(bug: Bug) -> bool:
    sides = [bug.data.get(side) for side in ("buggy", "fixed")] if isinstance(bug.data, dict) else []
    return any(isinstance(info, dict) and "class" in info for info in sides)


def _data_class(bug: Bug, side: str) -> str:
    info = bug.data.get(side) if isinstance(bug.data, dict) else None
    value = info.get("class") if isinstance(info, dict) else None
    return str(value) if value in ("real", "fake") else "unknown"


def _data_name(bug: Bug, side: str) -> str | None:
    info = bug.data.get(side) if isinstance(bug.data, dict) else None
    name = info.get("dataset") if isinstance(info, dict) else None
    return str(name) if name else None


def training_data_tables(bugs: Sequence[Bug]) -> list[Table]:
    """RQ2: the class of the training data (real / fake / unknown) per side and benchmark, and datasets.

    Only bugs whose row carries an RQ2 verdict (``data.buggy`` or ``data.fixed`` with a ``class``)
    are counted; returns no table when none does.
    """
    with_data = [bug for bug in bugs if bug.ok and _has_verdict(bug)]
    if not with_data:
        return []
    names = benchmark_names(with_data)
    rows = []
    for name in [*names, ALL]:
        group = [b for b in with_data if name in (ALL, b.benchmark)]
        row: list[Any] = [name, len(group)]
        for side in ("buggy", "fixed"):
            classes = Counter(_data_class(b, side) for b in group)
            row += [classes["real"], classes["fake"], classes["unknown"]]
        both_real = sum(1 for b in group if _data_class(b, "buggy") == _data_class(b, "fixed") == "real")
        row += [both_real, pct_half_up(both_real, len(group))]
        fake_sizes = [
            size
            for b in group
            for side in ("buggy", "fixed")
            if _data_class(b, side) == "fake" and isinstance(size := b.data[side].get("size"), int)
        ]
        row.append(f"{min(fake_sizes)}-{max(fake_sizes)}" if fake_sizes else "")
        rows.append(row)
    columns = ["benchmark", "bugs", "buggy real", "buggy fake", "buggy unknown", "fixed real", "fixed fake"]
    columns += ["fixed unknown", "both real", "both real %", "fake sizes"]
    summary = Table(
        "training_data",
        "Training data (RQ2): class per side",
        columns,
        rows,
        "real: a known dataset or data made by a meaningful procedure; fake: random or placeholder arrays. "
        "fake sizes: smallest-largest statically known size of fake training data (either side).",
    )
    datasets: Counter[str] = Counter()
    classes: dict[str, str] = {}
    for bug in with_data:
        name = _data_name(bug, "buggy") or _data_name(bug, "fixed")
        if name:
            datasets[name] += 1
            classes.setdefault(name, _data_class(bug, "buggy"))
    dataset_rows = [
        [name, n, classes[name]] for name, n in sorted(datasets.items(), key=lambda kv: (-kv[1], kv[0]))
    ]
    named = Table(
        "datasets", "Datasets used (buggy side, else fixed)", ["dataset", "bugs", "class"], dataset_rows
    )
    return [summary, named]


def combinations_table(
    bugs: Sequence[Bug], min_support: int, limit: int = 50, simulable_only: bool = False
) -> tuple[Table, list[Combination]]:
    """Frequent fault-code multisets of order 2 to 6 (support = bugs containing the multiset)."""
    code_lists = [
        [code for code, flag in zip(bug.codes, bug.simulable, strict=False) if flag or not simulable_only]
        for bug in counted(bugs)
    ]
    combos = frequent_combinations(code_lists, min_order=2, max_order=6, min_support=min_support)
    multi = sum(1 for codes in code_lists if len(codes) >= 2)
    rows = [
        [str(c), c.order, c.support, round(100 * c.support / multi, 1) if multi else ""]
        for c in combos[:limit]
    ]
    kind = "simulable components only" if simulable_only else "all components"
    name = "combinations_simulable" if simulable_only else "combinations"
    title = f"Frequent fault-code combinations ({kind})"
    note = (
        f"Multisets of 2-6 codes held by at least {min_support} bug(s); {len(combos)} found"
        + (f", the first {limit} shown" if len(combos) > limit else "")
        + f". share %: of the {multi} bugs with two or more such codes."
    )
    return Table(name, title, ["combination", "order", "support", "share %"], rows, note), combos


def cooccurrence_table(graph: nx.Graph) -> Table:
    """Pairs of codes in the same bug, by number of bugs (a code with itself: repeated in one bug)."""
    rows = sorted(
        ([min(u, v), max(u, v), d["weight"]] for u, v, d in graph.edges(data=True)),
        key=lambda r: (-r[2], r[0], r[1]),
    )
    return Table(
        "cooccurrence", "Co-occurrence of fault codes within bugs", ["code a", "code b", "bugs"], rows
    )


def bug_cooccurrence_graph(bugs: Sequence[Bug]) -> nx.Graph:
    """The co-occurrence graph of the counted bugs (see :func:`mutreal.label.mining.cooccurrence_graph`)."""
    return cooccurrence_graph([bug.codes for bug in counted(bugs)])
