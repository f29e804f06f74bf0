"""kill and compare refuse mutant files that are not programs before training anything."""

from __future__ import annotations

from pathlib import Path

from click.testing import CliRunner

from mutreal.cli import main


def test_provenance_json_is_not_taken_for_a_mutant(tmp_path: Path) -> None:
    original = tmp_path / "p.py"
    original.write_text("x = 1\n")
    mutant = tmp_path / "p__HLR_0_0.1.py"
    mutant.write_text("x = 2\n")
    record = tmp_path / "p__HLR_0_0.1.json"
    record.write_text("{}\n")
    killed = CliRunner().invoke(main, ["kill", str(original), str(mutant), str(record), "--runs", "1"])
    assert killed.exit_code == 2 and "not Python programs" in killed.output and record.name in killed.output
    compared = CliRunner().invoke(
        main,
        [
            "compare",
            "--buggy",
            str(mutant),
            "--fixed",
            str(original),
            "--mutants",
            str(record),
            "--runs",
            "1",
        ],
    )
    assert compared.exit_code == 2 and "not Python programs" in compared.output
