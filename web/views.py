"""The web client's one page: every client route answers the same HTML, and the ES modules route.
Beside it, the two files an installable app needs at the site's root: the service worker (its
scope is the folder it is served from) and the manifest."""

from __future__ import annotations

import json

from django.contrib.staticfiles import finders
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.templatetags.static import static


def client(request: HttpRequest, **route: str) -> HttpResponse:
    response = render(request, "web/index.html")
    response["Cache-Control"] = "no-cache"
    response["Referrer-Policy"] = "same-origin"
    return response


def service_worker(request: HttpRequest) -> HttpResponse:
    path = finders.find("web/sw.js")
    assert isinstance(path, str)
    with open(path, encoding="utf-8") as source:
        response = HttpResponse(source.read(), content_type="text/javascript; charset=utf-8")
    response["Cache-Control"] = "no-cache"  # a new worker reaches browsers at once
    response["Service-Worker-Allowed"] = "/"
    return response


def manifest(request: HttpRequest) -> HttpResponse:
    body = {
        "name": "Tabula",
        "short_name": "Tabula",
        "description": "Asynchronous tabletop games: EKKO, Enka, Ekö and Ecos.",
        "start_url": "/",
        "scope": "/",
        "display": "standalone",
        "background_color": "#ffffff",
        "theme_color": "#1f4e79",
        "icons": [{"src": static("web/icon.svg"), "sizes": "any", "type": "image/svg+xml", "purpose": "any"}],
    }
    return HttpResponse(json.dumps(body), content_type="application/manifest+json")
