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

Publishing costs CPU on every move (one message per email it queues), and
kombu's Redis channel built a new ``redis.Redis`` for every command it sent:
about 0.2 ms of the publish's 0.9 ms, as the cache's client did
(``diamino_site/cache.py``). ``RedisTransport``, the site's transport with a
``redis://`` broker (``CELERY_BROKER_TRANSPORT``), keeps one per channel and
connection pool; the messages, the queues and what workers do with them are
kombu's own.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from celery import Task
from kombu.exceptions import OperationalError
from kombu.transport import redis as kombu_redis

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


class _Channel(kombu_redis.Channel):
    """Kombu's Redis channel, with one ``redis.Redis`` for its pool instead of one per command.

    A ``redis.Redis`` over a pool is safe to share between threads (each command
    takes a connection from the pool), and the pool notices a fork. A new pool
    (the old one disconnected) gets a new client.
    """

    _shared_client: Any = None

    @contextmanager
    def conn_or_acquire(self, client: Any = None) -> Iterator[Any]:
        if client:
            yield client
            return
        shared = self._shared_client
        if shared is None or shared.connection_pool is not self.pool:
            shared = self._shared_client = self._create_client()  # type: ignore[attr-defined]  # kombu's, not in its stubs
        yield shared


class RedisTransport(kombu_redis.Transport):
    """Kombu's Redis transport with ``_Channel``: the broker's with ``redis://`` (settings)."""

    Channel = _Channel
