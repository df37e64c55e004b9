from __future__ import annotations

from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class LeaguesConfig(AppConfig):
    """Correspondence leagues: seasons, divisions, promotion and relegation (issue 23)."""

    name = "leagues"
    verbose_name = _("Leagues")

    def ready(self) -> None:
        # departures answers a deleted account (a receiver of accounts' signal).
        from leagues import departures, emails  # noqa: F401

        # The outbox renders the leagues' emails through its registry (it imports no league).
        emails.register_kinds()
        # "My games" shows a game's division through games' registry (games imports no league).
        from games import badges
        from leagues.pages import game_badges

        badges.register(game_badges)
