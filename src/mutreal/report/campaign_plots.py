"""The campaign figures of the report: a bugs x operators coupling heatmap and KP(mutant) vs KP(fault).

PNG bytes like :mod:`mutreal.report.plots` (matplotlib, Agg backend), so the Markdown report links
the same files the HTML report embeds.
"""

from __future__ import annotations

import math

from mutreal.report.campaigns import CampaignRows, heatmap_data, scatter_data
from mutreal.report.plots import _empty, _png, _pyplot


def coupling_heatmap_png(rows: CampaignRows, max_bugs: int = 60) -> bytes:
    """Bugs (rows) x operators (columns): the highest coupling strength of the operator's mutants."""
    bugs, operators, cells = heatmap_data(rows)
    if not bugs or not operators:
        return _empty("no compared bug with mutants")
    bugs, cells = bugs[:max_bugs], cells[:max_bugs]
    plt = _pyplot()
    import numpy as np

    data = np.array([[math.nan if v is None else v for v in line] for line in cells], dtype=float)
    fig, ax = plt.subplots(figsize=(max(4.0, 0.55 * len(operators) + 2.5), max(2.2, 0.3 * len(bugs) + 1.4)))
    cmap = plt.get_cmap("viridis").copy()
    cmap.set_bad("#eeeeee")
    image = ax.imshow(np.ma.masked_invalid(data), cmap=cmap, vmin=0.0, vmax=1.0, aspect="auto")
    ax.set_xticks(range(len(operators)), operators, rotation=45, ha="right", fontsize=8)
    ax.set_yticks(range(len(bugs)), bugs, fontsize=8)
    for y, line in enumerate(cells):
        for x, value in enumerate(line):
            if value is not None:
                ax.text(x, y, f"{value:.2f}", ha="center", va="center", fontsize=7,
                        color="white" if value < 0.6 else "black")  # fmt: skip
    fig.colorbar(image, ax=ax, label="coupling strength")
    ax.set_title(
        "Coupling of each operator's best mutant with the real fault (grey: no mutant or no coupling)"
    )
    return _png(fig)


def kp_scatter_png(rows: CampaignRows) -> bytes:
    """KP(fault) against KP(best mutant), one point per input, one colour per bug."""
    series = scatter_data(rows)
    if not series:
        return _empty("no best mutant with per-input killing probabilities")
    plt = _pyplot()
    fig, ax = plt.subplots(figsize=(6, 5.2))
    for label, fault, mutant in series[:20]:
        ax.scatter(fault, mutant, s=14, alpha=0.55, label=label)
    ax.plot([0, 1], [0, 1], color="#888888", linewidth=0.8, linestyle="--")
    ax.set_xlim(-0.03, 1.03)
    ax.set_ylim(-0.03, 1.03)
    ax.set_xlabel("KP(real fault) per input")
    ax.set_ylabel("KP(best mutant) per input")
    ax.set_title("Killing probability per input: best mutant vs real fault")
    ax.legend(fontsize=7, loc="upper left", frameon=False)
    return _png(fig)
