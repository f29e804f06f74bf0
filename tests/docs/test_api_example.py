"""docs/API.md's walk-through runs end to end: every ``python`` block, in order, in one namespace,
from the repository root, on the own corpus and mutation subjects (so the documented API is the
real one, and a change that breaks the example breaks this test)."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
DOC = ROOT / "docs" / "API.md"
BLOCK = re.compile(r"^```python\n(.*?)^```", re.S | re.M)


def python_blocks(text: str) -> list[str]:
    return BLOCK.findall(text)


def test_the_example_has_blocks_for_every_api_function() -> None:
    code = "\n".join(python_blocks(DOC.read_text(encoding="utf-8")))
    for name in (
        "classify_manifest",
        "classify_pair",
        "read_results",
        "mutate_program",
        "hom_generate",
        "report_on",
    ):
        assert f"mutreal.{name}(" in code, name


def test_the_api_example_runs(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.chdir(ROOT)
    namespace: dict[str, object] = {"__name__": "api_example"}
    try:
        for i, block in enumerate(python_blocks(DOC.read_text(encoding="utf-8"))):
            exec(compile(block, f"{DOC}:block{i}", "exec"), namespace)  # noqa: S102 - the project's own doc
    finally:
        if isinstance(namespace.get("work"), Path):
            shutil.rmtree(namespace["work"], ignore_errors=True)
    printed = capsys.readouterr().out
    assert "bugs," in printed and "components" in printed
    assert len(namespace["bugs"]) == 94  # the own corpus manifest's rows
