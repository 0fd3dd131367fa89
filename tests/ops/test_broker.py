"""The embedded broker (kombu ``filesystem://``) never shows a worker a message half written."""

from __future__ import annotations

import json
import multiprocessing
import os
import time

import pytest
from kombu import Connection
from kombu.transport import filesystem

from config import broker


@pytest.fixture
def channel(tmp_path):
    broker.install()
    folder = tmp_path / "queue"
    folder.mkdir()
    options = {"data_folder_in": str(folder), "data_folder_out": str(folder)}
    with Connection("filesystem://", transport_options=options) as conn:
        yield conn.default_channel, folder


def test_the_patched_put_is_the_one_kombu_uses():
    broker.install()
    assert filesystem.Channel._put is broker._put


def test_a_message_is_invisible_until_it_is_whole(channel, monkeypatch):
    chan, folder = channel
    seen: list[object] = []
    rename = os.replace

    def replace(src, dst):  # the moment before the message appears under its name
        with open(src) as f:
            assert json.loads(f.read()) == {"n": 1}  # the partial file is complete
        try:
            seen.append(chan._get("timers"))
        except filesystem.Empty:
            seen.append("empty")
        rename(src, dst)

    monkeypatch.setattr(broker.os, "replace", replace)
    chan._put("timers", {"n": 1})
    assert seen == ["empty"]  # a worker polling then finds nothing, not an empty file
    assert chan._size("timers") == 1
    assert chan._get("timers") == {"n": 1}
    assert os.listdir(folder) == []  # no partial file left behind


def _write(folder: str, start: int, sent: int) -> None:
    options = {"data_folder_in": folder, "data_folder_out": folder}
    with Connection("filesystem://", transport_options=options) as conn:
        for i in range(start, sent, 2):
            conn.default_channel._put("bots", {"n": i})


def test_writer_processes_and_a_reader_lose_and_corrupt_nothing(channel):
    """Two processes write while this one reads. kombu's own ``_put`` let a read find an empty file
    now and then (3 reads in 4,000 in one run of this workload outside pytest; timing-dependent, so
    this test may pass against it); `test_a_message_is_invisible_until_it_is_whole` pins the cause."""
    chan, folder = channel
    sent, got, errors = 4000, [], []
    fork = multiprocessing.get_context("fork")
    writers = [fork.Process(target=_write, args=(str(folder), k, sent)) for k in range(2)]
    for w in writers:
        w.start()
    deadline = time.monotonic() + 60
    while len(got) + len(errors) < sent and time.monotonic() < deadline:
        try:
            got.append(chan._get("bots")["n"])
        except filesystem.Empty:
            continue
        except Exception as exc:  # a half-written message
            errors.append(exc)
    for w in writers:
        w.join(timeout=30)
    assert errors == []
    assert sorted(got) == list(range(sent))


def test_connecting_makes_the_folders_the_settings_name(tmp_path):
    """The settings only name the broker's folders; kombu expects them to exist (a send fails with
    "Cannot add file", a poll with FileNotFoundError): connecting makes them."""
    from config.settings.celery import filesystem_broker

    broker.install()
    options = filesystem_broker(tmp_path / "fresh" / "broker")
    with Connection("filesystem://", transport_options=options) as conn:
        chan = conn.default_channel
        chan._put("timers", {"n": 1})
        assert chan._get("timers") == {"n": 1}
    assert sorted(p.name for p in (tmp_path / "fresh" / "broker").iterdir()) == ["control", "processed", "queue"]
