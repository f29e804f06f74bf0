"""TensorFlow 1 programs upgraded with TensorFlow's own converter, called as a library.

TensorFlow ships ``tf_upgrade_v2`` (module ``tensorflow.tools.compatibility``): it renames the TF1
API a program uses to its ``tf.compat.v1`` or TF2 name (``tf.placeholder`` ->
``tf.compat.v1.placeholder``, ``tf.log`` -> ``tf.math.log``, ``reduction_indices=`` -> ``axis=``) and
reports what it cannot convert (most of ``tf.contrib``). mutreal keeps none of its tables: it calls
the converter of the installed TensorFlow, so the rewrite is the one that TensorFlow version defines
(its version is in every run key). Importing the converter imports TensorFlow (seconds), so it is
only called for programs that import TensorFlow and are not Keras 3 programs.
"""

from __future__ import annotations

import contextlib
import io
import logging
import re
import warnings
from dataclasses import dataclass, field

from mutreal.program.modernize import Change

#: Graph-mode TF1 code (what ``disable_v2_behavior`` is needed for): a session (TensorFlow's, or Keras'
#: ``backend.get_session()``), a placeholder, or ``tf.gradients`` (symbolic gradients, graph only).
_GRAPH_MODE = re.compile(
    r"\b(?:compat\.v1|tf)\.(?:Session|InteractiveSession|placeholder|placeholder_with_default)\b|"
    r"\bget_session\(|\btf\.gradients\("
)
_LOG_LINE = re.compile(r"^(\d+):(\d+): (INFO|WARNING|ERROR): (.*)$", re.S)


@dataclass
class Upgrade:
    """The upgraded text, its changes (one per converter log line), what it could not convert, and
    whether the result needs graph mode."""

    source: str
    changes: list[Change] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)
    graph_mode: bool = False

    @property
    def changed(self) -> bool:
        return bool(self.changes)

    @property
    def tf1_api(self) -> bool:
        """A TensorFlow 1 name was renamed (not only ``tf.keras``'s own optimizers moved to ``legacy``)."""
        return any("keras" not in change.before for change in self.changes)


def _change(line: str) -> Change | str:
    match = _LOG_LINE.match(line.strip())
    if match is None:
        return line.strip()
    number, _column, level, message = match.groups()
    if level != "INFO":
        return f"line {number}: {message.strip()}"
    return Change(int(number), "tf_upgrade_v2", message.strip(), "")


def upgrade_tf1(source: str) -> Upgrade:
    """``source`` through ``tf_upgrade_v2``; unchanged (with the reason in ``problems``) when the
    converter cannot parse it. Never raises for a bad program."""
    try:
        from tensorflow.tools.compatibility import ast_edits, tf_upgrade_v2
    except ImportError as error:  # pragma: no cover - TensorFlow is a dependency
        return Upgrade(source, problems=[f"the TensorFlow converter is not available: {error}"])
    upgrader = ast_edits.ASTCodeUpgrader(tf_upgrade_v2.TFAPIChangeSpec())
    quiet = logging.getLogger("absl"), logging.getLogger()
    levels = [logger.level for logger in quiet]
    for logger in quiet:
        logger.setLevel(logging.ERROR)
    try:
        # the converter walks the tree with ast's deprecated visit_Num/visit_Str hooks: its
        # DeprecationWarnings are TensorFlow's, not the user's program's
        with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()), \
                warnings.catch_warnings():
            warnings.simplefilter("ignore", DeprecationWarning)
            processed, new, logs, errors = upgrader.update_string_pasta(source, "<program>")
    except Exception as error:  # noqa: BLE001 - the converter's own failure: the program stays as it is
        return Upgrade(source, problems=[f"tf_upgrade_v2 failed: {type(error).__name__}: {error}"])
    finally:
        for logger, level in zip(quiet, levels, strict=True):
            logger.setLevel(level)
    if not processed:
        return Upgrade(source, problems=[" ".join(str(e).split())[:300] for e in logs[:1]],
                       graph_mode=bool(_GRAPH_MODE.search(source)))  # fmt: skip
    changes: list[Change] = []
    problems: list[str] = []
    for entry in logs:
        item = _change(entry)
        (changes if isinstance(item, Change) else problems).append(item)  # type: ignore[arg-type]
    problems.extend(str(item) for item in (_change(e) for e in errors) if not isinstance(item, Change))
    if not changes:  # nothing renamed: keep the author's text (pasta may re-space a line)
        new = source
    return Upgrade(new, changes, problems, graph_mode=bool(_GRAPH_MODE.search(new)))
