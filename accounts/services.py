"""Changes to a player's account: each service is one transaction."""

from __future__ import annotations

from django.contrib import messages
from django.db import transaction
from django.http import HttpRequest
from django.utils import timezone

from accounts.models import EMAIL_CHOICE_FIELDS, EmailChoice, EmailKind, User
from accounts.signals import user_deleted
from infra import ratelimit

DELETED_USERNAME_PREFIX = "ancien-"


@transaction.atomic
def user_delete(*, user: User) -> User:
    """Remove the player's personal data; keep the row so finished games keep their seats."""
    from allauth.account.models import EmailAddress

    user = User.objects.select_for_update().get(pk=user.pk)
    if user.deleted_at is not None:
        return user
    EmailAddress.objects.filter(user=user).delete()
    user.username = f"{DELETED_USERNAME_PREFIX}{user.pk}"
    user.email = ""
    user.display_name = ""
    user.first_name = ""
    user.last_name = ""
    user.set_unusable_password()
    user.is_active = False
    user.is_staff = False
    user.is_superuser = False
    for field in EMAIL_CHOICE_FIELDS.values():
        setattr(user, field, EmailChoice.NEVER)
    user.report_emails = False
    user.deleted_at = timezone.now()
    user.save()
    user.groups.clear()
    user.user_permissions.clear()
    user_deleted.send(sender=User, user=user)
    return user


@transaction.atomic
def email_unsubscribe(*, user_id: int, kind: str) -> User | None:
    """Turn off one kind of email (or all); None when the player no longer exists.

    A kind with three choices becomes *never*; the daily digest's link turns every kind
    read in the digest to *never* (what else the player chose stays).
    """
    user = User.objects.select_for_update().filter(pk=user_id).first()
    if user is None:
        return None
    for preference, field in EMAIL_CHOICE_FIELDS.items():
        in_digest = getattr(user, field) == EmailChoice.DIGEST
        if kind in (preference, EmailKind.ALL) or (kind == EmailKind.DIGEST and in_digest):
            setattr(user, field, EmailChoice.NEVER)
    if kind in (EmailKind.REPORTS, EmailKind.ALL):
        user.report_emails = False
    if kind in (EmailKind.REMINDER, EmailKind.ALL):
        user.reminder_emails = False
    user.save(update_fields=[*EMAIL_CHOICE_FIELDS.values(), "report_emails", "reminder_emails"])
    return user


def confirmation_send_again(*, request: HttpRequest, user: User) -> bool:
    """Send ``user`` the link that confirms their address again; False if one went a moment ago.

    At most one per address every three minutes (``confirm-email`` in
    ``DIAMINO_RATE_LIMITS``): the earlier email's link still works. The page
    then says the email was sent, as allauth's own pages do.
    """
    from allauth.account.adapter import get_adapter
    from allauth.account.models import EmailAddress

    address = EmailAddress.objects.filter(user=user, email__iexact=user.email).first()
    if address is None:
        address = EmailAddress.objects.add_email(request, user, user.email)
    try:
        ratelimit.take(ratelimit.configured("confirm-email"), "address", address.email.lower())
    except ratelimit.RateLimited:
        return False
    address.send_confirmation(request)
    get_adapter(request).add_message(
        request,
        messages.INFO,
        "account/messages/email_confirmation_sent.txt",
        {"email": address.email, "login": True, "signup": False},
    )
    return True
