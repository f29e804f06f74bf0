"""Content hashes that identify a run, so that an unchanged run is never trained twice.

A run's key covers everything that can change its numbers: the program text (after the rewrites of
its era, :mod:`mutreal.compat.framework_choice`), the framework it runs on, the data files beside it, the result-affecting configuration, the seed and the package
versions. File names and paths are not part of it: renaming or moving a program reuses its runs,
unlike DeepCrime's cache by file name.
"""

from __future__ import annotations

import ast
import contextlib
import hashlib
import json
import os
from fnmatch import fnmatch
from pathlib import Path
from typing import Any

#: Files in a program's folder that are not its data: other programs, caches, mutreal's own outputs.
IGNORED_DATA_PATTERNS: tuple[str, ...] = (
    "*.py",
    "*.pyc",
    "*.sqlite",
    "*.sqlite-*",
    "*.db",
    "*.db-*",
    "*.manifest.yaml",
    "*.config.yaml",
    "*.log",
    "*.ipynb",
    "*.md",
    "*.txt.lock",
)
IGNORED_DIRS: frozenset[str] = frozenset({"__pycache__", ".git", ".hg", ".venv", "venv", "node_modules"})
#: A file marking a folder as mutreal's output (mutants, plots): a program folder's data hash skips
#: such a subfolder, so writing results beside a program never changes its run keys.
OUTPUT_MARKER = ".mutreal-output"
#: Files larger than this are identified by size and modification time instead of their bytes.
LARGE_FILE_BYTES = 256 * 1024 * 1024
#: Folders with more files than this hash only the first ones (sorted) plus the count.
MAX_DATA_FILES = 5000


def sha256_text(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def program_hash(source: str) -> str:
    """Hash of a program's text (newlines normalised, so a CRLF checkout reuses LF runs)."""
    return sha256_text(source.replace("\r\n", "\n"))


def _is_data_file(name: str) -> bool:
    return not name.startswith(".") and not any(fnmatch(name, pattern) for pattern in IGNORED_DATA_PATTERNS)


def data_files(folder: Path, max_depth: int = 4) -> list[Path]:
    """The data files of a program's folder: non-Python files, a few levels deep, sorted."""
    found: list[Path] = []
    folder = Path(folder)
    if not folder.is_dir():
        return found
    base_depth = len(folder.parts)
    for root, dirs, files in os.walk(folder):
        depth = len(Path(root).parts) - base_depth
        dirs[:] = sorted(
            d
            for d in dirs
            if d not in IGNORED_DIRS
            and not d.startswith(".")
            and not os.path.exists(os.path.join(root, d, OUTPUT_MARKER))
        )
        if depth >= max_depth:
            dirs[:] = []
        found.extend(Path(root) / name for name in sorted(files) if _is_data_file(name))
        if len(found) > MAX_DATA_FILES:
            break
    return found


_DATA_HASH_CACHE: dict[tuple[str, tuple[tuple[str, int, int], ...]], str] = {}


def data_hash(folder: Path) -> str:
    """Hash of the data files in a program's folder (relative names and contents).

    Cached on (path, size, mtime) of each file, so a campaign over many programs of one folder
    reads the data once.
    """
    folder = Path(folder).resolve()
    files = data_files(folder)
    stats = []
    for path in files[:MAX_DATA_FILES]:
        try:
            st = path.stat()
        except OSError:
            continue
        stats.append((str(path.relative_to(folder)), st.st_size, int(st.st_mtime_ns)))
    cache_key = (str(folder), tuple(stats))
    if cache_key in _DATA_HASH_CACHE:
        return _DATA_HASH_CACHE[cache_key]
    digest = hashlib.sha256()
    digest.update(str(len(files)).encode())
    for rel, size, mtime in stats:
        digest.update(rel.encode() + b"\0" + str(size).encode() + b"\0")
        path = folder / rel
        if size > LARGE_FILE_BYTES:
            digest.update(str(mtime).encode())
            continue
        try:
            with open(path, "rb") as handle:
                for chunk in iter(lambda h=handle: h.read(1 << 20), b""):
                    digest.update(chunk)
        except OSError:
            digest.update(b"unreadable")
    result = digest.hexdigest()
    _DATA_HASH_CACHE[cache_key] = result
    return result


def _imported_top_names(source: str) -> set[str]:
    """Top-level names a program imports (``import a.b`` and ``from a.b import c`` give ``a``;
    ``from . import c`` gives ``c``); a text Python cannot parse imports nothing we can see."""
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError):
        return set()
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names.update(alias.name.split(".")[0] for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level == 0 and node.module:
                names.add(node.module.split(".")[0])
            elif node.level > 0:
                names.update(
                    [node.module.split(".")[0]] if node.module else [alias.name for alias in node.names]
                )
    return names


def local_modules(source: str, folders: list[Path], max_modules: int = 200) -> list[Path]:
    """The Python files beside a program that it imports, directly or through each other.

    A benchmark's fault may sit in a helper module next to an identical entry file (the buggy and
    fixed ``train.py`` the same, ``model.py`` not): those files are part of what runs, so they
    belong in the run key. A module is ``<folder>/<name>.py`` or every ``.py`` of the package
    ``<folder>/<name>/``; only the program's own folders are searched, never installed packages.
    """
    roots = [Path(f).resolve() for f in folders]
    found: dict[Path, None] = {}
    pending = [source]
    while pending and len(found) < max_modules:
        for name in sorted(_imported_top_names(pending.pop())):
            for root in roots:
                candidates = [root / f"{name}.py"]
                package = root / name
                if (package / "__init__.py").is_file():
                    candidates = sorted(package.rglob("*.py"))
                for path in candidates:
                    if path.is_file() and path not in found and len(found) < max_modules:
                        found[path] = None
                        with contextlib.suppress(OSError):
                            pending.append(path.read_text(encoding="utf-8", errors="replace"))
    return sorted(found)


def modules_hash(source: str, folders: list[Path]) -> str:
    """Hash of the local modules a program imports (names relative to their folder, and texts);
    empty when it imports none, so the run keys of single-file programs are unchanged."""
    modules = local_modules(source, folders)
    if not modules:
        return ""
    digest = hashlib.sha256()
    for path in modules:
        try:
            text = path.read_text(encoding="utf-8", errors="replace").replace("\r\n", "\n")
        except OSError:
            text = "unreadable"
        digest.update(path.name.encode() + b"\0" + text.encode() + b"\0")
    return digest.hexdigest()


def config_hash(config: dict[str, Any]) -> str:
    """Hash of the result-affecting configuration (stable JSON)."""
    return sha256_text(json.dumps(config, sort_keys=True, default=str))


def run_key(
    program: str,
    data: str,
    config: str,
    seed: int,
    environment: str,
    framework: str = "keras3",
    args: list[str] | None = None,
) -> str:
    """The store key of one run: sha256 over the four content hashes, the seed, the framework
    the program runs on and the program's own command-line arguments (a manifest's ``args``: the
    same text run with other arguments is another run). A Keras 3 run without arguments of its own
    keeps the key it had before frameworks and arguments were chosen per program (both are left out
    of it), so stores written then are reused."""
    suffix = "" if framework in ("keras3", "") else f"|{framework}"
    if args is not None:
        suffix += "|args=" + json.dumps(list(args))
    return sha256_text(f"{program}|{data}|{config}|{seed}|{environment}{suffix}")
