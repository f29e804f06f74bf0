"""The report's published-realism tables: mutreal's CS and IoU beside Ahmed et al.'s on the same mutants.

``benchmarks/realism_published.py`` trains a sample of the DeepCrime mutants Ahmed et al. published
for a real fault, with mutreal, beside the fault and mutreal's reconstructing mutant, and writes a
JSON table (:data:`mutreal.study.realism_comparison.TABLE_FORMAT`). ``mutreal report ... --published
TABLE`` reads it and shows, in the realism section, one row per joined bug (the median CS and IoU of
the matched mutants on both sides, Spearman's rho and the median |difference|, where mutreal's
reconstructing mutant falls in their published distribution, each side's trainings and why the two
disagree where they do) and the whole run's figures with both reliability rules; each bug's page
gets the same figures and its matched mutants one by one.

The table is the benchmark's output: its fields are read where present, and a missing one shows as
blank rather than stopping the report.
"""

from __future__ import annotations

import html
import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from mutreal.report.tables import Table
from mutreal.study.realism_comparison import TABLE_FORMAT

#: the report's tables of this section, by name (render.py's realism section lists them)
TABLE_NAMES = ("published_realism_bugs", "published_realism_summary")


class PublishedTableError(ValueError):
    """A file that is not the benchmark's published-realism table."""


def load_table(path: str | Path) -> dict[str, Any]:
    """The table ``benchmarks/realism_published.py --out`` wrote; a clear error for another file."""
    path = Path(path)
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise PublishedTableError(f"{path}: not a readable JSON table ({exc})") from None
    if not isinstance(data, dict) or data.get("format") != TABLE_FORMAT:
        raise PublishedTableError(
            f"{path}: not a published-realism table (format {TABLE_FORMAT}, as "
            "benchmarks/realism_published.py --out writes it)"
        )
    return data


def _n(value: Any, digits: int = 2) -> str:
    try:
        return f"{float(value):.{digits}f}"
    except (TypeError, ValueError):
        return ""


def _get(data: Mapping[str, Any] | None, *keys: str) -> Any:
    for key in keys:
        if not isinstance(data, Mapping):
            return None
        data = data.get(key)
    return data


def _reconstruction_text(row: Mapping[str, Any]) -> str:
    rec = row.get("reconstruction") or {}
    if not rec:
        return "; ".join(row.get("notes") or []) or "none"
    pub = rec.get("vs_published_iou") or {}
    same = rec.get("vs_same_runs_iou") or {}
    if rec.get("iou") is None:
        return f"{rec.get('file')}: no IoU ({rec.get('reason') or 'no figure'})"
    exact = " (exact reconstruction: the fault itself)" if rec.get("exact") else ""
    exact += " (crashed in every run: the figure is a crash read as kills)" if rec.get("crashed") else ""
    return (
        f"IoU {_n(rec['iou'])}{exact}: {'at or above' if same.get('at_least_median') else 'below'} the matched "
        f"mutants' median here ({_n(same.get('median'))}); published rank {_n(pub.get('rank'))} "
        f"(their median {_n(pub.get('median'))}, best {_n(pub.get('best'))})"
    )


def bugs_table(data: Mapping[str, Any]) -> Table:
    """One row per joined bug that was trained; the bugs without a row in the note with why."""
    rows = []
    for row in data.get("bugs") or []:
        t = row.get("trainings") or {}
        rows.append([
            row.get("runtime_id"), row.get("bug"), f"{row.get('matched')}/{row.get('sampled')}", row.get("runs"),
            _n(_get(row, "cs", "their_median")), _n(_get(row, "cs", "our_median")), _n(_get(row, "cs", "rho")),
            _n(_get(row, "cs", "median_abs_difference")),
            _n(_get(row, "iou", "their_median")), _n(_get(row, "iou", "our_median")), _n(_get(row, "iou", "rho")),
            _n(_get(row, "iou", "median_abs_difference")),
            _n(_get(row, "fault", "mean_kp"), 3), _reconstruction_text(row),
            f"{t.get('mutreal')} / {t.get('theirs')}", "; ".join(row.get("disagreement") or []),
        ])  # fmt: skip
    grouped: dict[str, list[str]] = {}
    for n in data.get("not_run") or []:
        grouped.setdefault(str(n.get("reason")), []).append(str(n.get("bug")))
    not_run = "; ".join(f"{reason}: {len(bugs)} ({', '.join(bugs)})" for reason, bugs in grouped.items())
    return Table(
        "published_realism_bugs",
        "Realism beside Ahmed et al.'s published figures: the same bugs, the same DeepCrime mutants",
        [
            "bug",
            "their id",
            "matched",
            "runs",
            "CS theirs",
            "CS mutreal",
            "CS rho",
            "CS |d|",
            "IoU theirs",
            "IoU mutreal",
            "IoU rho",
            "IoU |d|",
            "fault mean KP",
            "mutreal's reconstructing mutant",
            "trainings mutreal / theirs",
            "why they differ",
        ],  # fmt: skip
        rows,
        note=(
            "CS and IoU medians over the matched mutants (theirs: published; mutreal: trained here); rho is "
            "Spearman's over the same mutants, |d| the median absolute difference. Sample: "
            f"{data.get('sample_rule')}. Not run: {not_run or 'none'}."
        ),
    )


def summary_table(data: Mapping[str, Any]) -> Table:
    """The whole run's figures, both reliability rules, and the command that made the table."""
    s = data.get("summary") or {}
    rel = data.get("reliability") or {}
    rec_same = f"{s.get('reconstruction_at_least_same_runs_median_iou')} of {s.get('reconstruction_with_same_runs_figure')}"
    rec_pub = f"{s.get('reconstruction_at_least_published_median_iou')} of {s.get('reconstruction_with_published_figure')}"
    rows = [
        ["bugs with rows", s.get("bugs")],
        ["matched mutants", s.get("matched")],
        ["median CS of the matched mutants, theirs / mutreal", f"{_n(s.get('their_median_cs'))} / {_n(s.get('our_median_cs'))}"],
        ["median IoU of the matched mutants, theirs / mutreal", f"{_n(s.get('their_median_iou'))} / {_n(s.get('our_median_iou'))}"],
        ["reconstructing mutant at or above the matched mutants' median IoU (same runs)", rec_same],
        ["reconstructing mutant at or above their published median IoU", rec_pub],
        ["trainings, mutreal / theirs", f"{_get(s, 'trainings', 'mutreal')} / {_get(s, 'trainings', 'theirs')}"],
        ["trainings of the reconstruction alone (fault, fix, reconstructing mutants)", _get(s, "trainings", "reconstruction")],
        ["bugs whose figures disagree (rho < 0.3 or |d| > 0.3)", s.get("disagreements")],
        ["runs per program (mutreal; theirs 5)", data.get("runs")],
        ["reliability, theirs", rel.get("theirs")],
        ["reliability, mutreal", rel.get("mutreal")],
        ["command", data.get("command")],
        ["seconds", data.get("seconds")],
    ]  # fmt: skip
    return Table(
        "published_realism_summary", "Realism beside Ahmed et al.'s: the whole run", ["figure", "value"], rows
    )


def tables(data: Mapping[str, Any]) -> list[Table]:
    """The section's tables (:data:`TABLE_NAMES`)."""
    return [bugs_table(data), summary_table(data)]


def _e(value: Any) -> str:
    return "" if value is None else html.escape(str(value))


def bug_html(row: Mapping[str, Any], reliability: Mapping[str, Any] | None = None) -> str:
    """A bug page's section: its figures beside theirs and each matched mutant."""
    head = (
        f"<h2>Beside Ahmed et al.'s published figures ({_e(row.get('bug'))})</h2>"
        f"<p>matched {_e(row.get('matched'))} of {_e(row.get('sampled'))} sampled mutants, {_e(row.get('runs'))} "
        f"runs per program; median CS theirs {_n(_get(row, 'cs', 'their_median'))}, mutreal "
        f"{_n(_get(row, 'cs', 'our_median'))} (rho {_n(_get(row, 'cs', 'rho'))}, median |d| "
        f"{_n(_get(row, 'cs', 'median_abs_difference'))}); median IoU theirs {_n(_get(row, 'iou', 'their_median'))}, "
        f"mutreal {_n(_get(row, 'iou', 'our_median'))} (rho {_n(_get(row, 'iou', 'rho'))}, median |d| "
        f"{_n(_get(row, 'iou', 'median_abs_difference'))})</p>"
        f"<p>mutreal's reconstructing mutant: {_e(_reconstruction_text(row))}</p>"
        f"<p>trainings: mutreal {_e(_get(row, 'trainings', 'mutreal'))}, theirs {_e(_get(row, 'trainings', 'theirs'))} "
        f"({_e(_get(row, 'trainings', 'theirs_rule'))})</p>"
    )
    why = "".join(f"<li>{_e(w)}</li>" for w in row.get("disagreement") or [])
    if why:
        head += f'<p class="note">Why the figures may differ:</p><ul>{why}</ul>'
    if reliability:
        head += f'<p class="note">{_e(reliability.get("theirs"))}<br>{_e(reliability.get("mutreal"))}</p>'
    cells = "".join(
        f"<tr><td>{_e(m.get('name'))}</td><td>{_n(m.get('their_cs'))}</td><td>{_n(m.get('our_cs'))}</td>"
        f"<td>{_n(m.get('their_iou'))}</td><td>{_n(m.get('our_iou'))}</td><td>{_e(m.get('reason') or '')}</td></tr>"
        for m in row.get("mutants") or []
    )
    return (
        f'<section class="published-realism">{head}<table><tr><th>DeepCrime mutant</th><th>CS theirs</th>'
        f"<th>CS mutreal</th><th>IoU theirs</th><th>IoU mutreal</th><th>no figure because</th></tr>{cells}"
        "</table></section>"
    )


def page_sections(data: Mapping[str, Any]) -> dict[str, str]:
    """Runtime bug id -> its page's section (two of their ids on one program share its page)."""
    sections: dict[str, list[str]] = {}
    for row in data.get("bugs") or []:
        sections.setdefault(str(row.get("runtime_id")), []).append(bug_html(row, data.get("reliability")))
    return {bug: "\n".join(parts) for bug, parts in sections.items()}


def merge_sections(*maps: Mapping[str, str] | None) -> dict[str, str]:
    """Page sections of several sources, each bug's in the order given."""
    out: dict[str, list[str]] = {}
    for m in maps:
        for bug, text in (m or {}).items():
            out.setdefault(bug, []).append(text)
    return {bug: "\n".join(parts) for bug, parts in out.items()}
