"""The HTML report in a real browser: headless Chromium loads it, every image decodes (natural width
> 0), and each plot's region of a screenshot is not one uniform colour.

Chromium is Debian's ``chromium`` (``.ci/run`` installs it where missing); the test is skipped only
where no chromium binary exists, and fails instead in CI (``CI=true``).
"""

from __future__ import annotations

import html
import json
import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from mutreal.report.build import build_report
from mutreal.report.render import PLOTS, write_report
from mutreal.report.tables import bugs_from_results

pytestmark = [pytest.mark.chromium, pytest.mark.slow]

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
#: the conftest fixture skips where chromium is missing, or fails when CI=true
needs_chromium = pytest.mark.usefixtures("chromium_binary")

WIDTH = 1280
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

#: appended to a copy of the page: writes each image's natural size and page position into the DOM
PROBE = """<script>
window.addEventListener('load', function () {
  var out = [];
  document.querySelectorAll('img').forEach(function (img) {
    var r = img.getBoundingClientRect();
    out.push({id: img.id, naturalWidth: img.naturalWidth, naturalHeight: img.naturalHeight,
              x: r.left + window.scrollX, y: r.top + window.scrollY, width: r.width, height: r.height});
  });
  var pre = document.createElement('pre');
  pre.id = 'mutreal-probe';
  pre.textContent = JSON.stringify({images: out, height: document.documentElement.scrollHeight});
  document.body.appendChild(pre);
});
</script>"""


def chromium(args: list[str], profile: Path) -> subprocess.CompletedProcess:
    env = {**os.environ, "HOME": str(profile)}
    return subprocess.run(
        [CHROMIUM, *FLAGS, f"--user-data-dir={profile}", *args],
        capture_output=True,
        text=True,
        timeout=180,
        env=env,
    )


def probe(page: Path, tmp_path: Path) -> dict:
    """Load ``page`` (with the probe script added) and return what the probe wrote into the DOM."""
    probed = tmp_path / f"probe-{page.stem}.html"
    probed.write_text(
        page.read_text(encoding="utf-8").replace("</body>", PROBE + "</body>"), encoding="utf-8"
    )
    done = chromium([f"--window-size={WIDTH},900", "--dump-dom", probed.as_uri()], tmp_path / "profile-dom")
    found = re.search(r'<pre id="mutreal-probe">(.*?)</pre>', done.stdout, re.S)
    assert found, f"probe did not run; chromium said: {done.stderr[-2000:]}"
    return json.loads(html.unescape(found.group(1)))


@pytest.fixture(scope="module")
def report_dir(tmp_path_factory, make_rows) -> Path:
    from mutreal.study.labelsfile import ResultRow

    rows = [ResultRow.from_dict(r) for r in make_rows(60, seed=3)]
    out = tmp_path_factory.mktemp("html") / "report"
    write_report(build_report(bugs_from_results(rows), source="synthetic"), out)
    return out


def test_html_is_self_contained(report_dir):
    page = (report_dir / "report.html").read_text(encoding="utf-8")
    sources = re.findall(r'<img[^>]*\ssrc="([^"]*)"', page)
    assert len(sources) == len(PLOTS)
    assert all(src.startswith("data:image/png;base64,") for src in sources)
    assert not re.search(r"<link\b|<script[^>]*\ssrc=|https?://", page), (
        "the report loads nothing from elsewhere"
    )
    assert "<script>" in page, "the tables' sort/filter script is inline"


def screenshot_regions(page: Path, images: list[dict], doc_height: int, tmp_path: Path):
    """Pixels of each image's region in screenshots of ``page``, in windows of at most 6000 px.

    A tall page is shot in several windows: a copy of the page shifts its body up to the window's
    top (``position: relative``, which moves the painting without changing the layout), and each
    region is cut at its position minus that shift. (Scrolling by script leaves headless
    screenshots blank.)
    """
    import matplotlib.image as mpimg

    view = min(doc_height, 6000)
    regions = {}
    pending = sorted(images, key=lambda img: img["y"])
    shot_no = 0
    while pending:
        top = max(0, min(int(pending[0]["y"]) - 10, doc_height - view))
        inside = [img for img in pending if img["y"] + img["height"] <= top + view]
        assert inside, f"{pending[0]['id']} is taller than the screenshot window"
        shifted = tmp_path / f"shifted-{shot_no}.html"
        shift = f"<style>body{{position:relative;top:-{top}px}}</style>"
        shifted.write_text(
            page.read_text(encoding="utf-8").replace("</head>", shift + "</head>"), encoding="utf-8"
        )
        shot = tmp_path / f"shot-{shot_no}.png"
        done = chromium(
            [f"--window-size={WIDTH},{view}", f"--screenshot={shot}", shifted.as_uri()],
            tmp_path / f"profile-{shot_no}",
        )
        assert shot.exists(), done.stderr[-2000:]
        pixels = mpimg.imread(shot)[..., :3]
        assert pixels.shape[:2] == (view, WIDTH)
        for img in inside:
            x, y = int(img["x"]) + 2, int(img["y"]) - top + 2
            regions[img["id"]] = pixels[y : y + int(img["height"]) - 4, x : x + int(img["width"]) - 4]
        margin = pixels[:, : int(inside[0]["x"]) - 20]
        regions[f"margin-{shot_no}"] = margin
        pending = [img for img in pending if img not in inside]
        shot_no += 1
    return regions


def pages() -> list[str]:
    names = ["synthetic"]
    if EXAMPLE.exists():
        names.append("example")
    return names


EXAMPLE = Path(__file__).resolve().parents[2] / "reports" / "example" / "report.html"


@needs_chromium
@pytest.mark.parametrize("which", pages())
def test_every_image_decodes_and_every_plot_shows_something(which, report_dir, tmp_path):
    """The synthetic report, and the committed example report made by classify from the own corpus."""
    import numpy as np

    page = report_dir / "report.html" if which == "synthetic" else EXAMPLE
    found = probe(page, tmp_path)
    images = found["images"]
    assert [img["id"] for img in images] == [f"plot-{p.name}" for p in sorted(PLOTS, key=_page_order)]
    for img in images:
        assert img["naturalWidth"] > 0 and img["naturalHeight"] > 0, img
        assert img["width"] > 50 and img["height"] > 50, img
    regions = screenshot_regions(page, images, int(found["height"]), tmp_path)
    for img in images:
        region = regions[img["id"]]
        assert region.size, img
        colours = np.unique(region.reshape(-1, 3), axis=0)
        assert len(colours) > 10, f"{img['id']} is (nearly) one uniform colour in the screenshot"
    # control: the page margin beside the plots is uniform, so the check above can tell
    for name, margin in regions.items():
        if name.startswith("margin-"):
            assert len(np.unique(margin.reshape(-1, 3), axis=0)) <= 2, name


@needs_chromium
def test_probe_sees_a_broken_image(report_dir, tmp_path):
    """Control: an image whose data is not a PNG has natural width 0 in the probe."""
    page = (report_dir / "report.html").read_text(encoding="utf-8")
    broken = re.sub(
        r'src="data:image/png;base64,[^"]*"', 'src="data:image/png;base64,bm90IGEgcG5n"', page, count=1
    )
    path = tmp_path / "broken.html"
    path.write_text(broken, encoding="utf-8")
    widths = [img["naturalWidth"] for img in probe(path, tmp_path)["images"]]
    assert widths[0] == 0 and all(w > 0 for w in widths[1:])


def _page_order(plot) -> int:
    from mutreal.report.render import SECTIONS

    keys = [key for key, _, _ in SECTIONS]
    return keys.index(plot.section) * 10 + list(PLOTS).index(plot)
