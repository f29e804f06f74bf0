"""Small name helpers the operators use to find a call again in a re-parsed module.

Why a module: :mod:`.program` matches a recorded call by its callee's last name and by its text
with whitespace removed, and the finders of custom losses and training data read a name's last
part (``Loss`` of ``keras.losses.Loss``); the positions themselves come from
:mod:`mutreal.extract.positions`.
"""

from __future__ import annotations

import libcst as cst


def last_name(node: cst.BaseExpression) -> str | None:
    """The last part of a name or dotted name (``Loss`` of ``keras.losses.Loss``), else None."""
    if isinstance(node, cst.Name):
        return node.value
    if isinstance(node, cst.Attribute):
        return node.attr.value
    return None


def _callee_last(call: cst.Call) -> str | None:
    return last_name(call.func)


def _norm_ws(text: str) -> str:
    return "".join(text.split())
