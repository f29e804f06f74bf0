"""Write a report: Markdown (linking PNG files), one self-contained HTML page, and CSV of every table.

The HTML embeds each plot as a ``data:image/png;base64`` URI and its styles inline, so the single
file can be mailed or attached to a paper review and still show everything. Long tables are cut in
the Markdown and HTML (the CSV files always hold every row).
"""

from __future__ import annotations

import base64
import csv
import html
import json
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import networkx as nx

from mutreal.report.build import Report
from mutreal.report.published import TABLE_NAMES as PUBLISHED_TABLES
from mutreal.report.tables import Table
from mutreal.report.web import CSS, script_tag

#: rows of a table shown in Markdown/HTML before "... more rows in the CSV"
MAX_ROWS = 60


@dataclass(frozen=True)
class Plot:
    """One figure of the report: its file name (without .png), caption, and the section it belongs to."""

    name: str
    caption: str
    section: str


PLOTS = (
    Plot(
        "rsb_rsfc",
        "RSB and RSFC per benchmark: share of bugs / components DeepCrime can simulate",
        "similarity",
    ),
    Plot("order_histogram", "Order of the bugs per benchmark", "order"),
    Plot("code_frequency", "Fault codes by frequency, split by DeepCrime flag", "codes"),
    Plot("categories", "Taxonomy categories by frequency", "codes"),
    Plot(
        "cooccurrence_heatmap",
        "Co-occurrence of fault codes within bugs (diagonal: a code repeated in a bug)",
        "combinations",
    ),
)

#: plots drawn only when the report has compare rows (``--compare``)
CAMPAIGN_PLOTS = (
    Plot(
        "coupling_heatmap",
        "Coupling strength per bug and operator (best mutant of each operator)",
        "coupling",
    ),
    Plot("kp_scatter", "KP(best mutant) against KP(real fault), one point per input", "coupling"),
)

#: report sections: heading, tables (by name) and plots, in order
SECTIONS: tuple[tuple[str, str, tuple[str, ...]], ...] = (
    ("order", "Order of the bugs and fault types (RQ3)", ("table3_order", "order_distribution")),
    ("similarity", "Similarity to DeepCrime's artificial faults (RQ4)", ("table4_similarity",)),
    ("paper", "Comparison with the study's published tables", ("paper_comparison", "paper_errata")),
    ("codes", "Fault codes and taxonomy categories", ("code_frequency", "category_frequency")),
    ("data", "Training data (RQ2)", ("training_data", "datasets")),
    (
        "combinations",
        "Fault-code co-occurrence and frequent combinations",
        ("combinations", "combinations_simulable", "cooccurrence"),
    ),
    ("reproduction", "Reproduction of the real faults (RQ5)", ("table5_reproduction", "reproduction_bugs")),
    (
        "realism",
        "Realism of the real faults: their reconstructing mutants",
        ("realism_bugs", "realism_hom", *PUBLISHED_TABLES),
    ),
    ("coupling", "Mutants against the real faults: coupling", ("coupling_operators", "coupling_best")),
    ("apart", "Listed apart: order-0 bugs and errors", ("order0", "errors")),
    (
        "explained",
        "Changed statements explained (unexplained changes are on the bug pages)",
        ("explained_statements",),
    ),
    ("bugs", "Every bug, with a link to its page", ("bugs",)),
)

#: tables shown whole however long (the bug list: every bug must link to its page; the realism
#: table: every compared bug shows its figure or why it has none)
UNCUT = {"bugs", "realism_bugs", PUBLISHED_TABLES[0]}
#: tables whose first column is a bug id, linked to the bug's page
LINKED = {
    "bugs",
    "realism_bugs",
    "realism_hom",
    "coupling_best",
    "reproduction_bugs",
    PUBLISHED_TABLES[0],
}


def render_plots(report: Report) -> dict[str, bytes]:
    """Every plot of :data:`PLOTS` as PNG bytes."""
    from mutreal.report import plots

    makers: dict[str, Callable[[], bytes]] = {
        "rsb_rsfc": lambda: plots.rsb_rsfc_png(report.figures),
        "order_histogram": lambda: plots.order_histogram_png(report.figures),
        "code_frequency": lambda: plots.code_frequency_png(report.bugs),
        "categories": lambda: plots.category_png(report.bugs),
        "cooccurrence_heatmap": lambda: plots.cooccurrence_heatmap_png(report.graph),
    }
    compared = report.campaigns.compare if report.campaigns is not None else None
    if compared is not None:
        from mutreal.report import campaign_plots

        makers["coupling_heatmap"] = lambda: campaign_plots.coupling_heatmap_png(compared)
        makers["kp_scatter"] = lambda: campaign_plots.kp_scatter_png(compared)
    return {plot.name: makers[plot.name]() for plot in (*PLOTS, *CAMPAIGN_PLOTS) if plot.name in makers}


def _cell(value: Any) -> str:
    if value is None:
        return ""
    if isinstance(value, float):
        return str(round(value, 6))
    return str(value)


def _or_dash(value: object) -> str:
    """A figure for people: ``-`` where there is none (no bug counted), never ``None``."""
    return "-" if value is None else str(value)


def percent_text(value: int | None) -> str:
    """A percentage for people, ``-`` where its denominator is 0."""
    return "-" if value is None else f"{value}%"


def _summary_lines(report: Report) -> list[str]:
    s = report.summary()
    what = "manual labels" if report.kind == "labels" else "classify results"
    lines = [
        f"Source: `{s['source']}` ({what}), {s['rows']} rows, {len(s['benchmarks'])} benchmark(s): "
        + ", ".join(s["benchmarks"]),
        f"Bugs counted: {s['bugs']} ({s['components']} fault components, {s['fault_types']} fault types, "
        f"max order {s['max_order']}, mean {_or_dash(s['mean_order'])}); RSB {s['rsb']['num']}/{s['rsb']['den']} "
        f"({percent_text(s['rsb']['pct'])}), RSFC {s['rsfc']['num']}/{s['rsfc']['den']} ({percent_text(s['rsfc']['pct'])}).",
        f"Listed apart: {s['order0']} order-0 bug(s), {s['errors']} error row(s)"
        + (f", {s['unreadable_lines']} unreadable line(s)" if s["unreadable_lines"] else "")
        + ".",
    ]
    return lines


# -------------------------------------------------------------------------------------- Markdown


def table_markdown(table: Table, max_rows: int = MAX_ROWS, links: dict[str, str] | None = None) -> str:
    """A GitHub-flavoured Markdown table, with its title, note, and a cut marker for long tables;
    ``links`` (first-column value -> relative URL) turns first cells into links."""

    def esc(value: Any) -> str:
        return _cell(value).replace("|", "\\|").replace("\n", " ")

    def first(value: Any) -> str:
        text = esc(value)
        href = (links or {}).get(_cell(value))
        return f"[{text}]({href})" if href else text

    lines = [f"### {table.title}", ""]
    if not table.rows:
        lines.append("_None._")
    else:
        lines.append("| " + " | ".join(esc(c) for c in table.columns) + " |")
        lines.append("|" + "|".join("---" for _ in table.columns) + "|")
        for row in table.rows[:max_rows]:
            lines.append("| " + " | ".join([first(row[0]), *(esc(v) for v in row[1:])]) + " |")
        if len(table.rows) > max_rows:
            lines.append(f"\n_{len(table.rows) - max_rows} more rows in `tables/{table.name}.csv`._")
    if table.note:
        lines += ["", f"_{table.note}_"]
    return "\n".join(lines) + "\n"


def render_markdown(report: Report, image_paths: dict[str, str] | None = None) -> str:
    """The report as Markdown; plots are linked from ``image_paths`` (name -> relative path)."""
    out = [f"# {report.title}", "", *(f"{line}  " for line in _summary_lines(report)), ""]
    for key, heading, names in SECTIONS:
        tables = [t for t in (report.table(n) for n in names) if t is not None]
        plots = [
            p for p in (*PLOTS, *CAMPAIGN_PLOTS) if p.section == key and image_paths and p.name in image_paths
        ]
        if not tables and not plots:
            continue
        out += [f"## {heading}", ""]
        for plot in plots:
            out += [f"![{plot.caption}]({image_paths[plot.name]})", ""]
        for table in tables:
            links = _links(report) if table.name in LINKED else None
            rows = len(table.rows) if table.name in UNCUT else MAX_ROWS
            out += [table_markdown(table, max_rows=rows, links=links)]
    return "\n".join(out)


def _links(report: Report) -> dict[str, str]:
    return report.pages.hrefs() if report.pages is not None else {}


# ------------------------------------------------------------------------------------------- HTML


def table_html(table: Table, max_rows: int = MAX_ROWS, links: dict[str, str] | None = None) -> str:
    """An HTML table (escaped), with title, note and a cut marker for long tables; ``links``
    (first-column value -> relative URL) turns first cells into links."""
    parts = [f'<h3 id="{html.escape(table.name)}">{html.escape(table.title)}</h3>']
    if not table.rows:
        parts.append("<p><em>None.</em></p>")
    else:
        head = "".join(f"<th>{html.escape(_cell(c))}</th>" for c in table.columns)
        body = []
        for row in table.rows[:max_rows]:
            cells = []
            for index, (column, value) in enumerate(zip(table.columns, row, strict=False)):
                classes = []
                if isinstance(value, int | float) and not isinstance(value, bool):
                    classes.append("num")
                if column == "same" and value in ("yes", "no"):
                    classes.append(value)
                attr = f' class="{" ".join(classes)}"' if classes else ""
                text = html.escape(_cell(value))
                href = (links or {}).get(_cell(value)) if index == 0 else None
                if href:
                    text = f'<a href="{html.escape(href)}">{text}</a>'
                cells.append(f"<td{attr}>{text}</td>")
            body.append("<tr>" + "".join(cells) + "</tr>")
        parts.append(
            f'<table class="data" data-table="{html.escape(table.name)}"{" data-filter" if links else ""}>'
            f"<thead><tr>{head}</tr></thead>"
        )
        parts.append("<tbody>" + "\n".join(body) + "</tbody></table>")
        if len(table.rows) > max_rows:
            parts.append(
                f'<p class="note">{len(table.rows) - max_rows} more rows in tables/{html.escape(table.name)}.csv</p>'
            )
    if table.note:
        parts.append(f'<p class="note">{html.escape(table.note)}</p>')
    return "\n".join(parts)


def render_html(report: Report, images: dict[str, bytes]) -> str:
    """One self-contained HTML page: inline CSS and script (sortable, filterable tables), plots
    embedded as base64 PNG data URIs; nothing loaded from elsewhere."""
    sections = []
    nav = []
    for key, heading, names in SECTIONS:
        tables = [t for t in (report.table(n) for n in names) if t is not None]
        plots = [p for p in (*PLOTS, *CAMPAIGN_PLOTS) if p.section == key and p.name in images]
        if not tables and not plots:
            continue
        nav.append(f'<a href="#section-{key}">{html.escape(heading)}</a>')
        body = [f'<section id="section-{key}"><h2>{html.escape(heading)}</h2>']
        for plot in plots:
            data = base64.b64encode(images[plot.name]).decode("ascii")
            body.append(
                f'<figure><img class="plot" id="plot-{plot.name}" alt="{html.escape(plot.caption)}" '
                f'src="data:image/png;base64,{data}"><figcaption>{html.escape(plot.caption)}</figcaption></figure>'
            )
        body += [
            table_html(
                t,
                max_rows=len(t.rows) if t.name in UNCUT else MAX_ROWS,
                links=_links(report) if t.name in LINKED else None,
            )
            for t in tables
        ]
        body.append("</section>")
        sections.append("\n".join(body))
    summary = "".join(f"<p>{html.escape(line.replace('`', ''))}</p>" for line in _summary_lines(report))
    return (
        "<!DOCTYPE html>\n"
        '<html lang="en"><head><meta charset="utf-8">'
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        f"<title>{html.escape(report.title)}</title><style>{CSS}</style></head><body>\n"
        f"<h1>{html.escape(report.title)}</h1>\n"
        f'<div class="summary">{summary}</div>\n<nav>{"".join(nav)}</nav>\n'
        + "\n".join(sections)
        + '\n<footer class="note">Made by mutreal report. Tables as CSV in tables/.</footer>'
        + script_tag()
        + "</body></html>\n"
    )


# ------------------------------------------------------------------------------------------ files


def write_csv(table: Table, path: Path) -> None:
    """Every row of ``table`` as CSV (header = columns)."""
    with open(path, "w", newline="", encoding="utf-8") as fh:
        writer = csv.writer(fh)
        writer.writerow(table.columns)
        writer.writerows([[_cell(v) for v in row] for row in table.rows])


def write_report(report: Report, out_dir: str | Path, plots: bool = True) -> dict[str, Path]:
    """Write report.md, report.html, report.json, plots/*.png, tables/*.csv, the co-occurrence
    graph (cooccurrence.graphml: node attributes count/bugs, edge weight = bugs) and, for results,
    one page per bug (bugs/*.html) under ``out_dir``.

    Returns name -> path of what was written. ``plots=False`` skips matplotlib entirely (the
    Markdown and HTML then hold the tables only).
    """
    out = Path(out_dir)
    (out / "tables").mkdir(parents=True, exist_ok=True)
    written: dict[str, Path] = {}
    images = render_plots(report) if plots else {}
    image_paths: dict[str, str] = {}
    if images:
        (out / "plots").mkdir(exist_ok=True)
        for name, data in images.items():
            path = out / "plots" / f"{name}.png"
            path.write_bytes(data)
            written[f"plots/{name}.png"] = path
            image_paths[name] = f"plots/{name}.png"
    for table in report.tables:
        path = out / "tables" / f"{table.name}.csv"
        write_csv(table, path)
        written[f"tables/{table.name}.csv"] = path
    graph = out / "cooccurrence.graphml"
    nx.write_graphml(report.graph, graph)
    written["cooccurrence.graphml"] = graph
    if report.pages is not None:
        for bug_id, path in report.pages.write(out).items():
            written[f"bugs/{bug_id}"] = path
    for name, text in (
        ("report.md", render_markdown(report, image_paths)),
        ("report.html", render_html(report, images)),
        ("report.json", json.dumps(report.to_dict(), indent=1, default=str) + "\n"),
    ):
        path = out / name
        path.write_text(text, encoding="utf-8")
        written[name] = path
    return written
