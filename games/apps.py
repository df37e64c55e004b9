from __future__ import annotations

from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class GamesConfig(AppConfig):
    name = "games"
    verbose_name = _("Games")

    def ready(self) -> None:
        # A deleted account resigns (R-END-4): games answer accounts' user_deleted.
        from games import departures  # noqa: F401
        from games.emails import RENDERERS
        from notifications import renderers

        # The outbox renders the game's emails through its registry (it imports no game).
        for kind, renderer in RENDERERS.items():
            renderers.register(kind, renderer)
