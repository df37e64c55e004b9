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

The publish itself was still most of the queueing's CPU on a move: Celery
builds each message from the task's options, its routes and the app's
settings (0.7 ms of CPU in a request). A move queues the same message every
time but for the task's id and its arguments. So the first time a process
(a thread) queues a task with arguments alone, Celery makes the message,
and the transport keeps a copy of what it sent (``_Channel._put``); the next
plain call of that task sends the copy with a new id, new arguments and a
new delivery tag (``_plain_message``), in the one LPUSH kombu would make. Any
option (a countdown, an expiry), keyword arguments, a publish signal's
listener, task events, or arguments other than integers go through Celery
as before. ``tests/site/test_broker.py`` compares the copy with the message
Celery makes for the same call, so a Celery upgrade that changes the message
fails there.
"""

from __future__ import annotations

import base64
import os
import threading
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from celery import Task, signals
from kombu.exceptions import OperationalError
from kombu.transport import redis as kombu_redis
from kombu.utils.json import dumps, loads
from redis.exceptions import RedisError

from diamino_site.outage import outage_of

RETRY_SECONDS = 5.0
BROKER_ERRORS = (OperationalError, ConnectionError, TimeoutError, OSError)


class QuickFailTask(Task):
    """The site's task class: ``apply_async`` fails at once while the broker is known down."""

    # Every option passed on as given: celery-types spells them out one by one.
    def apply_async(self, args: Any = None, kwargs: Any = None, **options: Any) -> Any:  # type: ignore[override]
        conf = self.app.conf
        if conf.task_always_eager:
            return super().apply_async(args, kwargs, **options)
        outage = outage_of(conf.broker_url)
        if outage.skipping():
            raise OperationalError("Redis did not answer a moment ago; not tried")
        sent = None
        try:
            copy = _copy_to_send(self, args, kwargs, options)
            if copy is not None:
                sent = _send_copy(copy, args)
            else:
                _copies.broker_url = conf.broker_url  # where ``_Channel._put`` keeps its copy
                try:
                    result = super().apply_async(args, kwargs, **options)
                finally:
                    _copies.broker_url = None
        except BROKER_ERRORS as error:
            outage.went_down(error, retry_seconds=RETRY_SECONDS, use="Celery broker")
            raise
        if outage.down:
            outage.came_back()
        return self.AsyncResult(sent) if sent is not None else result


class _Copy:
    """What ``_Channel._put`` sent for a plain call of a task: the message, its list, the client."""

    __slots__ = ("client", "key", "message")

    def __init__(self, message: dict[str, Any], key: str, client: Any) -> None:
        self.message, self.key, self.client = message, key, client


# By broker URL and task name, for this process and thread: the id Celery
# gives a reply queue and the message's origin are the thread's and process's.
_copies = threading.local()


def _copies_here(broker_url: str) -> dict[str, _Copy]:
    mine = getattr(_copies, "by_broker", None)
    if mine is None or _copies.pid != os.getpid():
        mine = _copies.by_broker = {}
        _copies.pid = os.getpid()
    found: dict[str, _Copy] = mine.setdefault(broker_url, {})
    return found


def _copy_to_send(task: Task, args: Any, kwargs: Any, options: dict[str, Any]) -> _Copy | None:
    """The kept message to send for this call, or None when Celery must make it."""
    if kwargs or any(value is not None for value in options.values()):
        return None
    if not isinstance(args, tuple | list) or not all(type(arg) is int for arg in args):
        return None
    conf = task.app.conf
    if (
        conf.task_send_sent_event
        or signals.before_task_publish.receivers
        or signals.after_task_publish.receivers
    ):
        return None
    return _copies_here(conf.broker_url).get(task.name)


def _send_copy(copy: _Copy, args: Any) -> str:
    """``copy`` sent with a new id, ``args`` and a new delivery tag; the id."""
    task_id = str(uuid.uuid4())
    message = _plain_message(copy.message, task_id, list(args))
    try:
        copy.client.lpush(copy.key, dumps(message))
    except RedisError as error:  # kombu would have raised its own
        raise OperationalError(str(error)) from error
    return task_id


def _plain_message(kept: dict[str, Any], task_id: str, args: list[int]) -> dict[str, Any]:
    """``kept`` for the task ``task_id`` with positional ``args``: what Celery would make."""
    body = loads(_b64decode(kept["body"]))
    body[0] = args
    return {
        **kept,
        "body": _b64encode(dumps(body)),
        "headers": {
            **kept["headers"],
            "id": task_id,
            "root_id": task_id,
            "argsrepr": repr(tuple(args)),
        },
        "properties": {
            **kept["properties"],
            "correlation_id": task_id,
            "delivery_tag": str(uuid.uuid4()),
        },
    }


def _b64decode(text: str) -> str:
    return base64.b64decode(text.encode()).decode()


def _b64encode(text: str) -> str:
    return base64.b64encode(text.encode()).decode()


def _keep_if_plain(channel: Any, queue: str, message: dict[str, Any], key: str) -> None:
    """Keep ``message`` as its task's copy when it is a plain call's: no option, integer
    arguments, no parent, nothing but the id varying from one call to the next."""
    headers, properties = message.get("headers") or {}, message.get("properties") or {}
    task_id = headers.get("id")
    try:
        body = loads(_b64decode(message["body"]))
    except Exception:
        return
    plain = (
        message.get("content-type") == "application/json"
        and message.get("content-encoding") == "utf-8"
        and properties.get("body_encoding") == "base64"
        and task_id
        and headers.get("root_id") == task_id
        and properties.get("correlation_id") == task_id
        and all(headers.get(name) is None for name in ("eta", "expires", "parent_id", "group"))
        and headers.get("kwargsrepr") == "{}"
        and "expiration" not in properties
        and isinstance(body, list)
        and len(body) == 3
        and body[1] == {}
        and isinstance(body[0], list)
        and all(type(arg) is int for arg in body[0])
        and headers.get("argsrepr") == repr(tuple(body[0]))
        and not (channel._expires and queue in channel._expires)
    )
    broker_url = getattr(_copies, "broker_url", None)
    if plain and broker_url:
        with channel.conn_or_acquire() as client:
            _copies_here(broker_url)[headers["task"]] = _Copy(loads(dumps(message)), key, client)


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

    def _put(self, queue: str, message: dict[str, Any], **kwargs: Any) -> None:
        super()._put(queue, message, **kwargs)
        if "_publish_batch" not in kwargs:
            priority = self._get_message_priority(message, reverse=False)
            _keep_if_plain(self, queue, message, self._q_for_pri(queue, priority))  # type: ignore[attr-defined]  # kombu's, not in its stubs


class RedisTransport(kombu_redis.Transport):
    """Kombu's Redis transport with ``_Channel``: the broker's with ``redis://`` (settings)."""

    Channel = _Channel
