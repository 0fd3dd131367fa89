from django.contrib import admin
from django.contrib.auth.admin import UserAdmin

from accounts.models import ApiToken, Rating, User


@admin.register(User)
class TabulaUserAdmin(UserAdmin):
    fieldsets = (*(UserAdmin.fieldsets or ()), ("Tabula", {"fields": ("display_name", "preferences", "deleted_at")}))


@admin.register(Rating)
class RatingAdmin(admin.ModelAdmin):
    list_display = ["user", "game", "rating", "rank", "mu", "sigma", "matches", "rated_at"]
    list_filter = ["game"]
    search_fields = ["user__username"]


@admin.register(ApiToken)
class ApiTokenAdmin(admin.ModelAdmin):
    """Tokens can be looked at and revoked (deleted) here; their keys were never stored."""

    list_display = ["user", "label", "created_at", "last_used_at", "expires_at"]
    search_fields = ["user__username", "label"]
    readonly_fields = ["user", "key_hash", "label", "created_at", "last_used_at", "expires_at"]

    def has_add_permission(self, request: object) -> bool:
        return False
