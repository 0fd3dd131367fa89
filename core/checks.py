"""System checks of the platform's own (``manage.py check --deploy``): a signing key fit for production.

``SECRET_KEY`` signs sessions, CSRF tokens and the one-click unsubscribe links (notify/mail.py):
with the development key published in this repository, or a short one, anyone can forge them.
Django's ``security.W009`` misses the published key (long enough, many characters); tabula.W001
names both. Registered by accounts/apps.py.
"""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.core.checks import CheckMessage, Tags, register
from django.core.checks import Warning as CheckWarning

#: The key config/settings/base.py falls back on (and any checkout without var/secret_key): public.
DEVELOPMENT_SECRET_KEY = "insecure-development-key-set-SECRET_KEY-in-production"
MIN_SECRET_KEY_LENGTH = 50


@register(Tags.security, deploy=True)
def check_secret_key(app_configs: Any = None, **kwargs: Any) -> list[CheckMessage]:
    key = str(getattr(settings, "SECRET_KEY", "") or "")
    if key == DEVELOPMENT_SECRET_KEY:
        problem = "SECRET_KEY is the development key published in the repository"
    elif len(key) < MIN_SECRET_KEY_LENGTH:
        problem = f"SECRET_KEY has {len(key)} characters, fewer than {MIN_SECRET_KEY_LENGTH}"
    else:
        return []
    hint = "Set SECRET_KEY to a long random value, e.g. python -c 'import secrets; print(secrets.token_urlsafe(50))'."
    return [CheckWarning(f"{problem}: sessions and unsubscribe links can be forged.", hint=hint, id="tabula.W001")]
