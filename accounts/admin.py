from django.contrib import admin
from django.contrib.auth.admin import UserAdmin

from accounts.models import Rating, User


@admin.register(User)
class TabulaUserAdmin(UserAdmin):
    fieldsets = (*(UserAdmin.fieldsets or ()), ("Tabula", {"fields": ("display_name", "preferences")}))


@admin.register(Rating)
class RatingAdmin(admin.ModelAdmin):
    list_display = ["user", "game", "mu", "sigma", "matches", "updated_at"]
    list_filter = ["game"]
    search_fields = ["user__username"]
