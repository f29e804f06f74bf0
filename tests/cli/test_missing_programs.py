"""A PROGRAM path that does not exist is a usage error of every training command, before anything runs."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

from mutreal.cli import main


def _command_lines(present: Path, missing: Path, store: Path) -> dict[str, list[str]]:
    store_option = ["--store", str(store)]
    return {
        "run": ["run", str(missing), *store_option],
        "run, one of two": ["run", str(present), str(missing), *store_option],
        "reproduce, buggy": ["reproduce", str(missing), str(present), *store_option],
        "reproduce, fixed": ["reproduce", str(present), str(missing), *store_option],
        "kill, original": ["kill", str(missing), str(present), *store_option],
        "kill, mutant": ["kill", str(present), str(missing), *store_option],
        "compare, buggy": [
            "compare",
            "--buggy",
            str(missing),
            "--fixed",
            str(present),
            "--mutants",
            str(present.parent),
            *store_option,
        ],  # fmt: skip
        "compare, mutants": [
            "compare",
            "--buggy",
            str(present),
            "--fixed",
            str(present),
            "--mutants",
            str(missing),
            *store_option,
        ],  # fmt: skip
        "sensitivity": ["sensitivity", str(missing), "--op", "HLR", "--values", "0.1", *store_option],
    }


CASES = list(_command_lines(Path("a"), Path("b"), Path("c")))


@pytest.mark.parametrize("case", CASES)
def test_a_missing_program_is_a_usage_error_naming_it(case: str, tmp_path: Path) -> None:
    present = tmp_path / "present.py"
    present.write_text("print('never trained')\n", encoding="utf-8")
    missing = tmp_path / "no-such-program.py"
    store = tmp_path / "runs.sqlite"
    result = CliRunner().invoke(main, _command_lines(present, missing, store)[case])
    assert result.exit_code == 2, result.output
    assert str(missing) in result.stderr and "does not exist" in result.stderr
    assert "Traceback" not in result.output
    assert not store.exists(), "nothing may start before the arguments are checked"
