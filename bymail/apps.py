from __future__ import annotations

from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class BymailConfig(AppConfig):
    name = "bymail"
    verbose_name = _("Play by email")

    def ready(self) -> None:
        # The answers to the replies go through the outbox, rendered by bymail.
        from bymail import emails

        emails.register_kind()
