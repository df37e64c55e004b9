from __future__ import annotations

from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class LearnConfig(AppConfig):
    """Pages that teach the game: the rules with worked examples (``/regles/``)."""

    name = "learn"
    verbose_name = _("Learn the game")
