from django.apps import AppConfig


class GamesConfig(AppConfig):
    name = "games"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        # Register the Celery tasks in every process (web too): `games.scheduling` sends them by
        # name, and where tasks run inline (tests) the registered task object is what runs.
        from games import tasks  # noqa: F401
