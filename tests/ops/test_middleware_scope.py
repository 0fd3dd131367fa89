"""Middleware that serves pages only (the admin, the web client) stays out of the API's way."""

from __future__ import annotations

from django.contrib.sessions.backends.db import SessionStore
from django.http import HttpResponse
from django.test import RequestFactory

from core.middleware import PageMessageMiddleware


def _through(path: str) -> object:
    request = RequestFactory().get(path)
    request.session = SessionStore()
    PageMessageMiddleware(lambda r: HttpResponse())(request)
    return request


def test_pages_get_a_message_store_and_the_api_does_not():
    assert hasattr(_through("/admin/login/"), "_messages")
    assert hasattr(_through("/matches/abc"), "_messages")
    assert not hasattr(_through("/api/v1/matches/abc/state"), "_messages")


def test_the_admin_still_shows_its_messages(admin_client):
    """A saved object's note reaches the next admin page (the messages framework still works there)."""
    from django.contrib.auth import get_user_model

    user = get_user_model().objects.create_user("notes", password="pw-123456789")
    answer = admin_client.post(f"/admin/accounts/user/{user.pk}/delete/", {"post": "yes"}, follow=True)
    assert answer.status_code == 200
    assert any("deleted successfully" in str(m) for m in answer.context["messages"])
