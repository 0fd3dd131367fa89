"""Settings of the write benchmark's server: ``config.settings.dev`` with a fast password hasher.

Only ``POST auth/register`` hashes a password; moves authenticate by token. PBKDF2 at Django's
default cost takes about half a second per account, so registering the 200 bench players with it
would dominate the run without telling anything about the write path.
"""

from config.settings.dev import *  # noqa: F403

PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
