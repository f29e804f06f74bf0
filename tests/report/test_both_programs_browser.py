"""Every bug page shows both programs of each pair the results row names, in headless Chromium.

A component found on one side only (a preprocessing step, a layer or a training-data step the
fixed program adds) names no buggy file; the page must still pair the buggy program with the
fixed one, as the results row's ``files`` does. One Chromium load checks many pages: a harness
page holds each bug page in an iframe (``--allow-file-access-from-files`` lets it read them) and,
per pair, counts the program lines drawn in the left (buggy) and the right (fixed) column.

Pages: the own programs of conftest (one of them, ``added-scaling``, has its only component on the
fixed side) reported by `python -m mutreal report`, and every page of the committed example
report (reports/example/bugs). Skipped without chromium, failed without it in CI.
"""

from __future__ import annotations

import html
import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

from .test_bug_pages_browser import EXAMPLE, WIDTH, run_chromium

pytestmark = [pytest.mark.chromium]

#: run in the harness when every iframe has loaded: per page, per file pair, what is drawn
PROBE = """<script>
window.addEventListener('load', function () {
  var out = {};
  document.querySelectorAll('iframe').forEach(function (frame) {
    var doc = frame.contentDocument, pairs = [];
    if (!doc) { out[frame.dataset.page] = null; return; }
    doc.querySelectorAll('.filepair').forEach(function (pair) {
      var spans = pair.querySelectorAll('h3 > span');
      var sides = [0, 0], left = [], total = [0, 0];
      pair.querySelectorAll('table.diff > tbody > tr').forEach(function (tr) {
        [[1, 0], [3, 1]].forEach(function (at) {
          var cell = tr.cells[at[0]], src = cell && cell.querySelector('.src');
          if (!src || !src.textContent.trim()) { return; }
          total[at[1]] += 1;
          var r = src.getBoundingClientRect();
          if (r.width > 0 && r.height > 0) { sides[at[1]] += 1; left[at[1]] = Math.min(left[at[1]] || 1e9, r.left); }
        });
      });
      pairs.push({buggy: spans[0] ? spans[0].textContent : null, fixed: spans[1] ? spans[1].textContent : null,
                  drawn: sides, lines: total, x: left,
                  notes: Array.prototype.map.call(pair.querySelectorAll('.missing'), function (p) { return p.textContent; })});
    });
    out[frame.dataset.page] = pairs;
  });
  var pre = document.createElement('pre'); pre.id = 'mutreal-probe'; pre.textContent = JSON.stringify(out);
  document.body.appendChild(pre);
});
</script>"""


def probe_pages(binary: str, pages: list[Path], tmp_path: Path) -> dict[str, list[dict] | None]:
    """Page file name -> per file pair: the header's two names, lines drawn per column, notes."""
    frames = "".join(
        f'<iframe data-page="{html.escape(p.name)}" src="{p.as_uri()}" style="width:{WIDTH}px;height:900px"></iframe>'
        for p in pages
    )
    harness = tmp_path / "harness.html"
    harness.write_text(f"<!DOCTYPE html><html><body>{frames}{PROBE}</body></html>", encoding="utf-8")
    done = run_chromium(
        binary,
        ["--allow-file-access-from-files", f"--window-size={WIDTH},900", "--dump-dom", harness.as_uri()],
        tmp_path / "profile",
    )
    found = re.search(r'<pre id="mutreal-probe">(.*?)</pre>', done.stdout, re.S)
    assert found, f"probe did not run; chromium said: {done.stderr[-2000:]}"
    return json.loads(html.unescape(found.group(1)))


def one_sided(row: dict, pairs: list[dict] | None) -> list[str]:
    """What is wrong with a page: it must show the row's file pairs, no other, each with both
    programs drawn, buggy on the left of fixed."""
    if pairs is None:
        return ["the page could not be read"]
    problems = []
    want = [
        (f"buggy: {p.get('buggy') or '(none)'}", f"fixed: {p.get('fixed') or '(none)'}") for p in row["files"]
    ]
    shown_pairs = [(p["buggy"], p["fixed"]) for p in pairs]
    if shown_pairs != want:
        problems.append(f"the page shows the pairs {shown_pairs}, the row names {want}")
    for pair in row.get("files") or []:
        if not (pair.get("buggy") and pair.get("fixed")):
            continue
        shown = next((p for p in pairs if p["buggy"] == f"buggy: {pair['buggy']}"), None)
        if shown is None:
            problems.append(
                f"no pair headed by buggy {pair['buggy']} (headers: {[p['buggy'] for p in pairs]})"
            )
            continue
        if shown["fixed"] != f"fixed: {pair['fixed']}":
            problems.append(f"{pair['buggy']} is paired with {shown['fixed']}")
        if min(shown["drawn"]) == 0:
            problems.append(f"lines drawn (buggy, fixed) = {shown['drawn']}; notes: {shown['notes']}")
        elif shown["x"][0] >= shown["x"][1]:
            problems.append(f"the buggy program is not left of the fixed one: {shown['x']}")
    return problems


def rows_of(results: Path) -> list[dict]:
    return [json.loads(line) for line in results.read_text(encoding="utf-8").splitlines() if line.strip()]


@pytest.fixture(scope="module")
def own_pages(classified_corpus, tmp_path_factory) -> tuple[Path, Path, list[dict]]:
    """(root the rows' files are relative to, folder of the pages, rows)."""
    root, results = classified_corpus
    out = tmp_path_factory.mktemp("both") / "report"
    done = subprocess.run(
        [sys.executable, "-m", "mutreal", "report", str(results), "--out", str(out), "--no-plots"],
        cwd=root,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr
    return root, out / "bugs", rows_of(results)


def test_own_pages_show_both_programs_also_for_a_component_on_one_side(own_pages, chromium_binary, tmp_path):
    _, folder, rows = own_pages
    added = next(r for r in rows if r["id"] == "added-scaling")
    # the case of the bug: classify pairs the files, the component names the fixed file only
    assert [(c["buggy_file"], c["fixed_file"] is not None) for c in added["components"]] == [(None, True)]
    assert all(p["buggy"] and p["fixed"] for r in rows for p in r["files"])
    seen = probe_pages(chromium_binary, [folder / f"{r['id']}.html" for r in rows], tmp_path)
    problems = {r["id"]: one_sided(r, seen[f"{r['id']}.html"]) for r in rows}
    assert not any(problems.values()), problems
    # the added line is drawn on the right only: one line more on the fixed side
    (pair,) = seen["added-scaling.html"]
    assert pair["lines"][1] == pair["lines"][0] + 1 and not pair["notes"]


def test_probe_sees_a_page_that_shows_one_side(own_pages, chromium_binary, tmp_path):
    """Control: a row with no ``files`` whose only component is on the fixed side is a page with the
    fixed program alone, and the check says so."""
    from mutreal.report.pages import SourceFinder, render_bug_page
    from mutreal.results import BugResult

    root, _, rows = own_pages
    added = dict(next(r for r in rows if r["id"] == "added-scaling"), files=[])
    finder = SourceFinder.for_results(None, [root])
    page = tmp_path / "added-scaling.html"
    page.write_text(render_bug_page(BugResult.from_dict(added), finder), encoding="utf-8")
    seen = probe_pages(chromium_binary, [page], tmp_path)
    (pair,) = seen[page.name]
    assert pair["buggy"] == "buggy: (none)" and pair["drawn"][0] == 0 and pair["drawn"][1] > 10
    original = next(r for r in rows if r["id"] == "added-scaling")
    assert one_sided(original, seen[page.name]), "a one-sided page must be reported"


def test_every_example_page_shows_both_programs(chromium_binary, tmp_path):
    """All pages of the committed example report (one Chromium load for all of them, about 4 s)."""
    from mutreal.report.pages import page_names

    rows = rows_of(EXAMPLE / "results.jsonl")
    names = page_names(r["id"] for r in rows)
    pages = [EXAMPLE / "bugs" / names[r["id"]] for r in rows]
    assert all(p.is_file() for p in pages), "the example pages are committed: regenerate reports/example"
    assert sum(1 for r in rows for p in r["files"] if p["buggy"] and p["fixed"]) >= len(rows)
    seen = probe_pages(chromium_binary, pages, tmp_path)
    problems = {r["id"]: one_sided(r, seen[names[r["id"]]]) for r in rows}
    assert not {k: v for k, v in problems.items() if v}, {k: v for k, v in problems.items() if v}
