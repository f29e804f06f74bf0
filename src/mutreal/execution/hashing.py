"""Content hashes that identify a run, so that an unchanged run is never trained twice.

A run's key covers everything that can change its numbers: the program text (after the rewrites of
its era, :mod:`mutreal.program.runtime`), the framework it runs on, the data files beside it, the result-affecting configuration, the seed and the package
versions. File names and paths are not part of it: renaming or moving a program reuses its runs,
unlike DeepCrime's cache by file name.
"""

from __future__ import annotations

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


def config_hash(config: dict[str, Any]) -> str:
    """Hash of the result-affecting configuration (stable JSON)."""
    return sha256_text(json.dumps(config, sort_keys=True, default=str))


def run_key(program: str, data: str, config: str, seed: int, environment: str, framework: str = "keras3") -> str:
    """The store key of one run: sha256 over the four content hashes, the seed and the framework
    the program runs on. A Keras 3 run keeps the key it had before frameworks were chosen per
    program (the framework is left out of it), so stores written then are reused."""
    suffix = "" if framework in ("keras3", "") else f"|{framework}"
    return sha256_text(f"{program}|{data}|{config}|{seed}|{environment}{suffix}")
