from django.apps import AppConfig


class NotifyConfig(AppConfig):
    name = "notify"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        # Register the Celery tasks in every process (web too): they are sent by name
        # (`core.taskqueue`), and where tasks run inline (tests) the registered task object runs.
        from notify import tasks  # noqa: F401
