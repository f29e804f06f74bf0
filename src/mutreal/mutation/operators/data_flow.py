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

from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field

import libcst as cst

from mutreal.extract.keras_data import DATASET_METHODS
from mutreal.mutation.operators.generator_roles import (
    definitions,
    generator_roles,
    is_generator,
    params_of,
    reads_files,
)
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
        params = params_of(fn, skip_self=False)
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
            and not is_generator(local[0])
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
        roles = generator_roles(defn)
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
        paths = reads_files(defn, xp)
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
