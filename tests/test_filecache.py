"""The embedded default's file cache (`core.filecache`): Django's, listing its folder to cull once in
`CULL_EVERY` writes, still bounded."""

from __future__ import annotations

import threading

import pytest

from core import filecache
from core.filecache import FileCache


@pytest.fixture
def every_five(monkeypatch):
    monkeypatch.setattr(filecache, "CULL_EVERY", 5)


def _cache(folder, max_entries=30) -> FileCache:
    return FileCache(str(folder), {"OPTIONS": {"MAX_ENTRIES": max_entries, "CULL_FREQUENCY": 3}})


def _files(folder) -> int:
    return len(list(folder.glob(f"*{FileCache.cache_suffix}")))


def test_it_lists_its_folder_once_in_a_number_of_writes_and_stays_bounded(tmp_path, every_five, monkeypatch):
    cache = _cache(tmp_path)
    listed = []
    list_files = FileCache._list_cache_files
    monkeypatch.setattr(FileCache, "_list_cache_files", lambda self: listed.append(1) or list_files(self))
    for i in range(200):
        cache.set(f"key-{i}", {"n": i})
        assert _files(tmp_path) <= 30 + 5  # never more than a round of writes past the bound
    assert len(listed) == 200 // 5  # the first write lists, then every fifth
    assert 10 <= _files(tmp_path) <= 35  # culled, as Django culls: a third at a time
    assert cache.get("key-199") == {"n": 199}  # the newest is there, whatever was culled


def test_the_count_is_the_folders_whatever_the_thread(tmp_path, every_five):
    """Each thread has its own cache object (Django's `caches`); they count the folder's writes together."""
    caches = []

    def write(n: int) -> None:
        cache = _cache(tmp_path)
        caches.append(cache)
        for i in range(40):
            cache.set(f"key-{n}-{i}", i)

    threads = [threading.Thread(target=write, args=(n,)) for n in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len({id(c._writes) for c in caches}) == 1  # one count for the folder
    assert _files(tmp_path) <= 30 + 5 * 4  # bounded, with at most a round per thread past it
    other = _cache(tmp_path / "elsewhere")
    assert other._writes is not caches[0]._writes  # another folder counts its own
