"""The client's routes. Listed one by one (no catch-all), so every other path keeps its 404 problem."""

from django.urls import re_path

from web.views import client, manifest, service_worker

urlpatterns = [
    re_path(
        r"^(?:|signin|signup|lobby|games|leaderboards(?:/[\w-]+)?|invitations|away|feed|settings|join|tournaments(?:/[A-Za-z0-9_-]+)?|rules(?:/[a-z]+)?|users/[\w.@+-]+|matches/[A-Za-z0-9_-]+)/?$",
        client,
        name="web-client",
    ),
    re_path(r"^sw\.js$", service_worker, name="web-service-worker"),
    re_path(r"^manifest\.webmanifest$", manifest, name="web-manifest"),
]
