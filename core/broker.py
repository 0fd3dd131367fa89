"""The embedded default's broker: kombu's filesystem transport, with each message written atomically.

kombu 5.5's filesystem transport (``kombu.transport.filesystem``) creates a message's file under its
final name and only then writes it; a worker polling the folder in between moves the empty file away
and fails to decode it (``JSONDecodeError``), which ends the worker with "Unrecoverable error" (seen
under `make run`: a bot task queued a timer while the timers worker polled; kombu issue #1551 reports
the same error). This transport's channel writes a message to a hidden partial file first, which no
queue's name matches, and renames it to its final name once complete (atomic on POSIX): a reader sees
a whole message or nothing.

It is kombu's own transport otherwise (the same options, folders and file names), chosen by class
path: ``CELERY_BROKER_TRANSPORT = "core.broker:FilesystemTransport"`` with a ``filesystem://``
broker URL (kombu resolves a transport named ``module:Class``; the URL's scheme would pick the stock
one). The change is upstream-shaped: the same ``_put`` would replace kombu's.
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

PARTIAL_PREFIX = ".partial-"  # no queue matches it: `_get` and `_size` look for ".<queue>.msg"


class FilesystemChannel(filesystem.Channel):
    # kombu's filesystem Channel._put already differs from its base's signature; this one is kombu's.
    def _put(self, queue: str, payload: dict[str, Any], **kwargs: Any) -> None:  # type: ignore[override]
        """Put ``payload`` onto ``queue``: written whole under a name no queue matches, then renamed."""
        name = f"{round(monotonic() * 1000)}_{uuid.uuid4()}.{queue}.msg"  # kombu's own naming
        final = os.path.join(self.data_folder_out, name)
        partial = os.path.join(self.data_folder_out, f"{PARTIAL_PREFIX}{uuid.uuid4().hex}")
        try:
            with open(partial, "wb", buffering=0) as f:
                f.write(str_to_bytes(dumps(payload)))
            os.replace(partial, final)  # the folder shows the whole file or none
        except OSError:
            with suppress(OSError):
                os.remove(partial)
            raise ChannelError(f"Cannot add file {final!r} to directory") from None


FOLDERS = ("data_folder_in", "data_folder_out", "processed_folder", "control_folder")


class FilesystemTransport(filesystem.Transport):
    """kombu's filesystem transport with `FilesystemChannel`; connecting makes the folders its options
    name (kombu expects them to exist, and the settings create nothing on disk)."""

    Channel = FilesystemChannel

    def establish_connection(self) -> Any:
        options: dict[str, Any] = getattr(self.client, "transport_options", None) or {}
        for key in FOLDERS:
            if options.get(key):
                Path(options[key]).mkdir(parents=True, exist_ok=True)
        return super().establish_connection()
