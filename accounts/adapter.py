"""allauth, the Diamino way: emails in the player's language, tidy usernames."""

from __future__ import annotations

from typing import Any
from urllib.parse import urlsplit

from allauth.account.adapter import DefaultAccountAdapter
from django import forms
from django.conf import settings
from django.contrib.sites.models import Site
from django.forms import BaseForm
from django.http import HttpRequest
from django.utils import translation
from django.utils.translation import gettext_lazy as _

from accounts.computers import USERNAME_PREFIX as COMPUTER_USERNAME_PREFIX
from accounts.models import User
from accounts.services import DELETED_USERNAME_PREFIX

LANGUAGE_CODES = ("fr", "en")


def _language_for(email: str, context: dict[str, Any]) -> str | None:
    user = context.get("user")
    if not isinstance(user, User):
        from allauth.account.models import EmailAddress

        address = EmailAddress.objects.filter(email__iexact=email).select_related("user").first()
        user = address.user if address else User.objects.filter(email__iexact=email).first()
    return user.language if user is not None else None


def site_of_settings() -> Site:
    """The site as SITE_URL and DIAMINO_SITE_NAME say now, for allauth's emails.

    The Sites row holds the address the database was migrated under, which
    `make run PORT=…` or a moved site no longer serves; the settings are the truth.
    """
    return Site(
        id=settings.SITE_ID, domain=urlsplit(settings.SITE_URL).netloc, name=settings.SITE_NAME
    )


class AccountAdapter(DefaultAccountAdapter):
    def send_mail(self, template_prefix: str, email: str, context: dict) -> None:
        """Send allauth's emails (confirmation, reset…) in the recipient's language.

        An address with no account behind it gets the language of the page it was asked from.
        """
        language = _language_for(email, context) or translation.get_language()
        with translation.override(language):
            super().send_mail(
                template_prefix, email, {"current_site": site_of_settings(), **context}
            )

    def save_user(
        self, request: HttpRequest, user: User, form: BaseForm, commit: bool = True
    ) -> User:
        # A new player keeps the language they signed up in.
        language = (translation.get_language() or "")[:2]
        if language in LANGUAGE_CODES:
            user.language = language
        return super().save_user(request, user, form, commit=commit)

    def clean_username(self, username: str, shallow: bool = False) -> str:
        # "@" would make log-in by username look like log-in by email, and the
        # prefixes belong to deleted accounts and to the computer players.
        if "@" in username:
            raise forms.ValidationError(_("A username cannot contain “@”."))
        for prefix in (DELETED_USERNAME_PREFIX, COMPUTER_USERNAME_PREFIX):
            if username.lower().startswith(prefix):
                raise forms.ValidationError(
                    _("Usernames starting with “%(prefix)s” are reserved."),
                    params={"prefix": prefix},
                )
        return super().clean_username(username, shallow=shallow)
