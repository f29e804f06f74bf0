"""Small name helpers the operators use to find a call again in a re-parsed module.

Why a module: :mod:`.program` matches a recorded call by its callee's last name and by its text
with whitespace removed; the positions themselves come from :mod:`mutreal.extract.positions`.
"""

from __future__ import annotations

import libcst as cst


def _callee_last(call: cst.Call) -> str | None:
    f = call.func
    if isinstance(f, cst.Name):
        return f.value
    if isinstance(f, cst.Attribute):
        return f.attr.value
    return None


def _norm_ws(text: str) -> str:
    return "".join(text.split())
