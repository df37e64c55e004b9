from __future__ import annotations

from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class ModerationConfig(AppConfig):
    name = "moderation"
    verbose_name = _("Moderation")

    def ready(self) -> None:
        from moderation.emails import RENDERERS
        from notifications import renderers

        # The outbox renders the staff alert through its registry (it imports no report).
        for kind, renderer in RENDERERS.items():
            renderers.register(kind, renderer)
