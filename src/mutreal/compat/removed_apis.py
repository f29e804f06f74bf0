"""Python and library APIs removed since the benchmark programs were written, rewritten to their
successors before a run.

Each entry is one the real programs hit (found by running every program of the public benchmarks):
``time.clock`` (removed in Python 3.8; DeepLocalize times every buggy program with it) becomes
``time.perf_counter``; ``sklearn.cross_validation`` (removed in scikit-learn 0.20) becomes
``sklearn.model_selection``; ``keras.wrappers.scikit_learn`` (removed in Keras 2.12) becomes its
maintained successor SciKeras, whose wrappers take the model builder as ``model=`` where Keras' took
``build_fn=`` (and ``epochs=`` where Keras 1 took ``nb_epoch=``); ``OneHotEncoder(categorical_features=)``
(removed in scikit-learn 0.22) becomes the ``ColumnTransformer`` that gives the same columns; ``pyplot.hold`` (removed in matplotlib 3.0, its effect the default since) is dropped; TensorFlow's private Keras
``tensorflow.python.keras`` becomes the public ``keras`` and ``multi_gpu_model(model, n)`` (removed in
TensorFlow 2.4) its model; a chained in-place pandas call on one column (``df['a'].fillna(0, inplace=True)``,
which pandas 3's Copy-on-Write turned into a no-op) becomes the assignment pandas documents for it.
NumPy 1 converted a one-element array of any shape to a number (``"w %g" % w``, ``float(w)`` of a
fetched ``(1,)`` variable), which NumPy 2 refuses: those numeric conversions call
:mod:`mutreal.compat.numpy1_scalars`, which converts that array as NumPy 1 did and nothing else.
Keras 2 methods tf_keras no longer has (``predict_classes``) are given back in its workers
(:mod:`mutreal.execution.frameworks`). numpy's removed aliases are rewritten by :mod:`mutreal.compat.modernize`.
"""

from __future__ import annotations

import re

import libcst as cst

from mutreal.compat.modernize import Change
from mutreal.compat.numpy1_scalars import NUMERIC_CONVERSIONS
from mutreal.extract.names import dotted

#: module -> its successor (whole module paths, also as a prefix of a sub-module).
MOVED_MODULES: dict[str, str] = {
    "sklearn.cross_validation": "sklearn.model_selection",
    "keras.wrappers.scikit_learn": "scikeras.wrappers",
    "tensorflow.keras.wrappers.scikit_learn": "scikeras.wrappers",
    "tf.keras.wrappers.scikit_learn": "scikeras.wrappers",
}
#: TensorFlow's private copy of Keras 2 (``tensorflow.python.keras``, importable from TensorFlow 1.x to
#: 2.5 and used by programs of that time): TensorFlow still ships a remnant that lacks most of it
#: (``from tensorflow.python.keras.optimizers import Adam`` fails) and whose objects do not mix with
#: tf_keras'; its public module of the same name (``keras.X``: tf_keras on the tf_keras worker) replaces it.
PRIVATE_KERAS = "tensorflow.python.keras"
#: removed functions whose effect on one device is their first argument: ``multi_gpu_model(model, gpus)``
#: (removed in TensorFlow 2.4) trained ``model`` data-parallel on several GPUs, the same updates as
#: ``model`` on one device; the import goes and each call becomes its first argument.
ONE_DEVICE_IDENTITY = frozenset({"multi_gpu_model"})
#: pandas methods that change a column's values in place without changing its shape: called on one
#: column of a frame with ``inplace=True`` (``df['a'].fillna(0, inplace=True)``) they changed the frame
#: until pandas 3, whose Copy-on-Write makes that column a copy (the frame is left unchanged, with a
#: ``ChainedAssignmentError`` warning). pandas' own migration is the assignment
#: ``df['a'] = df['a'].fillna(0)``, which gives the frame the values the old call gave it.
CHAINED_INPLACE_METHODS = frozenset({"fillna", "replace", "clip", "where", "mask", "interpolate", "ffill", "bfill"})
#: module -> {removed function: its successor in the same module}
RENAMED_FUNCTIONS: dict[str, dict[str, str]] = {"time": {"clock": "perf_counter"}}
#: calls removed without a successor whose effect is now the default: the call becomes ``None``
#: (``pyplot.hold(True)``, removed in matplotlib 3.0: axes always hold their plots now)
DEFAULT_NOW = frozenset({"plt.hold", "pyplot.hold", "matplotlib.pyplot.hold", "pylab.hold"})
#: the SciKeras wrappers, whose builder argument is ``model=`` (Keras' wrappers: ``build_fn=``)
SCIKERAS_WRAPPERS = frozenset({"KerasClassifier", "KerasRegressor"})
#: keywords of Keras' wrappers -> SciKeras': the builder, and Keras 1's ``nb_epoch``, which Keras' wrappers
#: passed on to ``fit`` (SciKeras gives a keyword it does not know to the model builder instead)
WRAPPER_KEYWORDS = {"build_fn": "model", "nb_epoch": "epochs"}
#: the name a rewritten ``OneHotEncoder(categorical_features=...)`` imports ColumnTransformer under
COLUMN_TRANSFORMER = "_ColumnTransformer"
#: NumPy 1's one-element arrays as numbers (:mod:`mutreal.compat.numpy1_scalars`), imported under this
#: name by a program whose ``%`` formatting or ``float()``/``int()`` call is rewritten to use it
NUMPY1 = "_mutreal_numpy1"
#: builtins that convert their argument to a number, where NumPy 2 refuses a one-element array
NUMBER_BUILTINS = frozenset({"float", "int"})
#: one printf conversion: mapping key, flags, width, precision, length modifier, type
_CONVERSION = re.compile(r"%(\([^)]*\))?[#0\- +]*(\*|\d+)?(?:\.(\*|\d*))?[hlL]?(.)")


def _name_node(name: str) -> cst.BaseExpression:
    parts = name.split(".")
    node: cst.BaseExpression = cst.Name(parts[0])
    for part in parts[1:]:
        node = cst.Attribute(node, cst.Name(part))
    return node


class _Rewriter(cst.CSTTransformer):
    METADATA_DEPENDENCIES = (cst.metadata.PositionProvider,)

    def __init__(self) -> None:
        super().__init__()
        self.changes: list[Change] = []
        self.wrappers: set[str] = set()  # local names bound to SciKeras wrappers
        self.needs_column_transformer = False
        self.needs_numpy1 = False

    def _note(self, node: cst.CSTNode, before: str, after: str) -> None:
        line = self.get_metadata(cst.metadata.PositionProvider, node).start.line
        self.changes.append(Change(line, "removed API", before, after))

    def leave_ImportFrom(
        self, original: cst.ImportFrom, updated: cst.ImportFrom
    ) -> cst.ImportFrom | cst.RemovalSentinel:
        module = dotted(updated.module) if updated.module is not None else None
        if module is None or updated.relative:
            return updated
        if module == PRIVATE_KERAS or module.startswith(PRIVATE_KERAS + "."):
            new = _public_keras(module)
            self._note(original, f"from {module} import", f"from {new} import")
            updated = updated.with_changes(module=_name_node(new))
            module = new
        if not isinstance(updated.names, cst.ImportStar):
            kept = [a for a in updated.names if dotted(a.name) not in ONE_DEVICE_IDENTITY]
            if len(kept) < len(updated.names):
                gone = ", ".join(sorted({dotted(a.name) or "" for a in updated.names} & ONE_DEVICE_IDENTITY))
                self._note(original, f"from {module} import {gone}", "(removed: each call is its model on one device)")
                if not kept:
                    return cst.RemovalSentinel.REMOVE
                kept[-1] = kept[-1].with_changes(comma=cst.MaybeSentinel.DEFAULT)
                updated = updated.with_changes(names=kept)
        if module in MOVED_MODULES:
            new = MOVED_MODULES[module]
            self._note(original, f"from {module} import", f"from {new} import")
            if new == "scikeras.wrappers" and not isinstance(updated.names, cst.ImportStar):
                self.wrappers |= {(a.asname.name.value if a.asname else a.name.value)  # type: ignore[union-attr]
                                  for a in updated.names if dotted(a.name) in SCIKERAS_WRAPPERS}  # fmt: skip
            updated = updated.with_changes(module=_name_node(new))
        renamed = RENAMED_FUNCTIONS.get(module)
        if renamed and not isinstance(updated.names, cst.ImportStar):
            names = []
            for alias in updated.names:
                old = dotted(alias.name)
                if old in renamed:
                    self._note(original, f"from {module} import {old}", f"from {module} import {renamed[old]}")
                    bound = alias.asname or cst.AsName(cst.Name(old))
                    alias = alias.with_changes(name=cst.Name(renamed[old]), asname=bound)
                names.append(alias)
            updated = updated.with_changes(names=names)
        return updated

    def leave_Import(self, original: cst.Import, updated: cst.Import) -> cst.Import:
        names = []
        for alias in updated.names:
            name = dotted(alias.name) or ""
            if name in MOVED_MODULES and alias.asname is not None:  # ``import a.b as m``: the binding stays
                self._note(original, f"import {name}", f"import {MOVED_MODULES[name]}")
                alias = alias.with_changes(name=_name_node(MOVED_MODULES[name]))
            elif (name == PRIVATE_KERAS or name.startswith(PRIVATE_KERAS + ".")) and alias.asname is not None:
                new = _public_keras(name)  # ``import tensorflow.python.keras as K``, as its ``from`` form
                self._note(original, f"import {name}", f"import {new}")
                alias = alias.with_changes(name=_name_node(new))
            names.append(alias)
        return updated.with_changes(names=names)

    def leave_Attribute(self, original: cst.Attribute, updated: cst.Attribute) -> cst.BaseExpression:
        name = dotted(original)
        if name is None or "." not in name:
            return updated
        module, last = name.rsplit(".", 1)
        if last in RENAMED_FUNCTIONS.get(module, {}):
            new = f"{module}.{RENAMED_FUNCTIONS[module][last]}"
            self._note(original, name, new)
            return _name_node(new)
        return updated

    def leave_Expr(self, original: cst.Expr, updated: cst.Expr) -> cst.BaseSmallStatement:
        """``frame[column].fillna(v, inplace=True)`` -> ``frame[column] = frame[column].fillna(v)``."""
        call = updated.value
        if not (isinstance(call, cst.Call) and isinstance(call.func, cst.Attribute)):
            return updated
        column = call.func.value
        inplace = [a for a in call.args if a.keyword is not None and a.keyword.value == "inplace"]
        if (
            call.func.attr.value not in CHAINED_INPLACE_METHODS
            or not _one_column(column)
            or len(inplace) != 1
            or not (isinstance(inplace[0].value, cst.Name) and inplace[0].value.value == "True")
        ):
            return updated
        args = [a for a in call.args if a is not inplace[0]]
        if args:
            args[-1] = args[-1].with_changes(comma=cst.MaybeSentinel.DEFAULT)
        target = cst.Module([]).code_for_node(column)
        self._note(original, f"{target}.{call.func.attr.value}(..., inplace=True)",
                   f"{target} = {target}.{call.func.attr.value}(...) (pandas 3: a column is a copy)")  # fmt: skip
        return cst.Assign(targets=[cst.AssignTarget(column)], value=call.with_changes(args=args))

    def leave_BinaryOperation(self, original: cst.BinaryOperation, updated: cst.BinaryOperation) -> cst.BaseExpression:
        """``"w %g" % w`` -> ``"w %g" % format_args(w, "g")``: NumPy 1's conversion of a one-element
        array wherever the format converts to a number (:mod:`mutreal.compat.numpy1_scalars`)."""
        if not isinstance(original.operator, cst.Modulo):
            return updated
        conversions = _printf_conversions(original.left)
        if conversions is None or not any(c in NUMERIC_CONVERSIONS for c in conversions):
            return updated
        self.needs_numpy1 = True
        self._note(original, "format % values", "NumPy 1's one-element arrays as numbers in the numeric conversions")
        call = cst.Call(
            _name_node(f"{NUMPY1}.format_args"),
            [cst.Arg(updated.right), cst.Arg(cst.SimpleString(repr(conversions)))],
        )
        return updated.with_changes(right=call)

    def leave_Call(self, original: cst.Call, updated: cst.Call) -> cst.BaseExpression:
        callee = dotted(original.func) or ""
        if callee in NUMBER_BUILTINS and len(updated.args) == 1 and updated.args[0].keyword is None and not updated.args[0].star:
            self.needs_numpy1 = True
            self._note(original, f"{callee}(value)", f"{callee}(value), a one-element array as NumPy 1 converted it")
            wrapped = cst.Call(_name_node(f"{NUMPY1}.as_scalar"), [cst.Arg(updated.args[0].value)])
            return updated.with_changes(args=[updated.args[0].with_changes(value=wrapped)])
        if callee.rsplit(".", 1)[-1] in ONE_DEVICE_IDENTITY and updated.args:
            self._note(original, f"{callee}(model, ...)", "model (the same training on one device)")
            return updated.args[0].value
        if callee in DEFAULT_NOW:
            self._note(original, f"{callee}(...)", "None (its effect is the default now)")
            return cst.Name("None")
        if callee.rsplit(".", 1)[-1] == "OneHotEncoder":
            return self._one_hot_encoder(original, updated)
        if callee not in self.wrappers and not callee.startswith("scikeras.wrappers."):
            return updated
        args = []
        for arg in updated.args:
            keyword = arg.keyword.value if arg.keyword is not None else None
            if keyword in WRAPPER_KEYWORDS:
                self._note(original, f"{keyword}=", f"{WRAPPER_KEYWORDS[keyword]}=")
                arg = arg.with_changes(keyword=cst.Name(WRAPPER_KEYWORDS[keyword]))
            args.append(arg)
        return updated.with_changes(args=args)

    def _one_hot_encoder(self, original: cst.Call, updated: cst.Call) -> cst.BaseExpression:
        """``OneHotEncoder(categorical_features=C)`` (removed in scikit-learn 0.22) -> a
        ``ColumnTransformer`` one-hot encoding the columns ``C`` with the others passed through after
        them, sparse: the output the removed argument gave (encoded columns first, "the non-categorical
        features are always stacked to the right"). ``categorical_features='all'`` was the default.
        One difference is left: when every encoded column holds a single category the output comes back
        dense (ColumnTransformer counts passed-through columns as dense and stacks sparse only below a
        density of 1), where the removed argument gave a sparse matrix."""
        chosen = next((a for a in updated.args if a.keyword and a.keyword.value == "categorical_features"), None)
        if chosen is None:
            return updated
        rest = [a for a in updated.args if a is not chosen]
        if rest:
            rest[-1] = rest[-1].with_changes(comma=cst.MaybeSentinel.DEFAULT)
        encoder = updated.with_changes(args=rest)
        if isinstance(chosen.value, cst.SimpleString) and chosen.value.evaluated_value == "all":
            self._note(original, "OneHotEncoder(categorical_features='all')", "OneHotEncoder() (the default)")
            return encoder
        self.needs_column_transformer = True
        columns = cst.Module([]).code_for_node(chosen.value)
        new = cst.parse_expression(
            f'{COLUMN_TRANSFORMER}([("onehot", {cst.Module([]).code_for_node(encoder)}, {columns})], '
            'remainder="passthrough", sparse_threshold=1.0)'
        )
        self._note(original, "OneHotEncoder(categorical_features=...)",
                   "ColumnTransformer(one-hot of those columns first, the rest passed through)")  # fmt: skip
        return new

    def leave_Module(self, original: cst.Module, updated: cst.Module) -> cst.Module:
        imports = []
        if self.needs_column_transformer:
            imports.append(f"from sklearn.compose import ColumnTransformer as {COLUMN_TRANSFORMER}")
        if self.needs_numpy1:
            imports.append(f"import mutreal.compat.numpy1_scalars as {NUMPY1}")
        if not imports:
            return updated
        body = list(updated.body)
        at = 0
        for index, statement in enumerate(body):  # after the docstring and __future__ imports
            code = cst.Module([]).code_for_node(statement).strip()
            if code.startswith("from __future__") or (index == at and code[:1] in "\"'rRbBuU" and "\n" not in code):
                at = index + 1
        added = [cst.parse_statement(f"{line}\n").body[0] for line in imports]  # type: ignore[union-attr]
        if at < len(body) and isinstance(body[at], cst.SimpleStatementLine):
            # on the first statement's line, so the program's line numbers (in its errors) stay its own
            first = body[at]
            body[at] = first.with_changes(body=[*added, *first.body])  # type: ignore[union-attr]
            return updated.with_changes(body=body)
        return updated.with_changes(body=[*body[:at], cst.SimpleStatementLine(added), *body[at:]])


#: what names one column inside ``frame[...]``: a label or a variable holding one
_COLUMN_KEYS = (cst.SimpleString, cst.ConcatenatedString, cst.FormattedString, cst.Integer, cst.Name, cst.Attribute)


def _one_column(node: cst.BaseExpression) -> bool:
    """``frame['a']`` / ``frame[name]``: one column of a frame (not a list of them, a slice, ``.loc``
    or rows chosen by a condition: ``frame[frame.a > 0]`` is a copy in every pandas, and assigning it
    back would change the frame where the program never did)."""
    if not isinstance(node, cst.Subscript) or len(node.slice) != 1:
        return False
    element = node.slice[0].slice
    if not isinstance(element, cst.Index) or not isinstance(element.value, _COLUMN_KEYS):
        return False
    return not (isinstance(node.value, cst.Attribute) and node.value.attr.value in ("loc", "iloc", "at", "iat"))


def _printf_conversions(node: cst.BaseExpression) -> str | None:
    """The arguments a ``%`` format string literal consumes, one letter each (its conversion type;
    ``*`` for a width or precision read from the arguments); None for what is no format string
    literal, a bytes or f-string, a format keyed by name (``%(name)s``, formatted from a mapping)
    or one that does not parse as printf."""
    if not isinstance(node, (cst.SimpleString, cst.ConcatenatedString)):
        return None
    try:
        text = node.evaluated_value
    except Exception:  # noqa: BLE001 - a literal LibCST cannot evaluate is left as written
        return None
    if not isinstance(text, str):
        return None
    letters = []
    for match in _CONVERSION.finditer(text):
        key, width, precision, kind = match.groups()
        if kind == "%":
            continue
        if key is not None or kind not in NUMERIC_CONVERSIONS | set("rsa"):
            return None
        letters.extend("*" for part in (width, precision) if part == "*")
        letters.append(kind)
    return "".join(letters)


def _public_keras(module: str) -> str:
    """``tensorflow.python.keras[.X]`` -> ``keras[.X]``, a Keras 2 sub-module whose names moved to
    its package (``layers.core``) -> that package."""
    from mutreal.compat.modernize import MOVED_MODULES as KERAS_MOVED

    rest = module[len(PRIVATE_KERAS) + 1 :]
    return "keras" + (f".{KERAS_MOVED.get(rest, rest)}" if rest else "")


def rewrite_removed_apis(source: str) -> tuple[str, list[Change]]:
    """``source`` with the removed APIs of this module's tables rewritten, and each change.

    Raises ``libcst.ParserSyntaxError`` if ``source`` does not parse."""
    wrapper = cst.metadata.MetadataWrapper(cst.parse_module(source))
    rewriter = _Rewriter()
    new = wrapper.visit(rewriter)
    return new.code, rewriter.changes
