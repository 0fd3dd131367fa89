from django.apps import AppConfig


class CirclesConfig(AppConfig):
    name = "circles"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        from circles import services
        from notify import registry

        registry.publish_types(services.TYPES)  # `followed`: webhooks may subscribe to it
