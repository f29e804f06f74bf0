"""Import and alias resolution in the extractor's single pass.

LibCST's ``QualifiedNameProvider`` builds full scope analysis, which costs more than the parse.
Keras programs import at module level and use dotted names, so a table of local alias -> dotted
name, filled as import statements are met, resolves ``tf.keras.layers.Dense``, ``K.layers.Dense``
or ``Dense`` (``from keras.layers import Dense``) to ``tensorflow.keras.layers.Dense`` /
``keras.layers.Dense``. Star imports from a Keras module make its known names resolvable too, and
(pasted snippets often lack imports) a bare known Keras name with no import at all still resolves.
"""

from __future__ import annotations

import re

import libcst as cst

from mutreal.program import keras_api

#: modules whose import decides the framework of a program
_TF_ROOTS = ("tensorflow",)
_TORCH_ROOTS = ("torch",)
_OTHER_DL_ROOTS = ("mxnet", "chainer", "caffe", "theano", "lasagne", "paddle", "jax", "flax", "cntk")

#: conventional aliases assumed when a pasted snippet uses them without importing them
CONVENTIONAL_ALIASES = {
    "np": "numpy",
    "pd": "pandas",
    "tf": "tensorflow",
    "plt": "matplotlib.pyplot",
    "keras": "keras",
    "sklearn": "sklearn",
    "numpy": "numpy",
    "pandas": "pandas",
    "tensorflow": "tensorflow",
    "K": "keras.backend",
    "layers": "keras.layers",
    "models": "keras.models",
    "optimizers": "keras.optimizers",
    "losses": "keras.losses",
    "activations": "keras.activations",
    "callbacks": "keras.callbacks",
    "regularizers": "keras.regularizers",
    "initializers": "keras.initializers",
    "datasets": "keras.datasets",
    "np_utils": "keras.utils.np_utils",
    "utils": "keras.utils",
    "metrics": "keras.metrics",
}

#: Keras sub-modules (an unknown alias followed by one of these is taken as Keras)
_KERAS_SUBMODULES = frozenset(
    {
        "layers",
        "models",
        "optimizers",
        "losses",
        "callbacks",
        "regularizers",
        "initializers",
        "activations",
        "utils",
        "datasets",
        "preprocessing",
        "backend",
        "metrics",
        "applications",
        "constraints",
    }
)

#: short Keras names always resolvable (models)
_MODEL_NAMES = {"Sequential": "keras.models.Sequential", "Model": "keras.models.Model"}


def dotted(node: cst.BaseExpression) -> str | None:
    """``a.b.c`` for a Name/Attribute chain, else None."""
    parts: list[str] = []
    while isinstance(node, cst.Attribute):
        parts.append(node.attr.value)
        node = node.value
    if isinstance(node, cst.Name):
        parts.append(node.value)
        return ".".join(reversed(parts))
    return None


def _module_name(node: cst.BaseExpression | None) -> str:
    if node is None:
        return ""
    return dotted(node) or ""


class ImportTable:
    """Local names bound by imports -> fully dotted names, plus what the imports say about the program."""

    def __init__(self) -> None:
        self.aliases: dict[str, str] = {}
        self.star_modules: list[str] = []
        self.modules: list[str] = []  # every imported module, in order

    def add(self, node: cst.Import | cst.ImportFrom) -> None:
        """Record one import statement."""
        if isinstance(node, cst.Import):
            for alias in node.names:
                full = _module_name(alias.name)
                self.modules.append(full)
                if alias.asname is not None and isinstance(alias.asname.name, cst.Name):
                    self.aliases[alias.asname.name.value] = full
                else:
                    root = full.split(".")[0]
                    self.aliases.setdefault(root, root)
            return
        if node.relative:
            return
        module = _module_name(node.module)
        self.modules.append(module)
        if isinstance(node.names, cst.ImportStar):
            self.star_modules.append(module)
            return
        for alias in node.names:
            name = _module_name(alias.name)
            local = name
            if alias.asname is not None and isinstance(alias.asname.name, cst.Name):
                local = alias.asname.name.value
            self.aliases[local] = f"{module}.{name}" if module else name

    def resolve(self, node: cst.BaseExpression) -> str | None:
        """Full dotted name of a Name/Attribute chain (aliases replaced), else None."""
        name = dotted(node)
        if name is None:
            return None
        return self.resolve_name(name)

    def resolve_name(self, name: str) -> str:
        """Replace the first component of dotted ``name`` by what it was imported as."""
        head, _, rest = name.partition(".")
        full = self.aliases.get(head)
        if full is None:
            full = self._star_or_known(head)
        if full is None and rest:
            full = CONVENTIONAL_ALIASES.get(head)
        if full is None and rest and head not in self.aliases:
            # an unimported alias used like Keras (``kr.layers.Dense``, ``K2.Sequential``): take it as keras
            parts = rest.split(".")
            leaf = parts[-1]
            known_leaf = (
                keras_api.is_layer(leaf)
                or leaf in _MODEL_NAMES
                or leaf in keras_api.CALLBACKS
                or keras_api.canonical_optimizer(leaf) is not None
                or keras_api.canonical_loss(leaf) is not None
                or keras_api.canonical_activation(leaf) is not None
                or keras_api.canonical_regularizer(leaf) is not None
                or keras_api.canonical_initializer(leaf) is not None
            )
            if known_leaf and (
                parts[0] in _KERAS_SUBMODULES and len(parts) == 2 or leaf in _MODEL_NAMES and len(parts) == 1
            ):
                full = "keras"
        if full is None:
            return name
        return f"{full}.{rest}" if rest else full

    def _star_or_known(self, head: str) -> str | None:
        for module in self.star_modules:
            part = keras_api.keras_module_part(module + ".")
            if part is None:
                continue
            if keras_api.is_layer(head) or head in _MODEL_NAMES or keras_api.canonical_optimizer(head):
                return f"{module}.{head}"
            if head in keras_api.CALLBACKS or head == "to_categorical":
                return f"{module}.{head}"
        # pasted snippets without imports: a known Keras class name is taken as Keras
        if head in _MODEL_NAMES:
            return _MODEL_NAMES[head]
        if keras_api.is_layer(head) and head[:1].isupper():
            return f"keras.layers.{head}"
        misspelt = keras_api.layer_ignoring_case(head) if head[:1].isupper() else None
        if misspelt is not None:  # rule api_spelling: ``Conv1d`` typed for ``Conv1D`` in a post
            return f"keras.layers.{misspelt}"
        if head[:1].isupper() and keras_api.canonical_optimizer(head) == head:
            return f"keras.optimizers.{head}"
        if head in keras_api.CALLBACKS and head != "Callback":
            return f"keras.callbacks.{head}"
        if head == "to_categorical":
            return "keras.utils.to_categorical"
        return None

    def is_bound(self, name: str) -> bool:
        return name.partition(".")[0] in self.aliases

    # -- framework and era evidence ---------------------------------------------------------------
    def uses(self, roots: tuple[str, ...]) -> bool:
        return any(m == r or m.startswith(r + ".") for m in self.modules for r in roots)

    def keras_modules(self) -> list[str]:
        """Imported modules that are Keras (any packaging)."""
        out = []
        for m in self.modules:
            if keras_api.keras_module_part(m) is not None or keras_api.keras_module_part(m + ".") is not None:
                out.append(m)
        # ``from tensorflow import keras`` imports tensorflow.keras
        for _local, full in self.aliases.items():
            if full in keras_api.KERAS_ROOTS and full not in out:
                out.append(full)
        return out


#: raw TensorFlow model building and training (TF1 graphs, low-level ops, tf.layers functions)
RAW_TF = re.compile(
    r"\.(?:placeholder|Session|InteractiveSession|get_variable|global_variables_initializer)\(|"
    r"\btf\.Variable\(|\.train\.\w+Optimizer\(|\btf\.layers\.(?:dense|conv2d|max_pooling2d|dropout)\(|"
    r"\btf\.nn\.(?:conv2d|softmax_cross_entropy_with_logits\w*|sparse_softmax_cross_entropy_with_logits)\(|"
    r"\bGradientTape\("
)


def uses_raw_tensorflow(code: str, imports: ImportTable) -> bool:
    """Whether the program builds or trains with raw TensorFlow (not only through Keras)."""
    return imports.uses(_TF_ROOTS) and RAW_TF.search(code) is not None


#: ``tf.`` written in a snippet that imports nothing (a posted fragment)
_TF_PREFIX = re.compile(r"\btf\.\w")


def uses_graph_code(code: str, imports: ImportTable) -> bool:
    """Whether the graph front-end reads this program: it uses raw TensorFlow (:data:`RAW_TF`), or
    it calls TensorFlow without using Keras at all, not even as ``tf.keras`` (tensor programs:
    ``tf.constant``, ``tf.while_loop``, input queues). A fragment that imports nothing counts as importing
    TensorFlow when it writes ``tf.`` (a posted snippet)."""
    tf_used = imports.uses(_TF_ROOTS) or (not imports.aliases and _TF_PREFIX.search(code) is not None)
    if not tf_used:
        return False
    return RAW_TF.search(code) is not None or not (imports.keras_modules() or "keras" in code)


def framework_of(
    imports: ImportTable, keras_seen: bool, keras_built: bool = True, raw_tf: bool = False
) -> str:
    """``keras`` / ``tensorflow`` / ``pytorch`` / ``other`` / ``none`` from imports and what was built.

    A program that builds or trains no Keras model but uses raw TensorFlow (placeholders, sessions,
    tf.train optimizers) is ``tensorflow`` even when it imports Keras for data or utilities.
    """
    if keras_built:
        return "keras"
    if raw_tf:
        return "tensorflow"
    if keras_seen or imports.keras_modules():
        return "keras"
    if imports.uses(_TF_ROOTS):
        return "tensorflow"
    if imports.uses(_TORCH_ROOTS):
        return "pytorch"
    if imports.uses(_OTHER_DL_ROOTS):
        return "other"
    return "none"


def era_from_imports(imports: ImportTable) -> tuple[str | None, list[str]]:
    """Era suggested by the imports alone (None when they do not decide) and the evidence."""
    evidence: list[str] = []
    kmods = imports.keras_modules()
    tf_keras = [m for m in kmods if m.startswith(("tensorflow", "tf_keras"))]
    standalone = [m for m in kmods if m == "keras" or m.startswith("keras.")]
    if any(
        m.startswith(("keras.ops", "keras.src", "keras_core", "keras.saving", "keras.random")) for m in kmods
    ):
        evidence.append("imports Keras 3 only modules")
        return "keras3", evidence
    if tf_keras and not standalone:
        evidence.append(f"imports {tf_keras[0]} (tf.keras)")
        return "tf2", evidence
    if standalone:
        evidence.append(f"imports standalone {standalone[0]}")
        if any(".legacy" in m for m in standalone):
            return "keras2", evidence
        return None, evidence
    if imports.uses(_TF_ROOTS):
        evidence.append("imports tensorflow (tf.keras by attribute)")
        return "tf2", evidence
    return None, evidence
