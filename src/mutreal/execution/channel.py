"""The worker's channel to its parent: JSON messages only, never pickle.

The program under test runs inside the worker process and can write anything on the worker's socket.
``multiprocessing``'s ``send``/``recv`` pickle, and unpickling runs code: a program could make the
parent (the campaign, the worker service, a Ray actor) execute anything. Here every message is one
length-prefixed frame (``Connection.send_bytes``) holding UTF-8 JSON: numbers, strings, lists and
dicts. A frame that is not JSON, or not a JSON object, raises :class:`ChannelError` and the parent
treats the worker as broken.
"""

from __future__ import annotations

import json
import math
from typing import Any

#: The largest message accepted (a result with per-input predictions of 100,000 inputs is ~2 MB).
MAX_MESSAGE_BYTES = 256 * 1024 * 1024


class ChannelError(RuntimeError):
    """The other side sent something that is not a JSON object (a forged or corrupted message)."""


def _plain(value: Any) -> Any:
    """NumPy scalars and arrays (and other number-likes) as plain JSON values."""
    if hasattr(value, "tolist"):
        return value.tolist()
    if hasattr(value, "__float__"):
        number = float(value)
        return number if math.isfinite(number) else str(number)
    return str(value)


def encode(message: dict[str, Any]) -> bytes:
    """One message as JSON bytes (NaN and infinities kept: a diverged run is data)."""
    return json.dumps(message, default=_plain).encode("utf-8")


def decode(data: bytes) -> dict[str, Any]:
    """The message in ``data``; :class:`ChannelError` unless it is a JSON object."""
    try:
        message = json.loads(data.decode("utf-8"))
    except (UnicodeDecodeError, ValueError) as error:
        raise ChannelError(f"the worker sent a message that is not JSON ({error})") from None
    if not isinstance(message, dict):
        raise ChannelError(f"the worker sent a JSON {type(message).__name__}, not an object")
    return message


def send(conn: Any, message: dict[str, Any]) -> None:
    """Send one JSON message on a ``multiprocessing.connection.Connection``."""
    conn.send_bytes(encode(message))


def recv(conn: Any) -> dict[str, Any]:
    """Receive one JSON message (raises EOFError/OSError when the other side is gone)."""
    try:
        data = conn.recv_bytes(MAX_MESSAGE_BYTES)
    except OSError as error:
        if "bad message length" in str(error):
            raise ChannelError("the worker sent a frame with a bad length") from None
        raise
    return decode(data)
