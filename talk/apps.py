from django.apps import AppConfig


class TalkConfig(AppConfig):
    name = "talk"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        from notify import registry
        from talk import chat, nudges

        registry.publish_types((*chat.TYPES, *nudges.TYPES))
        registry.wake_on("chat", chat.WAKE)  # the stream poll of the embedded default reads new messages
        registry.digest_with("chat", chat.digest_lines)
        registry.digest_with("nudges", nudges.digest_lines)
