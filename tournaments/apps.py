from django.apps import AppConfig


class TournamentsConfig(AppConfig):
    name = "tournaments"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        from games import selectors as games
        from notify import registry

        # the Celery tasks, registered in every process: they are sent by name (`core.taskqueue`)
        from tournaments import notices, selectors, services, tasks  # noqa: F401

        registry.publish_types(services.TYPES)  # webhooks may subscribe to them
        registry.digest_with("tournaments", notices.digest_lines)
        games.audience(selectors.tournament_ids_of)  # a private tournament's tables: its entrants see them
