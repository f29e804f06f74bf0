"""mutreal.manifest: the one manifest reader (classify, validate-operators, correspond)."""

from __future__ import annotations

import io
import json
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from mutreal.manifest import (
    ARGS_COLUMN,
    OPTIONAL_COLUMNS,
    ManifestError,
    join_args,
    load_manifest,
    program_args,
    read_manifest,
    split_args,
    split_files,
    write_rows,
)


def test_paths_resolve_against_the_manifest_folder_and_optional_columns_are_kept(tmp_path: Path) -> None:
    absolute = str(tmp_path / "elsewhere.py")
    (tmp_path / "m.csv").write_text(
        "\ufeffid,benchmark,buggy,fixed,source_buggy\n"
        f"b1,X,a/b.py; a/c.py ,{absolute},post/b.py\n"
        "b2,,x.py,y.py,\n",
        encoding="utf-8",
    )
    manifest = load_manifest(tmp_path / "m.csv")
    one, two = manifest.rows
    assert one.buggy == [str(tmp_path / "a/b.py"), str(tmp_path / "a/c.py")] and one.fixed == [absolute]
    assert one.files("source_buggy") == [str(tmp_path / "post/b.py")] and one.files("source_fixed") == []
    assert two.benchmark is None and two.files("source_buggy") == []
    assert manifest.has_any(["source_fixed", "source_buggy"]) and not manifest.has_any(["dataset"])
    assert read_manifest(tmp_path / "m.csv") == manifest.rows


@pytest.mark.parametrize(
    ("content", "message"),
    [
        (b"id,buggy\nx,y\n", r"lacks column\(s\) fixed"),
        (b"id,buggy,fixed\n\xff\xfe,a,b\n", "not UTF-8"),
    ],
)
def test_an_unusable_manifest_is_a_clear_error(tmp_path: Path, content: bytes, message: str) -> None:
    path = tmp_path / "m.csv"
    path.write_bytes(content)
    with pytest.raises(ManifestError, match=message):
        read_manifest(path)
    with pytest.raises(ManifestError, match="cannot read manifest"):
        read_manifest(tmp_path / "missing.csv")


@given(st.lists(st.text(alphabet="ab/ .", max_size=6), max_size=5))
def test_split_files_drops_blank_parts_and_keeps_order(parts: list[str]) -> None:
    assert split_files(";".join(parts)) == [p.strip() for p in parts if p.strip()]


def test_classify_validate_and_correspond_give_the_same_error(tmp_path: Path) -> None:
    path = tmp_path / "m.csv"
    path.write_text("id,buggy\nx,y\n", encoding="utf-8")
    for command in (["classify", "--manifest"], ["validate-operators"], ["correspond", "--manifest"]):
        done = subprocess.run(
            [sys.executable, "-m", "mutreal", *command, str(path)],
            capture_output=True,
            text=True,
            check=False,
        )
        assert done.returncode == 2, (command, done.stderr)
        assert "lacks column(s) fixed" in done.stderr, (command, done.stderr)


def test_args_column_per_side_and_as_a_campaign_mapping(tmp_path: Path) -> None:
    """``args`` is a bug's command line (shell quoting), ``args_<side>`` one side's own; a blank
    cell gives none; program_args maps every file of a side with arguments to them."""
    (tmp_path / "m.csv").write_text(
        "id,buggy,fixed,args,args_fixed\n"
        "gol,b/gol.py,f/gol.py,20 30,\n"
        "named,b/t.py,f/t.py,--input 'my images/' --size 250,--input x\n"
        "none,b/n.py,f/n.py,,\n",
        encoding="utf-8",
    )
    gol, named, none = load_manifest(tmp_path / "m.csv").rows
    assert gol.args("buggy") == gol.args("fixed") == ["20", "30"]
    assert named.args("buggy") == ["--input", "my images/", "--size", "250"]
    assert named.args("fixed") == ["--input", "x"]
    assert none.args("buggy") is None and none.args("fixed") is None
    assert program_args(tmp_path / "m.csv") == {
        str(tmp_path / "b/gol.py"): ["20", "30"], str(tmp_path / "f/gol.py"): ["20", "30"],
        str(tmp_path / "b/t.py"): ["--input", "my images/", "--size", "250"],
        str(tmp_path / "f/t.py"): ["--input", "x"],
    }  # fmt: skip


def test_args_that_do_not_split_are_an_error_of_the_file(tmp_path: Path) -> None:
    (tmp_path / "m.csv").write_text('id,buggy,fixed,args\nx,a.py,b.py,"--name \'unclosed"\n', encoding="utf-8")
    with pytest.raises(ManifestError, match=r"m\.csv: bug x: args: arguments .* cannot be split"):
        load_manifest(tmp_path / "m.csv")


@given(st.lists(st.text(min_size=0, max_size=12).filter(lambda s: "\x00" not in s), max_size=6))
def test_join_and_split_args_round_trip(args: list[str]) -> None:
    assert split_args(join_args(args)) == args


_CELL = st.text(alphabet=st.characters(codec="utf-8", exclude_categories=("Cs", "Cc")), max_size=8)


@given(
    st.lists(
        st.fixed_dictionaries(
            {"id": _CELL.filter(str.strip), "benchmark": _CELL, "buggy": st.just("b.py"), "fixed": st.just("f.py")},
            optional={c: st.lists(_CELL).map(join_args) if c.startswith(ARGS_COLUMN) else _CELL for c in OPTIONAL_COLUMNS},
        ),
        min_size=1,
        max_size=4,
    )
)
def test_every_cell_written_is_read_back(rows: list[dict[str, str]]) -> None:
    """The writer and the reader are one format: no column the writer knows is dropped or renamed."""
    buffer = io.StringIO()
    write_rows(rows, buffer)
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "m.csv"
        path.write_text(buffer.getvalue(), encoding="utf-8", newline="")
        read = load_manifest(path).rows
    assert len(read) == len(rows)
    for row, back in zip(rows, read, strict=True):
        for column, cell in row.items():
            assert back.cells.get(column, "") == cell, column


@pytest.mark.parametrize("command", ["classify", "reproduce", "compare"])
def test_a_manifest_saved_with_a_byte_order_mark_is_read_by_every_command(
    tmp_path: Path, command: str, mutreal_command: str
) -> None:
    """Excel's "CSV UTF-8" starts the file with a BOM; every --manifest command reads it the same way.

    The bug's programs do not exist: each command reads the row and says so in the bug's row (exit 1),
    where an unread manifest is a usage error (exit 2) before any row."""
    (tmp_path / "m.csv").write_bytes("\ufeffid,benchmark,buggy,fixed\nb1,own,gone_b.py,gone_f.py\n".encode())
    extra = ["--runs", "1"] if command != "classify" else ["--out", str(tmp_path / "out.jsonl")]
    result = subprocess.run(
        [mutreal_command, command, "--manifest", str(tmp_path / "m.csv"), *extra],
        capture_output=True, text=True, cwd=tmp_path, timeout=120,
    )  # fmt: skip
    assert result.returncode == 1, result.stderr
    rows = (tmp_path / "out.jsonl").read_text() if command == "classify" else result.stdout
    (row,) = [json.loads(line) for line in rows.splitlines() if line.strip()]
    assert row["id"] == "b1" and row["status"] == "error" and "gone_b.py" in row["error"]
