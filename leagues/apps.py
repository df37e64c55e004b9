from __future__ import annotations

from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class LeaguesConfig(AppConfig):
    """Correspondence leagues: seasons, divisions, promotion and relegation (issue 23)."""

    name = "leagues"
    verbose_name = _("Leagues")
