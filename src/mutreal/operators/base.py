"""The shared machinery of mutation operators: programs, sites, edits, mutants, provenance.

Why this shape: ``mutate --all`` writes hundreds of mutants of one subject, ``hom-generate``
combines several first-order edits into one file and ``validate-operators`` applies operators
with inferred values. All three need the same cheap steps, so a :class:`Program` is parsed and
extracted once, its nodes are indexed in one code-generation pass (positions, parents, calls by
line), operators return :class:`Edit` objects that *describe* small changes keyed on node
identity, and :func:`apply_edits` applies any number of them in one targeted transformer pass
that only descends into the ancestors of the edited nodes. Everything else stays byte-identical.

Provenance is written from the operator's own edit (never by running classify): each edit lists
the :class:`Component` records (element path in the grammar of ``docs/element-paths.md``, the
operator, old and new source text) that ``classify(original, mutant)`` should report.
"""

from __future__ import annotations

import ast
import hashlib
import re
from bisect import bisect_right
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import asdict, dataclass, field
from functools import cached_property
from itertools import accumulate
from typing import Any, ClassVar

import libcst as cst
from libcst._nodes.internal import CodegenState

from mutreal import __version__, keras_api
from mutreal.catalogue import OperatorSpec, load_catalogue
from mutreal.model import KerasModel, Layer, ProgramModel

__all__ = [
    "Component",
    "Site",
    "Change",
    "Edit",
    "Example",
    "Part",
    "Provenance",
    "Mutant",
    "MutationError",
    "Operator",
    "Program",
    "apply_edits",
]


class MutationError(Exception):
    """An operator cannot produce a valid mutant (bad site or value, no change, does not parse)."""


# ---------------------------------------------------------------------------------------------------
# Data records
# ---------------------------------------------------------------------------------------------------


@dataclass
class Component:
    """One program element an edit changes: what ``classify(original, mutant)`` must report.

    ``before``/``after`` are source texts (``None``: the element is absent on that side);
    ``implicit_before`` marks a ``before`` that is the era's default rather than written text.
    """

    element: str
    operator: str
    before: str | None
    after: str | None
    implicit_before: bool = False
    #: every element the one written change affects when it builds several (a layer constructor in
    #: a loop or in a helper called twice); ``element`` is the first, the one classify reports
    instances: list[str] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        d = asdict(self)
        if not self.instances:
            d.pop("instances")
        return d

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> Component:
        return cls(
            element=d["element"],
            operator=d["operator"],
            before=d.get("before"),
            after=d.get("after"),
            implicit_before=bool(d.get("implicit_before", False)),
            instances=list(d.get("instances") or []),
        )


@dataclass
class Site:
    """A place in a program where an operator applies (numbered from 0 per operator).

    ``elements`` are all element paths the site covers: a layer built in a loop, or by a helper
    called twice, is one constructor call in the source and so one site that edits every layer
    instance it builds. ``old`` is the current value's source text (or its default, with
    ``implicit``), ``original`` its normalised value (what relative grids scale).
    ``anchor`` is the id of the CST node the site edits (not serialised).
    """

    operator: str
    index: int
    element: str
    elements: list[str]
    file: str
    line: int
    col: int
    old: str | None = None
    original: Any = None
    implicit: bool = False
    detail: dict[str, Any] = field(default_factory=dict)
    anchor: int | None = field(default=None, repr=False, compare=False)

    def to_dict(self) -> dict[str, Any]:
        d = asdict(self)
        d.pop("anchor")
        return d

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> Site:
        return cls(
            operator=d["operator"],
            index=int(d["index"]),
            element=d["element"],
            elements=list(d.get("elements") or [d["element"]]),
            file=d.get("file", "<string>"),
            line=int(d.get("line", 0)),
            col=int(d.get("col", 0)),
            old=d.get("old"),
            original=d.get("original"),
            implicit=bool(d.get("implicit", False)),
            detail=dict(d.get("detail") or {}),
        )


@dataclass
class Change:
    """One elementary source change, keyed on the id of a node of the program's tree.

    kinds: ``set_arg`` (replace the value of an argument found by keyword alias or position, or
    append ``keyword=code``), ``remove_arg``, ``replace`` (an expression node by ``code``),
    ``insert_before`` (statements ``code`` before statement ``target``), ``import`` (a statement
    ``code`` after the module's last top-level import; ``target`` unused).
    """

    kind: str
    target: int
    code: str = ""
    keyword: str | None = None
    aliases: tuple[str, ...] = ()
    position: int | None = None


@dataclass
class Edit:
    """What one operator does at one site with one value (first order)."""

    operator: str
    site: Site
    value: Any
    old: str | None
    new: str | None
    components: list[Component]
    changes: list[Change] = field(default_factory=list, repr=False)
    #: short text for file names (``sigmoid``, ``0.01``, ``linear``)
    label: str = ""
    options: dict[str, Any] = field(default_factory=dict)

    def part(self) -> Part:
        return Part(
            operator=self.operator,
            site=self.site.index,
            element=self.site.element,
            old=self.old,
            new=self.new,
            value=self.value,
            options=dict(self.options),
            components=list(self.components),
        )


@dataclass
class Part:
    """The provenance of one first-order edit (a HOM lists several)."""

    operator: str
    site: int
    element: str
    old: str | None
    new: str | None
    value: Any
    options: dict[str, Any] = field(default_factory=dict)
    components: list[Component] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        d = asdict(self)
        d["components"] = [c.to_dict() for c in self.components]
        return d

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> Part:
        return cls(
            operator=d["operator"],
            site=int(d["site"]),
            element=d["element"],
            old=d.get("old"),
            new=d.get("new"),
            value=d.get("value"),
            options=dict(d.get("options") or {}),
            components=[Component.from_dict(c) for c in d.get("components", [])],
        )


@dataclass
class Provenance:
    """The JSON record written next to a mutant: where it comes from and what it changes.

    For a first-order mutant ``operator``/``site``/``element``/``old``/``new`` repeat its only
    part; for a higher-order mutant they are joined with ``+`` and ``parts`` lists each edit.
    """

    original: str
    original_sha256: str
    mutant: str
    parts: list[Part]
    seed: int = 0
    mutreal_version: str = __version__

    @property
    def order(self) -> int:
        return len(self.parts)

    @property
    def operator(self) -> str:
        return "+".join(p.operator for p in self.parts)

    @property
    def components(self) -> list[Component]:
        return [c for p in self.parts for c in p.components]

    def to_dict(self) -> dict[str, Any]:
        first = self.parts[0] if len(self.parts) == 1 else None
        return {
            "mutant": self.mutant,
            "original": self.original,
            "original_sha256": self.original_sha256,
            "order": self.order,
            "operator": self.operator,
            "site": first.site if first else [p.site for p in self.parts],
            "element": first.element if first else [p.element for p in self.parts],
            "old": first.old if first else [p.old for p in self.parts],
            "new": first.new if first else [p.new for p in self.parts],
            "value": first.value if first else [p.value for p in self.parts],
            "seed": self.seed,
            "mutreal_version": self.mutreal_version,
            "parts": [p.to_dict() for p in self.parts],
            "components": [c.to_dict() for c in self.components],
        }

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> Provenance:
        return cls(
            original=d["original"],
            original_sha256=d["original_sha256"],
            mutant=d["mutant"],
            parts=[Part.from_dict(p) for p in d["parts"]],
            seed=int(d.get("seed", 0)),
            mutreal_version=d.get("mutreal_version", __version__),
        )


@dataclass
class Mutant:
    """A mutant's text and provenance (not yet written anywhere)."""

    code: str
    edits: list[Edit]
    provenance: Provenance
    #: 1-based line ranges of the original touched by the edits (for readable-diff checks)
    regions: list[tuple[int, int]] = field(default_factory=list)

    @property
    def name(self) -> str:
        return self.provenance.mutant


@dataclass
class Example:
    """A before/after example of an operator, run by the test suite for every registered operator."""

    before: str
    after: str
    site: int = 0
    value: Any = None
    options: dict[str, Any] = field(default_factory=dict)
    style: str = ""


# ---------------------------------------------------------------------------------------------------
# Node index: one code-generation pass
# ---------------------------------------------------------------------------------------------------

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


# ---------------------------------------------------------------------------------------------------
# Program: one parse, one extraction, one index
# ---------------------------------------------------------------------------------------------------


@dataclass
class LayerGroup:
    """One layer constructor call in the source and the layer instances it builds."""

    call: int
    instances: list[tuple[int, int, Layer]]  # (model index, layer index, layer)
    model: KerasModel
    #: the layer inside a wrapper (``TimeDistributed(Dense(3))``): its arguments have the wrapper's
    #: element paths (``model[0].layer[2].activation``), as classify compares wrapped layers
    wrapped: bool = False

    @property
    def layer(self) -> Layer:
        return self.instances[0][2]


class Program:
    """A parsed program with its model and node index, shared by every operator and mutant."""

    def __init__(self, text: str, path: str = "<string>", era: str | None = None) -> None:
        from mutreal.extract import extract_model

        self.text = text
        self.path = path
        self.module = cst.parse_module(text)
        self.model: ProgramModel = extract_model(self.module, path, era)
        self.index = NodeIndex(self.module)
        self._sites: dict[str, list[Site]] = {}

    @classmethod
    def from_file(cls, path: str, era: str | None = None) -> Program:
        with open(path, encoding="utf-8") as fh:
            return cls(fh.read(), path, era)

    @cached_property
    def sha256(self) -> str:
        return hashlib.sha256(self.text.encode("utf-8")).hexdigest()

    @property
    def era(self) -> str:
        return self.model.era

    def node(self, node_id: int) -> cst.CSTNode:
        return self.index.nodes[node_id]

    # -- locating model elements ------------------------------------------------------------------
    def find_call(self, line: int | None, text: str | None = None, name: str | None = None) -> int | None:
        """The call starting on ``line`` whose text is ``text`` (whitespace-insensitive), else
        the first one whose callee's last name is ``name``."""
        if line is None:
            return None
        cands = self.index.calls_by_line.get(line, [])
        if text:
            want = _norm_ws(text)
            for cid in cands:
                got = _norm_ws(self.index.text(cid))
                while got != want and got.startswith("(") and got.endswith(")"):
                    got = got[1:-1]  # ``model.add((Dense(1)))``: the parentheses belong to the call node
                if got == want:
                    return cid
        if name:
            for cid in cands:
                if _callee_last(self.index.nodes[cid]) == name:  # type: ignore[arg-type]
                    return cid
        return None

    @cached_property
    def layer_groups(self) -> list[LayerGroup]:
        """Layers grouped by the constructor call that builds them, in source order."""
        groups: dict[int, LayerGroup] = {}
        for km in self.model.models:
            for li, layer in enumerate(km.layers):
                if not layer.known or layer.file != self.model.path and layer.file != self.path:
                    continue
                cid = self.find_call(layer.line, layer.text)
                if cid is None or not isinstance(self.index.nodes[cid], cst.Call):
                    continue
                found = [(cid, layer, False)]
                inner = layer.inner
                if inner is not None and inner.known:
                    icid = self.find_call(inner.line, inner.text)
                    if icid is not None:
                        found.append((icid, inner, True))
                for call_id, lay, wrapped in found:
                    g = groups.get(call_id)
                    if g is None:
                        groups[call_id] = LayerGroup(call_id, [(km.index, li, lay)], km, wrapped)
                    else:
                        g.instances.append((km.index, li, lay))
        return sorted(groups.values(), key=lambda g: self.index.position(g.call))

    @cached_property
    def layer_groups_by_call(self) -> dict[int, LayerGroup]:
        return {g.call: g for g in self.layer_groups}

    def fit_call(self, fit_index: int) -> int | None:
        fit = self.model.fits[fit_index]
        return self.find_call(fit.line, None, fit.method)

    def compile_call(self, compile_index: int) -> int | None:
        c = self.model.compiles[compile_index]
        return self.find_call(c.line, None, "compile")

    # -- arguments of calls -----------------------------------------------------------------------
    def find_arg(
        self, call_id: int, names: Iterable[str], position: int | None = None
    ) -> tuple[int, cst.Arg] | None:
        """The argument node of a call given by keyword (any of ``names``) or position."""
        call = self.index.nodes[call_id]
        assert isinstance(call, cst.Call)
        wanted = set(names)
        pos = 0
        for arg in call.args:
            if arg.keyword is not None:
                if arg.keyword.value in wanted:
                    return id(arg), arg
            elif not arg.star:
                if position is not None and pos == position:
                    return id(arg), arg
                pos += 1
        return None

    def layer_arg(self, call_id: int, layer: Layer, canonical: str) -> tuple[int, cst.Arg] | None:
        """The argument of a layer constructor call that carries canonical argument ``canonical``."""
        call = self.index.nodes[call_id]
        assert isinstance(call, cst.Call)
        positional = keras_api.positional_params(layer.cls, self.era)
        pos = 0
        for arg in call.args:
            if arg.keyword is not None:
                if keras_api.canonical_kwarg(layer.cls, arg.keyword.value, self.era) == canonical:
                    return id(arg), arg
            elif not arg.star:
                if pos < len(positional) and positional[pos] == canonical:
                    return id(arg), arg
                pos += 1
        return None

    def uses_legacy_kwargs(self, call_id: int, cls: str) -> bool:
        """Whether a layer call is written with Keras 1 keyword spellings (``init=``, ``W_regularizer=``)."""
        call = self.index.nodes[call_id]
        assert isinstance(call, cst.Call)
        for arg in call.args:
            if arg.keyword is not None:
                kw = arg.keyword.value
                if kw in keras_api.LEGACY_LAYER_KWARGS and keras_api.canonical_kwarg(cls, kw) != kw:
                    return True
        return self.era == "keras1"

    # -- spelling of new names --------------------------------------------------------------------
    @cached_property
    def keras_root(self) -> str:
        """``keras`` or ``tensorflow.keras``: the packaging the program imports Keras from."""
        for target in self.model.imports.values():
            if target.startswith(("tensorflow.keras", "tensorflow.python.keras")) or target == "tensorflow":
                return "tensorflow.keras"
        return "keras"

    def spell(self, module: str, name: str) -> tuple[str, str | None]:
        """How to write ``<keras root>.<module>.<name>`` here: (expression, import to add or None).

        Uses an alias the program already imports (``optimizers.Adam``, ``keras.optimizers.Adam``,
        ``tf.keras.optimizers.Adam``, ``Adam`` itself), else adds
        ``from <root>.<module> import <name>``.
        """
        root = self.keras_root
        full_mod = f"{root}.{module}"
        best: tuple[int, str] | None = None
        for alias, target in self.model.imports.items():
            cand = None
            if target == f"{full_mod}.{name}":
                cand = (0, alias)
            elif target == full_mod:
                cand = (1, f"{alias}.{name}")
            elif target == root:
                cand = (2, f"{alias}.{module}.{name}")
            elif target == "tensorflow" and root == "tensorflow.keras":
                cand = (3, f"{alias}.keras.{module}.{name}")
            if cand and (best is None or cand < best):
                best = cand
        if best is not None:
            return best[1], None
        return name, f"from {full_mod} import {name}"

    @cached_property
    def quote(self) -> str:
        """The program's usual string quote (for new string literals)."""
        dq = sq = 0
        for node in self.index.nodes.values():
            if isinstance(node, cst.SimpleString):
                q = node.quote
                if q == '"':
                    dq += 1
                elif q == "'":
                    sq += 1
        return "'" if sq > dq else '"'

    def string(self, value: str, like: cst.CSTNode | None = None) -> str:
        """A string literal in the quote style of ``like`` (a string node) or the program's."""
        q = like.quote if isinstance(like, cst.SimpleString) and like.quote in ("'", '"') else self.quote
        return f"{q}{value}{q}"

    # -- sites --------------------------------------------------------------------------------------
    def sites(self, op: Operator) -> list[Site]:
        """The sites of ``op`` here, computed once per program and operator."""
        got = self._sites.get(op.id)
        if got is None:
            raw = op.find_sites(self)
            raw.sort(key=lambda s: (s.file, s.line, s.col))
            for i, s in enumerate(raw):
                s.index = i
            got = self._sites[op.id] = raw
        return got

    def make_site(
        self, op: Operator, anchor: int, elements: Sequence[str], old: str | None, original: Any, **kw: Any
    ) -> Site:
        line, col = self.index.position(anchor)
        return Site(
            operator=op.id,
            index=-1,
            element=elements[0],
            elements=list(elements),
            file=self.path,
            line=line,
            col=col,
            old=old,
            original=original,
            anchor=anchor,
            **kw,
        )


# ---------------------------------------------------------------------------------------------------
# Applying edits
# ---------------------------------------------------------------------------------------------------


def _expr(code: str) -> cst.BaseExpression:
    return cst.parse_expression(code)


def _apply_arg_changes(call: cst.Call, changes: list[Change]) -> cst.Call:
    args = list(call.args)
    for ch in changes:
        found = None
        pos = 0
        for i, arg in enumerate(args):
            if arg.keyword is not None:
                if arg.keyword.value in ch.aliases:
                    found = i
                    break
            elif not arg.star:
                if ch.position is not None and pos == ch.position:
                    found = i
                    break
                pos += 1
        if ch.kind == "set_arg":
            if found is not None:
                args[found] = args[found].with_changes(value=_expr(ch.code))
                continue
            new = cst.Arg(
                keyword=cst.Name(ch.keyword or ch.aliases[0]),
                value=_expr(ch.code),
                equal=cst.AssignEqual(
                    whitespace_before=cst.SimpleWhitespace(""), whitespace_after=cst.SimpleWhitespace("")
                ),
            )
            if not args:
                args.append(new)
                continue
            last = args[-1]
            if isinstance(last.comma, cst.Comma):
                # trailing comma (one argument per line): copy the separator of the previous argument
                sep = args[-2].comma if len(args) > 1 and isinstance(args[-2].comma, cst.Comma) else None
                if sep is None:
                    sep = cst.Comma(whitespace_after=cst.SimpleWhitespace(" "))
                args[-1] = last.with_changes(comma=sep)
                args.append(new.with_changes(comma=last.comma))
            else:
                args[-1] = last.with_changes(comma=cst.Comma(whitespace_after=cst.SimpleWhitespace(" ")))
                args.append(new)
        elif ch.kind == "remove_arg":
            if found is None:
                continue
            removed = args.pop(found)
            if found == len(args) and args:
                args[-1] = args[-1].with_changes(comma=removed.comma)
    return call.with_changes(args=args)


def _insert_before(body: Sequence[cst.CSTNode], inserts: Mapping[int, list[str]], orig_ids: list[int]):
    out: list[cst.CSTNode] = []
    for node, oid in zip(body, orig_ids, strict=True):
        for code in inserts.get(oid, []):
            stmts = cst.parse_module(code).body
            # the statement's leading blank and comment lines move above the inserted statements
            lead = getattr(node, "leading_lines", ())
            if lead and stmts:
                stmts = [stmts[0].with_changes(leading_lines=lead), *stmts[1:]]
                node = node.with_changes(leading_lines=())
            out.extend(stmts)
        out.append(node)
    return out


class _Apply(cst.CSTTransformer):
    """Applies changes keyed on original node ids, descending only into ancestors of targets."""

    def __init__(self, program: Program, changes: list[Change]) -> None:
        super().__init__()
        self.by_target: dict[int, list[Change]] = {}
        self.inserts: dict[int, list[str]] = {}
        self.imports: list[str] = []
        keep: set[int] = {program.index.module_id}
        self.block_children: dict[int, list[int]] = {}
        for ch in changes:
            if ch.kind == "import":
                if ch.code not in self.imports:
                    self.imports.append(ch.code)
                continue
            if ch.kind == "insert_before":
                pending = self.inserts.setdefault(ch.target, [])
                if ch.code not in pending:  # two edits of a HOM inserting the same import: once
                    pending.append(ch.code)
            else:
                self.by_target.setdefault(ch.target, []).append(ch)
            keep.update(program.index.ancestors(ch.target))
            keep.add(ch.target)
        self.keep = keep

    def on_visit(self, node: cst.CSTNode) -> bool:
        return id(node) in self.keep

    def on_leave(self, original_node: cst.CSTNode, updated_node: cst.CSTNode):  # type: ignore[override]
        oid = id(original_node)
        if oid not in self.keep:
            return updated_node
        if isinstance(original_node, cst.Module | cst.IndentedBlock) and self.inserts:
            orig_ids = [id(s) for s in original_node.body]
            if any(i in self.inserts for i in orig_ids):
                updated_node = updated_node.with_changes(
                    body=_insert_before(updated_node.body, self.inserts, orig_ids)  # type: ignore[attr-defined]
                )
        if isinstance(original_node, cst.Module) and self.imports:
            updated_node = _add_imports(updated_node, self.imports)  # type: ignore[arg-type]
        changes = self.by_target.get(oid)
        if not changes:
            return updated_node
        arg_changes = [c for c in changes if c.kind in ("set_arg", "remove_arg")]
        for c in changes:
            if c.kind == "replace":
                new = _expr(c.code)
                if isinstance(updated_node, cst.BaseExpression) and (updated_node.lpar or updated_node.rpar):
                    new = new.with_changes(lpar=updated_node.lpar, rpar=updated_node.rpar)
                updated_node = new
        if arg_changes:
            if not isinstance(updated_node, cst.Call):
                raise MutationError("argument change on something that is not a call")
            updated_node = _apply_arg_changes(updated_node, arg_changes)
        return updated_node


def _add_imports(module: cst.Module, imports: list[str]) -> cst.Module:
    body = list(module.body)
    last = -1
    for i, stmt in enumerate(body):
        if isinstance(stmt, cst.SimpleStatementLine) and all(
            isinstance(s, cst.Import | cst.ImportFrom) for s in stmt.body
        ):
            last = i
        elif i == 0 and isinstance(stmt, cst.SimpleStatementLine) and isinstance(stmt.body[0], cst.Expr):
            last = 0  # module docstring
    new = [cst.parse_statement(code) for code in imports]
    return module.with_changes(body=[*body[: last + 1], *new, *body[last + 1 :]])


def overlap(program: Program, edits: Sequence[Edit]) -> str | None:
    """Why edits of a HOM overlap (None when they do not). Edits may share a call (their arguments
    merge), but when one replaces a node another edits inside (OCH replacing ``SGD(lr=0.1)`` while
    HLR edits its ``lr``) the inner edit is masked: the result equals a lower-order mutant."""
    if len(edits) < 2:
        return None
    replaced: dict[int, int] = {}
    for i, e in enumerate(edits):
        for c in e.changes:
            if c.kind == "replace":
                replaced[c.target] = i
    for i, e in enumerate(edits):
        for c in e.changes:
            if c.kind == "import":
                continue
            chain = (
                [c.target, *program.index.ancestors(c.target)]
                if c.kind != "replace"
                else [*program.index.ancestors(c.target)]
            )
            if c.kind == "replace" and c.target in replaced and replaced[c.target] != i:
                chain.append(c.target)
            for node in chain:
                j = replaced.get(node)
                if j is not None and j != i:
                    return f"edits overlap: {edits[j].operator} replaces code that {e.operator} edits"
    return None


def _import_line(program: Program) -> int:
    """The original line before which an added import appears (after the last top-level import)."""
    last = None
    for i, stmt in enumerate(program.module.body):
        if isinstance(stmt, cst.SimpleStatementLine) and (
            all(isinstance(s, cst.Import | cst.ImportFrom) for s in stmt.body)
            or (i == 0 and isinstance(stmt.body[0], cst.Expr))
        ):
            last = stmt
    return program.index.end_line(id(last)) + 1 if last is not None else 1


def _regions(program: Program, changes: list[Change]) -> list[tuple[int, int]]:
    out = []
    for ch in changes:
        if ch.kind == "import":
            line = _import_line(program)
            out.append((line, line))
            continue
        out.append((program.index.position(ch.target)[0], program.index.end_line(ch.target)))
    return out


def apply_edits(
    program: Program, edits: Sequence[Edit], *, seed: int = 0, name: str | None = None, strict: bool = False
) -> Mutant:
    """Combine first-order edits into one mutant (first order with one edit, a HOM with several).

    Raises :class:`MutationError` when the result changes nothing or does not parse, and with
    ``strict`` when edits overlap (see :func:`overlap`; otherwise the outer edit wins and the
    masked one leaves no trace, which callers such as hom-generate detect themselves).
    """
    if not edits:
        raise MutationError("no edit to apply")
    if strict:
        why = overlap(program, edits)
        if why:
            raise MutationError(why)
    changes = [c for e in edits for c in e.changes]
    try:
        new_module = program.module.visit(_Apply(program, changes))
    except cst.ParserSyntaxError as exc:
        raise MutationError(f"the mutant does not parse: {exc.message}") from None
    code = new_module.code  # type: ignore[attr-defined]
    if code == program.text:
        raise MutationError(f"{'+'.join(e.operator for e in edits)} changes nothing at this site")
    try:
        ast.parse(code)
    except SyntaxError as exc:
        raise MutationError(f"the mutant does not parse: {exc.msg} (line {exc.lineno})") from None
    if name is None:
        name = mutant_name(program.path, edits)
    prov = Provenance(
        original=program.path,
        original_sha256=program.sha256,
        mutant=name,
        parts=[e.part() for e in edits],
        seed=seed,
    )
    return Mutant(code=code, edits=list(edits), provenance=prov, regions=_regions(program, changes))


def _safe(text: str) -> str:
    return re.sub(r"[^A-Za-z0-9_.+-]+", "-", text).strip("-") or "x"


def mutant_name(path: str, edits: Sequence[Edit]) -> str:
    """``<stem>__<OP>_<site>_<value>.py`` (HOM parts joined with ``__``)."""
    import os

    stem = os.path.splitext(os.path.basename(path))[0] or "program"
    parts = [f"{e.operator}_{e.site.index}_{_safe(e.label or str(e.value))}" for e in edits]
    return f"{stem}__{'__'.join(parts)}.py"


# ---------------------------------------------------------------------------------------------------
# Operator base class
# ---------------------------------------------------------------------------------------------------


class Operator:
    """A mutation operator: finds sites in a program and builds edits there.

    Subclasses set ``id`` (a catalogue id, or their own for plugins together with ``spec``) and
    implement :meth:`find_sites` and :meth:`edit`. :meth:`apply` validates the value and returns
    the :class:`Edit`; :func:`apply_edits` turns edits into a mutant.
    """

    id: ClassVar[str] = ""
    #: operator-specific options and their defaults (``OCH``: keep_learning_rate)
    options: ClassVar[dict[str, Any]] = {}

    @property
    def spec(self) -> OperatorSpec:
        return load_catalogue()[self.id]

    @property
    def name(self) -> str:
        return self.spec.name

    @property
    def has_param(self) -> bool:
        return self.spec.param is not None

    # -- to implement -------------------------------------------------------------------------------
    def find_sites(self, program: Program) -> list[Site]:  # pragma: no cover - abstract
        raise NotImplementedError

    def edit(self, program: Program, site: Site, value: Any, options: Mapping[str, Any]) -> Edit:
        raise NotImplementedError  # pragma: no cover - abstract

    def examples(self) -> list[Example]:
        return []

    # -- public API ---------------------------------------------------------------------------------
    def sites(self, program: Program) -> list[Site]:
        """Applicable sites, ordered by file, line and column of the edited node, numbered from 0."""
        return program.sites(self)

    def values(self, program: Program, site: Site) -> list[Any]:
        """The values ``mutate --all`` writes at a site (the catalogue's list or grid)."""
        if self.spec.param is None:
            return [None]
        return [v for v in self.spec.param.candidates(site.original) if self.accepts(site, v)]

    def accepts(self, site: Site, value: Any) -> bool:
        """Whether ``value`` makes a real change at ``site`` (subclasses narrow it)."""
        return True

    def default_value(self, program: Program, site: Site) -> Any:
        vals = self.values(program, site)
        if not vals:
            raise MutationError(f"{self.id}: no value applies at site {site.index}")
        return vals[0]

    def apply(
        self,
        program: Program,
        site: Site | int,
        value: Any = None,
        *,
        any_value: bool = False,
        **options: Any,
    ) -> Edit:
        """The edit of this operator at ``site`` (a :class:`Site` or its number) with ``value``.

        ``value`` None means the operator's first catalogue value for the site; it is validated
        against the catalogue's parameter spec otherwise. ``any_value`` admits string values
        outside DeepCrime's list (a real fault's ``'leaky_relu'`` or ``'sparse_categorical_crossentropy'``,
        for validate-operators); they are still type-checked and must change the site.
        """
        sites = self.sites(program)
        if isinstance(site, int):
            if not 0 <= site < len(sites):
                raise MutationError(
                    f"{self.id} has {len(sites)} site(s) in {program.path}; no site {site}"
                    if sites
                    else f"{self.id} does not apply to {program.path}"
                )
            site = sites[site]
        if self.spec.param is None:
            value = None
        elif value is None:
            value = self.default_value(program, site)
        else:
            try:
                if any_value and self.spec.param.kind == "categorical" and self.spec.param.type == "str":
                    value = str(value)
                else:
                    value = self.spec.param.validate(value)
            except ValueError as exc:
                raise MutationError(f"{self.id}: {exc}") from None
            if not self.accepts(site, value):
                raise MutationError(
                    f"{self.id}: value {value!r} does not apply at site {site.index} (see --list)"
                )
        opts = {**self.options, **options}
        unknown = set(options) - set(self.options)
        if unknown:
            raise MutationError(f"{self.id}: unknown option(s) {', '.join(sorted(unknown))}")
        return self.edit(program, site, value, opts)

    def mutant(self, program: Program, site: Site | int = 0, value: Any = None, **options: Any) -> Mutant:
        """Shortcut: a first-order mutant."""
        return apply_edits(program, [self.apply(program, site, value, **options)])

    def __repr__(self) -> str:
        return f"<operator {self.id}>"


def number_text(value: float | int) -> str:
    """Source text of a number (``0.01``, ``1e-05``, ``32``)."""
    if isinstance(value, bool):
        return repr(value)
    if isinstance(value, int):
        return str(value)
    f = float(value)
    if f.is_integer() and abs(f) < 1e15:
        return repr(f)
    return repr(float(f"{f:.6g}"))
