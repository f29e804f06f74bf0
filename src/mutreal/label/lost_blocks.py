"""Components a tolerant parse made up: lines it set aside, and the bodies of control-flow headers.

A manifest run reads a file that does not parse by setting aside the lines the parser rejects
(:mod:`mutreal.program.source`). A set-aside line is missing from the reading; when it is the
header of a block (``if x == "relu":``, ``else:``, ``for i in range(n):``), its body is still read,
but unconditionally and once: the tolerant reading of ``if a: return f(z)`` / ``elif b: return
g(z)`` returns ``f(z)`` whatever ``a`` is, where the program as written (and as the study read it)
takes the branch its arguments choose. A component whose every line is written the same in the
other program (the fix did not edit it) and lies, or has its counterpart, where the reading lost
the program (a set-aside line, the body of a set-aside control-flow header) is that reading, not
the fix: it is left out (decision lost-block-noise). A ``with`` header set aside loses nothing (its
body runs once either way), so its body counts as read.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from mutreal.decisions import DecisionId as D
from mutreal.decisions import applies

if TYPE_CHECKING:
    from mutreal.compare import FaultComponent
    from mutreal.program.source import ParsedSource

#: headers whose body runs conditionally or repeatedly (or not at once: def, class)
_CONTROL_HEADER = re.compile(
    r"^\s*(if|elif|else|for|while|try|except|finally|def|class|async)\b.*:\s*(#.*)?$"
)


def lost_lines(parsed: ParsedSource) -> set[int]:
    """The lines (1-based) in the bodies of control-flow headers the tolerant parse set aside."""
    aside = {s.line: s.text for s in parsed.set_aside}
    lines = parsed.text.splitlines()
    out: set[int] = set()
    for number, header in aside.items():
        if not _CONTROL_HEADER.match(header):
            continue
        indent = len(header) - len(header.lstrip())
        for n in range(number + 1, len(lines) + 1):
            text = aside.get(n, lines[n - 1])
            if not text.strip():
                continue
            if len(text) - len(text.lstrip()) <= indent:
                break
            out.add(n)
    return out


def _stripped(parsed: ParsedSource) -> dict[int, str]:
    """Every line's text without its indentation, set-aside lines as they were written."""
    lines = {n: t.strip() for n, t in enumerate(parsed.text.splitlines(), start=1)}
    lines.update({s.line: s.text.strip() for s in parsed.set_aside})
    return lines


def _lost(parsed: ParsedSource) -> set[int]:
    return lost_lines(parsed) | {s.line for s in parsed.set_aside}


@applies(D.LOST_BLOCK_NOISE)
def made_up_by_parse(
    component: FaultComponent, buggy: ParsedSource | None, fixed: ParsedSource | None
) -> bool:
    """Decision lost-block-noise (module docstring): every line a component is located on is written the
    same in the other program (the fix did not edit it), and one of them, or its counterpart in the
    other program, lies where the tolerant parse lost the program's control flow (a set-aside line
    or the body of a set-aside control-flow header)."""
    if buggy is None or fixed is None or not (buggy.set_aside or fixed.set_aside):
        return False
    located = [
        (line, parsed, other)
        for line, parsed, other in (
            (component.buggy_line, buggy, fixed),
            (component.fixed_line, fixed, buggy),
        )
        if line is not None
    ]
    if not located:
        return False
    lost_somewhere = False
    for line, parsed, other in located:
        text = _stripped(parsed).get(line, "")
        counterparts = [n for n, t in _stripped(other).items() if t == text] if text else []
        if not counterparts:
            return False  # an edited line: the fix
        lost_somewhere = (
            lost_somewhere or line in _lost(parsed) or any(n in _lost(other) for n in counterparts)
        )
    return lost_somewhere
