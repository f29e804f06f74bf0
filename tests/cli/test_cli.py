"""The command line is one entry point that lists every sub-command and starts without heavy imports."""

from __future__ import annotations

import importlib
import subprocess
import sys

from click.testing import CliRunner

from mutreal import __version__
from mutreal.cli import COMMANDS, main


def test_every_listed_command_resolves_to_a_click_command() -> None:
    for name, target in COMMANDS.items():
        module_name, attribute = target.split(":")
        command = getattr(importlib.import_module(module_name), attribute)
        assert command.name == name or name in command.name, (name, command.name)


def test_help_lists_every_command() -> None:
    result = CliRunner().invoke(main, ["--help"])
    assert result.exit_code == 0
    for name in COMMANDS:
        assert name in result.output


def test_version_via_python_dash_m() -> None:
    out = subprocess.run([sys.executable, "-m", "mutreal", "--version"], capture_output=True, text=True)
    assert out.returncode == 0
    assert __version__ in out.stdout


def test_light_commands_do_not_import_tensorflow() -> None:
    """classify, mutate and report must start fast: importing their modules never loads TensorFlow."""
    light = [
        t.split(":")[0]
        for n, t in COMMANDS.items()
        if n in {"classify", "mutate", "report", "agree", "manifest"}
    ]
    code = "import sys, importlib\n" + "".join(f"importlib.import_module({m!r})\n" for m in light)
    code += "print('tensorflow' in sys.modules or 'keras' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


def test_an_unwritable_output_path_is_one_error_line_not_a_traceback(tmp_path) -> None:
    taken = tmp_path / "taken"
    taken.write_text("a file where a folder should be\n")
    manifest = tmp_path / "m.csv"
    manifest.write_text("id,benchmark,buggy,fixed\n")
    result = CliRunner().invoke(
        main, ["classify", "--manifest", str(manifest), "--out", str(taken / "r.jsonl")]
    )
    assert result.exit_code == 1
    assert result.output.startswith("error: ") and "Traceback" not in result.output
    assert isinstance(result.exception, SystemExit)
