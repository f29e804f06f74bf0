"""The sandbox of a warm worker: bubblewrap namespaces, a minimal environment and a memory cgroup.

Programs under test are untrusted code. With ``--sandbox bwrap`` (or ``auto`` where it works) each
warm worker process is started inside ``bwrap`` (bubblewrap, Linux namespaces), so every run it
serves sees:

* the whole file system read-only, a private writable ``/tmp`` (a folder of the worker's own on the
  host, bound over ``/tmp``) holding the run's private copy of the program's folder and a private
  ``HOME``; the keras dataset cache is mapped read-only into that ``HOME``;
* no capabilities (a new user namespace where the kernel allows one, and ``--cap-drop ALL``), so
  nothing can be remounted writable, even when the runner runs as root;
* a new network namespace (only a loopback device of its own: nothing outside is reachable, whatever
  API the program uses);
* a new PID namespace, with ``--die-with-parent``: after each run the runner kills every process of
  the namespace but the worker (:func:`kill_namespace_others`), and all of them die with the worker;
* the environment built by :func:`minimal_environment`, never the caller's.

bubblewrap 0.8 (Debian 12) has no overlay mounts, hence copies rather than a writable layer. Between
runs the private ``/tmp`` is emptied from outside (:func:`reset_private_tmp`), so a run cannot leave
files for the next one, and the worker stays warm (no TensorFlow import per run).

The memory limit covers every process of the sandbox: a memory cgroup (:class:`MemoryCgroup`, v1 or
v2) where one can be created, whose OOM kills are reported as the ``memory`` outcome; and always the
pool's watch over the resident memory of the whole process tree (an orphan is re-parented to the
namespace's init, which is inside that tree).
"""

from __future__ import annotations

import contextlib
import functools
import os
import shutil
import subprocess
import sys
import uuid
from dataclasses import dataclass
from pathlib import Path

import psutil

from mutreal.serialise import Record

#: The ``--sandbox`` choices: ``auto`` uses bubblewrap where it works, else falls back (and says so).
MODES = ("auto", "bwrap", "none")
#: Where the run's private copy of its program folder lies inside the sandbox.
RUN_ROOT = "/tmp/run"
#: The private HOME inside the sandbox (emptied between runs like the rest of ``/tmp``).
SANDBOX_HOME = "/tmp/home"
#: The keras dataset cache inside the private HOME (a read-only view of the caller's).
KERAS_DATASETS = f"{SANDBOX_HOME}/.keras/datasets"
#: The host's own ``/tmp``, read-only, inside the sandbox (the private ``/tmp`` hides it; folders
#: beside a program that lives under the host's ``/tmp`` are shown through it).
HOST_TMP = "/tmp/.host"
#: Sibling folders shown beside a run's folder copy at most (a program in a crowded folder).
MAX_SIBLINGS = 2000
#: Environment variables passed into the sandbox by prefix (TensorFlow, CUDA, XLA, Keras).
PASSED_PREFIXES = ("TF_", "CUDA_", "NVIDIA_", "XLA_", "KERAS_", "CUDNN_", "NCCL_")
#: ...and by name.
PASSED_NAMES = ("LD_LIBRARY_PATH", "LANG", "LC_ALL", "TZ")
_STANDARD_PATH = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"


class SandboxUnavailable(RuntimeError):
    """``--sandbox bwrap`` was asked for where bubblewrap cannot run (a setup problem, not a run's)."""


@dataclass(frozen=True)
class SandboxChoice(Record):
    """The isolation a campaign's workers get: ``mode`` is ``"bwrap"`` or ``"none"``.

    Written as its fields (:class:`~mutreal.serialise.Record`): the campaign record's isolation."""

    requested: str
    mode: str
    reason: str  # why this mode (for a fallback: what was missing)
    user_namespace: bool = False


def _probe_command(user_namespace: bool) -> list[str]:
    return [
        "bwrap",
        "--ro-bind", "/", "/",
        "--dev", "/dev",
        "--proc", "/proc",
        "--tmpfs", "/tmp",
        *(["--unshare-user"] if user_namespace else []),
        "--unshare-pid", "--unshare-net", "--unshare-ipc", "--unshare-uts",
        "--cap-drop", "ALL",
        "--die-with-parent",
        "--", "/bin/sh", "-c", "exit 0",
    ]  # fmt: skip


@functools.lru_cache(maxsize=1)
def probe() -> tuple[bool, bool, str]:
    """(works, with a user namespace, why not) for bubblewrap on this machine (tried once per process)."""
    if not sys.platform.startswith("linux"):
        return False, False, f"bubblewrap needs Linux namespaces (this is {sys.platform})"
    if shutil.which("bwrap") is None:
        return False, False, "bwrap is not installed (Debian/Ubuntu: apt-get install bubblewrap)"
    errors = []
    for user_namespace in (True, False):
        try:
            done = subprocess.run(
                _probe_command(user_namespace), capture_output=True, text=True, timeout=20, check=False
            )
        except (OSError, subprocess.SubprocessError) as error:
            errors.append(str(error))
            continue
        if done.returncode == 0:
            return True, user_namespace, ""
        errors.append(done.stderr.strip() or f"exit code {done.returncode}")
    return False, False, f"bwrap cannot create namespaces here: {errors[-1]}"


def resolve(requested: str) -> SandboxChoice:
    """The mode a worker on this machine runs in for ``--sandbox requested``.

    ``bwrap`` raises :class:`SandboxUnavailable` where bubblewrap does not work; ``auto`` falls back
    to ``none`` and gives the reason; ``none`` is today's isolation (see the README)."""
    if requested not in MODES:
        raise ValueError(f"unknown sandbox mode {requested!r}: choose one of {', '.join(MODES)}")
    if requested == "none":
        return SandboxChoice("none", "none", "--sandbox none was chosen")
    works, user_namespace, why = probe()
    if works:
        return SandboxChoice(requested, "bwrap", "bubblewrap works here", user_namespace)
    if requested == "bwrap":
        raise SandboxUnavailable(f"--sandbox bwrap: {why}")
    return SandboxChoice(requested, "none", why)


_WARNED: set[str] = set()


def warn_fallback_once(choice: SandboxChoice) -> None:
    """Say once per process, on stderr, that runs are not sandboxed and why."""
    if choice.mode != "none" or choice.requested != "auto" or choice.reason in _WARNED:
        return
    _WARNED.add(choice.reason)
    print(
        f"mutreal: warning: runs are NOT sandboxed ({choice.reason}); they use the basic isolation "
        "(separate worker processes, limits, Python-level network block) and can read and write "
        "your files. Install bubblewrap or pass --sandbox none to silence this.",
        file=sys.stderr,
    )


def minimal_environment(
    passed: dict[str, str] | None = None, base: dict[str, str] | None = None
) -> dict[str, str]:
    """The environment a sandboxed worker starts with: never the caller's whole environment.

    PATH (the interpreter's folder first), LANG, a private HOME, the TensorFlow/CUDA/Keras variables,
    the PYTHONPATH that lets the worker import this mutreal, and ``passed`` (``--env``)."""
    source = os.environ if base is None else base
    env = {name: value for name, value in source.items() if name.startswith(PASSED_PREFIXES)}
    env.update({name: source[name] for name in PASSED_NAMES if name in source})
    env.setdefault("LANG", "C.UTF-8")
    env["PATH"] = os.pathsep.join([str(Path(sys.executable).parent), _STANDARD_PATH])
    env["HOME"] = SANDBOX_HOME
    env["TMPDIR"] = "/tmp"
    src_root = str(Path(__file__).resolve().parents[2])
    entries = [src_root, *[p for p in source.get("PYTHONPATH", "").split(os.pathsep) if p]]
    env["PYTHONPATH"] = os.pathsep.join(dict.fromkeys(entries))
    env.setdefault("KERAS_HOME", str(keras_home(source)))
    env.update(passed or {})
    return env


def keras_home(source: dict[str, str] | os._Environ[str] | None = None) -> Path:
    """The caller's keras folder (``$KERAS_HOME``, else ``~/.keras``): its datasets are shown read-only."""
    source = os.environ if source is None else source
    if source.get("KERAS_HOME"):
        return Path(source["KERAS_HOME"]).expanduser()
    return Path.home() / ".keras"


def passed_variables(names: list[str] | tuple[str, ...]) -> dict[str, str]:
    """``--env NAME`` (the caller's value) or ``--env NAME=VALUE`` as a dict (unset names are left out)."""
    passed: dict[str, str] = {}
    for item in names:
        name, sep, value = item.partition("=")
        if not name or not name.replace("_", "a").isalnum():
            raise ValueError(f"--env {item!r}: expected NAME or NAME=VALUE")
        if sep:
            passed[name] = value
        elif name in os.environ:
            passed[name] = os.environ[name]
    return passed


def interpreter_folders_in_tmp(src_root: str | None = None) -> list[str]:
    """Folders right under the host's ``/tmp`` that hold what the worker's interpreter imports.

    The sandbox's ``/tmp`` is private, so a Python, virtual environment or checkout living under the
    host's ``/tmp`` (a CI clone, a throw-away venv) would vanish inside and the worker could not even
    import mutreal. Each such folder is shown read-only at its own path (:func:`bwrap_command`) and
    kept as a mount point between runs (:func:`reset_private_tmp`). ``/tmp`` itself is never one."""
    root = src_root or str(Path(__file__).resolve().parents[2])
    needed = [sys.prefix, sys.exec_prefix, sys.base_prefix, os.path.dirname(sys.executable), root]
    needed += os.path.dirname(os.path.realpath(sys.executable)), *os.environ.get("PYTHONPATH", "").split(os.pathsep)
    needed += [p for p in sys.path if "site-packages" in p or "dist-packages" in p]
    folders: list[str] = []
    for path in needed:
        for candidate in {os.path.abspath(path), os.path.realpath(path)} if path else ():
            parts = candidate.split(os.sep)
            if len(parts) >= 3 and parts[1] == "tmp" and parts[2] and os.path.isdir("/tmp/" + parts[2]):
                folder = "/tmp/" + parts[2]
                if folder != HOST_TMP and folder not in folders:
                    folders.append(folder)
    return sorted(folders)


def bwrap_command(
    inner: list[str],
    private_tmp: Path,
    user_namespace: bool,
    datasets: Path | None = None,
    tmp_folders: list[str] | None = None,
) -> list[str]:
    """The ``bwrap`` command line that runs ``inner`` in a worker's sandbox (see the module doc).

    ``tmp_folders``: folders of the host's ``/tmp`` shown read-only at their own paths (default:
    :func:`interpreter_folders_in_tmp`, so the interpreter itself is always found)."""
    if tmp_folders is None:
        tmp_folders = interpreter_folders_in_tmp()
    command = [
        "bwrap",
        "--ro-bind", "/", "/",
        "--dev", "/dev",
        "--proc", "/proc",
        "--bind", str(private_tmp), "/tmp",
        "--ro-bind", "/tmp", HOST_TMP,
    ]  # fmt: skip
    for folder in tmp_folders or ():
        command += ["--ro-bind", folder, folder]
    for device in sorted(Path("/dev").glob("nvidia*")):  # GPUs stay usable
        command += ["--dev-bind", str(device), str(device)]
    if datasets is not None and datasets.is_dir():
        command += ["--ro-bind", str(datasets), KERAS_DATASETS]
    if user_namespace:
        command += ["--unshare-user"]
    command += [
        "--unshare-pid", "--unshare-net", "--unshare-ipc", "--unshare-uts", "--unshare-cgroup-try",
        "--cap-drop", "ALL",
        "--die-with-parent",
        "--new-session",
        "--chdir", "/tmp",
        "--",
        *inner,
    ]  # fmt: skip
    return command


_KEPT_PATHS = ("home", "home/.keras", "home/.keras/datasets", HOST_TMP[len("/tmp/") :])


_MOUNT_POINTS = ("home/.keras/datasets", HOST_TMP[len("/tmp/") :])


def reset_private_tmp(private_tmp: Path, tmp_folders: list[str] | None = None) -> None:
    """Empty a worker's private ``/tmp`` from outside, keeping the mount point of the dataset cache.

    Run after :func:`kill_namespace_others`, while the worker waits for its next run. Files the
    program made unreadable or undeletable (``chmod 000``) are made deletable first."""

    def remove(path: Path) -> None:
        if path.is_symlink() or not path.is_dir():
            with contextlib.suppress(FileNotFoundError):
                path.unlink()
            return

        def force(function, name, _info) -> None:  # noqa: ANN001 - shutil's onerror signature
            with contextlib.suppress(OSError):
                os.chmod(os.path.dirname(name), 0o700)
                os.chmod(name, 0o700)
                function(name)

        with contextlib.suppress(OSError):
            os.chmod(path, 0o700)
        shutil.rmtree(path, onerror=force)

    extra = tuple(folder[len("/tmp/") :] for folder in tmp_folders or ())
    kept, mount_points = _KEPT_PATHS + extra, _MOUNT_POINTS + extra

    def walk(folder: Path, relative: str) -> None:
        try:
            entries = list(folder.iterdir())
        except OSError:
            return
        for entry in entries:
            name = f"{relative}{entry.name}"
            if name in kept and entry.is_dir() and not entry.is_symlink():
                if name not in mount_points:
                    walk(entry, name + "/")
                continue
            remove(entry)

    walk(private_tmp, "")
    for name in kept:  # HOME and the mount points must exist for the next run
        (private_tmp / name).mkdir(parents=True, exist_ok=True)


def _inside_path(path: Path) -> str:
    """Where a host path is seen inside the sandbox (the host's ``/tmp`` is under :data:`HOST_TMP`)."""
    text = str(path)
    if text == "/tmp" or text.startswith("/tmp/"):
        return HOST_TMP + text[len("/tmp") :]
    return text


def stage_run(private_tmp: Path, folder: Path) -> str:
    """Copy ``folder`` (the program's data folder) into the worker's private ``/tmp`` from outside;
    returns the copy's path inside the sandbox (``/tmp/run/<folder name>``).

    Done on the host, where every original is visible (inside, the private ``/tmp`` hides the host's).
    The folder's siblings are symlinked beside the copy to their read-only originals, so ``../data``
    resolves as in the program's own layout."""
    root = private_tmp / RUN_ROOT[len("/tmp/") :]
    if root.exists():
        shutil.rmtree(root, ignore_errors=True)
    root.mkdir(parents=True)
    name = folder.name or "program"
    copy = root / name
    if folder.is_dir():
        shutil.copytree(folder, copy, symlinks=True, ignore=shutil.ignore_patterns("__pycache__"))
        with contextlib.suppress(OSError):
            for count, sibling in enumerate(sorted(folder.parent.iterdir())):
                if count >= MAX_SIBLINGS:
                    break
                if sibling.name != name and not sibling.name.startswith("."):
                    with contextlib.suppress(OSError):
                        (root / sibling.name).symlink_to(_inside_path(sibling.resolve()))
    copy.mkdir(parents=True, exist_ok=True)
    return f"{RUN_ROOT}/{name}"


def kill_namespace_others(outer_pid: int, keep: set[int], rounds: int = 20) -> int:
    """Kill every process under the sandbox ``outer_pid`` except ``keep`` (the namespace's init and
    the worker); returns how many were killed. Repeated until none is left, so a process that forks
    while being killed is caught in the next round."""
    killed = 0
    try:
        outer = psutil.Process(outer_pid)
    except psutil.Error:
        return 0
    for _ in range(rounds):
        try:
            others = [p for p in outer.children(recursive=True) if p.pid not in keep]
        except psutil.Error:
            return killed
        if not others:
            return killed
        for proc in others:
            with contextlib.suppress(psutil.Error):
                proc.kill()
                killed += 1
        psutil.wait_procs(others, timeout=2)
    return killed


class MemoryCgroup:
    """A memory cgroup holding one sandboxed worker and everything it starts (v1 or v2).

    Its limit is set per run; the kernel kills a process of the group when the group's memory goes
    over it, and :meth:`oom_kills` tells the pool so (the run is ``memory``, not a crash). Where no
    cgroup can be created (no permission, no memory controller) :meth:`create` returns None."""

    def __init__(self, path: Path, version: int) -> None:
        self.path = path
        self.version = version

    @classmethod
    def create(cls, name: str) -> MemoryCgroup | None:
        """A new cgroup for a worker, or None where this process cannot make one."""
        unique = f"{name}-{os.getpid()}-{uuid.uuid4().hex[:8]}"
        v1 = Path("/sys/fs/cgroup/memory")
        candidates: list[tuple[Path, int]] = []
        if (v1 / "memory.limit_in_bytes").exists():
            candidates.append((v1 / "mutreal" / unique, 1))
        v2 = _own_v2_cgroup()
        if v2 is not None:
            candidates.append((v2 / f"mutreal-{unique}", 2))
        for path, version in candidates:
            _remove_orphaned_groups(path.parent)
            try:
                path.mkdir(parents=True)
                group = cls(path, version)
                group.set_limit_mb(1 << 20)
                return group
            except OSError:
                with contextlib.suppress(OSError):
                    path.rmdir()
        return None

    @property
    def procs_file(self) -> Path:
        return self.path / "cgroup.procs"

    def set_limit_mb(self, limit_mb: float | None) -> None:
        """Set the group's memory limit (None: no limit)."""
        if self.version == 1:
            value = str(int(limit_mb * 1024 * 1024)) if limit_mb else "-1"
            (self.path / "memory.limit_in_bytes").write_text(value)
        else:
            value = str(int(limit_mb * 1024 * 1024)) if limit_mb else "max"
            (self.path / "memory.max").write_text(value)
            with contextlib.suppress(OSError):
                (self.path / "memory.swap.max").write_text("0")

    def oom_kills(self) -> int:
        """How many processes of the group the kernel's OOM killer has killed so far."""
        name = "memory.oom_control" if self.version == 1 else "memory.events"
        try:
            for line in (self.path / name).read_text().splitlines():
                key, _, value = line.partition(" ")
                if key == "oom_kill":
                    return int(value)
        except (OSError, ValueError):
            pass
        return 0

    def remove(self) -> None:
        """Remove the group (its processes must be gone; a few retries while the kernel lets go)."""
        for _ in range(20):
            try:
                self.path.rmdir()
                return
            except FileNotFoundError:
                return
            except OSError:
                import time

                time.sleep(0.05)


def _remove_orphaned_groups(folder: Path) -> None:
    """Remove the empty groups of runners that died without cleaning up (SIGKILL): their names end
    in ``-<pid>-<hex>``, and a group whose runner pid is gone holds no process any more."""
    with contextlib.suppress(OSError):
        for group in folder.iterdir():
            parts = group.name.rsplit("-", 2)
            if (
                len(parts) == 3
                and parts[1].isdigit()
                and group.is_dir()
                and not psutil.pid_exists(int(parts[1]))
            ):
                with contextlib.suppress(OSError):
                    group.rmdir()  # refused while a process is still in it


def _own_v2_cgroup() -> Path | None:
    """This process's cgroup v2 folder when the memory controller can be delegated under it."""
    try:
        lines = Path("/proc/self/cgroup").read_text().splitlines()
    except OSError:
        return None
    relative = next((line[3:] for line in lines if line.startswith("0::")), None)
    root = Path("/sys/fs/cgroup")
    if relative is None or not (root / "cgroup.controllers").exists():
        return None
    folder = root / relative.lstrip("/")
    try:
        if "memory" not in (folder / "cgroup.subtree_control").read_text().split():
            return None
    except OSError:
        return None
    return folder
