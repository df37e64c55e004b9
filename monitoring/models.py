"""When each periodic task last finished: what /healthz reads to notice a dead beat."""

from __future__ import annotations

from django.db import models
from django.utils.translation import gettext_lazy as _


class TaskRun(models.Model):
    """One row per periodic task (``CELERY_BEAT_SCHEDULE``), written each time it succeeds.

    In the database rather than the cache: a flushed or restarted Redis must
    not make a live beat look dead, nor a dead one look alive.
    """

    task = models.CharField(_("task"), max_length=100, primary_key=True)
    finished_at = models.DateTimeField(_("last finished"))

    class Meta:
        ordering = ["task"]
        verbose_name = _("periodic task run")
        verbose_name_plural = _("periodic task runs")

    def __str__(self) -> str:
        return f"{self.task} @ {self.finished_at:%Y-%m-%d %H:%M:%S}"
