"""Per-bug pages of `mutreal report`: one page per results row, components pinned at their lines,
labels beside the predicted codes, a clear note where a program is not found, and the
--min-confidence filter. Programs are conftest's own, classified by `python -m mutreal classify`."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
from pathlib import Path

from hypothesis import given
from hypothesis import strategies as st

from mutreal.report.pages import page_names
from mutreal.report.sidebyside import Mark, align, diff_html
from mutreal.study.confidence_levels import LEVELS, filter_rows
from mutreal.study.labelsfile import ResultRow


def mutreal(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "mutreal", *args], cwd=cwd, capture_output=True, text=True, timeout=300
    )


def rows_of(results: Path) -> list[dict]:
    return [json.loads(line) for line in results.read_text().splitlines() if line.strip()]


def anchors(page: str) -> set[str]:
    return set(re.findall(r'<a class="badge"[^>]*\sid="([^"]+)"', page))


def test_a_page_per_bug_with_marks_and_both_readers(classified_corpus, tmp_path):
    root, results = classified_corpus
    first = tmp_path / "study.csv"
    first.write_text('id,codes,is_mutant\ntall-ach-hne,"ACH, HNE","Y,Y"\nshort-hlr,HLR,Y\n')
    second = tmp_path / "blind.csv"
    second.write_text('id,codes,note\ntall-ach-hne,"ACH (relu), LRM",x\n')
    out = tmp_path / "report"
    elsewhere = tmp_path / "cwd"
    elsewhere.mkdir()
    done = mutreal(
        "report",
        str(results),
        "--out",
        str(out),
        "--no-plots",
        "--labels",
        str(first),
        "--labels",
        str(second),
        cwd=elsewhere,
    )
    assert done.returncode == 0, done.stderr
    assert f"bug pages: {out / 'bugs'} ({len(rows_of(results))} HTML)" in done.stdout
    rows = rows_of(results)
    index = (out / "report.html").read_text()
    markdown = (out / "report.md").read_text()
    for row in rows:
        assert f'href="bugs/{row["id"]}.html"' in index
        assert f"](bugs/{row['id']}.html)" in markdown
        page = (out / "bugs" / f"{row['id']}.html").read_text()
        want = {
            f"c{n}-{s}"
            for n, c in enumerate(row["components"], 1)
            for s in ("buggy", "fixed")
            if c[f"{s}_line"]
        }
        assert anchors(page) == want, row["id"]
        for c in row["components"]:
            assert f"<strong>{c['code']}</strong>" in page and c["taxonomy"] in page
    tall = (out / "bugs" / "tall-ach-hne.html").read_text()
    # the ACH mark sits on the buggy line that holds the activation
    line = next(c["buggy_line"] for c in rows[0]["components"] if c["code"] == "ACH")
    assert re.search(
        rf'<td class="no">{line}</td><td class="code del hl"><a class="badge"[^>]*id="c1-buggy"', tall
    )
    assert "<details" in tall, "the long unchanged runs are folded"
    # readers: study names both (2 matched), blind names ACH and LRM (1 matched, LRM only there, HNE only classify)
    assert re.search(r"<td>study</td><td>ACH, HNE</td><td class=\"num\">2</td>", tall)
    assert re.search(
        r"<td>blind</td><td>ACH \(relu\), LRM</td><td class=\"num\">1</td><td>LRM</td><td>HNE</td>", tall
    )
    assert "not labelled" in (out / "bugs" / "noise-only.html").read_text()
    assert "codes (study)" in index and "codes (blind)" in index
    bugs_csv = (out / "tables" / "bugs.csv").read_text().splitlines()
    assert bugs_csv[0].startswith(
        "id,benchmark,status,order,codes,DeepCrime,confidence,explained,codes (study),codes (blind)"
    )
    assert len(bugs_csv) == 1 + len(rows)


def test_a_missing_program_gives_a_note_not_a_failure(classified_corpus, tmp_path):
    root, results = classified_corpus
    copy = tmp_path / "own"
    shutil.copytree(root / "corpus", copy / "corpus")
    shutil.copy(results, copy / "results.jsonl")
    (copy / "corpus" / "tall-ach-hne" / "fixed" / "train.py").unlink()
    out = tmp_path / "report"
    done = mutreal("report", str(copy / "results.jsonl"), "--out", str(out), "--no-plots", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    page = (out / "bugs" / "tall-ach-hne.html").read_text()
    assert "The fixed program is not shown: corpus/tall-ach-hne/fixed/train.py not found" in page
    assert anchors(page) == {"c1-buggy", "c2-buggy"}, "the buggy side is still shown and marked"
    assert "source not found or line outside it" in page


def test_sources_option_finds_programs_named_relative_to_another_folder(classified_corpus, tmp_path):
    root, results = classified_corpus
    apart = tmp_path / "results-apart"
    apart.mkdir()
    shutil.copy(results, apart / "results.jsonl")
    without = mutreal(
        "report", str(apart / "results.jsonl"), "--out", str(tmp_path / "a"), "--no-plots", cwd=tmp_path
    )
    assert without.returncode == 0, without.stderr
    assert "give --sources DIR" in (tmp_path / "a" / "bugs" / "short-hlr.html").read_text()
    found = mutreal(
        "report",
        str(apart / "results.jsonl"),
        "--out",
        str(tmp_path / "b"),
        "--no-plots",
        "--sources",
        str(root),
        cwd=tmp_path,
    )
    assert found.returncode == 0, found.stderr
    page = (tmp_path / "b" / "bugs" / "short-hlr.html").read_text()
    assert "not shown" not in page and anchors(page) == {"c1-buggy", "c1-fixed"}


def test_error_row_page_says_why(tmp_path, make_rows):
    rows = [
        {"id": "e/1", "benchmark": "A", "status": "error", "error": "SyntaxError: line 3", "components": []},
        {"id": "e:1", "benchmark": "A", "status": "ok", "components": [], "order": 0},
    ]
    results = tmp_path / "r.jsonl"
    results.write_text("".join(json.dumps(r) + "\n" for r in rows))
    done = mutreal("report", str(results), "--out", str(tmp_path / "out"), "--no-plots")
    assert done.returncode == 0, done.stderr
    pages = sorted(p.name for p in (tmp_path / "out" / "bugs").iterdir())
    assert pages == ["e_1-2.html", "e_1.html"]
    page = (tmp_path / "out" / "bugs" / "e_1.html").read_text()
    assert "error: SyntaxError: line 3" in page and "names no file" in page


# ---------------------------------------------------------------------------------- --min-confidence


def confident_rows(make_rows) -> list[dict]:
    """Synthetic rows whose components carry confidence levels in turn (and some carry none)."""
    rows = make_rows(40, seed=11)
    cycle = ["high", "medium", "low", None, "HIGH"]
    k = 0
    for row in rows:
        for c in row["components"]:
            level = cycle[k % len(cycle)]
            k += 1
            if level is not None:
                c["confidence"] = level
                c["confidence_reason"] = f"reason {k}"
                c["rule"] = f"rule-{k}"
    return rows


def test_min_confidence_filters_and_counts_unknown(tmp_path, make_rows):
    rows = confident_rows(make_rows)
    results = tmp_path / "r.jsonl"
    results.write_text("".join(json.dumps(r) + "\n" for r in rows))
    comps = [c for r in rows if r["status"] == "ok" for c in r["components"]]
    levels = [str(c.get("confidence", "")).lower() for c in comps]
    whole = json.loads(mutreal("report", str(results), "--json", "--no-plots").stdout)
    assert whole["summary"]["components"] == len(comps) and whole["summary"]["confidence_filter"] is None
    done = mutreal("report", str(results), "--json", "--no-plots", "--min-confidence", "medium")
    assert done.returncode == 0, done.stderr
    summary = json.loads(done.stdout)["summary"]
    assert summary["confidence_filter"] == {
        "minimum": "medium",
        "kept": levels.count("high") + levels.count("medium"),
        "below": levels.count("low"),
        "unknown": levels.count(""),
    }
    assert summary["components"] == levels.count("high") + levels.count("medium")
    out = mutreal(
        "report", str(results), "--out", str(tmp_path / "o"), "--no-plots", "--min-confidence", "high"
    )
    assert f"{levels.count('')} dropped with no confidence" in out.stdout
    page = next((tmp_path / "o" / "bugs").glob("*.html")).read_text()
    assert "conf-high" in page or "no component" in page
    labels = tmp_path / "l.csv"
    labels.write_text("id,codes\nb1,ACH\n")
    bad = mutreal("report", str(labels), "--min-confidence", "low")
    assert bad.returncode == 2 and "filters classify results" in bad.stderr


@given(
    st.lists(st.lists(st.sampled_from(["high", "medium", "low", None, "odd"]), max_size=5), max_size=8),
    st.sampled_from(LEVELS),
)
def test_filter_keeps_exactly_the_levels_at_or_above(levels_per_row, minimum):
    rows = [
        ResultRow.from_dict(
            {
                "id": f"b{i}",
                "status": "ok",
                "components": [
                    {"code": "ACH", "simulable": True, **({"confidence": lv} if lv else {})} for lv in lvs
                ],
            }
        )
        for i, lvs in enumerate(levels_per_row)
    ]
    kept, counts = filter_rows(rows, minimum)
    total = sum(len(r.components) for r in rows)
    assert counts.kept + counts.below + counts.unknown == total
    floor = LEVELS.index(minimum)
    for before, after in zip(rows, kept, strict=True):
        assert after.order == len(after.components)
        want = [
            c
            for c in before.components
            if c.confidence in LEVELS and LEVELS.index(c.confidence) >= floor
        ]
        assert after.components == want


# -------------------------------------------------------------------------------- the diff and names


lines = st.lists(st.sampled_from(["a", "b", "c", "x = 1", "", "def f():"]), max_size=30)


@given(lines, lines)
def test_align_keeps_both_programs_in_order(a, b):
    rows = align(a, b)
    assert [r.a for r in rows if r.a_no is not None] == a
    assert [r.b for r in rows if r.b_no is not None] == b
    assert [r.a_no for r in rows if r.a_no is not None] == list(range(1, len(a) + 1))
    for r in rows:
        if r.kind == "equal":
            assert r.a == r.b
        assert (r.kind == "del") == (r.b_no is None) and (r.kind == "ins") == (r.a_no is None)


@given(st.integers(1, 200), st.integers(0, 5))
def test_a_marked_line_is_never_folded(line, context):
    text = [f"line {i}" for i in range(200)]
    page = diff_html(text, text, {line: [Mark(1, "ACH", "t", "c1-buggy", "buggy")]}, {}, context=context)
    at = page.index('id="c1-buggy"')
    assert page.count("<details", 0, at) == page.count("</details>", 0, at)
    assert "<details" in page, "200 unchanged lines fold around the mark"


@given(st.lists(st.text(min_size=0, max_size=12), max_size=20))
def test_page_names_are_unique_and_safe(ids):
    names = page_names(ids)
    assert set(names) == set(ids)
    assert len({n.lower() for n in names.values()}) == len(names)
    assert all(re.fullmatch(r"[A-Za-z0-9._-]+\.html", n) for n in names.values())


def test_file_pairs_follow_the_rows_files_whatever_the_components_name(classified_corpus):
    """The added step's component names the fixed file only; the page still pairs both programs.
    Rows without ``files`` (older results) pair a one-sided component's file by name."""
    from mutreal.report.pages import SourceFinder, file_pairs, pair_component_files, render_bug_page

    root, results = classified_corpus
    row = ResultRow.from_dict(next(r for r in rows_of(results) if r["id"] == "added-scaling"))
    both = ("corpus/added-scaling/buggy/train.py", "corpus/added-scaling/fixed/train.py")
    assert [(c.buggy_file, c.fixed_file) for c in row.components] == [(None, both[1])]
    assert file_pairs(row) == [both]
    page = render_bug_page(row, SourceFinder.for_results(None, [root]))
    assert f"buggy: {both[0]}" in page and "on one side only" not in page
    older = ResultRow.from_dict({**row.to_dict(), "files": []})
    assert file_pairs(older) == [(None, both[1])], "one file and no other: nothing to pair it with"
    assert pair_component_files([(None, "f/a.py"), ("b/x.py", None), ("b/a.py", None)]) == [
        ("b/x.py", None),
        ("b/a.py", "f/a.py"),
    ]
    assert pair_component_files([(None, "f/a.py"), ("b/a.py", "f/a.py")]) == [("b/a.py", "f/a.py")]
    assert pair_component_files([("b/m.py", "f/m.py"), (None, "f/new.py")]) == [
        ("b/m.py", "f/m.py"),
        (None, "f/new.py"),
    ]
    assert pair_component_files([(None, "f/a.py"), ("b/z.py", None)]) == [("b/z.py", "f/a.py")]
