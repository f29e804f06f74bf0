"""Every registered operator (plugins included) runs its own before/after examples."""

from __future__ import annotations

import pytest

from mutreal.mutation.operators import Program, apply_edits, registry


def _all_examples():
    for op_id, op in registry.operators().items():
        for i in range(len(op.examples())):
            yield pytest.param(op_id, i, id=f"{op_id}-{i}")


@pytest.mark.parametrize(("op_id", "index"), list(_all_examples()))
def test_operator_example(op_id: str, index: int) -> None:
    op = registry.get(op_id)
    ex = op.examples()[index]
    program = Program(ex.before, "example.py")
    mutant = apply_edits(program, [op.apply(program, ex.site, ex.value, **ex.options)])
    assert mutant.code == ex.after, f"{op_id} example {index} ({ex.style})"
    # the provenance names the operator and elements the catalogue says it changes
    for comp in mutant.provenance.components:
        assert comp.operator == op_id
        if op_id != "OCG":
            assert op.spec.matches_element(comp.element) or comp.element.startswith("data."), comp.element


def test_every_operator_has_two_examples_in_different_styles() -> None:
    ops = registry.operators()
    assert len(ops) >= 24
    for op_id, op in ops.items():
        examples = op.examples()
        assert len(examples) >= 2, op_id
        assert len({ex.style for ex in examples}) == len(examples), op_id
        assert len({ex.before for ex in examples}) == len(examples), op_id
