from __future__ import annotations

from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class RatingsConfig(AppConfig):
    name = "ratings"
    verbose_name = _("Leaderboards and ratings")

    def ready(self) -> None:
        # The games app sends its signals without knowing who listens: connecting
        # here keeps the dependency one way (ratings → games).
        from ratings import receivers  # noqa: F401
