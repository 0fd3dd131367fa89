"""Tournaments in the admin: read them, lift a ban. A tournament runs itself (`services.advance`):
nothing here pairs or scores."""

from __future__ import annotations

from django.contrib import admin

from tournaments.models import Ban, Entrant, Round, Table, Tournament


class EntrantInline(admin.TabularInline):
    model = Entrant
    extra = 0
    readonly_fields = ("user", "number", "seed", "rating", "joined_at", "withdrawn_at", "out_after")
    can_delete = False


@admin.register(Tournament)
class TournamentAdmin(admin.ModelAdmin):
    list_display = ("name", "game", "format", "table_size", "status", "round", "created_by", "created_at")
    list_filter = ("status", "format", "game")
    search_fields = ("name", "id")
    readonly_fields = ("id", "status", "round", "schedule", "started_at", "finished_at", "created_by", "created_at")
    inlines = [EntrantInline]


class TableInline(admin.TabularInline):
    model = Table
    extra = 0
    readonly_fields = ("index", "match", "entrants", "points", "ranking", "adjudicated", "finished_at")
    can_delete = False


@admin.register(Round)
class RoundAdmin(admin.ModelAdmin):
    list_display = ("tournament", "number", "paired_at", "deadline", "finished_at", "pairing_ms")
    readonly_fields = ("tournament", "number", "paired_at", "slots", "pairing_ms")
    inlines = [TableInline]


@admin.register(Ban)
class BanAdmin(admin.ModelAdmin):
    list_display = ("user", "offences", "until")
    search_fields = ("user__username",)
