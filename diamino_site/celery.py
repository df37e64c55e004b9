"""The Celery application: configured from Django settings (``CELERY_*``)."""

from __future__ import annotations

import os
from typing import Any

from celery import Celery
from celery.signals import worker_init
from django.db import InterfaceError, OperationalError, close_old_connections

from diamino_site.broker import QuickFailTask

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "diamino_site.settings")


class DatabaseTask(QuickFailTask):
    """Every task of the site: a lost database connection is retried later, not lost.

    A QuickFailTask too: while the broker is known down, queueing fails at once
    (diamino_site/broker.py) rather than holding a page up.

    A PostgreSQL restart breaks the worker's connections, and a task that
    meets one fails with OperationalError or InterfaceError. It runs again
    up to 2, 4, 8… seconds later (at most 5 minutes apart, with full jitter;
    10 times: at most about 18 minutes in all, 9 on average), by when the
    database is usually back; past that, the sweeps (outbox, computer turns)
    queue the work again. A retry published while the broker is known down is
    refused at once (QuickFailTask) and left to those sweeps too. Every task takes
    ids, reads fresh rows and is safe to run twice (STYLE.md), so a retry of a
    task that had half run is harmless: its transaction was rolled back.
    """

    autoretry_for = (OperationalError, InterfaceError)
    retry_backoff = 2
    retry_backoff_max = 300
    retry_jitter = True
    max_retries = 10

    def before_start(self, task_id: str, args: Any, kwargs: Any) -> None:
        # A connection the restart broke, or past CONN_MAX_AGE, is closed before
        # the task's first query (Celery's Django fixup does the same; this does
        # not depend on it). Eager tasks run inside the caller's request and
        # transaction, whose connection is not theirs to close.
        if not self.request.is_eager:
            close_old_connections()


app = Celery("diamino_site", task_cls=DatabaseTask)
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()


@worker_init.connect
def map_the_dawg(**_: object) -> None:
    """Map the move generator's DAWG in the worker's parent, before it forks its
    pool: the pool processes inherit the mapping and share its pages (rules/dawg.py)."""
    from rules.dawg import warm

    warm()


@app.task(name="diamino_site.ping")
def ping(value: str) -> str:
    """Echo: lets /healthz and the tests see a task make the round trip."""
    return value
