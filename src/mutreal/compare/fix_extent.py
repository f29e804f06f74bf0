"""Which changed statements a fix takes with it: the statements a component points into, and
those that go with them.

Why a module of its own: :mod:`mutreal.compare.coverage` counts a changed statement as explained
when a component's fix takes it, and what a fix takes is one question with its own rules: a value
the changed part of an explained statement reads (:func:`changed_reads`: not every name the
statement reads, else a change to ``x_train`` would ride on a fix of ``fit(x_train, epochs=...)``'s
epochs), a literal or a parameter's default read by a statement a component points into, the loop
whose passes a training budget counted, a branch put around the fix's statements, a feed matched
to a placeholder the fix changed (decision one-inconsistency-one-component).
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterable
from typing import Any

from mutreal.compare.statement_diff import StatementChange
from mutreal.compare.statements import Statement, parse_statement
from mutreal.decisions import DecisionId as D
from mutreal.decisions import applies


def hit(statement: Statement | None, lines: set[tuple[str, int]]) -> bool:
    if statement is None:
        return False
    return any((statement.file, n) in lines for n in range(statement.line, statement.last + 1))


def _read_names(node: ast.AST) -> set[str]:
    """The names and dotted names ``node`` reads (as :attr:`Statement.reads` spells them)."""
    out: set[str] = set()
    for n in ast.walk(node):
        if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load):
            out.add(n.id)
        elif isinstance(n, ast.Attribute) and isinstance(n.ctx, ast.Load):
            parts: list[str] = []
            v: ast.AST = n
            while isinstance(v, ast.Attribute):
                parts.append(v.attr)
                v = v.value
            if isinstance(v, ast.Name):
                out.add(".".join([v.id, *reversed(parts)]))
    return out


def _differing(a: object, b: object, out: tuple[set[str], set[str]]) -> None:
    """Adds to ``out`` the names each side reads in the smallest sub-trees where ``a`` and ``b``
    differ: two nodes of one type are read field by field (lists of one length item by item); a
    node whose own value differs (a name, an operator, a constant) or whose type does, whole."""
    if isinstance(a, ast.AST) and isinstance(b, ast.AST) and type(a) is type(b):
        if ast.dump(a) == ast.dump(b):
            return
        pairs: list[tuple[object, object]] = []
        for name in a._fields:
            x, y = getattr(a, name, None), getattr(b, name, None)
            if isinstance(x, list) and isinstance(y, list) and len(x) == len(y):
                pairs += zip(x, y, strict=True)
            elif isinstance(x, ast.AST) and isinstance(y, ast.AST):
                pairs.append((x, y))
            elif (isinstance(x, ast.AST | list) or isinstance(y, ast.AST | list)) or x != y:
                break  # the node itself differs
        else:
            for x, y in pairs:
                _differing(x, y, out)
            return
    for v, side in ((a, out[0]), (b, out[1])):
        if isinstance(v, ast.AST):
            side |= _read_names(v)


def changed_reads(change: StatementChange) -> tuple[frozenset[str], frozenset[str]]:
    """The names each side reads in the part of a statement the fix changed: all it reads for a
    statement one side only has. Why: a value the change reads comes with the change (``n`` in
    ``Dense(n)`` -> ``Dense(n * 2)``); one it reads in a part both sides keep does not
    (``x_train`` in ``fit(x_train, y, epochs=10)`` -> ``epochs=1``: a change to ``x_train`` is
    no part of the epochs' fix)."""
    b, f = change.buggy, change.fixed
    if b is None or f is None:
        return (b.reads if b else frozenset()), (f.reads if f else frozenset())
    trees = parse_statement(b.text), parse_statement(f.text)
    if trees[0] is None or trees[1] is None:
        return b.reads, f.reads
    out: tuple[set[str], set[str]] = (set(), set())
    _differing(trees[0], trees[1], out)
    return frozenset(out[0]), frozenset(out[1])


#: a header that chooses whether its body runs, or in which context: not how often
_BRANCH_HEADER = re.compile(r"^(if|elif|else|with|try)\b")


@applies(D.ONE_INCONSISTENCY)
def header_of_fix(change: StatementChange, kept: list[StatementChange], explained: list[bool]) -> bool:
    """A compound header one side only has (a branch, a loop, a ``with``) whose body's changed
    statements on that side are all explained, and there is one: the fix put its statements under
    it or took them out of it (``if activation is not None:`` around the activation the fix
    added), one edit with them. A header both sides have, changed, is a change of its own, and so
    is a loop put around statements or taken from them: how often they run is a training budget."""
    if change.change == "changed":
        return False
    st = change.buggy or change.fixed
    assert st is not None
    if st.end <= st.last or not _BRANCH_HEADER.match(st.written):
        return False
    on_buggy = change.fixed is None
    inside = [
        e
        for c, e in zip(kept, explained, strict=True)
        if (one := (c.buggy if on_buggy else c.fixed)) is not None
        and one is not st
        and one.file == st.file
        and st.last < one.line <= st.end
    ]
    return bool(inside) and all(inside)


@applies(D.ONE_INCONSISTENCY)
def in_function_of_fix(change: StatementChange, kept: list[StatementChange], explained: list[bool]) -> bool:
    """A statement one side only has inside a function or class that side only has, whose header
    is explained: the fix added or removed the function whole, one edit with its body (the body of
    a ``def body(i, y):`` a ``while_loop`` no longer calls goes with it)."""
    if change.change == "changed":
        return False
    on_buggy = change.fixed is None
    st = change.buggy if on_buggy else change.fixed
    assert st is not None
    for c, e in zip(kept, explained, strict=True):
        head = c.buggy if on_buggy else c.fixed
        other = c.fixed if on_buggy else c.buggy
        if (
            e
            and other is None
            and head is not None
            and head.defines
            and head.file == st.file
            and head.last < st.line <= head.end
        ):
            return True
    return False


class _HideFeeds(ast.NodeTransformer):
    """Puts ``...`` for the value of each dict entry keyed by one of ``names``."""

    def __init__(self, names: set[str]) -> None:
        self.names = names

    def visit_Dict(self, node: ast.Dict) -> ast.AST:
        self.generic_visit(node)
        node.values = [
            ast.Constant(...) if isinstance(k, ast.Name | ast.Attribute) and ast.unparse(k) in self.names else v
            for k, v in zip(node.keys, node.values, strict=True)
        ]
        return node


@applies(D.ONE_INCONSISTENCY)
def matched_feed(change: StatementChange, done: list[StatementChange]) -> bool:
    """A changed statement whose only change is what it feeds to names an explained statement
    binds on each side (``feed_dict={labels_: y[:, None]}`` -> ``{labels_: y}`` where the fix
    changed the ``labels_`` placeholder): the feed restored to the placeholder's shape is the
    same inconsistency repaired, one component with the placeholder."""
    if change.buggy is None or change.fixed is None:
        return False
    names = {
        b
        for c in done
        for st in (c.buggy, c.fixed)
        if st is not None
        for b in st.binds
    }
    if not names:
        return False
    trees = [parse_statement(st.text) for st in (change.buggy, change.fixed)]
    if any(t is None for t in trees):
        return False
    hidden = [ast.unparse(_HideFeeds(names).visit(t)) for t in trees]
    return hidden[0] == hidden[1] and change.buggy.text != change.fixed.text


def feeds_component(
    statement: Statement | None,
    side: list[Statement],
    lines: set[tuple[str, int]],
    changed: dict[int, frozenset[str]] | None = None,
) -> bool:
    """A changed statement binding a name that a statement a component points into reads: in the
    part the fix changed where that statement is itself changed (``changed``: its id -> what its
    changed part reads, :func:`changed_reads`); where it is not, a literal it reads (the value
    moved into a variable: ``n = 128`` read by an unchanged ``Dense(n)``, or into a parameter's
    default: ``def build(lr=0.01)``), not any value it reads
    (``x = x * 3`` is no part of a fix of ``fit(x, epochs=m)``'s epochs)."""
    if statement is None or not statement.binds:
        return False
    if changed is None:
        return any(s is not statement and hit(s, lines) and bool(s.reads & statement.binds) for s in side)
    pointed = [s for s in side if s is not statement and hit(s, lines)]
    # a loop around a statement a component points into: how often it runs is that element's too
    # (``for i in range(epochs): model.fit(x, y, epochs=1)``: the epochs a training budget reads)
    pointed += [
        o
        for o in side
        if o is not statement
        and _LOOP_HEADER.match(o.written)
        and any(o.file == s.file and o.last < s.line <= o.end for s in pointed)
    ]
    return any(
        (id(s) in changed or statement.literal or bool(statement.defines))
        and bool(changed.get(id(s), s.reads) & statement.binds)
        for s in pointed
    )


_LOOP_HEADER = re.compile(r"^(for|while)\b")


#: a component that counted the passes of a loop around its statement (``1000 (x100 loop)``)
_LOOP_COUNT = re.compile(r"\(x\S+ loop\)")


def counted_loops(components: Iterable[Any], side: list[Statement], name: str) -> set[tuple[str, int]]:
    """The header lines of the loops whose passes a component counted (its text shows ``(xN
    loop)``: a training budget read as epochs times passes) around the statement it points into
    on side ``name``: the loop's count is that component's element."""
    out: set[tuple[str, int]] = set()
    for c in components:
        if not any(isinstance(t, str) and _LOOP_COUNT.search(t) for t in (c.before, c.after)):
            continue
        file, line = getattr(c, f"{name}_file", None), getattr(c, f"{name}_line", None)
        if not (file and line):
            continue
        out |= {
            (o.file, o.line)
            for o in side
            if o.file == file and _LOOP_HEADER.match(o.written) and o.last < line <= o.end
        }
    return out


def component_names(components: Iterable[Any]) -> set[str]:
    """The bare names a component shows as a side's text (``hm_epochs``): the statement binding
    such a name holds the value the component compared."""
    return {
        t.strip()
        for c in components
        for t in (c.before, c.after)
        if isinstance(t, str) and re.fullmatch(r"[A-Za-z_][\w.]*", t.strip())
    }


def component_lines(
    components: Iterable[Any], files: tuple[str | None, str | None] = (None, None)
) -> tuple[set[tuple[str, int]], set[tuple[str, int]]]:
    """The lines of each side the components point into: their own, and those of the other
    statements of their fix (``detail`` ``buggy_lines``/``fixed_lines``), read in the component's
    file of that side or, for a component with no line there (a group whose first change was
    added, with removed statements in it), in the pair's file of that side (``files``)."""
    blines: set[tuple[str, int]] = set()
    flines: set[tuple[str, int]] = set()
    for c in components:
        detail = getattr(c, "detail", None) or {}
        if c.buggy_file and c.buggy_line:
            blines.add((c.buggy_file, c.buggy_line))
        bfile = c.buggy_file or files[0]
        if bfile:
            blines.update((bfile, n) for n in detail.get("buggy_lines") or ())
        if c.fixed_file and c.fixed_line:
            flines.add((c.fixed_file, c.fixed_line))
        ffile = c.fixed_file or files[1]
        if ffile:
            flines.update((ffile, n) for n in detail.get("fixed_lines") or ())
    return blines, flines
