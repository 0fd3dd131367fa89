"""The row locks writers take never block another transaction's foreign-key check.

PostgreSQL checks a foreign key (Django makes them ``DEFERRABLE INITIALLY DEFERRED``) at COMMIT by
locking the referenced row ``FOR KEY SHARE``. ``FOR UPDATE`` blocks that; ``FOR NO KEY UPDATE``
does not. With ``FOR UPDATE`` on a user row, a match created with bots (which notifies its creator)
and a bot's move (which had notified the same user) deadlocked in CI's fuzz run; here the second
transaction would wait out its ``lock_timeout`` and fail.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager

import pytest
from django.db import connection, connections, transaction
from django.utils import timezone

from games.models import Match
from games.services import lobby, writes
from notify.models import Notification

pytestmark = [
    pytest.mark.django_db(transaction=True),
    pytest.mark.postgresql,  # row locks are PostgreSQL's (SQLite locks the whole file)
]


@contextmanager
def _held(lock: Callable[[], object]) -> Iterator[None]:
    """Run ``lock`` in a transaction on another thread (its own connection) and keep it open."""
    taken, release = threading.Event(), threading.Event()
    failure: list[BaseException] = []

    def hold() -> None:
        try:
            with transaction.atomic():
                lock()
                taken.set()
                release.wait(timeout=20)
        except BaseException as exc:  # reported below
            failure.append(exc)
            taken.set()
        finally:
            connections.close_all()

    thread = threading.Thread(target=hold)
    thread.start()
    assert taken.wait(timeout=20)
    try:
        assert not failure, failure
        yield
    finally:
        release.set()
        thread.join(timeout=20)


def _insert_referencing(match: Match, user_id: int) -> None:
    """A notification for ``user_id`` about ``match``: both foreign keys are checked at COMMIT."""
    with transaction.atomic():
        with connection.cursor() as cursor:
            cursor.execute("SET LOCAL lock_timeout = '2s'")
        Notification.objects.create(
            user_id=user_id, seq=10_000, type="invited", match=match, payload={}, created_at=timezone.now()
        )


@pytest.fixture
def match(make_user) -> Match:
    return lobby.match_create(user=make_user("ann"), game="ekko", players=2)


def test_a_match_lock_lets_a_row_that_references_the_match_commit(match):
    with _held(lambda: writes.lock(match.id)):
        _insert_referencing(match, match.created_by_id)
    assert Notification.objects.filter(match=match, seq=10_000).count() == 1


def test_the_quota_lock_on_a_user_lets_a_row_that_references_the_user_commit(match):
    creator = match.created_by
    with _held(lambda: lobby._check_quotas(creator, with_bots=True)):
        _insert_referencing(match, creator.pk)
    assert Notification.objects.filter(user=creator, seq=10_000).count() == 1


def test_two_writers_of_one_match_still_wait_for_each_other(match):
    """NO KEY UPDATE conflicts with itself: the lock still serialises the match's writers."""
    from django.db.utils import OperationalError

    with _held(lambda: writes.lock(match.id)), pytest.raises(OperationalError, match="lock"), transaction.atomic():
        with connection.cursor() as cursor:
            cursor.execute("SET LOCAL lock_timeout = '200ms'")
        writes.lock(match.id)


def test_the_lock_joined_to_the_seats_locks_the_match_row_only(match):
    """`_locked` reads the seats in the same statement, but locks only the match: a writer of the
    match waits, a writer of one of its seats does not."""
    from django.db.utils import OperationalError

    from games.models import Seat

    with _held(lambda: writes.locked(match.id)):
        with transaction.atomic():
            with connection.cursor() as cursor:
                cursor.execute("SET LOCAL lock_timeout = '2s'")
            assert Seat.objects.filter(match=match, index=0).update(consecutive_timeouts=1) == 1
        with pytest.raises(OperationalError, match="lock"), transaction.atomic():
            with connection.cursor() as cursor:
                cursor.execute("SET LOCAL lock_timeout = '200ms'")
            writes.lock(match.id)
