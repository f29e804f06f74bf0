"""Bug pages in a real browser: headless Chromium opens each page, scrolls to every component's mark
on both sides, and checks it is on screen and not covered (the element at its centre is the mark);
a screenshot shows the marks' colour where the page says they are.

Pages: the own programs of conftest classified by `python -m mutreal classify` (a tall file whose
components sit 70 lines apart, with folded unchanged runs between), and the committed example
report's pages (reports/example/bugs). Skipped without chromium, failed without it in CI.
"""

from __future__ import annotations

import html
import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = [pytest.mark.chromium]

EXAMPLE = Path(__file__).resolve().parents[2] / "reports" / "example"
WIDTH, HEIGHT = 1280, 900
FLAGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--hide-scrollbars",
    "--force-device-scale-factor=1",
    "--virtual-time-budget=10000",
]

#: appended to a copy of a page: scrolls to each mark and records whether it is inside the viewport
#: and is the element drawn at its own centre
PROBE = """<script>
window.addEventListener('load', function () {
  var out = [];
  document.querySelectorAll('a.badge').forEach(function (el) {
    el.scrollIntoView({block: 'center', inline: 'nearest'});
    var r = el.getBoundingClientRect();
    var hit = document.elementFromPoint(r.left + r.width / 2, r.top + r.height / 2);
    out.push({id: el.id, comp: el.getAttribute('data-comp'), side: el.getAttribute('data-side'),
              width: r.width, height: r.height,
              inside: r.top >= 0 && r.left >= 0 && r.bottom <= window.innerHeight && r.right <= window.innerWidth,
              drawn: hit !== null && (hit === el || el.contains(hit))});
  });
  var pre = document.createElement('pre');
  pre.id = 'mutreal-probe';
  pre.textContent = JSON.stringify({marks: out, scripts: typeof window.addEventListener});
  document.body.appendChild(pre);
});
</script>"""


def run_chromium(binary: str, args: list[str], profile: Path) -> subprocess.CompletedProcess:
    return subprocess.run(
        [binary, *FLAGS, f"--user-data-dir={profile}", *args],
        capture_output=True,
        text=True,
        timeout=180,
        env={**os.environ, "HOME": str(profile)},
    )


def probe_marks(binary: str, page: Path, tmp_path: Path, extra: str = "") -> list[dict]:
    """What the probe saw for every mark of ``page`` (``extra``: HTML added before the probe)."""
    probed = page.with_name(f"probe-{page.name}")
    probed.write_text(
        page.read_text(encoding="utf-8").replace("</body>", extra + PROBE + "</body>"), encoding="utf-8"
    )
    try:
        done = run_chromium(
            binary, [f"--window-size={WIDTH},{HEIGHT}", "--dump-dom", probed.as_uri()], tmp_path / "p"
        )
    finally:
        probed.unlink()
    found = re.search(r'<pre id="mutreal-probe">(.*?)</pre>', done.stdout, re.S)
    assert found, f"probe did not run; chromium said: {done.stderr[-2000:]}"
    return json.loads(html.unescape(found.group(1)))["marks"]


def expected_marks(row: dict) -> set[str]:
    """The marks a page must show: one per component and side that names a line."""
    out = set()
    for n, c in enumerate(row["components"], 1):
        for side in ("buggy", "fixed"):
            if c.get(f"{side}_line") is not None:
                out.add(f"c{n}-{side}")
    return out


@pytest.fixture(scope="module")
def own_report(classified_corpus, tmp_path_factory) -> tuple[Path, list[dict]]:
    """The own programs' report, made by `python -m mutreal report` from another folder."""
    root, results = classified_corpus
    out = tmp_path_factory.mktemp("pages") / "report"
    elsewhere = tmp_path_factory.mktemp("cwd")
    done = subprocess.run(
        [sys.executable, "-m", "mutreal", "report", str(results), "--out", str(out), "--no-plots"],
        cwd=elsewhere,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr
    rows = [json.loads(line) for line in results.read_text().splitlines() if line.strip()]
    return out, rows


def check_every_mark_on_screen(binary: str, page: Path, row: dict, tmp_path: Path) -> None:
    marks = probe_marks(binary, page, tmp_path)
    want = expected_marks(row)
    assert {m["id"] for m in marks} == want, f"{page.name}: marks on the page differ from the row's lines"
    for m in marks:
        assert m["width"] > 5 and m["height"] > 5, m
        assert m["inside"], f"{page.name}: {m['id']} is not inside the window after scrolling to it"
        assert m["drawn"], f"{page.name}: {m['id']} is covered or hidden"


def test_every_component_mark_is_on_screen_in_the_own_pages(own_report, chromium_binary, tmp_path):
    out, rows = own_report
    tall = next(r for r in rows if r["id"] == "tall-ach-hne")
    assert len(expected_marks(tall)) == 4, "the tall bug must keep its two components on both sides"
    for row in rows:
        check_every_mark_on_screen(chromium_binary, out / "bugs" / f"{row['id']}.html", row, tmp_path)


def test_probe_sees_a_hidden_mark(own_report, chromium_binary, tmp_path):
    """Control: a mark folded into a closed <details> is reported as not on screen."""
    out, _ = own_report
    page = out / "bugs" / "tall-ach-hne.html"
    hide = (
        "<script>var d=document.createElement('details');var m=document.getElementById('c2-fixed');"
        "m.parentNode.insertBefore(d,m);d.appendChild(m);</script>"
    )
    marks = {m["id"]: m for m in probe_marks(chromium_binary, page, tmp_path, extra=hide)}
    assert not (marks["c2-fixed"]["inside"] and marks["c2-fixed"]["drawn"])
    assert marks["c1-buggy"]["inside"] and marks["c1-buggy"]["drawn"]


def test_marks_show_in_a_screenshot(own_report, chromium_binary, tmp_path):
    """The short bug's marks, at the positions the page reports, are the marks' orange in pixels."""
    import matplotlib.image as mpimg
    import numpy as np

    out, _ = own_report
    page = out / "bugs" / "short-hlr.html"
    where = page.with_name("where-short-hlr.html")
    where.write_text(
        page.read_text(encoding="utf-8").replace(
            "</body>",
            "<script>window.addEventListener('load',function(){var o=[];document.querySelectorAll('a.badge')"
            ".forEach(function(e){var r=e.getBoundingClientRect();o.push([r.left+scrollX,r.top+scrollY,r.width,r.height])});"
            "var p=document.createElement('pre');p.id='where';p.textContent=JSON.stringify(o);document.body.appendChild(p);"
            "});</script></body>",
        ),
        encoding="utf-8",
    )
    dom = run_chromium(
        chromium_binary, [f"--window-size={WIDTH},2000", "--dump-dom", where.as_uri()], tmp_path / "d"
    )
    boxes = json.loads(html.unescape(re.search(r'<pre id="where">(.*?)</pre>', dom.stdout, re.S).group(1)))
    assert len(boxes) == 2
    shot = tmp_path / "shot.png"
    run_chromium(
        chromium_binary,
        [f"--window-size={WIDTH},2000", f"--screenshot={shot}", page.as_uri()],
        tmp_path / "s",
    )
    pixels = (mpimg.imread(shot)[..., :3] * 255).astype(int)
    orange = np.array([0xE0, 0xA0, 0x00])
    for x, y, w, h in boxes:
        assert y + h < 2000, "the short bug's marks fit in the first screen"
        region = pixels[int(y) + 1 : int(y + h) - 1, int(x) + 1 : int(x + w) - 1].reshape(-1, 3)
        share = (np.abs(region - orange).sum(axis=1) < 40).mean()
        assert share > 0.4, f"mark at {(x, y)} is not drawn in its colour (share {share:.2f})"


def example_pages() -> list[Path]:
    return sorted((EXAMPLE / "bugs").glob("*.html")) if (EXAMPLE / "bugs").is_dir() else []


@pytest.mark.slow
def test_every_component_mark_is_on_screen_in_the_example_pages(chromium_binary, tmp_path):
    """The committed example report: a sample of pages with components (one per benchmark style)."""
    # the pages are committed (reports/example/bugs): their absence is a broken checkout, not a skip
    assert example_pages(), f"no example bug pages in {EXAMPLE / 'bugs'}"
    from mutreal.report.pages import page_names

    rows = [json.loads(line) for line in (EXAMPLE / "results.jsonl").read_text().splitlines() if line.strip()]
    names = page_names(r["id"] for r in rows)
    sample = {}
    for row in rows:
        if row["components"]:
            sample.setdefault(row["benchmark"], row)
    multi = max(rows, key=lambda r: len(r["components"]))
    sample["most components"] = multi
    for row in sample.values():
        check_every_mark_on_screen(chromium_binary, EXAMPLE / "bugs" / names[row["id"]], row, tmp_path)


#: sorts the bug list by order (descending: two clicks) and filters it by an id prefix
SORT_FILTER = """<script>
window.addEventListener('load', function () {
  var table = document.querySelector('table[data-table=bugs]');
  var heads = Array.prototype.slice.call(table.tHead.rows[0].cells);
  var order = heads.filter(function (th) { return th.textContent.trim() === 'order'; })[0];
  order.click(); order.click();
  var orders = Array.prototype.map.call(table.tBodies[0].rows, function (r) { return r.cells[3].textContent; });
  var input = table.previousElementSibling.querySelector('input');
  input.value = 'SHORT';
  input.dispatchEvent(new Event('input'));
  var shown = Array.prototype.filter.call(table.tBodies[0].rows, function (r) { return r.style.display !== 'none'; })
    .map(function (r) { return r.cells[0].textContent; });
  var pre = document.createElement('pre');
  pre.id = 'mutreal-probe';
  pre.textContent = JSON.stringify({orders: orders, shown: shown});
  document.body.appendChild(pre);
});
</script>"""


def test_bug_list_sorts_and_filters_in_the_browser(own_report, chromium_binary, tmp_path):
    out, rows = own_report
    page = out / "report.html"
    probed = out / "probe-report.html"
    probed.write_text(
        page.read_text(encoding="utf-8").replace("</body>", SORT_FILTER + "</body>"), encoding="utf-8"
    )
    done = run_chromium(
        chromium_binary, [f"--window-size={WIDTH},{HEIGHT}", "--dump-dom", probed.as_uri()], tmp_path / "p"
    )
    found = json.loads(
        html.unescape(re.search(r'<pre id="mutreal-probe">(.*?)</pre>', done.stdout, re.S).group(1))
    )
    assert [int(o) for o in found["orders"]] == sorted((r["order"] for r in rows), reverse=True)
    assert found["shown"] == ["short-hlr"]
