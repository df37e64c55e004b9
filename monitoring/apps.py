from __future__ import annotations

from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class MonitoringConfig(AppConfig):
    """What a host watches: the periodic tasks' last runs (``heartbeats``) and errors (``errors``)."""

    name = "monitoring"
    verbose_name = _("Monitoring")

    def ready(self) -> None:
        from celery.signals import task_success

        # Imported now, so that its STARTED_AT is this process's start.
        from monitoring import heartbeats

        task_success.connect(heartbeats.task_run_record, weak=False, dispatch_uid="task-run")
