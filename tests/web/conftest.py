"""Browser tests: Playwright (python) driving Debian's Chromium against a live server.

No browser is downloaded: Playwright launches the system `chromium` (``TABULA_CHROMIUM`` overrides
the path). Without one these tests are skipped, saying so; `.ci/run` installs it, so CI always
runs them. Bots play inline (test settings run Celery tasks eagerly, in the server's thread).
"""

from __future__ import annotations

import os
import re
import shutil
from pathlib import Path

import pytest

# Playwright's sync API runs an event loop in this thread; the ORM calls the tests make between
# browser steps are still synchronous.
os.environ.setdefault("DJANGO_ALLOW_ASYNC_UNSAFE", "true")

CHROMIUM = os.environ.get("TABULA_CHROMIUM") or shutil.which("chromium") or shutil.which("chromium-browser")
ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--disable-dev-shm-usage",
]
SCREENSHOTS = Path(__file__).resolve().parents[2] / "docs" / "screenshots"
DESKTOP = {"width": 1280, "height": 800}
PHONE = {"width": 390, "height": 844}

try:
    from playwright.sync_api import sync_playwright
except ImportError:  # pragma: no cover - the dev extra installs it
    sync_playwright = None


def pytest_collection_modifyitems(config, items):
    reason = None
    if sync_playwright is None:
        reason = "playwright is not installed"
    elif not CHROMIUM or not Path(CHROMIUM).exists():
        reason = "no Chromium found (apt-get install chromium, or set TABULA_CHROMIUM)"
    for item in items:
        if "tests/web/" in str(item.fspath).replace(os.sep, "/"):
            item.add_marker(pytest.mark.xdist_group("browser"))
            if reason:
                item.add_marker(pytest.mark.skip(reason=f"browser tests skipped: {reason}"))


class FrontLiveServer:
    """The front `make run` serves (front/app.py under uvicorn with front/server.py's options), one
    process in a thread of this one, on the test database: the live streams on its event loop,
    everything else (the API, the pages, WhiteNoise's static files) on its pool of threads."""

    def __init__(self) -> None:
        import socket
        import threading
        import time

        import uvicorn
        from django.test.utils import modify_settings

        import front.server

        self._sock = socket.socket()
        self._sock.bind(("127.0.0.1", 0))
        port = self._sock.getsockname()[1]
        self.server = uvicorn.Server(front.server.config("127.0.0.1", port, loop="asyncio"))
        self.thread = threading.Thread(target=self.server.run, kwargs={"sockets": [self._sock]}, daemon=True)
        self.thread.start()
        deadline = time.monotonic() + 15
        while not self.server.started and time.monotonic() < deadline:
            time.sleep(0.02)
        assert self.server.started, "the front did not start"
        self.url = f"http://127.0.0.1:{port}"
        # pytest-django enables this around each test that uses `live_server`
        self._live_server_modified_settings = modify_settings(ALLOWED_HOSTS={"append": "127.0.0.1"})

    def stop(self) -> None:
        self.server.should_exit = True
        self.thread.join(timeout=10)
        self._sock.close()


@pytest.fixture(autouse=True)
def _streams_closed_before_the_flush(request, transactional_db):
    """The page's streams end (its browser context is closed first), and the requests it left in
    flight on the front finish, before the database is emptied: a stream's read, or a request's
    transaction, in the middle of the TRUNCATE deadlocked the flush on PostgreSQL. Quiet means no
    stream open, no request in flight on the front (uvicorn's tasks: a request on the front's
    threads holds its task until it answers), and no other session of the database inside a
    statement or a transaction, three looks in a row."""
    import time

    from django.db import connection

    from notify.streams import CAPS

    front = request.getfixturevalue("live_server") if "live_server" in request.fixturenames else None
    yield
    deadline = time.monotonic() + 10

    def busy() -> bool:
        if CAPS.total > 0 or (front is not None and front.server.server_state.tasks):
            return True
        if connection.vendor != "postgresql":
            return False
        with connection.cursor() as cursor:
            cursor.execute(
                "SELECT count(*) FROM pg_stat_activity WHERE datname = current_database()"
                " AND pid <> pg_backend_pid() AND state IN ('active', 'idle in transaction')"
            )
            return bool(cursor.fetchone()[0])

    quiet = 0
    while quiet < 3 and time.monotonic() < deadline:
        quiet = 0 if busy() else quiet + 1
        time.sleep(0.05)


@pytest.fixture(scope="session")
def live_server(django_db_setup):
    """Overrides pytest-django's live server with the front `make run` serves (streams need it)."""
    server = FrontLiveServer()
    yield server
    server.stop()


@pytest.fixture(scope="session")
def browser():
    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, args=ARGS, headless=True)
        yield b
        b.close()


class Console:
    """Errors the page logs or throws: a test fails on any."""

    def __init__(self) -> None:
        self.errors: list[str] = []
        self.allowed: set[int] = {409}  # a bot moved first: the page says so and refreshes

    def attach(self, page) -> None:
        page.on("console", lambda m: m.type == "error" and not self._expected(m.text) and self.errors.append(m.text))
        page.on("pageerror", lambda e: self.errors.append(str(e)))

    def _expected(self, text: str) -> bool:
        # Chromium logs every refused request; a test that provokes one on purpose allows its status.
        found = re.search(r"Failed to load resource: the server responded with a status of (\d+)", text)
        return bool(found) and int(found.group(1)) in self.allowed


@pytest.fixture
def console():
    return Console()


@pytest.fixture
def new_page(browser, live_server, console):
    contexts = []

    def make(viewport=DESKTOP):
        context = browser.new_context(viewport=viewport, base_url=live_server.url)
        context.set_default_timeout(20_000)
        contexts.append(context)
        page = context.new_page()
        console.attach(page)
        return page

    yield make
    for c in contexts:
        c.close()
    assert console.errors == [], console.errors


@pytest.fixture
def page(new_page):
    return new_page()


def sign_up(page, username: str, password: str = "a-long-passphrase-9") -> None:
    page.goto("/signup")
    page.get_by_label("Username").fill(username)
    page.get_by_label("Password").fill(password)
    page.get_by_role("button", name="Sign up").click()
    page.get_by_role("heading", name="My games").wait_for()


def shoot(page, name: str) -> None:
    """docs/screenshots/<name>-desktop.png and -phone.png (the viewport only, to keep them small).

    Only with TABULA_SCREENSHOTS=1 (`make screenshots`), so that a test run leaves the tree clean.
    """
    if os.environ.get("TABULA_SCREENSHOTS") != "1":
        return
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    original = page.viewport_size
    for label, size in (("desktop", DESKTOP), ("phone", PHONE)):
        page.set_viewport_size(size)
        page.wait_for_timeout(150)
        page.screenshot(path=str(SCREENSHOTS / f"{name}-{label}.png"), full_page=False)
    page.set_viewport_size(original)
