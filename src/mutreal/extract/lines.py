"""Line numbers of statements and calls without LibCST's metadata machinery.

``PositionProvider`` costs about three times a parse on real programs (it records a range for
every node through the metadata framework). mutreal only needs the first line of statements and
calls, so one code-generation pass with a small state that counts newlines and records the line
of those node types is enough: it costs a fraction of the parse.
"""

from __future__ import annotations

import re
from bisect import bisect_right
from itertools import accumulate

import libcst as cst
from libcst._nodes.internal import CodegenState

_NEWLINE = re.compile(r"\r\n|\r|\n")

_RECORDED = frozenset(
    {
        cst.Call,
        cst.Expr,
        cst.Assign,
        cst.AugAssign,
        cst.AnnAssign,
        cst.Return,
        cst.Import,
        cst.ImportFrom,
        cst.Assert,
        cst.Raise,
        cst.Del,
        cst.Global,
        cst.Nonlocal,
        cst.Pass,
        cst.Break,
        cst.Continue,
    }
)
_COMPOUND = frozenset(
    {
        cst.FunctionDef,
        cst.ClassDef,
        cst.For,
        cst.While,
        cst.If,
        cst.With,
        cst.Try,
        cst.TryStar,
    }
)


class _LineState(CodegenState):
    """Codegen state that records, for selected nodes, the index of the first token they emit."""

    __slots__ = ("starts",)

    def __init__(self, default_indent: str, default_newline: str) -> None:
        super().__init__(default_indent=default_indent, default_newline=default_newline)
        self.starts: dict[int, int] = {}

    def before_codegen(self, node: cst.CSTNode) -> None:
        t = type(node)
        if t in _RECORDED:
            self.starts[id(node)] = len(self.tokens)
        elif t in _COMPOUND:
            # leading blank/comment lines and decorators come first: point at the keyword line
            self.starts[id(node)] = -len(self.tokens) - 1


class LineIndex:
    """First line (1-based) of every small statement, call and compound statement of a module.

    Lines are computed lazily from token offsets (bisect over newline offsets), so building the
    index costs one code generation and a few C-level passes over the text.
    """

    def __init__(self, module: cst.Module) -> None:
        state = _LineState(module.default_indent, module.default_newline)
        module._codegen(state)
        self._starts = state.starts
        self._tokens = state.tokens
        self._offsets: list[int] | None = None
        self._newlines: list[int] = []
        self._code: str | None = None

    def _prepare(self) -> None:
        self._offsets = [0, *accumulate(map(len, self._tokens))]
        self._newlines = [m.start() for m in _NEWLINE.finditer(self.code)]

    def line(self, node: cst.CSTNode | None) -> int | None:
        """Line of ``node`` when it is a recorded node type, else None."""
        if node is None:
            return None
        start = self._starts.get(id(node))
        if start is None:
            return None
        if self._offsets is None:
            self._prepare()
        assert self._offsets is not None
        extra = 0
        if start < 0:
            start = -start - 1
            extra = len(getattr(node, "leading_lines", ())) + len(getattr(node, "decorators", ()))
        return bisect_right(self._newlines, self._offsets[start] - 1) + 1 + extra

    @property
    def code(self) -> str:
        """The module's source text (generated in the same pass)."""
        if self._code is None:
            self._code = "".join(self._tokens)
        return self._code
