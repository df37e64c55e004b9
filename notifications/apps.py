from __future__ import annotations

import sqlite3

from django.apps import AppConfig
from django.core import checks
from django.utils.translation import gettext_lazy as _

# ``INSERT … ON CONFLICT … RETURNING`` (``services._insert_unless_key_taken``).
SQLITE_NEEDED = (3, 35, 0)


class NotificationsConfig(AppConfig):
    name = "notifications"
    verbose_name = _("Notifications")

    def ready(self) -> None:
        checks.register(sqlite_can_return, checks.Tags.database)


def sqlite_can_return(app_configs=None, databases=None, **kwargs) -> list[checks.CheckMessage]:
    """Notifications are written with RETURNING, which SQLite has from 3.35 on."""
    from django.db import connections

    found = sqlite3.sqlite_version_info
    if not any(connections[alias].vendor == "sqlite" for alias in databases or ()):
        return []
    if found >= SQLITE_NEEDED:
        return []
    return [
        checks.Error(
            f"SQLite {sqlite3.sqlite_version} is too old: notifications need "
            f"{'.'.join(map(str, SQLITE_NEEDED))} or later (INSERT … RETURNING).",
            hint="Use a Python built against a newer SQLite, or PostgreSQL (DATABASE_URL).",
            id="notifications.E001",
        )
    ]
