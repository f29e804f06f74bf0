"""``mutreal report --reproduce R.jsonl --compare C.jsonl``: Table 5 beside the study's figures, the
coupling tables and plots, the sections on the bug pages, and the plots in headless Chromium.

The campaign rows are written here in the format of ``reproduce --manifest`` and ``compare
--manifest`` (no training: the report only reads rows); the counts each table must show are
worked out by hand from them.
"""

from __future__ import annotations

import base64
import csv
import html
import json
import re
import struct
import subprocess
import sys
from pathlib import Path

import pytest

from mutreal.report.campaigns import (
    CampaignRows,
    coupling_operators_table,
    heatmap_data,
    scatter_data,
    table5,
)

from .conftest import row as results_row
from .conftest import write_jsonl


def reproduction(bug_id: str, benchmark: str, reproduced: bool, stable: bool, version: bool = False) -> dict:
    series = {"program": "p.py", "runs": 3, "failed": 0, "outcomes": {"ok": 3},
              "summary": {"n": 3, "mean": 0.9, "std": 0.01}, "values": [0.9, 0.91, 0.89]}  # fmt: skip
    return {
        "id": bug_id, "benchmark": benchmark, "status": "ok", "symptom": "performance", "reproduced": reproduced,
        "stable": stable, "reason": "test row", "buggy": series, "fixed": series,
        "version_problem": {"error_type": "AttributeError", "error": "x", "resolved": True} if version else None,
    }  # fmt: skip


def mutant(
    operator: str, coupling: float | None, kp: list[float], exact: bool = False, file: str = ""
) -> dict:
    return {
        "operator": operator, "site": 0, "value": 1, "provenance": {"mode": "reconstruct", "exact": exact},
        "file": file or f"/w/{operator}.py", "killed": True, "fisher_killed": True, "vs_fault": "no difference",
        "kp": {"kp": kp, "low": kp, "high": kp, "n_inputs": len(kp), "inputs_killing": sum(v > 0 for v in kp),
               "n_instances": 5, "confidence": 0.9, "mean_kp": sum(kp) / len(kp)},
        "coupling": coupling, "iou": None if coupling is None else coupling / 2, "reliable": coupling is not None,
    }  # fmt: skip


def comparison(bug_id: str, mutants: list[dict], fault_kp: list[float]) -> dict:
    best = max((m for m in mutants if m["coupling"] is not None), key=lambda m: m["coupling"], default=None)
    return {
        "id": bug_id, "benchmark": "own", "status": "ok" if mutants else "no-mutants", "mode": "reconstruct",
        "reason": None if mutants else "no operator adds or removes layers",
        "fault": {"killed": True, "kp": {"kp": fault_kp, "n_inputs": len(fault_kp), "inputs_killing": 2}},
        "mutants": mutants, "correctness": "class: predicted class == label",
        "best": None if best is None else {k: best[k] for k in ("operator", "value", "file", "coupling", "iou", "reliable")},
    }  # fmt: skip


@pytest.fixture
def campaign_files(tmp_path: Path) -> tuple[Path, Path, Path]:
    results = write_jsonl(tmp_path / "classify.jsonl", [
        results_row("a", "DeepFD", [("HNE", True)]), results_row("b", "DeepFD", [("ACH", True)]),
        results_row("c", "Defects4ML", [("LRM", False)]),
    ])  # fmt: skip
    reproduce = write_jsonl(tmp_path / "reproduce.jsonl", [
        reproduction("a", "DeepFD", True, True), reproduction("b", "DeepFD", True, False),
        reproduction("c", "Defects4ML", False, False, version=True),
    ])  # fmt: skip
    compare = write_jsonl(tmp_path / "compare.jsonl", [
        comparison("a", [mutant("HNE", 0.95, [0.0, 0.5, 1.0], exact=True), mutant("HBS", 0.2, [0.0, 0.1, 0.0])],
                   [0.0, 0.6, 1.0]),
        comparison("b", [mutant("ACH", 0.85, [1.0, 0.0, 0.4], exact=True)], [1.0, 0.0, 0.5]),
        comparison("c", [], [0.1, 0.2, 0.3]),
    ])  # fmt: skip
    return results, reproduce, compare


def test_table5_counts_and_study_figures(campaign_files):
    _, reproduce, _ = campaign_files
    table = table5(CampaignRows.read(reproduce))
    rows = {r[0]: dict(zip(table.columns, r, strict=True)) for r in table.rows}
    assert rows["DeepFD"]["bugs"] == 2 and rows["DeepFD"]["reproduced"] == 2 and rows["DeepFD"]["stable"] == 1
    assert rows["DeepFD"]["paper bugs"] == "5" and rows["DeepFD"]["paper reproduced"] == "2"
    assert rows["Defects4ML"]["version problems"] == 1 and rows["Defects4ML"]["paper reproduced"] == "12"
    # ALL sums this run, and shows no study figure: two of the study's five benchmarks only
    assert rows["ALL"]["bugs"] == 3 and rows["ALL"]["reproduced"] == 2 and rows["ALL"]["paper bugs"] == ""


def test_coupling_tables_and_plot_data(campaign_files):
    _, _, compare = campaign_files
    rows = CampaignRows.read(compare)
    table = {r[0]: dict(zip(coupling_operators_table(rows).columns, r, strict=True))
             for r in coupling_operators_table(rows).rows}  # fmt: skip
    assert table["HNE"]["reconstructs"] == 1 and table["HNE"]["share reconstructed"] == 0.5  # 2 bugs compared
    assert table["HBS"]["reconstructs"] == 0 and table["HBS"]["couples strongly"] == 0
    assert table["ACH"]["mean coupling"] == 0.85 and table["ACH"]["mean IoU"] == 0.425
    bugs, operators, cells = heatmap_data(rows)
    assert bugs == ["a", "b"] and operators == ["ACH", "HBS", "HNE"]
    assert cells == [[None, 0.2, 0.95], [0.85, None, None]]
    scatter = scatter_data(rows)
    assert [s[0] for s in scatter] == ["a (HNE)", "b (ACH)"] and scatter[0][2] == [0.0, 0.5, 1.0]


def png_size(data: bytes) -> tuple[int, int]:
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    return struct.unpack(">II", data[16:24])


@pytest.fixture
def campaign_report(campaign_files, tmp_path: Path) -> Path:
    results, reproduce, compare = campaign_files
    out = tmp_path / "report"
    done = subprocess.run(
        [sys.executable, "-m", "mutreal", "report", str(results), "--reproduce", str(reproduce), "--compare",
         str(compare), "--out", str(out)],
        capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    return out


def test_report_command_writes_campaign_sections(campaign_report: Path):
    out = campaign_report
    for name in ("coupling_heatmap", "kp_scatter"):
        width, height = png_size((out / "plots" / f"{name}.png").read_bytes())
        assert width > 200 and height > 100
    with open(out / "tables" / "table5_reproduction.csv", newline="") as handle:
        table = {r["benchmark"]: r for r in csv.DictReader(handle)}
    assert table["DeepFD"]["stable"] == "1" and table["DeepFD"]["paper stable"] == "2"
    markdown = (out / "report.md").read_text()
    assert "## Reproduction of the real faults (RQ5)" in markdown and "plots/kp_scatter.png" in markdown
    page_a = (out / "bugs" / "a.html").read_text()
    assert 'id="reproduction"' in page_a and 'id="coupling"' in page_a and "0.950" in page_a
    page_c = (out / "bugs" / "c.html").read_text()
    assert "no operator adds or removes layers" in page_c and "No mutant." in page_c
    assert "resolved" in page_c  # its version problem, retried with --modernize


def test_report_without_campaigns_has_no_campaign_plots(campaign_files, tmp_path: Path):
    results, _, _ = campaign_files
    done = subprocess.run([sys.executable, "-m", "mutreal", "report", str(results), "--out", str(tmp_path / "r")],
                          capture_output=True, text=True, timeout=300)  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert not (tmp_path / "r" / "plots" / "coupling_heatmap.png").exists()
    assert "coupling" not in (tmp_path / "r" / "bugs" / "a.html").read_text().lower()


PLOT_PROBE = """<script>
window.addEventListener('load', function () {
  var out = {};
  ['plot-coupling_heatmap', 'plot-kp_scatter'].forEach(function (id) {
    var el = document.getElementById(id);
    if (!el) { out[id] = null; return; }
    el.scrollIntoView({block: 'center'});
    var r = el.getBoundingClientRect();
    out[id] = {natural: el.naturalWidth, complete: el.complete, width: r.width, height: r.height,
               inside: r.top >= 0 && r.bottom <= window.innerHeight + 1};
  });
  var pre = document.createElement('pre'); pre.id = 'mutreal-probe'; pre.textContent = JSON.stringify(out);
  document.body.appendChild(pre);
});
</script>"""


@pytest.mark.chromium
def test_campaign_plots_render_in_chromium(campaign_report: Path, chromium_binary: str, tmp_path: Path):
    from .test_bug_pages_browser import HEIGHT, WIDTH, run_chromium

    page = campaign_report / "report.html"
    text = page.read_text(encoding="utf-8")
    for name in ("coupling_heatmap", "kp_scatter"):  # the embedded image is the PNG file written beside it
        embedded = re.search(rf'id="plot-{name}"[^>]*src="data:image/png;base64,([^"]+)"', text)
        assert (
            embedded
            and base64.b64decode(embedded.group(1))
            == (campaign_report / "plots" / f"{name}.png").read_bytes()
        )
    probed = page.with_name("probe.html")
    probed.write_text(text.replace("</body>", PLOT_PROBE + "</body>"), encoding="utf-8")
    done = run_chromium(chromium_binary, [f"--window-size={WIDTH},{HEIGHT}", "--dump-dom", probed.as_uri()],
                        tmp_path / "profile")  # fmt: skip
    found = re.search(r'<pre id="mutreal-probe">(.*?)</pre>', done.stdout, re.S)
    assert found, f"probe did not run; chromium said: {done.stderr[-2000:]}"
    seen = json.loads(html.unescape(found.group(1)))
    for name, plot in seen.items():
        assert plot is not None, f"{name} missing from the page"
        assert plot["complete"] and plot["natural"] > 200, f"{name} did not decode: {plot}"
        assert plot["width"] > 100 and plot["height"] > 50 and plot["inside"], f"{name} not on screen: {plot}"


def test_a_partial_reconstruction_is_counted_apart_from_a_full_one(tmp_path: Path):
    from mutreal.report.campaigns import coupling_best_table, coupling_html

    def reconstructed(operator: str, coupling: float, partial: bool, status: str = "reconstructed") -> dict:
        made = mutant(operator, coupling, [0.5, 0.5, 0.0], exact=not partial)
        made["provenance"].update(partial=partial, components=[{"operator": operator, "status": status}])
        return made

    note = "partial reconstruction: the mutants reconstruct 1 of 2 fault component(s) (HLR at lr)"
    rows = [
        comparison("full", [reconstructed("HLR", 0.9, partial=False)], [0.5, 0.5, 0.0]),
        {**comparison("part", [reconstructed("HLR", 0.85, partial=True)], [0.5, 0.5, 0.0]), "notes": [note]},
        comparison("off", [reconstructed("HLR", 0.1, partial=True, status="residual")], [0.5, 0.5, 0.0]),
    ]
    read = CampaignRows.read(write_jsonl(tmp_path / "c.jsonl", rows))
    table = coupling_operators_table(read)
    (hlr,) = [dict(zip(table.columns, r, strict=True)) for r in table.rows]
    # the partial mutant does not reconstruct the fault; one whose own part has a residual is neither
    assert (hlr["bugs tried"], hlr["reconstructs"], hlr["reconstructs partly"]) == (3, 1, 1)
    assert hlr["share reconstructed"] == round(1 / 3, 4) and hlr["couples strongly"] == 2
    best = {r[0]: dict(zip(coupling_best_table(read).columns, r, strict=True)) for r in coupling_best_table(read).rows}
    assert best["full"]["mutants from"] == "reconstruct" and best["part"]["mutants from"] == "reconstruct (partial)"
    page = coupling_html(read.by_id()["part"])
    assert "reconstruct (partial)" in page and html.escape(note) in page
