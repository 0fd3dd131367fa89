"""Admin: inspect matches, seats and records. Records are read-only: the log is never edited."""

from typing import Any

from django.contrib import admin
from django.http import HttpRequest

from games.models import Match, Record, Seat


class SeatInline(admin.TabularInline):
    model = Seat
    extra = 0
    fields = ["index", "user", "bot", "resigned", "deadline", "bank_ms", "consecutive_timeouts"]
    raw_id_fields = ["user"]


class RecordInline(admin.TabularInline):
    model = Record
    extra = 0
    can_delete = False
    fields = ["seq", "type", "seat", "actor", "move", "effects", "data", "at"]
    readonly_fields = ["seq", "type", "seat", "actor", "move", "effects", "data", "at"]
    ordering = ["seq"]

    def has_add_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False


@admin.register(Match)
class MatchAdmin(admin.ModelAdmin):
    list_display = ["id", "game", "status", "players", "version", "created_by", "created_at", "finished_at"]
    list_filter = ["game", "status", "private", "rated"]
    search_fields = ["id", "created_by__username", "seats__user__username"]
    readonly_fields = ["id", "game", "rules_version", "seed_commitment", "version", "created_at", "result"]
    exclude = ["seed"]
    inlines = [SeatInline, RecordInline]


@admin.register(Record)
class RecordAdmin(admin.ModelAdmin):
    list_display = ["match", "seq", "type", "seat", "actor", "at"]
    list_filter = ["type", "actor"]
    search_fields = ["match__id"]

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    def has_delete_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False
