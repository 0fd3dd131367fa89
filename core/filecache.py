"""Django's file cache, for the embedded default's two caches (config/settings/cache.py), with its
folder listed to cull once in `CULL_EVERY` writes instead of on every write.

Django's ``FileBasedCache.set`` lists the whole folder first, to see whether it holds
``MAX_ENTRIES`` files and delete some if it does. With the replay snapshots' folder near its 2,000
files, that listing was most of a cold ``GET state``'s time on the embedded default (1.7 ms of
about 4, profiled; issue 31). Here a process lists it on its first write and then on every
`CULL_EVERY`-th write to that folder (one count per folder, shared by the process's threads; a
thread's cache object is its own), and culls as Django does. A folder can so hold up to
``CULL_EVERY`` files per process past ``MAX_ENTRIES`` between two listings: the bound is still a
bound, a little looser.
"""

from __future__ import annotations

import itertools
import threading
from typing import Any

from django.core.cache.backends.filebased import FileBasedCache

CULL_EVERY = 50

_writes: dict[str, itertools.count[int]] = {}
_lock = threading.Lock()


class FileCache(FileBasedCache):
    def __init__(self, dir: str, params: dict[str, Any]) -> None:
        super().__init__(dir, params)
        with _lock:
            self._writes = _writes.setdefault(dir, itertools.count())

    def _cull(self) -> None:
        if next(self._writes) % CULL_EVERY == 0:
            super()._cull()  # type: ignore[misc]  # Django's own, not in its stubs
