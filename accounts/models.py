"""Players: Django's user with the preferences a correspondence player needs."""

from __future__ import annotations

from django.contrib.auth.models import AbstractUser
from django.db import models
from django.utils.translation import gettext_lazy as _


class User(AbstractUser):
    """A player. ``username`` is public; ``display_name`` is what others see."""

    display_name = models.CharField(_("display name"), max_length=40, blank=True)
    language = models.CharField(
        _("language"),
        max_length=2,
        choices=[("fr", _("French")), ("en", _("English"))],
        default="fr",
        help_text=_("Used for the pages and for every email you receive."),
    )
    time_zone = models.CharField(
        _("time zone"),
        max_length=64,
        default="Europe/Paris",
        help_text=_("Deadlines are shown in this time zone."),
    )

    def __str__(self) -> str:
        return self.display_name or self.username
