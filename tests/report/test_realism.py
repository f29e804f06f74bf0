"""The report's realism section from a real ``compare --manifest`` run, in files and in Chromium.

data/realism/ holds the project's own pairs (digits MLPs: the campaign pairs of
benchmarks/campaign_pairs and three written for these tests) with their classify rows and the rows
of one real run, saved as it came out::

    mutreal classify --manifest tests/report/data/realism/manifest.csv --out classify.jsonl
    mutreal compare --manifest tests/report/data/realism/manifest.csv --results classify.jsonl \\
        --runs 3 --out compare.jsonl
    mutreal reproduce --manifest tests/report/data/realism/manifest.csv --runs 3 --out reproduce.jsonl

Its bugs cover every case of the section: exact reconstructions of one component, a fault of two
components (lr_and_epochs: two first-order mutants and their higher-order combination), a partial
reconstruction (an HLR mutant of an HLR + missing-layer fault), faults no operator simulates, a
program that never evaluates, and a mutant that no input kills (both batch sizes exceed the
training set).
"""

from __future__ import annotations

import csv
import html
import json
import re
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mutreal.report.realism import best_reconstruction, hom_against_foms, no_figure_reason, order_of

DATA = Path(__file__).resolve().parent / "data" / "realism"
COMPARE = DATA / "compare.jsonl"
CLASSIFY = DATA / "classify.jsonl"
REPRODUCE = DATA / "reproduce.jsonl"


def compare_rows() -> list[dict]:
    return [json.loads(line) for line in COMPARE.read_text(encoding="utf-8").splitlines() if line.strip()]


def csv_rows(path: Path) -> list[dict]:
    with open(path, newline="", encoding="utf-8") as handle:
        return list(csv.DictReader(handle))


@pytest.fixture(scope="module")
def realism_report(tmp_path_factory) -> Path:
    """`python -m mutreal report` of the saved run, from the repository root (where classify ran)."""
    out = tmp_path_factory.mktemp("realism") / "report"
    done = subprocess.run(
        [sys.executable, "-m", "mutreal", "report", str(CLASSIFY), "--reproduce", str(REPRODUCE), "--compare", str(COMPARE), "--out", str(out),
         "--no-plots"],
        cwd=DATA.parents[3], capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    return out


def test_every_compared_bug_has_its_figure_or_its_reason(realism_report):
    rows = {r["id"]: r for r in compare_rows()}
    table = {r["id"]: r for r in csv_rows(realism_report / "tables" / "realism_bugs.csv")}
    assert set(table) == set(rows)
    for bug_id, shown in table.items():
        has_figure = bool(shown["coupling"]) and bool(shown["IoU"])
        assert has_figure != bool(shown["no figure because"]), (bug_id, shown)
        best = best_reconstruction(rows[bug_id])
        if best is not None and best.get("coupling") is not None:  # the figure is the run's, rounded
            assert float(shown["coupling"]) == round(best["coupling"], 4)
    # what the saved run holds, case by case
    assert {k for k, v in table.items() if v["coupling"]} >= {"wrong_last_activation", "lr_and_epochs"}
    assert table["lr_and_epochs"]["best reconstructing mutant"] == "HLR+HNE = [0.1, 2]"
    assert table["lr_and_epochs"]["reconstruction"] == "exact"
    partial = table["learning_rate_too_high_missing_layer"]
    assert partial["reconstruction"] == "partial: 1 of 2 components (not LRM)" and partial["coupling"]
    assert (
        "no DeepCrime operator changes preprocessing" in table["missing_preprocessing"]["no figure because"]
    )
    assert "no input kills the mutant" in table["batch_beyond_samples"]["no figure because"]
    assert table["no_evaluate"]["no figure because"]


def test_first_order_mutants_against_their_combination(realism_report):
    rows = {r["id"]: r for r in compare_rows()}
    table = csv_rows(realism_report / "tables" / "realism_hom.csv")
    assert {r["id"] for r in table} == {"lr_and_epochs"}, "the only bug with two simulable components"
    by_operator = {r["operator"]: r for r in table}
    assert set(by_operator) == {"HLR", "HNE", "HLR+HNE"}
    mutants = {m["operator"]: m for m in rows["lr_and_epochs"]["mutants"]}
    hom = mutants["HLR+HNE"]["kp"]["kp"]
    for operator in ("HLR", "HNE"):
        fom = mutants[operator]["kp"]["kp"]
        overlap = sum(min(a, b) for a, b in zip(hom, fom, strict=True))
        assert float(by_operator[operator]["CS(HOM, this)"]) == pytest.approx(overlap / sum(hom), abs=1e-4)
        union = sum(max(a, b) for a, b in zip(hom, fom, strict=True))
        assert float(by_operator[operator]["IoU with HOM"]) == pytest.approx(overlap / union, abs=1e-4)
        assert float(by_operator[operator]["mean KP"]) == round(mutants[operator]["kp"]["mean_kp"], 4)
    verdict = by_operator["HLR+HNE"]["higher-order mutant against its parts"]
    couplings = {op: mutants[op]["coupling"] for op in mutants}
    closer = all(couplings[op] < couplings["HLR+HNE"] for op in ("HLR", "HNE"))
    assert verdict.startswith("closer to the fault than each part" if closer else "not closer")


@settings(max_examples=40, deadline=None)
@given(st.data())
def test_the_best_reconstruction_does_not_depend_on_the_mutants_order(data):
    """Over the saved rows, shuffled: the choice is the same mutant, carrying the most components."""
    rows = compare_rows()
    assert rows and any(len(row["mutants"]) > 1 for row in rows)  # something to shuffle
    for row in rows:
        shuffled = data.draw(st.permutations(row["mutants"]))
        best = best_reconstruction({**row, "mutants": shuffled})
        assert best == best_reconstruction(row)
        if best is not None:
            assert order_of(best) == max(order_of(m) for m in row["mutants"])
        assert (no_figure_reason(row, best) == "") == (
            best is not None and best["coupling"] is not None and best["iou"] is not None
        )
        found = hom_against_foms({**row, "mutants": shuffled})
        assert (found is not None) == (row["id"] == "lr_and_epochs")


#: scrolls to the realism section and reports, per row of its tables, what is drawn
PROBE = """<script>
window.addEventListener('load', function () {
  var out = {nav: !!document.querySelector('nav a[href="#section-realism"]'), tables: {},
             order: Array.prototype.map.call(document.querySelectorAll('section[id^=section-]'), function (s) {
               return s.id.slice(8); }).filter(function (k) { return ['reproduction', 'realism', 'coupling'].indexOf(k) >= 0; })};
  var section = document.getElementById('section-realism');
  out.section = !!section;
  if (section) {
    section.scrollIntoView({block: 'start'});
    ['realism_bugs', 'realism_hom'].forEach(function (name) {
      var table = section.querySelector('table[data-table=' + name + ']');
      if (!table) { out.tables[name] = null; return; }
      var heads = Array.prototype.map.call(table.tHead.rows[0].cells, function (th) { return th.textContent; });
      var rows = Array.prototype.map.call(table.tBodies[0].rows, function (tr) {
        var r = tr.getBoundingClientRect(), link = tr.cells[0].querySelector('a'), cells = {};
        Array.prototype.forEach.call(tr.cells, function (td, i) { cells[heads[i]] = td.textContent; });
        return {cells: cells, href: link ? link.getAttribute('href') : null, height: r.height, width: r.width};
      });
      var box = table.getBoundingClientRect();
      out.tables[name] = {rows: rows, top: box.top, width: box.width, right: box.right, window: window.innerWidth};
    });
  }
  var pre = document.createElement('pre'); pre.id = 'mutreal-probe'; pre.textContent = JSON.stringify(out);
  document.body.appendChild(pre);
});
</script>"""


@pytest.mark.chromium
def test_realism_section_in_chromium(realism_report, chromium_binary, tmp_path):
    from .test_bug_pages_browser import HEIGHT, WIDTH, run_chromium

    page = realism_report / "report.html"
    probed = page.with_name("probe-realism.html")
    probed.write_text(
        page.read_text(encoding="utf-8").replace("</body>", PROBE + "</body>"), encoding="utf-8"
    )
    done = run_chromium(chromium_binary, [f"--window-size={WIDTH},{HEIGHT}", "--dump-dom", probed.as_uri()],
                        tmp_path / "profile")  # fmt: skip
    found = re.search(r'<pre id="mutreal-probe">(.*?)</pre>', done.stdout, re.S)
    assert found, f"probe did not run; chromium said: {done.stderr[-2000:]}"
    seen = json.loads(html.unescape(found.group(1)))
    assert seen["nav"] and seen["section"]
    assert seen["order"] == ["reproduction", "realism", "coupling"], (
        "Table 5, then realism, then per operator"
    )
    bugs, hom = seen["tables"]["realism_bugs"], seen["tables"]["realism_hom"]
    assert bugs is not None and hom is not None
    assert 0 <= bugs["top"] < HEIGHT and bugs["width"] > 600, "the table is on screen after the jump"
    for table in (bugs, hom):  # the reasons in the last column are not pushed off the page
        assert table["right"] <= table["window"], table
    assert [r["cells"]["id"] for r in bugs["rows"]] == [r["id"] for r in compare_rows()]
    for row in bugs["rows"]:
        assert row["height"] > 5, row
        figure = row["cells"]["coupling"].strip() and row["cells"]["IoU"].strip()
        assert bool(figure) != bool(row["cells"]["no figure because"].strip()), row["cells"]
        assert row["href"] and (realism_report / row["href"]).is_file(), "each id links to the bug's page"
    assert [r["cells"]["operator"] for r in hom["rows"]] == ["HLR", "HNE", "HLR+HNE"]
    assert all(r["height"] > 5 for r in hom["rows"])
