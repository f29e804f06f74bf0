"""The statement diff of a pair: which statements of the two sides changed, were added or removed.

Why: diff coverage (:mod:`mutreal.compare.coverage`) checks each changed statement against the
components, so the diff must pair a changed statement with its counterpart as a reader would: by
likeness in order, a statement moved unchanged is no change, a statement wrapped in a call put
around it (or taken out of one) is one change, and a statement the same but for consistently
renamed variables is noise (rule renamed_variables), while names that change places are not.
"""

from __future__ import annotations

import ast
import difflib
import re
from dataclasses import dataclass

from mutreal.compare.statements import Statement, anonymous, parse_statement


@dataclass
class StatementChange:
    """A changed statement of the diff: one statement of each side (changed), or of one side."""

    buggy: Statement | None
    fixed: Statement | None

    @property
    def change(self) -> str:
        return "added" if self.buggy is None else "removed" if self.fixed is None else "changed"

    def text(self) -> str:
        return " ".join(s.text for s in (self.buggy, self.fixed) if s is not None)


# ---------------------------------------------------------------------------------------------------
# The statement diff
# ---------------------------------------------------------------------------------------------------


def _pair_block(bs: list[Statement], fs: list[Statement]) -> list[StatementChange]:
    """Pairs the statements of a replaced block: each buggy statement with its most similar fixed
    one (ratio >= 0.5, in order); the rest are removed or added."""
    out: list[StatementChange] = []
    j = 0
    used: set[int] = set()
    for b in bs:
        best, best_ratio = None, 0.5
        for k in range(j, len(fs)):
            matcher = difflib.SequenceMatcher(None, b.text, fs[k].text, autojunk=False)
            # the cheap upper bounds first: most candidates are far from the best so far
            if matcher.real_quick_ratio() <= best_ratio or matcher.quick_ratio() <= best_ratio:
                continue
            ratio = matcher.ratio()
            if ratio > best_ratio:
                best, best_ratio = k, ratio
        if best is None:
            out.append(StatementChange(b, None))
            continue
        for k in range(j, best):
            out.append(StatementChange(None, fs[k]))
            used.add(k)
        out.append(StatementChange(b, fs[best]))
        used.add(best)
        j = best + 1
    out += [StatementChange(None, fs[k]) for k in range(j, len(fs)) if k not in used]
    return out


#: the shortest call a statement wrapped in another (or taken out of one) is paired by
_WRAPPED_MIN = 8


def _wrapped(b: Statement, f: Statement) -> bool:
    """The fixed statement holds the buggy one's whole text inside a call put around it, or is
    held so in it (``table.insert(k, v)`` against ``sess.run(table.insert(k, v))``): one
    statement changed, which the likeness ratio misses when the call around it doubles its
    length. Simple statements holding a call only."""
    short, long_ = sorted((b.text, f.text), key=len)
    return (
        len(short) >= _WRAPPED_MIN
        and "(" in short
        and short != long_
        and short in long_
        and b.end <= b.last
        and f.end <= f.last
        and re.search(rf"[(,]\s*{re.escape(short)}\s*[),]", long_) is not None  # an argument of the call
    )


def statement_changes(buggy: list[Statement], fixed: list[Statement]) -> list[StatementChange]:
    """The changed statements of two sides (noise statements left out before the diff)."""
    bs = [s for s in buggy if s.noise is None]
    fs = [s for s in fixed if s.noise is None]
    out: list[StatementChange] = []
    # statements written the same read the same: only where the written texts differ are the
    # normalised texts read and compared (most of a fix leaves most of the program as it was)
    written = difflib.SequenceMatcher(None, [s.written for s in bs], [s.written for s in fs], autojunk=False)
    for op, i1, i2, j1, j2 in written.get_opcodes():
        if op == "equal":
            continue
        b_block, f_block = bs[i1:i2], fs[j1:j2]
        matcher = difflib.SequenceMatcher(None, [s.text for s in b_block], [s.text for s in f_block], autojunk=False)
        for op2, k1, k2, l1, l2 in matcher.get_opcodes():
            if op2 != "equal":
                out += _pair_block(b_block[k1:k2], f_block[l1:l2])
    return _moved(out)


#: the last pair's statement diff: classify covers a graph pair twice (before and after its
#: best-code components), over the same two statement lists; held with the lists themselves, so
#: their identities stay theirs while it is held
_LAST_DIFF: list[tuple[list[Statement], list[Statement], list[StatementChange]]] = []


def changes_of(buggy: list[Statement], fixed: list[Statement]) -> list[StatementChange]:
    """:func:`statement_changes`, read again from the last call when the lists are the same."""
    if _LAST_DIFF and _LAST_DIFF[0][0] is buggy and _LAST_DIFF[0][1] is fixed:
        return list(_LAST_DIFF[0][2])
    changes = statement_changes(buggy, fixed)
    _LAST_DIFF[:] = [(buggy, fixed, list(changes))]
    return changes


def _moved(changes: list[StatementChange]) -> list[StatementChange]:
    """A statement removed in one place and added, the same, in another is moved: the order of
    independent statements (a function defined after its use, a variable set earlier) is no change
    of the program the study counted."""
    removed: dict[str, list[int]] = {}
    for i, c in enumerate(changes):
        if c.fixed is None and c.buggy is not None:
            removed.setdefault(c.buggy.text, []).append(i)
    drop: set[int] = set()
    for i, c in enumerate(changes):
        if c.buggy is None and c.fixed is not None and removed.get(c.fixed.text):
            drop.add(removed[c.fixed.text].pop())
            drop.add(i)
    kept = [c for i, c in enumerate(changes) if i not in drop]
    # a statement taken out and put back inside a call (or out of one), elsewhere in the block
    # or after statements both sides have: one changed statement, at the fixed one's place
    out: list[StatementChange] = []
    paired: dict[int, StatementChange] = {}
    gone = [i for i, c in enumerate(kept) if c.fixed is None]
    for i, c in enumerate(kept):
        if c.buggy is not None or c.fixed is None:
            continue
        match = next((g for g in gone if g not in paired and _wrapped(kept[g].buggy, c.fixed)), None)  # type: ignore[arg-type]
        if match is not None:
            paired[match] = StatementChange(kept[match].buggy, c.fixed)
            paired[i] = paired[match]
    for i, c in enumerate(kept):
        if i not in paired:
            out.append(c)
        elif c.fixed is not None:
            out.append(paired[i])
    return out


def renamed(change: StatementChange) -> bool:
    """Rule ``renamed_variables`` on statements: the same but for the names of variables (strings,
    numbers and attributes kept, unlike the rule's text form, which also hides string constants)."""
    b, f = change.buggy, change.fixed
    if b is None or f is None or anonymous(b.text) != anonymous(f.text):
        return False
    if _imported_api(b) != _imported_api(f):
        return False  # another imported function or class (``K.tanh`` -> ``K.sigmoid``): no rename
    return not _swapped(b.text, f.text)


def _imported_api(statement: Statement) -> frozenset[str]:
    """What a statement reads of the modules and names its file imports: the attribute read of a
    module (``tanh`` of ``K.tanh``) and the imported names read bare (``Model``, ``Layer``), the
    module's alias aside (``np.array`` and ``numpy.array`` are one function). The normalised text
    drops module paths, so without this a changed API call reads as a renamed variable."""
    roots = {r.split(".")[0] for r in statement.reads if "." in r}
    out = {
        r.split(".", 1)[1].split(".")[-1]
        for r in statement.reads
        if "." in r and r.split(".")[0] in statement.modules
    }
    out |= {r for r in statement.reads if "." not in r and r in statement.modules and r not in roots}
    return frozenset(out)


def _names_in_order(text: str) -> list[str]:
    tree = parse_statement(text)
    if tree is None:
        return []
    # ``self`` and ``cls`` are the object, not a variable a rename renames
    names = [n for n in ast.walk(tree) if isinstance(n, ast.Name) and n.id not in ("self", "cls")]
    return [n.id for n in sorted(names, key=lambda n: (n.lineno, n.col_offset))]


def _swapped(before: str, after: str) -> bool:
    """Two statements the same but for their names, where the names changed places (``conv2d(x,
    w)`` against ``conv2d(w, x)``) or one stands for two: another argument handed over, no rename."""
    b, f = _names_in_order(before), _names_in_order(after)
    if len(b) != len(f):
        return False
    mapping: dict[str, str] = {}
    for x, y in zip(b, f, strict=True):
        if mapping.setdefault(x, y) != y:
            return True  # one name read as two
    if len(set(mapping.values())) < len(mapping):
        return True  # two names read as one
    return any(x != y and mapping.get(y, y) != y for x, y in mapping.items())


def operands_reordered(change: StatementChange) -> bool:
    """Whether a changed statement hands a call the same positional arguments in another order
    (``tf.nn.conv2d(phi, x)`` against ``tf.nn.conv2d(x, phi)``). The passes model a graph op by its
    settings, not by which tensor is its input and which its filter, so such a statement must not
    count as compared equal: it stays a change (a swapped input and filter is a fault both readers
    name)."""
    b, f = change.buggy, change.fixed
    if b is None or f is None:
        return False
    before, after = parse_statement(b.text), parse_statement(f.text)
    if before is None or after is None:
        return False
    calls_b = [n for n in ast.walk(before) if isinstance(n, ast.Call)]
    calls_f = [n for n in ast.walk(after) if isinstance(n, ast.Call)]
    if len(calls_b) != len(calls_f):
        return False
    for cb, cf in zip(calls_b, calls_f, strict=True):
        args_b = [ast.unparse(a) for a in cb.args]
        args_f = [ast.unparse(a) for a in cf.args]
        if len(args_b) > 1 and args_b != args_f and sorted(args_b) == sorted(args_f):
            return True
    return False

