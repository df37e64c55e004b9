"""Emails built from a template and a context, for the kinds of ``notifications/kinds.py``.

The outbox knows no game and no report: ``games`` and ``moderation`` register a
builder per kind from their ``AppConfig.ready`` (``games/emails.py``,
``moderation/emails.py``) with ``register(kind, builder)``, which registers the
kind with the outbox (``kinds.register``) to be rendered here. A builder reads
fresh rows when the row is sent and returns the template name and context that
``accounts.emails.build_email`` turns into the message (recipient's language
and time zone, unsubscribe link and headers), or raises ``Skip`` when the
notification no longer makes sense (the player already moved, the table
closed, the report was resolved). A context's ``reply_to`` (a string) becomes
the message's ``Reply-To`` header: the games' turn emails put a seat's signed
reply address there (play by mail, #24); the outbox only carries it.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from django.core.mail import EmailMultiAlternatives
from django.utils import translation

from accounts.emails import build_email
from notifications import kinds
from notifications.kinds import Skip
from notifications.models import Notification
from notifications.services import EMAIL_KIND, why_not

__all__ = ["Renderer", "Skip", "UnknownKind", "built_kinds", "register", "render"]

Renderer = Callable[[Notification], tuple[str, dict[str, Any]]]

_RENDERERS: dict[str, Renderer] = {}


class UnknownKind(LookupError):
    """No app registered a builder for this kind of notification."""


def register(kind: str, renderer: Renderer) -> None:
    """Build notifications of ``kind`` with ``renderer`` (call it from ``AppConfig.ready``).

    Registering the same renderer again is harmless (``ready`` may run twice in
    tests); a second, different renderer for one kind is a mistake and raises.
    """
    known = _RENDERERS.get(kind)
    if known is not None and known is not renderer:
        raise ValueError(f"the notification kind {kind!r} already has a renderer: {known!r}")
    _RENDERERS[kind] = renderer
    kinds.register(kind, render=render, why_not=why_not)


def built_kinds() -> set[str]:
    """Every kind a builder is registered for."""
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
    reply_to = context.get("reply_to")
    return build_email(
        user,
        name,
        context,
        kind=EMAIL_KIND[row.kind],
        reply_to=reply_to if isinstance(reply_to, str) else "",
    )
