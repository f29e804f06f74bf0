"""mutreal.manifest: the one manifest reader (classify, validate-operators, correspond)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from mutreal.manifest import (
    ManifestError,
    join_args,
    load_manifest,
    program_args,
    read_manifest,
    split_args,
    split_files,
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
