"""Shared test configuration: hypothesis profiles (quick by default, deeper on CI), and the
``postgresql`` marker: a test that needs PostgreSQL is skipped on SQLite, and the run says loudly
at its end how many were, and that ``make test-pg`` runs them."""

from __future__ import annotations

import os

from hypothesis import settings

settings.register_profile("dev", max_examples=25, deadline=None)
settings.register_profile("ci", max_examples=120, deadline=None)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "dev"))

import pytest  # noqa: E402

POSTGRESQL_ONLY = "needs PostgreSQL (make test-pg runs it)"


# Scripts the ops tests run in processes of their own, against databases they start: never imported
# here (`--doctest-modules` would import them, and they would run).
collect_ignore = ["ops/replica_probe.py", "ops/pooler_probe.py"]


def pytest_configure(config):
    """The ``postgresql`` marker, and the SQLite test database's folder (var/ by default): the
    settings name it, they create nothing."""
    from pathlib import Path

    from django.conf import settings as django_settings

    config.addinivalue_line("markers", f"postgresql: the test {POSTGRESQL_ONLY}; skipped on SQLite")
    for database in django_settings.DATABASES.values():
        name = database.get("TEST", {}).get("NAME")
        if database["ENGINE"].endswith("sqlite3") and name:
            Path(name).parent.mkdir(parents=True, exist_ok=True)


def _on_sqlite() -> bool:
    from django.conf import settings

    return settings.DATABASES["default"]["ENGINE"] == "django.db.backends.sqlite3"


def pytest_collection_modifyitems(config, items):
    if not _on_sqlite():
        return
    for item in items:
        if item.get_closest_marker("postgresql") is not None:
            item.add_marker(pytest.mark.skip(reason=f"PostgreSQL only: {POSTGRESQL_ONLY}"))


def pytest_terminal_summary(terminalreporter, exitstatus, config):
    skipped = [r for r in terminalreporter.stats.get("skipped", []) if POSTGRESQL_ONLY in str(r.longrepr)]
    if skipped:
        terminalreporter.write_sep(
            "!",
            f"{len(skipped)} PostgreSQL-only tests were SKIPPED on SQLite: `make test-pg` runs them",
            yellow=True,
            bold=True,
        )


@pytest.fixture
def toy_game():
    """Register the toy engine (tests/toy.py) for the duration of one test."""
    from rules import RULES
    from tests import toy

    RULES["toy"] = toy.RULES
    yield toy.RULES
    RULES.pop("toy", None)


@pytest.fixture(autouse=True)
def _fresh_state_cache():
    """No test sees another's states: this process's, and the shared snapshots (a test's match may
    reuse an id another test gave a match played otherwise)."""
    from django.core.cache import caches

    from games import replay

    replay.forget_all()
    caches["replay"].clear()
    yield
    replay.forget_all()


@pytest.fixture(autouse=True)
def _reproducible_deals(request, monkeypatch):
    """Every run of a test deals the same matches. The services draw a new match's seed, and a bot's,
    from ``secrets.randbits``; here it comes from a generator seeded by the test's id, a new value
    each call. A test that plays random legal moves passed or failed by its deal: one that passed
    here could fail in CI (an Ekö match ended before the records a test needed), and a failure could
    not be replayed. Tests that fix a seed of their own patch it again, inside this."""
    import random
    import secrets

    deals = random.Random(request.node.nodeid)
    monkeypatch.setattr(secrets, "randbits", lambda bits: deals.getrandbits(bits))


@pytest.fixture
def make_user(db):
    from accounts.models import User

    def make(username: str = "alice", password: str = "correct-horse-9") -> User:
        return User.objects.create_user(username=username, password=password)

    return make


@pytest.fixture
def api():
    """An API client factory: api(user) is authenticated with the user's token."""
    from rest_framework.test import APIClient

    from accounts.services import token_for

    def client(user=None) -> APIClient:
        c = APIClient()
        if user is not None:
            c.credentials(HTTP_AUTHORIZATION=f"Token {token_for(user)}")
        return c

    return client
