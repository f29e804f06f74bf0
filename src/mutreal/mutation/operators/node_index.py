"""The node index of a parsed module: positions, parents and text of nodes in one codegen pass.

Why a module: operators key their edits on node identity and need each node's line, column,
parent chain and source text; LibCST's metadata providers compute far more than that and cost
several parses' time, so one code-generation pass records just these spans.
"""

from __future__ import annotations

import re
from bisect import bisect_right
from itertools import accumulate

import libcst as cst
from libcst._nodes.internal import CodegenState

_NEWLINE = re.compile(r"\r\n|\r|\n")
_POSITIONED = (cst.Call, cst.Arg, cst.SimpleString, cst.SimpleStatementLine, cst.Name, cst.Attribute)


class _IndexState(CodegenState):
    """Codegen state recording token spans of selected nodes and every node's parent."""

    __slots__ = ("spans", "parents", "nodes", "_stack", "calls")

    def __init__(self, default_indent: str, default_newline: str) -> None:
        super().__init__(default_indent=default_indent, default_newline=default_newline)
        self.spans: dict[int, list[int]] = {}
        self.parents: dict[int, int] = {}
        self.nodes: dict[int, cst.CSTNode] = {}
        self.calls: list[int] = []
        self._stack: list[int] = []

    def before_codegen(self, node: cst.CSTNode) -> None:
        i = id(node)
        if self._stack:
            self.parents[i] = self._stack[-1]
        self._stack.append(i)
        if isinstance(node, (_POSITIONED, cst.BaseSmallStatement | cst.BaseCompoundStatement)):
            self.spans[i] = [len(self.tokens), -1]
            self.nodes[i] = node
            if type(node) is cst.Call:
                self.calls.append(i)

    def after_codegen(self, node: cst.CSTNode) -> None:
        i = self._stack.pop()
        span = self.spans.get(i)
        if span is not None:
            span[1] = len(self.tokens)


class NodeIndex:
    """Positions, parents and source text of the nodes of one module (one codegen pass)."""

    def __init__(self, module: cst.Module) -> None:
        state = _IndexState(module.default_indent, module.default_newline)
        module._codegen(state)
        self.module_id = id(module)
        self._tokens = state.tokens
        self.spans = state.spans
        self.parents = state.parents
        self.nodes = state.nodes
        self._offsets = [0, *accumulate(map(len, self._tokens))]
        self.code = "".join(self._tokens)
        self._newlines = [m.start() for m in _NEWLINE.finditer(self.code)]
        self.calls_by_line: dict[int, list[int]] = {}
        for cid in state.calls:
            self.calls_by_line.setdefault(self.position(cid)[0], []).append(cid)

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
        start = self._offsets[self.spans[node_id][0]]
        # statements start with their leading blank/comment lines: skip to the first code character
        if isinstance(self.nodes[node_id], cst.SimpleStatementLine | cst.BaseCompoundStatement):
            m = re.compile(r"[ \t]*(#[^\n]*)?\r?\n|[ \t]*(?=\S)")
            pos = start
            while True:
                mm = m.match(self.code, pos)
                if not mm or mm.end() == pos:
                    break
                if mm.group(0).endswith("\n"):
                    pos = mm.end()
                else:
                    pos = mm.end()
                    break
            start = pos
        return self._lc(start)

    def end_line(self, node_id: int) -> int:
        node_id = self._positioned(node_id)
        # a module without a final newline drops its last newline token after the last statement
        end = self._offsets[min(self.spans[node_id][1], len(self._tokens))]
        return self._lc(max(end - 1, 0))[0]

    def text(self, node_id: int) -> str:
        s, e = self.spans[node_id]
        return "".join(self._tokens[s:e])

    def ancestors(self, node_id: int) -> list[int]:
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
            if isinstance(node, cst.SimpleStatementLine | cst.BaseCompoundStatement):
                return cur
            cur = self.parents.get(cur)
        return None


def _callee_last(call: cst.Call) -> str | None:
    f = call.func
    if isinstance(f, cst.Name):
        return f.value
    if isinstance(f, cst.Attribute):
        return f.attr.value
    return None


def _norm_ws(text: str) -> str:
    return "".join(text.split())
