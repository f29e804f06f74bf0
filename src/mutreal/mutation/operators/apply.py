"""Applying edits: any number of first-order edits become one mutant in one targeted pass.

Why a module: operators only *describe* changes (:class:`~mutreal.mutation.operators.records.Change`
keyed on node ids); :func:`apply_edits` applies them in one transformer pass that descends only
into the ancestors of the edited nodes, so everything else stays byte-identical, and checks that
the result changed and parses.
"""

from __future__ import annotations

import ast
import os
import re
from collections.abc import Mapping, Sequence

import libcst as cst

from mutreal.mutation.operators.program import Program
from mutreal.mutation.operators.records import Change, Edit, Mutant, MutationError, Provenance


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
        self.import_at = import_position(program, changes)

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
            updated_node = _add_imports(updated_node, self.imports, self.import_at)  # type: ignore[arg-type]
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


def _is_import_line(stmt: cst.CSTNode) -> bool:
    return isinstance(stmt, cst.SimpleStatementLine) and all(
        isinstance(s, cst.Import | cst.ImportFrom) for s in stmt.body
    )


def _is_docstring(i: int, stmt: cst.CSTNode) -> bool:
    return (
        i == 0
        and isinstance(stmt, cst.SimpleStatementLine)
        and isinstance(stmt.body[0], cst.Expr)
        and isinstance(stmt.body[0].value, cst.SimpleString | cst.ConcatenatedString)
    )


def import_position(program: Program, changes: Sequence[Change]) -> int:
    """Where the imports a mutant adds go: the index of the module statement they are put before.

    Why this place: an added import must bind its name before the first statement that uses it
    (the earliest edited node of all the edits, so one rule serves first-order mutants and HOMs).
    It goes right after the last top-level import that precedes that statement, so it joins the
    module's imports as read up to there: not below a result block that imports ``json`` after
    training (Defects4ML), and not above an ``os.environ[...] = ...`` that a program sets before
    its framework imports. With no import before the use, it goes after the docstring and any
    ``from __future__`` line (which must stay first)."""
    body = list(program.module.body)
    tops = {id(stmt): i for i, stmt in enumerate(body)}
    first_use = len(body)
    for ch in changes:
        if ch.kind == "import":
            continue
        for nid in [ch.target, *program.index.ancestors(ch.target)]:
            if nid in tops:
                first_use = min(first_use, tops[nid])
                break
    at = 0
    for i, stmt in enumerate(body[:first_use]):
        if _is_import_line(stmt) or _is_docstring(i, stmt):
            at = i + 1
    return at


def _add_imports(module: cst.Module, imports: list[str], at: int) -> cst.Module:
    body = list(module.body)
    new = [cst.parse_statement(code) for code in imports]
    if at == 0 and body:
        # before the first statement: its leading comments (a shebang, a licence) stay on top
        lead = getattr(body[0], "leading_lines", ())
        if lead:
            new[0] = new[0].with_changes(leading_lines=lead)
            body[0] = body[0].with_changes(leading_lines=())
    return module.with_changes(body=[*body[:at], *new, *body[at:]])


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


def _import_line(program: Program, changes: Sequence[Change]) -> int:
    """The original line before which an added import appears (see :func:`import_position`)."""
    body = program.module.body
    at = import_position(program, changes)
    if at == 0:
        return 1
    return program.index.end_line(id(body[at - 1])) + 1


def _regions(program: Program, changes: list[Change]) -> list[tuple[int, int]]:
    out = []
    for ch in changes:
        if ch.kind == "import":
            line = _import_line(program, changes)
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
    return Mutant(
        code=code,
        edits=list(edits),
        provenance=prov,
        regions=_regions(program, changes),
        encoding=getattr(program, "encoding", "utf-8"),
    )


def _safe(text: str) -> str:
    return re.sub(r"[^A-Za-z0-9_.+-]+", "-", text).strip("-") or "x"


def mutant_name(path: str, edits: Sequence[Edit]) -> str:
    """``<stem>__<OP>_<site>_<value>.py`` (HOM parts joined with ``__``)."""
    stem = os.path.splitext(os.path.basename(path))[0] or "program"
    parts = [f"{e.operator}_{e.site.index}_{_safe(e.label or str(e.value))}" for e in edits]
    return f"{stem}__{'__'.join(parts)}.py"
