"""Chat moderation in the admin, beside the API's (`moderation/…`). Private notes are not here:
they are their owner's alone."""

from __future__ import annotations

from django.contrib import admin

from talk.models import ChatAction, ChatMessage, ChatReport, Mute


@admin.register(ChatMessage)
class ChatMessageAdmin(admin.ModelAdmin):
    list_display = ("match", "channel", "seq", "author", "flagged", "hidden_at", "at")
    list_filter = ("channel", "flagged")
    readonly_fields = ("match", "channel", "seq", "n", "seat", "author", "to_seat", "text", "at")


@admin.register(ChatReport)
class ChatReportAdmin(admin.ModelAdmin):
    list_display = ("message", "reporter", "reason", "resolved", "at")
    list_filter = ("resolved",)


@admin.register(ChatAction)
class ChatActionAdmin(admin.ModelAdmin):
    list_display = ("message", "action", "by", "reason", "at")


@admin.register(Mute)
class MuteAdmin(admin.ModelAdmin):
    list_display = ("user", "match", "until", "reason", "by")
