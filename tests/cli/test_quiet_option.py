"""Every command that trains takes ``--quiet/-q`` (no progress bar), as ``run`` does."""

from __future__ import annotations

import pytest
from click.testing import CliRunner

from mutreal.cli import main
from mutreal.commands.settings import RunSettings


@pytest.mark.parametrize("command", ["run", "reproduce", "kill", "compare", "sensitivity"])
def test_training_commands_take_quiet(command: str) -> None:
    result = CliRunner().invoke(main, [command, "--help"])
    assert result.exit_code == 0
    assert "-q, --quiet" in result.output


def test_quiet_turns_the_progress_bar_off() -> None:
    assert RunSettings(quiet=True).campaign()["progress"] is False
    assert RunSettings().campaign()["progress"] is True
