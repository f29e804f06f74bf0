"""What a generator function or ``Sequence`` class of the program yields: which of its parameters
become the batch's inputs and labels, and whether it reads its samples from files.

Why apart from :mod:`.data_flow`: the finder follows a fit call's wrapper back to the arrays given
to it; reading a wrapper's own definition (its ``yield``/``__getitem__``, the names its batch is
built from, the module of the program's folder it is defined in) is a job of its own, also used by
:mod:`.custom_loss` to find user-defined losses.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterator

import libcst as cst

from mutreal.mutation.operators.node_index import last_name
from mutreal.mutation.operators.program import Program

#: methods of a generator or Sequence class whose result is a batch
_BATCH_METHODS = ("__getitem__", "__next__", "next", "__iter__", "__call__")


class _Definitions:
    """Functions and classes of the program and of the modules it imports from its own folder."""

    def __init__(self, program: Program) -> None:
        self.program = program
        self._modules: dict[str, cst.Module | None] = {}

    def _defs(self, module: cst.Module) -> dict[str, cst.FunctionDef | cst.ClassDef]:
        return {s.name.value: s for s in module.body if isinstance(s, cst.FunctionDef | cst.ClassDef)}

    def _sibling(self, module_name: str) -> cst.Module | None:
        if module_name not in self._modules:
            folder = os.path.dirname(os.path.abspath(self.program.path))
            parts = module_name.split(".")
            # ``from helpers import X`` next to the program, or ``from <its package>.helpers import X``
            bases = [folder] + ([os.path.dirname(folder)] if parts[0] == os.path.basename(folder) else [])
            self._modules[module_name] = None
            for base in bases:
                try:
                    with open(os.path.join(base, *parts) + ".py", encoding="utf-8") as fh:
                        self._modules[module_name] = cst.parse_module(fh.read())
                    break
                except (OSError, UnicodeDecodeError, cst.ParserSyntaxError):
                    continue
        return self._modules[module_name]

    def find(self, name: str) -> tuple[cst.FunctionDef | cst.ClassDef, str] | None:
        """The definition of ``name`` and where it is (``here`` or the sibling module's name)."""
        own = self._defs(self.program.module).get(name)
        if own is not None:
            return own, "here"
        target = self.program.model.imports.get(name)
        if not target or "." not in target:
            return None
        module_name, _, attr = target.rpartition(".")
        mod = self._sibling(module_name)
        if mod is None:
            return None
        got = self._defs(mod).get(attr)
        return (got, module_name) if got is not None else None


def definitions(program: Program) -> _Definitions:
    """The program's definitions finder (one per program: sibling modules are parsed once)."""
    got = program.__dict__.get("_definitions")
    if got is None:
        got = program.__dict__["_definitions"] = _Definitions(program)
    return got


def _data_names(node: cst.BaseExpression) -> set[str]:
    """The names whose *values* an expression's result is made of: ``x[rows]`` is made of ``x``
    (not of ``rows``, which only picks), ``np.asarray(x) / 255`` of ``x``, ``self.x`` of ``self.x``."""
    if isinstance(node, cst.Name):
        return {node.value}
    if isinstance(node, cst.Attribute):
        if isinstance(node.value, cst.Name) and node.value.value == "self":
            return {f"self.{node.attr.value}"}
        return _data_names(node.value)
    if isinstance(node, cst.Subscript):
        return _data_names(node.value)
    if isinstance(node, cst.Call):
        if isinstance(node.func, cst.Name) and node.func.value in ("len", "range", "enumerate"):
            return set()  # a size or a counter, not the data
        out = _data_names(node.func.value) if isinstance(node.func, cst.Attribute) else set()
        for arg in node.args:
            out |= _data_names(arg.value)
        return out
    if isinstance(node, cst.BinaryOperation):
        return _data_names(node.left) | _data_names(node.right)
    if isinstance(node, cst.Tuple | cst.List):
        return set().union(*(_data_names(e.value) for e in node.elements)) if node.elements else set()
    if isinstance(node, cst.ListComp | cst.GeneratorExp | cst.SetComp):
        # ``[read(folder, n) for n in names]`` is made of ``names`` (through ``n``) and ``folder``
        out = _data_names(node.elt)
        comp: cst.CompFor | None = node.for_in
        while comp is not None:
            out |= _data_names(comp.iter)
            comp = comp.inner_for_in
        return out
    return set()


def _assigns(body: cst.CSTNode) -> dict[str, set[str]]:
    """Target -> names its value reads, for every assignment under ``body`` (tuple targets paired)."""
    out: dict[str, set[str]] = {}

    def target_key(t: cst.BaseExpression) -> str | None:
        if isinstance(t, cst.Subscript):  # ``batch[i] = value`` fills ``batch``
            return target_key(t.value)
        if isinstance(t, cst.Name):
            return t.value
        if isinstance(t, cst.Attribute) and isinstance(t.value, cst.Name) and t.value.value == "self":
            return f"self.{t.attr.value}"
        return None

    class _V(cst.CSTVisitor):
        def visit_Assign(self, n: cst.Assign) -> None:
            for t in n.targets:
                tgt = t.target
                if (
                    isinstance(tgt, cst.Tuple | cst.List)
                    and isinstance(n.value, cst.Tuple | cst.List)
                    and len(tgt.elements) == len(n.value.elements)
                ):
                    for te, ve in zip(tgt.elements, n.value.elements, strict=True):
                        k = target_key(te.value)
                        if k:
                            out.setdefault(k, set()).update(_data_names(ve.value))
                    continue
                names = _data_names(n.value)
                for e in tgt.elements if isinstance(tgt, cst.Tuple | cst.List) else []:
                    k = target_key(e.value)
                    if k:
                        out.setdefault(k, set()).update(names)
                k = target_key(tgt)
                if k:
                    out.setdefault(k, set()).update(names)

        def visit_For(self, n: cst.For) -> None:
            # ``for p, a in zip(xs, ys)``: each target is made of its own sequence
            it, tgt = n.iter, n.target
            if (
                isinstance(it, cst.Call)
                and isinstance(it.func, cst.Name)
                and it.func.value == "zip"
                and isinstance(tgt, cst.Tuple | cst.List)
                and len(tgt.elements) == len(it.args)
            ):
                for te, arg in zip(tgt.elements, it.args, strict=True):
                    k = target_key(te.value)
                    if k:
                        out.setdefault(k, set()).update(_data_names(arg.value))
                return
            names = _data_names(it)
            for e in tgt.elements if isinstance(tgt, cst.Tuple | cst.List) else [cst.Element(tgt)]:
                k = target_key(e.value)
                if k:
                    out.setdefault(k, set()).update(names)

        def visit_CompFor(self, n: cst.CompFor) -> None:
            # ``for name in names`` of a comprehension: ``name`` is made of ``names``
            names = _data_names(n.iter)
            for e in (
                n.target.elements if isinstance(n.target, cst.Tuple | cst.List) else [cst.Element(n.target)]
            ):
                k = target_key(e.value)
                if k:
                    out.setdefault(k, set()).update(names)

        def visit_Call(self, n: cst.Call) -> None:
            # ``batch.append(item)`` fills ``batch``
            if isinstance(n.func, cst.Attribute) and n.func.attr.value in ("append", "extend", "insert"):
                k = target_key(n.func.value)
                if k:
                    for arg in n.args:
                        out.setdefault(k, set()).update(_data_names(arg.value))

    body.visit(_V())
    return out


def _indexed(defn: cst.CSTNode) -> set[str]:
    """Names and ``self.<attr>`` that are indexed or sliced somewhere (``x[rows]``): arrays."""
    found: set[str] = set()

    class _V(cst.CSTVisitor):
        def visit_Subscript(self, n: cst.Subscript) -> None:
            found.update(_data_names(n.value))

    defn.visit(_V())
    return found


def _batch_values(fn: cst.FunctionDef) -> Iterator[cst.BaseExpression]:
    """The values a function yields or returns."""
    found: list[cst.BaseExpression] = []

    class _V(cst.CSTVisitor):
        def visit_FunctionDef(self, n: cst.FunctionDef) -> bool:
            return n is fn

        def visit_Yield(self, n: cst.Yield) -> None:
            if isinstance(n.value, cst.BaseExpression):
                found.append(n.value)

        def visit_Return(self, n: cst.Return) -> None:
            if n.value is not None:
                found.append(n.value)

    fn.visit(_V())
    return iter(found)


def is_generator(fn: cst.FunctionDef) -> bool:
    return any(True for v in _batch_values(fn) if v is not None) and "yield" in cst.Module(body=[fn]).code


def params_of(fn: cst.FunctionDef, skip_self: bool) -> list[str]:
    names = [p.name.value for p in fn.params.params]
    return names[1:] if skip_self and names else names


def _roots(names: set[str], assigns: dict[str, set[str]], params: set[str]) -> set[str]:
    """Parameters an expression's names come from, following assignments (a bounded closure)."""
    seen: set[str] = set()
    todo = list(names)
    while todo:
        n = todo.pop()
        if n in seen or len(seen) > 200:
            continue
        seen.add(n)
        todo.extend(assigns.get(n, ()))
    return seen & params


def generator_roles(defn: cst.FunctionDef | cst.ClassDef) -> tuple[list[str], list[str], list[str]] | None:
    """(parameters, those the batch inputs come from, those the labels come from), or None when the
    definition has no batch of two parts (inputs, labels)."""
    if isinstance(defn, cst.FunctionDef):
        params = params_of(defn, skip_self=False)
        fns = [defn]
        assigns = _assigns(defn)
    else:
        methods = {s.name.value: s for s in defn.body.body if isinstance(s, cst.FunctionDef)}
        init = methods.get("__init__")
        params = params_of(init, skip_self=True) if init is not None else []
        fns = [methods[m] for m in _BATCH_METHODS if m in methods]
        assigns = _assigns(defn)
    # an array parameter is indexed or sliced somewhere (directly or as the attribute it is kept in);
    # ``args`` read for a folder name or ``batch_size`` are not data
    indexed = _indexed(defn)
    arrays = {p for p in params if p in indexed or any(k in indexed and v == {p} for k, v in assigns.items())}
    for fn in fns:
        for value in _batch_values(fn):
            if isinstance(value, cst.Tuple) and len(value.elements) >= 2:
                x_roots = _roots(_data_names(value.elements[0].value), assigns, arrays)
                y_roots = _roots(_data_names(value.elements[1].value), assigns, arrays)
                # a label computed with the input too (augmenting both): its own array is the label
                if x_roots & y_roots and y_roots - x_roots:
                    y_roots = y_roots - x_roots
                elif x_roots & y_roots and x_roots - y_roots:
                    x_roots = x_roots - y_roots
                elif x_roots == y_roots and len(x_roots) == 2:
                    # both computed from both (an augmentation that changes image and label): the
                    # constructor's order, inputs first, labels second
                    first, second = sorted(x_roots, key=params.index)
                    x_roots, y_roots = {first}, {second}
                return params, sorted(x_roots, key=params.index), sorted(y_roots, key=params.index)
    return None


#: the last name of a call that reads a sample from a file (``load_image(folder, path)``,
#: ``cv2.imread``, ``Image.open``, ``keras.utils.load_img``, ``np.load``, ``librosa.load``)
_READS_FILE = re.compile(
    r"^(imread|open|load|load_img|read_file|read_image|decode_file)$|^(load|read)_|_(load|read)$"
)


def reads_files(defn: cst.FunctionDef | cst.ClassDef, inputs: list[str]) -> bool:
    """Whether a generator definition passes values of its input parameters ``inputs`` to a call
    that reads a file: the inputs are file paths (the images are read batch by batch)."""
    if not inputs:
        return False
    if isinstance(defn, cst.FunctionDef):
        params = set(params_of(defn, skip_self=False))
    else:
        methods = {s.name.value: s for s in defn.body.body if isinstance(s, cst.FunctionDef)}
        init = methods.get("__init__")
        params = set(params_of(init, skip_self=True)) if init is not None else set()
    assigns = _assigns(defn)
    wanted = set(inputs)
    found = False

    class _V(cst.CSTVisitor):
        def visit_Call(self, n: cst.Call) -> None:
            nonlocal found
            name = last_name(n.func)
            if found or not name or not _READS_FILE.search(name):
                return
            names: set[str] = set()
            for arg in n.args:
                names |= _data_names(arg.value)
            if _roots(names, assigns, params) & wanted:
                found = True

    defn.visit(_V())
    return found
