"""The worker process: imports TensorFlow once, then runs many programs, resetting state between them.

Started by :mod:`mutreal.execution.pool` as a fresh ``python -m mutreal.execution.worker FD OPTIONS``
process (spawned, never forked: TensorFlow's threads do not survive a fork, and a fresh interpreter
inherits none of the caller's state), inside its sandbox (:mod:`mutreal.execution.sandbox`) when it has
one, talking over an inherited socket (file descriptor ``FD``) in JSON frames only
(:mod:`mutreal.execution.channel`: the program runs in this process and could write on that socket, so
the parent never unpickles what comes from it). Messages: the worker sends ``{"type": "ready", ...}``
once warm, then for each ``{"type": "run", "task": {...}}`` one ``{"type": "result", "result":
{...}}``, preceded by ``{"type": "note", "self_signal": N}`` when the program signals its own worker
(so its death is the program's ``crash``, not a lost worker); ``{"type": "stop"}`` or a closed pipe
ends it. Time and memory limits are enforced from outside (the pool kills the process), so nothing
here needs to be trusted to stop.

Per run, the program executes as ``__main__`` in a fresh module namespace, with ``sys.argv`` set to
it, in a working directory showing the files of its folder: in the sandbox a private writable copy
of that folder at ``/tmp/run/<folder name>/`` staged by the pool from outside (its sibling folders
shown read-only beside it, so ``../data`` works), without a sandbox a temporary directory of
symlinks to them; a program that names its own folder in a relative path (Defects4ML's
``fixed/result.json``, written for a harness that runs it from the folder above) finds it there too
(:func:`_alias_own_folder`). Before
each run every seed is set (``keras.utils.set_random_seed``: Python, NumPy, TensorFlow/Keras) and
Keras' global state is reset; after it the working directory, ``sys.argv``, ``sys.path``,
``os.environ``, warning filters, NumPy error settings, the program's own modules imported from its
folder and the absl flags they defined (:func:`forget_program_flags`) are restored or removed, so a
run cannot change the next one's numbers.
"""

from __future__ import annotations

import builtins
import contextlib
import gc
import os
import re
import shutil
import signal
import sys
import tempfile
import time
import traceback
import types
import warnings
from pathlib import Path
from typing import Any

from mutreal.execution import channel, frameworks
from mutreal.execution.records import Outcome

#: Environment every worker starts with (set before TensorFlow is imported).
WORKER_ENVIRONMENT: dict[str, str] = {
    "TF_CPP_MIN_LOG_LEVEL": "2",
    "TF_DETERMINISTIC_OPS": "1",
    "TF_FORCE_GPU_ALLOW_GROWTH": "true",
    "MPLBACKEND": "Agg",
    "PYTHONHASHSEED": "0",
    "KERAS_BACKEND": "tensorflow",
}
#: Characters of the program's output kept in the record (its end: where errors are).
OUTPUT_TAIL_CHARS = 4000


#: The options this worker was started with (determinism is re-asserted before every run).
_OPTIONS: dict[str, Any] = {}


def _framework() -> str:
    return str(_OPTIONS.get("framework") or frameworks.DEFAULT)


def install_instrumentation(block_network: bool) -> None:
    """``fit_capture.install`` for this worker's framework (passed only where ``install`` takes it)."""
    import inspect

    from mutreal.execution import fit_capture

    if "framework" in inspect.signature(fit_capture.install).parameters:
        fit_capture.install(block_network=block_network, framework=_framework())
    elif _framework() == "keras3":  # an instrumentation that patches Keras 3 only: nothing to patch
        fit_capture.install(block_network=block_network)  # on tf_keras (the sandbox still blocks the network)


def _configure_tensorflow(options: dict[str, Any]) -> dict[str, str]:
    """Set up the worker's framework, import TensorFlow/Keras once, fix threads and determinism,
    enable GPU memory growth."""
    _OPTIONS.update(options)
    frameworks.set_up(_framework())
    import tensorflow as tf

    threads = options.get("threads")
    if threads:
        tf.config.threading.set_intra_op_parallelism_threads(int(threads))
        tf.config.threading.set_inter_op_parallelism_threads(max(1, min(2, int(threads))))
    gpus = []
    try:
        gpus = tf.config.list_physical_devices("GPU")
        for gpu in gpus:
            tf.config.experimental.set_memory_growth(gpu, True)
    except Exception:  # memory growth must be set before GPUs initialise; a failure is not fatal
        pass
    if options.get("deterministic", True):
        tf.config.experimental.enable_op_determinism()
    import numpy

    keras = frameworks.keras_module(_framework())
    install_instrumentation(options.get("block_network", True))
    return {
        "tensorflow": tf.__version__,
        "keras": keras.__version__,
        "numpy": numpy.__version__,
        "gpus": str(len(gpus)),
        "framework": _framework(),
    }


def _reset_keras(seed: int) -> None:
    """Reset Keras' global state and seed every generator, so runs with one seed are identical."""
    frameworks.reset(_framework(), seed, bool(_OPTIONS.get("deterministic", True)))


def _close_figures() -> None:
    plt = sys.modules.get("matplotlib.pyplot")
    if plt is not None:
        with contextlib.suppress(Exception):
            plt.close("all")


def _prepare_sandboxed_workdir(task: dict[str, Any]) -> tuple[Path, Path, Path]:
    """The run's private copy of its folder, staged by the pool (:func:`sandbox.stage_run`), with the
    program text written into it."""
    workdir = Path(task["sandbox_workdir"])
    workdir.mkdir(parents=True, exist_ok=True)
    script = workdir / Path(task["program"]).name
    with contextlib.suppress(FileNotFoundError):
        script.unlink()
    script.write_text(task["source"], encoding="utf-8")
    return workdir, script, workdir.parent


def _prepare_workdir(task: dict[str, Any]) -> tuple[Path, Path, Path]:
    """(working directory, program path, folder to remove after the run) of one run."""
    if _OPTIONS.get("sandboxed") and task.get("sandbox_workdir"):
        return _prepare_sandboxed_workdir(task)
    workdir = Path(tempfile.mkdtemp(prefix="mutreal-run-"))
    program_name = Path(task["program"]).name
    folder = _home(task)
    if folder.is_dir():
        for entry in folder.iterdir():
            if entry.name == program_name or entry.name == "__pycache__":
                continue
            try:
                (workdir / entry.name).symlink_to(entry.resolve())
            except OSError:
                if entry.is_file():
                    shutil.copy2(entry, workdir / entry.name)
    script = workdir / program_name
    script.write_text(task["source"], encoding="utf-8")
    return workdir, script, workdir


def _write_own_modules(workdir: Path, modules: dict[str, str]) -> None:
    """A mutant's own helper modules in place of its home folder's (a reconstructed fault of
    several files: :func:`mutreal.execution.plan.own_modules`)."""
    for name, text in modules.items():
        target = workdir / Path(name).name
        with contextlib.suppress(OSError):
            if target.is_symlink() or target.exists():
                target.unlink()
            target.write_text(text, encoding="utf-8")


def _home(task: dict[str, Any]) -> Path:
    """The folder whose files a run shows (its data folder), where it runs as if it were there."""
    return Path(task.get("folder") or Path(task["program"]).parent)


def _alias_own_folder(workdir: Path, name: str, source: str) -> bool:
    """Show the run's folder also under its own name inside itself when the program names it in a
    relative path (``open("fixed/result.json", "w")``); returns whether it did.

    Benchmarks run their programs from different places: Defects4ML's harness runs
    ``python fixed/script.py`` from the bug's folder, so its programs write ``fixed/result.json`` while
    reading their data beside themselves, and most others expect their own folder. The run starts in
    the program's folder; a link ``<name> -> .`` there makes ``<name>/x`` the same file as ``x``, so
    both conventions reach the files the program meant, and what it writes stays in the run's copy.
    Only for a program whose text names its folder (``'<name>/...'``, ``'./<name>/...'``) and whose
    folder has no entry of that name already, and not for one that walks its files recursively
    (``glob(..., recursive=True)``, ``os.walk(followlinks=True)``): the link is a loop, which they follow,
    seeing every file once per level (about 40 times)."""
    if not name or not re.search(rf"""(['"])(?:\./)?{re.escape(name)}/""", source):
        return False
    if re.search(r"\b(?:recursive|followlinks)\s*=\s*True\b", source):
        return False
    alias = workdir / name
    if alias.exists() or alias.is_symlink():
        return False
    try:
        alias.symlink_to(".", target_is_directory=True)
    except OSError:
        return False
    return True


def _local_modules(names: set[str], roots: list[str]) -> list[str]:
    local = []
    for name in names:
        module = sys.modules.get(name)
        path = getattr(module, "__file__", None) or ""
        if path and any(os.path.realpath(path).startswith(root) for root in roots):
            local.append(name)
    return local


def _classify_error(error: BaseException) -> Outcome:
    from mutreal.execution import fit_capture

    seen = error
    while seen is not None:
        if isinstance(seen, (fit_capture.MissingDatasetError, FileNotFoundError)):
            return Outcome.MISSING_DATA
        if isinstance(seen, MemoryError):  # an allocation refused under the address-space limit
            return Outcome.MEMORY
        seen = seen.__cause__ or seen.__context__
    return Outcome.CRASH


def _after_the_model(error: BaseException, script: Path, source: str, workdir: Path) -> Any:
    """The :class:`~mutreal.execution.scaffolding_failure.ScaffoldingFailure` of a crash after the
    model's work (every fit it started completed, or it trained outside fit), else None: such a run
    keeps its training and evaluation and says where it failed (issue realism-published item 0)."""
    from mutreal.execution import fit_capture
    from mutreal.execution.scaffolding_failure import scaffolding_failure

    capture = fit_capture.CURRENT
    trained = (bool(capture.fits) and all(f.completed for f in capture.fits)) or (
        not capture.fits and capture.steps_outside_fit > 0
    )
    try:
        return scaffolding_failure(error, script, source, roots=[workdir], trained=trained)
    except Exception:  # noqa: BLE001 - reading the program must never lose the run: a crash stays a crash
        return None


#: The parent's channel while a run is in progress (for :class:`_SelfSignalNotes`).
_CONN: Any = None


class _SelfSignalNotes:
    """While a program runs, tell the parent before it signals its own worker process.

    A worker that dies of a signal nobody on the runner's side sent is retried, and killed twice is
    ``lost`` (not a verdict); a program that kills itself (``os.kill(os.getpid(), ...)``,
    ``os.abort()``, ``signal.raise_signal``) is the program's ``crash``, as before. The note says which."""

    def __enter__(self) -> _SelfSignalNotes:
        self.saved = (os.kill, os.killpg, os.abort, signal.raise_signal, signal.pthread_kill)
        kill, killpg, abort, raise_signal, pthread_kill = self.saved

        def note(sig: int) -> None:
            if _CONN is not None:
                with contextlib.suppress(Exception):
                    channel.send(_CONN, {"type": "note", "self_signal": int(sig)})

        def own_kill(pid: int, sig: int) -> None:
            if pid in (0, os.getpid(), -os.getpgrp()):
                note(sig)
            kill(pid, sig)

        def own_killpg(pgid: int, sig: int) -> None:
            if pgid in (0, os.getpgrp()):
                note(sig)
            killpg(pgid, sig)

        def own_abort() -> None:
            note(signal.SIGABRT)
            abort()

        def own_raise_signal(sig: int) -> None:
            note(sig)
            raise_signal(sig)

        def own_pthread_kill(thread_id: int, sig: int) -> None:
            note(sig)
            pthread_kill(thread_id, sig)

        os.kill, os.killpg, os.abort = own_kill, own_killpg, own_abort  # type: ignore[assignment]
        signal.raise_signal, signal.pthread_kill = own_raise_signal, own_pthread_kill  # type: ignore[assignment]
        return self

    def __exit__(self, *exc: object) -> None:
        os.kill, os.killpg, os.abort, signal.raise_signal, signal.pthread_kill = self.saved  # type: ignore[assignment]


_ANSI_ESCAPES = re.compile(r"\x1b\[[0-9;]*[A-Za-z]")


def _plain(text: str) -> str:
    """Text without terminal colour codes (Keras colours its error messages)."""
    return _ANSI_ESCAPES.sub("", text)


class _RedirectOutput:
    """Send file descriptors 1 and 2 to a file for one run (the program's prints, Keras progress bars)."""

    def __init__(self, path: Path) -> None:
        self.path = path

    def __enter__(self) -> _RedirectOutput:
        sys.stdout.flush()
        sys.stderr.flush()
        self.handle = open(self.path, "wb")
        self.saved = (os.dup(1), os.dup(2))
        os.dup2(self.handle.fileno(), 1)
        os.dup2(self.handle.fileno(), 2)
        self.buffering = []
        for stream in (sys.stdout, sys.stderr):  # a run stopped at a limit still shows its last lines
            with contextlib.suppress(AttributeError, ValueError):
                self.buffering.append((stream, stream.line_buffering))
                stream.reconfigure(line_buffering=True)
        if _CONN is not None:  # where the pool finds the output of a run it stops
            with contextlib.suppress(Exception):
                channel.send(_CONN, {"type": "note", "output_log": str(self.path)})
        return self

    def __exit__(self, *exc: object) -> None:
        with contextlib.suppress(Exception):
            sys.stdout.flush()
            sys.stderr.flush()
        for stream, line_buffering in self.buffering:
            with contextlib.suppress(AttributeError, ValueError):
                stream.reconfigure(line_buffering=line_buffering)
        os.dup2(self.saved[0], 1)
        os.dup2(self.saved[1], 2)
        os.close(self.saved[0])
        os.close(self.saved[1])
        self.handle.close()

    def tail(self) -> str:
        return output_tail(self.path)


#: Bytes of a stopped run's output searched for its last ``Epoch N/M`` line (Keras' progress bars can
#: push it out of the tail).
EPOCH_SEARCH_BYTES = 4 * 1024 * 1024
_EPOCH_LINE = re.compile(rb"Epoch \d+/\d+")


def stopped_output(path: Path | str | int) -> str:
    """The output kept of a run stopped at a limit: its tail, after the last ``Epoch N/M`` line of
    its last :data:`EPOCH_SEARCH_BYTES` when the tail has none (how far the program got). ``path``
    may be an open file descriptor (left open), as the pool passes one it opened with care."""
    tail = output_tail(path)
    if _EPOCH_LINE.search(tail.encode()):
        return tail
    try:
        with open(path, "rb", closefd=not isinstance(path, int)) as handle:
            handle.seek(0, os.SEEK_END)
            handle.seek(max(0, handle.tell() - EPOCH_SEARCH_BYTES))
            found = _EPOCH_LINE.findall(handle.read())
    except OSError:
        return tail
    return f"{found[-1].decode()} (the last epoch line of the output)\n...\n{tail}" if found else tail


def output_tail(path: Path | str | int) -> str:
    """The end of a run's output file as a terminal would show it last (also read by the pool from
    outside when it stops a run at a limit: how far a program got is in its output)."""
    try:
        with open(path, "rb", closefd=not isinstance(path, int)) as handle:
            handle.seek(0, os.SEEK_END)
            size = handle.tell()
            handle.seek(max(0, size - OUTPUT_TAIL_CHARS * 2))
            text = handle.read().decode("utf-8", errors="replace")
    except OSError:
        return ""
    # progress bars redraw with \r and \b: keep what a terminal would show last
    lines = [line.split("\r")[-1] for line in text.splitlines()]
    return _plain("\n".join(lines))[-OUTPUT_TAIL_CHARS:]


def execute(task: dict[str, Any]) -> dict[str, Any]:
    """Run one program with one seed in this process and return what happened (a plain dict).

    ``task`` holds ``program`` (its original path), ``source`` (the text to run), ``folder`` (whose
    files are made visible), ``seed`` and ``args``. The result holds ``outcome``, ``fits``,
    ``evaluations``, timings, error fields and the tail of the program's output.
    """
    from mutreal.execution import fit_capture

    seed = int(task["seed"])
    install_instrumentation(task.get("block_network", True))
    from mutreal.compat.era_behaviour import begin_run

    begin_run(task.get("rewrites"))  # the era's Keras behaviours its rewrites list (mutreal.compat.era_behaviour)
    workdir, script, scratch = _prepare_workdir(task)
    _write_own_modules(workdir, task.get("own_modules") or {})
    # the folder the run shows is its home (a mutant's is its original's: mutreal.campaigns.pair.mutant_data_folders),
    # so a mutant written elsewhere finds ``fixed/result.json`` as its original does
    _alias_own_folder(workdir, _home(task).name, str(task["source"]))
    saved_cwd = os.getcwd()
    saved_argv = list(sys.argv)
    saved_path = list(sys.path)
    saved_modules = set(sys.modules)
    saved_main = sys.modules.get("__main__")
    saved_environ = dict(os.environ)
    saved_filters = list(warnings.filters)
    saved_streams = (sys.stdout, sys.stderr)
    saved_builtins = dict(builtins.__dict__)
    result: dict[str, Any] = {"outcome": Outcome.OK, "error_type": None, "error_message": None, "traceback": None}
    redirect = _RedirectOutput(workdir / ".mutreal-output.log")
    start = time.perf_counter()
    try:
        _reset_keras(seed)
        capture = fit_capture.start_capture()
        module = types.ModuleType("__main__")
        module.__file__ = str(script)
        module.__builtins__ = builtins  # type: ignore[attr-defined]
        sys.modules["__main__"] = module
        os.chdir(workdir)
        sys.argv = [str(script), *[str(a) for a in task.get("args", [])]]
        sys.path.insert(0, str(workdir))
        with redirect, _SelfSignalNotes():
            try:
                code = compile(task["source"], str(script), "exec")
                exec(code, module.__dict__)
            except SystemExit as stop:
                if stop.code not in (None, 0):
                    result.update(
                        outcome=Outcome.CRASH,
                        error_type="SystemExit",
                        error_message=f"the program exited with status {stop.code!r}",
                    )
            except BaseException as error:  # noqa: BLE001 - any failure of the program is data
                if isinstance(error, KeyboardInterrupt):
                    raise
                text = "".join(traceback.format_exception(type(error), error, error.__traceback__))
                after = _after_the_model(error, script, str(task["source"]), workdir)
                if after is not None:  # the model trained and evaluated: the crash is scaffolding's
                    result["scaffolding_failure"] = {**after.to_dict(), "traceback": _plain(text)[-4000:]}
                else:
                    result.update(
                        outcome=_classify_error(error),
                        error_type=type(error).__name__,
                        error_message=_plain(str(error))[:2000],
                        traceback=_plain(text)[-8000:],
                    )
    finally:
        # per-input correctness after fit for a program that did not evaluate; the training steps
        # outside fit (an early crash is told from a late one by them)
        extra = fit_capture.finish_capture(completed=result["outcome"] == Outcome.OK)
        wall = time.perf_counter() - start
        os.chdir(saved_cwd)
        sys.argv = saved_argv
        sys.path[:] = saved_path
        if saved_main is not None:
            sys.modules["__main__"] = saved_main
        roots = [os.path.realpath(str(workdir)), os.path.realpath(str(Path(task["program"]).parent))]
        for name in _local_modules(set(sys.modules) - saved_modules, roots):
            sys.modules.pop(name, None)
        os.environ.clear()
        os.environ.update(saved_environ)
        warnings.filters[:] = saved_filters
        sys.stdout, sys.stderr = saved_streams
        if builtins.__dict__ != saved_builtins:  # e.g. a program that replaced print
            builtins.__dict__.clear()
            builtins.__dict__.update(saved_builtins)
        forget_program_flags()  # after the program's own modules are dropped
        _close_figures()
        output_tail = redirect.tail()
        shutil.rmtree(scratch, ignore_errors=True)
    capture = fit_capture.CURRENT
    result.update(
        fits=[f.to_dict() for f in capture.fits],
        evaluations=[e.to_dict() for e in capture.evaluations],
        wall_time_s=wall,
        fit_time_s=sum(f.time_s for f in capture.fits),
        # the program's own evaluate calls: not mutreal's per-input predictions after it (finish_capture)
        evaluate_time_s=sum(e.time_s for e in capture.evaluations if e.source == "evaluate"),
        output_tail=output_tail,
        capture_warnings=list(capture.warnings),
        helper_rewrites=_helper_rewrites(),
        **extra,
    )
    return result


def _helper_rewrites() -> list[str]:
    """The rewrites of the program's own modules converted as they were imported (a ``tf1`` worker's
    :func:`mutreal.compat.tf1_worker_patches.helper_rewrites`), for the run's record."""
    tf1_worker_patches = sys.modules.get("mutreal.compat.tf1_worker_patches")
    return tf1_worker_patches.helper_rewrites() if tf1_worker_patches is not None else []


def forget_program_flags() -> list[str]:
    """Forget the absl flags (``tf.app.flags``, process-wide) of modules no longer imported, and mark
    every flag unparsed, so the next program of this warm worker defines and parses its flags as in a
    fresh process. Returns the (long) names deleted.

    A flag is the finished program's when the module that defined it is gone: its ``__main__`` (absl
    names it by its path) and its own modules, which :func:`execute` drops after each run; without
    this the next program defining the same name (Defects4ML 012-014 define ``data_dir``, which 007's
    ``cifar10`` module had defined before them) crashed with ``DuplicateFlagError``. A flag's short
    name goes with it (absl refuses a short name defined twice too). Flags of modules still imported
    (absl's, TensorFlow's, a library the program imported) stay, at their defaults: their module is
    not imported again, so nothing would define them again."""
    registry = getattr(sys.modules.get("absl.flags"), "FLAGS", None)
    if registry is None:
        return []
    gone = [flag for module, defined in registry.flags_by_module_dict().items() if module not in sys.modules
            for flag in defined]  # fmt: skip
    for name in dict.fromkeys(n for flag in gone for n in (flag.name, flag.short_name) if n):
        with contextlib.suppress(AttributeError, KeyError):  # already gone (another module's definition)
            delattr(registry, name)
    registry.unparse_flags()
    return list(dict.fromkeys(flag.name for flag in gone))


def cleanup_after_run() -> None:
    """Free the finished run's models, then freeze what survives (modules, caches) out of the GC.

    A full collection over TensorFlow's millions of objects costs most of a second; freezing the
    survivors makes later collections (Keras calls ``gc.collect`` itself) scan only new objects.
    Runs after the result is sent, so it overlaps with the caller storing the record.
    """
    frameworks.clear(_framework())
    gc.collect()
    gc.freeze()


def _exit_with_parent(interval_s: float = 1.0) -> None:
    """End this worker when the process that started it dies (e.g. a campaign killed with SIGKILL).

    Without this, an orphaned worker running a program that loops forever would never stop: its
    time limit is enforced by the parent that is gone.
    """
    import threading

    parent = os.getppid()

    def watch() -> None:
        while True:
            time.sleep(interval_s)
            if os.getppid() != parent:
                os._exit(70)

    threading.Thread(target=watch, name="mutreal-parent-watch", daemon=True).start()


def worker_main(conn: Any, options: dict[str, Any]) -> None:
    """Entry point of a spawned worker: warm up, then serve runs until told to stop."""
    global _CONN
    _exit_with_parent()
    os.environ.update(WORKER_ENVIRONMENT)
    if options.get("threads"):
        os.environ["OMP_NUM_THREADS"] = str(options["threads"])
    try:
        versions = _configure_tensorflow(options)
    except BaseException as error:  # noqa: BLE001 - report why the worker cannot start
        channel.send(conn, {"type": "failed", "error": f"{type(error).__name__}: {error}"})
        return
    gc.collect()
    gc.freeze()
    channel.send(conn, {"type": "ready", "pid": os.getpid(), "versions": versions})
    _CONN = conn
    while True:
        try:
            message = channel.recv(conn)
        except (EOFError, OSError):
            return
        if message.get("type") != "run":
            return
        result = execute(message["task"])
        result["versions"] = versions
        try:
            channel.send(conn, {"type": "result", "result": result})
        except (BrokenPipeError, OSError):
            return
        cleanup_after_run()


def main(argv: list[str] | None = None) -> None:
    """``python -m mutreal.execution.worker FD OPTIONS_JSON``: serve runs over the socket ``FD``."""
    import json
    from multiprocessing.connection import Connection

    args = sys.argv[1:] if argv is None else argv
    conn = Connection(int(args[0]))
    options = json.loads(args[1]) if len(args) > 1 else {}
    worker_main(conn, options)


if __name__ == "__main__":
    main()
