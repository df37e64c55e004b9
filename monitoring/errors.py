"""Errors reported to Sentry when ``SENTRY_DSN`` is set, with no personal data in them.

Sentry gets the exception, its stack (file, line, function; never the local
variables, where hands, game states and addresses live), the URL and the
request id. It never gets a request body, a cookie, a header that
authenticates, the user's address or IP (``send_default_pii`` off), nor the
value of any field named like private data (``PRIVATE_KEYS``) anywhere in the
event; an email address left in any text (an exception's message, a log line
kept as a breadcrumb) is replaced. Imported by the settings: Django is not
set up yet, so nothing here touches the apps.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from sentry_sdk.types import Event, Hint

FILTERED = "[Filtered]"
# Field names whose values are private: the hands and tiles (R-HIDE-1), what holds
# them (a game's deal and state, a move's record), and whatever identifies a person.
PRIVATE_KEYS = frozenset(
    {
        "hand",
        "hands",
        "tiles",
        "tiles_drawn",
        "tiles_returned",
        "rack",
        "deal",
        "setup",
        "state",
        "record",
        "email",
        "emails",
        "address",
        "addresses",
        "to",
        "cc",
        "bcc",
        "recipient",
        "recipients",
        "login",
        "password",
        "ip_address",
        "cookie",
        "cookies",
        "sessionid",
        "csrftoken",
        "authorization",
        "x-csrftoken",
    }
)
_EMAIL = re.compile(r"[\w.+-]+@[\w-]+(?:\.[\w-]+)+")
# The request's parts Sentry may keep: which page, not what was sent to it.
_REQUEST_KEPT = ("url", "method", "query_string", "env")
_HEADERS_KEPT = ("User-Agent", "Accept-Language", "Content-Type", "Content-Length", "Host")


def scrub(value: Any) -> Any:
    """``value`` with private fields filtered and email addresses replaced, at any depth."""
    if isinstance(value, str):
        return _EMAIL.sub("[email]", value)
    if isinstance(value, dict):
        return {
            key: FILTERED if str(key).lower() in PRIVATE_KEYS else scrub(item)
            for key, item in value.items()
        }
    if isinstance(value, list | tuple):
        return [scrub(item) for item in value]
    return value


def before_send(event: Event, hint: Hint) -> Event:
    """Sentry's last look at an event (and at a transaction) before it leaves the process."""
    request: Any = event.get("request")  # as the integrations filled it: checked below
    if isinstance(request, dict):
        kept = {key: request[key] for key in _REQUEST_KEPT if key in request}
        headers = request.get("headers") or {}
        kept["headers"] = {k: v for k, v in headers.items() if k in _HEADERS_KEPT}
        event["request"] = kept
    user = event.get("user")
    if isinstance(user, dict):
        event["user"] = {"id": user["id"]} if "id" in user else {}
    return scrub(event)


def before_breadcrumb(crumb: dict[str, Any], hint: dict[str, Any]) -> dict[str, Any]:
    return scrub(crumb)


def sentry_init(dsn: str, *, environment: str | None = None) -> None:
    import sentry_sdk
    from sentry_sdk.integrations.celery import CeleryIntegration
    from sentry_sdk.integrations.django import DjangoIntegration

    sentry_sdk.init(
        dsn=dsn,
        environment=environment,
        integrations=[DjangoIntegration(), CeleryIntegration()],
        send_default_pii=False,
        include_local_variables=False,
        max_request_body_size="never",
        before_send=before_send,
        before_send_transaction=before_send,
        before_breadcrumb=before_breadcrumb,
    )
