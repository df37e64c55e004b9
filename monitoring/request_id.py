"""A request id on every response (``X-Request-ID``) and on every log line written for it.

The id comes from the proxy in front when it sends one (nginx's
``$request_id``, a load balancer's), so one id follows the request through
every log; otherwise it is made here. A reported error carries it too (the
``request_id`` tag when Sentry is on), which is what a player quoting the
id of a failed page lets staff find.

A task queued while serving a request carries its id in the task message (a
header, ``request_id``): in the worker its log lines and its Sentry events
carry the same id, so a move's lines and its emails' lines are found
together, and a task it queues in turn carries it on. A task queued outside
any request (beat's sweeps, a command) has none: its lines say ``-``, and so
do those of the tasks it queues, such as an email the outbox sweep sends
again after the broker was away.
"""

from __future__ import annotations

import logging
import re
import uuid
from collections.abc import Callable
from contextvars import ContextVar
from typing import TYPE_CHECKING, Any

import sentry_sdk
from django.http import HttpRequest, HttpResponse

if TYPE_CHECKING:
    from celery import Task

HEADER = "X-Request-ID"
# What a proxy's id may look like; anything else (too long, spaces, markup) is replaced.
_ACCEPTED = re.compile(r"[A-Za-z0-9._:-]{8,128}")

# The task message's header that carries the id from the process queueing a task to the worker.
TASK_HEADER = "request_id"

current_request_id: ContextVar[str | None] = ContextVar("current_request_id", default=None)


class RequestIdMiddleware:
    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        given = request.headers.get(HEADER, "")
        request_id = given if _ACCEPTED.fullmatch(given) else uuid.uuid4().hex
        request.request_id = request_id  # type: ignore[attr-defined]
        token = current_request_id.set(request_id)
        sentry_sdk.set_tag("request_id", request_id)  # nothing when Sentry is off
        try:
            response = self.get_response(request)
        finally:
            current_request_id.reset(token)
        response[HEADER] = request_id
        return response


class RequestIdFilter(logging.Filter):
    """Gives each record ``request_id``: the request being served, or "-" outside one."""

    def filter(self, record: logging.LogRecord) -> bool:
        record.request_id = current_request_id.get() or "-"
        return True


def task_publishing(headers: dict[str, Any] | None = None, **_: object) -> None:
    """Celery's ``before_task_publish``: the message carries the id being served, if any.

    Sent in the process that queues the task (a web process, or a worker
    running a task that queues another), where ``headers`` may be changed.
    """
    request_id = current_request_id.get()
    if request_id and headers is not None:
        headers.setdefault(TASK_HEADER, request_id)


def task_starting(task: Task | None = None, **_: object) -> None:
    """Celery's ``task_prerun``: a worker's task logs and reports under its message's id.

    An eager task (the embedded default, or ``apply()``) runs inside its
    caller, whose id is already the current one: it is left as it is. In a
    worker, the task's Sentry scope (the Celery integration gives each task
    its own, from before this signal to after ``task_postrun``) gets the tag.
    """
    if task is None or task.request.is_eager:
        return
    given = task.request.get(TASK_HEADER)
    request_id = given if isinstance(given, str) and _ACCEPTED.fullmatch(given) else None
    current_request_id.set(request_id)
    if request_id:
        sentry_sdk.set_tag("request_id", request_id)  # nothing when Sentry is off


def task_finished(task: Task | None = None, **_: object) -> None:
    """Celery's ``task_postrun``: between tasks a worker serves no request."""
    if task is None or task.request.is_eager:
        return
    current_request_id.set(None)
