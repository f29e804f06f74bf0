"""Turn a program file as found in a benchmark into a LibCST module, or a clear error.

Benchmark programs are often not clean Python 3: code pasted from posts keeps Python 2 print
statements, notebook magics, prose lines and a bracket left open at the end. This module reads the
bytes, decodes them (UTF-8, else the encoding the file declares), upgrades Python 2 syntax with
fissix, and in *tolerant* mode sets aside the lines that still cannot parse, listing them, so that
the rest of the program can be classified. Line numbers are kept: a set-aside line becomes ``pass``
or an empty line, never disappears.
"""

from __future__ import annotations

import ast
import io
import os
import re
import stat
import tokenize
from collections import OrderedDict
from dataclasses import asdict, dataclass, field
from pathlib import Path

import libcst

#: fissix fixers that only rewrite Python 2 *syntax*; none changes what a Keras program does.
SYNTAX_FIXERS: tuple[str, ...] = (
    "fissix.fixes.fix_print",
    "fissix.fixes.fix_except",
    "fissix.fixes.fix_raise",
    "fissix.fixes.fix_exec",
    "fissix.fixes.fix_ne",
    "fissix.fixes.fix_numliterals",
    "fissix.fixes.fix_repr",
    "fissix.fixes.fix_tuple_params",
    "fissix.fixes.fix_throw",
)

#: most lines a tolerant parse may set aside before the file counts as "not Python".
MAX_SET_ASIDE = 60

_MAGIC = re.compile(r"^\s*(%|!|In \[\d*\]:|Out\[\d*\]:|>>>\s|\.\.\.\s)")


class SourceError(Exception):
    """A program file that cannot be turned into a module; ``kind`` says why for machines."""

    def __init__(self, kind: str, message: str, path: str = "", line: int | None = None) -> None:
        self.kind = kind
        self.path = path
        self.line = line
        where = f"{path}:{line}" if path and line else path
        super().__init__(f"{where}: {message}" if where else message)


@dataclass
class SetAsideLine:
    """One line a tolerant parse could not read, with the parser's reason."""

    line: int
    text: str
    reason: str

    def to_dict(self) -> dict:
        return asdict(self)

    @classmethod
    def from_dict(cls, data: dict) -> SetAsideLine:
        return cls(**data)


@dataclass
class ParsedSource:
    """A parsed program plus what had to be done to parse it."""

    path: str
    text: str
    module: libcst.Module = field(repr=False)
    upgraded_python2: bool = False
    set_aside: list[SetAsideLine] = field(default_factory=list)


def read_text(path: str | Path) -> str:
    """Read a program file's text: UTF-8 (BOM allowed), else its declared PEP 263 encoding.

    Undecodable bytes raise a :class:`SourceError` that says where the first bad byte is.
    """
    p = Path(path)
    _check_readable_program(p, str(path))
    try:
        data = p.read_bytes()
    except FileNotFoundError:
        raise SourceError("missing", "file not found", str(path)) from None
    except IsADirectoryError:
        raise SourceError("missing", "is a directory, not a file", str(path)) from None
    except OSError as exc:
        raise SourceError("missing", f"cannot read file ({exc.strerror})", str(path)) from None
    return decode_bytes(data, str(path))


#: largest program file read (bytes): benchmark programs are a few hundred lines; anything far
#: larger is a data file or a mistake, and reading it whole would only cost memory.
MAX_PROGRAM_BYTES = 5 * 1024 * 1024

#: pseudo file systems whose "files" are not programs: reading one can block, or return the
#: machine's state; such a path is refused by its name, before it is opened.
_PSEUDO_ROOTS = ("/proc", "/sys", "/dev")


def _check_readable_program(p: Path, shown: str) -> None:
    """Refuse, without opening it, a path that cannot be a program: a device, a FIFO, a socket,
    a file of /proc, /sys or /dev, or one larger than :data:`MAX_PROGRAM_BYTES`."""
    try:
        info = p.stat()
    except FileNotFoundError:
        raise SourceError("missing", "file not found", shown) from None
    except OSError as exc:
        raise SourceError("missing", f"cannot read file ({exc.strerror})", shown) from None
    if stat.S_ISDIR(info.st_mode):
        raise SourceError("missing", "is a directory, not a file", shown)
    if not stat.S_ISREG(info.st_mode):
        raise SourceError("not_a_file", "not a regular file (a device, FIFO or socket): not read", shown)
    resolved = os.path.realpath(p)
    if any(resolved == root or resolved.startswith(root + os.sep) for root in _PSEUDO_ROOTS):
        raise SourceError("not_a_file", f"a file of the system's {resolved.split(os.sep)[1]} tree, not a program: not read", shown)
    if info.st_size > MAX_PROGRAM_BYTES:
        raise SourceError(
            "too_large", f"{info.st_size} bytes, more than {MAX_PROGRAM_BYTES} for a program: not read", shown
        )


def decode_bytes(data: bytes, path: str = "") -> str:
    """Decode program bytes; see :func:`read_text`."""
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as utf8_error:
        try:
            encoding, _ = tokenize.detect_encoding(io.BytesIO(data).readline)
        except SyntaxError:
            encoding = "utf-8"
        if encoding.lower().replace("_", "-") not in ("utf-8", "utf-8-sig"):
            try:
                return data.decode(encoding)
            except (UnicodeDecodeError, LookupError):
                pass
        start = utf8_error.start
        line = data.count(b"\n", 0, start) + 1
        raise SourceError(
            "undecodable",
            f"undecodable bytes: byte 0x{data[start]:02x} at offset {start} is not UTF-8 "
            "and the file declares no encoding that reads it",
            path,
            line,
        ) from None


def upgrade_python2(text: str) -> str | None:
    """Rewrite Python 2 syntax (print statements, ``except E, e``...) with fissix; None if it cannot."""
    from fissix.refactor import RefactoringTool

    if not text.endswith("\n"):
        text += "\n"
    for options in ({"print_function": False}, {"print_function": True}):
        try:
            tool = RefactoringTool(list(SYNTAX_FIXERS), options=options)
            return str(tool.refactor_string(text, "<program>"))
        except Exception:  # fissix raises its own parse errors of several kinds
            continue
    return None


def _python_parse(text: str) -> tuple[ast.Module | None, SyntaxError | None]:
    """Python's own (fast, C) parse: the tree, or why the text is not Python 3. libcst is run only
    on text that passes it, and the tree is kept (:func:`python_tree`) for whoever needs ``ast``."""
    try:
        return ast.parse(text, "<program>"), None
    except SyntaxError as exc:
        return None, exc
    except (ValueError, RecursionError, MemoryError) as exc:
        return None, SyntaxError(str(exc))


def _syntax_error(text: str) -> SyntaxError | None:
    """Why ``text`` is not Python 3, None when it parses (see :func:`_python_parse`)."""
    return _python_parse(text)[1]


#: how many recent parses keep their ``ast`` tree: a pair's two sides are parsed and extracted
#: one after the other, so a few suffice; the modules are held, so ``id`` is never reused here
_KEPT_TREES = 4
_recent_trees: OrderedDict[int, tuple[libcst.Module, str, ast.Module]] = OrderedDict()


def _keep_tree(module: libcst.Module, text: str, tree: ast.Module) -> None:
    _recent_trees[id(module)] = (module, text, tree)
    _recent_trees.move_to_end(id(module))
    while len(_recent_trees) > _KEPT_TREES:
        _recent_trees.popitem(last=False)


def python_tree(module: libcst.Module, text: str) -> ast.Module | None:
    """Python's ``ast`` of ``text``, the text ``module`` was parsed from; None if it is not Python 3.

    Why: :func:`parse_source` already parsed the text with ``ast`` to check it, and the extractor
    needs that tree again (line numbers, loss functions). The tree of a recent parse is handed
    back instead of parsing the same text twice; any other text is parsed here (and kept). The
    tree is shared with later callers: read it, never change it (no NodeTransformer on it).
    """
    kept = _recent_trees.get(id(module))
    if kept is not None and kept[0] is module and (kept[1] is text or kept[1] == text):
        return kept[2]
    tree, _ = _python_parse(text)
    if tree is not None:
        _keep_tree(module, text, tree)
    return tree


def _libcst_parse(text: str, path: str) -> libcst.Module:
    try:
        return libcst.parse_module(text)
    except libcst.ParserSyntaxError as exc:
        raise SourceError("syntax", f"syntax error: {exc.message}", path, exc.raw_line) from None
    except RecursionError:
        raise SourceError("syntax", "program too deeply nested to parse", path) from None


def _parsed(
    path: str,
    text: str,
    tree: ast.Module,
    upgraded_python2: bool = False,
    set_aside: list[SetAsideLine] | None = None,
) -> ParsedSource:
    """The LibCST parse of text Python's parser accepted, its ``ast`` tree kept (:func:`python_tree`)."""
    module = _libcst_parse(text, path)
    _keep_tree(module, text, tree)
    return ParsedSource(path, text, module, upgraded_python2, set_aside or [])


def parse_source(text: str, path: str = "<program>", tolerant: bool = False) -> ParsedSource:
    """Parse program text into a LibCST module, upgrading Python 2 and, if tolerant, setting lines aside.

    Raises :class:`SourceError` (kind ``syntax`` or ``not_python``) when nothing sensible parses.
    """
    tree, error = _python_parse(text)
    if tree is not None:
        return _parsed(path, text, tree)
    upgraded = upgrade_python2(text)
    if upgraded is not None:
        tree, _ = _python_parse(upgraded)
        if tree is not None:
            return _parsed(path, upgraded, tree, upgraded_python2=True)
    assert error is not None
    if not tolerant:
        msg = error.msg or "invalid syntax"
        raise SourceError("syntax", f"syntax error: {msg}", path, error.lineno)
    return _parse_tolerant(text, path)


def _indent_of(line: str) -> str:
    return line[: len(line) - len(line.lstrip())]


def _fix_line_python2(line: str) -> str | None:
    """Upgrade one Python 2 statement line on its own (a file mixing Python 2 lines and prose)."""
    body = line.strip()
    if not body or body.endswith(("(", "[", "{", ",", "\\")):
        return None
    upgraded = upgrade_python2(body)
    if upgraded is None or upgraded.strip() == body or _syntax_error(upgraded) is not None:
        return None
    if "\n" in upgraded.strip():
        return None
    return _indent_of(line) + upgraded.strip()


_CLOSERS = {"(": ")", "[": "]", "{": "}"}


def _repair_unclosed(lines: list[str], error: SyntaxError) -> list[str] | None:
    """Try the two usual repairs of an unclosed bracket: drop a doubled opener, or close it at the end.

    Returns the repaired lines when the program then parses, else None (the caller sets lines aside).
    """
    if not error.lineno or not error.offset:
        return None
    index, col = error.lineno - 1, error.offset - 1
    if not (0 <= index < len(lines)) or not (0 <= col < len(lines[index])):
        return None
    opener = lines[index][col]
    if opener not in _CLOSERS:
        return None
    dropped = list(lines)
    dropped[index] = lines[index][:col] + lines[index][col + 1 :]
    if _syntax_error("\n".join(dropped)) is None:
        return dropped
    closed = list(lines)
    last = max((i for i, line in enumerate(closed) if line.strip()), default=index)
    closed[last] = closed[last] + _CLOSERS[opener]
    if _syntax_error("\n".join(closed)) is None:
        return closed
    return None


def _insert_comma(lines: list[str], error: SyntaxError) -> str | None:
    """``fit(x, y epochs=3)``: put the missing comma into the gap Python points at, if that parses."""
    end_lineno = getattr(error, "end_lineno", None)
    end_offset = getattr(error, "end_offset", None)
    if not error.lineno or not error.offset or end_lineno != error.lineno or not end_offset:
        return None
    index = error.lineno - 1
    line = lines[index]
    span = line[error.offset - 1 : end_offset - 1]
    gap = re.search(r"\s+", span)
    if gap is None:
        return None
    start = error.offset - 1 + gap.start()
    candidate = line[:start] + "," + line[start:]
    trial = list(lines)
    trial[index] = candidate
    error_after = _syntax_error("\n".join(trial))
    if error_after is not None and error_after.lineno == error.lineno:
        return None
    return candidate


def _parse_tolerant(text: str, path: str) -> ParsedSource:
    lines = text.split("\n")
    set_aside: dict[int, SetAsideLine] = {}
    upgraded_any = False

    def put_aside(index: int, reason: str, replacement: str) -> None:
        if index not in set_aside:
            set_aside[index] = SetAsideLine(index + 1, lines[index], reason)
        lines[index] = replacement

    for i, line in enumerate(lines):
        if _MAGIC.match(line):
            put_aside(i, "notebook magic or console prompt", _indent_of(line) + "pass")
    tried_blank: set[int] = set()
    for _attempt in range(4 * MAX_SET_ASIDE):
        candidate = "\n".join(lines)
        tree, error = _python_parse(candidate)
        if tree is not None:
            break
        if len(set_aside) > MAX_SET_ASIDE:
            raise SourceError(
                "not_python",
                f"not a Python program: more than {MAX_SET_ASIDE} lines cannot parse "
                f"(first at line {min(set_aside) + 1})",
                path,
            )
        lineno = error.lineno or len(lines)
        index = min(max(lineno - 1, 0), len(lines) - 1)
        msg = error.msg or "invalid syntax"
        if "was never closed" in msg:
            repaired = _repair_unclosed(lines, error)
            if repaired is not None:
                put_aside(index, f"repaired: {msg}; the stray bracket was dropped or closed", lines[index])
                lines[:] = repaired
                continue
        if "was never closed" in msg or "unexpected EOF" in msg or "EOF while" in msg:
            # An unclosed bracket: set aside everything from the line that opened it.
            for j in range(index, len(lines)):
                if lines[j].strip():
                    put_aside(j, f"unclosed bracket: {msg}", "")
            continue
        if index in set_aside and lines[index].strip() == "" and index in tried_blank:
            # Setting this line aside did not help: the error is caused by an earlier line.
            previous = index - 1
            while previous >= 0 and (not lines[previous].strip() or previous in set_aside):
                previous -= 1
            if previous < 0:
                raise SourceError("syntax", f"syntax error: {msg}", path, lineno)
            put_aside(previous, msg, "")
            continue
        if "forgot a comma" in msg:
            repaired_line = _insert_comma(lines, error)
            if repaired_line is not None:
                put_aside(index, f"repaired: {msg}", lines[index])
                lines[index] = repaired_line
                continue
        if "print" in msg or "Missing parentheses" in msg:
            fixed = _fix_line_python2(lines[index])
            if fixed is not None:
                lines[index] = fixed
                upgraded_any = True
                continue
        if index in set_aside or "indent" in msg:
            put_aside(index, msg, "")
            tried_blank.add(index)
        else:
            put_aside(index, msg, _indent_of(lines[index]) + "pass")
    else:
        raise SourceError("not_python", "not a Python program: no readable part found", path)
    _require_some_python(text.split("\n"), set_aside, path)
    assert tree is not None  # the loop above only ends (break) on text that parses
    return _parsed(
        path,
        candidate,
        tree,
        upgraded_python2=upgraded_any,
        set_aside=[set_aside[k] for k in sorted(set_aside)],
    )


def _require_some_python(original: list[str], set_aside: dict[int, SetAsideLine], path: str) -> None:
    """A file of which every line that is not blank or a comment was set aside has nothing of Python
    left (``/etc/passwd``, a CSV, prose): it is refused, and its lines are not copied into the error,
    so classifying a wrong path never spills a file's content into the results."""
    if not set_aside:
        return
    for index, line in enumerate(original):
        body = line.strip()
        if not body or body.startswith("#"):
            continue
        aside = set_aside.get(index)
        if aside is None or aside.reason.startswith("repaired"):
            return
    raise SourceError(
        "not_python",
        f"not a Python program: none of its {len(set_aside)} non-blank lines parses as Python",
        path,
    )


def load_program(path: str | Path, tolerant: bool = False) -> ParsedSource:
    """Read, decode and parse one program file (see :func:`read_text` and :func:`parse_source`)."""
    return parse_source(read_text(path), str(path), tolerant=tolerant)
