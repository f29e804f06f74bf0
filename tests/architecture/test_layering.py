"""The stages depend one way: what a later stage needs from an earlier one is imported, never the reverse.

The packages of ``src/mutreal`` follow the data flow of docs/ARCHITECTURE.md: a program is read
(``program``, ``extract``), two are compared and labelled (``compare``, ``label``), mutants are written
(``mutation``), benchmarks are studied (``study``), programs are trained (``compat``, ``execution``),
runs are decided (``stats``, ``analysis``), whole jobs run (``campaigns``) and people read the result
(``report``, ``commands``). A module may import its own stage and earlier ones only: an import of a
later stage makes a cycle sooner or later (``compare`` once went campaigns -> study -> mutation and
back), and a cycle is a house nobody can extend one room at a time. Imports are read from the
source, at module level and inside functions alike.
"""

from __future__ import annotations

import ast
from pathlib import Path

import networkx as nx
import pytest

PACKAGE = Path(__file__).resolve().parents[2] / "src" / "mutreal"

#: the stages in data-flow order; a module of one stage imports only its own and earlier ones
STAGES: tuple[tuple[str, ...], ...] = (
    # shared by every stage: written formats and tables that import no stage
    ("serialise", "decisions", "combinations", "operator_catalogue", "known_datasets", "parallel", "resources", "manifest", "results", "runtime"),
    ("program",),
    ("extract",),
    ("compat",),
    ("compare",),
    ("label",),
    ("mutation",),
    ("study",),
    ("stats",),
    ("execution",),
    ("analysis",),
    ("campaigns",),
    ("report",),
    ("commands", "api"),
    ("cli", "__init__", "__main__"),
)
RANK = {unit: rank for rank, units in enumerate(STAGES) for unit in units}

def unit_of(path: Path) -> str:
    """The package (or top-level module) a file of ``src/mutreal`` belongs to."""
    relative = path.relative_to(PACKAGE)
    return relative.parts[0] if len(relative.parts) > 1 else relative.stem


def imports(path: Path) -> set[str]:
    """Every absolute ``mutreal`` module a file imports (``from a import b`` counts ``a`` and ``a.b``)."""
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            found.add(node.module)
            found.update(f"{node.module}.{alias.name}" for alias in node.names)
        elif isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
    return {name for name in found if name.split(".")[0] == "mutreal"}


def imported_unit(name: str) -> str | None:
    """The package or top-level module of a ``mutreal.x...`` name; None for ``mutreal`` itself or a
    name that is an attribute, not a module."""
    parts = name.split(".")
    if len(parts) < 2:
        return None
    unit = parts[1]
    return unit if (PACKAGE / unit).is_dir() or (PACKAGE / f"{unit}.py").exists() else None


def edges() -> set[tuple[str, str]]:
    """(module path, imported name) for every import of another unit of mutreal."""
    found = set()
    for path in sorted(PACKAGE.rglob("*.py")):
        for name in imports(path):
            unit = imported_unit(name)
            if unit is not None and unit != unit_of(path):
                found.add((path.relative_to(PACKAGE).as_posix(), _module_of(name)))
    return found


def _module_of(name: str) -> str:
    """``mutreal.label.taxonomy.load_decisions`` -> ``mutreal.label.taxonomy`` (the longest module)."""
    parts = name.split(".")
    for end in range(len(parts), 1, -1):
        target = PACKAGE.parent / Path(*parts[:end])
        if target.with_suffix(".py").exists() or (target / "__init__.py").exists():
            return ".".join(parts[:end])
    return name


def backward(pairs: set[tuple[str, str]]) -> set[tuple[str, str]]:
    """The pairs whose import goes to a later stage."""
    return {
        (module, name)
        for module, name in pairs
        if RANK[imported_unit(name) or ""] > RANK[module.split("/")[0].removesuffix(".py")]
    }


def test_every_package_has_a_stage() -> None:
    units = {unit_of(p) for p in PACKAGE.rglob("*.py")}
    assert units - set(RANK) == set(), "a new package needs its place in STAGES (and in docs/ARCHITECTURE.md)"


def test_no_module_imports_a_later_stage() -> None:
    """No exceptions: what a stage needs from a later one moves down instead (the decision table's
    reader to ``decisions``, the operator catalogue to the top level, mining and the training-data
    rules to ``label``)."""
    assert backward(edges()) == set()


def test_no_cycle_between_packages() -> None:
    graph = nx.DiGraph()
    for module, name in edges():
        graph.add_edge(module.split("/")[0].removesuffix(".py"), imported_unit(name))
    assert [cycle for cycle in nx.simple_cycles(graph)] == []


def test_the_checker_sees_a_backward_import() -> None:
    """The rule itself: an import of a later stage, at module level or inside a function, is found."""
    pairs = {("program/model.py", "mutreal.execution.records"), ("report/tables.py", "mutreal.study.agree")}
    assert backward(pairs) == {("program/model.py", "mutreal.execution.records")}


@pytest.mark.parametrize("module", ["study/validate.py", "campaigns/mutants.py"])
def test_study_and_campaigns_reconstruct_through_the_mutation_stage(module: str) -> None:
    assert "mutreal.mutation.reconstruct" in imports(PACKAGE / module), module
