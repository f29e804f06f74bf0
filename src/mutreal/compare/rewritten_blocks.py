"""Rewritten blocks: functions and classes whose body a fix rewrites, read as the one element they define.

Why: the statement diff (:mod:`mutreal.compare.coverage`) counts a changed statement as explained
when a component points into it, statement by statement. A function or a class is one program
element, though: the learning-rate schedule a component names is the whole ``def`` that computes
it, the optimiser class a component names is the whole ``class`` that defines it, and a custom
Keras layer the fix writes anew against the framework's layer contract is one change of how the
program uses the API, not twenty faults. The study's procedure gives one fault component per
changed element the fix needs, so the statements of such a block are that element's, explained by
its component (the component points at them through ``detail['buggy_lines']`` and
``detail['fixed_lines']``, read by :func:`mutreal.compare.coverage.cover`).

The rules, each a row of ``taxonomy/decisions.csv``:

* decision defined-element-body: a component whose value is a function it points at the ``def``
  of (a schedule, a loss), or that points at a statement reading a function or class only its
  side defines and the other side never names (the fix added it with its use), covers the body of
  that definition;
* decision model-built-by-block: an architecture component (MWA) covers the headers of the loops
  and conditions one side has that add the model's layers (a model built from a description);
* decision custom-layer-api: a Keras layer or model class that both programs define and whose
  structure the fix rewrites (its base class changes, a method is added or removed, or a block of
  a method is added or removed whole) with no component of the passes inside it is one wrong API
  usage (APW) component over the whole class;
* decision placeholder-made-argument: graph code's attribute bound to a placeholder fed a constant
  at every run, which the fix takes as a new parameter passed when the graph is built, is one APW
  component over the binding, the parameter, the calls passing it and the feeds dropped;
* decision result-assigned-in-callee: ``self.out = self.f(x)`` become ``self.f(x)`` while ``f``'s
  ``return y`` becomes ``self.out = y`` is a refactor, counted as noise
  ``result_assigned_in_callee`` (not a component: what the program computes is kept).

Not here (they need more than one file pair of a bug, or another owner's pass): a method's
argument moved into an attribute set by a new method whose callers live in another file
(TFBugs2018 SI-1), a subclassed model whose ``build``/``call`` add layers.
"""

from __future__ import annotations

import ast
from collections.abc import Iterable, Sequence
from functools import lru_cache
from typing import Any

from mutreal.compare.components import FaultComponent, make_component
from mutreal.compare.kinds import ComponentKind as K
from mutreal.compare.statement_diff import changes_of, statement_changes
from mutreal.compare.statements import Statement
from mutreal.decisions import DecisionId as D
from mutreal.decisions import applies

#: the ``detail['rule']`` of a custom-layer component
CUSTOM_LAYER_RULE = "custom_layer_api"
#: a block component's sides are source text, not values compared (its confidence says so)
@lru_cache(maxsize=8)
def compound_ends(text: str) -> dict[int, int]:
    """The last line of each compound statement of a source, by its first line.

    Read from the source itself: a statement :func:`mutreal.compare.statements.statements_of`
    takes from its cache (written the same on the other side) keeps the other side's ``end``, so a
    class or function whose body the fix lengthens would end too early there."""
    try:
        tree = ast.parse(text)
    except (SyntaxError, ValueError):
        return {}
    return {
        node.lineno: node.end_lineno or node.lineno
        for node in ast.walk(tree)
        if isinstance(node, ast.stmt)
        and any(getattr(node, b, None) for b in ("body", "orelse", "finalbody", "handlers"))
    }


def _end(header: Statement, ends: dict[int, int]) -> int:
    return ends.get(header.line, header.end)


def _body(side: Sequence[Statement], header: Statement, ends: dict[int, int]) -> list[Statement]:
    """The statements of a compound statement's body, nested ones included."""
    end = _end(header, ends)
    return [st for st in side if header.line < st.line <= end]


def _pointed(component: Any, buggy: bool) -> set[int]:
    """The lines of one side a component points into: its own and its ``detail`` lines."""
    detail = getattr(component, "detail", None) or {}
    own = component.buggy_line if buggy else component.fixed_line
    lines = set(detail.get("buggy_lines" if buggy else "fixed_lines") or ())
    return lines | ({own} if own else set())


def _hit(st: Statement, lines: set[int]) -> bool:
    return any(n in lines for n in range(st.line, st.last + 1))


@applies(D.DEFINED_ELEMENT_BODY)
def extend_to_bodies(
    components: Iterable[Any],
    buggy: Sequence[Statement],
    fixed: Sequence[Statement],
    texts: tuple[str | None, str | None] = (None, None),
) -> None:
    """Decision defined-element-body: each component whose value is a function it points at the
    ``def`` of (:func:`_valued`: a schedule, a loss), or
    at a statement reading a function or class that only its side defines and the other side
    never names (one the fix added or took away with its use: ``optimizer = DoubleGD(0.5)`` with
    ``class DoubleGD(...)`` new), points at that
    definition's body too (its ``detail`` lines grow, in place). A definition both sides have
    and the component's statement only calls (``model = build_model()``) is not taken: its body
    is the rest of the program, each change of it read on its own. ``texts`` are the two
    sources (:func:`compound_ends`)."""
    components = list(components)
    if not components:
        return
    names = {True: _defined(buggy), False: _defined(fixed)}
    if not names[True] and not names[False]:
        return
    # what each side defines or reads (read once, where needed): a helper the other side calls
    # without defining it (a posted snippet's) is the completion of that snippet, not the
    # component's element
    used: dict[bool, set[str]] = {}

    def only_mine(on_buggy: bool) -> dict[str, Statement]:
        other = not on_buggy
        if other not in used:
            side = buggy if other else fixed
            used[other] = set(names[other]) | {r.split(".")[0] for st in side for r in st.reads}
        return {n: h for n, h in names[on_buggy].items() if n not in used[other]}

    for component in components:
        for on_buggy, side in ((True, buggy), (False, fixed)):
            lines = _pointed(component, on_buggy)
            if not lines:
                continue
            hit = [st for st in side if _hit(st, lines)]
            headers = [st for st in hit if st.defines and _valued(component, st.defines)]
            if any(r.split(".")[0] in names[on_buggy] for st in hit for r in st.reads):
                mine = only_mine(on_buggy)
                headers += [mine[r.split(".")[0]] for st in hit for r in st.reads if r.split(".")[0] in mine]
            if not headers:
                continue
            text = texts[0] if on_buggy else texts[1]
            ends = compound_ends(text) if text else {}
            grown = {n for h in headers for n in range(h.line, _end(h, ends) + 1)}
            if grown - lines:
                key = "buggy_lines" if on_buggy else "fixed_lines"
                before = set(component.detail.get(key) or ())
                component.detail[key] = sorted(
                    before | (grown - ({component.buggy_line if on_buggy else component.fixed_line}))
                )


@applies(D.MODEL_BUILT_BY_BLOCK)
def extend_to_builders(
    components: Iterable[Any],
    buggy: Sequence[Statement],
    fixed: Sequence[Statement],
    texts: tuple[str | None, str | None] = (None, None),
) -> None:
    """Decision model-built-by-block: a model architecture component (MWA) points at the headers
    of the loops and conditions one side only has that build that model (their body adds layers
    to the model the component's statement binds: ``for i in range(len(desc)): if i == 0:
    model.add(Dense(desc[i], ...))``; a body that only reads a name the model's statement binds,
    a placeholder of graph code, is not building it): the fix builds the model another way, and the control
    flow that builds it is that architecture's, not a change of its own (what the header reads,
    ``desc = parse_desc(spec)``, is then explained as what feeds it). Only the headers: the layers
    in the body are the model's elements, compared by the passes."""
    components = [c for c in components if c.kind is K.MODEL_ARCHITECTURE]
    if not components:
        return
    # the pair's diff, as cover reads it (cached for the same two lists)
    changes = changes_of(buggy, fixed) if isinstance(buggy, list) and isinstance(fixed, list) else []
    for component in components:
        for on_buggy, side in ((True, buggy), (False, fixed)):
            lines = _pointed(component, on_buggy)
            built = {b for st in side if _hit(st, lines) for b in st.binds}
            if not built:
                continue
            text = texts[0] if on_buggy else texts[1]
            ends = compound_ends(text) if text else {}
            grown: set[int] = set()
            for change in changes:
                mine, theirs = (change.buggy, change.fixed) if on_buggy else (change.fixed, change.buggy)
                if mine is None or theirs is not None or mine.defines or _end(mine, ends) <= mine.last:
                    continue
                body = _body(side, mine, ends)
                if any(f"{b}.add" in st.reads for st in body for b in built):
                    grown |= set(range(mine.line, mine.last + 1))
            if grown - lines:
                key = "buggy_lines" if on_buggy else "fixed_lines"
                component.detail[key] = sorted(set(component.detail.get(key) or ()) | grown)


def _valued(component: Any, names: Iterable[str]) -> bool:
    """The component's value is the function itself: the passes show a function they compared
    by its body as ``name: body`` (``lr_schedule: return 0.001 if p0 <= 80 else ...``); a header
    it points at for a default argument (``def __init__(self, epochs=400)``) is not the element."""
    texts = [t for t in (component.before, component.after) if isinstance(t, str)]
    return any(t.startswith(f"{name}:") for t in texts for name in names)


def _defined(side: Sequence[Statement]) -> dict[str, Statement]:
    """The functions and classes a side defines, by name (the first definition of a name)."""
    out: dict[str, Statement] = {}
    for st in side:
        for name in st.defines:
            out.setdefault(name, st)
    return out


# ---------------------------------------------------------------------------------------------------
# Custom Keras layers rewritten against the layer contract
# ---------------------------------------------------------------------------------------------------


def _aliases(side: Sequence[Statement]) -> dict[str, str]:
    """What each imported or aliased name stands for (``Layer`` -> ``keras.layers.Layer``,
    ``tfk`` -> ``tf.keras``), read from the side's imports and plain ``name = a.b`` assignments."""
    out: dict[str, str] = {}
    for st in side:
        node = st.node
        if isinstance(node, ast.Import):
            for a in node.names:
                out[a.asname or a.name.split(".")[0]] = a.name if a.asname else a.name.split(".")[0]
        elif isinstance(node, ast.ImportFrom) and node.module:
            for a in node.names:
                out[a.asname or a.name] = f"{node.module}.{a.name}"
        elif (
            isinstance(node, ast.Assign)
            and len(node.targets) == 1
            and isinstance(node.targets[0], ast.Name)
            and isinstance(node.value, ast.Attribute)
        ):
            out[node.targets[0].id] = ast.unparse(node.value)
    return out


def _resolved(text: str, aliases: dict[str, str]) -> str:
    """A dotted name with its root replaced by what it stands for, a few times over."""
    for _ in range(4):
        root, _, rest = text.partition(".")
        full = aliases.get(root)
        if full is None or full == root:
            return text
        text = f"{full}.{rest}" if rest else full
    return text


def _keras_class(header: Statement, aliases: dict[str, str]) -> bool:
    """A class whose base is a Keras layer or model (``keras.layers.Layer``, ``tf.keras.Model``,
    ``layers.Conv2D``); a project's own ``model.Model`` is not, and neither is a Keras callback,
    data ``Sequence`` or optimiser (their rewrite is a change of training or data, not of how a
    layer is written)."""
    node = header.node
    if not isinstance(node, ast.ClassDef):
        return False
    for base in node.bases:
        try:
            text = ast.unparse(base)
        except Exception:  # pragma: no cover - an unusual base ast cannot print
            continue
        parts = _resolved(text, aliases).split(".")
        keras = "keras" in parts
        layer = bool({"layers", "models", "engine"} & set(parts[:-1])) or parts[-1] in _LAYER_BASES
        if keras and layer:
            return True
    return False


#: the last name of a Keras base class that makes a class a layer or a model
_LAYER_BASES = frozenset({"Layer", "Model", "Sequential"})


def _bases(header: Statement) -> str:
    node = header.node
    return ", ".join(ast.unparse(b) for b in node.bases) if isinstance(node, ast.ClassDef) else ""


def _methods(side: Sequence[Statement], header: Statement, ends: dict[int, int]) -> set[str]:
    """The names of the methods a class defines directly (not those of nested classes)."""
    body = _body(side, header, ends)
    nested = [st for st in body if st.defines]
    return {
        name
        for st in nested
        if not any(o is not st and o.line < st.line <= _end(o, ends) for o in nested)
        for name in st.defines
    }


@applies(D.CUSTOM_LAYER_API)
def custom_layer_components(
    buggy: Sequence[Statement],
    fixed: Sequence[Statement],
    components: Iterable[Any],
    texts: tuple[str | None, str | None] = (None, None),
) -> list[FaultComponent]:
    """Decision custom-layer-api: one APW component (kind ``graph.api``, the code of how the
    program uses the framework's API) for each Keras layer or model class both sides define whose
    structure the fix rewrites: its base class changes (a ``Model`` built in ``__init__`` turned
    into a ``Layer`` with ``build``/``call``), a method is added or removed, or a block of its
    methods (an ``if``, a loop) is added or removed whole (code the framework's version no longer
    supports taken out). The component points at every line of the class on each side. Not where
    a component of the passes already points inside the class (the fix changed an element they
    compare, an activation or an initialiser: that component is the fault), and not where the
    class only has statements changed in place (a changed activation in ``call`` is its own
    change, listed where nothing explains it). ``texts`` are the two sources
    (:func:`compound_ends`)."""
    components = list(components)
    if not any(isinstance(st.node, ast.ClassDef) for st in buggy if st.defines):
        return []
    bdefs, fdefs = _defined(buggy), _defined(fixed)
    aliases: list[dict[str, str]] = []  # read once, where a class both sides define is found
    out: list[FaultComponent] = []
    for name, bh in bdefs.items():
        fh = fdefs.get(name)
        if fh is None or not (isinstance(bh.node, ast.ClassDef) and isinstance(fh.node, ast.ClassDef)):
            continue
        if not aliases:
            aliases += [_aliases(buggy), _aliases(fixed)]
        if not (_keras_class(bh, aliases[0]) or _keras_class(fh, aliases[1])):
            continue
        bends = compound_ends(texts[0]) if texts[0] else {}
        fends = compound_ends(texts[1]) if texts[1] else {}
        blines, flines = set(range(bh.line, _end(bh, bends) + 1)), set(range(fh.line, _end(fh, fends) + 1))
        if any(_pointed(c, True) & blines or _pointed(c, False) & flines for c in components):
            continue  # a compared element changed inside it: that component is the fault
        bbody, fbody = _body(buggy, bh, bends), _body(fixed, fh, fends)
        changes = statement_changes(list(bbody), list(fbody))
        if not changes:
            continue
        rewritten = (
            _bases(bh) != _bases(fh)
            or _methods(buggy, bh, bends) != _methods(fixed, fh, fends)
            or any(_whole_block(c.buggy, bbody, changes, True, bends) for c in changes if c.fixed is None)
            or any(_whole_block(c.fixed, fbody, changes, False, fends) for c in changes if c.buggy is None)
        )
        if not rewritten:
            continue
        file_b, file_f = bh.file, fh.file
        out.append(
            make_component(
                f"class[{name}]",
                K.CUSTOM_CLASS_API,
                "changed",
                bh.source,
                fh.source,
                (file_b, bh.line),
                (file_f, fh.line),
                rule=CUSTOM_LAYER_RULE,
                buggy_lines=sorted(blines - {bh.line}),
                fixed_lines=sorted(flines - {fh.line}),
            )
        )
    return out


def _whole_block(
    header: Statement | None, body: Sequence[Statement], changes: list, on_buggy: bool, ends: dict[int, int]
) -> bool:
    """A compound statement (``if``, ``for``, ``with``...) one side only has, with its whole body
    one-sided too: a block added or taken out, not a header put around statements both sides
    have."""
    if header is None or _end(header, ends) <= header.last or header.defines:
        return False
    one_sided = {
        id(c.buggy if on_buggy else c.fixed) for c in changes if (c.fixed if on_buggy else c.buggy) is None
    }
    inside = [st for st in body if header.line < st.line <= _end(header, ends) and st.noise is None]
    return bool(inside) and all(id(st) in one_sided for st in inside)


# ---------------------------------------------------------------------------------------------------
# A result assigned in the function that computes it instead of by its caller
# ---------------------------------------------------------------------------------------------------

#: noise name of decision result-assigned-in-callee (reported in ``noise_statements``)
RESULT_IN_CALLEE = "result_assigned_in_callee"


def _callee(call: ast.Call) -> str | None:
    func = call.func
    return func.attr if isinstance(func, ast.Attribute) else func.id if isinstance(func, ast.Name) else None


def _same(a: ast.AST, b: ast.AST) -> bool:
    return ast.dump(a) == ast.dump(b)


@applies(D.RESULT_ASSIGNED_IN_CALLEE)
def result_assigned_in_callee(
    coverage: Any,
    buggy: Sequence[Statement],
    fixed: Sequence[Statement],
    texts: tuple[str | None, str | None] = (None, None),
) -> Any:
    """Decision result-assigned-in-callee: the caller's ``self.out = self.build(x)`` becomes
    ``self.build(x)`` while the function's last ``return y`` becomes ``self.out = y`` (or the
    other way round): the same value bound to the same target, assigned where it is computed.
    Both changes are a refactor that keeps what the program computes (the study's same-semantics
    changes): they leave the coverage's changes (explained or not) and are counted as noise
    ``result_assigned_in_callee``. Only where every other call of the function on the side that
    no longer reads its result is a call made for its effect (no other caller loses the value).
    Returns the coverage, changed in place."""
    pairs = [c for c in coverage.changes if c.buggy is not None and c.fixed is not None]  # the calls
    gone: list[Any] = []
    for call_change in pairs:
        if any(call_change is g for g in gone):
            continue
        for assigning_buggy in (True, False):
            assigning = call_change.buggy if assigning_buggy else call_change.fixed
            plain = call_change.fixed if assigning_buggy else call_change.buggy
            a_side, p_side = (buggy, fixed) if assigning_buggy else (fixed, buggy)
            a, p = assigning.node, plain.node
            if not (
                isinstance(a, ast.Assign)
                and len(a.targets) == 1
                and isinstance(p, ast.Expr)
                and isinstance(p.value, ast.Call)
                and _same(a.value, p.value)
            ):
                continue
            name = _callee(p.value)
            a_def, p_def = _defined(a_side).get(name or ""), _defined(p_side).get(name or "")
            if name is None or a_def is None or p_def is None:
                continue
            callers = [
                st
                for st in p_side
                if st is not plain and not st.defines and any(r.split(".")[-1] == name for r in st.reads)
            ]
            if not all(isinstance(st.node, ast.Expr) for st in callers):
                continue  # another caller still reads the result
            a_text, p_text = (texts[0], texts[1]) if assigning_buggy else (texts[1], texts[0])
            a_end = _end(a_def, compound_ends(a_text) if a_text else {})
            p_end = _end(p_def, compound_ends(p_text) if p_text else {})
            found = _moved_return(
                coverage.changes, call_change, a.targets[0], assigning_buggy, (a_def, a_end), (p_def, p_end)
            )
            if found:
                gone += [c for c in (call_change, *found) if not any(c is g for g in gone)]
                break
    if gone:
        _drop(coverage, gone, RESULT_IN_CALLEE)
    return coverage


def _moved_return(
    changes: list[Any],
    call_change: Any,
    target: ast.expr,
    assigning_buggy: bool,
    returning: tuple[Statement, int],
    binding: tuple[Statement, int],
) -> list[Any]:
    """The changes that turn the callee's ``return y`` (on the side whose caller assigns the
    result) into ``target = y`` (on the other side), inside the function on each side: one
    changed statement, or a removed return and an added assignment; [] where there are none."""
    (r_def, r_end), (b_def, b_end) = returning, binding
    for c1 in changes:
        ret = c1.buggy if assigning_buggy else c1.fixed
        if c1 is call_change or ret is None or not (r_def.line < ret.line <= r_end):
            continue
        r = ret.node
        if not (isinstance(r, ast.Return) and r.value is not None):
            continue
        for c2 in changes:
            bound = c2.fixed if assigning_buggy else c2.buggy
            partner = c2.buggy if assigning_buggy else c2.fixed
            if c2 is call_change or bound is None or not (b_def.line < bound.line <= b_end):
                continue
            if partner is not None and c2 is not c1:
                continue  # the assignment changed from another statement: not the return moved
            other = c1.fixed if assigning_buggy else c1.buggy
            if other is not None and other is not bound:
                continue
            b = bound.node
            if (
                isinstance(b, ast.Assign)
                and len(b.targets) == 1
                and _same(b.targets[0], target)
                and _same(b.value, r.value)
            ):
                return [c1] if c1 is c2 else [c1, c2]
    return []


def _drop(coverage: Any, gone: list[Any], rule: str) -> None:
    """Take changes out of a coverage (explained or not) and count them as noise ``rule``."""
    ids = {id(c) for c in gone}
    still_open = {id(c) for c in coverage.open}
    explained = sum(1 for c in coverage.changes if id(c) in ids and id(c) not in still_open)
    kept = [(c, u) for c, u in zip(coverage.open, coverage.unexplained, strict=True) if id(c) not in ids]
    coverage.open = [c for c, _ in kept]
    coverage.unexplained = [u for _, u in kept]
    coverage.changes = [c for c in coverage.changes if id(c) not in ids]
    coverage.changed -= len(ids)
    coverage.explained -= explained
    coverage.noise[rule] = coverage.noise.get(rule, 0) + len(ids)


# ---------------------------------------------------------------------------------------------------
# A placeholder fed a constant at every run, given as an argument when the graph is built
# ---------------------------------------------------------------------------------------------------


def _feeds(node: ast.AST | None, attribute: str) -> bool:
    """A statement holding a dict that feeds ``<object>.<attribute>`` (a feed dict's key)."""
    if node is None:
        return False
    return any(
        isinstance(d, ast.Dict)
        and any(isinstance(k, ast.Attribute) and k.attr == attribute for k in d.keys if k is not None)
        for d in ast.walk(node)
    )


def _passes_keyword(node: ast.AST | None, callees: set[str], keyword: str) -> bool:
    """A statement calling one of ``callees`` with ``keyword=`` (``Model(..., prefix='train')``)."""
    if node is None:
        return False
    return any(
        isinstance(call, ast.Call)
        and _callee(call) in callees
        and any(k.arg == keyword for k in call.keywords)
        for call in ast.walk(node)
    )


@applies(D.PLACEHOLDER_MADE_ARGUMENT)
def placeholder_arguments(
    buggy: Sequence[Statement],
    fixed: Sequence[Statement],
    texts: tuple[str | None, str | None] = (None, None),
) -> list[FaultComponent]:
    """Decision placeholder-made-argument: graph code that binds ``self.A`` to a
    ``tf.placeholder`` and feeds ``model.A: 'train'`` at every run, where the fix takes the
    value as a new parameter ``a`` of the function that binds it (``self.A = a``, the placeholder
    at most a fallback) and the callers pass ``a='train'`` when they build the graph, no feed
    giving it any more: a value the graph's building needs as a Python value (a summary's name)
    was handed a tensor, the study's wrong API usage (APW). One component for the change: the
    binding, the function's new parameter and the statements reading it there, the calls that
    pass it and the feed dicts that no longer feed it."""
    candidates = [
        st for st in buggy if "placeholder(" in st.written and any(b.startswith("self.") for b in st.binds)
    ]
    if not candidates or not isinstance(buggy, list) or not isinstance(fixed, list):
        return []
    fends = compound_ends(texts[1]) if texts[1] else {}
    defs = [st for st in fixed if st.defines]
    changes = None
    out: list[FaultComponent] = []
    for st in candidates:
        for attribute in sorted(b[5:] for b in st.binds if b.startswith("self.") and b.count(".") == 1):
            rebound = [f for f in fixed if f"self.{attribute}" in f.binds and "placeholder(" not in f.written]
            bfeeds = [b for b in buggy if b is not st and _feeds(b.node, attribute)]
            if not rebound or not bfeeds or any(_feeds(f.node, attribute) for f in fixed):
                continue
            binding = rebound[0]
            around = [d for d in defs if d.line < binding.line <= _end(d, fends)]
            if not around:
                continue
            function = around[-1]  # the innermost definition holding the binding
            parameter = next((r for r in binding.reads if r in function.binds and r != "self"), None)
            buggy_function = _defined(buggy).get(next(iter(function.defines)))
            if parameter is None or (buggy_function is not None and parameter in buggy_function.binds):
                continue  # no new parameter: the value comes from elsewhere
            owners = [d for d in defs if d.line < function.line <= _end(d, fends)]
            callees = set(function.defines) | {n for d in owners for n in d.defines}
            if changes is None:
                changes = changes_of(buggy, fixed)
            blines: set[int] = set()
            flines: set[int] = set()
            for c in changes:
                b, f = c.buggy, c.fixed
                body = f is not None and function.line <= f.line <= _end(function, fends)
                if (
                    (b is not None and (b is st or any(b is x for x in bfeeds)))
                    or (body and f is not None and (parameter in f.reads or parameter in f.binds))
                    or (f is not None and _passes_keyword(f.node, callees, parameter))
                ):
                    blines |= set(range(b.line, b.last + 1)) if b is not None else set()
                    flines |= set(range(f.line, f.last + 1)) if f is not None else set()
            out.append(
                make_component(
                    f"placeholder[{attribute}]",
                    K.GRAPH_API,
                    "changed",
                    st.source,
                    binding.source,
                    (st.file, st.line),
                    (binding.file, binding.line),
                    rule="placeholder_made_argument",
                    raw_tensorflow=True,
                    buggy_lines=sorted(blines - {st.line}),
                    fixed_lines=sorted(flines - {binding.line}),
                )
            )
    return out


# ---------------------------------------------------------------------------------------------------
# A method's argument made an attribute a new method sets once (across the files of a bug)
# ---------------------------------------------------------------------------------------------------


def _positional(node: ast.AST | None, method: str) -> list[ast.Call]:
    """The calls ``<object>.<method>(...)`` a statement makes."""
    if node is None:
        return []
    return [
        call
        for call in ast.walk(node)
        if isinstance(call, ast.Call) and isinstance(call.func, ast.Attribute) and call.func.attr == method
    ]


@applies(D.ARGUMENT_MADE_ATTRIBUTE)
def argument_made_attribute(coverage: Any) -> list[FaultComponent]:
    """Decision argument-made-attribute, over all the files of a bug (its coverage's changes):
    in graph code a method loses a parameter ``p`` (``def cd1(self, visibles, rate)`` ->
    ``def cd1(self, rate)``), a new method of the same file sets ``self.p`` to a TensorFlow
    tensor made from its own argument (``def init_visibles(self, visibles): self.visibles =
    tf.constant(visibles)``), and every call that handed ``p`` (``layer.cd1(trX)``) hands it no
    more while a new call hands that same argument to the new method once
    (``layer.init_visibles(trX)``). The graph no longer gets the array as a new constant at each
    call: how the program builds its graph, the study's wrong API usage (APW), one component.
    Its changes, in whatever file, are explained by it (taken out of the coverage's open list
    here: a component's ``detail`` lines name one file per side). Where the attribute is no
    tensor (a plain refactor) or a call hands another argument, nothing is taken."""
    changes = list(coverage.changes)
    out: list[FaultComponent] = []
    for header in changes:
        b, f = header.buggy, header.fixed
        if b is None or f is None:
            continue
        bn, fn = b.node, f.node
        if not (isinstance(bn, ast.FunctionDef) and isinstance(fn, ast.FunctionDef) and bn.name == fn.name):
            continue
        bparams, fparams = [a.arg for a in bn.args.args], [a.arg for a in fn.args.args]
        lost = [p for p in bparams if p not in fparams]
        if len(lost) != 1 or not bparams or bparams[0] != "self":
            continue
        param, method = lost[0], bn.name
        index = bparams.index(param) - 1  # its place among a call's positional arguments
        setter = _attribute_setter(changes, f.file, param)
        if setter is None:
            continue
        new_def, assignment = setter
        setter_name = new_def.fixed.node.name  # type: ignore[union-attr]
        handed = [
            c
            for c in changes
            if c.buggy is not None
            and c.fixed is not None
            and _positional(c.buggy.node, method)
            and _positional(c.fixed.node, method)
        ]
        added = [c for c in changes if c.buggy is None and _positional(c.fixed.node, setter_name)]
        if not handed or len(added) != 1:
            continue
        given = [ast.dump(a) for call in _positional(added[0].fixed.node, setter_name) for a in call.args]
        dropped = []
        for c in handed:
            for bcall, fcall in zip(
                _positional(c.buggy.node, method), _positional(c.fixed.node, method), strict=False
            ):
                if len(bcall.args) == len(fcall.args) + 1 and len(bcall.args) > index:
                    dropped.append(ast.dump(bcall.args[index]))
        if len(given) != 1 or not dropped or any(d != given[0] for d in dropped):
            continue  # a call handed another value: setting it once changes what runs
        involved = [header, new_def, assignment, *handed, *added]
        out.append(
            make_component(
                f"attribute[{param}]",
                K.GRAPH_API,
                "changed",
                b.source,
                assignment.fixed.source,  # type: ignore[union-attr]
                (b.file, b.line),
                (assignment.fixed.file, assignment.fixed.line),  # type: ignore[union-attr]
                rule="argument_made_attribute",
                raw_tensorflow=True,
            )
        )
        _explain(coverage, involved)
    return out


def _attribute_setter(changes: list[Any], file: str, param: str) -> tuple[Any, Any] | None:
    """An added method of ``file`` whose added body sets ``self.<param>`` to a TensorFlow call on
    its own argument: (the header's change, the assignment's change), or None."""
    for new_def in changes:
        st = new_def.fixed
        if (
            new_def.buggy is not None
            or st is None
            or st.file != file
            or not isinstance(st.node, ast.FunctionDef)
        ):
            continue
        own = {a.arg for a in st.node.args.args} - {"self"}
        for c in changes:
            a = c.fixed
            if c.buggy is not None or a is None or a.file != file or not (st.line < a.line <= st.end):
                continue
            node = a.node
            if (
                isinstance(node, ast.Assign)
                and len(node.targets) == 1
                and isinstance(node.targets[0], ast.Attribute)
                and node.targets[0].attr == param
                and isinstance(node.targets[0].value, ast.Name)
                and node.targets[0].value.id == "self"
                and {r.split(".")[0] for r in a.reads} & own
                and {r.split(".")[0] for r in a.reads} & {"tf", "tensorflow"}
            ):
                return new_def, c
    return None


def _explain(coverage: Any, involved: list[Any]) -> None:
    """Count changes of a coverage as explained (a component found over several files)."""
    ids = {id(c) for c in involved}
    kept = [(c, u) for c, u in zip(coverage.open, coverage.unexplained, strict=True) if id(c) not in ids]
    coverage.explained += len(coverage.open) - len(kept)
    coverage.open = [c for c, _ in kept]
    coverage.unexplained = [u for _, u in kept]
