"""Mutants of the three mutation subjects: they parse, change only the edited region, and
classify(original, mutant) reports exactly the components of their provenance (issue item 5)."""

from __future__ import annotations

import ast
import difflib

import pytest

from mutreal.label.classify import classify_pair
from mutreal.mutation.operators import apply_edits, registry
from mutreal.mutation.operators.agreement import compare_components

from .conftest import SUBJECTS, subject_path, subject_program

#: disagreements caused by classify (operator id -> why), marked xfail; empty: every operator agrees
CLASSIFY_GAPS: dict[str, str] = {}


def _cases(classify_marks: bool = False):
    for name in SUBJECTS:
        program = subject_program(name)
        for op_id, op in registry.operators().items():
            for site in op.sites(program):
                marks = []
                if not classify_marks:
                    pass
                elif op_id in CLASSIFY_GAPS:
                    marks.append(pytest.mark.xfail(reason=CLASSIFY_GAPS[op_id], strict=True))
                yield pytest.param(name, op_id, site.index, id=f"{name}-{op_id}-{site.index}", marks=marks)


def _mutants(name: str, op_id: str, site_index: int):
    program = subject_program(name)
    op = registry.get(op_id)
    site = op.sites(program)[site_index]
    values = op.values(program, site)
    assert values, f"{op_id} site {site_index} has no value"
    for value in values:
        yield value, apply_edits(program, [op.apply(program, site, value)])


def _changed_original_lines(before: str, after: str) -> set[int]:
    lines: set[int] = set()
    sm = difflib.SequenceMatcher(a=before.splitlines(), b=after.splitlines(), autojunk=False)
    for tag, i1, i2, _j1, _j2 in sm.get_opcodes():
        if tag == "equal":
            continue
        # a pure insertion sits between original lines i1 and i1 + 1
        lines.update(range(i1 + 1, i2 + 1) if i2 > i1 else (i1 + 1,))
    return lines


@pytest.mark.parametrize(("name", "op_id", "site_index"), list(_cases()))
def test_mutants_parse_and_change_only_the_edited_region(name: str, op_id: str, site_index: int) -> None:
    program = subject_program(name)
    for value, mutant in _mutants(name, op_id, site_index):
        ast.parse(mutant.code)
        assert mutant.code != program.text
        allowed: set[int] = set()
        for lo, hi in mutant.regions:
            allowed.update(range(lo, hi + 1))
        changed = _changed_original_lines(program.text, mutant.code)
        assert changed <= allowed, (
            f"{op_id} {value}: lines {sorted(changed - allowed)} changed outside the edit"
        )
        assert changed, f"{op_id} {value}: no line changed"
        prov = mutant.provenance
        assert prov.original_sha256 == program.sha256
        assert prov.operator == op_id and prov.parts[0].site == site_index


@pytest.mark.parametrize(("name", "op_id", "site_index"), list(_cases(classify_marks=True)))
def test_classify_agrees_with_provenance(tmp_path, name: str, op_id: str, site_index: int) -> None:
    original = str(subject_path(name))
    program = subject_program(name)
    op = registry.get(op_id)
    site = op.sites(program)[site_index]
    values = op.values(program, site)
    # the first, the last and a middle value: both directions of the grids, several categories
    picked = {values[0], values[-1], values[len(values) // 2]}
    for value in picked:
        mutant = apply_edits(program, [op.apply(program, site, value)])
        path = tmp_path / mutant.name
        path.write_text(mutant.code, encoding="utf-8")
        result = classify_pair(original, str(path))
        agreement = compare_components(mutant.provenance.components, result.components)
        assert agreement.ok, f"{op_id} site {site_index} value {value}: {agreement.describe()}"
