"""The benchmark scaffolding a run removes before the program runs (tables in
:mod:`mutreal.program.training_observers`, which classify reads too): why each removal is safe is
said at :func:`strip_instrumentation`."""

from __future__ import annotations

import libcst as cst

from mutreal.compat.modernize import Change
from mutreal.extract.names import dotted
from mutreal.program.training_observers import (
    BENCHMARK_CALLBACKS,
    EXIT_CALLS,
    INERT_TRACKER,
    TRACKER_PACKAGES,
    TRAINING_CALLS,
    VERSION_ATTRIBUTE,
)


def _tracker(module: str) -> bool:
    return module.split(".")[0] in TRACKER_PACKAGES


def _dotted_node(name: str) -> cst.Attribute | cst.Name:
    parts = name.split(".")
    node: cst.Attribute | cst.Name = cst.Name(parts[0])
    for part in parts[1:]:
        node = cst.Attribute(node, cst.Name(part))
    return node


def _last_name(node: cst.BaseExpression) -> str | None:
    name = dotted(node)
    return name.rsplit(".", 1)[-1] if name else None


def _is_benchmark_callback(node: cst.BaseExpression) -> bool:
    if not isinstance(node, cst.Call):
        return False
    name = dotted(node.func) or ""
    return name.rsplit(".", 1)[-1] in BENCHMARK_CALLBACKS and name.rsplit(".", 2)[-2:-1] == ["callbacks"]


def _exit_statement(stmt: cst.BaseStatement) -> bool:
    """``sys.exit(...)`` (or ``exit``/``quit``) as a statement of its own."""
    if not isinstance(stmt, cst.SimpleStatementLine) or len(stmt.body) != 1:
        return False
    small = stmt.body[0]
    return (
        isinstance(small, cst.Expr)
        and isinstance(small.value, cst.Call)
        and dotted(small.value.func) in EXIT_CALLS
    )


def _main_guard(node: cst.If) -> bool:
    """``if __name__ == "__main__":`` (either way round): the program's own top level, not a condition
    of its logic."""
    test = node.test
    if not isinstance(test, cst.Comparison) or len(test.comparisons) != 1:
        return False
    left, right = test.left, test.comparisons[0].comparator
    return _MAIN_GUARD in ({dotted(left), _string(right)}, {_string(left), dotted(right)})


_MAIN_GUARD = {"__name__", "__main__"}


def _string(node: cst.BaseExpression) -> str | None:
    return node.evaluated_value if isinstance(node, cst.SimpleString) else None  # type: ignore[return-value]


def _version_pin(node: cst.Assert) -> bool:
    """An assert on a module's ``__version__`` (compared, sliced, or ``startswith``)."""
    found = False

    class _Finder(cst.CSTVisitor):
        def visit_Attribute(self, attribute: cst.Attribute) -> None:
            nonlocal found
            found = found or attribute.attr.value == VERSION_ATTRIBUTE

    node.test.visit(_Finder())
    return found


def _trivial(stmt: cst.BaseStatement) -> bool:
    """A statement that cannot matter after an exit: ``pass`` or a bare string/number."""
    if not isinstance(stmt, cst.SimpleStatementLine):
        return False
    return all(
        isinstance(s, cst.Pass)
        or (isinstance(s, cst.Expr) and isinstance(s.value, (cst.SimpleString, cst.Integer)))
        for s in stmt.body
    )


class _Stripper(cst.CSTTransformer):
    METADATA_DEPENDENCIES = (cst.metadata.PositionProvider,)

    def __init__(self) -> None:
        super().__init__()
        self.changes: list[Change] = []
        self.trains = False  # the module calls fit (or the like) somewhere
        self.first_training_line: int | None = None
        self.block_depth = 0  # 0: a statement of the module itself
        self.conditional_depth = 0  # inside if (not the main guard), loops, try, with: an exit there is logic
        self.function_training: list[bool] = []  # per enclosing function: has it trained yet?

    def visit_Call(self, node: cst.Call) -> None:
        if _last_name(node.func) in TRAINING_CALLS:
            self.trains = True
            line = self._line(node)
            self.first_training_line = line if self.first_training_line is None else min(line, self.first_training_line)
            if self.function_training:
                self.function_training[-1] = True

    def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
        self.function_training.append(False)  # an exit in a function counts only after its own training

    def leave_FunctionDef(self, original: cst.FunctionDef, updated: cst.FunctionDef) -> cst.FunctionDef:
        self.function_training.pop()
        return updated

    def visit_IndentedBlock(self, node: cst.IndentedBlock) -> None:
        self.block_depth += 1

    def leave_IndentedBlock(self, original: cst.IndentedBlock, updated: cst.IndentedBlock) -> cst.IndentedBlock:
        self.block_depth -= 1
        return updated

    def visit_If(self, node: cst.If) -> None:
        self.conditional_depth += not _main_guard(node)

    def leave_If(self, original: cst.If, updated: cst.If) -> cst.If:
        self.conditional_depth -= not _main_guard(original)
        return updated

    def _enter(self, node: cst.CSTNode) -> None:
        self.conditional_depth += 1

    def _leave(self, original: cst.CSTNode, updated: cst.CSTNode) -> cst.CSTNode:
        self.conditional_depth -= 1
        return updated

    visit_For = visit_While = visit_Try = visit_With = visit_Else = _enter  # type: ignore[assignment]
    leave_For = leave_While = leave_Try = leave_With = leave_Else = _leave  # type: ignore[assignment]

    def _exit_after_training(self, original: cst.BaseStatement) -> bool:
        """An exit of its own, not under a condition, on a line after the first training call (in a
        function: after a training call of that function, so a ``usage()`` helper keeps its exit)."""
        return (
            _exit_statement(original)
            and self.conditional_depth == 0
            and self.first_training_line is not None
            and self._line(original) > self.first_training_line
            and (not self.function_training or self.function_training[-1])
        )

    def leave_SimpleStatementLine(
        self, original: cst.SimpleStatementLine, updated: cst.SimpleStatementLine
    ) -> cst.BaseStatement:
        # a module-level exit is left to leave_Module (a trailing one is removed outright there)
        if self.block_depth == 0 or not self._exit_after_training(original):
            return updated
        return self._replaced_exit(original)

    def _replaced_exit(self, original: cst.SimpleStatementLine) -> cst.SimpleStatementLine:
        self.changes.append(Change(self._line(original), "exit scaffolding", cst.Module([]).code_for_node(original).strip(),
                                   "pass (ended the program after training; what follows is the program's)"))  # fmt: skip
        return cst.SimpleStatementLine(body=[cst.Pass()], leading_lines=original.leading_lines)

    def _line(self, node: cst.CSTNode) -> int:
        return self.get_metadata(cst.metadata.PositionProvider, node).start.line

    def leave_Arg(self, original: cst.Arg, updated: cst.Arg) -> cst.Arg:
        if original.keyword is None or original.keyword.value != "callbacks":
            return updated
        if not isinstance(updated.value, (cst.List, cst.Tuple)):
            return updated
        kept = [e for e in updated.value.elements if not _is_benchmark_callback(e.value)]
        if len(kept) == len(updated.value.elements):
            return updated
        for element in original.value.elements:  # type: ignore[attr-defined]
            if _is_benchmark_callback(element.value):
                name = dotted(element.value.func)
                self.changes.append(Change(self._line(element), "benchmark instrumentation", f"{name}(...)",
                                           "removed (observes training; not part of the program)"))  # fmt: skip
        if kept:
            kept[-1] = kept[-1].with_changes(comma=cst.MaybeSentinel.DEFAULT)
        return updated.with_changes(value=updated.value.with_changes(elements=kept))

    def leave_Import(self, original: cst.Import, updated: cst.Import) -> cst.Import:
        names = []
        for alias in updated.names:
            name = dotted(alias.name) or ""
            if _tracker(name):  # ``import hyperdash`` / ``import hyperdash.x as h``: same binding, inert
                bound = alias.asname or cst.AsName(cst.Name(name.split(".")[0]))
                self._tracker_change(original, f"import {name}")
                alias = alias.with_changes(name=_dotted_node(INERT_TRACKER), asname=bound)
            names.append(alias)
        return updated.with_changes(names=names)

    def leave_ImportFrom(self, original: cst.ImportFrom, updated: cst.ImportFrom) -> cst.ImportFrom:
        module = dotted(updated.module) if updated.module is not None and not updated.relative else None
        if module is None or not _tracker(module):
            return updated
        self._tracker_change(original, f"from {module} import")
        return updated.with_changes(module=_dotted_node(INERT_TRACKER))

    def _tracker_change(self, original: cst.CSTNode, before: str) -> None:
        self.changes.append(Change(self._line(original), "experiment tracker", before,
                                   f"an inert stand-in ({INERT_TRACKER}: observes training; not installable)"))  # fmt: skip

    def leave_Assert(self, original: cst.Assert, updated: cst.Assert) -> cst.BaseSmallStatement:
        if not _version_pin(original):
            return updated
        self.changes.append(Change(self._line(original), "version pin", cst.Module([]).code_for_node(original).strip(),
                                   "pass (the program runs on the framework of its era)"))  # fmt: skip
        return cst.Pass()

    def leave_Module(self, original: cst.Module, updated: cst.Module) -> cst.Module:
        body = list(updated.body)
        originals = list(original.body)
        end = len(body)
        while end and (_exit_statement(body[end - 1]) or _trivial(body[end - 1])):
            end -= 1
        exits = [i for i in range(end, len(body)) if _exit_statement(body[i])]
        if end == 0 or not self.trains:
            return updated
        for i in range(end):  # DeepLocalize's `sys.exit(1)` after training, the program's code after it
            if self._exit_after_training(originals[i]):
                body[i] = self._replaced_exit(originals[i])  # type: ignore[arg-type]
        for i in exits:
            self.changes.append(Change(self._line(originals[i]), "exit scaffolding",
                                       cst.Module([]).code_for_node(originals[i]).strip(),
                                       "removed (ends the program after its last statement)"))  # fmt: skip
        return updated.with_changes(body=body[:end])


def strip_instrumentation(source: str) -> tuple[str, list[Change]]:
    """``source`` without the benchmark's instrumentation, and what was removed (each a change).

    Removed: callbacks of :data:`BENCHMARK_CALLBACKS` in a ``callbacks=[...]`` list, the imports of the
    experiment trackers of :data:`TRACKER_PACKAGES` (pointed at an inert stand-in), asserts pinning a
    library's ``__version__`` (TFBugs2018's ``assert tf.__version__ == "1.8.0"``), and the exit
    calls that end a module that trains (``sys.exit(1)`` after the last statement that does anything,
    in a program that calls ``fit``), which made every finished run a failure. An exit of its own
    after the first training call, not under a condition (at the module's level, in a function or
    in the ``__main__`` block), with the program's code after it, becomes ``pass``: DeepLocalize
    cut its buggy programs short there (``end_time = time.clock(); print("time", ...);
    sys.exit(1)`` before the evaluation the fixed program runs); an exit under an ``if``, a loop or
    a ``try`` is the program's logic and stays. Raises ``libcst.ParserSyntaxError`` if ``source`` does not parse."""
    wrapper = cst.metadata.MetadataWrapper(cst.parse_module(source))
    stripper = _Stripper()
    new = wrapper.visit(stripper)
    return new.code, stripper.changes
