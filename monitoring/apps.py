from __future__ import annotations

from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class MonitoringConfig(AppConfig):
    """What a host watches: the periodic tasks' last runs (``heartbeats``), errors (``errors``) and
    the request id that every log line carries, a task's too (``request_id``)."""

    name = "monitoring"
    verbose_name = _("Monitoring")

    def ready(self) -> None:
        from celery.signals import before_task_publish, task_postrun, task_prerun, task_success

        # Imported now, so that its STARTED_AT is this process's start.
        from monitoring import heartbeats, request_id

        task_success.connect(heartbeats.task_run_record, weak=False, dispatch_uid="task-run")
        # A task's log lines and errors carry the id of the request that queued it.
        before_task_publish.connect(
            request_id.task_publishing, weak=False, dispatch_uid="request-id-publish"
        )
        task_prerun.connect(request_id.task_starting, weak=False, dispatch_uid="request-id-start")
        task_postrun.connect(request_id.task_finished, weak=False, dispatch_uid="request-id-end")
