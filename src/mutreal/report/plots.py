"""The report's figures as PNG bytes (matplotlib, Agg backend: no display needed).

Each function takes the report's computed figures and returns PNG bytes, so the Markdown report
can link files and the HTML report can embed the same bytes as data URIs. matplotlib is imported
here only, when a report with plots is made.
"""

from __future__ import annotations

import io
from collections.abc import Sequence

import networkx as nx

from mutreal.report.tables import ALL, BenchmarkFigures, Bug, counted

#: colours: simulable by DeepCrime / not simulable / unknown flag (colour-blind safe pair)
SIMULABLE, NOT_SIMULABLE, UNKNOWN = "#1b9e77", "#d95f02", "#9e9e9e"


def _pyplot():
    import matplotlib

    matplotlib.use("Agg", force=True)
    import matplotlib.pyplot as plt

    return plt


def _png(fig) -> bytes:
    plt = _pyplot()
    buffer = io.BytesIO()
    fig.savefig(buffer, format="png", dpi=100, bbox_inches="tight", facecolor="white")
    plt.close(fig)
    return buffer.getvalue()


def _empty(message: str) -> bytes:
    """A small figure saying there is nothing to plot (so a report never has a broken image)."""
    plt = _pyplot()
    fig, ax = plt.subplots(figsize=(6, 1.5))
    ax.text(0.5, 0.5, message, ha="center", va="center", fontsize=11)
    ax.set_axis_off()
    return _png(fig)


def code_frequency_png(bugs: Sequence[Bug], top: int = 30) -> bytes:
    """Horizontal bars: components per fault code (most frequent first), split by DeepCrime flag."""
    from collections import Counter

    sim: Counter[str] = Counter()
    non: Counter[str] = Counter()
    unk: Counter[str] = Counter()
    for bug in counted(bugs):
        for code, flag in zip(bug.codes, bug.simulable, strict=False):
            (sim if flag else unk if flag is None else non)[code] += 1
    totals = sim + non + unk
    if not totals:
        return _empty("no fault components")
    codes = [c for c, _ in sorted(totals.items(), key=lambda kv: (-kv[1], kv[0]))[:top]][::-1]
    plt = _pyplot()
    fig, ax = plt.subplots(figsize=(7.5, max(2.5, 0.28 * len(codes) + 1)))
    left = [0] * len(codes)
    for counts, colour, label in (
        (sim, SIMULABLE, "simulable"),
        (non, NOT_SIMULABLE, "not simulable"),
        (unk, UNKNOWN, "flag unknown"),
    ):
        values = [counts[c] for c in codes]
        if any(values):
            ax.barh(codes, values, left=left, color=colour, label=label)
            left = [a + b for a, b in zip(left, values, strict=True)]
    for y, total in enumerate(left):
        ax.text(total, y, f" {total}", va="center", fontsize=8)
    ax.set_xlabel("fault components")
    shown = f"top {top} of {len(totals)}" if len(totals) > top else f"{len(totals)} codes"
    ax.set_title(f"Fault codes by frequency ({shown})")
    ax.legend(loc="lower right", fontsize=8)
    ax.set_xlim(0, max(left) * 1.12 + 1)
    return _png(fig)


def order_histogram_png(figures: Sequence[BenchmarkFigures]) -> bytes:
    """Bugs by order, one panel per benchmark (plus ALL when there are several benchmarks)."""
    panels = [f for f in figures if f.name != ALL]
    if len(panels) > 1:
        panels += [f for f in figures if f.name == ALL]
    panels = [f for f in panels if f.orders]
    if not panels:
        return _empty("no bugs with fault components")
    top = max(max(f.orders) for f in panels)
    plt = _pyplot()
    from matplotlib.ticker import MaxNLocator

    cols = min(3, len(panels))
    rows = -(-len(panels) // cols)
    fig, axes = plt.subplots(rows, cols, figsize=(3.6 * cols, 2.6 * rows), squeeze=False)
    orders = list(range(1, top + 1))
    for ax, f in zip(axes.flat, panels, strict=False):
        ax.bar(orders, [f.orders.get(k, 0) for k in orders], color="#4c72b0")
        ax.set_title(f"{f.name} ({f.all.bugs} bugs, mean {f.all.mean})", fontsize=9)
        ax.set_xticks(orders)
        ax.tick_params(labelsize=7)
        ax.set_xlabel("order", fontsize=8)
        ax.set_ylabel("bugs", fontsize=8)
        ax.yaxis.set_major_locator(MaxNLocator(integer=True))
    for ax in list(axes.flat)[len(panels) :]:
        ax.set_axis_off()
    fig.suptitle("Order of the bugs (number of fault components)", fontsize=11)
    fig.tight_layout()
    return _png(fig)


def cooccurrence_heatmap_png(graph: nx.Graph, top: int = 20) -> bytes:
    """Heat map of bugs holding both codes, for the ``top`` most frequent codes; diagonal: code repeated."""
    if graph.number_of_edges() == 0:
        return _empty("no two fault codes occur in the same bug")
    codes = sorted(graph.nodes, key=lambda n: (-graph.nodes[n]["count"], n))[:top]
    matrix = [[graph.edges[a, b]["weight"] if graph.has_edge(a, b) else 0 for b in codes] for a in codes]
    plt = _pyplot()
    size = max(4.0, 0.36 * len(codes) + 2)
    fig, ax = plt.subplots(figsize=(size + 1, size))
    image = ax.imshow(matrix, cmap="viridis")
    ax.set_xticks(range(len(codes)), codes, rotation=90, fontsize=8)
    ax.set_yticks(range(len(codes)), codes, fontsize=8)
    peak = max(max(row) for row in matrix) or 1
    if len(codes) <= 25:
        for i, row in enumerate(matrix):
            for j, value in enumerate(row):
                if value:
                    colour = "black" if value > 0.6 * peak else "white"
                    ax.text(j, i, str(value), ha="center", va="center", fontsize=7, color=colour)
    fig.colorbar(image, ax=ax, shrink=0.8, label="bugs holding both")
    ax.set_title("Co-occurrence of fault codes within bugs")
    return _png(fig)


def rsb_rsfc_png(figures: Sequence[BenchmarkFigures]) -> bytes:
    """Grouped bars: RSB and RSFC (percent) per benchmark and overall."""
    shown = [f for f in figures if f.all.bugs]
    if not shown:
        return _empty("no bugs with fault components")
    plt = _pyplot()
    fig, ax = plt.subplots(figsize=(max(5.0, 1.3 * len(shown) + 2), 3.6))
    xs = list(range(len(shown)))
    width = 0.38
    rsb = [f.all.rsb.pct or 0 for f in shown]
    rsfc = [f.all.rsfc.pct or 0 for f in shown]
    bars_b = ax.bar([x - width / 2 for x in xs], rsb, width, label="RSB (bugs)", color="#4c72b0")
    bars_c = ax.bar([x + width / 2 for x in xs], rsfc, width, label="RSFC (components)", color="#55a868")
    for bars in (bars_b, bars_c):
        ax.bar_label(bars, fmt="%d%%", fontsize=7)
    ax.set_xticks(xs, [f.name for f in shown], rotation=20, ha="right", fontsize=8)
    ax.set_ylim(0, 110)
    ax.set_ylabel("% simulable by DeepCrime")
    ax.set_title("Similarity to artificial faults")
    ax.legend(fontsize=8, loc="upper right")
    return _png(fig)


def category_png(bugs: Sequence[Bug], top: int = 15) -> bytes:
    """Horizontal bars: components per taxonomy category (deepest path the components carry)."""
    from collections import Counter

    counts: Counter[str] = Counter(cat or "(no category)" for bug in counted(bugs) for cat in bug.categories)
    if not counts:
        return _empty("no fault components")
    items = sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))[:top][::-1]
    plt = _pyplot()
    fig, ax = plt.subplots(figsize=(8, max(2.5, 0.3 * len(items) + 1)))
    ax.barh([k for k, _ in items], [v for _, v in items], color="#8172b2")
    ax.tick_params(axis="y", labelsize=8)
    ax.set_xlabel("fault components")
    ax.set_title("Taxonomy categories")
    return _png(fig)
