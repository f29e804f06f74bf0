"""One test per row of taxonomy/decisions.csv: where mutreal draws the line between neighbouring codes.

Each row's example programs (``taxonomy/decisions/<ID>/{buggy,fixed}.py``) are classified and must
give the row's codes; the table and the code are checked against each other: every row is applied
by some function (:func:`mutreal.decisions.applies`), every id the code names is a row.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

import mutreal
import mutreal.compare  # noqa: F401  (registers the comparison's decisions)
import mutreal.extract.walker  # noqa: F401  (registers the graph front-end's decisions: HNE-graph-epochs)
import mutreal.label.codes  # noqa: F401  (registers the labels' decisions)
from mutreal.decisions import APPLIED_BY, DecisionId, load_decisions
from mutreal.resources import data_dir

DECISIONS = load_decisions()
SOURCE = Path(mutreal.__file__).parent


def test_decision_table_has_unique_ids_and_programs():
    assert len({d.id for d in DECISIONS}) == len(DECISIONS) >= 20
    for d in DECISIONS:
        assert d.buggy != d.fixed, d.id
        assert len(d.simulable) in (0, len(d.codes)), d.id


def test_every_row_is_a_decision_id_and_every_id_a_row():
    assert {d.id for d in DECISIONS} == {d.value for d in DecisionId}


def test_every_decision_is_applied_by_code():
    """A row no code applies is a rule the table claims and the program does not keep."""
    unapplied = [d.value for d in DecisionId if not APPLIED_BY.get(d)]
    assert unapplied == []


def test_every_decision_the_code_names_is_in_the_table():
    """Docstrings and comments that name a decision ("decision CPP-once") name a row."""
    ids = {d.value for d in DecisionId}
    named: dict[str, str] = {}
    for path in SOURCE.rglob("*.py"):
        for name in re.findall(
            r"[Dd]ecisions? ([A-Za-z]+(?:-[A-Za-z0-9]+)+)", path.read_text(encoding="utf-8")
        ):
            named.setdefault(name, str(path.relative_to(SOURCE)))
    assert {n: p for n, p in named.items() if n not in ids} == {}


def test_every_example_folder_is_a_row():
    folders = {p.name for p in (data_dir("taxonomy") / "decisions").iterdir() if p.is_dir()}
    assert folders == {d.id for d in DECISIONS}


def test_a_missing_example_is_a_clear_error(tmp_path):
    (tmp_path / "decisions.csv").write_text(
        "id,boundary,situation,codes,deepcrime,simulable,rationale\nX-y,a,b,CPP,,N,c\n", encoding="utf-8"
    )
    with pytest.raises(ValueError, match="X-y: its buggy example"):
        load_decisions(tmp_path)


@pytest.mark.parametrize("decision", DECISIONS, ids=lambda d: d.id)
def test_decision_row(decision, classify_texts):
    # read as a manifest run reads (tolerant: lines that do not parse set aside), so a row about
    # a program that does not parse (decision lost-block-noise) has its example too
    result = classify_texts(decision.buggy, decision.fixed, tolerant=True)
    codes = sorted(c.code for c in result.components)
    assert codes == sorted(decision.codes), [
        (c.element, c.code, c.before, c.after) for c in result.components
    ]
    if decision.deepcrime:
        assert [c.deepcrime for c in result.components] == list(decision.deepcrime)
    if decision.simulable:
        expected = sorted(zip(decision.codes, decision.simulable, strict=True))
        assert sorted((c.code, c.simulable) for c in result.components) == expected
