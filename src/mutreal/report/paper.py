"""The realism study's published tables, and a side-by-side "paper vs this run" comparison.

The figures live in ``paper_tables.yaml`` next to this module (shipped in the wheel), copied from
the study's text with the printed errata listed. When a report's benchmarks carry the study's
benchmark names, Table 3 and Table 4 are printed with a "paper" and a "this run" column: run the
report on the study's labels and every count should agree; run it on classify's results and the
columns show where the automatic labelling departs from the manual one.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache
from importlib import resources
from typing import Any

import yaml

from mutreal.report.tables import ALL, BenchmarkFigures, GroupStats, Table
from mutreal.serialise import Record

#: measures of Table 3 / Table 4 compared, in the order the comparison lists them
MEASURES = ("bugs", "max", "average", "overall", "ft", "rsb", "rsfc")
_LABELS = {
    "bugs": "#bugs",
    "max": "max order",
    "average": "mean order",
    "overall": "components",
    "ft": "#FT",
    "rsb": "RSB",
    "rsfc": "RSFC",
}


@lru_cache(maxsize=1)
def load_paper_tables() -> dict[str, Any]:
    """The stored study figures (``paper_tables.yaml``), parsed once."""
    text = resources.files("mutreal.report").joinpath("paper_tables.yaml").read_text(encoding="utf-8")
    return yaml.safe_load(text)


def _key(name: str) -> str:
    return re.sub(r"[^a-z0-9]", "", name.lower())


def paper_benchmark(name: str) -> str | None:
    """The study's name for a benchmark name (any spelling the data file lists), or None."""
    key = _key(name)
    for canonical, aliases in load_paper_tables()["benchmarks"].items():
        if key == _key(canonical) or key in {_key(a) for a in aliases or []}:
            return canonical
    return None


def erratum(table: int, row: str, column: str) -> dict[str, Any] | None:
    """The erratum entry for a printed cell, if the study's figure contradicts its counts."""
    for entry in load_paper_tables()["errata"]:
        if entry["table"] == table and entry["row"] == row and entry["column"] == column:
            return entry
    return None


@dataclass(frozen=True)
class PaperFigures(Record):
    """One benchmark's (or ALL's) Table 3/4 figures as the study gives them, errata corrected."""

    row: str
    subset: str  # "all" or "realistic"
    bugs: int
    max: int
    average: float
    average_printed: float
    overall: int
    ft: int
    rsb: tuple[int, int, int]  # num, den, pct (corrected)
    rsfc: tuple[int, int, int]
    rsb_printed: str
    rsfc_printed: str


def paper_figures(row: str, subset: str = "all") -> PaperFigures:
    """Stored Table 3/4 figures of ``row`` (a study benchmark name or ``ALL``), errata applied."""
    data = load_paper_tables()
    t3 = data["table3"]["rows"][row][subset]
    t4 = data["table4"]["rows"][row]

    def ratio(column: str) -> tuple[int, int, int]:
        cell = t4[column]
        fix = erratum(4, row, column)
        return int(cell["num"]), int(cell["den"]), int(fix["corrected"] if fix else cell["pct"])

    fix = erratum(3, row, f"{subset}.average")
    return PaperFigures(
        row=row,
        subset=subset,
        bugs=int(t3["bugs"]),
        max=int(t3["max"]),
        average=float(fix["corrected"]) if fix else float(t3["average"]),
        average_printed=float(t3["average"]),
        overall=int(t3["overall"]),
        ft=int(t3["ft"]),
        rsb=ratio(f"rsb_{subset}"),
        rsfc=ratio(f"rsfc_{subset}"),
        rsb_printed=str(t4[f"rsb_{subset}"]["printed"]),
        rsfc_printed=str(t4[f"rsfc_{subset}"]["printed"]),
    )


def _this_run(stats: GroupStats, measure: str) -> tuple[str, Any]:
    """A computed figure as text and as the value compared."""
    if measure == "bugs":
        return str(stats.bugs), stats.bugs
    if measure == "max":
        return str(stats.max_order), stats.max_order
    if measure == "average":
        return ("" if stats.mean is None else f"{stats.mean:.1f}"), stats.mean
    if measure == "overall":
        return str(stats.total), stats.total
    if measure == "ft":
        return str(stats.fault_types), stats.fault_types
    ratio = stats.rsb if measure == "rsb" else stats.rsfc
    return str(ratio), (ratio.num, ratio.den, ratio.pct)


def _paper(fig: PaperFigures, measure: str) -> tuple[str, Any, str]:
    """The study's figure as printed, the value compared (errata corrected) and an erratum note."""
    if measure in ("rsb", "rsfc"):
        printed = fig.rsb_printed if measure == "rsb" else fig.rsfc_printed
        value = fig.rsb if measure == "rsb" else fig.rsfc
        fix = erratum(4, fig.row, f"{measure}_{fig.subset}")
        return printed, value, (f"printed {fix['printed']}: {fix['why']}" if fix else "")
    value = getattr(fig, measure)
    if measure == "average":
        fix = erratum(3, fig.row, f"{fig.subset}.average")
        return f"{fig.average_printed:.1f}", value, (f"printed {fix['printed']}: {fix['why']}" if fix else "")
    return str(value), value, ""


def matching_benchmarks(figures: Sequence[BenchmarkFigures]) -> dict[str, str]:
    """Report benchmark name -> study benchmark name, for the report's benchmarks the study has."""
    out = {}
    for f in figures:
        if f.name == ALL:
            continue
        canonical = paper_benchmark(f.name)
        if canonical is not None:
            out[f.name] = canonical
    return out


def comparison_table(figures: Sequence[BenchmarkFigures]) -> Table | None:
    """Table 3/4 of the study and of this run side by side, for the benchmarks the study has.

    ``ALL`` is compared only when the report holds exactly the study's five benchmarks. Returns
    None when no benchmark name matches. ``same`` compares counts, and percentages and means
    with the study's errata corrected (the printed slips are shown and explained in ``note``).
    """
    matches = matching_benchmarks(figures)
    if not matches:
        return None
    study = list(load_paper_tables()["benchmarks"])
    pairs = [(f, matches[f.name]) for f in figures if f.name in matches]
    names = [f.name for f in figures if f.name != ALL]
    if sorted(matches.values()) == sorted(study) and len(names) == len(study):
        pairs += [(f, ALL) for f in figures if f.name == ALL]
    rows = []
    for f, row in pairs:
        for subset, stats in (("all", f.all), ("realistic", f.realistic)):
            if stats is None:
                continue
            fig = paper_figures(row, subset)
            for measure in MEASURES:
                shown, got = _this_run(stats, measure)
                paper_text, expected, note = _paper(fig, measure)
                same = got == expected
                rows.append(
                    [f.name, subset, _LABELS[measure], paper_text, shown, "yes" if same else "no", note]
                )
    agree = sum(1 for r in rows if r[5] == "yes")
    note = (
        f"{agree} of {len(rows)} figures equal the study's (counts exactly; percentages rounded half up "
        "and means to one decimal, compared with the study's errata corrected; the paper column shows the "
        "figure as printed). realistic: the study's bracketed / R figures."
    )
    return Table(
        "paper_comparison",
        "Paper vs this run (Tables 3 and 4 of the study)",
        ["benchmark", "subset", "measure", "paper", "this run", "same", "erratum"],
        rows,
        note,
    )


def errata_table() -> Table:
    """The printed errata of the study's tables (shown in a report that compares with the study)."""
    rows = [
        [e["table"], e["row"], e["column"], e["printed"], e["corrected"], e["why"]]
        for e in load_paper_tables()["errata"]
    ]
    return Table(
        "paper_errata",
        "Printed errata in the study's tables",
        ["table", "row", "column", "printed", "corrected", "why"],
        rows,
    )
