"""The ``mutreal`` command line: a thin layer over the Python API.

Each sub-command lives in its own module under ``mutreal.commands`` and is imported only when it
is run, so ``mutreal classify`` never pays for pandas, matplotlib or TensorFlow imports that
another command needs. Data goes to stdout, progress and logs to stderr. Exit codes: 0 ok,
1 some inputs failed (each with its error in the output), 2 usage error.
"""

from __future__ import annotations

import importlib
import importlib.util
import sys

import click

from mutreal import __version__

#: command name -> "module:attribute" of its click command, in the order ``--help`` lists them.
COMMANDS: dict[str, str] = {
    "classify": "mutreal.commands.classify:classify",
    "manifest": "mutreal.commands.manifest:manifest",
    "correspond": "mutreal.commands.correspond:correspond",
    "report": "mutreal.commands.report:report",
    "agree": "mutreal.commands.agree:agree",
    "mutate": "mutreal.commands.mutate:mutate",
    "hom-generate": "mutreal.commands.hom:hom_generate",
    "validate-operators": "mutreal.commands.validate:validate_operators",
    "run": "mutreal.commands.run:run",
    "reproduce": "mutreal.commands.reproduce:reproduce",
    "kill": "mutreal.commands.kill:kill",
    "compare": "mutreal.commands.compare:compare",
    "stats": "mutreal.commands.stats:stats",
    "sensitivity": "mutreal.commands.sensitivity:sensitivity",
    "modernize": "mutreal.commands.modernize:modernize",
    "workers": "mutreal.commands.workers:workers",
}


def _module_exists(target: str) -> bool:
    module = target.split(":")[0]
    try:
        return importlib.util.find_spec(module) is not None
    except ModuleNotFoundError:
        return False


class LazyGroup(click.Group):
    """A click group that imports a sub-command's module only when that command is used."""

    def list_commands(self, ctx: click.Context) -> list[str]:
        return [name for name, target in COMMANDS.items() if _module_exists(target)]

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        target = COMMANDS.get(cmd_name)
        if target is None or not _module_exists(target):
            return None
        module_name, attribute = target.split(":")
        return getattr(importlib.import_module(module_name), attribute)

    def invoke(self, ctx: click.Context) -> object:
        """Run the sub-command; an output path that cannot be written (a file where a folder should
        be, no permission, a full disk) ends it with one ``error:`` line and exit code 1, not a
        traceback; so does a run store that cannot be used (exit 2). A closed pipe (``| head``) is left to
        click, which exits quietly."""
        try:
            return super().invoke(ctx)
        except OSError as error:
            if isinstance(error, BrokenPipeError):
                raise
            click.echo(f"error: {error}", err=True)
            ctx.exit(1)
        except Exception as error:  # a run store that is damaged or newer: one line, exit 2, file kept
            store = sys.modules.get("mutreal.execution.store")
            if store is None or not isinstance(error, store.StoreError):
                raise
            click.echo(f"error: {error}", err=True)
            ctx.exit(2)


@click.group(cls=LazyGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="mutreal")
def main() -> None:
    """Compare real faults in deep-learning programs with mutation-tool faults."""
