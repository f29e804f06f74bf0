"""mutreal.results: one type writes the results JSONL and reads it back unchanged."""

from __future__ import annotations

import io
import json

from hypothesis import given, settings
from hypothesis import strategies as st

from mutreal.results import BugResult, ComponentResult, read_results, write_results
from mutreal.study.labelsfile import ResultComponent, ResultRow

TEXT = st.one_of(st.none(), st.text(max_size=8))
CODES = st.sampled_from(["ACH", "HLR", "LCH", "CPP", "HNE"])
COMPONENTS = st.builds(
    ComponentResult,
    code=CODES,
    taxonomy=TEXT,
    deepcrime=st.one_of(st.none(), CODES),
    simulable=st.booleans(),
    deepcrime_strict=st.booleans(),
    element=TEXT,
    before=TEXT,
    after=TEXT,
    buggy_line=st.one_of(st.none(), st.integers(0, 500)),
    resolved=st.dictionaries(st.sampled_from(["before", "after"]), st.integers()),
)
BUGS = st.builds(
    BugResult,
    id=st.text(min_size=1, max_size=8),
    benchmark=TEXT,
    status=st.sampled_from(["ok", "error"]),
    error=TEXT,
    components=st.lists(COMPONENTS, max_size=4),
    opaque_share=st.floats(0, 1),
    files=st.lists(st.fixed_dictionaries({"buggy": TEXT, "fixed": TEXT}), max_size=2),
)


@settings(max_examples=150)
@given(bugs=st.lists(BUGS, max_size=5))
def test_written_lines_read_back_to_the_same_bytes(bugs: list[BugResult]) -> None:
    out = io.StringIO()
    assert write_results(bugs, out) == len(bugs)
    text = out.getvalue()
    again = read_results(text.splitlines(keepends=True))
    assert "".join(b.to_json_line() for b in again) == text
    for bug, back in zip(bugs, again, strict=True):
        assert back.order == (len(bug.components) if bug.status == "ok" else 0)
        assert back.simulable == (
            bug.ok and bool(bug.components) and all(c.simulable for c in bug.components)
        )


def test_the_line_keeps_classify_s_key_order() -> None:
    bug = BugResult("b", components=[ComponentResult("ACH", simulable=True)], opaque_share=1 / 3)
    line = json.loads(bug.to_json_line())
    assert list(line) == [
        "id", "benchmark", "status", "error", "order", "simulable", "components",
        "data", "era", "set_aside", "opaque_share", "files",
        "changed_statements", "explained_statements", "noise_statements", "unexplained",
    ]  # fmt: skip
    assert list(line["components"][0])[:6] == [
        "code",
        "taxonomy",
        "taxonomy_id",
        "category",
        "deepcrime",
        "simulable",
    ]
    assert list(line["components"][0])[-1] == "resolved" and line["opaque_share"] == 0.3333


def test_the_old_reader_names_are_the_one_type() -> None:
    assert ResultRow is BugResult and ResultComponent is ComponentResult
