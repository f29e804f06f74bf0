"""The worker service's socket, safe against the other users of the machine.

The service runs programs for whoever talks to it, so whoever can talk to it can run code as the
user who started it. Four rules keep that to the user alone:

* Its files live in a folder the service creates with mode 0700 (``$XDG_RUNTIME_DIR/mutreal``, else
  ``~/.cache/mutreal``). Where that socket path is too long for a Unix socket, the service makes a
  fresh private folder with :func:`tempfile.mkdtemp` and writes its path into a pointer file in the
  0700 folder, where clients look for it. A folder, key or pointer that already exists is used only
  when the user owns it and no one else can change it (the service's own folder: no one else can
  even read it); anything else is refused with :class:`UnsafeServicePath`, never trusted or repaired.
* The key is a fresh random secret in a file created exclusively with mode 0600.
* Every connection's peer uid is read from the kernel (``SO_PEERCRED``) before a single byte is
  exchanged: a peer of another uid is closed at once, and a client likewise refuses a socket that
  another uid serves.
* Messages are length-prefixed JSON (:class:`Channel`): data only, so even a peer that holds the key
  cannot make the other side execute anything by what it sends (pickle could). Both sides prove they
  hold the key (HMAC of the other's random nonce) before the first request.
"""

from __future__ import annotations

import contextlib
import hashlib
import hmac
import json
import os
import secrets
import select
import socket
import stat
import struct
import tempfile
from pathlib import Path
from typing import Any

#: Longest socket path used (Linux allows 107 bytes, macOS 103; a margin for both).
MAX_SOCKET_PATH = 100
SOCKET_NAME = "workers.sock"
#: In the service folder: the socket path of a service whose folder is elsewhere (path too long).
POINTER_NAME = "workers.where"
#: Largest message before the handshake, and after it (a campaign's tasks carry program sources).
HANDSHAKE_MAX_BYTES = 4096
MESSAGE_MAX_BYTES = 1 << 30
HANDSHAKE_TIMEOUT_S = 10.0
PROTOCOL = "mutreal-workers/2"  # 1 was pickle over multiprocessing.connection
_HEADER = struct.Struct(">I")


class UnsafeServicePath(ValueError):
    """A folder, key, pointer or socket of the service that another user could have made or changed.

    A ValueError: it is a matter of the machine's set-up, reported as a usage error."""


class MalformedMessage(ValueError):
    """A message that is not one length-prefixed JSON object (e.g. a pickle): refused, never run."""


class HandshakeFailed(ConnectionError):
    """The other side does not hold the key (or did not answer the challenge in time)."""


# -- folders, key, pointer -------------------------------------------------------------------------
def service_folder() -> Path:
    """Where the service keeps its socket, key and log by default (created 0700 by the service)."""
    runtime = os.environ.get("XDG_RUNTIME_DIR")
    return Path(runtime) / "mutreal" if runtime else Path.home() / ".cache" / "mutreal"


def _refuse(path: Path, problem: str, fix: str) -> UnsafeServicePath:
    return UnsafeServicePath(f"{path}: {problem}; the worker service does not trust it ({fix})")


def check_folder(path: Path, private: bool) -> None:
    """Refuse a folder the user does not own, that others can write (or, ``private``, even enter)."""
    info = os.stat(path)
    if not stat.S_ISDIR(info.st_mode):
        raise _refuse(path, "not a folder", "remove it")
    if info.st_uid != os.getuid():
        raise _refuse(path, f"owned by uid {info.st_uid}, not by you (uid {os.getuid()})", "use another path")
    mode = stat.S_IMODE(info.st_mode)
    if mode & (0o077 if private else 0o022):
        needed = "only you may access it" if private else "only you may write into it"
        raise _refuse(path, f"mode {mode:04o}: {needed}", f"`chmod 700 {path}` if it is yours")


def ensure_folder(path: Path, private: bool = True) -> Path:
    """Create ``path`` with mode 0700 (parents as usual) or check the existing one (see above)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with contextlib.suppress(FileExistsError):
        os.mkdir(path, 0o700)
    check_folder(path, private)
    return path


def _check_own_file(path: Path, info: os.stat_result, what: str) -> None:
    if not stat.S_ISREG(info.st_mode):
        raise _refuse(path, f"the {what} is not a regular file", "remove it")
    if info.st_uid != os.getuid():
        raise _refuse(path, f"the {what} is owned by uid {info.st_uid}, not by you", "remove it")
    if stat.S_IMODE(info.st_mode) & 0o077:
        raise _refuse(
            path, f"others may access the {what} (mode {stat.S_IMODE(info.st_mode):04o})", "remove it"
        )


def create_key(path: Path) -> bytes:
    """A fresh key in a file created exclusively, mode 0600; a stale key of the user's own (a killed
    service) is replaced, anything else at that path is refused."""
    with contextlib.suppress(FileNotFoundError):
        info = os.lstat(path)
        _check_own_file(path, info, "key file")
        os.unlink(path)
    key = secrets.token_bytes(32)
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC, 0o600)
    with os.fdopen(fd, "wb") as handle:
        handle.write(key)
    return key


def read_own_file(path: Path, what: str) -> bytes:
    """The bytes of a file that only the user can have written (no links followed); else refused."""
    fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_CLOEXEC)
    with os.fdopen(fd, "rb") as handle:
        _check_own_file(path, os.fstat(handle.fileno()), what)
        return handle.read()


def open_log(path: Path) -> int:
    """A file descriptor of the service's log, created 0600 without following links."""
    with contextlib.suppress(FileNotFoundError):
        _check_own_file(path, os.lstat(path), "log file")
    return os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_NOFOLLOW | os.O_CLOEXEC, 0o600)


def _fits(path: Path) -> bool:
    return len(os.fsencode(str(path))) <= MAX_SOCKET_PATH


def client_address() -> Path:
    """The default socket as clients find it: in the service folder, or where its pointer says."""
    folder = service_folder()
    address = folder / SOCKET_NAME
    if _fits(address):
        return address
    pointer = folder / POINTER_NAME
    try:
        check_folder(folder, private=True)
        text = read_own_file(pointer, "pointer file").decode("utf-8", "replace").strip()
    except FileNotFoundError:
        return address  # no service wrote one: the caller reports "no service at ..."
    target = Path(text)
    if not target.is_absolute():
        raise _refuse(pointer, "the pointer file does not hold an absolute socket path", "remove it")
    with contextlib.suppress(FileNotFoundError):  # a pointer left by a killed service: none runs
        check_folder(target.parent, private=True)
    return target


def service_address(explicit: Path | None) -> tuple[Path, Path | None]:
    """The socket the service listens at (its folder made or checked) and the pointer to write.

    ``explicit`` (``--address``, ``$MUTREAL_WORKERS``): its folder may be world-traversable (the
    socket itself is 0600 and peers are checked) but must be the user's and writable only by them.
    """
    if explicit is not None:
        if not _fits(explicit):
            raise UnsafeServicePath(f"{explicit}: longer than {MAX_SOCKET_PATH} bytes, too long for a socket")
        ensure_folder(explicit.parent, private=False)
        return explicit, None
    folder = ensure_folder(service_folder(), private=True)
    if _fits(folder / SOCKET_NAME):
        return folder / SOCKET_NAME, None
    for parent in (None, "/tmp"):
        private = Path(tempfile.mkdtemp(prefix="mutreal-workers-", dir=parent))  # 0700, fresh name
        if _fits(private / SOCKET_NAME):
            return private / SOCKET_NAME, folder / POINTER_NAME
        private.rmdir()
    raise UnsafeServicePath(f"{folder}: no socket path short enough here or in /tmp; give --address")


def write_pointer(pointer: Path, address: Path) -> None:
    """Write the pointer atomically (a reader never sees half a path)."""
    fd, temporary = tempfile.mkstemp(dir=pointer.parent, prefix=".where-")
    with os.fdopen(fd, "w", encoding="utf-8") as handle:
        handle.write(f"{address}\n")
    os.replace(temporary, pointer)


def remove_pointer(pointer: Path, address: Path) -> None:
    """Remove the pointer if it still names this service (a newer service may have replaced it)."""
    with contextlib.suppress(OSError, UnsafeServicePath):
        if read_own_file(pointer, "pointer file").decode("utf-8", "replace").strip() == str(address):
            pointer.unlink()


def remove_stale_socket(address: Path) -> None:
    """Remove the user's own socket of a service that was killed; refuse to remove anything else."""
    try:
        info = os.lstat(address)
    except FileNotFoundError:
        return
    if not stat.S_ISSOCK(info.st_mode) or info.st_uid != os.getuid():
        raise _refuse(address, "something that is not your socket is at the service's address", "remove it")
    address.unlink()


# -- peers -----------------------------------------------------------------------------------------
def peer_credentials(sock: socket.socket) -> tuple[int | None, int]:
    """(pid, uid) of the process at the other end of a connected Unix socket, from the kernel."""
    if hasattr(socket, "SO_PEERCRED"):  # Linux
        pid, uid, _ = struct.unpack("3i", sock.getsockopt(socket.SOL_SOCKET, socket.SO_PEERCRED, 12))
        return pid, uid
    if hasattr(socket, "LOCAL_PEERCRED"):  # macOS, BSD: struct xucred {u_int version; uid_t uid; ...}
        _, uid = struct.unpack("Ii", sock.getsockopt(0, socket.LOCAL_PEERCRED, 76)[:8])
        return None, uid
    raise UnsafeServicePath("this platform cannot tell who is at the other end of a socket")


# -- messages --------------------------------------------------------------------------------------
class Channel:
    """Length-prefixed JSON objects over a connected socket (4-byte big-endian length, UTF-8 JSON)."""

    def __init__(self, sock: socket.socket, max_bytes: int = HANDSHAKE_MAX_BYTES) -> None:
        self.sock = sock
        self.max_bytes = max_bytes

    def send(self, message: dict[str, Any]) -> None:
        data = json.dumps(message, separators=(",", ":")).encode("utf-8")
        if len(data) > MESSAGE_MAX_BYTES:
            raise ValueError(f"a message of {len(data)} bytes is over the {MESSAGE_MAX_BYTES} limit")
        self.sock.sendall(_HEADER.pack(len(data)) + data)

    def _exactly(self, count: int) -> bytes:
        parts, left = [], count
        while left:
            chunk = self.sock.recv(min(left, 1 << 20))
            if not chunk:
                raise EOFError("the other side closed the connection")
            parts.append(chunk)
            left -= len(chunk)
        return b"".join(parts)

    def recv(self, timeout_s: float | None = None) -> dict[str, Any]:
        """The next message; :class:`MalformedMessage` for anything but one JSON object."""
        self.sock.settimeout(timeout_s)
        try:
            (length,) = _HEADER.unpack(self._exactly(_HEADER.size))
            if length > self.max_bytes:
                raise MalformedMessage(f"a message of {length} bytes is over the {self.max_bytes} limit")
            data = self._exactly(length)
        finally:
            self.sock.settimeout(None)
        try:
            message = json.loads(data.decode("utf-8"))
        except (UnicodeDecodeError, ValueError, RecursionError) as error:
            raise MalformedMessage(f"not a JSON message ({type(error).__name__})") from None
        if not isinstance(message, dict):
            raise MalformedMessage(f"a JSON {type(message).__name__}, not an object")
        return message

    def poll(self, timeout_s: float) -> bool:
        """Whether something (a message or the end of the connection) can be read now."""
        return bool(select.select([self.sock], [], [], timeout_s)[0])

    def close(self) -> None:
        self.sock.close()

    def __enter__(self) -> Channel:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def _mac(key: bytes, role: str, nonce: str) -> str:
    return hmac.new(key, f"{PROTOCOL}:{role}:{nonce}".encode(), hashlib.sha256).hexdigest()


def _nonce_of(message: dict[str, Any], kind: str) -> str:
    nonce = message.get("nonce")
    if message.get("type") != kind or not isinstance(nonce, str) or len(nonce) != 64:
        raise HandshakeFailed(f"expected a {kind} with a nonce, got {message.get('type')!r}")
    return nonce


def server_handshake(channel: Channel, key: bytes) -> None:
    """Challenge the client; answer its challenge; then allow full-size messages."""
    nonce = secrets.token_hex(32)
    channel.send({"type": "challenge", "protocol": PROTOCOL, "nonce": nonce})
    try:
        answer = channel.recv(HANDSHAKE_TIMEOUT_S)
    except (TimeoutError, MalformedMessage) as error:
        raise HandshakeFailed(str(error) or "no answer in time") from None
    client_nonce = _nonce_of(answer, "answer")
    if not hmac.compare_digest(str(answer.get("mac")), _mac(key, "client", nonce)):
        channel.send({"type": "error", "kind": "auth", "message": "wrong key"})
        raise HandshakeFailed("a client without the key")
    channel.send({"type": "welcome", "mac": _mac(key, "server", client_nonce)})
    channel.max_bytes = MESSAGE_MAX_BYTES


def client_handshake(channel: Channel, key: bytes) -> None:
    """Answer the service's challenge and check that it holds the key too."""
    try:
        challenge = channel.recv(HANDSHAKE_TIMEOUT_S)
        if challenge.get("protocol") != PROTOCOL:
            raise HandshakeFailed(f"the service speaks {challenge.get('protocol')!r}, not {PROTOCOL}")
        nonce = secrets.token_hex(32)
        channel.send({"type": "answer", "mac": _mac(key, "client", _nonce_of(challenge, "challenge")),
                      "nonce": nonce})  # fmt: skip
        welcome = channel.recv(HANDSHAKE_TIMEOUT_S)
    except (TimeoutError, MalformedMessage) as error:
        raise HandshakeFailed(str(error) or "no answer in time") from None
    if welcome.get("type") != "welcome" or not hmac.compare_digest(
        str(welcome.get("mac")), _mac(key, "server", nonce)
    ):
        raise HandshakeFailed("the service did not prove that it holds the key")
    channel.max_bytes = MESSAGE_MAX_BYTES
