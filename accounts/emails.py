"""Every email to a player is built here, in their language, with a way out.

``build_email`` renders the triple ``emails/<name>_subject.txt``,
``emails/<name>_body.txt`` and ``emails/<name>_body.html`` in the recipient's
language and time zone, adds a signed one-click unsubscribe link for the kind
of email, and sets the ``List-Unsubscribe`` headers (RFC 2369, RFC 8058).
Callers check ``wants_email`` first, then ``build_email(...).send()``.

Subject and text templates start with ``{% autoescape off %}`` (the text body
does so by extending ``emails/base_email.txt``).
"""

from __future__ import annotations

import re
import zoneinfo
from typing import Any

from django.conf import settings
from django.core import signing
from django.core.mail import EmailMultiAlternatives
from django.template.loader import render_to_string
from django.urls import reverse
from django.utils import timezone, translation

from accounts.models import EMAIL_CHOICE_FIELDS, EmailChoice, EmailKind, User

UNSUBSCRIBE_SALT = "accounts.unsubscribe"

# Kinds a caller may send, and the preference (unsubscribe kind) each belongs to.
# "turn" is one email per move; "digest" the daily one (#35: the games waiting and the
# events of every kind the player reads there), its link stops every digest choice.
# "reminder", the warning before a deadline, has a switch of its own.
SENDABLE_KINDS: dict[str, str] = {
    "turn": EmailKind.TURN,
    "digest": EmailKind.DIGEST,
    "reminder": EmailKind.REMINDER,
    "invitations": EmailKind.INVITATIONS,
    "game-over": EmailKind.GAME_OVER,
    # News of the same setting that the digest does not list (a league's steps, invitations
    # held back): sent on its own whether the player chose each time or the digest.
    "invitations-news": EmailKind.INVITATIONS,
    "game-over-news": EmailKind.GAME_OVER,
    "reports": EmailKind.REPORTS,
    # What the quiet hours held, several kinds in one email (notifications/quiet.py):
    # built only, never asked of ``wants_email`` (each row it lists was).
    "quiet-summary": EmailKind.ALL,
}
NEWS_KINDS = frozenset({"invitations-news", "game-over-news"})


def email_choice(user: User, preference: str) -> str | None:
    """The player's ``EmailChoice`` for a preference that has one (turn, invitations, games ending)."""
    field = EMAIL_CHOICE_FIELDS.get(preference)
    return str(getattr(user, field)) if field is not None else None


def reads_digest(user: User) -> bool:
    """Whether the player chose the daily digest for any kind of event."""
    return any(getattr(user, field) == EmailChoice.DIGEST for field in EMAIL_CHOICE_FIELDS.values())


def in_digest_instead(user: User, kind: str) -> bool:
    """Whether an email of ``kind`` is one the player reads as a line of the daily digest."""
    preference = _preference_kind(kind)
    return kind not in NEWS_KINDS and email_choice(user, preference) == EmailChoice.DIGEST


class BadUnsubscribeToken(Exception):
    """The token was not made by us, was altered, or names no kind we know."""


def _preference_kind(kind: str) -> str:
    try:
        return SENDABLE_KINDS[kind]
    except KeyError:
        raise ValueError(
            f"unknown email kind {kind!r}; expected one of {sorted(SENDABLE_KINDS)}"
        ) from None


def absolute_url(path: str) -> str:
    return settings.SITE_URL.rstrip("/") + path


def unsubscribe_token(user: User, kind: str) -> str:
    """A signed, salted token naming the user and the kind of email to stop."""
    if kind not in EmailKind.values:
        raise ValueError(f"unknown unsubscribe kind {kind!r}")
    return signing.dumps({"u": user.pk, "k": kind}, salt=UNSUBSCRIBE_SALT, compress=True)


def read_unsubscribe_token(token: str) -> tuple[int, str]:
    """The (user id, kind) a token names; ``BadUnsubscribeToken`` when it is not ours."""
    try:
        data = signing.loads(token, salt=UNSUBSCRIBE_SALT)
    except signing.BadSignature as exc:
        raise BadUnsubscribeToken(str(exc)) from exc
    if not isinstance(data, dict):
        raise BadUnsubscribeToken("not a mapping")
    user_id, kind = data.get("u"), data.get("k")
    if not isinstance(user_id, int) or kind not in EmailKind.values:
        raise BadUnsubscribeToken("missing user or kind")
    return user_id, kind


def unsubscribe_url(user: User, kind: str) -> str:
    """The absolute one-click unsubscribe link for ``kind`` ("turn", …, or "all")."""
    path = reverse("accounts:unsubscribe", kwargs={"token": unsubscribe_token(user, kind)})
    return absolute_url(path)


def has_confirmed_address(user: User) -> bool:
    """Whether ``user.email`` is one of their addresses allauth marked verified (any case)."""
    from allauth.account.models import EmailAddress

    if not user.email:
        return False
    return EmailAddress.objects.filter(
        user_id=user.pk, email__iexact=user.email, verified=True
    ).exists()


def wants_email(user: User, kind: str) -> bool:
    """Whether ``user`` should get an email of ``kind`` now.

    ``kind`` is one of ``SENDABLE_KINDS``: "turn", "invitations" and "game-over" go when
    the player chose *each time* for them, the "…-news" kinds unless they chose *never*;
    "digest" goes when they chose the digest for any of them; "reminder" and (staff)
    "reports" follow their on/off switch.
    Deleted or inactive players, and players without a confirmed address, get
    nothing.
    """
    preference = _preference_kind(kind)
    if not user.is_active or user.deleted_at is not None:
        return False
    choice = email_choice(user, preference)
    if preference == EmailKind.DIGEST:
        wanted = reads_digest(user)
    elif choice is None:
        wanted = _switched_on(user, preference)
    elif kind in NEWS_KINDS:
        wanted = choice != EmailChoice.NEVER
    else:
        wanted = choice == EmailChoice.EACH
    return wanted and has_confirmed_address(user)


def _switched_on(user: User, preference: str) -> bool:
    """The player's on/off setting for reminders or (staff) reports."""
    switches: dict[str, bool] = {
        EmailKind.REPORTS: user.report_emails,
        EmailKind.REMINDER: user.reminder_emails,
    }
    return switches[preference]


def build_email(
    user: User, name: str, context: dict[str, Any], *, kind: str, reply_to: str = ""
) -> EmailMultiAlternatives:
    """The email ``emails/<name>_*`` for ``user``, ready to ``send()``.

    ``reply_to``: the message's ``Reply-To`` (a game's reply address, #24), if any.

    Rendered in the user's language and time zone. The context also holds
    ``user``, ``site_url``, ``settings_url``, ``unsubscribe_url`` and ``email_kind_label``.
    The HTML body extends ``emails/base_email.html``, the text body ``emails/base_email.txt``:
    both add the footer with the unsubscribe link.
    """
    preference = _preference_kind(kind)
    if not user.email:
        raise ValueError(f"user {user.pk} has no email address")
    link = unsubscribe_url(user, preference)
    try:
        zone = zoneinfo.ZoneInfo(user.time_zone)
    except (zoneinfo.ZoneInfoNotFoundError, ValueError):
        zone = zoneinfo.ZoneInfo(settings.TIME_ZONE)
    with translation.override(user.language), timezone.override(zone):
        full_context = {
            **context,
            "user": user,
            "site_url": settings.SITE_URL.rstrip("/"),
            "settings_url": absolute_url(reverse("accounts:settings")),
            "unsubscribe_url": link,
            "email_kind": preference,
            "email_kind_label": EmailKind(preference).label,
            "language": user.language,
        }
        subject: str = render_to_string(f"emails/{name}_subject.txt", full_context)
        text = render_to_string(f"emails/{name}_body.txt", full_context)
        html = render_to_string(f"emails/{name}_body.html", full_context)
    # One line, but only ASCII whitespace is folded: str.split() would also eat the
    # non-breaking space French puts before a colon ("Invitation de claire : …").
    subject = settings.ACCOUNT_EMAIL_SUBJECT_PREFIX + re.sub(r"[ \t\r\n]+", " ", subject).strip()
    message = EmailMultiAlternatives(
        subject=subject,
        body=text,
        from_email=settings.DEFAULT_FROM_EMAIL,
        to=[user.email],
        reply_to=[reply_to] if reply_to else None,
        headers={
            "List-Unsubscribe": f"<{link}>",
            "List-Unsubscribe-Post": "List-Unsubscribe=One-Click",
        },
    )
    message.attach_alternative(html, "text/html")
    return message
