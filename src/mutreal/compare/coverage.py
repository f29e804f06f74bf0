"""Diff coverage: every changed statement of a pair is explained by a component, is noise, or is
listed as an unexplained change.

Why: the passes report what their rules recognise and are silent about the rest, so a user could
not tell "no fault component" from "a change mutreal did not understand". This module reads the two
sources statement by statement (Python's ``ast``, so formatting, comments, quotes and parentheses,
the study's same-semantics syntax, never count), drops what the study's noise rules ignore (prints,
logging, plotting, result files, verbosity, metrics, imports and spellings, renames, the completion
of a posted snippet), pairs the rest with :mod:`difflib` and checks each changed statement against
the components' lines. What no component covers is an :class:`UnexplainedChange`: its file, line,
text and what it touches (:data:`mutreal.compare.statements.TOUCHES`, read from the names it calls), never dropped.

A statement counts as explained when a component points into it, when its counterpart in the
other program does, or when it binds a name that an explained statement of its side reads (the
value moved into a variable: ``n = 128`` feeding the changed layer).
"""

from __future__ import annotations

import ast
import builtins
import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

from mutreal.compare.benchmark_edits import REWRITE_MIN, cut_program, restored_model, written_in
from mutreal.compare.fix_extent import (
    changed_reads,
    component_lines,
    component_names,
    counted_loops,
    feeds_component,
    header_of_fix,
    hit,
    in_function_of_fix,
    matched_feed,
)
from mutreal.compare.statement_diff import StatementChange, changes_of, operands_reordered, renamed
from mutreal.compare.statements import Statement, parse_statement, touches
from mutreal.decisions import DecisionId as D
from mutreal.decisions import applies
from mutreal.program.model import ProgramModel
from mutreal.serialise import Record

#: noise rule names this module applies (the rules are registered in :mod:`mutreal.compare`)
RENAMED = "renamed_variables"  # :func:`mutreal.compare.values.same_expression_renamed`, on statements
COMPLETION = "completed_snippet"
#: not a rule of its own: the statement's element was compared by the passes, under the noise
#: rules, and found equal (``Dense(n); Activation('relu')`` is ``Dense(n, activation='relu')``)
COMPARED = "compared_equal"
DATA_SOURCE = "synthetic_data_source"
#: a change the tolerant parse's reading made (decision lost-block-noise)
LOST_BLOCK = "lost_block"
#: a header only one side has around statements both sides have (decision regrouped-block-noise)
REGROUPED = "regrouped_block"
#: one program replaced by another (decision rewritten-program)
REWRITE = "rewritten_program"
#: a model restored from a file the post saved, dropped by the benchmark (decision restored-model-noise)
RESTORED = "restored_model"
#: the post cut down to what shows the fault (decision cut-program)
CUT = "cut_program"
#: rule value_moved_into_variable (:mod:`mutreal.compare.values`), on statements
MOVED_VALUE = "value_moved_into_variable"


@dataclass
class UnexplainedChange(Record):
    """A changed statement no component covers: a recall gap made visible, never dropped."""

    file: str | None
    line: int | None
    #: ``changed`` (a statement of each side), ``added`` (fixed only) or ``removed`` (buggy only)
    change: str
    before: str | None = None
    after: str | None = None
    touches: str = "other"
    fixed_file: str | None = None
    fixed_line: int | None = None
    #: the code of what the change touches (:mod:`mutreal.label.best_code`), and why; None where
    #: the table names nothing it touches
    best_code: str | None = None
    best_code_reason: str | None = None


@dataclass
class Coverage:
    """The statement diff of a bug and how much of it the components explain."""

    changed: int = 0
    explained: int = 0
    #: changed statements the noise rules took out, by rule (not counted in ``changed``)
    noise: dict[str, int] = field(default_factory=dict)
    unexplained: list[UnexplainedChange] = field(default_factory=list)
    #: the changes themselves (not written out), and those no component explains
    changes: list[StatementChange] = field(default_factory=list, repr=False)
    open: list[StatementChange] = field(default_factory=list, repr=False)

    def add(self, other: Coverage) -> None:
        self.changed += other.changed
        self.explained += other.explained
        for k, v in other.noise.items():
            self.noise[k] = self.noise.get(k, 0) + v
        self.unexplained += other.unexplained
        self.changes += other.changes
        self.open += other.open

    @property
    def share(self) -> float | None:
        """Share of changed statements explained (None when nothing changed)."""
        return self.explained / self.changed if self.changed else None


_BUILTINS = frozenset(dir(builtins))

# ---------------------------------------------------------------------------------------------------
# Noise over the changes: renames and the completion of a snippet
# ---------------------------------------------------------------------------------------------------


def _completion(changes: list[StatementChange], buggy: list[Statement], fixed: list[Statement]) -> set[int]:
    """Indices of added statements that complete a posted snippet (the study's 4.2.1): they bind a
    name the buggy program reads but never binds, call a function or class it defines but never
    calls, or bind only names that such statements read."""
    bound = set().union(*(s.binds for s in buggy)) if buggy else set()
    read = set().union(*(s.reads for s in buggy)) if buggy else set()
    roots = {r.split(".")[0] for r in read}
    free = {r for r in roots if r not in bound}
    defined = set().union(*(s.defines for s in buggy)) if buggy else set()
    called = {r.split(".")[0] for s in buggy if not s.defines for r in s.reads}
    uncalled = defined - called
    added = {i for i, c in enumerate(changes) if c.buggy is None and c.fixed is not None}
    done: set[int] = set()
    for i in added:
        s = changes[i].fixed
        assert s is not None
        if s.binds & free or {r.split(".")[0] for r in s.reads} & uncalled:
            done.add(i)
    while True:
        grown = set(done)
        readers = [changes[i].fixed for i in done]
        done_binds = {b for s in readers if s is not None for b in s.binds}
        for i in added - done:
            s = changes[i].fixed
            assert s is not None
            roots_read = {r.split(".")[0] for r in s.reads}
            if s.binds and all(
                any(b in r.reads or b in {x.split(".")[0] for x in r.reads} for r in readers if r is not None)
                for b in s.binds
            ):
                grown.add(i)  # only completion statements read what it binds
            elif (
                not s.binds
                and roots_read
                and roots_read & done_binds
                and roots_read <= done_binds | _BUILTINS
            ):
                grown.add(i)  # it drives what the completion built
        if grown == done:
            return done
        done = grown


# ---------------------------------------------------------------------------------------------------
# Explaining changes with components
# ---------------------------------------------------------------------------------------------------


#: what trains: a training, evaluation or session call, or an optimiser's step (the seeds of the slice)
_TRAINS = re.compile(
    r"\.(fit|fit_generator|train_on_batch|evaluate|evaluate_generator|compile|minimize|apply_gradients|train)\(|"
    r"\b(global_variables_initializer|initialize_all_variables|variables_initializer)\("
)
#: a statement building a training operation
_TRAIN_OP = re.compile(r"minimize\(|apply_gradients\(|create_train_op\(")
#: a session's run, or a tensor's: it trains when it runs what a training statement binds
_RUNS = re.compile(r"\brun\(")
#: a statement handing a function's result back
_RETURNS = re.compile(r"^(return|yield)\b")
def _effect(statement: Statement) -> bool:
    """A statement of a function's body that acts by itself: a return or yield, a session's run
    or a training call (whatever it assigns), a call made for its effect (an expression
    statement) other than a print or a log; not another assignment, not a compound header."""
    if statement.noise is not None:
        return False  # a print or a log acts for the reader only
    written = statement.written
    if _RETURNS.match(written) or _RUNS.search(written) or _TRAINS.search(written) or ".eval(" in written:
        return True  # what it hands back; a run or a training call, its results kept or not
    return isinstance(statement.node, ast.Expr) or statement.node is None


#: a random seed: which sample is drawn, not what is trained
_SEED = re.compile(r"\bseed\(|set_random_seed\(|set_seed\(")
#: noise categories of the statement diff beside the study's rules (reported in ``noise``)
OUTSIDE_TRAINING = "outside_training"
SEEDS = "random_seeds"


def training_slice(side: list[Statement], modelled: set[tuple[str, int]]) -> set[int]:
    """Indices of the statements the training depends on: those that train (a modelled element,
    a training or evaluation call, a session run of a training operation, the variables'
    initialiser), what binds the names they read, transitively, the
    compound statements around them and the functions they call. Flow-insensitive on names: a
    statement outside it changes neither the model, nor its hyperparameters, nor its training."""
    inside: set[int] = set()
    for i, st in enumerate(side):
        if _TRAINS.search(st.written) or any((st.file, n) in modelled for n in range(st.line, st.last + 1)):
            inside.add(i)
    # graph code: a run trains when it runs a training operation (``sess.run(train_op, ...)``,
    # ``train_step.run(...)``); a run fetching the loss or accuracy to show them only reports
    train_ops = {b for st in side if _TRAIN_OP.search(st.written) for b in st.binds}
    for i, st in enumerate(side):
        roots = {r.split(".")[0] for r in st.reads}
        if _RUNS.search(st.written) and (roots & train_ops or any("train" in r.lower() for r in roots)):
            inside.add(i)
    if not inside:
        return set(range(len(side)))  # no training recognised: nothing can be told outside it
    binders: dict[str, list[int]] = {}
    for i, st in enumerate(side):
        for b in st.binds:
            binders.setdefault(b, []).append(i)
            binders.setdefault(b.split(".")[0], []).append(i)
    compound = [j for j, o in enumerate(side) if o.end > o.last]
    todo = list(inside)
    while todo:
        i = todo.pop()
        st = side[i]
        wanted = set(st.reads) | {r.split(".")[0] for r in st.reads}
        around = [j for j in compound if side[j].line < st.line <= side[j].end]
        # a function called from the slice: what it returns and the calls it makes for their
        # effect (``random.shuffle(rows)``), then what those read, by their names; not every
        # assignment of its body (a string built only to be printed is not in the slice)
        within = (
            [j for j, o in enumerate(side) if st.line < o.line <= st.end and _effect(o)] if st.defines else []
        )
        for j in [k for name in wanted for k in binders.get(name, ())] + around + within:
            if j not in inside:
                inside.add(j)
                todo.append(j)
    return inside


def _synthetic_names(side: list[Statement]) -> set[str]:
    """Names a program binds from arrays it makes up (``x = np.random.random((10, 4))``)."""
    return {b for st in side if st.synthetic for b in st.binds}


def _feeding(side: list[Statement], names: set[str]) -> set[int]:
    """Indices of the statements ``names`` are computed from (the names' backward slice)."""
    inside = {i for i, st in enumerate(side) if st.binds & names}
    todo = list(inside)
    while todo:
        st = side[todo.pop()]
        wanted = set(st.reads) | {r.split(".")[0] for r in st.reads}
        for j, other in enumerate(side):
            in_body = bool(st.defines) and st.line < other.line <= st.end  # a helper's body
            if j not in inside and (other.binds & wanted or in_body):
                inside.add(j)
                todo.append(j)
    return inside


class _Inline(ast.NodeTransformer):
    def __init__(self, name: str, value: ast.expr) -> None:
        self.name, self.value = name, value

    def visit_Name(self, node: ast.Name) -> ast.AST:
        return self.value if node.id == self.name and isinstance(node.ctx, ast.Load) else node


def _inlined(changes: list[StatementChange]) -> set[int]:
    """Rule value_moved_into_variable on statements: indices of changes that only move a value
    into a variable or out of it. A one-sided assignment ``init = E`` and a statement reading
    ``init`` that, with ``E`` written in its place, is its counterpart on the other side
    (``init = tf.global_variables_initializer(); sess.run(init)`` against
    ``sess.run(tf.global_variables_initializer())``): the same statements run with the same value."""
    out: set[int] = set()
    # the names each side's changed statements read: an assignment nothing changed reads is
    # never parsed (most are not)
    read = {
        True: {r for c in changes if c.buggy is not None for r in c.buggy.reads},
        False: {r for c in changes if c.fixed is not None for r in c.fixed.reads},
    }
    for a, c in enumerate(changes):
        for on_buggy in (True, False):
            one = c.buggy if on_buggy else c.fixed
            if a not in out and one is not None and len(one.binds) == 1 and one.binds <= read[on_buggy]:
                _inline_one(changes, a, on_buggy, out)
    return out


def _inline_one(changes: list[StatementChange], a: int, on_buggy: bool, out: set[int]) -> None:
    """:func:`_inlined` for the assignment of change ``a`` on one side: one-sided, or changed into
    the very statement that reads it with its value written in (the diff pairs them by likeness)."""
    assign = changes[a]
    one = assign.buggy if on_buggy else assign.fixed
    counterpart = assign.fixed if on_buggy else assign.buggy
    if one is None or len(one.binds) != 1 or one.end > one.last:
        return
    tree = parse_statement(one.text)
    if not (isinstance(tree, ast.Assign) and len(tree.targets) == 1 and isinstance(tree.targets[0], ast.Name)):
        return
    name, value = tree.targets[0].id, tree.value
    for r, reader in enumerate(changes):
        if r == a or r in out:
            continue
        mine = reader.buggy if on_buggy else reader.fixed
        if mine is None or name not in mine.reads:
            continue
        theirs = reader.fixed if on_buggy else reader.buggy
        if counterpart is not None:
            if theirs is not None:
                continue  # the reader's counterpart is its own; the assignment's is the inlined one
            partners = [(a, counterpart)]
        elif theirs is not None:
            partners = [(r, theirs)]
        else:
            partners = [
                (k, c.fixed if on_buggy else c.buggy)
                for k, c in enumerate(changes)
                if k not in out and k != a and (c.buggy is None if on_buggy else c.fixed is None)
            ]
        mine_tree = parse_statement(mine.text)
        if mine_tree is None:
            continue
        inlined = ast.unparse(_Inline(name, value).visit(mine_tree)).split("\n")[0].strip()
        match = next((k for k, st in partners if st is not None and st.text == inlined), None)
        if match is not None:
            out |= {a, r, match}
            return


#: headers that only group statements: a function (called on its side), the module's main guard,
#: a session's block (``with tf.Session() as sess:``)
_MAIN_GUARD = re.compile(r"^if __name__ == ['\"]__main__['\"]\s*:")
_SESSION_BLOCK = re.compile(r"^with .*\bSession\(")


@applies(D.REGROUPED_BLOCK_NOISE)
def _regrouped(changes: list[StatementChange], buggy: list[Statement], fixed: list[Statement]) -> set[int]:
    """Indices of one-sided headers that regroup statements both programs have: ``def main():``
    put around the posted program (and called), its ``if __name__ == '__main__':`` guard, a
    session opened as a block where the other side assigned it. The study's same-semantics
    syntax: the statements run are the same (those of its body changed are changes of their
    own). A header whose body its side mostly adds (a new function, a new loop) is a change, and so is any other header (a ``with`` that sets a device,
    a graph, a dependency or a scope changes what its body builds)."""
    one_sided: dict[int, set[int]] = {}  # id of a statement -> index of its one-sided change
    for i, c in enumerate(changes):
        if c.buggy is None or c.fixed is None:
            one_sided.setdefault(id(c.buggy or c.fixed), set()).add(i)
    out: set[int] = set()
    wrappers: set[str] = set()
    def order(ic: tuple[int, StatementChange]) -> int:
        """Functions first, then the calls of those that wrap, then the other headers."""
        st = ic[1].buggy or ic[1].fixed
        assert st is not None
        return 0 if st.defines else 1 if st.end <= st.last else 2

    for i, c in sorted(enumerate(changes), key=order):
        if c.buggy is not None and c.fixed is not None:
            continue
        st = c.buggy or c.fixed
        side = buggy if c.fixed is None else fixed
        assert st is not None
        if st.end <= st.last:
            if st.reads and st.reads <= wrappers and st.written.endswith("()") and not st.binds:
                out.add(i)  # the call of a wrapper: ``main()``
                one_sided.pop(id(st), None)
            continue  # not a compound statement
        if st.defines:
            name = next(iter(st.defines))
            if not any(name in o.reads for o in side if o is not st) or st.written.startswith("class "):
                continue  # a function nobody calls does not run its body
        elif not (_MAIN_GUARD.match(st.written) or _SESSION_BLOCK.match(st.written)):
            continue
        body = [o for o in side if st.last < o.line <= st.end and o.noise is None]
        new = sum(1 for o in body if id(o) in one_sided)
        if body and new * 2 < len(body):  # most of its body was there before: a regrouping
            out.add(i)
            wrappers |= st.defines
    return out


#: calls that read data from files or stream it through an input pipeline
_READS_DATA = re.compile(
    r"\b(string_input_producer|WholeFileReader|TFRecordReader|TextLineReader|FixedLengthRecordReader|"
    r"read_file|decode_\w+|parse_single_example|parse_example|from_tensor_slices|TFRecordDataset|"
    r"TextLineDataset|make_one_shot_iterator|make_initializable_iterator|get_next|read_tfrecord|"
    r"imread|read_csv|read_excel|loadtxt|genfromtxt|listdir|glob|load_img|flow_from_directory)\("
)
#: the machinery of a queue-fed input pipeline (started, batched, stopped)
_PIPELINE = re.compile(
    r"\b(Coordinator|start_queue_runners|request_stop|should_stop|batch|shuffle_batch|"
    r"batch_join|map|repeat|shuffle|prefetch|read|read_up_to)\("
)


@applies(D.DATA_SOURCE_NOISE)
def _loading(side: list[Statement]) -> set[int]:
    """Indices of a program's data loading: the statements that read data (files, input
    pipelines: :data:`_READS_DATA`), those computed from what they read (forward, through the
    names they bind; a helper's body and its header with it), and the pipeline's machinery
    (:data:`_PIPELINE`) around them. Where the fixed program makes its data up, what the buggy
    program did to load it is what the benchmark replaced (rule synthetic_data_source); the
    preprocessing the data pass compares is not taken here: a statement a component or a compared
    element explains is explained before this rule is read."""
    inside = {i for i, st in enumerate(side) if _READS_DATA.search(st.written)}
    for i, st in enumerate(side):  # a helper that loads: its header, its body
        if st.defines and any(st.line < o.line <= st.end for o in (side[j] for j in inside)):
            inside |= {i} | {j for j, o in enumerate(side) if st.line < o.line <= st.end}
    grown = True
    while grown:
        grown = False
        bound = {b for j in inside for b in side[j].binds} | {
            d for j in inside for d in side[j].defines
        }
        for i, st in enumerate(side):
            if i in inside or st.defines or st.end > st.last:
                continue  # a header (a loop's bound, a condition) is no loading
            roots = {r.split(".")[0] for r in st.reads}
            called = set(_CALLED.findall(st.written))
            # only moved along, or through the pipeline: a tensor operation on the data is the
            # model's, not the loading's
            loading = all(
                _READS_DATA.search(f"{c}(") or _PIPELINE.search(f"{c}(") or c in bound for c in called
            )
            machinery = bool(called) and all(_PIPELINE.search(f"{c}(") for c in called)
            if loading and ((roots & bound and (st.binds or called)) or machinery):
                inside.add(i)
                grown = True
    return inside


_CALLED = re.compile(r"(\w+)\s*\(")


def modelled_lines(program: ProgramModel) -> set[tuple[str, int]]:
    """(file, line) of every element the comparison passes compare in full: models and layers,
    compiles and optimisers, training and evaluation calls and their callbacks, the data's sources
    and preprocessing steps. A changed statement holding one of them with no component was
    compared and found equal under the noise rules (``Dense(n); Activation('relu')`` against
    ``Dense(n, activation='relu')``). Graph code's tensor operations are left out: their pass
    reads shape-changing operations only, so a change there without a component stays unexplained."""
    found: set[tuple[str, int]] = set()

    def add(element: Any) -> None:
        line = getattr(element, "line", None)
        if isinstance(line, int) and line > 0:
            found.add((getattr(element, "file", None) or program.path, line))

    for model in program.models:
        add(model)
        for layer in model.layers:
            add(layer)
    for compile_ in program.compiles:
        add(compile_)
        if compile_.optimizer is not None:
            add(compile_.optimizer)
    for fit in (*program.fits, *program.evaluations):
        add(fit)
        for callback in fit.callbacks:
            add(callback)
    for var in (*program.data.values(), *program.untrained_data.values()):
        if var.source is not None:
            add(var.source)
        for op in var.preprocess:
            add(op)
    return found


def cover(
    buggy: list[Statement],
    fixed: list[Statement],
    components: Iterable[Any],
    modelled: tuple[set[tuple[str, int]], set[tuple[str, int]]] = (set(), set()),
    made_up: Callable[[StatementChange], bool] | None = None,
    graph: bool = False,
    origins: tuple[set[tuple[str, int]], set[tuple[str, int]]] = (set(), set()),
) -> Coverage:
    """The coverage of one file pair's statement diff by the components (objects with
    ``buggy_file/buggy_line/fixed_file/fixed_line``); ``modelled`` are the lines of each side
    whose elements the passes compared (:func:`modelled_lines`); ``made_up`` says which changes a
    tolerant parse's reading made (decision lost-block-noise: not the fix); ``graph``: TensorFlow 1
    graph code, whose training calls (``session.run``) the passes compare for the budget only, so a
    value they read is not taken as compared."""
    components = list(components)
    changes = changes_of(buggy, fixed)
    coverage = Coverage()
    kept: list[StatementChange] = []
    inlined = _inlined(changes)
    if inlined:
        coverage.noise[MOVED_VALUE] = len(inlined)
    changes = [c for i, c in enumerate(changes) if i not in inlined]
    regrouped = _regrouped(changes, buggy, fixed)
    if regrouped:
        coverage.noise[REGROUPED] = len(regrouped)
    changes = [c for i, c in enumerate(changes) if i not in regrouped]
    written_new = sum(1 for c in changes if c.fixed is not None)
    written_gone = sum(1 for c in changes if c.buggy is not None)
    for c in changes:
        if renamed(c):
            coverage.noise[RENAMED] = coverage.noise.get(RENAMED, 0) + 1
        elif made_up is not None and made_up(c):
            coverage.noise[LOST_BLOCK] = coverage.noise.get(LOST_BLOCK, 0) + 1
        else:
            kept.append(c)
    # what restores a saved model: set-up where no component explains it (read after the components)
    restored = {id(kept[i]) for i in restored_model(kept, buggy, fixed)}
    completion = _completion(kept, buggy, fixed) | written_in(kept, buggy, fixed)
    if completion:
        coverage.noise[COMPLETION] = coverage.noise.get(COMPLETION, 0) + len(completion)
    kept = [c for i, c in enumerate(kept) if i not in completion]
    blines, flines = component_lines(
        components, (buggy[0].file if buggy else None, fixed[0].file if fixed else None)
    )
    blines |= counted_loops(components, buggy, "buggy")
    flines |= counted_loops(components, fixed, "fixed")
    bslice, fslice = training_slice(buggy, modelled[0] | blines), training_slice(fixed, modelled[1] | flines)
    fsynthetic_names = _synthetic_names(fixed)
    bsynthetic = _feeding(buggy, fsynthetic_names)
    fsynthetic = _feeding(fixed, fsynthetic_names) | {
        i for i, st in enumerate(fixed) if st.binds & fsynthetic_names
    }
    swapped: set[int] = set()  # ids of changes that only read the made-up data for the loaded
    if fsynthetic_names and not _synthetic_names(buggy):
        bsynthetic |= _loading(buggy)
        swapped = _source_renamed(kept, {b for i in bsynthetic for b in buggy[i].binds}, fsynthetic_names)
    bindex = {id(st): i for i, st in enumerate(buggy)}
    findex = {id(st): i for i, st in enumerate(fixed)}
    shown = component_names(components)
    explained = [
        hit(c.buggy, blines)
        or hit(c.fixed, flines)
        or any(st is not None and bool(st.binds & shown) for st in (c.buggy, c.fixed))
        for c in kept
    ]
    compared = [
        not e
        and (c.buggy is None or hit(c.buggy, modelled[0]))
        and (c.fixed is None or hit(c.fixed, modelled[1]))
        and not operands_reordered(c)
        for c, e in zip(kept, explained, strict=True)
    ]
    if any(compared):
        coverage.noise[COMPARED] = sum(compared)
    kept = [c for c, k in zip(kept, compared, strict=True) if not k]
    explained = [e for e, k in zip(explained, compared, strict=True) if not k]
    reason = [
        None
        if e
        else DATA_SOURCE
        if id(c) in swapped
        else _set_up(c, bslice, fslice, bsynthetic, fsynthetic, bindex, findex)
        for c, e in zip(kept, explained, strict=True)
    ]
    for r in reason:
        if r is not None:
            coverage.noise[r] = coverage.noise.get(r, 0) + 1
    kept = [c for c, r in zip(kept, reason, strict=True) if r is None]
    explained = [e for e, r in zip(explained, reason, strict=True) if r is None]
    # a changed statement binding a name an explained statement of its side reads feeds that
    # change; a header put around (or taken from) explained statements, and a feed matched to a
    # placeholder the fix changed, are that fix's too (decision one-inconsistency-one-component);
    # each explained statement can explain others, so read until nothing more is explained
    reads = [changed_reads(c) for c in kept]  # each side's changed part, read once
    bchanged = {id(c.buggy): r[0] for c, r in zip(kept, reads, strict=True) if c.buggy is not None}
    fchanged = {id(c.fixed): r[1] for c, r in zip(kept, reads, strict=True) if c.fixed is not None}
    grown = True
    while grown:
        before = sum(explained)
        breads = {r for c, e in zip(kept, explained, strict=True) if e and c.buggy for r in bchanged[id(c.buggy)]}
        freads = {r for c, e in zip(kept, explained, strict=True) if e and c.fixed for r in fchanged[id(c.fixed)]}
        for i, c in enumerate(kept):
            if explained[i]:
                continue
            if (c.buggy and c.buggy.binds & breads) or (c.fixed and c.fixed.binds & freads):
                explained[i] = True
        for i, c in enumerate(kept):
            if not explained[i] and (
                feeds_component(c.buggy, buggy, blines, bchanged) or feeds_component(c.fixed, fixed, flines, fchanged)
            ):
                explained[i] = True
        done = [c for c, e in zip(kept, explained, strict=True) if e]
        for i, c in enumerate(kept):
            if not explained[i] and (
                header_of_fix(c, kept, explained) or in_function_of_fix(c, kept, explained) or matched_feed(c, done)
            ):
                explained[i] = True
        grown = sum(explained) > before
    if not graph and (origins[0] or origins[1]):
        # decision value-origins: a statement writing a value that a compared element reads,
        # folded, and that nothing explains: the pass followed the value into the element and
        # found it equal under the noise rules (``n_epochs = 200 * stretch`` with ``stretch = 1``)
        equal = [
            not e
            and (c.buggy is None or hit(c.buggy, origins[0]))
            and (c.fixed is None or hit(c.fixed, origins[1]))
            for c, e in zip(kept, explained, strict=True)
        ]
        if any(equal):
            coverage.noise[COMPARED] = coverage.noise.get(COMPARED, 0) + sum(equal)
        kept = [c for c, q in zip(kept, equal, strict=True) if not q]
        explained = [e for e, q in zip(explained, equal, strict=True) if not q]
    dropped = [not e and id(c) in restored for c, e in zip(kept, explained, strict=True)]
    if any(dropped):
        coverage.noise[RESTORED] = sum(dropped)
        kept = [c for c, d in zip(kept, dropped, strict=True) if not d]
        explained = [e for e, d in zip(explained, dropped, strict=True) if not d]
    # a fix that writes most of the fixed program anew completes or rewrites the post (rule
    # completed_snippet, 4.2.1): its additions no component explains are that completion; where
    # it also drops most of the buggy program, the post was replaced by another program (decision
    # rewritten-program): what no component explains on either side is that rewrite, counted as
    # such (what is new is counted before the noise rules: a rewrite renames and completes as it goes)
    program = sum(1 for st in fixed if st.noise is None)
    posted = sum(1 for st in buggy if st.noise is None)
    added = [i for i, c in enumerate(kept) if c.buggy is None]
    removed = [i for i, c in enumerate(kept) if c.fixed is None]
    if rewritten_program(written_new, program, written_gone, posted):
        rewrite = {i for i in added + removed if not explained[i]}
        if rewrite:
            coverage.noise[REWRITE] = coverage.noise.get(REWRITE, 0) + len(rewrite)
        kept = [c for i, c in enumerate(kept) if i not in rewrite]
        explained = [e for i, e in enumerate(explained) if i not in rewrite]
    elif cut_program(written_new, program, written_gone, posted):
        cut = {i for i in removed if not explained[i]}
        if cut:
            coverage.noise[CUT] = coverage.noise.get(CUT, 0) + len(cut)
        kept = [c for i, c in enumerate(kept) if i not in cut]
        explained = [e for i, e in enumerate(explained) if i not in cut]
    elif len(added) > REWRITE_MIN and written_new * 2 > program:
        rewrite = {i for i in added if not explained[i]}
        if rewrite:
            coverage.noise[COMPLETION] = coverage.noise.get(COMPLETION, 0) + len(rewrite)
        kept = [c for i, c in enumerate(kept) if i not in rewrite]
        explained = [e for i, e in enumerate(explained) if i not in rewrite]
    if not graph:
        # a literal moved into or out of a variable (the assignment added or removed) that a
        # compared element reads: the passes folded it into that element and found it equal (rule
        # value_moved_into_variable); a changed literal stays a change
        folded = [
            not e
            and c.change != "changed"
            and all(st.literal for st in (c.buggy, c.fixed) if st is not None)
            and (
                feeds_component(c.buggy, buggy, modelled[0]) or feeds_component(c.fixed, fixed, modelled[1])
            )
            for c, e in zip(kept, explained, strict=True)
        ]
        if any(folded):
            coverage.noise[COMPARED] = coverage.noise.get(COMPARED, 0) + sum(folded)
        kept = [c for c, f in zip(kept, folded, strict=True) if not f]
        explained = [e for e, f in zip(explained, folded, strict=True) if not f]
    coverage.changes = kept
    coverage.changed = len(kept)
    coverage.explained = sum(explained)
    coverage.open = [c for c, e in zip(kept, explained, strict=True) if not e]
    coverage.unexplained = [unexplained_change(c) for c in coverage.open]
    return coverage


@applies(D.REWRITTEN_PROGRAM)
def rewritten_program(new: int, program: int, gone: int, posted: int) -> bool:
    """Decision rewritten-program: the fix writes more than half of the fixed program anew
    (``new`` of its ``program`` statements added or changed) and drops or changes more than half
    of the buggy one (``gone`` of ``posted``), each more than :data:`REWRITE_MIN` statements: a
    benchmark that replaced the posted program by its own. Its components are read as always;
    the statements no component explains are that replacement, counted as ``rewritten_program``,
    not fixes one by one."""
    return new > REWRITE_MIN and gone > REWRITE_MIN and new * 2 > program and gone * 2 > posted


@applies(D.DATA_SOURCE_NOISE)
def _source_renamed(changes: list[StatementChange], loaded: set[str], made_up: set[str]) -> set[int]:
    """Ids of changed statements whose changed part reads, on the buggy side, only the data the
    post loaded and, on the fixed side, only the arrays the benchmark made up in its place
    (``np.max(train['redshift'].values)`` -> ``np.max(redshift)``): the same statement on the
    swapped data (rule synthetic_data_source), not a change of what is done to it."""
    out: set[int] = set()
    for c in changes:
        if c.buggy is None or c.fixed is None:
            continue
        before, after = changed_reads(c)
        broots = {r.split(".")[0] for r in before}
        froots = {r.split(".")[0] for r in after}
        if broots and froots and broots <= loaded and froots <= made_up:
            out.add(id(c))
    return out


def _set_up(
    change: StatementChange,
    bslice: set[int],
    fslice: set[int],
    bsynthetic: set[int],
    fsynthetic: set[int],
    bindex: dict[int, int],
    findex: dict[int, int],
) -> str | None:
    """Why a changed statement no component explains is no program change, or None.

    A random seed; a statement outside what the training depends on on each side it is on
    (:func:`training_slice`: results, predictions, analysis after training); data the fixed
    program makes up in place of the posted loading, and the loading it replaces (rule
    ``synthetic_data_source``)."""
    b, f = change.buggy, change.fixed
    if all(_SEED.search(st.text) for st in (b, f) if st is not None):
        return SEEDS
    bi = bindex.get(id(b)) if b is not None else None
    fi = findex.get(id(f)) if f is not None else None
    if (bi is None or bi in bsynthetic) and (fi is None or fi in fsynthetic):
        return DATA_SOURCE
    if (bi is None or bi not in bslice) and (fi is None or fi not in fslice):
        return OUTSIDE_TRAINING
    return None


def unexplained_change(change: StatementChange) -> UnexplainedChange:
    """The row of a changed statement no component covers."""
    b, f = change.buggy, change.fixed
    shown = b or f
    assert shown is not None
    return UnexplainedChange(
        file=shown.file,
        line=shown.line,
        change=change.change,
        before=b.source if b else None,
        after=f.source if f else None,
        touches=touches(change.text()),
        fixed_file=f.file if b and f else None,
        fixed_line=f.line if b and f else None,
    )
