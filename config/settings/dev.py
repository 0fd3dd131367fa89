"""Local settings: `make run` on the embedded default (SQLite, filesystem broker)."""

from config.settings.base import *  # noqa: F403
from config.settings.base import env_bool

DEBUG = env_bool("DEBUG", True)
STATIC_ROOT.mkdir(parents=True, exist_ok=True)  # noqa: F405  (bin/run collects into it)
