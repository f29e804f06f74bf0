"""Line numbers and source text of statements and calls for the extractor, cheaply.

LibCST's position metadata (:class:`~mutreal.extract.positions.NodeIndex`, the one place that reads
it) costs about four times a parse on real programs: it records a range for every node. The
extractor only needs the first line of statements and calls, so :class:`AstLineIndex` pairs the CST
with Python's ``ast`` of the same text, the tree the syntax check already built (a few percent of a
parse). :class:`NodeLines`, a view of the module's ``NodeIndex``, is the fallback where the two
trees do not line up or no text is given.
"""

from __future__ import annotations

import ast
from typing import Any, cast

import libcst as cst

from mutreal.extract.positions import NodeIndex
from mutreal.program.source import python_tree

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


class NodeLines:
    """Same interface as :class:`AstLineIndex`, read from the module's :class:`NodeIndex`.

    The fallback where Python's ``ast`` of the text is not at hand or does not line up with the CST:
    LibCST's position metadata, resolved once for the module. A small statement or call starts at
    its first token (a call's parentheses included); a compound statement at its keyword
    (decorators and leading comments skipped), a function or class at its name.
    """

    #: unused here (every recorded node has its line); same interface as AstLineIndex
    current: cst.CSTNode | None = None

    def __init__(self, module: cst.Module) -> None:
        self._index = NodeIndex(module)
        self.code = self._index.code

    def line(self, node: cst.CSTNode | None) -> int | None:
        """Line of ``node`` when it is a recorded node type, else None."""
        if node is None:
            return None
        t = type(node)
        if t is cst.FunctionDef or t is cst.ClassDef:
            node = cast(cst.FunctionDef | cst.ClassDef, node).name
        elif t not in _RECORDED and t not in _COMPOUND:
            return None
        try:
            return self._index.position(id(node))[0]
        except KeyError:
            return None

    def text(self, node: cst.CSTNode) -> str | None:
        """Source text of a call node as the module writes it, None for other nodes."""
        if type(node) is not cst.Call:
            return None
        try:
            return self._index.text(id(node))
        except KeyError:
            return None


class _Mismatch(Exception):
    """The CST and AST statement lists do not line up (then the codegen index is used)."""


_HEADERS = {
    cst.For: (("iter", "iter"),),
    cst.If: (("test", "test"),),
    cst.While: (("test", "test"),),
}


class AstLineIndex:
    """Same interface as :class:`NodeLines`, from Python's ``ast`` of the same source (much cheaper).

    ``tree`` is ``ast.parse(source)``, usually the one parsing the program already made
    (:func:`~mutreal.program.source.python_tree`); it costs a few percent of a LibCST parse. Statements of the two trees are
    paired in order once; calls are paired lazily, per statement, only when the walker asks for the
    line or text of a call (layers, data steps, compile/fit): the calls of a statement in CST
    pre-order are the AST calls sorted by start position (outer before inner).
    """

    def __init__(self, module: cst.Module, source: str, tree: ast.Module) -> None:
        self._source = source
        self._lines = source.splitlines(keepends=True)
        self._starts: list[int] | None = None
        self._stmts: dict[int, ast.stmt] = {}
        self._calls: dict[int, ast.Call] = {}
        self._mapped: set[int] = set()
        #: the statement the walker is executing (calls are looked up inside it)
        self.current: cst.CSTNode | None = None
        self._map_block(module.body, tree.body)

    # -- statements ---------------------------------------------------------------------------------
    def _map_block(self, stmts: Any, nodes: list[ast.stmt]) -> None:
        i = 0
        for s in stmts:
            if type(s) is cst.SimpleStatementLine:
                for small in s.body:
                    if i >= len(nodes):
                        raise _Mismatch
                    self._stmts[id(small)] = nodes[i]
                    i += 1
                continue
            if i >= len(nodes):
                raise _Mismatch
            a = nodes[i]
            i += 1
            self._stmts[id(s)] = a
            self._map_compound(s, a)
        if i != len(nodes):
            raise _Mismatch

    def _map_compound(self, s: cst.CSTNode, a: ast.AST) -> None:
        if (
            type(s) is cst.FunctionDef
            or type(s) is cst.ClassDef
            or type(s) is cst.For
            or type(s) is cst.While
            or type(s) is cst.With
        ):
            self._map_block(s.body.body, _field(a, "body"))
            orelse = getattr(s, "orelse", None)
            if orelse is not None:
                self._map_block(orelse.body.body, _field(a, "orelse"))
        elif type(s) is cst.If:
            self._map_block(s.body.body, _field(a, "body"))
            if type(s.orelse) is cst.If:
                self._map_block([s.orelse], _field(a, "orelse"))
            elif s.orelse is not None:
                self._map_block(s.orelse.body.body, _field(a, "orelse"))
        elif type(s) is cst.Try or type(s) is cst.TryStar:
            self._map_block(s.body.body, _field(a, "body"))
            handlers: list[ast.ExceptHandler] = _field(a, "handlers")
            if len(s.handlers) != len(handlers):
                raise _Mismatch
            for h, ah in zip(s.handlers, handlers, strict=True):
                self._map_block(h.body.body, ah.body)
            if s.orelse is not None:
                self._map_block(s.orelse.body.body, _field(a, "orelse"))
            if s.finalbody is not None:
                self._map_block(s.finalbody.body.body, _field(a, "finalbody"))
        # match statements and others: inner statements stay unmapped (their lines fall back)

    # -- calls --------------------------------------------------------------------------------------
    def _map_calls(self, stmt: cst.CSTNode) -> None:
        self._mapped.add(id(stmt))
        a = self._stmts.get(id(stmt))
        if a is None:
            return
        t = type(stmt)
        pairs: list[tuple[cst.CSTNode, ast.AST]]
        if t in _HEADERS:
            pairs = [(getattr(stmt, c), getattr(a, p)) for c, p in _HEADERS[t]]
        elif type(stmt) is cst.With and isinstance(a, ast.With | ast.AsyncWith):
            pairs = [
                (item.item, aitem.context_expr) for item, aitem in zip(stmt.items, a.items, strict=False)
            ]
        elif isinstance(stmt, cst.BaseSmallStatement):
            pairs = [(stmt, a)]
        else:
            return
        for cnode, anode in pairs:
            ccalls: list[cst.CSTNode] = []
            _cst_calls(cnode, ccalls)
            acalls: list[ast.Call] = []
            _ast_calls(anode, acalls)
            if len(ccalls) != len(acalls):
                continue
            acalls.sort(
                key=lambda n: (n.lineno, n.col_offset, -(n.end_lineno or 0), -(n.end_col_offset or 0))
            )
            for c, n in zip(ccalls, acalls, strict=True):
                self._calls[id(c)] = n

    def _ast_of(self, node: cst.CSTNode) -> ast.stmt | ast.Call | None:
        stmt = self._stmts.get(id(node))
        if stmt is not None:
            return stmt
        if type(node) is not cst.Call:
            return None
        call = self._calls.get(id(node))
        if call is None and self.current is not None and id(self.current) not in self._mapped:
            self._map_calls(self.current)
            call = self._calls.get(id(node))
        return call

    def line(self, node: cst.CSTNode | None) -> int | None:
        if node is None:
            return None
        a = self._ast_of(node)
        return a.lineno if a is not None else None

    def text(self, node: cst.CSTNode) -> str | None:
        """Source text of a call or statement node, None when it is not known."""
        stmt = self._stmts.get(id(node))
        if stmt is not None:
            return self._segment(stmt)
        if type(node) is not cst.Call:
            return None
        a = self._ast_of(node)
        if a is None:
            return None
        return self._segment(a)

    def _segment(self, a: ast.stmt | ast.Call) -> str | None:
        lines = self._lines
        if a.end_lineno is None or a.end_col_offset is None:
            return None
        try:
            l0, c0, l1, c1 = a.lineno - 1, a.col_offset, a.end_lineno - 1, a.end_col_offset
            first, last = lines[l0], lines[l1]
        except IndexError:
            return None
        if not first.isascii():
            c0 = len(first.encode()[:c0].decode(errors="replace"))
        if not last.isascii():
            c1 = len(last.encode()[:c1].decode(errors="replace"))
        if l0 == l1:
            return first[c0:c1]
        return first[c0:] + "".join(lines[l0 + 1 : l1]) + last[:c1]

    @property
    def code(self) -> str:
        return self._source


#: child fields in source order for the node types that matter (others use ``node.children``)
_FIELDS: dict[type, tuple[str, ...]] = {
    cst.Call: ("func", "args"),
    cst.Arg: ("value",),
    cst.Attribute: ("value",),
    cst.Subscript: ("value", "slice"),
    cst.SubscriptElement: ("slice",),
    cst.Index: ("value",),
    cst.Slice: ("lower", "upper", "step"),
    cst.BinaryOperation: ("left", "right"),
    cst.UnaryOperation: ("expression",),
    cst.BooleanOperation: ("left", "right"),
    cst.Comparison: ("left", "comparisons"),
    cst.ComparisonTarget: ("comparator",),
    cst.List: ("elements",),
    cst.Tuple: ("elements",),
    cst.Set: ("elements",),
    cst.Element: ("value",),
    cst.StarredElement: ("value",),
    cst.Dict: ("elements",),
    cst.DictElement: ("key", "value"),
    cst.StarredDictElement: ("value",),
    cst.IfExp: ("body", "test", "orelse"),
    cst.Await: ("expression",),
    cst.NamedExpr: ("target", "value"),
    cst.ConcatenatedString: ("left", "right"),
    cst.Expr: ("value",),
    cst.Assign: ("targets", "value"),
    cst.AssignTarget: ("target",),
    cst.AugAssign: ("target", "value"),
    cst.AnnAssign: ("target", "annotation", "value"),
    cst.Annotation: ("annotation",),
    cst.Return: ("value",),
    cst.Assert: ("test", "msg"),
    cst.Del: ("target",),
    cst.Name: (),
    cst.Integer: (),
    cst.Float: (),
    cst.Imaginary: (),
    cst.SimpleString: (),
    cst.Ellipsis: (),
    cst.Pass: (),
    cst.Break: (),
    cst.Continue: (),
    cst.Import: (),
    cst.ImportFrom: (),
    cst.Global: (),
    cst.Nonlocal: (),
}


def _field(node: ast.AST, name: str) -> Any:
    """A field of an AST node paired with a CST node of the same kind (AttributeError if not)."""
    return getattr(node, name)


def _cst_calls(node: cst.CSTNode, out: list[cst.CSTNode]) -> None:
    """Calls under ``node`` in pre-order (source order, outer before inner)."""
    t = type(node)
    if t is cst.Call:
        out.append(node)
    fields = _FIELDS.get(t)
    if fields is None:
        for child in node.children:
            _cst_calls(child, out)
        return
    for name in fields:
        value = getattr(node, name)
        if value is None:
            continue
        if isinstance(value, cst.CSTNode):
            _cst_calls(value, out)
        elif isinstance(value, tuple | list):
            for item in value:
                _cst_calls(item, out)


def _ast_calls(node: ast.AST, out: list[ast.Call]) -> None:
    if isinstance(node, ast.Call):
        out.append(node)
    for name in node._fields:
        value = getattr(node, name, None)
        if isinstance(value, ast.AST):
            if not isinstance(value, ast.expr_context):
                _ast_calls(value, out)
        elif type(value) is list:
            for item in value:
                if isinstance(item, ast.AST):
                    _ast_calls(item, out)


def line_index(
    module: cst.Module, source: str | None = None, tree: ast.Module | None = None
) -> NodeLines | AstLineIndex:
    """The cheapest line index that works: from ``ast`` when the source is given and parses (``tree``,
    its ``ast``, looked up or parsed when not given) and lines up with the module, else positions."""
    if source is not None:
        if tree is None:
            tree = python_tree(module, source)
        if tree is not None:
            try:
                return AstLineIndex(module, source, tree)
            except (_Mismatch, RecursionError, MemoryError):
                pass
    return NodeLines(module)
