"""One test per row of taxonomy/decisions.csv: where mutreal draws the line between neighbouring codes."""

from __future__ import annotations

import csv

import pytest

from mutreal.resources import data_dir


def _rows() -> list[dict[str, str]]:
    with open(data_dir("taxonomy") / "decisions.csv", newline="", encoding="utf-8") as handle:
        return list(csv.DictReader(handle))


def _unescape(text: str) -> str:
    return text.encode("utf-8").decode("unicode_escape")


def _split(cell: str) -> list[str]:
    return [c.strip() for c in cell.split(",") if c.strip()]


def test_decision_table_has_unique_ids_and_programs():
    rows = _rows()
    assert len({r["id"] for r in rows}) == len(rows) >= 20
    for row in rows:
        assert row["buggy"] != row["fixed"], row["id"]
        assert len(_split(row["simulable"])) in (0, len(_split(row["codes"]))), row["id"]


@pytest.mark.parametrize("row", _rows(), ids=lambda r: r["id"])
def test_decision_row(row, classify_texts):
    result = classify_texts(_unescape(row["buggy"]), _unescape(row["fixed"]))
    codes = sorted(c.code for c in result.components)
    assert codes == sorted(_split(row["codes"])), [
        (c.element, c.code, c.before, c.after) for c in result.components
    ]
    if row["deepcrime"]:
        assert [c.deepcrime for c in result.components] == _split(row["deepcrime"])
    flags = _split(row["simulable"])
    if flags:
        expected = sorted(zip(_split(row["codes"]), (f == "Y" for f in flags), strict=True))
        assert sorted((c.code, c.simulable) for c in result.components) == expected
