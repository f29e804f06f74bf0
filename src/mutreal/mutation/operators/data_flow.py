"""Where the training arrays of a ``fit`` call are still arrays: the finder of training-data sites.

Why a module: DeepCrime asks its user to mark the training arrays by hand; mutreal finds them. A
fit call may take them directly (``fit(x_train, y_train)``), as a list or dict of several inputs
(``fit([a, b], y)``), or wrapped: in a generator function, a generator or ``Sequence`` class
(defined here or in another module of the program's folder), ``tf.data.Dataset.from_tensor_slices``
or ``ImageDataGenerator.flow``, called in the fit call or bound to a name before it. The finder
follows the wrapper back to the arrays given to it and returns the statement before which a
training-data mutant rebinds them (where they are still arrays), or why there is none (the
generator reads its data itself).

The extractor's model is not enough here (it records the wrapper as one opaque value), so this
reads the operators' own parsed tree; a sibling module is parsed once per program and cached.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field

import libcst as cst

from mutreal.extract.keras_data import DATASET_METHODS
from mutreal.mutation.operators.node_index import last_name
from mutreal.mutation.operators.program import Program

#: dataset methods that keep the rows (a chain ``from_tensor_slices(...).shuffle(..).batch(..)``): the
#: extractor's tf.data methods but those that select rows or hand the dataset to a function
_DATASET_CHAIN = DATASET_METHODS - {"filter", "take", "skip", "apply"}
#: calls that read samples from files: their data is never an array of the program
_FILE_READERS = frozenset(
    {
        "flow_from_directory",
        "flow_from_dataframe",
        "image_dataset_from_directory",
        "text_dataset_from_directory",
    }
)
#: methods of a generator or Sequence class whose result is a batch
_BATCH_METHODS = ("__getitem__", "__next__", "next", "__iter__", "__call__")


@dataclass
class Arrays:
    """The training arrays of one fit call and the statement before which they can be rebound.

    ``x``/``y`` are the names of the input and label arrays (several inputs: ``x`` has several);
    ``x_text``/``y_text`` how the group is written (``[a, b]`` keeps the fit call's brackets, so
    that classify maps the rebound names to the fit's inputs); ``via`` says how they reach fit.
    """

    anchor: int
    x: list[str]
    y: list[str]
    x_text: str
    y_text: str
    via: str = "direct"
    wrapper: str = ""
    #: the wrapper reads its batch inputs from files named by ``x`` (paths, as DeepCrime's
    #: self-driving subject): rows of ``x`` and ``y`` can be removed or added, ``x`` not noised
    reads_files: bool = False

    @property
    def names(self) -> list[str]:
        return [*self.x, *self.y]


@dataclass
class Finding:
    """What the finder learnt about one fit call: arrays, or the reason there are none."""

    fit: int
    arrays: Arrays | None = None
    reason: str = ""
    extra: dict[str, str] = field(default_factory=dict)


def _group(node: cst.BaseExpression | None) -> tuple[list[str], str] | None:
    """Names of a plain array (``x``) or a list/tuple/dict of them (``[a, b]``, ``{'a': a}``)."""
    if node is None:
        return None
    if isinstance(node, cst.Name):
        return [node.value], node.value
    if isinstance(node, cst.List | cst.Tuple):
        names = [e.value.value for e in node.elements if isinstance(e.value, cst.Name)]
        if not names or len(names) != len(node.elements):
            return None
        joined = ", ".join(names)
        return names, f"[{joined}]" if isinstance(
            node, cst.List
        ) else f"({joined}{',' if len(names) == 1 else ''})"
    if isinstance(node, cst.Dict):
        names = [
            e.value.value
            for e in node.elements
            if isinstance(e, cst.DictElement) and isinstance(e.value, cst.Name)
        ]
        if not names or len(names) != len(node.elements):
            return None
        return names, f"({', '.join(names)}{',' if len(names) == 1 else ''})"
    return None


def _in_loop(program: Program, stmt: int) -> bool:
    return any(
        isinstance(program.index.nodes.get(a), cst.For | cst.While) for a in program.index.ancestors(stmt)
    )


def _block_before(program: Program, stmt: int) -> list[cst.CSTNode]:
    """The statements that run before ``stmt`` in its block, nearest first, then those before the
    compound statement holding that block (an ``if`` around a fit call), up to the module."""
    target = program.index.nodes[stmt]
    path: list[list[cst.CSTNode]] = []  # for each enclosing block: its statements before the way down

    def scan(body: Sequence[cst.CSTNode]) -> bool:
        for i, s in enumerate(body):
            if s is target:
                path.append(list(body[:i]))
                return True
            if isinstance(s, cst.BaseCompoundStatement) and _contains(s, target):
                path.append(list(body[:i]))
                return any(scan(block) for block in _blocks(s))
        return False

    scan(program.module.body)
    out: list[cst.CSTNode] = []
    for before in reversed(path):
        out.extend(reversed(before))
    return out


def _blocks(stmt: cst.BaseCompoundStatement) -> list[Sequence[cst.CSTNode]]:
    """The statement blocks of a compound statement (an ``if``'s body and its ``else``)."""
    out = []
    cur: cst.CSTNode | None = stmt
    while cur is not None:
        body = getattr(cur, "body", None)
        if isinstance(body, cst.IndentedBlock):
            out.append(body.body)
        nxt = getattr(cur, "orelse", None)
        cur = nxt.body if isinstance(nxt, cst.Else) else nxt  # type: ignore[assignment]
        if isinstance(cur, cst.IndentedBlock):
            out.append(cur.body)
            break
    for handler in getattr(stmt, "handlers", ()):
        out.append(handler.body.body)
    return out


def _contains(node: cst.CSTNode, target: cst.CSTNode) -> bool:
    found = False

    class _V(cst.CSTVisitor):
        def on_visit(self, n: cst.CSTNode) -> bool:
            nonlocal found
            if n is target:
                found = True
            return not found

    node.visit(_V())
    return found


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


def _is_generator(fn: cst.FunctionDef) -> bool:
    return any(True for v in _batch_values(fn) if v is not None) and "yield" in cst.Module(body=[fn]).code


def _params(fn: cst.FunctionDef, skip_self: bool) -> list[str]:
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


def _generator_roles(defn: cst.FunctionDef | cst.ClassDef) -> tuple[list[str], list[str], list[str]] | None:
    """(parameters, those the batch inputs come from, those the labels come from), or None when the
    definition has no batch of two parts (inputs, labels)."""
    if isinstance(defn, cst.FunctionDef):
        params = _params(defn, skip_self=False)
        fns = [defn]
        assigns = _assigns(defn)
    else:
        methods = {s.name.value: s for s in defn.body.body if isinstance(s, cst.FunctionDef)}
        init = methods.get("__init__")
        params = _params(init, skip_self=True) if init is not None else []
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


def _reads_files(defn: cst.FunctionDef | cst.ClassDef, inputs: list[str]) -> bool:
    """Whether a generator definition passes values of its input parameters ``inputs`` to a call
    that reads a file: the inputs are file paths (the images are read batch by batch)."""
    if not inputs:
        return False
    if isinstance(defn, cst.FunctionDef):
        params = set(_params(defn, skip_self=False))
    else:
        methods = {s.name.value: s for s in defn.body.body if isinstance(s, cst.FunctionDef)}
        init = methods.get("__init__")
        params = set(_params(init, skip_self=True)) if init is not None else set()
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


def _call_arg(call: cst.Call, params: list[str], param: str) -> cst.BaseExpression | None:
    pos = 0
    for arg in call.args:
        if arg.keyword is not None:
            if arg.keyword.value == param:
                return arg.value
        elif not arg.star:
            if pos < len(params) and params[pos] == param:
                return arg.value
            pos += 1
    return None


class TrainingDataFinder:
    """Finds the training arrays of every fit call run once (one finder per program, cached)."""

    def __init__(self, program: Program) -> None:
        self.program = program
        self.defs = definitions(program)

    @classmethod
    def of(cls, program: Program) -> TrainingDataFinder:
        got = program.__dict__.get("_training_data_finder")
        if got is None:
            got = program.__dict__["_training_data_finder"] = cls(program)
        return got

    def findings(self) -> list[Finding]:
        cache = self.program.__dict__.get("_training_data_findings")
        if cache is None:
            cache = self.program.__dict__["_training_data_findings"] = [self._scoped(f) for f in self._all()]
        return cache

    def _scoped(self, finding: Finding) -> Finding:
        """A finding whose arrays are globals of the function holding the statement they would be
        rebound before has none: the assignment would make them local to that function, and its
        earlier reads an UnboundLocalError."""
        from mutreal.mutation.operators.session_loop import assigned_in

        a = finding.arrays
        if a is None:
            return finding
        func = next(
            (self.program.index.nodes[i] for i in self.program.index.ancestors(a.anchor)
             if isinstance(self.program.index.nodes.get(i), cst.FunctionDef)),
            None,
        )
        if not isinstance(func, cst.FunctionDef):
            return finding
        params = {p.name.value for p in [*func.params.posonly_params, *func.params.params, *func.params.kwonly_params]}
        outside = [n for n in a.names if n not in params and not assigned_in(func.body, {n})]
        if not outside:
            return finding
        return Finding(
            finding.fit,
            reason=f"the training arrays {', '.join(outside)} are globals of function {func.name.value} "
            "(rebound there they would become its locals: an UnboundLocalError)",
        )

    def _all(self) -> Iterator[Finding]:
        from mutreal.mutation.operators.hyperparameters import fit_arg_position, fit_calls
        from mutreal.mutation.operators.session_loop import SESSION_RUN, session_finding

        for fi, fit in enumerate(self.program.model.fits):
            if fit.method == SESSION_RUN:
                yield session_finding(self.program, fi)
        for fi, fit, cid in fit_calls(self.program, ("fit", "fit_generator")):
            stmt = self.program.index.statement_of(cid)
            if stmt is None or not isinstance(self.program.node(stmt), cst.SimpleStatementLine):
                yield Finding(fi, reason="the fit call is not a simple statement")
                continue
            if _in_loop(self.program, stmt):
                yield Finding(fi, reason="the fit call runs in a loop (the fault must be applied once)")
                continue
            x_names = ("x",) if fit.method == "fit" else ("generator", "x")
            x = self.program.find_arg(
                cid, x_names, fit_arg_position("fit", "x") if fit.method == "fit" else 0
            )
            y = self.program.find_arg(cid, ("y",), 1) if fit.method == "fit" else None
            if x is None:
                yield Finding(fi, reason="the fit call has no training input")
                continue
            yield self._finding(fi, stmt, x[1].value, y[1].value if y else None)

    def _finding(self, fi: int, stmt: int, x: cst.BaseExpression, y: cst.BaseExpression | None) -> Finding:
        gx, gy = _group(x), _group(y)
        if y is not None:
            if gx is None or gy is None:
                return Finding(fi, reason="the training arrays are not plain names (they cannot be rebound)")
            via = "direct" if isinstance(x, cst.Name) else "several inputs"
            return Finding(fi, Arrays(stmt, gx[0], gy[0], gx[1], gy[1], via))
        # no labels argument: the input is a wrapper (or a name bound to one)
        return self._resolve(fi, stmt, x, 0)

    def _bound(self, stmt: int, name: str) -> tuple[int, cst.BaseExpression, int | None] | None:
        """The last assignment of ``name`` before statement ``stmt`` in its block: (statement id,
        value, position of the name in a tuple target or None)."""
        for s in _block_before(self.program, stmt):
            if not isinstance(s, cst.SimpleStatementLine):
                continue
            for small in s.body:
                if not (isinstance(small, cst.Assign) and len(small.targets) == 1):
                    continue
                t = small.targets[0].target
                if isinstance(t, cst.Name) and t.value == name:
                    return id(s), small.value, None
                if isinstance(t, cst.Tuple | cst.List):
                    for i, e in enumerate(t.elements):
                        if isinstance(e.value, cst.Name) and e.value.value == name:
                            return id(s), small.value, i
        return None

    def _resolve(self, fi: int, stmt: int, expr: cst.BaseExpression, depth: int) -> Finding:
        """The arrays behind a training input evaluated just before statement ``stmt``."""
        if depth > 12:
            return Finding(fi, reason="the training input is built in too many steps")
        if not isinstance(expr, cst.Name):
            return self._unwrap(fi, stmt, expr, depth)
        bound = self._bound(stmt, expr.value)
        if bound is None:
            return Finding(
                fi, reason=f"{expr.value} is not bound in the fit call's block (its arrays are not found)"
            )
        anchor, value, pos = bound
        if _in_loop(self.program, anchor):
            return Finding(fi, reason=f"{expr.value} is built in a loop")
        if pos is None:
            return self._unwrap(fi, anchor, value, depth + 1)
        if isinstance(value, cst.Tuple | cst.List) and pos < len(value.elements):
            return self._resolve_value(fi, anchor, value.elements[pos].value, depth + 1)
        if isinstance(value, cst.Call) and isinstance(value.func, cst.Name):
            found = self.defs.find(value.func.value)
            if found is not None and found[1] == "here" and isinstance(found[0], cst.FunctionDef):
                return self._from_function(fi, anchor, value, found[0], pos, depth + 1)
        return Finding(fi, reason=f"{expr.value} is unpacked from a value whose parts are not found")

    def _resolve_value(self, fi: int, anchor: int, expr: cst.BaseExpression, depth: int) -> Finding:
        return (
            self._resolve(fi, anchor, expr, depth)
            if isinstance(expr, cst.Name)
            else self._unwrap(fi, anchor, expr, depth)
        )

    def _from_function(
        self, fi: int, anchor: int, call: cst.Call, fn: cst.FunctionDef, pos: int | None, depth: int
    ) -> Finding:
        """Arrays behind what a helper function of this module returns (part ``pos`` of a tuple):
        rebound in the caller when they are the helper's parameters, in the helper otherwise."""
        returns = [
            s
            for s in (fn.body.body if isinstance(fn.body, cst.IndentedBlock) else [])
            if isinstance(s, cst.SimpleStatementLine)
            and isinstance(s.body[0], cst.Return)
            and s.body[0].value
        ]
        if not returns or id(returns[-1]) not in self.program.index.nodes:
            return Finding(fi, reason=f"{fn.name.value} returns no training input that can be followed")
        value = returns[-1].body[0].value  # type: ignore[attr-defined]
        if pos is not None:
            if not isinstance(value, cst.Tuple) or pos >= len(value.elements):
                return Finding(fi, reason=f"{fn.name.value} returns no tuple to unpack")
            value = value.elements[pos].value
        inner = self._resolve_value(fi, id(returns[-1]), value, depth)
        a = inner.arrays
        if a is None:
            return inner
        params = _params(fn, skip_self=False)
        if not set(a.names) & set(params):
            return inner  # the helper's own arrays: rebound inside it
        if not set(a.names) <= set(params) or len(a.x) != 1 or len(a.y) > 1:
            return Finding(
                fi, reason=f"the arrays {fn.name.value} wraps are partly its own, partly given to it"
            )
        got = {n: _call_arg(call, params, n) for n in a.names}
        if not all(isinstance(v, cst.Name) for v in got.values()):
            return Finding(fi, reason=f"the arrays given to {fn.name.value} are not plain names")
        names = {k: v.value for k, v in got.items() if isinstance(v, cst.Name)}
        xs, ys = [names[n] for n in a.x], [names[n] for n in a.y]
        return Finding(
            fi,
            Arrays(
                anchor,
                xs,
                ys,
                xs[0],
                ys[0] if ys else "",
                f"{a.via} built by {fn.name.value}",
                a.wrapper,
                reads_files=a.reads_files,
            ),
        )

    def _single_slices(
        self, fi: int, anchor: int, expr: cst.BaseExpression, depth: int
    ) -> tuple[str, int] | None:
        """(array name, statement) of a one-array dataset ``from_tensor_slices(a)`` (maybe mapped)."""
        for _ in range(12):
            while (
                isinstance(expr, cst.Call)
                and isinstance(expr.func, cst.Attribute)
                and expr.func.attr.value in _DATASET_CHAIN
            ):
                expr = expr.func.value
            if isinstance(expr, cst.Name):
                bound = self._bound(anchor, expr.value)
                if bound is None or bound[2] is not None:
                    return None
                anchor, expr = bound[0], bound[1]
                continue
            if isinstance(expr, cst.Call) and last_name(expr.func) == "from_tensor_slices" and expr.args:
                arg = expr.args[0].value
                return (arg.value, anchor) if isinstance(arg, cst.Name) else None
            return None
        return None

    def _unwrap(self, fi: int, anchor: int, wrapper: cst.BaseExpression, depth: int = 0) -> Finding:
        text = self.program.module.code_for_node(wrapper).strip()
        short = text if len(text) <= 60 else text[:57] + "..."
        node = wrapper
        while (
            isinstance(node, cst.Call)
            and isinstance(node.func, cst.Attribute)
            and node.func.attr.value in _DATASET_CHAIN
        ):
            if isinstance(node.func.value, cst.Name):
                # ``ds = ds.shuffle(...)``: the dataset was built by an earlier statement
                return self._resolve(fi, anchor, node.func.value, depth + 1)
            if not isinstance(node.func.value, cst.Call):
                break
            node = node.func.value
        if not isinstance(node, cst.Call):
            return Finding(
                fi, reason=f"the training input {short} is not an array nor a call that wraps arrays"
            )
        name = last_name(node.func)
        if name in _FILE_READERS:
            return Finding(fi, reason=f"{name} streams its samples from files (no array to mutate)")
        if name == "zip" and node.args and isinstance(node.args[0].value, cst.Tuple):
            parts = [self._single_slices(fi, anchor, e.value, depth) for e in node.args[0].value.elements]
            if len(parts) == 2 and all(parts):
                (xn, xa), (yn, ya) = parts  # type: ignore[misc]
                first = min((xa, ya, anchor), key=self.program.index.position)
                return Finding(fi, Arrays(first, [xn], [yn], xn, yn, "tf.data", short))
            return Finding(fi, reason="Dataset.zip is not given two datasets of named arrays")
        if name == "from_tensor_slices" and node.args:
            first = node.args[0].value
            if isinstance(first, cst.Tuple) and len(first.elements) >= 2:
                gx, gy = _group(first.elements[0].value), _group(first.elements[1].value)
                if gx and gy:
                    return Finding(fi, Arrays(anchor, gx[0], gy[0], gx[1], gy[1], "tf.data", short))
            return Finding(fi, reason="from_tensor_slices is not given an (inputs, labels) pair of names")
        if name == "flow":
            gx = _group(_call_arg(node, ["x", "y"], "x"))
            gy = _group(_call_arg(node, ["x", "y"], "y"))
            if gx and gy:
                return Finding(
                    fi, Arrays(anchor, gx[0], gy[0], gx[1], gy[1], "ImageDataGenerator.flow", short)
                )
            return Finding(fi, reason="flow is not given its inputs and labels as names")
        if not isinstance(node.func, cst.Name):
            return Finding(fi, reason=f"the training input {short} is not a known wrapper of arrays")
        if self.defs.find(node.func.value) is None and not node.args:
            # ``batches()``: an instance of a generator class, called (its ``__call__`` yields)
            bound = self._bound(anchor, node.func.value)
            if bound is not None and bound[2] is None and isinstance(bound[1], cst.Call):
                return self._unwrap(fi, bound[0], bound[1], depth + 1)
        local = self.defs.find(node.func.value)
        if (
            local is not None
            and local[1] == "here"
            and isinstance(local[0], cst.FunctionDef)
            and not _is_generator(local[0])
        ):
            return self._from_function(fi, anchor, node, local[0], None, depth + 1)
        found = self.defs.find(node.func.value)
        if found is None:
            return Finding(
                fi, reason=f"{node.func.value} is not defined in the program's folder (its data is not found)"
            )
        defn, where = found
        kind = "generator class" if isinstance(defn, cst.ClassDef) else "generator function"
        if isinstance(defn, cst.ClassDef) and any(
            last_name(b.value) in ("Sequence", "PyDataset") for b in defn.bases
        ):
            kind = "Sequence"
        roles = _generator_roles(defn)
        if roles is None:
            return Finding(fi, reason=f"{kind} {node.func.value} yields no (inputs, labels) batch")
        params, xp, yp = roles
        if set(xp) & set(yp):
            return Finding(fi, reason=f"{kind} {node.func.value} takes its inputs and labels from one array")
        if not xp and not yp:
            return Finding(
                fi,
                reason=f"{kind} {node.func.value} reads its data itself (no batch comes from an array given to it)",
            )
        xs = [_call_arg(node, params, p) for p in xp]
        ys = [_call_arg(node, params, p) for p in yp]
        if not all(isinstance(a, cst.Name) for a in (*xs, *ys)):
            return Finding(fi, reason=f"the arrays given to {node.func.value} are not plain names")
        xn = [a.value for a in xs if isinstance(a, cst.Name)]
        yn = [a.value for a in ys if isinstance(a, cst.Name)]
        via = kind if where == "here" else f"{kind} of module {where}"
        paths = _reads_files(defn, xp)
        return Finding(
            fi,
            Arrays(
                anchor,
                xn,
                yn,
                xn[0] if len(xn) == 1 else f"({', '.join(xn)})" if xn else "",
                yn[0] if len(yn) == 1 else f"({', '.join(yn)})" if yn else "",
                via,
                short,
                reads_files=paths,
            ),
        )
