"""Facts read from a program's source rather than its model: training-data runtime calls and
module-level training-budget variables.

Why apart from the passes: these read the parsed module (LibCST), not the program model, and are
computed by :mod:`mutreal.classify` once per file; they will move into the program model, and this
module is the one place that then changes.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import libcst

from mutreal.extract.names import dotted
from mutreal.model import Fit

#: the module whose seeded functions a training-data mutant calls (mutreal.runtime.training_data)
RUNTIME_TRAINING_DATA = "mutreal.runtime.training_data"


@dataclass
class RuntimeCall:
    """A call of :mod:`mutreal.runtime.training_data` found in a program's source, with the
    training roles (``x_train``/``y_train``) of the arrays it rebinds."""

    function: str
    roles: list[str]
    text: str
    file: str | None
    line: int | None

    def key(self) -> tuple[str, str]:
        text = "".join(self.text.split())
        return self.function, text[text.find("(") :] if "(" in text else text


#: names a program gives its training budget: ``epochs``, ``nb_epoch``, ``num_epochs``, ``EPOCHS``, ``batch_size``
_HYPER_VARIABLES = re.compile(
    r"^(?:(?P<epochs>(?:nb_|num_|n_)?epochs?)|(?P<batch>(?:nb_|num_|n_)?batch(?:_?size)?))$", re.IGNORECASE
)


@dataclass
class HyperVariable:
    """A module-level ``epochs = 5`` / ``batch_size = 32`` literal (decision HNE-unused-variable)."""

    name: str
    kind: str  # fit.epochs or fit.batch_size
    value: float
    text: str
    line: int


def find_hyperparameter_variables(module: libcst.Module, source: str) -> dict[str, HyperVariable]:
    """Module-level number literals bound to a training-budget name (the parsed tree, no second parse)."""
    lowered = source.lower()
    if "epoch" not in lowered and "batch" not in lowered:
        return {}
    found: dict[str, HyperVariable] = {}
    for stmt in module.body:
        if not isinstance(stmt, libcst.SimpleStatementLine) or len(stmt.body) != 1:
            continue
        node = stmt.body[0]
        if not (isinstance(node, libcst.Assign) and len(node.targets) == 1):
            continue
        target = node.targets[0].target
        if not isinstance(target, libcst.Name) or not isinstance(node.value, (libcst.Integer, libcst.Float)):
            continue
        match = _HYPER_VARIABLES.match(target.value)
        if match is None:
            continue
        text = node.value.value
        where = re.search(rf"^{re.escape(target.value)}\s*=\s*{re.escape(text)}", source, re.MULTILINE)
        line = source.count("\n", 0, where.start()) + 1 if where else 0
        kind = "fit.epochs" if match.group("epochs") else "fit.batch_size"
        found[target.value] = HyperVariable(target.value, kind, float(node.value.evaluated_value), text, line)
    return found


def find_runtime_calls(
    module: libcst.Module,
    imports: dict[str, str],
    fits: list[Fit],
    path: str | None = None,
    source: str | None = None,
) -> list[RuntimeCall]:
    """Every ``targets = <mutreal.runtime.training_data>.fn(...)`` statement of a program.

    Read from the source (rule ``training_data_runtime_calls``) so that a call is found even where
    the data it rebinds cannot be followed (arrays defined elsewhere). The callee is resolved like
    other names, through the program's imports; a target is a training role when a fit call takes
    it as its ``x`` or ``y``.
    """
    if "training_data" not in (source if source is not None else module.code):
        return []  # the cheap test first: most programs never mention the runtime module
    from libcst.metadata import MetadataWrapper, PositionProvider

    roles: dict[str, str] = {}
    for fit in fits:
        for arg, role in (("x", "x_train"), ("y", "y_train")):
            v = fit.args.get(arg)
            if v is not None and v.text:
                roles.setdefault("".join(v.text.split()), role)
    wrapper = MetadataWrapper(module, unsafe_skip_copy=True)
    positions = wrapper.resolve(PositionProvider)
    found: list[RuntimeCall] = []
    prefix = RUNTIME_TRAINING_DATA + "."

    class _Visitor(libcst.CSTVisitor):
        def visit_Assign(self, node: libcst.Assign) -> None:
            call = node.value
            if not isinstance(call, libcst.Call):
                return
            name = dotted(call.func)
            if name is None:
                return
            head, _, rest = name.partition(".")
            canonical = imports.get(head, head) + (f".{rest}" if rest else "")
            if not canonical.startswith(prefix) or "." in canonical[len(prefix) :]:
                return
            targets: list[str] = []
            for t in node.targets:
                elems = t.target.elements if isinstance(t.target, libcst.Tuple) else [t.target]
                for e in elems:
                    expr = e.value if isinstance(e, libcst.Element) else e
                    targets.append("".join(module.code_for_node(expr).split()))
            pos = positions.get(node)
            found.append(
                RuntimeCall(
                    canonical[len(prefix) :],
                    [roles[t] for t in targets if t in roles],
                    " ".join(module.code_for_node(call).split()),
                    path,
                    pos.start.line if pos else None,
                )
            )

    wrapper.visit(_Visitor())
    return found
