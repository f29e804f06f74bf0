"""Click options shared by the commands (classify, manifest, report, agree, mutate, hom-generate,
validate-operators, correspond, modernize, and the file options of the training commands).

Each was written out in every command that takes it, so a fix to one spelling (the range of
``--jobs``, the parameter name ``as_json``) reached some commands and not others. The help text
stays each command's own, because what ``--out`` or ``--json`` gives differs per command.
The runner's options (``--runs``, ``--jobs``, ``--timeout``...) are written once here too
(:func:`runner_option`), with each command's help; the verdict commands group them
(:mod:`mutreal.commands.campaign_options`). Nothing here imports more than click, so a command
that takes one of these options pays for no other command's imports.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
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


def choice_option(*decls: str, choices: Sequence[str], default: str, help: str, **settings: Any) -> Decorator:
    """An option taking one of ``choices``, its default shown in the help (as every such option does)."""
    return click.option(
        *decls, type=click.Choice(choices, **settings), default=default, show_default=True, help=help
    )


def seed_option(help: str) -> Decorator:
    """``--seed``: an integer seed (default 0), passed as ``seed``."""
    return click.option("--seed", type=int, default=0, show_default=True, help=help)


def input_file_option(*decls: str, help: str, **settings: Any) -> Decorator:
    """An option naming a file that must exist (not a folder); ``path_type``, ``multiple`` and the
    like pass on to click."""
    path_type = settings.pop("path_type", None)
    return click.option(
        *decls, type=click.Path(exists=True, dir_okay=False, path_type=path_type), help=help, **settings
    )


def file_option(*decls: str, help: str, **path: Any) -> Decorator:
    """An option naming a file (a folder is refused), default none; whether it must exist is the
    command's to check (``--out`` is made, a ``--manifest`` is said missing in the command's words)."""
    return click.option(*decls, type=click.Path(dir_okay=False, **path), default=None, help=help)


def parse_seeds(value: str | None, allow_empty: bool = False) -> list[int] | None:
    """``--seeds 0,1,2`` as a list of integers (``None`` when not given)."""
    if value is None:
        return None
    try:
        seeds = [int(part) for part in value.replace(" ", "").split(",") if part]
    except ValueError:
        raise click.BadParameter("seeds are integers separated by commas, e.g. 0,1,2") from None
    if not seeds and not allow_empty:
        raise click.BadParameter("no seeds given")
    return seeds


def _seed_list(ctx: click.Context, param: click.Parameter, value: str | None) -> list[int] | None:
    return parse_seeds(value)


#: flags and types of the runner's options, written once; the help and default are each command's
#: (``mutreal run`` defaults to its configuration file where the verdict commands show a value)
RUNNER_FLAGS: dict[str, tuple[tuple[str, ...], dict[str, Any]]] = {
    "runs": (("--runs",), {"type": click.IntRange(1)}),
    "seeds": (("--seeds",), {"callback": _seed_list, "default": None}),
    "jobs": (("--jobs",), {"type": click.IntRange(1), "default": None}),
    "executor": (("--executor",), {"type": click.Choice(["local", "ray", "pool"])}),
    "address": (("--address",), {"default": None}),
    "timeout": (("--timeout", "timeout_s"), {"type": click.FloatRange(0, min_open=True), "default": None}),
    "memory-limit": (("--memory-limit", "memory_limit_mb"),
                     {"type": click.FloatRange(0, min_open=True), "default": None}),
    "store": (("--store",), {"type": click.Path(dir_okay=False), "default": None}),
    "modernize": (("--modernize",), {"is_flag": True}),
    "repeat-crashes": (("--repeat-crashes",), {"is_flag": True}),
    "framework": (("--framework",), {"type": click.Choice(["auto", "keras3", "tf_keras", "tf1", "as-is"])}),
    "quiet": (("--quiet", "-q"), {"is_flag": True}),
}  # fmt: skip


def runner_option(name: str, help: str, flags: tuple[str, ...] | None = None, **settings: Any) -> Decorator:
    """The runner option ``name`` of :data:`RUNNER_FLAGS` with this command's help (and default, or
    other ``settings``); ``flags`` replaces its flags (``mutreal run`` adds ``-j`` to ``--jobs``)."""
    declared, fixed = RUNNER_FLAGS[name]
    return click.option(*(flags or declared), **{**fixed, **settings}, help=help)
