"""The tensor pass (decisions TWS-tensor-op, TWS-placeholder) as properties over sequences of graph
code's shape operations: equal sequences give nothing, one edited operation one TWS, operations a
program only declares (variables, placeholders) count only when both programs have them."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from mutreal.compare import diff_models
from mutreal.label.codes import label_component
from mutreal.program.model import ProgramModel, TensorOp, Value

_OPS = ("reshape", "expand_dims", "squeeze", "transpose", "tile")


def _op(name: str, arg: int, line: int, side: str) -> TensorOp:
    value = Value.const([-1, arg], text=f"[-1, {arg}]")
    return TensorOp(op=name, args={"shape": value}, text=f"tf.{name}(t, [-1, {arg}])", file=side, line=line)


def _program(side: str, ops: list[tuple[str, int]]) -> ProgramModel:
    return ProgramModel(
        path=side,
        framework="tensorflow",
        era="tf1",
        tensor_ops=[_op(name, arg, i + 1, side) for i, (name, arg) in enumerate(ops)],
    )


def _codes(buggy: ProgramModel, fixed: ProgramModel) -> list[tuple[str, str]]:
    return [(label_component(c).code, c.change) for c in diff_models(buggy, fixed)]


_SEQUENCES = st.lists(st.tuples(st.sampled_from(_OPS), st.integers(1, 9)), min_size=1, max_size=8)


@settings(max_examples=60, deadline=None)
@given(_SEQUENCES)
def test_the_same_operations_give_no_component(ops: list[tuple[str, int]]) -> None:
    assert _codes(_program("b.py", ops), _program("f.py", ops)) == []


@settings(max_examples=60, deadline=None)
@given(_SEQUENCES, st.data())
def test_one_changed_shape_is_one_tws(ops: list[tuple[str, int]], data: st.DataObject) -> None:
    i = data.draw(st.integers(0, len(ops) - 1))
    fixed = list(ops)
    fixed[i] = (ops[i][0], ops[i][1] + 10)
    assert _codes(_program("b.py", ops), _program("f.py", fixed)) == [("TWS", "changed")]


@settings(max_examples=60, deadline=None)
@given(_SEQUENCES, st.data())
def test_one_added_operation_is_one_tws(ops: list[tuple[str, int]], data: st.DataObject) -> None:
    i = data.draw(st.integers(0, len(ops)))
    fixed = [*ops[:i], ("expand_dims", 42), *ops[i:]]
    assert _codes(_program("b.py", ops), _program("f.py", fixed)) == [("TWS", "added")]


def test_declared_tensors_count_only_when_both_programs_have_them() -> None:
    base = [("reshape", 3)]
    buggy = _program("b.py", base)
    fixed = _program("f.py", base)
    fixed.tensor_ops.append(_op("placeholder", 5, 7, "f.py"))
    fixed.tensor_ops.append(_op("Variable", 5, 8, "f.py"))
    assert _codes(buggy, fixed) == []
    buggy.tensor_ops.append(_op("placeholder", 4, 7, "b.py"))
    assert _codes(buggy, fixed) == [("TWS", "changed")]


def test_a_program_that_completes_a_snippet_adds_no_tws() -> None:
    """Decision TWS-tensor-op's completion guard: a fixed program adding many operations around a
    snippet of one is the benchmark's set-up."""
    buggy = _program("b.py", [("reshape", 3)])
    fixed = _program("f.py", [("reshape", 3), *[("transpose", n) for n in range(6)]])
    assert _codes(buggy, fixed) == []
