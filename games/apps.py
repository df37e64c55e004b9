from __future__ import annotations

from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class GamesConfig(AppConfig):
    name = "games"
    verbose_name = _("Games")

    def ready(self) -> None:
        # A deleted account resigns (R-END-4): games answer accounts' user_deleted.
        # A computer player's turn and the post-game analysis answer the services' signals.
        from games import computer, departures  # noqa: F401
        from games.emails import RENDERERS
        from games.services import analysis  # noqa: F401
        from notifications import renderers

        # The outbox renders the game's emails through its registry (it imports no game).
        for kind, renderer in RENDERERS.items():
            renderers.register(kind, renderer)
