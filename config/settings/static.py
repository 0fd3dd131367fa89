"""Static files and the browser client: the web client (web/) answers its page at `/`; WhiteNoise serves
its ES modules, the admin's files and the offline Swagger UI from STATIC_ROOT."""

from __future__ import annotations

from config.settings.env import VAR_DIR

STATIC_URL = "static/"
STATIC_ROOT = VAR_DIR / "static"  # collectstatic fills (and makes) it: bin/run, docker/entrypoint.sh
STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    "staticfiles": {"BACKEND": "whitenoise.storage.CompressedStaticFilesStorage"},
}
