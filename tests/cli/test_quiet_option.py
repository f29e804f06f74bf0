"""Every command that trains takes ``--quiet/-q`` (no progress bar), as ``run`` does."""

from __future__ import annotations

import pytest
from click.testing import CliRunner

from mutreal.cli import main
from mutreal.commands.campaign_options import campaign_settings


@pytest.mark.parametrize("command", ["run", "reproduce", "kill", "compare", "sensitivity"])
def test_training_commands_take_quiet(command: str) -> None:
    result = CliRunner().invoke(main, [command, "--help"])
    assert result.exit_code == 0
    assert "-q, --quiet" in result.output


def test_quiet_turns_the_progress_bar_off() -> None:
    settings = dict(jobs=None, executor="local", address=None, timeout_s=None, memory_limit_mb=None,
                    store=None, modernize=False)  # fmt: skip
    assert campaign_settings(**settings, quiet=True)["progress"] is False
    assert campaign_settings(**settings)["progress"] is True
