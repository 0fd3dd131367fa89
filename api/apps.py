from django.apps import AppConfig


class ApiConfig(AppConfig):
    name = "api"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        from api import tasks  # noqa: F401  # registers the retention task (worker and eager runs alike)

        _load_schema_extensions()


def _load_schema_extensions() -> None:
    """Resolve drf-spectacular's lazily imported extension targets once, at start-up.

    Each extension imports its ``target_class`` string on first use and sets it to None when the
    app is missing; two threads doing that at once (two schema requests on a threaded server) can
    see each other's None halfway and fail with a 500. Resolved here, no request ever resolves one.
    """
    from drf_spectacular import extensions

    from api import schema  # noqa: F401  # registers Tabula's own extensions

    for base in (
        extensions.OpenApiSerializerExtension,
        extensions.OpenApiSerializerFieldExtension,
        extensions.OpenApiAuthenticationExtension,
        extensions.OpenApiViewExtension,
        extensions.OpenApiFilterExtension,
    ):
        for extension in base._registry:
            if isinstance(extension.target_class, str):
                extension._load_class()
