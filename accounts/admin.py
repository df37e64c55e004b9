from __future__ import annotations

from django.contrib import admin
from django.contrib.auth.admin import UserAdmin
from django.utils.translation import gettext_lazy as _

from accounts.models import User, Vacation


@admin.register(User)
class PlayerAdmin(UserAdmin):
    fieldsets = (
        *(UserAdmin.fieldsets or ()),
        (
            "Diamino",
            {"fields": ("display_name", "language", "time_zone", "deleted_at", "bot_level")},
        ),
        (
            _("Emails"),
            {
                "fields": (
                    "turn_emails",
                    "invitation_emails",
                    "game_over_emails",
                    "reminder_emails",
                    "report_emails",
                    "play_by_email",
                )
            },
        ),
    )
    readonly_fields = ("deleted_at", "bot_level")
    list_display = ("username", "email", "display_name", "language", "is_active", "deleted_at")
    list_filter = (
        *UserAdmin.list_filter,
        "language",
        "turn_emails",
        "invitation_emails",
        "game_over_emails",
        "bot_level",
    )


@admin.register(Vacation)
class VacationAdmin(admin.ModelAdmin):
    list_display = ("user", "starts_at", "ends_at", "created_at")
    search_fields = ("user__username", "user__email")
    date_hierarchy = "starts_at"
    raw_id_fields = ("user",)
