"""A request id on every response (``X-Request-ID``) and on every log line written for it.

The id comes from the proxy in front when it sends one (nginx's
``$request_id``, a load balancer's), so one id follows the request through
every log; otherwise it is made here. A reported error carries it too (the
``request_id`` tag when Sentry is on), which is what a player quoting the
id of a failed page lets staff find.
"""

from __future__ import annotations

import logging
import re
import uuid
from collections.abc import Callable
from contextvars import ContextVar

import sentry_sdk
from django.http import HttpRequest, HttpResponse

HEADER = "X-Request-ID"
# What a proxy's id may look like; anything else (too long, spaces, markup) is replaced.
_ACCEPTED = re.compile(r"[A-Za-z0-9._:-]{8,128}")

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
