"""The benchmark's own edits beside the fix: values it wrote in where the post read them from
outside, and a post it cut down to what shows the fault.

Why: a benchmark makes a posted program run on its own; those edits are no fault and no fix, and
counting them as unexplained changes would hide the recall gaps the coverage figure is there to
show. Each is a decision of the table: completed-snippet-values (the study's 4.2.1: values the post
never showed), cut-program (statements after a crash that never ran, dropped).
"""

from __future__ import annotations

import ast
import re

from mutreal.compare.statement_diff import StatementChange
from mutreal.compare.statements import Statement, parse_statement
from mutreal.decisions import DecisionId as D
from mutreal.decisions import applies

#: more statements than this make an edit a rewrite or a cut, never a few lines of a fix
REWRITE_MIN = 4


#: a value read from outside the program: a configuration file, the command line, the environment
_OUTSIDE_VALUE = re.compile(
    r"\b(json\.loads?|yaml\.(safe_|full_)?load|toml\.loads?|configparser\.\w+|input)\(|\bsys\.argv\b|\bos\.environ\b"
)


def _outside(node: ast.AST, names: set[str]) -> bool:
    """``node`` is a value read from outside: a name of ``names``, a subscript of one of them
    (``params['batch_size']``) or of the command line (``sys.argv[1]``), or such a value converted
    (``int(sys.argv[1])``)."""
    if isinstance(node, ast.Name):
        return node.id in names and isinstance(node.ctx, ast.Load)
    if isinstance(node, ast.Subscript):
        base = ast.unparse(node.value)
        return base in names or base == "sys.argv"
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in {"int", "float", "str", "bool"}:
        return len(node.args) == 1 and not node.keywords and _outside(node.args[0], names)
    return False


def _written_in(node: ast.AST, literals: set[str]) -> bool:
    """``node`` is a value the fix wrote in: a literal, in place or bound to a name of ``literals``."""
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
        node = node.operand
    if isinstance(node, ast.Name):
        return node.id in literals
    return isinstance(node, ast.Constant)


def _counterpart(b: ast.AST, f: ast.AST, outside: set[str], literals: set[str]) -> bool:
    """The fixed side's ``f`` is the buggy side's ``b`` with each value read from outside replaced by
    a value written in, and nothing else changed: the post's own literals must stay as they were
    (a kernel size changed beside ``params['filters']`` is a change of the program, not a value
    the post never showed)."""
    if _outside(b, outside):
        return _written_in(f, literals)
    if type(b) is not type(f):
        return False
    for field in b._fields:
        if field == "ctx":
            continue
        x, y = getattr(b, field, None), getattr(f, field, None)
        if isinstance(x, list):
            if not isinstance(y, list) or len(x) != len(y):
                return False
            if not all(_counterpart(u, v, outside, literals) if isinstance(u, ast.AST) else u == v for u, v in zip(x, y, strict=True)):
                return False
        elif isinstance(x, ast.AST):
            if not isinstance(y, ast.AST) or not _counterpart(x, y, outside, literals):
                return False
        elif x != y:
            return False
    return True


@applies(D.COMPLETED_SNIPPET_VALUES)
def written_in(changes: list[StatementChange], buggy: list[Statement], fixed: list[Statement]) -> set[int]:
    """Indices of changes that write in values the posted program read from outside it (a
    parameters file, the command line, the environment): the benchmark completed the snippet with
    values the post never showed (the study's 4.2.1), so no value can be compared. The statement
    reading them, removed (``params = json.loads(open('parameters.json').read())``), where the
    fixed program reads none of the names it binds or binds them otherwise; and each changed
    statement that is its counterpart with each outside value replaced by a value written in (a
    literal in place, or a name bound to a literal: ``params['batch_size']`` -> ``batch_size`` with
    ``batch_size = 64`` added) and nothing else changed (:func:`_counterpart`: the post's own
    literals beside an outside value are compared, not blanked). Values in the program itself (a
    flag's or an argument's default) are compared as any other."""
    outside = {b for st in buggy if _OUTSIDE_VALUE.search(st.written) and st.end <= st.last for b in st.binds}
    if not outside:
        return set()
    freads = {r.split(".")[0] for st in fixed for r in st.reads}
    fbinds = {b for st in fixed for b in st.binds}
    # names the fix binds to a literal that the post never bound: the values written in
    literals = {b for st in fixed if st.literal for b in st.binds} - {b for st in buggy for b in st.binds}
    out: set[int] = set()
    for i, c in enumerate(changes):
        b, f = c.buggy, c.fixed
        if b is None:
            continue
        if f is None:
            if b.binds and b.binds <= outside and (not b.binds & freads or b.binds <= fbinds):
                out.add(i)
            continue
        if not ({r.split(".")[0] for r in b.reads} & outside or "sys.argv" in b.written):
            continue
        trees = parse_statement(b.text), parse_statement(f.text)
        if trees[0] is None or trees[1] is None:
            continue
        if _counterpart(trees[0], trees[1], outside, literals):
            out.add(i)
    # the literal assignments the written-in statements read (``batch_size = 64``)
    written = {r for i in out if (f := changes[i].fixed) is not None for r in f.reads}
    for i, c in enumerate(changes):
        f = c.fixed
        if c.buggy is None and f is not None and f.literal and f.binds and f.binds <= literals & written:
            out.add(i)
    return out


@applies(D.CUT_PROGRAM)
def cut_program(new: int, program: int, gone: int, posted: int) -> bool:
    """Decision cut-program: the fix drops or changes more than half of the buggy program (``gone``
    of its ``posted`` statements, more than :data:`REWRITE_MIN`) and writes at most a few statements
    anew (``new`` of ``program``, at most :data:`REWRITE_MIN` and under half): a benchmark that cut the
    post down to what shows the fault (the statements after a crash never ran). Its components are
    read as always; the removed statements no component explains are that cut, counted as
    ``cut_program``; what the fix changed or added stays a change."""
    return gone > REWRITE_MIN and gone * 2 > posted and new <= REWRITE_MIN and new * 2 < program


#: a model or graph restored from a file the post saved earlier: its weights, its graph, a tensor of it
_RESTORE = re.compile(
    r"\b(load_weights|load_model|import_meta_graph|restore|get_tensor_by_name|get_operation_by_name|"
    r"latest_checkpoint)\(|^\w+ = (tf\.)?Graph\(\)$"
)


@applies(D.RESTORED_MODEL_NOISE)
def restored_model(changes: list[StatementChange], buggy: list[Statement], fixed: list[Statement]) -> set[int]:
    """Indices of changes that take out (or put in) a model restored from a saved file: a
    benchmark ships no checkpoint of the post's earlier runs, so it drops the restoring
    (``model.load_weights('first_try.h5')``, ``tf.train.import_meta_graph(...)``, a tensor got by
    name from the loaded graph) and what reads only the restored graph (``tf.Session(graph=loaded)``
    -> ``tf.Session()``, a run fetching a restored tensor). Initial weights the program computes
    itself are compared as always (decision WCI-set-weights)."""
    restored = {b for st in buggy if _RESTORE.search(st.written) for b in st.binds}
    grown = True
    while grown:  # what is got from the restored graph is restored too
        more = {
            b
            for st in buggy
            if {r.split(".")[0] for r in st.reads} & restored and _RESTORE.search(st.written)
            for b in st.binds
        }
        grown = not more <= restored
        restored |= more
    out: set[int] = set()
    for i, c in enumerate(changes):
        b, f = c.buggy, c.fixed
        one = b if f is None else f if b is None else None
        if one is not None:
            if _RESTORE.search(one.written) and not (one.binds - restored - {"sess"}) or (
                b is not None and b.binds and b.binds <= restored
            ):
                out.add(i)
            continue
        assert b is not None and f is not None
        broots = {r.split(".")[0] for r in b.reads}
        froots = {r.split(".")[0] for r in f.reads}
        if broots & restored and not froots & restored and broots - restored <= froots | {"tf"}:
            out.add(i)  # the restored graph or tensor dropped from a statement both sides keep
    return out
