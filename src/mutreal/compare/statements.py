"""The statements of a source as the statement diff reads them: normalised, with what they bind,
read and touch.

Why a module of its own: :mod:`mutreal.compare.coverage` diffs statements and
:mod:`mutreal.label.best_code` reads their changed parts; both need the same reading. Python's
``ast`` gives each statement (a compound statement as its header); formatting, comments, quotes
and parentheses vanish with it (the study's same-semantics syntax), and :class:`_Normalise` takes
out the rest of what never matters: noise keywords (``verbose=``, ``name=``, compile's
``metrics=``), file paths, the module path of a called function and older names of the same API
(rule ``api_spelling``), arithmetic of numbers. :func:`_noise_of` names the noise rule a whole
statement falls under (prints, logging, plotting, result files, imports).
"""

from __future__ import annotations

import ast
import copy
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field, replace
from functools import cached_property, lru_cache

from mutreal.compare.noise import LOGGING, METRICS, PLOTTING, PRINTS, RESULT_FILE_PATHS, VERBOSITY

#: noise rule names the statement reading applies (registered in :mod:`mutreal.compare`)
SPELLING = "api_spelling"
#: a statement that only names where data lies (``train_dir = os.path.join(root, 'train')``):
#: the normaliser already reads every path as ``<path>``, so binding one is no change of what is
#: read; which file is read is the data pass's (decision TRD-data-file), at the statement reading it
DATA_LOCATION = "data_location"

#: call prefixes (dotted, after the first name) that only report, by the noise rule that says so
_NOISE_CALLS: tuple[tuple[re.Pattern[str], str], ...] = (
    (re.compile(r"^(print|pprint|display|tqdm\.write)$"), PRINTS.name),
    # a getter called for its value alone, the value dropped: what a notebook cell shows
    (re.compile(r"(^|\.)(get_config|get_weights|count_params)$"), PRINTS.name),
    (re.compile(r"^(logging|logger|log|tf\.logging|tf\.compat\.v1\.logging|absl\.logging)\."), LOGGING.name),
    (
        re.compile(r"^(plt|pyplot|matplotlib|sns|seaborn|fig|ax|axes|axs)\.|\.(plot|imshow|show|savefig|plot_model)$|^plot_model$"),
        PLOTTING.name,
    ),
    (
        re.compile(
            r"\.(summary|save|save_weights|to_csv|to_json|savetxt|dump|write|close|add_summary|flush)$"
        ),
        RESULT_FILE_PATHS.name,
    ),
    (
        re.compile(r"^(np\.save|np\.savez|pickle\.dump|json\.dump|joblib\.dump|saver\.save|tf\.summary\.)"),
        RESULT_FILE_PATHS.name,
    ),
    (re.compile(r"^(warnings|os\.environ|sys\.path|sys\.exit|exit|quit|time\.|gc\.collect)"), LOGGING.name),
    (re.compile(r"^(os\.makedirs|os\.mkdir|shutil\.|os\.remove)"), RESULT_FILE_PATHS.name),
)
#: the same function under an older or a shorter name (after the module path is dropped): the
#: study's same-semantics syntax (rule ``api_spelling``)
_SAME_API = {
    "initialize_all_variables": "global_variables_initializer",
    "random_uniform": "uniform",
    "random_normal": "normal",
    "mul": "multiply",
    "sub": "subtract",
    "neg": "negative",
    "pack": "stack",
    "unpack": "unstack",
    "select": "where",
    "Convolution1D": "Conv1D",
    "Convolution2D": "Conv2D",
    "Convolution3D": "Conv3D",
    "SummaryWriter": "FileWriter",
    "InteractiveSession": "Session",
    "to_float": "cast",
    "merge_all_summaries": "merge_all",
}
#: keyword arguments renamed between Keras eras (same meaning)
_SAME_KEYWORD = {
    "nb_epoch": "epochs",
    "output_dim": "units",
    "init": "kernel_initializer",
    "border_mode": "padding",
    "subsample": "strides",
    "nb_filter": "filters",
    "keep_dims": "keepdims",
    "W_regularizer": "kernel_regularizer",
    "b_regularizer": "bias_regularizer",
    "dim": "axis",
    # TensorFlow's names of a reduction's axes: the same value under another spelling
    "axes": "axis",
    "reduction_indices": "axis",
    "lr": "learning_rate",
}
#: keyword arguments that never matter (verbosity, names, reporting)
_NOISE_KEYWORDS = {"verbose": VERBOSITY.name, "name": "layer_names", "metrics": METRICS.name}
#: file-like string constants and ``__file__`` paths: where data or results are, not what they are
_PATH_TEXT = re.compile(
    r"[/\\]|\.(csv|txt|h5|hdf5|png|jpe?g|npy|npz|pkl|pickle|ckpt|json|mat|gz|zip|tsv)$", re.I
)


#: what a changed statement touches, first match wins: (name, pattern over its normalised text)
TOUCHES: tuple[tuple[str, re.Pattern[str]], ...] = (
    ("memory", re.compile(r"gpu_options|allow_growth|per_process_gpu|ConfigProto|gc\.collect|clear_session")),
    ("regulariser", re.compile(r"l2_loss|l1_loss|regulari[sz]|weight_decay|l2\(|l1\(")),
    (
        "optimiser",
        re.compile(r"Optimizer\b|optimizers?\.|\b(SGD|Adam|RMSprop|Adagrad|Adadelta|Nadam)\(|minimize\("),
    ),
    (
        "loss",
        re.compile(
            r"cross_entropy|crossentropy|\bloss\b|\bcost\b|tf\.log\(|log_softmax|reduce_sum\(.*log|"
            r"clip_by_value|mean_squared|\.losses\."
        ),
    ),
    ("evaluation", re.compile(r"\.(evaluate|predict|score)\(|\bsteps\s*=|accuracy|argmax")),
    ("training call", re.compile(r"\.(fit|fit_generator|train_on_batch|train)\(|sess(ion)?\.run\(|\.run\(")),
    (
        "tensor shape",
        re.compile(
            r"placeholder|reshape|expand_dims|squeeze|transpose|tf\.shape|\bshape\b|"
            r"tf\.stack|tf\.concat|flatten|Flatten|tf\.matmul|unstack|while_loop"
        ),
    ),
    (
        "batching",
        re.compile(
            r"next_batch|batch_size|\bbatch\b|\[\s*\w+\s*:\s*\w+\s*\+|range\(.*batch|"
            r"\.batch\(|shuffle"
        ),
    ),
    (
        "training budget",
        re.compile(
            r"\bepochs?\b|nb_epoch|n_epochs|num_epochs|training_iters|iterations|"
            r"num_steps|n_steps|range\(\d{2,}"
        ),
    ),
    (
        "initialisation",
        re.compile(r"initiali[sz]er|random_normal|truncated_normal|glorot|xavier|zeros\(|ones\("),
    ),
    (
        "model",
        re.compile(
            r"layers?\.|Dense|Conv|LSTM|GRU|Dropout|Activation|relu|sigmoid|softmax|tanh|"
            r"Sequential|Model\(|tf\.nn\."
        ),
    ),
    (
        "data",
        re.compile(
            r"imread|astype|/\s*255|normali[sz]e|StandardScaler|MinMaxScaler|one_hot|to_categorical|"
            r"np\.eye|read_data_sets|load_data|read_csv|np\.load|train_test_split|feed_dict|"
            r"\bx_train\b|\by_train\b|\bX\b|\bY\b|labels?\b|images?\b"
        ),
    ),
    ("control flow", re.compile(r"^(for|while|if|elif|else|try|except|with|def|class|return)\b")),
)


def touches(text: str) -> str:
    """What a statement touches, read from its text (:data:`TOUCHES`; ``other`` when nothing fits)."""
    for name, pattern in TOUCHES:
        if pattern.search(text):
            return name
    return "other"


@dataclass(frozen=True)
class Statement:
    """One statement of a file, normalised: a simple statement, or a compound statement's header."""

    file: str
    line: int
    last: int
    #: the source text as written (first line, stripped), for people
    source: str
    binds: frozenset[str] = frozenset()
    reads: frozenset[str] = frozenset()
    #: the noise rule that makes this statement no program change (None: it is one)
    noise: str | None = None
    #: the names of the functions and classes it defines (a ``def``/``class`` header)
    defines: frozenset[str] = frozenset()
    #: the last line of the statement's body (a compound statement), else ``last``
    end: int = 0
    #: an assignment of an array made up at random (``x = np.array(np.random.random((10, 4)))``)
    synthetic: bool = False
    #: an assignment of a literal (``batch_size = 10``, ``H, W = 384, 384``)
    literal: bool = False
    #: the statement as written, every line stripped: two the same read the same
    written: str = ""
    #: the statement's tree (a compound statement's header) and the module names of its file,
    #: from which :attr:`text` is read when the diff needs it
    node: ast.stmt | None = field(default=None, compare=False, repr=False)
    modules: frozenset[str] = field(default=frozenset(), compare=False, repr=False)

    @cached_property
    def text(self) -> str:
        """The normalised text: ``ast.unparse`` with noise keywords, paths and module paths taken
        out. Read on demand: the diff needs it only where the written texts differ."""
        if self.node is None:
            return self.written
        normal = _Normalise(self.modules).visit(_clone(self.node))
        normal = _as_binding(normal)
        try:
            return ast.unparse(normal).split("\n")[0].strip()
        except Exception:  # an unusual node ast cannot print: compare its dump
            return ast.dump(normal)


# ---------------------------------------------------------------------------------------------------
# Statements of a source, normalised
# ---------------------------------------------------------------------------------------------------


def _dotted(node: ast.AST) -> str:
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        return f"{_dotted(node.value)}.{node.attr}"
    if isinstance(node, ast.Call):
        return _dotted(node.func) + "()"
    return ""


class _Normalise(ast.NodeTransformer):
    """Takes out what never matters: noise keywords, path strings, ``__file__`` paths, and the
    module path of a called function (``tf.compat.v1.Session`` is ``Session``, ``keras.layers.Dense``
    ``Dense``: rule ``api_spelling``), older names of the same function and keyword included."""

    def __init__(self, modules: frozenset[str] = frozenset()) -> None:
        self.modules = modules

    def visit_Call(self, node: ast.Call) -> ast.AST:
        self.generic_visit(node)
        node.keywords = [k for k in node.keywords if k.arg not in _NOISE_KEYWORDS]
        for k in node.keywords:
            if k.arg in _SAME_KEYWORD:
                k.arg = _SAME_KEYWORD[k.arg]
        func = node.func
        if isinstance(func, ast.Attribute):
            root = func
            while isinstance(root, ast.Attribute):
                root = root.value  # type: ignore[assignment]
            if isinstance(root, ast.Name) and root.id in self.modules:
                node.func = ast.Name(_SAME_API.get(func.attr, func.attr), ast.Load())
        elif isinstance(func, ast.Name) and func.id in _SAME_API:
            node.func = ast.Name(_SAME_API[func.id], ast.Load())
        return node

    def visit_Constant(self, node: ast.Constant) -> ast.AST:
        if isinstance(node.value, str) and _PATH_TEXT.search(node.value):
            return ast.Constant("<path>")
        return node

    def visit_BinOp(self, node: ast.BinOp) -> ast.AST:
        if any(isinstance(n, ast.Name) and n.id == "__file__" for n in ast.walk(node)):
            return ast.Constant("<path>")
        self.generic_visit(node)
        left, right = node.left, node.right
        numbers = (int, float)
        if (
            isinstance(left, ast.Constant)
            and isinstance(right, ast.Constant)
            and type(left.value) in numbers
            and type(right.value) in numbers
            and type(node.op) in _FOLDED
        ):
            try:  # 25 * 4 is 100: the same number written otherwise
                return ast.Constant(_FOLDED[type(node.op)](left.value, right.value))
            except (ArithmeticError, ValueError):
                return node
        return node

    def visit_JoinedStr(self, node: ast.JoinedStr) -> ast.AST:
        return ast.Constant("<text>")


_BODIES = ("body", "orelse", "finalbody", "handlers")


def _as_binding(node: ast.AST) -> ast.AST:
    """``with tf.Session() as sess:`` reads as ``sess = Session()``: a context manager bound to a
    name is that name bound to it, closed when the block ends (the study's same-semantics syntax:
    a session opened with ``with`` or assigned and used alike). Other statements as they are."""
    if (
        isinstance(node, ast.With)
        and len(node.items) == 1
        and isinstance(node.items[0].optional_vars, ast.Name)
    ):
        item = node.items[0]
        target = ast.Name(item.optional_vars.id, ast.Store())  # type: ignore[union-attr]
        return ast.Assign(targets=[target], value=item.context_expr, lineno=node.lineno)
    return node
#: arithmetic folded when both operands are numbers
_FOLDED = {
    ast.Add: lambda a, b: a + b,
    ast.Sub: lambda a, b: a - b,
    ast.Mult: lambda a, b: a * b,
    ast.FloorDiv: lambda a, b: a // b,
}


def _noise_of(node: ast.stmt) -> str | None:
    """The noise rule that makes a statement no program change."""
    if isinstance(node, (ast.Import, ast.ImportFrom)):
        return SPELLING  # an import alone changes nothing; what uses it does
    if isinstance(node, ast.Pass):
        return SPELLING
    if isinstance(node, ast.Expr):
        value = node.value
        if isinstance(value, ast.Constant):
            return SPELLING  # a docstring or a bare constant
        if isinstance(value, ast.Call):
            name = _dotted(value.func)
            for pattern, rule in _NOISE_CALLS:
                if pattern.search(name):
                    return rule
    if isinstance(node, ast.Assign) and len(node.targets) == 1:
        target = (
            _dotted(node.targets[0])
            if not isinstance(node.targets[0], ast.Subscript)
            else _dotted(node.targets[0].value)
        )
        if target.startswith("os.environ"):
            return LOGGING.name
        if isinstance(node.value, ast.Call):
            name = _dotted(node.value.func)
            if re.search(r"^(plt|sns|matplotlib)\.|\.(subplots|figure|add_subplot|FileWriter)$", name):
                return PLOTTING.name
            if re.search(r"(^|\.)summary\.(scalar|histogram|image|audio|text|merge|merge_all)$", name):
                return LOGGING.name  # a TensorBoard summary: what it binds is only ever logged
            if re.search(r"^(open|time\.|time$|datetime\.|perf_counter$|clock$)", name):
                return RESULT_FILE_PATHS.name
            if re.search(r"^(saver\.save|np\.save|pickle\.dump|json\.dump|joblib\.dump)$|\.save$", name):
                # ``path = saver.save(sess, prefix)``: where a result was written (a
                # TensorArray's ``write`` assigned is no file)
                return RESULT_FILE_PATHS.name
        if _location(node.value):
            return DATA_LOCATION
    return None


_PATH_FUNCTIONS = re.compile(r"^(os\.path\.\w+|os\.getcwd|os\.sep|pathlib\.Path|Path|str)$")


def _location(value: ast.expr) -> bool:
    """A value that is only a path: path strings (:data:`_PATH_TEXT`), ``__file__``, joined with
    ``+`` or by ``os.path`` functions (``os.path.join(os.getcwd(), 'data')``)."""
    has_path = False
    for n in ast.walk(value):
        if isinstance(n, ast.Constant):
            if not isinstance(n.value, str):
                return False
            has_path = has_path or bool(_PATH_TEXT.search(n.value))
        elif isinstance(n, ast.Name) and n.id == "__file__":
            has_path = True
        elif isinstance(n, ast.Call):
            if not _PATH_FUNCTIONS.match(_dotted(n.func)):
                return False
            has_path = has_path or _dotted(n.func).startswith("os.")
        elif isinstance(n, ast.expr) and not isinstance(
            n, (ast.BinOp, ast.Attribute, ast.Name, ast.JoinedStr, ast.FormattedValue)
        ):
            return False
    return has_path


#: modules whose functions called as statements change state later statements read: the default
#: graph and its collections, the backend's session
_GRAPH_MODULES = frozenset({"tf", "tensorflow", "K", "backend", "slim", "tflearn", "keras"})


def _names(node: ast.AST, modules: frozenset[str] = frozenset()) -> tuple[set[str], set[str]]:
    """(bound, read) plain names of a statement (an attribute target binds its dotted text; an item
    assigned or a method called on a name, ``a[:, 2] = b``, ``rows.append(r)``, changes that name;
    a function of an imported module called, ``os.makedirs(d)``, changes no module: else every
    statement reading ``os.path`` would depend on it; TensorFlow's own functions excepted
    (:data:`_GRAPH_MODULES`: ``tf.losses.softmax_cross_entropy(...)`` adds to the default graph
    that ``tf.losses.get_total_loss()`` reads)."""
    binds: set[str] = set()
    reads: set[str] = set()
    targets: list[ast.AST] = []
    if isinstance(node, (ast.Assign, ast.AugAssign, ast.AnnAssign)):
        targets = list(node.targets) if isinstance(node, ast.Assign) else [node.target]
    elif (
        isinstance(node, ast.Expr)
        and isinstance(node.value, ast.Call)
        and isinstance(node.value.func, ast.Attribute)
    ):
        targets = [node.value.func.value]
    for target in targets:
        called = isinstance(node, ast.Expr)
        while isinstance(target, (ast.Subscript, ast.Attribute, ast.Starred)):
            target = target.value
        if isinstance(target, ast.Name) and not (
            called and target.id in modules and target.id not in _GRAPH_MODULES
        ):
            binds.add(target.id)
    for n in ast.walk(node):
        if isinstance(n, ast.Name):
            (binds if isinstance(n.ctx, ast.Store) else reads).add(n.id)
        elif isinstance(n, ast.Attribute) and isinstance(n.ctx, ast.Store):
            binds.add(_dotted(n))
        elif isinstance(n, ast.Attribute) and isinstance(n.ctx, ast.Load):
            dotted = _dotted(n)
            if dotted:
                reads.add(dotted)
        elif isinstance(n, ast.arg):
            binds.add(n.arg)
    return binds, reads


def _header(node: ast.stmt) -> ast.stmt:
    """A compound statement without its bodies (its header only)."""
    head = copy.copy(node)
    for name in _BODIES:
        if hasattr(head, name):
            setattr(head, name, [])
    if isinstance(head, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
        head.decorator_list = []
    return head


def _clone(node: object) -> object:
    """A copy of a tree for the normaliser to rewrite: the nodes and lists copied, the leaves
    (names, numbers, strings) shared; several times faster than ``copy.deepcopy`` on ``ast``."""
    if isinstance(node, ast.AST):
        new = node.__class__()
        for name in node._fields:
            setattr(new, name, _clone(getattr(node, name, None)))
        for name in node._attributes:  # positions: ast.unparse reads a statement's line
            if hasattr(node, name):
                setattr(new, name, getattr(node, name))
        return new
    if isinstance(node, list):
        return [_clone(x) for x in node]
    return node


def _imported(tree: ast.Module) -> set[str]:
    """The names imports bind (module aliases: ``tf``, ``np``, ``keras``...), and the usual ones."""
    names = {"tf", "np", "keras", "K", "tensorflow", "numpy", "layers", "optimizers", "losses"}
    todo: list[ast.AST] = list(tree.body)
    while todo:  # statements only: an import is never inside an expression
        node = todo.pop()
        if isinstance(node, ast.Import):
            names |= {(a.asname or a.name).split(".")[0] for a in node.names}
        elif isinstance(node, ast.ImportFrom):
            names |= {a.asname or a.name for a in node.names}
        else:
            for field in _BODIES:
                todo.extend(getattr(node, field, None) or [])
    return names


_WORD = re.compile(r"[A-Za-z_]\w*")


def _first_line(lines: Sequence[str], number: int) -> str:
    text = lines[number - 1].strip() if 0 < number <= len(lines) else ""
    return text if len(text) <= 120 else text[:117] + "..."


def statements_of(
    text: str, path: str, tree: ast.Module | None = None, cache: dict[tuple, Statement] | None = None
) -> list[Statement]:
    """The statements of a source in order (compound statements as their header, then their bodies).

    ``tree`` is Python's ``ast`` of ``text`` when the caller has it; a text that is no Python 3
    gives no statements (the tolerant parse's set-aside lines are listed apart). ``cache``, shared
    by the two sides of a pair, reads a statement written the same (same text, same imports)
    once: most of a fixed program is its buggy program's text."""
    if tree is None:
        try:
            tree = ast.parse(text)
        except (SyntaxError, ValueError):
            return []
    lines = text.splitlines()
    out: list[Statement] = []
    modules = frozenset(_imported(tree))

    def visit(body: Iterable[ast.AST], dead: bool = False) -> None:
        for node in body:
            if isinstance(node, ast.ExceptHandler):
                visit(node.body)
                continue
            if not isinstance(node, ast.stmt):
                continue
            compound = any(getattr(node, b, None) for b in _BODIES)
            key = None
            if cache is not None:
                end = node.end_lineno or node.lineno
                if compound:
                    end = min((b[0].lineno for b in (getattr(node, n, None) for n in _BODIES) if b), default=end)
                written = "\n".join(lines[node.lineno - 1 : end])
                # the imports it names: the rest of the file's imports do not change its reading
                named = modules.intersection(_WORD.findall(written))
                key = (frozenset(named), compound, node.col_offset, written)
                known = cache.get(key)
                if known is not None:
                    shift = node.lineno - known.line
                    # the header's text is the key, not its body: a body the fix lengthened ends
                    # where this side's ends
                    end_line = node.end_lineno or known.end + shift
                    out.append(replace(known, file=path, line=node.lineno, last=known.last + shift, end=end_line))
                    if dead or _channels_first(node):
                        out[-1] = replace(out[-1], noise=SPELLING)
                    if compound:
                        for name in _BODIES:
                            inside = dead or (name == "body" and _channels_first(node))
                            visit(getattr(node, name, None) or [], inside)
                    continue
            shown = _header(node) if compound else node
            binds, reads = _names(shown, modules)
            defines: frozenset[str] = frozenset()
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                defines = frozenset({node.name})
                binds.add(node.name)
            last = node.end_lineno or node.lineno
            if compound:
                first_body = min(
                    (b[0].lineno for b in (getattr(node, n, None) for n in _BODIES) if b), default=None
                )
                last = max(node.lineno, (first_body or node.lineno + 1) - 1)
            out.append(
                Statement(
                    file=path,
                    line=node.lineno,
                    last=last,
                    source=_first_line(lines, node.lineno),
                    binds=frozenset(binds),
                    reads=frozenset(reads),
                    noise=_noise_of(node),
                    defines=defines,
                    end=node.end_lineno or last,
                    synthetic=_made_up(node),
                    literal=isinstance(node, ast.Assign) and _is_literal(node.value),
                    written=_written(lines, node.lineno, last if compound else node.end_lineno or last),
                    node=shown,
                    modules=modules,
                )
            )
            if key is not None:
                cache[key] = out[-1]
            if dead or _channels_first(node):
                out[-1] = replace(out[-1], noise=SPELLING)
            if compound:
                for name in _BODIES:
                    inside = dead or (name == "body" and _channels_first(node))
                    visit(getattr(node, name, None) or [], inside)

    visit(tree.body)
    return _quiet_headers(out)


#: noise a quiet block may hold: a print may run the graph (``print(sess.run(x))``), so a loop of
#: prints is no noise
_QUIET = frozenset({LOGGING.name, PLOTTING.name, RESULT_FILE_PATHS.name})


def _quiet_headers(statements: list[Statement]) -> list[Statement]:
    """A loop or branch whose body is all logging, plotting or writing of results (``for var in
    tf.trainable_variables():`` around summaries) is that noise too: it runs nothing the training
    reads."""
    out = list(statements)
    for i in range(len(out) - 1, -1, -1):  # inner headers first, so nested quiet blocks fold
        st = out[i]
        if st.end <= st.last or st.noise is not None or st.defines or st.written.startswith("while"):
            continue  # a while loop's end is behaviour (``while True:`` around a log never ends)
        body = [o for o in out[i + 1 :] if o.file == st.file and st.last < o.line <= st.end]
        if body and all(o.noise in _QUIET for o in body):
            out[i] = replace(st, noise=body[0].noise)
    return out


#: Keras asked whether images are channels-first: never so on the TensorFlow backend's default
_CHANNELS_FIRST = re.compile(
    r"image_data_format\(\)\s*==\s*['\"]channels_first['\"]|image_dim_ordering\(\)\s*==\s*['\"]th['\"]"
)


def _channels_first(node: ast.AST) -> bool:
    """An ``if`` on Keras's image format being channels-first: the TensorFlow backend the programs
    run on reads images channels-last, so the branch never runs and taking it out (or putting it
    in) is the same program (same-semantics syntax); its ``else`` runs and is compared."""
    return isinstance(node, ast.If) and bool(_CHANNELS_FIRST.search(ast.unparse(node.test)))


def _written(lines: Sequence[str], first: int, last: int) -> str:
    """The lines ``first``..``last`` as written, each stripped (comments and spacing kept)."""
    return " ".join(line.strip() for line in lines[first - 1 : last])


def _is_literal(node: ast.AST) -> bool:
    """A number, string or constant, or a tuple or list of them (negative numbers included)."""
    if isinstance(node, ast.Constant):
        return True
    if isinstance(node, ast.UnaryOp) and isinstance(node.operand, ast.Constant):
        return True
    if isinstance(node, (ast.Tuple, ast.List)):
        return all(_is_literal(e) for e in node.elts)
    return False


def _made_up(node: ast.stmt) -> bool:
    """An assignment of an array made up at random: ``np.random.random(shape)``, wrapped or not in
    ``np.array(...)`` / ``.astype(...)`` (how benchmarks stand in for the posted data)."""
    if not isinstance(node, ast.Assign):
        return False
    value = node.value
    while isinstance(value, ast.Call):
        name = _dotted(value.func)
        if "random" in name.split(".")[:-1] or name.startswith("random."):
            return True
        if name.endswith(("array", "asarray", "astype", "float32", "reshape")) and (
            value.args or isinstance(value.func, ast.Attribute)
        ):
            value = value.args[0] if value.args else value.func.value  # type: ignore[union-attr]
            continue
        return False
    return False


class _Anonymise(ast.NodeTransformer):
    def visit_FunctionDef(self, node: ast.FunctionDef) -> ast.AST:
        """A function renamed (``def train():`` -> ``def main():``, its calls renamed with it)."""
        node.name = "_"
        self.generic_visit(node)
        return node

    def visit_Name(self, node: ast.Name) -> ast.AST:
        return ast.Name("_", node.ctx)

    def visit_Attribute(self, node: ast.Attribute) -> ast.AST:
        """``self.cell`` is a variable too: an object's attribute made a local name (or back)."""
        if isinstance(node.value, ast.Name) and node.value.id == "self":
            return ast.Name("_", node.ctx)
        self.generic_visit(node)
        return node

    def visit_arg(self, node: ast.arg) -> ast.AST:
        return ast.arg("_")


@lru_cache(maxsize=4096)
def anonymous(text: str) -> str:
    """A normalised statement's text with every variable name written ``_`` (constants and
    attributes kept): two statements with the same are the same but for renamed variables. Read
    again from the text, and only for the changed statements the rename rule looks at."""
    source = text + "\n    pass" if text.rstrip().endswith(":") else text
    try:
        tree = ast.parse(source)
        return ast.unparse(_Anonymise().visit(tree.body[0])).split("\n")[0]
    except Exception:  # a text ast cannot read back (a bare else:, a dump): only itself
        return text


def parse_statement(text: str) -> ast.stmt | None:
    """The statement of a normalised statement text (a compound header is completed with ``pass``
    so that it parses alone); None where it does not parse. Coverage and the best code both read a
    changed statement's parts from it."""
    source = text + "\n    pass" if text.rstrip().endswith(":") else text
    try:
        body = ast.parse(source).body
    except SyntaxError:
        return None
    return body[0] if body else None
