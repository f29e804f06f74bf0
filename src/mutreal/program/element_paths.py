"""Element paths of the program model (grammar in ``docs/element-paths.md``).

``model[0].layer[3].activation``, ``compile.loss``, ``data.x_train.preprocess[2]``: the one
grammar classify components and mutant provenance share. Split from :mod:`mutreal.program.model`, which
re-exports every name here.
"""

from __future__ import annotations

import re

_SEGMENT = re.compile(r"([A-Za-z_][A-Za-z0-9_]*)(?:\[(-?\d+)\])?")


def layer_path(model: int, layer: int | None = None, *rest: str) -> str:
    """``model[0]``, ``model[0].layer[3]``, ``model[0].layer[3].activation``."""
    out = f"model[{model}]"
    if layer is not None:
        out += f".layer[{layer}]"
    return ".".join([out, *rest]) if rest else out


def _indexed(root: str, index: int) -> str:
    return root if index == 0 else f"{root}[{index}]"


def compile_path(index: int = 0, *rest: str) -> str:
    """``compile.loss``, ``compile.optimizer.learning_rate``, ``compile[1].loss`` (index 0 omitted)."""
    return ".".join([_indexed("compile", index), *rest])


def fit_path(index: int = 0, *rest: str) -> str:
    """``fit.epochs``, ``fit.callbacks.EarlyStopping.patience``, ``fit[1].batch_size``."""
    return ".".join([_indexed("fit", index), *rest])


def evaluation_path(method: str, index: int = 0, *rest: str) -> str:
    """``evaluate.batch_size``, ``predict[1].batch_size`` (``method``: evaluate* or predict*)."""
    root = "evaluate" if method.startswith("evaluate") else "predict"
    return ".".join([_indexed(root, index), *rest])


def data_path(role: str, *rest: str | int) -> str:
    """``data.x_train.source``, ``data.x_train.preprocess[2]`` (pass ``"preprocess", 2``)."""
    out = f"data.{role}"
    parts = list(rest)
    while parts:
        p = parts.pop(0)
        if p == "preprocess" and parts and isinstance(parts[0], int):
            out += f".preprocess[{parts.pop(0)}]"
        else:
            out += f".{p}"
    return out


def parse_path(path: str) -> list[tuple[str, int | None]]:
    """Split an element path into (name, index) segments; ``compile``/``fit`` get index 0 if omitted.

    >>> parse_path("model[0].layer[3].activation")
    [('model', 0), ('layer', 3), ('activation', None)]
    >>> parse_path("compile.loss")
    [('compile', 0), ('loss', None)]
    """
    segments: list[tuple[str, int | None]] = []
    for i, part in enumerate(path.split(".")):
        m = _SEGMENT.fullmatch(part)
        if not m:
            raise ValueError(f"bad element path segment {part!r} in {path!r}")
        name, idx = m.group(1), m.group(2)
        index = int(idx) if idx is not None else None
        if i == 0 and name in ("compile", "fit", "evaluate", "predict") and index is None:
            index = 0
        segments.append((name, index))
    return segments


def format_path(segments: list[tuple[str, int | None]]) -> str:
    """Inverse of :func:`parse_path`, in canonical form (``compile[0]`` written ``compile``)."""
    parts = []
    for i, (name, index) in enumerate(segments):
        if index is None or (i == 0 and name in ("compile", "fit", "evaluate", "predict") and index == 0):
            parts.append(name)
        else:
            parts.append(f"{name}[{index}]")
    return ".".join(parts)


def canonical_path(path: str) -> str:
    """Normalise an element path (``compile[0].loss`` -> ``compile.loss``)."""
    return format_path(parse_path(path))
