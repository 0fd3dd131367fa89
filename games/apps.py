from django.apps import AppConfig


class GamesConfig(AppConfig):
    name = "games"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        # Register the Celery tasks in every process (web too): `games.scheduling` sends them by
        # name, and where tasks run inline (tests) the registered task object is what runs.
        from games import notices, tasks  # noqa: F401
        from notify import registry

        # What notify streams and mails of matches, and the inbox entry types play writes.
        registry.publish(notices.TYPES, notices.MATCHES)
