from django.apps import AppConfig


class AccountsConfig(AppConfig):
    name = "accounts"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        from django.db.models.signals import post_delete, post_save

        import core.checks  # noqa: F401  # registers the platform's system checks (tabula.W001)
        from accounts import tokencache
        from accounts.models import ApiToken, User

        for model in (User, ApiToken):  # a change to either makes cached token lookups stale
            post_save.connect(tokencache.changed, sender=model, dispatch_uid=f"tokencache-save-{model.__name__}")
            post_delete.connect(tokencache.changed, sender=model, dispatch_uid=f"tokencache-delete-{model.__name__}")
