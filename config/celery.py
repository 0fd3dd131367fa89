"""The Celery app: settings come from Django's CELERY_* names, tasks from each app's tasks.py."""

import os

from celery import Celery

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings.dev")

app = Celery("tabula")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()
