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

from mutreal.compat.modernize import Change

#: Graph-mode TF1 code (what ``disable_v2_behavior`` is needed for): a session (TensorFlow's, or Keras'
#: ``backend.get_session()``), a placeholder, ``tf.gradients`` (symbolic gradients, graph only), and
#: what TensorFlow 2 refuses under eager execution: queue-based input pipelines and their runners,
#: merged summaries and the ``Supervisor``/``MonitoredTrainingSession`` that drive sessions.
_GRAPH_MODE = re.compile(
    r"\b(?:compat\.v1|tf)\.(?:Session|InteractiveSession|placeholder|placeholder_with_default)\b|"
    r"\bget_session\(|\btf\.gradients\(|"
    r"\b(?:compat\.v1|tf)\.train\.(?:\w*_input_producer|start_queue_runners|Supervisor|MonitoredTrainingSession"
    r"|(?:shuffle_)?batch(?:_join)?|QueueRunner|add_queue_runner)\b|\bqueue_runner\.|"
    r"\b(?:compat\.v1|tf)\.(?:FIFOQueue|RandomShuffleQueue|PaddingFIFOQueue)\b|"
    r"\b(?:compat\.v1|tf)\.summary\.(?:merge_all|merge|FileWriter)\b"
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
    # what the author wrote decides as much as the converted text: ``tf.FIFOQueue`` becomes
    # ``tf.queue.FIFOQueue``, which TensorFlow 2 runs eagerly (an ``enqueue_many`` past the capacity
    # then blocks for ever, where the TF1 program only built the op)
    graph_mode = bool(_GRAPH_MODE.search(new) or _GRAPH_MODE.search(source))
    # in graph mode every name of V1_MEANINGS means TensorFlow 1's; in eager code only those that
    # TensorFlow 2 dropped (``tf.layers``: nothing else could be meant)
    new, meant = graph_mode_v1_names(new, None if graph_mode else NO_TF2_MEANING)
    changes.extend(meant)
    return Upgrade(new, changes, problems, graph_mode=graph_mode)


#: Names TensorFlow 2 kept with another meaning, which the converter leaves: in a graph-mode TF1
#: program they mean ``tf.compat.v1``'s. ``tf.Variable(...)`` was ``VariableV1`` (a reference
#: variable: ``assign`` returns a tensor, ``initialized_value()`` works); ``tf.summary``'s graph ops
#: (TF2's need TensorBoard and a writer); ``tf.losses``/``tf.metrics`` as a module object (the
#: converter renames their members; TF2's are Keras' classes); ``tf.layers`` (gone from TF2, the
#: installed converter no longer knows it). name -> where it applies: ``"call"`` (``tf.X(...)``),
#: ``"bare"`` (``tf.X`` not followed by an attribute), ``"any"``, or the members it applies to.
V1_MEANINGS: dict[str, str | frozenset[str]] = {
    "Variable": "call",
    "summary": frozenset({"scalar", "histogram", "image", "audio", "text", "tensor_summary", "merge", "merge_all",
                          "FileWriter", "FileWriterCache", "Summary", "SummaryDescription", "Event",
                          "TaggedRunMetadata", "get_summary_description"}),  # fmt: skip
    "losses": "bare",
    "metrics": "bare",
    "layers": "any",
}
#: names of V1_MEANINGS that TensorFlow 2 has no module of at all: TensorFlow 1's, whatever the mode
NO_TF2_MEANING = frozenset({"layers"})
_TF_IMPORT = re.compile(r"^\s*import\s+tensorflow(?:\s+as\s+(\w+))?\s*(?:#.*)?$", re.M)


def graph_mode_v1_names(source: str, names: frozenset[str] | None = None) -> tuple[str, list[Change]]:
    """``tf.X`` of :data:`V1_MEANINGS` (only those in ``names``, when given) left in ``source`` ->
    ``tf.compat.v1.X`` (any alias of ``import tensorflow``), one change per rewrite; text that does
    not tokenize is left as it is."""
    import tokenize

    aliases = {m.group(1) or "tensorflow" for m in _TF_IMPORT.finditer(source)}
    if not aliases:
        return source, []
    try:
        tokens = list(tokenize.generate_tokens(io.StringIO(source).readline))
    except (tokenize.TokenError, SyntaxError):
        return source, []
    lines = source.splitlines(keepends=True)
    edits: list[tuple[int, int, str]] = []  # (row, column of the member, alias) to insert "compat.v1." at
    for i in range(len(tokens) - 2):
        alias, dot, member = tokens[i], tokens[i + 1], tokens[i + 2]
        if alias.type != tokenize.NAME or alias.string not in aliases or dot.string != "." or member.type != tokenize.NAME:
            continue
        if i > 0 and tokens[i - 1].string == ".":  # x.tf.summary: not TensorFlow's
            continue
        rule = V1_MEANINGS.get(member.string) if names is None or member.string in names else None
        after = tokens[i + 3].string if i + 3 < len(tokens) else ""
        attribute = tokens[i + 4].string if after == "." and i + 4 < len(tokens) else None
        if rule is None or (rule == "call" and after != "(") or (rule == "bare" and after == "."):
            continue
        if isinstance(rule, frozenset) and attribute not in rule:
            continue
        edits.append((member.start[0], member.start[1], alias.string))
    changes = []
    for row, column, alias in sorted(edits, reverse=True):
        line = lines[row - 1]
        member = re.match(r"\w+", line[column:]).group(0)  # type: ignore[union-attr]
        lines[row - 1] = line[:column] + "compat.v1." + line[column:]
        changes.append(Change(row, "tf1 graph mode", f"{alias}.{member} -> {alias}.compat.v1.{member} "
                                                       "(TensorFlow 1's meaning of the name)", ""))  # fmt: skip
    return "".join(lines), sorted(changes, key=lambda c: c.line)
