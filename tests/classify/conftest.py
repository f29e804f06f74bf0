"""Fixtures for classify tests: write a buggy/fixed pair to files and classify it."""

from __future__ import annotations

import itertools

import pytest

from mutreal.label.classify import classify_pair

_counter = itertools.count()


@pytest.fixture
def classify_texts(tmp_path):
    """classify_texts(buggy_source, fixed_source) -> BugResult (both written to tmp files)."""

    def run(buggy: str, fixed: str, **kwargs):
        n = next(_counter)
        b = tmp_path / f"buggy_{n}.py"
        f = tmp_path / f"fixed_{n}.py"
        b.write_text(buggy)
        f.write_text(fixed)
        return classify_pair(str(b), str(f), **kwargs)

    return run


@pytest.fixture
def classify_cli(tmp_path):
    """classify_cli(buggy_source, fixed_source) -> the components of ``python -m mutreal classify
    --json`` on the pair (the installed entry point, in a subprocess, with this checkout's src)."""
    import json
    import os
    import subprocess
    import sys
    from pathlib import Path

    src = str(Path(__file__).resolve().parents[2] / "src")

    def run(buggy: str, fixed: str) -> list[dict]:
        n = next(_counter)
        b, f = tmp_path / f"cli_buggy_{n}.py", tmp_path / f"cli_fixed_{n}.py"
        b.write_text(buggy, encoding="utf-8")
        f.write_text(fixed, encoding="utf-8")
        out = subprocess.run(
            [sys.executable, "-m", "mutreal", "classify", "--json", str(b), str(f)],
            capture_output=True, text=True, check=True, env={**os.environ, "PYTHONPATH": src},
        )  # fmt: skip
        return json.loads(out.stdout)["components"]

    return run
