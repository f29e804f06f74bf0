"""Build a benchmark report from a results JSONL or a labels CSV: the Python API behind ``mutreal report``.

:func:`load_bugs` reads either input into :class:`~mutreal.report.tables.Bug` records (a labels
file is recognised by its ``id,codes`` header), :func:`build_report` computes every table, and
:func:`mutreal.report.render.write_report` writes Markdown, HTML, PNG and CSV files.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, ClassVar

import networkx as nx

from mutreal.label.mining import Combination
from mutreal.report import paper
from mutreal.report.campaigns import CampaignRows, Campaigns
from mutreal.report.pages import BugPages, SourceFinder, read_label_sets
from mutreal.report.tables import (
    ALL,
    NO_BENCHMARK,
    BenchmarkFigures,
    Bug,
    Table,
    benchmark_figures,
    bug_cooccurrence_graph,
    bugs_from_labels,
    bugs_from_results,
    category_frequency_table,
    code_frequency_table,
    code_lookup,
    combinations_table,
    cooccurrence_table,
    counted,
    errors_table,
    explained_statements_table,
    order0_table,
    order_distribution_table,
    table3,
    table4,
    training_data_tables,
)
from mutreal.serialise import Record, record_kwargs, wire
from mutreal.study.confidence_levels import ConfidenceFilter, filter_rows
from mutreal.study.labelsfile import (
    LabelsFormatError,
    ReadProblem,
    ResultRow,
    is_labels_file,
    read_labels,
    read_results,
)

log = logging.getLogger(__name__)


@dataclass
class Report(Record):
    """Everything a report shows; ``tables`` in the order the report prints them."""

    title: str
    source: str
    kind: str  # "results" (classify output) or "labels" (manual labels)
    bugs: list[Bug]
    figures: list[BenchmarkFigures]
    tables: list[Table]
    problems: list[ReadProblem] = field(default_factory=list)
    combinations: list[Combination] = field(default_factory=list)
    graph: nx.Graph = field(default_factory=nx.Graph, metadata=wire(write=False))
    #: what ``--min-confidence`` dropped, when it was given
    confidence_filter: ConfidenceFilter | None = None
    #: the per-bug pages (results only; not part of the JSON)
    pages: BugPages | None = field(default=None, metadata=wire(write=False))
    #: reproduce/compare campaign rows (``--reproduce``/``--compare``), for plots and bug pages
    campaigns: Campaigns | None = field(default=None, metadata=wire(write=False))

    #: the headline numbers are written after the kind; the pages, campaigns and graph are not written
    wire_derived: ClassVar = {"summary": "kind"}
    wire_order: ClassVar = ("title", "source", "kind", "summary", "figures", "tables", "problems")
    wire_order += ("combinations", "bugs", "confidence_filter")

    def table(self, name: str) -> Table | None:
        return next((t for t in self.tables if t.name == name), None)

    @property
    def overall(self) -> BenchmarkFigures:
        return next(f for f in self.figures if f.name == ALL)

    def summary(self) -> dict[str, Any]:
        """Headline numbers (what ``mutreal report`` prints to stdout)."""
        overall = self.overall
        return {
            "source": self.source,
            "kind": self.kind,
            "rows": len(self.bugs),
            "bugs": overall.all.bugs,
            "order0": overall.order0,
            "errors": overall.errors,
            "unreadable_lines": len(self.problems),
            "benchmarks": [f.name for f in self.figures if f.name != ALL],
            "components": overall.all.total,
            "fault_types": overall.all.fault_types,
            "max_order": overall.all.max_order,
            "mean_order": overall.all.mean,
            "rsb": overall.all.rsb.to_dict(),
            "rsfc": overall.all.rsfc.to_dict(),
            "confidence_filter": self.confidence_filter.to_dict() if self.confidence_filter else None,
        }

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> Report:
        """Rebuild a report from its JSON (the graph is recomputed from the bugs)."""
        report = cls(**record_kwargs(cls, d))
        report.graph = bug_cooccurrence_graph(report.bugs)
        return report


def load_bugs(path: str | Path) -> tuple[list[Bug], str, list[ReadProblem]]:
    """Read a results JSONL or a labels CSV (recognised by extension or ``id,codes`` header).

    Returns the bugs, the kind of input (``"results"`` or ``"labels"``) and the lines that could
    not be read. Raises :class:`~mutreal.study.labelsfile.LabelsFormatError` for a file that is neither.
    """
    path = Path(path)
    if path.suffix.lower() in {".csv", ".tsv"} or is_labels_file(path):
        return _last_per_id(bugs_from_labels(read_labels(path)), path), "labels", []
    rows, problems = load_results(path)
    return bugs_from_results(rows), "results", problems


def load_results(path: str | Path) -> tuple[list[ResultRow], list[ReadProblem]]:
    """The rows of a results JSONL, one per id (see :func:`_last_per_id`), and its unreadable lines."""
    path = Path(path)
    problems: list[ReadProblem] = []
    rows = read_results(path, problems)
    if not rows and problems:
        raise LabelsFormatError(
            f"{path}: neither a results JSONL (no readable row) nor a labels CSV (no id,codes header)"
        )
    return _last_per_id(rows, path), problems


def _last_per_id(bugs: list[Any], path: Path) -> list[Any]:
    """One bug (or row) per id, the last row winning (a re-run appended to a results file), as the
    scoring script and ``mutreal agree`` read them; they keep the order of their first row."""
    last = {bug.id: bug for bug in bugs}
    if len(last) < len(bugs):
        log.warning("%s: %d row(s) repeat an earlier id; the later row is used", path, len(bugs) - len(last))
    return [last[bug_id] for bug_id in dict.fromkeys(bug.id for bug in bugs)]


def merge_realism(bugs: Sequence[Bug], labels_path: str | Path) -> int:
    """Take each bug's ``realistic`` flag (and a missing benchmark name) from a labels CSV, by id.

    Classify cannot know the study's realism subset (it needs the sources and the training data
    checks of RQ1/RQ2); a labels file can carry it, so results get the R columns of Tables 3
    and 4. Returns the number of bugs that got a flag.
    """
    by_id = {label.id: label for label in read_labels(labels_path)}
    merged = 0
    for bug in bugs:
        label = by_id.get(bug.id)
        if label is None:
            continue
        if label.realistic is not None:
            bug.realistic = label.realistic
            merged += 1
        if bug.benchmark == NO_BENCHMARK and label.benchmark:
            bug.benchmark = label.benchmark
    return merged


def default_min_support(bugs: Sequence[Bug]) -> int:
    """Support threshold for the combinations table: 1 for small inputs, 2 from 50 bugs, 3 from 500."""
    n = len(counted(bugs))
    return 1 if n < 50 else 2 if n < 500 else 3


def build_report(
    bugs: Sequence[Bug],
    *,
    source: str = "",
    kind: str = "results",
    problems: Sequence[ReadProblem] = (),
    title: str | None = None,
    min_support: int | None = None,
    combinations_limit: int = 50,
    pages: BugPages | None = None,
    confidence_filter: ConfidenceFilter | None = None,
    campaigns: Campaigns | None = None,
    published: Mapping[str, Any] | None = None,
) -> Report:
    """Compute every table of the report from ``bugs`` (order-0 and error rows listed apart);
    with ``pages``, the report lists every bug with a link to its page; ``campaigns`` adds the
    reproduction and coupling tables (and their sections on the bug pages); ``published`` (the
    table of ``benchmarks/realism_published.py``) adds mutreal's realism figures beside Ahmed et
    al.'s (:mod:`mutreal.report.published`) to the realism section and the bug pages."""
    bugs = list(bugs)
    figures = benchmark_figures(bugs)
    support = min_support or default_min_support(bugs)
    tables: list[Table] = [table3(figures), table4(figures)]
    comparison = paper.comparison_table(figures)
    if comparison is not None:
        tables += [comparison, paper.errata_table()]
    tables += [code_frequency_table(bugs, code_lookup("description")), category_frequency_table(bugs)]
    tables += training_data_tables(bugs)
    graph = bug_cooccurrence_graph(bugs)
    combos_table, combos = combinations_table(bugs, support, combinations_limit)
    simulable_table, _ = combinations_table(bugs, support, combinations_limit, simulable_only=True)
    tables += [combos_table, simulable_table, cooccurrence_table(graph), order_distribution_table(figures)]
    tables += [order0_table(bugs), errors_table(bugs, problems)]
    explained = explained_statements_table(bugs)
    if explained is not None:
        tables.append(explained)
    if campaigns is not None:
        tables += campaigns.tables({bug.id: bug.codes for bug in bugs})
        if pages is not None:
            pages.extra = campaigns.page_sections()
    if published is not None:
        from mutreal.report import published as published_section

        tables += published_section.tables(published)
        if pages is not None:
            pages.extra = published_section.merge_sections(
                pages.extra, published_section.page_sections(published)
            )
    if pages is not None:
        tables.append(pages.index_table())
    return Report(
        title=title or ("Fault benchmark report" + (" (manual labels)" if kind == "labels" else "")),
        source=source,
        kind=kind,
        bugs=bugs,
        figures=figures,
        tables=tables,
        problems=list(problems),
        combinations=combos,
        graph=graph,
        confidence_filter=confidence_filter,
        pages=pages,
        campaigns=campaigns,
    )


def report_from_file(
    path: str | Path,
    realism_from: str | Path | None = None,
    *,
    labels: Sequence[str | Path] = (),
    sources: Sequence[str | Path] = (),
    min_confidence: str | None = None,
    reproduce: str | Path | None = None,
    compare: str | Path | None = None,
    published: str | Path | None = None,
    **options: Any,
) -> Report:
    """Read ``path`` (results JSONL or labels CSV) and build its report (options as for
    :func:`build_report`).

    ``realism_from``: a labels CSV whose ``realistic`` column marks the realistic subset.
    For results: ``labels`` are labels CSVs shown beside the predicted codes on the bug pages,
    ``sources`` folders where the programs the rows name are looked for first, and
    ``min_confidence`` drops components below that level (and those without a confidence).
    ``reproduce``/``compare``: the JSONL of ``reproduce --manifest`` / ``compare --manifest``;
    ``published``: the JSON table of ``benchmarks/realism_published.py --out``.
    """
    path = Path(path)
    if path.suffix.lower() in {".csv", ".tsv"} or is_labels_file(path):
        if min_confidence is not None:
            raise LabelsFormatError(f"{path}: --min-confidence filters classify results, not labels")
        bugs, kind, problems = load_bugs(path)
        rows: list[ResultRow] | None = None
        confidence_filter = None
    else:
        rows, problems = load_results(path)
        confidence_filter = None
        if min_confidence is not None:
            rows, confidence_filter = filter_rows(rows, min_confidence)
        bugs, kind = bugs_from_results(rows), "results"
    if realism_from is not None:
        merge_realism(bugs, realism_from)
    pages = None
    if rows is not None:
        pages = BugPages(rows, SourceFinder.for_results(path, sources), read_label_sets(labels))
    campaigns = None
    if reproduce is not None or compare is not None:
        campaigns = Campaigns(
            CampaignRows.read(reproduce) if reproduce is not None else None,
            CampaignRows.read(compare) if compare is not None else None,
        )
    return build_report(
        bugs,
        source=str(path),
        kind=kind,
        problems=problems,
        pages=pages,
        confidence_filter=confidence_filter,
        campaigns=campaigns,
        published=_published_table(published),
        **options,
    )


def _published_table(path: str | Path | None) -> dict[str, Any] | None:
    if path is None:
        return None
    from mutreal.report.published import load_table

    return load_table(path)
