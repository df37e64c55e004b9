"""The only module of ``rules`` that knows Django: it registers the app."""

from __future__ import annotations

from django.apps import AppConfig


class RulesConfig(AppConfig):
    name = "rules"
    verbose_name = "Rules"
