"""Queueing a task never holds a page up for long, whatever the broker (Redis) does.

Every task the site queues from a request (an email to send, a computer's
turn, an analysis) has a sweep that queues it again if the message is lost
(``notifications.periodic.sweep``, ``games.bot_sweep``), and every caller
catches the error. What was missing is time: a Redis that hangs made a publish
wait forever (kombu's default socket timeout is none), so a move's page hung
with it. The broker's socket timeouts are in the settings
(``CELERY_BROKER_TRANSPORT_OPTIONS``); here, once a publish has failed, the
process does not try the broker again for ``RETRY_SECONDS``: the tasks queued
meanwhile fail at once, as if refused, and are left to the sweeps. The
outage is shared with the cache's when both are the same Redis
(``diamino_site/outage.py``): a cache timeout spares the move's publish the
same wait. It is logged once a minute.
"""

from __future__ import annotations

from typing import Any

from celery import Task
from kombu.exceptions import OperationalError

from diamino_site.outage import outage_of

RETRY_SECONDS = 5.0
BROKER_ERRORS = (OperationalError, ConnectionError, TimeoutError, OSError)


class QuickFailTask(Task):
    """The site's task class: ``apply_async`` fails at once while the broker is known down."""

    # Every option passed on as given: celery-types spells them out one by one.
    def apply_async(self, args: Any = None, kwargs: Any = None, **options: Any) -> Any:  # type: ignore[override]
        if self.app.conf.task_always_eager:
            return super().apply_async(args, kwargs, **options)
        outage = outage_of(self.app.conf.broker_url)
        if outage.skipping():
            raise OperationalError("Redis did not answer a moment ago; not tried")
        try:
            result = super().apply_async(args, kwargs, **options)
        except BROKER_ERRORS as error:
            outage.went_down(error, retry_seconds=RETRY_SECONDS, use="Celery broker")
            raise
        if outage.down:
            outage.came_back()
        return result
