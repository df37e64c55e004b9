"""Django app config: the only module of ``rules`` that may import Django."""

from __future__ import annotations

from django.apps import AppConfig


class RulesConfig(AppConfig):
    """The rules engine as a Django app (for its data files; it has no models)."""

    name = "rules"
    verbose_name = "Rules"
