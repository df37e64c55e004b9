from __future__ import annotations

from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class LeaguesConfig(AppConfig):
    """Correspondence leagues: seasons, divisions, promotion and relegation (issue 23)."""

    name = "leagues"
    verbose_name = _("Leagues")

    def ready(self) -> None:
        # notify connects the signals' receivers; departures answers a deleted account.
        from leagues import departures, emails, notify  # noqa: F401

        # The outbox renders the leagues' emails through its registry (it imports no league).
        emails.register_kinds()
