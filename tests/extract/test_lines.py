"""Line numbers and call text: the ``ast``-based index agrees with the module's NodeIndex."""

from __future__ import annotations

import ast
import textwrap

import libcst as cst

from mutreal.extract.lines import AstLineIndex, NodeLines, _cst_calls, line_index

PROGRAM = textwrap.dedent(
    '''\
    """Doc."""
    import numpy as np; import keras

    @decorator(
        1)
    def build(n=3):
        # comment
        m = keras.Sequential([
            keras.layers.Dense(n, activation=f(g(1))),
            keras.layers.Dense({"a": h(2)}["a"]),
        ])
        return m

    if x:
        y = np.zeros((2, 2)).reshape(4).astype('float32')
    elif z(3):
        label = "é" + str(len("ü"))
    else:
        pass
    for i in range(
            3):
        try:
            fit(i)
        except ValueError as e:
            print(e)
        finally:
            done()
    with open("f") as fh:
        data = [line for line in fh if ok(line)]
    '''
)


def _nodes(module: cst.Module) -> list[cst.CSTNode]:
    out: list[cst.CSTNode] = []

    class Collect(cst.CSTVisitor):
        def on_visit(self, node: cst.CSTNode) -> bool:
            if isinstance(node, cst.BaseSmallStatement | cst.BaseCompoundStatement | cst.Call):
                out.append(node)
            return True

    module.visit(Collect())
    return out


def test_ast_index_matches_node_index_for_statements_and_calls():
    module = cst.parse_module(PROGRAM)
    slow, fast = NodeLines(module), AstLineIndex(module, PROGRAM, ast.parse(PROGRAM))
    compared = 0
    for node in _nodes(module):
        if isinstance(node, cst.Call):
            fast.current = None
            # calls are looked up inside the statement the walker is executing
            for stmt in _nodes(module):
                if not isinstance(stmt, cst.Call):
                    calls: list[cst.CSTNode] = []
                    _cst_calls(stmt, calls)
                    if any(c is node for c in calls) and fast.line(stmt) is not None:
                        fast.current = stmt
            if fast.current is None:
                continue
        expected = slow.line(node)
        got = fast.line(node)
        if got is None:
            continue
        assert got == expected, module.code_for_node(node)
        if isinstance(node, cst.Call):
            assert fast.text(node) == slow.text(node)
        compared += 1
    assert compared >= 30


def test_line_index_falls_back_to_node_index_when_source_does_not_match():
    module = cst.parse_module("x = 1\ny = 2\n")
    assert isinstance(line_index(module, "x = 1\n"), NodeLines)  # one statement short
    assert isinstance(line_index(module, "x = (\n"), NodeLines)  # not Python for ast
    assert isinstance(line_index(module), NodeLines)  # no text given
    assert isinstance(line_index(module, "x = 1\ny = 2\n"), AstLineIndex)


def test_node_lines_put_functions_at_their_name_and_statements_at_their_keyword():
    module = cst.parse_module(PROGRAM)
    lines = NodeLines(module)
    build = next(n for n in _nodes(module) if isinstance(n, cst.FunctionDef))
    first_if = next(n for n in _nodes(module) if isinstance(n, cst.If))
    assert lines.line(build) == PROGRAM.splitlines().index("def build(n=3):") + 1  # not the decorator
    assert lines.line(first_if) == PROGRAM.splitlines().index("if x:") + 1
    assert lines.line(build.params) is None  # not a statement or call: no line of its own
    assert lines.text(build) is None and lines.code == PROGRAM
