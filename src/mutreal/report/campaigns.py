"""Report sections from training campaigns: reproduction (Table 5) and mutant-fault coupling.

``mutreal report --reproduce R.jsonl`` reads the rows of ``reproduce --manifest`` and prints the
study's Table 5 per benchmark (bugs, version problems, reproduced, stable) with the study's
published figures beside this run's; ``--compare C.jsonl`` reads ``compare --manifest`` rows and
shows the realism section (:mod:`mutreal.report.realism`: per bug its best reconstructing mutant,
first-order mutants against their higher-order combination), then, per operator, the share of real faults it reconstructs and its mean coupling and IoU, the
best mutant of each bug, a bugs x operators coupling heatmap and KP(mutant) against KP(fault) per
input for the best mutants. Both add their results to the per-bug pages.

The rows are read leniently: a line that is not a JSON object with an ``id`` is counted and
skipped, the last row of an id wins (a resumed benchmark may append a bug again).
"""

from __future__ import annotations

import html
import json
from collections import defaultdict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from mutreal.report.tables import Table

#: a coupling strength from which a mutant is said to couple strongly with its fault
STRONG_COUPLING = 0.8


@dataclass
class CampaignRows:
    """The rows of a ``reproduce --manifest`` or ``compare --manifest`` output, one per bug id."""

    path: str
    rows: list[dict[str, Any]] = field(default_factory=list)
    unreadable: int = 0

    @classmethod
    def read(cls, path: str | Path) -> CampaignRows:
        by_id: dict[str, dict[str, Any]] = {}
        unreadable = 0
        with open(path, encoding="utf-8", errors="replace") as handle:
            for line in handle:
                if not line.strip():
                    continue
                try:
                    data = json.loads(line)
                    by_id[str(data["id"])] = data
                except (ValueError, KeyError, TypeError):
                    unreadable += 1
        return cls(str(path), list(by_id.values()), unreadable)

    def by_id(self) -> dict[str, dict[str, Any]]:
        return {str(r["id"]): r for r in self.rows}


@dataclass
class Campaigns:
    """What the report got from training campaigns (either may be absent)."""

    reproduce: CampaignRows | None = None
    compare: CampaignRows | None = None

    def tables(self, codes: Mapping[str, Sequence[str]] | None = None) -> list[Table]:
        """The campaign tables; ``codes`` (bug id -> classify's codes) names each fault's codes in the
        realism table (else they come from the mutants' provenance)."""
        from mutreal.report.realism import realism_bugs_table, realism_hom_table

        out: list[Table] = []
        if self.reproduce is not None:
            out += [table5(self.reproduce), reproduction_bugs_table(self.reproduce)]
        if self.compare is not None:
            rows, source = self.compare.rows, self.compare.path
            out += [realism_bugs_table(rows, source, codes), realism_hom_table(rows, source)]
            out += [coupling_operators_table(self.compare), coupling_best_table(self.compare)]
        return out

    def page_sections(self) -> dict[str, str]:
        """Bug id -> the HTML its page shows about its reproduction runs and its mutants."""
        sections: dict[str, list[str]] = defaultdict(list)
        if self.reproduce is not None:
            for bug_id, row in self.reproduce.by_id().items():
                sections[bug_id].append(reproduction_html(row))
        if self.compare is not None:
            for bug_id, row in self.compare.by_id().items():
                sections[bug_id].append(coupling_html(row))
        return {bug_id: "\n".join(parts) for bug_id, parts in sections.items()}


def _benchmark(row: Mapping[str, Any]) -> str:
    return str(row.get("benchmark") or "(none)")


def _study_table5() -> tuple[dict[str, Any], Any]:
    from mutreal.report.paper import load_paper_tables, paper_benchmark

    return load_paper_tables()["table5"]["rows"], paper_benchmark


def _figure(value: Any) -> str:
    return "N/A" if value is None else str(value)


def table5(rows: CampaignRows) -> Table:
    """Table 5 per benchmark: bugs, version problems, reproduced, stable; the study's figures beside."""
    study, canonical = _study_table5()
    groups: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for row in rows.rows:
        groups[_benchmark(row)].append(row)

    def counts(bugs: Sequence[Mapping[str, Any]]) -> list[int]:
        return [
            len(bugs),
            sum(1 for b in bugs if b.get("version_problem")),
            sum(1 for b in bugs if b.get("reproduced")),
            sum(1 for b in bugs if b.get("reproduced") and b.get("stable")),
            sum(1 for b in bugs if b.get("status") != "ok"),
        ]

    out = []
    matched = []
    for name in sorted(groups):
        paper = canonical(name)
        figures = study.get(paper) if paper else None
        if paper:
            matched.append(paper)
        mine = counts(groups[name])
        out.append(_table5_row(name, mine, figures))
    if len(groups) > 1:
        complete = sorted(matched) == sorted(k for k in study if k != "ALL") and len(groups) == len(matched)
        out.append(_table5_row("ALL", counts(rows.rows), study["ALL"] if complete else None))
    note = (
        "this run: reproduce --manifest rows. version problems: bugs whose two versions failed alike on an "
        "API current Keras/TensorFlow/numpy removed (retried with --modernize); stable: reproduced at every "
        "seed index; not decided: error, missing-data and limit rows (runs stopped at the time or memory limit). paper: the study's Table 5 (its benchmarks "
        "only; ALL only when every one of its five benchmarks is here)."
    )
    columns = ["benchmark", "bugs", "paper bugs", "version problems", "paper version problems", "reproduced",
               "paper reproduced", "stable", "paper stable", "not decided"]  # fmt: skip
    return Table(
        "table5_reproduction", "Reproducibility per benchmark (Table 5 of the study)", columns, out, note
    )


def _table5_row(name: str, mine: list[int], figures: Mapping[str, Any] | None) -> list[Any]:
    def paper(key: str) -> str:
        return "" if figures is None else _figure(figures.get(key))

    bugs, version, reproduced, stable, undecided = mine
    return [name, bugs, paper("bugs"), version, paper("version_problems"), reproduced, paper("reproduced"),
            stable, paper("stable"), undecided]  # fmt: skip


def _yes_no(value: Any) -> str:
    return "" if value is None else ("yes" if value else "no")


def _mean_std(series: Mapping[str, Any] | None) -> str:
    summary = (series or {}).get("summary") or {}
    if not summary.get("n"):
        return "no successful run"
    return f"{summary['mean']:.4f} ± {summary['std']:.4f} (N={summary['n']})"


def reproduction_bugs_table(rows: CampaignRows) -> Table:
    """One row per reproduced-or-not bug: its verdict and both sides' runs."""
    out = []
    for row in rows.rows:
        version = row.get("version_problem") or {}
        out.append([
            row["id"], _benchmark(row), row.get("status"), row.get("symptom") or "", _yes_no(row.get("reproduced")),
            _yes_no(row.get("stable")), ("resolved" if version.get("resolved") else "not resolved") if version else "",
            _mean_std(row.get("buggy")), _mean_std(row.get("fixed")), row.get("reason") or row.get("error") or "",
        ])  # fmt: skip
    columns = ["id", "benchmark", "status", "symptom", "reproduced", "stable", "version problem", "buggy",
               "fixed", "reason"]  # fmt: skip
    return Table("reproduction_bugs", "Reproduction of each bug", columns, out,
                 f"From {rows.path}" + (f"; {rows.unreadable} unreadable line(s) skipped" if rows.unreadable else ""))  # fmt: skip


def _operators_of(mutant: Mapping[str, Any]) -> str:
    return str(mutant.get("operator") or "(given)")


def _mean(values: Sequence[float]) -> float | None:
    return round(sum(values) / len(values), 4) if values else None


def coupling_operators_table(rows: CampaignRows) -> Table:
    """Per operator: real faults it was tried on, the share it reconstructs, mean coupling and IoU."""
    compared = [r for r in rows.rows if r.get("status") == "ok"]
    tried: dict[str, set[str]] = defaultdict(set)
    exact: dict[str, set[str]] = defaultdict(set)
    partly: dict[str, set[str]] = defaultdict(set)
    strong: dict[str, set[str]] = defaultdict(set)
    couplings: dict[str, list[float]] = defaultdict(list)
    ious: dict[str, list[float]] = defaultdict(list)
    mutants: dict[str, int] = defaultdict(int)
    failed: dict[str, dict[str, int]] = defaultdict(lambda: defaultdict(int))
    for row in compared:
        for m in row.get("mutants") or []:
            op = _operators_of(m)
            mutants[op] += 1
            tried[op].add(row["id"])
            if m.get("failure"):  # not the model's failure: counted, never a coupling
                failed[op][m["failure"]["kind"]] += 1
            provenance = m.get("provenance") or {}
            if provenance.get("exact") and not provenance.get("partial"):
                exact[op].add(row["id"])
            elif provenance.get("partial") and _reconstructs_its_part(provenance):
                partly[op].add(row["id"])
            if m.get("coupling") is not None:
                couplings[op].append(float(m["coupling"]))
                if m["coupling"] >= STRONG_COUPLING:
                    strong[op].add(row["id"])
            if m.get("iou") is not None:
                ious[op].append(float(m["iou"]))
    n = len(compared)
    out = []
    for op in sorted(tried, key=lambda o: (-len(exact[o]), -(_mean(couplings[o]) or 0.0), o)):
        share = round(len(exact[op]) / n, 4) if n else None
        out.append([op, mutants[op], _failed_text(failed[op]), len(tried[op]), len(exact[op]), share,
                    len(partly[op]), len(strong[op]), _mean(couplings[op]), _mean(ious[op])])  # fmt: skip
    note = (
        f"{n} bug(s) compared (status ok). reconstructs: the operator's mutant is the real fault exactly "
        f"(classify finds nothing left between them); share: of the {n} bugs compared. reconstructs partly: "
        "the mutant is exactly the fault's components it was made for, but the fault has others no mutant "
        "makes (no operator simulates them, or one could not be applied); not counted as reconstructing "
        "the fault. couples strongly: "
        f"a mutant with coupling strength >= {STRONG_COUPLING}. Means over the operator's mutants with a "
        "coupling (per-input correctness on every side). A+B is the higher-order mutant of a fault of "
        "several components. failed: mutants whose runs failed where the fixed program's completed, not by the "
        "model (invalid: mutreal's edit cannot run; harness: the run's setting; stillborn: the operator leaves "
        "nothing to train): never a kill, never a coupling; invalid and harness are mutreal defects."
    )
    columns = ["operator", "mutants", "failed", "bugs tried", "reconstructs", "share reconstructed", "reconstructs partly",
               "couples strongly", "mean coupling", "mean IoU"]  # fmt: skip
    return Table(
        "coupling_operators", "Operators against real faults: reconstruction and coupling", columns, out, note
    )


def _failed_text(counts: Mapping[str, int]) -> str:
    """``invalid 1, stillborn 2`` (kinds with a count only), or '' when none failed."""
    from mutreal.analysis.run_failures import KINDS

    return ", ".join(f"{kind} {counts[kind]}" for kind in KINDS if counts.get(kind))


def _reconstructs_its_part(provenance: Mapping[str, Any]) -> bool:
    """A partial mutant whose own components are all reconstructed (classify finds them gone)."""
    own = provenance.get("components") or []
    return bool(own) and all(c.get("status") == "reconstructed" for c in own)


def _mode(row: Mapping[str, Any]) -> str:
    """Where the row's mutants came from, with ``(partial)`` when they leave fault components out."""
    partial = any((m.get("provenance") or {}).get("partial") for m in row.get("mutants") or [])
    return str(row.get("mode") or "") + (" (partial)" if partial else "")


def coupling_best_table(rows: CampaignRows) -> Table:
    """Per bug its best mutant (highest coupling, reliable first), or why it has none."""
    out = []
    for row in rows.rows:
        best = row.get("best") or {}
        fault = row.get("fault") or {}
        why = row.get("reason") or row.get("error") or ("" if best else "no mutant with a coupling")
        out.append([
            row["id"], _benchmark(row), row.get("status"), _mode(row), len(row.get("mutants") or []),
            _failed_text(_row_failures(row)), _yes_no(fault.get("killed")), best.get("operator") or "", json.dumps(best.get("value")) if best else "",
            best.get("coupling"), best.get("iou"), _yes_no(best.get("reliable")) if best else "", why,
        ])  # fmt: skip
    columns = ["id", "benchmark", "status", "mutants from", "mutants", "failed", "fault killed", "best operator",
               "best value", "coupling", "IoU", "reliable", "reason"]  # fmt: skip
    note = (
        f"From {rows.path}. best: the mutant with the highest coupling strength among the reliable ones "
        "(else among all), ties broken by IoU; coupling: Ahmed et al.'s coupling strength of KP(mutant) "
        "with KP(fault) per input. failed: mutants whose runs failed, not by the model (no kill, no coupling). "
        "A fault not reproduced here (it kills no input, or the buggy program is not worse) says so in reason."
    )
    return Table("coupling_best", "Best mutant of each real fault", columns, out, note)


# ---------------------------------------------------------------------------------------- plots data


def _row_failures(row: Mapping[str, Any]) -> dict[str, int]:
    counts: dict[str, int] = defaultdict(int)
    for m in row.get("mutants") or []:
        if m.get("failure"):
            counts[m["failure"]["kind"]] += 1
    return counts


def heatmap_data(rows: CampaignRows) -> tuple[list[str], list[str], list[list[float | None]]]:
    """(bugs, operators, cells): the highest coupling of each operator's mutants on each bug."""
    compared = [r for r in rows.rows if r.get("status") == "ok" and r.get("mutants")]
    operators = sorted({_operators_of(m) for r in compared for m in r["mutants"]})
    cells = []
    for row in compared:
        line: list[float | None] = []
        for op in operators:
            values = [
                m["coupling"]
                for m in row["mutants"]
                if _operators_of(m) == op and m.get("coupling") is not None
            ]
            line.append(max(values) if values else None)
        cells.append(line)
    return [str(r["id"]) for r in compared], operators, cells


def scatter_data(rows: CampaignRows) -> list[tuple[str, list[float], list[float]]]:
    """Per bug with a best mutant: (label, KP(fault) per input, KP(best mutant) per input)."""
    out = []
    for row in rows.rows:
        best = row.get("best") or {}
        fault_kp = ((row.get("fault") or {}).get("kp") or {}).get("kp")
        if not best or not fault_kp:
            continue
        chosen = next((m for m in row.get("mutants") or [] if m.get("file") == best.get("file")), None)
        mutant_kp = ((chosen or {}).get("kp") or {}).get("kp")
        if mutant_kp and len(mutant_kp) == len(fault_kp):
            out.append((f"{row['id']} ({best.get('operator')})", list(fault_kp), list(mutant_kp)))
    return out


# -------------------------------------------------------------------------------------- bug pages


def _e(value: object) -> str:
    return "" if value is None else html.escape(str(value))


def _number(value: Any, digits: int = 3) -> str:
    return "" if value is None else f"{float(value):.{digits}f}"


def reproduction_html(row: Mapping[str, Any]) -> str:
    """The reproduction section of a bug page: the verdict and both programs' runs."""
    version = row.get("version_problem")
    lines = [
        f"<p>status <strong>{_e(row.get('status'))}</strong>; symptom {_e(row.get('symptom'))}; reproduced "
        f"<strong>{_e(_yes_no(row.get('reproduced')))}</strong>; stable <strong>{_e(_yes_no(row.get('stable')))}"
        f"</strong></p>",
    ]
    if row.get("reason") or row.get("error"):
        lines.append(f'<p class="note">{_e(row.get("reason") or row.get("error"))}</p>')
    if version:
        how = ("not repaired by the rewrites of its era" if version.get("after_era_rewrites")
               else f"retried with --modernize: {'resolved' if version.get('resolved') else 'not resolved'}")
        lines.append(f'<p class="note">version problem: {_e(version.get("error_type"))}: {_e(version.get("error"))};'
                     f" {how}</p>")  # fmt: skip
    body = []
    for side in ("buggy", "fixed"):
        series = row.get(side) or {}
        values = ", ".join("crash" if v is None else f"{v:.4f}" for v in series.get("values") or [])
        body.append(f"<tr><td>{side}</td><td>{_e(_mean_std(series))}</td><td>{_e(series.get('outcomes'))}</td>"
                    f'<td class="runs">{_e(values)}</td></tr>')  # fmt: skip
    lines.append('<table class="data reproduction"><thead><tr><th>program</th><th>mean ± std</th><th>outcomes</th>'
                 f"<th>metric per run (seed order)</th></tr></thead><tbody>{''.join(body)}</tbody></table>")  # fmt: skip
    return '<section id="reproduction"><h2>Reproduction runs</h2>' + "".join(lines) + "</section>"


def coupling_html(row: Mapping[str, Any]) -> str:
    """The coupling section of a bug page: the fault's kill, then every mutant against it."""
    fault = row.get("fault") or {}
    kp = fault.get("kp") or {}
    head = (
        f"<p>mutants from <strong>{_e(_mode(row))}</strong>; status <strong>{_e(row.get('status'))}</strong>; "
        f"real fault killed <strong>{_e(_yes_no(fault.get('killed')))}</strong>"
        + (f", inputs with KP &gt; 0: {_e(kp.get('inputs_killing'))}/{_e(kp.get('n_inputs'))}" if kp else "")
        + f'</p><p class="note">{_e(row.get("correctness") or "")} {_e(row.get("reliable_rule") or "")}</p>'
    )
    if row.get("reason") or row.get("error"):
        head += f'<p class="note">{_e(row.get("reason") or row.get("error"))}</p>'
    head += "".join(f'<p class="note">{_e(n)}</p>' for n in row.get("notes") or [] if n.startswith("partial "))
    head += _realism_line(row)
    best = (row.get("best") or {}).get("file")
    body = []
    for m in row.get("mutants") or []:
        cls = ' class="best"' if m.get("file") == best else ""
        body.append(
            f"<tr{cls}><td>{_e(m.get('operator'))}</td><td>{_e(json.dumps(m.get('site')))}</td>"
            f"<td>{_e(json.dumps(m.get('value')))}</td><td>{_e(_killed_cell(m))}</td>"
            f"<td>{_e(_yes_no(m.get('fisher_killed')))}</td><td>{_e(m.get('vs_fault'))}</td>"
            f'<td class="num">{_number(m.get("coupling"))}</td><td class="num">{_number(m.get("iou"))}</td>'
            f"<td>{_e(_yes_no(m.get('reliable')))}</td><td>{_e(Path(str(m.get('file') or '')).name)}</td></tr>"
        )
    table = (
        '<table class="data mutants"><thead><tr><th>operator</th><th>site</th><th>value</th><th>killed</th>'
        "<th>Fisher killed</th><th>metric vs fault</th><th>coupling</th><th>IoU</th><th>reliable</th><th>file</th>"
        f"</tr></thead><tbody>{''.join(body)}</tbody></table>"
        if body
        else '<p class="note">No mutant.</p>'
    )
    return (
        '<section id="coupling"><h2>Mutants and their coupling with the fault</h2>'
        + head
        + table
        + "</section>"
    )


def _killed_cell(mutant: Mapping[str, Any]) -> str:
    """A mutant's kill, or for one whose runs failed not by the model its kind and error (no kill)."""
    failure = mutant.get("failure")
    if failure:
        defect = ", a mutreal defect" if failure.get("mutreal_defect") else ""
        return f"{failure.get('kind')} (not a kill{defect}): {failure.get('error')}"
    return _yes_no(mutant.get("killed"))


def _realism_line(row: Mapping[str, Any]) -> str:
    """The bug's figure of the report's realism section: its best reconstructing mutant, or why none."""
    from mutreal.report.realism import best_reconstruction, no_figure_reason, reconstruction_kind

    best = best_reconstruction(row)
    why = no_figure_reason(row, best)
    text = "best reconstructing mutant: "
    if best is not None:
        text += (f"<strong>{_e(best.get('operator'))}</strong> ({_e(reconstruction_kind(row, best))}), "
                 f"coupling {_e(_number(best.get('coupling')) or 'none')}, IoU {_e(_number(best.get('iou')) or 'none')}")  # fmt: skip
    else:
        text += "none"
    if why and row.get("status") == "ok":  # otherwise the row's reason is shown above
        text += f'; <span class="note">no figure: {_e(why)}</span>'
    return f'<p class="realism">{text}</p>'
