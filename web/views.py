"""The web client's one page: every client route answers the same HTML, and the ES modules route."""

from __future__ import annotations

from django.http import HttpRequest, HttpResponse
from django.shortcuts import render


def client(request: HttpRequest, **route: str) -> HttpResponse:
    response = render(request, "web/index.html")
    response["Cache-Control"] = "no-cache"
    response["Referrer-Policy"] = "same-origin"
    return response
