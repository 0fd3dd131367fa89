"""A stream is authorised before every delivery, not only when it opens (issue 23, item 3): a
revoked token, a closed account or a match the reader may no longer see ends it with a final
``closed`` event; and open streams hold no database connection of their own (item 1)."""

from __future__ import annotations

import socket
import time

import httpx
import pytest
from django.db import connection, connections

from accounts.models import User
from accounts.services import token_create, token_for

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.xdist_group("streams")]


def _closed(stream, timeout: float = 10) -> str | None:  # type: ignore[no-untyped-def]
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        ends = [e for e in stream.events if e.event == "closed"]
        if ends:
            return str(ends[0].data["reason"])
        time.sleep(0.05)
    return None


@pytest.fixture
def quick(settings):  # type: ignore[no-untyped-def]
    settings.TABULA_STREAM_KEEPALIVE_S = 0.3  # a re-check at least this often, woken or not


def test_a_revoked_token_ends_its_streams_with_a_closed_event(quick, make_user, stream_server, sse):
    bob = make_user("bob")
    (first, key), (second, other) = token_create(bob, label="phone"), token_create(bob, label="laptop")
    by_header = sse(f"{stream_server}/api/v1/me/stream", {"Authorization": f"Token {key}"})
    ticket = httpx.post(
        f"{stream_server}/api/v1/me/stream-tickets", headers={"Authorization": f"Token {other}"}
    ).json()["ticket"]
    by_ticket = sse(f"{stream_server}/api/v1/me/stream?ticket={ticket}")
    assert by_header.status == by_ticket.status == 200
    time.sleep(1)
    assert _closed(by_header, 0) is None and _closed(by_ticket, 0) is None  # valid: they flow on

    first.delete()
    assert _closed(by_header) == "token_revoked"
    assert _closed(by_ticket, 1) is None  # the other token's stream flows on
    second.delete()  # the token that asked for the ticket
    assert _closed(by_ticket) == "token_revoked"


def test_a_closed_account_ends_its_stream(quick, make_user, stream_server, sse):
    bob = make_user("bob")
    stream = sse(f"{stream_server}/api/v1/me/stream", {"Authorization": f"Token {token_for(bob)}"})
    assert stream.status == 200
    User.objects.filter(pk=bob.pk).update(is_active=False)
    assert _closed(stream) == "account_closed"


def test_a_declined_invitation_ends_the_match_stream(quick, toy_game, make_user, stream_server, sse, api):
    alice, bob, carol = make_user("alice"), make_user("bob"), make_user("carol")
    r = api(alice).post(
        "/api/v1/matches", {"game": "toy", "players": 3, "private": True, "invite": ["bob", "carol"]}, format="json"
    )
    mid = r.json()["id"]
    watching = {
        user.username: sse(
            f"{stream_server}/api/v1/matches/{mid}/stream", {"Authorization": f"Token {token_for(user)}"}
        )
        for user in (bob, carol)
    }
    assert {s.status for s in watching.values()} == {200}
    assert api(carol).post(f"/api/v1/matches/{mid}/decline").status_code == 204
    assert _closed(watching["carol"]) == "not_visible"
    assert _closed(watching["bob"], 1) is None  # still invited: still watching


@pytest.mark.postgresql
def test_open_streams_hold_no_database_connection_of_their_own(make_user, stream_server, settings, monkeypatch):
    """Many streams, opened and closed: the connections the server holds stay within its read pool,
    and the API answers at once afterwards. Connections persist as deployed (CONN_MAX_AGE; the
    test settings' 0 would close each after its read and hide a connection per stream)."""
    settings.TABULA_STREAMS_PER_USER = 100
    monkeypatch.setitem(connections.settings["default"], "CONN_MAX_AGE", 600)

    def held() -> int:
        with connection.cursor() as cursor:
            cursor.execute(
                "SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()"
            )
            return int(cursor.fetchone()[0])

    users = [make_user(f"viewer{i}") for i in range(4)]
    keys = [token_for(user) for user in users]
    host, port = stream_server.removeprefix("http://").split(":")
    before = held()
    sockets = []
    for i in range(40):
        sock = socket.create_connection((host, int(port)), timeout=10)
        request = f"GET /api/v1/me/stream HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Token {keys[i % 4]}\r\n\r\n"
        sock.sendall(request.encode())
        assert b"200 OK" in sock.recv(4096).split(b"\r\n", 1)[0]
        sockets.append(sock)
    time.sleep(0.5)
    during = held()
    for sock in sockets:
        sock.close()
    time.sleep(0.5)
    after = held()
    assert during - before <= settings.TABULA_STREAM_READ_THREADS + 1, (before, during)
    assert after - before <= settings.TABULA_STREAM_READ_THREADS + 1, (before, after)
    started = time.monotonic()
    answer = httpx.get(f"{stream_server}/api/v1/me", headers={"Authorization": f"Token {keys[0]}"}, timeout=5)
    assert answer.status_code == 200 and time.monotonic() - started < 5
