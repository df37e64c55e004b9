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
option (a countdown, an expiry), keyword arguments, arguments other than a
tuple of integers, a call from inside a task (its message names the parent),
a publish signal's listener, task events, routes, or a wrapper of
``Task.apply_async`` (Sentry's Celery integration, with ``SENTRY_DSN``: it adds
each call's trace) go through Celery as before. ``tests/site/test_broker.py`` compares the copy with the message
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
from celery.utils.saferepr import saferepr
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
        plain = _is_plain_call(self, args, kwargs, options)
        copy = _copies_here(conf.broker_url).get(self.name) if plain else None
        sent = None
        try:
            if copy is not None:
                if self.typing:  # the arguments checked against the task's, as Celery does
                    self.__header__(*args)  # type: ignore[attr-defined]  # Celery's, not in its stubs
                sent = _send_copy(copy, self, args)
            else:
                # A plain call's message is kept by ``_Channel._put``, for this broker.
                _copies.recording = conf.broker_url if plain else None
                try:
                    result = super().apply_async(args, kwargs, **options)
                finally:
                    _copies.recording = None
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


def forget_copies() -> None:
    """Forget this thread's kept messages (their client is the pool's of their time).

    For tests that reset kombu's pools or change the broker's options; the
    site itself never does.
    """
    _copies.by_broker = None


def _is_plain_call(task: Task, args: Any, kwargs: Any, options: dict[str, Any]) -> bool:
    """Whether Celery would make the same message for this call as for any other plain one.

    Integer positional arguments in a tuple, no keyword argument, no option;
    not from inside a task a worker runs (the message would name it as its
    parent); nothing that adds to or hears of a message (publish signals, task
    events, a wrapper of ``Task.apply_async`` such as Sentry's Celery
    integration, which adds each call's trace), and no routes (a router may
    read the arguments).
    """
    if kwargs or any(value is not None for value in options.values()):
        return False
    if type(args) is not tuple or not all(type(arg) is int for arg in args):
        return False
    app = task.app
    conf = app.conf
    return not (
        conf.task_send_sent_event
        or conf.task_routes
        or signals.before_task_publish.receivers
        or signals.after_task_publish.receivers
        or hasattr(Task.apply_async, "__wrapped__")
        or app.current_worker_task is not None
    )


def _send_copy(copy: _Copy, task: Task, args: tuple[int, ...]) -> str:
    """``copy`` sent with a new id, ``args`` and a new delivery tag; the id."""
    task_id = str(uuid.uuid4())
    argsrepr = saferepr(args, task.app.amqp.argsrepr_maxsize)
    message = _plain_message(copy.message, task_id, args, argsrepr)
    try:
        copy.client.lpush(copy.key, dumps(message))
    except RedisError as error:  # kombu would have raised its own
        raise OperationalError(str(error)) from error
    return task_id


def _plain_message(
    kept: dict[str, Any], task_id: str, args: tuple[int, ...], argsrepr: str
) -> dict[str, Any]:
    """``kept`` for the task ``task_id`` with positional ``args``: what Celery would make."""
    body = loads(_b64decode(kept["body"]))
    body[0] = list(args)
    return {
        **kept,
        "body": _b64encode(dumps(body)),
        "headers": {**kept["headers"], "id": task_id, "root_id": task_id, "argsrepr": argsrepr},
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


# The headers and properties of a task message as Celery 5 and kombu's Redis
# transport make them for a plain call; a message with any other is never kept.
_PLAIN_HEADERS = frozenset(
    [
        "lang",
        "task",
        "id",
        "shadow",
        "eta",
        "expires",
        "group",
        "group_index",
        "retries",
        "timelimit",
        "root_id",
        "parent_id",
        "argsrepr",
        "kwargsrepr",
        "origin",
        "ignore_result",
        "replaced_task_nesting",
        "stamped_headers",
        "stamps",
    ]
)
_PLAIN_PROPERTIES = frozenset(
    [
        "correlation_id",
        "reply_to",
        "delivery_mode",
        "delivery_info",
        "priority",
        "body_encoding",
        "delivery_tag",
    ]
)
_NO_LINKS = {"callbacks": None, "errbacks": None, "chain": None, "chord": None}


def _keep_if_plain(channel: Any, queue: str, message: dict[str, Any], key: str) -> None:
    """Keep ``message`` as its task's copy if a plain call made it (``_is_plain_call``), and
    it has nothing that varies from one call to the next but its id and arguments."""
    broker_url = getattr(_copies, "recording", None)
    if not broker_url:
        return
    headers, properties = message.get("headers") or {}, message.get("properties") or {}
    task_id = headers.get("id")
    try:
        body = loads(_b64decode(message["body"]))
    except Exception:
        return
    plain = (
        set(message) == {"body", "content-encoding", "content-type", "headers", "properties"}
        and message["content-type"] == "application/json"
        and message["content-encoding"] == "utf-8"
        and set(headers) == _PLAIN_HEADERS
        and set(properties) == _PLAIN_PROPERTIES
        and properties["body_encoding"] == "base64"
        and task_id
        and headers["root_id"] == task_id == properties["correlation_id"]
        and all(headers[name] is None for name in ("shadow", "eta", "expires", "parent_id"))
        and all(headers[name] is None for name in ("group", "group_index", "stamped_headers"))
        and headers["retries"] == 0
        and headers["replaced_task_nesting"] == 0
        and headers["stamps"] == {}
        and headers["kwargsrepr"] == "{}"
        and isinstance(body, list)
        and len(body) == 3
        and body[1] == {}
        and body[2] == _NO_LINKS
        and not (channel._expires and queue in channel._expires)
    )
    if plain:
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
