from __future__ import annotations

from django.contrib import admin
from django.contrib.auth.admin import UserAdmin

from accounts.models import User


@admin.register(User)
class PlayerAdmin(UserAdmin):
    fieldsets = (
        *UserAdmin.fieldsets,
        ("Diamino", {"fields": ("display_name", "language", "time_zone")}),
    )
