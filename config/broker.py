"""The embedded default's broker (kombu's ``filesystem://``), with messages written atomically.

kombu 5.5's filesystem transport creates a message's file under its final name and only then
writes it; a worker polling the folder in between moves the empty file away and fails to decode it
(``JSONDecodeError``), which ends the worker with "Unrecoverable error" (seen under `make run`: a
bot task queued a timer while the timers worker polled). Here a message is written to a hidden
partial file first, which no queue matches, and renamed to its final name once complete: a reader
sees a whole message or nothing. And kombu expects the folders its transport options name to exist:
here connecting makes them (the settings name them, they create nothing). Installed when
`config.celery` is imported, so in every process that sends or receives tasks.
"""

from __future__ import annotations

import os
import uuid
from contextlib import suppress
from pathlib import Path
from time import monotonic
from typing import Any

from kombu.exceptions import ChannelError
from kombu.transport import filesystem
from kombu.utils.encoding import str_to_bytes
from kombu.utils.json import dumps


def _put(self: filesystem.Channel, queue: str, payload: Any, **kwargs: Any) -> None:
    """Put ``payload`` onto ``queue``: written whole under a name no queue matches, then renamed."""
    name = f"{round(monotonic() * 1000)}_{uuid.uuid4()}.{queue}.msg"  # kombu's own naming
    final = os.path.join(self.data_folder_out, name)
    partial = os.path.join(self.data_folder_out, f".partial-{uuid.uuid4().hex}")
    try:
        with open(partial, "wb", buffering=0) as f:
            f.write(str_to_bytes(dumps(payload)))
        os.replace(partial, final)  # atomic on POSIX: the folder shows the whole file or none
    except OSError:
        with suppress(OSError):
            os.remove(partial)
        raise ChannelError(f"Cannot add file {final!r} to directory") from None


_FOLDERS = ("data_folder_in", "data_folder_out", "processed_folder", "control_folder")
_establish_connection = filesystem.Transport.establish_connection


def _connect(self: filesystem.Transport) -> filesystem.Transport:
    """Connect: make the folders the transport options name, then kombu's own connect."""
    options: dict[str, Any] = getattr(self.client, "transport_options", None) or {}
    for key in _FOLDERS:
        if options.get(key):
            Path(options[key]).mkdir(parents=True, exist_ok=True)
    return _establish_connection(self)


def install() -> None:
    filesystem.Channel._put = _put  # type: ignore[method-assign]
    filesystem.Transport.establish_connection = _connect  # type: ignore[method-assign,assignment]
