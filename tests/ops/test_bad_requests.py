"""Whatever a client can put in a query string or a form body that Django refuses is a problem
document on every path, without sign-in, under the test (production-like) and DEBUG (make run)
settings: 1,001 query parameters once answered ``500 text/plain`` with a traceback under ``make run``
and ``400 text/html`` in production (issue 23 item 5)."""

from __future__ import annotations

import json

import pytest
from django.conf import settings
from django.test import Client, override_settings

pytestmark = pytest.mark.django_db

PATHS = ["/api/v1/games", "/api/v1/matches", "/", "/matches/1", "/admin/login/", "/livez", "/readyz", "/metrics"]
TOO_MANY = "&".join(f"p{i}=1" for i in range(settings.DATA_UPLOAD_MAX_NUMBER_FIELDS + 1))


def _assert_problem(response, status: int, code: str) -> None:
    assert response.status_code == status, (response.status_code, response.content[:300])
    assert response["Content-Type"] == "application/problem+json"
    body = json.loads(response.content)
    assert (body["status"], body["code"]) == (status, code)
    assert "Traceback" not in response.content.decode()


@pytest.mark.parametrize("debug", [False, True], ids=["prod", "dev"])
@pytest.mark.parametrize("path", PATHS)
def test_too_many_query_parameters_is_a_problem_on_every_path(path, debug):
    with override_settings(DEBUG=debug):
        response = Client(raise_request_exception=False).get(f"{path}?{TOO_MANY}")
    _assert_problem(response, 400, "too_many_fields")
    assert response["X-Request-ID"]


@pytest.mark.parametrize("debug", [False, True], ids=["prod", "dev"])
@pytest.mark.parametrize("path", ["/admin/login/", "/api/v1/auth/register", "/"])
def test_too_many_form_fields_and_a_form_too_big_are_problems(path, debug):
    client = Client(raise_request_exception=False)
    with override_settings(DEBUG=debug):
        many = client.post(path, TOO_MANY, content_type="application/x-www-form-urlencoded")
        big = client.post(
            path,
            "a=" + "x" * (settings.DATA_UPLOAD_MAX_MEMORY_SIZE + 1),
            content_type="application/x-www-form-urlencoded",
        )
    _assert_problem(many, 400, "too_many_fields")
    _assert_problem(big, 413, "payload_too_large")


def test_a_suspicious_operation_raised_in_a_view_is_a_problem(rf):
    from django.core.exceptions import SuspiciousOperation
    from django.core.handlers.exception import response_for_exception

    response = response_for_exception(rf.get("/"), SuspiciousOperation("no"))
    _assert_problem(response, 400, "malformed_request")


def test_a_sane_query_string_is_untouched(client):
    assert client.get("/api/v1/games?" + "&".join(f"p{i}=1" for i in range(50))).status_code == 200
