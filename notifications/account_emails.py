"""allauth's emails through the outbox: written with the request, sent by a worker.

allauth renders its emails in the request (confirmation, password reset,
email changed, unknown account…): their links carry keys and tokens made
there. So the adapter renders the message in the recipient's language and
hands it here, and the row's context holds the rendered message (addresses,
subject, text and HTML) instead of ids to render from later. The outbox then
does what it does for every email: the row commits with the request, a worker
sends it once, an SMTP refusal is retried with backoff, the sweep finds what
the broker lost. Once the email is sent (or given up) the context is emptied
(``forget_after_send``): a reset link has no business staying in the database.

accounts sits below the outbox, so its adapter does not call it: it sends
``accounts.signals.account_email_rendered``, which ``account_email_write``
receives (connected by ``NotificationsConfig.ready``); the adapter raises when
nothing receives it, so an email is never dropped without a word.

Account emails ignore the email preferences: they are what the player asked
for, and a confirmation goes to an address not yet confirmed by design.
"""

from __future__ import annotations

import uuid
from typing import Any

from django.core.mail import EmailMessage, EmailMultiAlternatives

from accounts.models import User
from notifications import kinds
from notifications.models import Notification
from notifications.services import notification_write

KIND = Notification.Kind.ACCOUNT


def account_email_write(
    *, message: EmailMessage, template_prefix: str, recipient: User | None, **_: Any
) -> Notification | None:
    """Put one rendered allauth email in the outbox (inside the request that sent it).

    The receiver of ``accounts.signals.account_email_rendered`` (``**_``: the
    signal's ``sender`` and ``signal``).
    """
    # allauth's render_mail gives an EmailMessage, with alternatives when it has a text part.
    alternatives = message.alternatives if isinstance(message, EmailMultiAlternatives) else []
    html = next((body for body, mimetype in alternatives if mimetype == "text/html"), "")
    name = template_prefix.rsplit("/", 1)[-1]
    return notification_write(
        recipient=recipient,
        kind=KIND,
        # Each email allauth sends is an event of its own: nothing to deduplicate.
        key=f"account:{name}:{uuid.uuid4().hex}"[:120],
        context={
            "template": name,
            "from": message.from_email,
            "to": list(message.to),
            "subject": message.subject,
            "text": message.body,
            "html": html,
        },
    )


def _render(row: Notification) -> EmailMessage:
    context = row.context
    if not context.get("to"):
        raise kinds.Skip("the email was sent already or never rendered")
    message = EmailMultiAlternatives(
        subject=context["subject"],
        body=context["text"],
        from_email=context["from"],
        to=context["to"],
    )
    if context.get("html"):
        message.attach_alternative(context["html"], "text/html")
    return message


def _why_not(recipient: User | None, kind: str) -> str:
    # Asked for by the account itself, so no preference stops it; but an account
    # deleted since is gone with its address.
    if recipient is not None and recipient.deleted_at is not None:
        return "the account was deleted"
    return ""


def register_kind() -> None:
    kinds.register(KIND, render=_render, why_not=_why_not, forget_after_send=True)
