"""The registry of renderers: each app says how its kinds of notification read as an email.

The outbox knows no game and no report: ``games`` and ``moderation`` register a
renderer per kind from their ``AppConfig.ready`` (``games/emails.py``,
``moderation/emails.py``). A renderer reads fresh rows when the row is sent and
returns the template name and context that ``accounts.emails.build_email``
turns into the message (recipient's language and time zone, unsubscribe link
and headers), or raises ``Skip`` when the notification no longer makes sense
(the player already moved, the table closed, the report was resolved).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from django.core.mail import EmailMultiAlternatives
from django.utils import translation

from accounts.emails import build_email
from notifications.models import Notification
from notifications.services import EMAIL_KIND

Renderer = Callable[[Notification], tuple[str, dict[str, Any]]]

_RENDERERS: dict[str, Renderer] = {}


class Skip(Exception):
    """Nothing to send any more; the message says why (for the admin)."""


class UnknownKind(LookupError):
    """No app registered a renderer for this kind of notification."""


def register(kind: str, renderer: Renderer) -> None:
    """Render notifications of ``kind`` with ``renderer`` (call it from ``AppConfig.ready``).

    Registering the same renderer again is harmless (``ready`` may run twice in
    tests); a second, different renderer for one kind is a mistake and raises.
    """
    known = _RENDERERS.get(kind)
    if known is not None and known is not renderer:
        raise ValueError(f"the notification kind {kind!r} already has a renderer: {known!r}")
    _RENDERERS[kind] = renderer


def kinds() -> set[str]:
    """Every kind a renderer is registered for."""
    return set(_RENDERERS)


def renderer_of(kind: str) -> Renderer:
    try:
        return _RENDERERS[kind]
    except KeyError:
        raise UnknownKind(
            f"no renderer is registered for the notification kind {kind!r}: register one "
            "from the AppConfig.ready of the app that writes it (notifications.renderers)"
        ) from None


def render(row: Notification) -> EmailMultiAlternatives:
    """The email for ``row``, in its recipient's language and time zone."""
    user = row.recipient
    if not user.email:
        raise Skip("the player has no email address")
    renderer = renderer_of(row.kind)
    with translation.override(user.language):
        name, context = renderer(row)
    return build_email(user, name, context, kind=EMAIL_KIND[row.kind])
