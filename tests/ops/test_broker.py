"""The embedded broker (kombu ``filesystem://`` with `core.broker.FilesystemTransport`) never shows a
worker a message half written; kombu's stock filesystem transport does."""

from __future__ import annotations

import builtins
import multiprocessing
import os
import time
from typing import Any

import pytest
from kombu import Connection
from kombu.transport import filesystem

from core import broker

STOCK = "kombu.transport.filesystem:Transport"
OURS = "core.broker:FilesystemTransport"


def _connection(folder: str, transport: str) -> Connection:
    options = {"data_folder_in": folder, "data_folder_out": folder}
    return Connection("filesystem://", transport=transport, transport_options=options)


class _PollingWhileWriting:
    """Wraps ``open`` in the module that writes messages: the moment a file is opened for writing,
    and again just before its bytes are written, a worker polls the queue. What it got is kept."""

    def __init__(self, reader: Any, queue: str) -> None:
        self.reader, self.queue = reader, queue
        self.seen: list[object] = []

    def poll(self) -> None:
        try:
            self.seen.append(self.reader._get(self.queue))
        except filesystem.Empty:
            self.seen.append("empty")
        except Exception as exc:  # a message read before it was written
            self.seen.append(exc)

    def open(self, path: str, mode: str = "r", *args: Any, **kwargs: Any) -> Any:
        handle = builtins.open(path, mode, *args, **kwargs)  # noqa: SIM115  (returned to the caller)
        if "w" not in mode:
            return handle
        polling = self

        class Interposed:
            def write(self, data: bytes) -> int:
                polling.poll()  # the file exists under its name, still empty
                return handle.write(data)

            def __getattr__(self, name: str) -> Any:
                return getattr(handle, name)

            def __enter__(self) -> Interposed:
                return self

            def __exit__(self, *exc: object) -> None:
                handle.close()

        return Interposed()


@pytest.mark.parametrize(("transport", "module"), [(STOCK, filesystem), (OURS, broker)])
def test_a_reader_polling_while_a_message_is_written(tmp_path, monkeypatch, transport, module):
    """Deterministic: a worker polls between the file's creation and its bytes. kombu's stock
    transport shows it the empty file (which it moves away and cannot decode: the message is lost
    and the worker ends); ours shows it nothing until the message is whole."""
    with _connection(str(tmp_path), transport) as writer, _connection(str(tmp_path), transport) as reader:
        interposed = _PollingWhileWriting(reader.default_channel, "timers")
        monkeypatch.setattr(module, "open", interposed.open, raising=False)  # the module's `open`, not builtins'
        writer.default_channel._put("timers", {"n": 1})
        monkeypatch.undo()
        if transport == STOCK:
            assert len(interposed.seen) == 1 and isinstance(interposed.seen[0], ValueError)  # JSONDecodeError
            assert reader.default_channel._size("timers") == 0  # and the message is gone
        else:
            assert interposed.seen == ["empty"]
            assert reader.default_channel._size("timers") == 1
            assert reader.default_channel._get("timers") == {"n": 1}
            assert os.listdir(tmp_path) == []  # no partial file left behind


def test_the_settings_choose_this_transport_for_the_embedded_default(settings):
    """What a worker of `make run` connects with (tests/games/test_broker.py checks it in a fresh process)."""
    from config.celery import app

    if not settings.CELERY_BROKER_URL.startswith("filesystem://"):
        pytest.skip("the tests run on another broker (CELERY_BROKER_URL)")
    transport = app.connection_for_read().transport
    assert isinstance(transport, broker.FilesystemTransport)
    assert transport.Channel is broker.FilesystemChannel


def _write(folder: str, start: int, sent: int) -> None:
    with _connection(folder, OURS) as conn:
        for i in range(start, sent, 2):
            conn.default_channel._put("bots", {"n": i})


def test_writer_processes_and_a_reader_lose_and_corrupt_nothing(tmp_path):
    """Two processes write while this one reads: every message arrives once, whole. (Against kombu's
    stock ``_put`` a read found an empty file 3 times in 4,000 in one run of this workload outside
    pytest; that is timing-dependent, so `test_a_reader_polling_while_a_message_is_written` pins it.)"""
    folder = str(tmp_path)
    sent, got, errors = 4000, [], []
    fork = multiprocessing.get_context("fork")
    writers = [fork.Process(target=_write, args=(folder, k, sent)) for k in range(2)]
    with _connection(folder, OURS) as conn:
        chan = conn.default_channel
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

    options = filesystem_broker(tmp_path / "fresh" / "broker")
    with Connection("filesystem://", transport=OURS, transport_options=options) as conn:
        chan = conn.default_channel
        chan._put("timers", {"n": 1})
        assert chan._get("timers") == {"n": 1}
    assert sorted(p.name for p in (tmp_path / "fresh" / "broker").iterdir()) == ["control", "processed", "queue"]
