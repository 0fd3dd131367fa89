"""Admin: inspect matches, seats and records, all read-only (the log is never edited, and a live
match's options, seats or status changed here would disagree with its records). The one write is
the "Abort" action, which goes through `operators.match_abort` and is itself a record."""

from typing import Any

from django.contrib import admin, messages
from django.db.models import QuerySet
from django.http import HttpRequest

from core.errors import ApplicationError
from games.models import Match, Record, Seat
from games.services import operators


class ReadOnly:
    """No add, change or delete: every field is shown, none is editable."""

    def has_add_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    def has_delete_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False


class SeatInline(ReadOnly, admin.TabularInline):
    model = Seat
    extra = 0
    fields = readonly_fields = ("index", "user", "bot", "resigned", "deadline", "bank_ms", "consecutive_timeouts")


class RecordInline(ReadOnly, admin.TabularInline):
    model = Record
    extra = 0
    fields = readonly_fields = ("seq", "type", "seat", "actor", "move", "effects", "data", "at")
    ordering = ["seq"]


@admin.register(Match)
class MatchAdmin(ReadOnly, admin.ModelAdmin):
    list_display = ["id", "game", "status", "players", "version", "created_by", "created_at", "finished_at"]
    list_filter = ["game", "status", "private", "rated"]
    search_fields = ["id", "created_by__username", "seats__user__username"]
    exclude = ["seed"]  # secret while the match is live
    inlines = [SeatInline, RecordInline]
    actions = ["abort"]

    @admin.action(description="Abort the selected live matches (an `aborted` record)")
    def abort(self, request: HttpRequest, queryset: QuerySet[Match]) -> None:
        done = 0
        for match_id in queryset.values_list("id", flat=True):
            try:
                operators.match_abort(match_id=match_id, by=request.user, reason="staff")  # type: ignore[arg-type]
                done += 1
            except ApplicationError as exc:
                self.message_user(request, f"{match_id}: {exc.detail}", messages.WARNING)
        self.message_user(request, f"Aborted {done} match(es).")


@admin.register(Record)
class RecordAdmin(ReadOnly, admin.ModelAdmin):
    list_display = ["match", "seq", "type", "seat", "actor", "at"]
    list_filter = ["type", "actor"]
    search_fields = ["match__id"]


@admin.register(Seat)
class SeatAdmin(ReadOnly, admin.ModelAdmin):
    list_display = ["match", "index", "user", "bot", "resigned", "consecutive_timeouts"]
    search_fields = ["match__id", "user__username"]
