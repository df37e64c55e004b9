from __future__ import annotations

from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class GamesConfig(AppConfig):
    name = "games"
    verbose_name = _("Games")

    def ready(self) -> None:
        # A deleted account resigns (R-END-4): games answer accounts' user_deleted.
        # A computer player's turn and the post-game analysis answer the services' signals.
        from accounts.signals import vacation_starting
        from games import computer, departures  # noqa: F401
        from games.emails import RENDERERS
        from games.services import analysis  # noqa: F401
        from games.vacations import clocks_stop
        from notifications import renderers

        # A vacation stops the clocks of the player's games (games/vacations.py).
        vacation_starting.connect(clocks_stop, dispatch_uid="clocks-stop")

        # The outbox renders the game's emails through its registry (it imports no game).
        for kind, renderer in RENDERERS.items():
            renderers.register(kind, renderer)
        # And what a web push about a game shows (games/push.py).
        from games.push import payload
        from notifications.push import register_payload

        register_payload(payload)
