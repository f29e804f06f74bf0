"""The recipes of docs/ARCHITECTURE.md ("Where a newcomer adds...") name files that exist and hold the hooks they name.

Why: a recipe is the map a newcomer follows to extend the house; a map whose file was renamed, or
whose hook (a table, a decorator, a class) moved elsewhere, sends them to the wrong room. Each recipe
ends with a ``files:`` line of ```path``` (```hook```) entries; a ``<placeholder>`` in a path stands
for a name of the newcomer's, so some file matching it must hold the hook.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
RECIPES_TITLE = "## Where a newcomer adds..."
#: the recipes the issue asked for, each a bullet of the section (its bold title starts with this)
EXPECTED = ("a noise rule", "a decision row", "a decision that compares a fit argument", "an operator",
            "a fault code", "a benchmark layout", "an executor")  # fmt: skip
ENTRY = re.compile(r"`([^`]+)`(?: \(`([^`]+)`\))?")


def recipes(text: str) -> dict[str, list[tuple[str, str | None]]]:
    """Recipe title -> its (path, hook) entries, read from the section of ``text``."""
    section = text.split(RECIPES_TITLE, 1)[1].split("\n## ", 1)[0]
    found: dict[str, list[tuple[str, str | None]]] = {}
    for bullet in re.split(r"\n- ", section)[1:]:
        title = re.match(r"\*\*(.+?)\*\*", bullet)
        files = re.search(r"^\s+files: (.+)$", bullet, re.M)
        assert title and files, f"a recipe without a title or a files: line: {bullet[:60]!r}"
        found[title.group(1)] = [(path, hook or None) for path, hook in ENTRY.findall(files.group(1))]
    return found


def candidates(path: str) -> list[Path]:
    """The files a recipe's path names: itself, or with ``<placeholders>`` every file matching."""
    if "<" not in path:
        return [ROOT / path] if (ROOT / path).is_file() else []
    return sorted(ROOT.glob(re.sub(r"<[^>]+>", "*", path)))


RECIPES = recipes((ROOT / "docs" / "ARCHITECTURE.md").read_text(encoding="utf-8"))


def test_every_recipe_the_issue_asked_for_is_written() -> None:
    assert [title for title in EXPECTED if not any(t.startswith(title) for t in RECIPES)] == []
    assert all(len(entries) >= 2 for entries in RECIPES.values()), RECIPES


@pytest.mark.parametrize(("title", "path", "hook"), [(t, p, h) for t, entries in RECIPES.items() for p, h in entries])
def test_each_file_of_a_recipe_exists_and_holds_its_hook(title: str, path: str, hook: str | None) -> None:
    files = candidates(path)
    assert files, f"{title}: {path} names no file"
    if hook is not None:
        assert any(hook in f.read_text(encoding="utf-8") for f in files), f"{title}: no {path} holds {hook!r}"


def test_the_checker_sees_a_drifted_recipe() -> None:
    """The rule itself: a renamed file or a hook that moved is found."""
    text = f"{RECIPES_TITLE}\n\n- **a thing**: do it.\n  files: `src/mutreal/nowhere.py` (`x`), `pyproject.toml` (`no such hook`)\n"
    entries = recipes(text)["a thing"]
    assert entries == [("src/mutreal/nowhere.py", "x"), ("pyproject.toml", "no such hook")]
    assert candidates("src/mutreal/nowhere.py") == []
    assert "no such hook" not in (ROOT / "pyproject.toml").read_text(encoding="utf-8")
    assert candidates("src/mutreal/<stage>/codes.py") == [ROOT / "src/mutreal/label/codes.py"]
