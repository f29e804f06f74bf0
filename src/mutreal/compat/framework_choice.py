"""Which framework a program runs on, decided from its source, and the rewrites that get it there.

Benchmark programs were written for Keras 1 or 2, ``tf.keras`` or TensorFlow 1; the installed Keras 3
rejects much of them and is stricter about shapes, so run as they are most of them crash before the
fault is reached, which says nothing about the fault. Each program therefore runs, by default, on
the framework of its era:

* ``keras3``: a program without Keras 1/2-only API runs as it is: classify's era ``keras3``, a
  program that reaches Keras only through the top-level ``keras`` namespace, and a ``tf.keras``
  program (era ``tf2``) that uses nothing Keras 3 removed. ``tf.keras`` *is* Keras 3 since
  TensorFlow 2.16, and measured on the dev SFData bugs (``tf.keras`` programs written for TF 2.x)
  Keras 3 reproduces more of them (33 of 43) than tf_keras (28): their curated versions use Keras 3
  API (``tf.keras.ops``), unbuilt-model summaries and the like.
* ``tf_keras``: a program with Keras 1/2-only evidence (classify's era ``keras1`` or ``keras2`` with
  evidence, standalone ``keras`` in Keras 2's package layout, Keras 2 API that Keras 3 removed such
  as ``lr=`` or ``fit_generator``, a step count given as a float, TensorFlow 1 names the converter
  renames, TensorFlow's private ``tensorflow.python.keras``) runs on Keras 2 as it
  is maintained today, the ``tf_keras`` package: its worker sets ``TF_USE_LEGACY_KERAS=1`` before
  TensorFlow is imported (so ``tf.keras`` is ``tf_keras``) and resolves ``keras`` imports to
  ``tf_keras`` (:mod:`mutreal.execution.frameworks`), after the Keras 1 spellings are rewritten
  (:mod:`mutreal.compat.modernize`, for Keras 2: TensorFlow ops on Keras tensors stay).
* ``tf1``: a TensorFlow 1 graph program (TensorFlow's converter renames its API, and it uses sessions,
  placeholders, queues or merged summaries) runs converted (:mod:`mutreal.compat.tf_upgrade`) in
  graph mode (``tf.compat.v1.disable_v2_behavior()``), its Keras on ``tf_keras`` too.

A program that uses ``tf.contrib`` or ``tensorflow.examples`` is TensorFlow 1-era code whatever Keras
spelling it shows: it runs on ``tf_keras`` or ``tf1``, whose workers serve those modules
(:mod:`mutreal.compat.tf1_contrib`); the modules it uses are listed in its rewrites.

Every program not run on Keras 3 also gets: Python 2 syntax upgraded, removed Python/library APIs
rewritten (:mod:`mutreal.compat.removed_apis`) and the benchmark's own instrumentation removed
(:mod:`mutreal.program.training_observers`). Every rewrite is listed, one line each, in the run record,
the campaign manifest and (through the rewritten text's hash and the framework) the run key.

The choice can be forced: ``auto`` (the default), ``keras3``/``tf_keras``/``tf1`` (that framework,
with its rewrites), ``as-is`` (the installed Keras 3, the text untouched, as before this module).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from mutreal.compat.modernize import Change

#: The frameworks a program can run on (a worker runs one of them for its whole life).
FRAMEWORKS = ("keras3", "tf_keras", "tf1")
#: What ``--framework`` accepts.
CHOICES = ("auto", *FRAMEWORKS, "as-is")
#: Imports from Keras 2's package layout (``from keras.models import``, ``keras.layers.core``, and
#: TensorFlow's private copy of Keras 2, ``tensorflow.python.keras``):
#: a program written before Keras 3, even when it shows no other era-specific spelling.
_KERAS2_LAYOUT = re.compile(
    r"^\s*(?:from\s+keras\.(?:models|layers|optimizers|callbacks|utils|preprocessing|wrappers|engine|"
    r"backend|regularizers|initializers|constraints|datasets|losses|metrics|activations|applications)\b|"
    r"import\s+keras\.|(?:from|import)\s+tensorflow\.python\.keras\b)",
    re.M,
)
#: ``tf.keras`` in any spelling: Keras 2 before TensorFlow 2.16 made it Keras 3
_TF_KERAS = re.compile(r"\b(?:tf|tensorflow)\.keras\b|^\s*from\s+tensorflow\s+import\s+(?:\w+\s*,\s*)*keras\b", re.M)
#: the step counts of fit/evaluate (and variables named after them): given as a true division
#: (``steps_per_epoch=len(x) / 32``) they are a float, which Keras 2 accepted and Keras 3 refuses
#: (``'float' object cannot be interpreted as an integer``; numpy's float64 too)
STEP_NAMES = frozenset({"steps_per_epoch", "validation_steps", "steps"})
#: calls that make an int of a division (``int(n / 32)``, ``math.ceil(n / 32)``: Keras 3 takes those)
_INT_CALLS = frozenset({"int", "len", "ceil", "floor", "math.ceil", "math.floor"})
#: calls that keep a float a float (``np.ceil(n / 32)`` is a numpy float64)
_FLOAT_CALLS = frozenset({"ceil", "floor", "round", "rint", "trunc", "abs", "max", "min"})
_IMPORTS_TF = re.compile(r"^\s*(?:import\s+tensorflow|from\s+tensorflow\b)", re.M)


@dataclass
class RuntimeSource:
    """A program ready to run: its era (classify's, or ``tf1``), the framework it runs on, the text
    to run, every rewrite applied (one line each) and why the framework was chosen."""

    era: str
    framework: str
    source: str
    rewrites: list[str] = field(default_factory=list)
    reason: str = ""

    def to_dict(self) -> dict[str, Any]:
        return {"era": self.era, "framework": self.framework, "rewrites": list(self.rewrites), "reason": self.reason}


def classify_era(source: str) -> tuple[str, list[str]]:
    """classify's era of ``source`` (``keras1``/``keras2``/``tf2``/``keras3``) and its evidence;
    ``unknown`` for a text the extractor cannot read."""
    try:
        from mutreal.extract import extract_source

        model = extract_source(source)
    except Exception as error:  # noqa: BLE001 - a program classify cannot read still runs
        return "unknown", [f"not read by the extractor: {type(error).__name__}"]
    return model.era, list(model.era_evidence)


def _assumed(evidence: list[str]) -> bool:
    return any("assumed" in line for line in evidence)


def _framework_of_era(era: str, evidence: list[str], source: str, tf1_api: bool) -> tuple[str, str, bool]:
    """(framework, why, whether the era's rewrites apply) of a program read as ``era``; ``tf1_api``:
    TensorFlow's converter renamed TensorFlow 1 names in it."""
    if era == "keras3" and not tf1_api:
        return "keras3", "a Keras 3 program: runs as it is", False
    uses_keras = bool(re.search(r"\bkeras\b", source))
    if not uses_keras and not _IMPORTS_TF.search(source):
        return "keras3", "no Keras or TensorFlow import: removed Python/numpy APIs rewritten", True
    if era == "keras1" or (era == "keras2" and not _assumed(evidence)):
        return "tf_keras", f"era {era}: runs on Keras 2 (tf_keras)", True
    if _KERAS2_LAYOUT.search(source):
        return "tf_keras", "imports from Keras 2's package layout: runs on Keras 2 (tf_keras)", True
    if tf1_api:
        return "tf_keras", "uses TensorFlow 1 API (converted): runs with tf.keras as Keras 2 (tf_keras)", True
    if float_step_count(source):
        return "tf_keras", "a step count computed by true division (a float Keras 3 refuses): runs on Keras 2 (tf_keras)", True
    if _needs_modernizing(source):
        return "tf_keras", "uses Keras 2 API Keras 3 removed (see its rewrites): runs on Keras 2 (tf_keras)", True
    if era == "unknown":
        return "tf_keras", "not read by the extractor, imports Keras/TensorFlow: runs on Keras 2 (tf_keras)", True
    # tf.keras (era tf2) or the top-level keras namespace without any Keras 1/2-only spelling: what
    # TensorFlow >= 2.16 gives it (Keras 3) runs it; measured on SFData's tf.keras programs, Keras 3
    # reproduces more of them than tf_keras (see the README)
    return "keras3", f"era {era} without Keras 1/2-only API: runs as it is (tf.keras is Keras 3 today)", False


def float_step_count(source: str) -> bool:
    """Whether a step count (:data:`STEP_NAMES` as a keyword argument, or a variable named
    ``steps_per_epoch`` / ``validation_steps``: ``steps`` alone names too much else) is
    given as a true division that nothing makes an int again: ``len(x) / 32``, ``np.ceil(n / 32)``,
    not ``int(len(x) / 32)``, ``math.ceil(n / 32)`` or ``n // 32``. Text that does not parse: no."""
    import ast

    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError):
        return False
    for node in ast.walk(tree):
        if isinstance(node, ast.keyword) and node.arg in STEP_NAMES and _may_be_float(node.value):
            return True
        named = isinstance(node, ast.Assign) and any(
            isinstance(t, ast.Name) and t.id in STEP_NAMES - {"steps"} for t in node.targets
        )
        if named and _may_be_float(node.value):
            return True
    return False


def _may_be_float(node: Any) -> bool:
    """Whether an expression holds a true division whose float nothing around it makes an int."""
    import ast

    if isinstance(node, ast.BinOp):
        return isinstance(node.op, ast.Div) or (
            not isinstance(node.op, ast.FloorDiv) and (_may_be_float(node.left) or _may_be_float(node.right))
        )
    if isinstance(node, ast.UnaryOp):
        return _may_be_float(node.operand)
    if isinstance(node, ast.Call):
        name = ast.unparse(node.func)
        last = name.rsplit(".", 1)[-1]
        if name in _INT_CALLS or (last == "round" and "." not in name and len(node.args) < 2):
            return False  # Python's int(), math.ceil(), round(x): an int
        return last in _FLOAT_CALLS and any(_may_be_float(a) for a in node.args)
    return False


def _needs_modernizing(source: str) -> bool:
    try:
        return bool(_modernized(source, keras3=False)[1])
    except Exception:  # noqa: BLE001 - not parsed: no evidence
        return False


def _python3(source: str) -> tuple[str, list[str]]:
    import ast

    try:
        ast.parse(source)
        return source, []
    except (SyntaxError, ValueError):
        from mutreal.program.source import upgrade_python2

        upgraded = upgrade_python2(source)
        if upgraded is None:
            return source, []
        try:
            ast.parse(upgraded)
        except (SyntaxError, ValueError):
            return source, []
        return upgraded, ["Python 2 syntax upgraded (print statements, except clauses)"]


def _apply(step: Any, source: str, rewrites: list[str], label: str) -> str:
    """One LibCST rewrite step; a program it cannot parse runs without it (said in the rewrites)."""
    try:
        new, changes = step(source)
    except Exception as error:  # noqa: BLE001 - an unparseable program still runs, unrewritten
        rewrites.append(f"not {label}: {type(error).__name__}: {str(error).splitlines()[0][:200] if str(error) else ''}")
        return source
    rewrites.extend(c.describe() if isinstance(c, Change) else str(c) for c in changes)
    return new


def _modernized(source: str, keras3: bool = True) -> tuple[str, list[Change]]:
    from mutreal.compat.modernize import modernize_source

    result = modernize_source(source, keras3=keras3)
    return result.source, result.changes


def _modernized_for_keras2(source: str) -> tuple[str, list[Change]]:
    return _modernized(source, keras3=False)


def _legacy_rewrites(source: str, rewrites: list[str], framework: str) -> str:
    from mutreal.compat.removed_apis import rewrite_removed_apis
    from mutreal.compat.scaffolding import strip_instrumentation

    source = _apply(_modernized if framework == "keras3" else _modernized_for_keras2, source, rewrites, "modernized")
    source = _apply(rewrite_removed_apis, source, rewrites, "rewritten for removed APIs")
    return _apply(strip_instrumentation, source, rewrites, "stripped of instrumentation")


def prepare_runtime(source: str, choice: str = "auto", *, modernize: bool = False) -> RuntimeSource:
    """Decide the framework ``source`` runs on (``choice``: one of :data:`CHOICES`) and rewrite it.

    ``modernize`` applies the Keras 1/2 rewrite on Keras 3 too (``--modernize``: an old program run
    on Keras 3 by choice). Never raises for a bad program: what cannot be rewritten runs as it is
    and fails at run time with its own error (a ``version_problem`` where that error is a removed API)."""
    if choice not in CHOICES:
        raise ValueError(f"unknown framework {choice!r}: choose one of {', '.join(CHOICES)}")
    era, evidence = classify_era(source)
    if choice == "as-is":
        rewrites: list[str] = []
        if modernize:
            source = _apply(_modernized, source, rewrites, "modernized")
        return RuntimeSource(era, "keras3", source, rewrites, "--framework as-is: the installed Keras, text as written")
    text, rewrites = _python3(source)
    if era == "unknown" and rewrites:
        era, evidence = classify_era(text)
    from mutreal.compat.tf1_contrib import contrib_uses, uses_removed_modules

    # tf.contrib / tensorflow.examples: TensorFlow 1-era code, whatever Keras spelling classify saw
    removed_modules = uses_removed_modules(text)
    upgrade = None
    if choice in ("auto", "tf1") and (era != "keras3" or removed_modules) and _IMPORTS_TF.search(text):
        from mutreal.compat.tf_upgrade import upgrade_tf1

        upgrade = upgrade_tf1(text)
    rewrite = True
    if choice != "auto":
        framework, reason = choice, f"--framework {choice}"
    elif upgrade is not None and upgrade.graph_mode:  # also code written with tf.compat.v1 already
        era, framework = "tf1", "tf1"
        reason = "TensorFlow 1 graph code (sessions, placeholders, tf.gradients): run in graph mode"
    else:
        tf1_api = (upgrade is not None and upgrade.tf1_api) or removed_modules
        framework, reason, rewrite = _framework_of_era(era, evidence, text, tf1_api)
    if framework == "keras3" and not rewrite:
        if modernize:
            text = _apply(_modernized, text, rewrites, "modernized")
        return RuntimeSource(era, "keras3", text if rewrites else source, rewrites, reason)
    if upgrade is not None and upgrade.changed and framework != "keras3":
        text = upgrade.source
        rewrites.extend(f"line {c.line}: {c.kind}: {c.before}" for c in upgrade.changes)
        rewrites.extend(f"not converted by tf_upgrade_v2: {p}" for p in upgrade.problems)
    text = _legacy_rewrites(text, rewrites, framework)
    if framework != "keras3":  # served by the tf1/tf_keras workers' import hook, listed here
        from mutreal.compat.era_behaviour import recorded

        rewrites.extend(contrib_uses(text))
        graph_keras = bool(removed_modules) or (upgrade is not None and upgrade.tf1_api)
        rewrites.extend(recorded(text, era, framework, graph_keras))  # restored by those workers, listed here
    return RuntimeSource(era, framework, text, rewrites, reason)
