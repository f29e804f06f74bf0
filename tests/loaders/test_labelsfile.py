"""Reading labels in the study's format and results JSONL."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mutreal.study.labelsfile import (
    LabelledBug,
    LabelsFormatError,
    ResultRow,
    is_labels_file,
    parse_codes,
    parse_flags,
    read_labels,
    read_results,
)


def write_csv(path: Path, text: str) -> Path:
    path.write_text(text, encoding="utf-8")
    return path


def test_codes_with_notes_aliases_and_repeats() -> None:
    parsed = parse_codes("CPP (labels hot encoding), WCI, wci,Wrong kernel size, LRM(flatten, dense)")
    assert [p.code for p in parsed] == ["CPP", "WCI", "WCI", "LCF", "LRM"]
    assert [p.note for p in parsed] == ["labels hot encoding", None, None, None, "flatten, dense"]
    assert str(parsed[0]) == "CPP (labels hot encoding)"


def test_lone_note_attaches_to_previous_code() -> None:
    parsed = parse_codes("ACH, (see the post)")
    assert [(p.code, p.note) for p in parsed] == [("ACH", "see the post")]


def test_sloppy_flags() -> None:
    assert parse_flags("N,N.N.Y", 4) == (False, False, False, True)
    assert parse_flags("Y; n", 2) == (True, False)
    assert parse_flags("Y, N", 3) is None  # count mismatch: unusable, not all-N
    assert parse_flags("", 0) == ()


def test_read_labels_file(tmp_path: Path) -> None:
    path = write_csv(
        tmp_path / "labels.csv",
        "id,benchmark,codes,is_mutant,realistic,symptom\n"
        'a:1,B1,"ACH, ACH, LRM (flatten layer)","Y,Y.N",Y,Crash\n'
        "a:2,B2,HNE,Y,n,\n"
        'a:3,,"",,,\n'
        'a:4,B1,"LCH, CPP","Y",,\n',
    )
    bugs = read_labels(path)
    assert [b.id for b in bugs] == ["a:1", "a:2", "a:3", "a:4"]
    one = bugs[0]
    assert one.codes == ["ACH", "ACH", "LRM"] and one.flags == [True, True, False]
    assert one.notes == [None, None, "flatten layer"] and one.benchmark == "B1"
    assert one.realistic is True and one.symptom == "Crash" and one.simulable is False
    assert one.codes_text() == "ACH, ACH, LRM (flatten layer)"
    assert bugs[1].realistic is False and bugs[1].simulable is True
    assert bugs[2].codes == [] and bugs[2].benchmark is None
    assert bugs[3].flags is None and bugs[3].simulable is None
    assert LabelledBug.from_dict(json.loads(json.dumps(one.to_dict()))) == one
    assert is_labels_file(path)


def test_labels_without_codes_column_is_a_clear_error(tmp_path: Path) -> None:
    path = write_csv(tmp_path / "bad.csv", "id,benchmark\nx,y\n")
    with pytest.raises(LabelsFormatError, match="codes"):
        read_labels(path)
    assert not is_labels_file(path)


def test_read_results_tolerates_extra_fields_and_bad_lines(tmp_path: Path) -> None:
    rows = [
        {
            "id": "b1",
            "benchmark": "X",
            "status": "ok",
            "order": 2,
            "simulable": False,
            "new_field": 7,
            "components": [
                {"code": "ach", "deepcrime": "ACH", "element": "model[0].layer[1].activation", "x": 1},
                {"code": "CPP", "deepcrime": None, "simulable": False},
            ],
        },
        {"id": "b2", "status": "error", "error": "SyntaxError"},
    ]
    path = tmp_path / "r.jsonl"
    path.write_text(json.dumps(rows[0]) + "\n\nnot json\n[1]\n" + json.dumps(rows[1]) + "\n")
    problems: list = []
    got = read_results(path, problems)
    assert [r.id for r in got] == ["b1", "b2"] and [p.line for p in problems] == [3, 4]
    first = got[0]
    assert first.codes == ["ACH", "CPP"] and first.extra == {"new_field": 7}
    assert first.components[0].simulable is True and first.components[0].extra == {"x": 1}
    assert first.components[1].simulable is False
    assert ResultRow.from_dict(first.to_dict()) == first
    assert not got[1].ok and got[1].order == 0 and not got[1].simulable


CELL_PARTS = st.lists(
    st.one_of(
        st.sampled_from(["ACH", "ach", " LRM ", "Wrong kernel size", "wrong KERNEL size", "CPP", ""]),
        st.text(alphabet="ABCXYZ ()-.,;y", max_size=12),
    ),
    max_size=6,
)


@settings(max_examples=300)
@given(parts=CELL_PARTS, notes=st.lists(st.text(alphabet="ab ,;.-", max_size=8), max_size=6))
def test_codes_match_the_scoring_script(score_module, parts: list[str], notes: list[str]) -> None:
    cell = ", ".join(
        p + (f" ({n})" if i < len(notes) else "")
        for i, (p, n) in enumerate(zip(parts, notes + [""] * 6, strict=False))
    )
    assert [p.code for p in parse_codes(cell)] == score_module.codes_of(cell)


@settings(max_examples=300)
@given(cell=st.text(alphabet="YNyn ,.;x", max_size=20), n=st.integers(0, 6))
def test_flags_match_the_scoring_script(score_module, cell: str, n: int) -> None:
    ours = parse_flags(cell, n)
    theirs = score_module.flags_of(cell, n)
    assert (ours is None) == (theirs is None)
    if ours is not None:
        assert list(ours) == [f == "Y" for f in theirs]


def test_unknown_codes() -> None:
    from mutreal.study.labelsfile import unknown_codes

    bugs = [LabelledBug("a", ["ACH", "LHC"]), LabelledBug("b", ["LHC", "HNE"])]
    assert unknown_codes(bugs, known=["ACH", "HNE"]) == {"LHC": ["a", "b"]}
    assert unknown_codes(bugs) == {"LHC": ["a", "b"]}  # the shipped taxonomy
