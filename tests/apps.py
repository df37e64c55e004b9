"""The test run's own app: its ``flush`` command (``tests/management/commands/flush.py``)."""

from django.apps import AppConfig


class TestsConfig(AppConfig):
    name = "tests"
    label = "diamino_tests"
    verbose_name = "Diamino's tests"
