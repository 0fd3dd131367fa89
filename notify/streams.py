"""Live streams (Server-Sent Events) of a user's inbox and of a match's records, for async views.

One `Hub` per process wakes the streams it holds: with Redis, one pattern subscription to the
channels `notify.fanout` publishes on; on the embedded default, one poll of the inbox and record
tables by primary key every ``TABULA_STREAM_POLL_S`` for all streams together (the records through
the registered `notify.registry.Matches`). A woken stream reads what it has not sent yet from the
database and sends it; every ``TABULA_STREAM_KEEPALIVE_S`` it sends a comment and re-reads anyway
(so a lost wake-up costs at most one keep-alive interval).

**Database connections.** Every read of every stream runs on one small pool of
``TABULA_STREAM_READ_THREADS`` threads per process (`read`), each keeping one connection: however
many streams are open, they hold at most that many connections between them, and none between
reads. (``sync_to_async`` would run each stream's reads on a thread of the request's own, whose
connection outlived the stream: a hundred viewers exhausted PostgreSQL.)

**Authorisation on every delivery.** Before each read a stream asks its ``allowed`` check again
(the token or the user still valid, the match still visible); when the answer is no, it sends a
final ``closed`` event with the reason and ends.
"""

from __future__ import annotations

import asyncio
import functools
import json
import logging
import threading
import time
from collections import defaultdict, deque
from collections.abc import AsyncGenerator, Callable
from concurrent import futures
from concurrent.futures import ThreadPoolExecutor
from typing import Any, TypeVar

from django.conf import settings
from django.core.cache import cache
from django.db import close_old_connections, connections

from accounts.models import User
from core import metrics
from notify import fanout, inbox, mail, preferences, registry
from notify.models import Notification

log = logging.getLogger(__name__)
PAGE = 200
T = TypeVar("T")
_READS: ThreadPoolExecutor | None = None


async def read(fn: Callable[..., T], *args: Any) -> T:
    """``fn(*args)`` on the streams' pool of database threads (`TABULA_STREAM_READ_THREADS`)."""
    global _READS
    if _READS is None:
        _READS = ThreadPoolExecutor(max_workers=settings.TABULA_STREAM_READ_THREADS, thread_name_prefix="stream-read")
    return await asyncio.get_running_loop().run_in_executor(_READS, functools.partial(fn, *args))


def close_reads() -> None:
    """Close the read threads' database connections and end the threads (a server's shutdown, a
    test's end); the next `read` starts the pool again."""
    global _READS
    pool, _READS = _READS, None
    if pool is None:
        return
    size = settings.TABULA_STREAM_READ_THREADS
    together = threading.Barrier(size)

    def close() -> None:  # one on each thread: each waits until all the others hold a thread too
        try:
            together.wait(timeout=5)
        finally:
            connections.close_all()

    futures.wait([pool.submit(close) for _ in range(size)], timeout=10)
    pool.shutdown(wait=True)


class Hub:
    def __init__(self) -> None:
        self.waiters: dict[str, set[asyncio.Event]] = defaultdict(set)
        self.task: asyncio.Task[None] | None = None
        self.loop: asyncio.AbstractEventLoop | None = None

    def subscribe(self, key: str) -> asyncio.Event:
        self._start()
        event = asyncio.Event()
        self.waiters[key].add(event)
        return event

    def unsubscribe(self, key: str, event: asyncio.Event) -> None:
        waiters = self.waiters.get(key)
        if waiters is not None:
            waiters.discard(event)
            if not waiters:
                del self.waiters[key]

    def wake(self, key: str) -> None:
        for event in self.waiters.get(key, ()):
            event.set()

    def _start(self) -> None:
        loop = asyncio.get_running_loop()
        if self.task is not None and not self.task.done() and self.loop is loop:
            return
        self.loop = loop
        self.task = loop.create_task(self._redis() if fanout.redis_url() else self._poll())

    async def _redis(self) -> None:
        import redis.asyncio as aioredis

        while True:
            client = aioredis.Redis.from_url(fanout.redis_url())
            try:
                pubsub = client.pubsub()
                await pubsub.psubscribe("tabula:u:*", "tabula:m:*")
                for key in list(self.waiters):  # what was published before the subscription: re-read
                    self.wake(key)
                async for message in pubsub.listen():
                    if message.get("type") != "pmessage":
                        continue
                    channel = message["channel"].decode()
                    self.wake(channel.removeprefix("tabula:"))
            except asyncio.CancelledError:
                raise
            except Exception:
                log.warning("stream hub lost Redis; reconnecting", exc_info=True)
                for key in list(self.waiters):  # streams re-read: nothing is missed
                    self.wake(key)
                await asyncio.sleep(1)
            finally:
                await client.aclose()

    async def _poll(self) -> None:
        last = await read(_high_water)
        while True:
            await asyncio.sleep(settings.TABULA_STREAM_POLL_S)
            if not self.waiters:
                continue
            try:
                last, keys = await read(_changes, last)
            except Exception:
                log.warning("stream poll failed", exc_info=True)
                continue
            for key in keys:
                self.wake(key)


Marks = tuple[int, int, dict[str, int]]  # the last inbox entry, record and row of each `registry.Source`


def _high_water() -> Marks:
    try:
        n = Notification.objects.order_by("-pk").values_list("pk", flat=True).first() or 0
        return n, registry.matches().last_record(), {name: s.last() for name, s in registry.sources().items()}
    finally:
        close_old_connections()


def _changes(last: Marks) -> tuple[Marks, set[str]]:
    n, r, others = last
    keys: set[str] = set()
    for pk, user_id in Notification.objects.filter(pk__gt=n).order_by("pk").values_list("pk", "user_id")[:5000]:
        n = pk
        keys.add(f"u:{user_id}")
    for pk, match_id in registry.matches().records_after(r, 5000):
        r = pk
        keys.add(f"m:{match_id}")
    others = dict(others)
    for name, source in registry.sources().items():
        mark = others.get(name)
        if mark is None:  # registered after the poll started
            others[name] = source.last()
            continue
        for pk, key in source.after(mark, 5000):
            others[name] = pk
            keys.add(key)
    return (n, r, others), keys


HUB = Hub()


# --- caps -----------------------------------------------------------------------------------------


class Caps:
    """The open streams of this process, under ``TABULA_STREAMS_PER_PROCESS`` in all and
    ``TABULA_STREAMS_PER_USER`` each. Places are taken on the event loop and may be given back from
    another thread (a response closed by Django in a thread of its own): a lock keeps the counts."""

    def __init__(self) -> None:
        self.total = 0
        self.per_user: dict[int, int] = defaultdict(int)
        self.lock = threading.Lock()
        self.orphans: deque[Lease] = deque()

    def lease(self, user_id: int) -> Lease | str:
        """A place for one more stream of ``user_id``; else which cap refused it (``process``, ``user``)."""
        self.collect_orphans()
        with self.lock:
            if self.total >= settings.TABULA_STREAMS_PER_PROCESS:
                return "process"
            if self.per_user[user_id] >= settings.TABULA_STREAMS_PER_USER:
                return "user"
            self.total += 1
            self.per_user[user_id] += 1
            metrics.OPEN_STREAMS.set(self.total)
        return Lease(self, user_id)

    def orphaned(self, lease: Lease) -> None:
        """``lease``'s stream was dropped unsent, as the garbage collector found: it is given back
        at the next `lease`. The collector runs at any allocation, whatever lock that thread holds
        (this one's, a metric's), so nothing is locked here: a deque's append is atomic."""
        self.orphans.append(lease)

    def collect_orphans(self) -> None:
        while self.orphans:
            try:
                lease = self.orphans.popleft()
            except IndexError:  # another thread took the last
                return
            lease.release()

    def _give_back(self, user_id: int) -> None:
        self.total -= 1
        self.per_user[user_id] -= 1
        if self.per_user[user_id] <= 0:
            del self.per_user[user_id]
        metrics.OPEN_STREAMS.set(self.total)


class Lease:
    """One stream's place under the `Caps`. A stream can end in several ways (its body ends or is
    closed, its response is closed unsent, its view is cancelled before it answers) and more than one
    of them may say so: the place is given back once, on the first."""

    __slots__ = ("caps", "held", "user_id")

    def __init__(self, caps: Caps, user_id: int) -> None:
        self.caps, self.user_id, self.held = caps, user_id, True

    def release(self) -> None:
        with self.caps.lock:
            if not self.held:
                return
            self.held = False
            self.caps._give_back(self.user_id)


CAPS = Caps()


# --- SSE ------------------------------------------------------------------------------------------


def sse(id: int | str, event: str, data: Any) -> str:
    return f"id: {id}\nevent: {event}\ndata: {json.dumps(data, separators=(',', ':'))}\n\n"


Row = tuple[Any, int | str, str, Any]  # the cursor after this event, its SSE id, its type, its data


def _inbox_page(user_id: int, after: int) -> list[Row]:
    """The next entries of the user's inbox whose types they send to ``stream`` (`notify.preferences`)."""
    try:
        prefs = User.objects.filter(pk=user_id).values_list("preferences", flat=True).first()
        chosen = (prefs or {}).get("channels") if isinstance(prefs, dict) else None
        types = None if not chosen else [t for t in registry.types() if preferences.wants(prefs, t, "stream")]
        rows = inbox.inbox(user_id, after=after, limit=PAGE, types=types)
        return [(n.seq, n.seq, n.type, n.to_json()) for n in rows]
    finally:
        close_old_connections()


def _match_page(match_id: str, user_id: int, after: int) -> list[Row]:
    try:
        events = registry.matches().events(match_id, user_id, after, PAGE)
        return [(e["seq"], e["seq"], e["type"], e) for e in events]
    finally:
        close_old_connections()


def _mark_streaming(user_id: int) -> None:
    try:
        cache.set(mail.streaming_key(user_id), 1, timeout=int(settings.TABULA_STREAM_KEEPALIVE_S * 3))
    except Exception:
        log.warning("could not mark user %s as streaming", user_id, exc_info=True)


def closed(reason: str) -> str:
    """The last event of a stream whose reader may no longer see it."""
    return f"event: closed\ndata: {json.dumps({'reason': reason})}\n\n"


Page = Callable[[Any], list[Row]]  # the rows after a cursor (an inbox or record number, or the caller's own)
Allowed = Callable[[], str | None]


def _step(page: Page, allowed: Allowed, after: Any) -> tuple[str | None, list[Row]]:
    """Why the stream must end (None: it may go on), else the next page: one trip to the pool."""
    try:
        refused = allowed()
        return refused, ([] if refused else page(after))
    finally:
        close_old_connections()


async def events(key: str, page: Page, after: Any, lease: Lease, allowed: Allowed) -> AsyncGenerator[str, None]:
    """The SSE body: a comment at once, what was missed after the cursor ``after``, then live entries
    and keep-alives, until ``allowed`` gives a reason to stop (a final ``closed`` event). A page
    shorter than `PAGE` rows is the end of what there is. Its end, or its ``aclose()``, gives
    ``lease`` back."""
    user_id = lease.user_id
    waiter = HUB.subscribe(key)
    started = time.monotonic()
    try:
        yield "retry: 2000\n: connected\n\n"
        await read(_mark_streaming, user_id)
        while time.monotonic() - started < settings.TABULA_STREAM_MAX_LIFE_S:
            waiter.clear()
            refused, rows = await read(_step, page, allowed, after)
            if refused is not None:
                yield closed(refused)
                return
            for cursor, id, type, data in rows:
                yield sse(id, type, data)
                after = cursor
            if len(rows) == PAGE:
                continue
            try:
                await asyncio.wait_for(waiter.wait(), timeout=settings.TABULA_STREAM_KEEPALIVE_S)
            except TimeoutError:
                yield ": keep-alive\n\n"
                await read(_mark_streaming, user_id)
    finally:
        HUB.unsubscribe(key, waiter)
        lease.release()


def inbox_events(lease: Lease, after: int, allowed: Allowed) -> AsyncGenerator[str, None]:
    """The inbox of the lease's user."""
    user_id = lease.user_id
    return events(f"u:{user_id}", lambda a: _inbox_page(user_id, a), after, lease, allowed)


def match_events(
    match_id: str, lease: Lease, after: Any, allowed: Allowed, page: Page | None = None
) -> AsyncGenerator[str, None]:
    """A match's records as the lease's user may see them; ``page``: the caller's own pages of the
    match (the API adds chat messages to the records), with its own cursor."""
    user_id = lease.user_id
    default: Page = lambda a: _match_page(match_id, user_id, a)  # noqa: E731
    return events(f"m:{match_id}", page or default, after, lease, allowed)
