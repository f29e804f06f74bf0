"""Node positions, parents and source text of a parsed module, from LibCST's public API.

Why a module: the operators key their edits on node identity and need each node's line, column,
parent chain and source text; extract and modernize need lines of statements and calls. This is
the one place that turns LibCST's position metadata (``WhitespaceInclusivePositionProvider``,
resolved once per module on the module itself, so node identities are kept) into those figures,
so no caller reaches into LibCST's private codegen.
"""

from __future__ import annotations

import re
from bisect import bisect_right

import libcst as cst
from libcst.metadata import CodeRange, MetadataWrapper, WhitespaceInclusivePositionProvider

_NEWLINE = re.compile(r"\r\n|\r|\n")
_POSITIONED = (cst.Call, cst.Arg, cst.SimpleString, cst.SimpleStatementLine, cst.Name, cst.Attribute)
_STATEMENT = (cst.SimpleStatementLine, cst.BaseCompoundStatement)
#: a blank or comment line before a statement, or the indentation before its first token
_LEADING = re.compile(r"[ \t]*(#[^\n]*)?\r?\n|[ \t]*(?=\S)")


class _ParentRecorder(cst.CSTVisitor):
    """Records every node's parent and the nodes whose positions are asked for, in source order."""

    def __init__(self) -> None:
        self.parents: dict[int, int] = {}
        self.nodes: dict[int, cst.CSTNode] = {}
        self.calls: list[int] = []
        self._stack: list[int] = []

    def on_visit(self, node: cst.CSTNode) -> bool:
        i = id(node)
        if self._stack:
            self.parents[i] = self._stack[-1]
        self._stack.append(i)
        if isinstance(node, (_POSITIONED, cst.BaseSmallStatement | cst.BaseCompoundStatement)):
            self.nodes[i] = node
            if type(node) is cst.Call:
                self.calls.append(i)
        return True

    def on_leave(self, original_node: cst.CSTNode) -> None:
        self._stack.pop()


class NodeIndex:
    """Positions, parents and source text of the nodes of one module.

    A node's span is the text it owns (its whitespace included), as LibCST's whitespace-inclusive
    position metadata gives it; nodes without a recorded span (a number, an operator) answer with
    their nearest recorded ancestor's position.
    """

    def __init__(self, module: cst.Module) -> None:
        wrapper = MetadataWrapper(module, unsafe_skip_copy=True)
        ranges = wrapper.resolve(WhitespaceInclusivePositionProvider)
        recorder = _ParentRecorder()
        module.visit(recorder)
        self.module_id = id(module)
        self.parents = recorder.parents
        self.nodes = recorder.nodes
        self.code = module.code
        self._newlines = [m.start() for m in _NEWLINE.finditer(self.code)]
        self._line_starts = [0, *(m.end() for m in _NEWLINE.finditer(self.code))]
        self.spans: dict[int, tuple[int, int]] = {
            i: self._span(ranges[node]) for i, node in self.nodes.items() if node in ranges
        }
        self.calls_by_line: dict[int, list[int]] = {}
        for cid in recorder.calls:
            self.calls_by_line.setdefault(self.position(cid)[0], []).append(cid)

    def _offset(self, line: int, column: int) -> int:
        if line > len(self._line_starts):  # past a final line that has no newline
            return len(self.code)
        return min(self._line_starts[line - 1] + column, len(self.code))

    def _span(self, where: CodeRange) -> tuple[int, int]:
        return (
            self._offset(where.start.line, where.start.column),
            self._offset(where.end.line, where.end.column),
        )

    def _lc(self, offset: int) -> tuple[int, int]:
        line = bisect_right(self._newlines, offset - 1)
        start = self._newlines[line - 1] + 1 if line else 0
        return line + 1, offset - start

    def _positioned(self, node_id: int) -> int:
        """The node itself when its span is recorded, else its nearest recorded ancestor."""
        cur: int | None = node_id
        while cur is not None and cur not in self.spans:
            cur = self.parents.get(cur)
        if cur is None:
            raise KeyError(f"node {node_id} is not part of this module")
        return cur

    def position(self, node_id: int) -> tuple[int, int]:
        """(line 1-based, column 0-based) where the node's first token starts (for a node without a
        recorded span, e.g. a number, its nearest recorded ancestor's)."""
        node_id = self._positioned(node_id)
        start = self.spans[node_id][0]
        # statements start with their leading blank/comment lines: skip to the first code character
        if isinstance(self.nodes[node_id], _STATEMENT):
            while True:
                mm = _LEADING.match(self.code, start)
                if not mm or mm.end() == start:
                    break
                start = mm.end()
                if not mm.group(0).endswith("\n"):
                    break
        return self._lc(start)

    def end_line(self, node_id: int) -> int:
        """Line of the node's last character (its own trailing newline included)."""
        end = self.spans[self._positioned(node_id)][1]
        return self._lc(max(end - 1, 0))[0]

    def text(self, node_id: int) -> str:
        """The source text the node owns, its whitespace included."""
        s, e = self.spans[node_id]
        return self.code[s:e]

    def ancestors(self, node_id: int) -> list[int]:
        """Ids of the node's parent, grandparent, ... up to the module."""
        out = []
        cur = self.parents.get(node_id)
        while cur is not None:
            out.append(cur)
            cur = self.parents.get(cur)
        return out

    def statement_of(self, node_id: int) -> int | None:
        """The innermost statement line (or compound statement) holding the node."""
        cur: int | None = node_id
        while cur is not None:
            node = self.nodes.get(cur)
            if isinstance(node, _STATEMENT):
                return cur
            cur = self.parents.get(cur)
        return None
