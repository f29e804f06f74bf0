"""Facts the comparison needs from a program's source, read once at extraction time.

Two rules of the diff look at what is *written* rather than at what the walk followed:

- ``unused_hyperparameter``: module-level ``epochs = 5`` / ``batch_size = 32`` number literals
  (:func:`find_hyperparameter_literals`), even where no training call reads them;
- ``training_data_runtime_calls``: every ``targets = <mutreal.runtime.training_data>.fn(...)``
  statement (:func:`find_runtime_data_calls`), even where the arrays it rebinds were not followed.

They are stored in the program model (``ProgramModel.hyperparameter_literals`` and
``ProgramModel.runtime_data_calls``) so the comparison never reads source text again.
"""

from __future__ import annotations

import re
from collections.abc import Callable

import libcst as cst

from mutreal.extract.names import dotted as dotted_name
from mutreal.extract.positions import NodeIndex
from mutreal.program.model import Fit, HyperparameterLiteral, RuntimeDataCall
from mutreal.program.training_budget import BUDGET

#: the module whose seeded functions a training-data mutant calls
RUNTIME_TRAINING_DATA = "mutreal.runtime.training_data"

#: names a program gives its training budget: ``epochs``, ``nb_epoch``, ``num_epochs``, ``EPOCHS``, ``batch_size``
_HYPERPARAMETER_NAME = re.compile(
    r"^(?:(?P<epochs>(?:nb_|num_|n_)?epochs?)|(?P<batch>(?:nb_|num_|n_)?batch(?:_?size)?))$", re.IGNORECASE
)


def find_hyperparameter_literals(module: cst.Module, source: str) -> dict[str, HyperparameterLiteral]:
    """Module-level number literals bound to a training-budget name, by variable name (later wins).

    Plain type tests, not matchers: this runs on every top-level statement of almost every program.
    """
    lowered = source.lower()
    if "epoch" not in lowered and "batch" not in lowered:
        return {}
    found: dict[str, HyperparameterLiteral] = {}
    for stmt in module.body:
        if type(stmt) is not cst.SimpleStatementLine or len(stmt.body) != 1:
            continue
        assign = stmt.body[0]
        if not (type(assign) is cst.Assign and len(assign.targets) == 1):
            continue
        target, number = assign.targets[0].target, assign.value
        if type(target) is not cst.Name or not (type(number) is cst.Integer or type(number) is cst.Float):
            continue
        match = _HYPERPARAMETER_NAME.match(target.value)
        if match is None:
            continue
        text = number.value
        where = re.search(rf"^{re.escape(target.value)}\s*=\s*{re.escape(text)}", source, re.MULTILINE)
        line = source.count("\n", 0, where.start()) + 1 if where else 0
        kind = BUDGET["epochs"] if match.group("epochs") else BUDGET["batch_size"]
        found[target.value] = HyperparameterLiteral(
            target.value, kind, float(number.evaluated_value), text, line
        )
    return found


def _training_roles(fits: list[Fit]) -> dict[str, str]:
    """Source text (whitespace removed) of the arrays training calls take as ``x``/``y`` -> role."""
    roles: dict[str, str] = {}
    for fit in fits:
        for arg, role in (("x", "x_train"), ("y", "y_train")):
            v = fit.args.get(arg)
            if v is not None and v.text:
                roles.setdefault("".join(v.text.split()), role)
    return roles


def find_runtime_data_calls(
    module: cst.Module,
    source: str,
    imports: dict[str, str],
    fits: list[Fit],
    path: str | None,
    line_of: Callable[[cst.CSTNode], int | None],
) -> list[RuntimeDataCall]:
    """Every ``targets = <mutreal.runtime.training_data>.fn(...)`` statement, in source order.

    The callee is resolved through the program's imports (``imports``: alias -> canonical name); a
    target is a training role when a training call takes it as its ``x`` or ``y``. ``line_of``
    gives a statement's line (the extractor's line index); where it has none, the module's
    :class:`~mutreal.extract.positions.NodeIndex`.
    """
    if "training_data" not in source or "mutreal" not in source:
        # the cheap test first: most programs never mention the runtime module. A callee resolves
        # into it only through an import of it or a bare ``mutreal.`` name, both of which spell
        # ``mutreal`` in the text (programs that merely have a ``training_data`` variable stop here)
        return []
    import libcst.matchers as m  # here, not at the top: importing the matchers costs a fifth of a
    # second, and only programs that mention the runtime module get this far

    roles = _training_roles(fits)
    prefix = RUNTIME_TRAINING_DATA + "."
    found: list[RuntimeDataCall] = []
    positions: NodeIndex | None = None
    for node in m.findall(module, m.Assign(value=m.Call())):
        assign = cst.ensure_type(node, cst.Assign)
        call = cst.ensure_type(assign.value, cst.Call)
        name = dotted_name(call.func)
        if name is None:
            continue
        head, _, rest = name.partition(".")
        canonical = imports.get(head, head) + (f".{rest}" if rest else "")
        if not canonical.startswith(prefix) or "." in canonical[len(prefix) :]:
            continue
        targets: list[str] = []
        for t in assign.targets:
            elems = t.target.elements if type(t.target) is cst.Tuple else [t.target]
            for e in elems:
                expr = e.value if type(e) is cst.Element else e
                targets.append("".join(module.code_for_node(expr).split()))
        line = line_of(assign)
        if line is None:
            if positions is None:
                positions = NodeIndex(module)
            line = positions.position(id(assign))[0]
        found.append(
            RuntimeDataCall(
                canonical[len(prefix) :],
                [roles[t] for t in targets if t in roles],
                " ".join(module.code_for_node(call).split()),
                path,
                line,
            )
        )
    return found
