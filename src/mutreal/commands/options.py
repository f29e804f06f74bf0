"""Click options shared by the analysis commands (classify, manifest, report, agree, mutate,
hom-generate, validate-operators, correspond, modernize).

Each was written out in every command that takes it, so a fix to one spelling (the range of
``--jobs``, the parameter name ``as_json``) reached some commands and not others. The help text
stays each command's own, because what ``--out`` or ``--json`` gives differs per command.
The runner's commands have their own shared options (:mod:`mutreal.commands.campaign_options`).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import click

Decorator = Callable[[Callable[..., Any]], Callable[..., Any]]


def json_option(help: str) -> Decorator:
    """``--json``: machine-readable output, passed as ``as_json``."""
    return click.option("--json", "as_json", is_flag=True, help=help)


def jobs_option() -> Decorator:
    """``-j/--jobs``: worker processes (1 to 256), passed as ``jobs``."""
    return click.option(
        "-j", "--jobs", type=click.IntRange(1, 256), default=1, show_default=True, help="Worker processes."
    )


def out_folder_option(help: str, default: str | None = None, **path: Any) -> Decorator:
    """``--out``: a folder to write into, passed as ``out_dir`` (its default shown when it has one)."""
    return click.option(
        "--out",
        "out_dir",
        type=click.Path(file_okay=False, **path),
        default=default,
        show_default=default is not None,
        help=help,
    )


def seed_option(help: str) -> Decorator:
    """``--seed``: an integer seed (default 0), passed as ``seed``."""
    return click.option("--seed", type=int, default=0, show_default=True, help=help)
