"""The Celery application: configured from Django settings (``CELERY_*``)."""

from __future__ import annotations

import os
from typing import Any

from celery import Celery, Task
from celery.signals import setup_logging, worker_init
from django.conf import settings
from django.db import InterfaceError, OperationalError, close_old_connections
from kombu.exceptions import OperationalError as BrokerError

from infra.outage import outage_of

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "diamino_site.settings")

# What a publish raises when Redis refuses, times out or drops the connection.
BROKER_ERRORS = (BrokerError, ConnectionError, TimeoutError, OSError)


class DatabaseTask(Task):
    """Every task of the site: never holds a page up, and a lost database connection is retried.

    Queueing (``delay``/``apply_async``) waits at most the broker's socket
    timeouts (``CELERY_BROKER_TRANSPORT_OPTIONS``: kombu waits forever by
    default, and a Redis that hangs would hang the move that queues its
    emails). Once a publish has failed, the process does not try the broker
    again for ``DIAMINO_BROKER_RETRY_SECONDS``: what is queued meanwhile is
    refused at once (``kombu.exceptions.OperationalError``), as if the broker
    had refused it, and every caller leaves it to the sweeps that queue it
    again (``notifications.periodic.sweep``, ``games.bot_sweep``). The outage
    is shared with the cache's when both are the same Redis
    (``infra/outage.py``): a cache timeout spares the move's publish the
    same wait, and it is logged once a minute.

    A PostgreSQL restart breaks the worker's connections, and a task that
    meets one fails with OperationalError or InterfaceError. It runs again
    up to 2, 4, 8… seconds later (at most 5 minutes apart, with full jitter;
    10 times: at most about 18 minutes in all, 9 on average), by when the
    database is usually back; past that, the sweeps (outbox, computer turns)
    queue the work again. A retry published while the broker is known down is
    refused at once too and left to those sweeps. Every task takes ids, reads
    fresh rows and is safe to run twice (STYLE.md), so a retry of a task that
    had half run is harmless: its transaction was rolled back.
    """

    autoretry_for = (OperationalError, InterfaceError)
    retry_backoff = 2
    retry_backoff_max = 300
    retry_jitter = True
    max_retries = 10

    # Every option passed on as given: celery-types spells them out one by one.
    def apply_async(self, args: Any = None, kwargs: Any = None, **options: Any) -> Any:  # type: ignore[override]
        conf = self.app.conf
        if conf.task_always_eager:
            return super().apply_async(args, kwargs, **options)
        outage = outage_of(conf.broker_url)
        if outage.skipping():
            raise BrokerError("Redis did not answer a moment ago; not tried")
        try:
            result = super().apply_async(args, kwargs, **options)
        except BROKER_ERRORS as error:
            retry = float(settings.DIAMINO_BROKER_RETRY_SECONDS)
            outage.went_down(error, retry_seconds=retry, use="Celery broker")
            raise
        if outage.down:
            outage.came_back()
        return result

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


@setup_logging.connect
def keep_the_sites_logging(**_: object) -> None:
    """The worker and beat log as the web processes do: Django's ``LOGGING``, already applied.

    Celery configures no logging when this signal has a receiver. Without one it
    would replace the root logger's handlers with its own format, dropping
    the request id of each line (monitoring/request_id.py). Django set
    logging up before this is sent (Celery's Django fixup calls
    ``django.setup()`` first), so there is nothing left to do; the level is
    ``DJANGO_LOG_LEVEL``'s, not ``--loglevel``'s.
    """


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
