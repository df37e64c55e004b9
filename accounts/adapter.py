"""allauth, the Diamino way: emails through the outbox in the player's language, tidy usernames."""

from __future__ import annotations

from typing import Any
from urllib.parse import urlsplit, urlunsplit

from allauth.account.adapter import DefaultAccountAdapter, get_adapter
from allauth.core import context as allauth_context
from django import forms
from django.conf import settings
from django.contrib.sites.models import Site
from django.core.exceptions import ImproperlyConfigured
from django.core.mail import EmailMessage, EmailMultiAlternatives
from django.forms import BaseForm
from django.http import HttpRequest
from django.template.loader import render_to_string
from django.utils import translation
from django.utils.translation import gettext_lazy as _

from accounts.computers import USERNAME_PREFIX as COMPUTER_USERNAME_PREFIX
from accounts.models import User
from accounts.names import name_taken
from accounts.services import DELETED_USERNAME_PREFIX
from accounts.signals import account_email_rendered
from infra import ratelimit

LANGUAGE_CODES = ("fr", "en")
LOOK_ALIKE_USERNAME = _(
    "This username looks too much like a player's username or display name (letters "
    "differing only by case, accents or look-alike characters count as the same). "
    "Choose another."
)
# DIAMINO_RATE_LIMITS' limit on failed log-ins per account and address.
LOGIN_FAILED = "login-failed"


def _login_key(request: HttpRequest, credentials: dict[str, Any]) -> tuple[object, ...]:
    """Whose failed log-ins: the login typed (address or username) from the client's address."""
    login = str(credentials.get("email", credentials.get("username", ""))).lower()
    return ("login", login, get_adapter(request).get_client_ip(request))


def login_failures_forget(request: HttpRequest, user: User, **_: Any) -> None:
    """A reset password: the account's failed log-ins from this address are forgotten.

    Connected to allauth's ``password_reset`` signal (``accounts/apps.py``).
    """
    from allauth.account.models import EmailAddress

    logins = {
        user.username,
        *EmailAddress.objects.filter(user=user).values_list("email", flat=True),
    }
    for login in logins:
        key = ("login", login.lower(), get_adapter(request).get_client_ip(request))
        ratelimit.forget(ratelimit.configured(LOGIN_FAILED), *key)


def _recipient(email: str, context: dict[str, Any]) -> User | None:
    """The account an allauth email is about, if there is one behind the address."""
    user = context.get("user")
    if isinstance(user, User):
        return user
    from allauth.account.models import EmailAddress

    address = EmailAddress.objects.filter(email__iexact=email).select_related("user").first()
    return address.user if address else User.objects.filter(email__iexact=email).first()


def _on_site(key: str, value: Any) -> Any:
    """A link allauth made from the request's address (``*_url``), moved onto SITE_URL.

    allauth builds its links with ``request.build_absolute_uri``: behind a proxy
    that passes its own Host (nginx's default ``proxy_pass http://127.0.0.1:8000``)
    they would point at the proxy's upstream, and nobody could confirm an address
    or reset a password. SITE_URL is where players reach the site.
    """
    if not key.endswith("_url") or not isinstance(value, str):
        return value
    link = urlsplit(value)
    if link.scheme not in ("http", "https") or not link.netloc:
        return value
    site = urlsplit(settings.SITE_URL)
    path = site.path.rstrip("/") + link.path
    return urlunsplit((site.scheme, site.netloc, path, link.query, link.fragment))


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
        """Put allauth's emails (confirmation, reset…) in the outbox, in the recipient's language.

        Rendered here, since their links are made in the request, and sent by a
        worker (``notifications/account_emails.py``): an SMTP server that refuses never fails
        the page. An address with no account behind it gets the language of the
        page it was asked from.
        """
        context = {key: _on_site(key, value) for key, value in context.items()}
        user = _recipient(email, context)
        language = user.language if user is not None else translation.get_language()
        request = allauth_context.request
        with translation.override(language):
            message = self.render_mail(
                template_prefix,
                email,
                {
                    "request": request,
                    "email": email,
                    "current_site": site_of_settings(),
                    "site_url": settings.SITE_URL.rstrip("/"),
                    "language": translation.get_language(),
                    **context,
                },
            )
        received = account_email_rendered.send(
            sender=User, message=message, template_prefix=template_prefix, recipient=user
        )
        if not received:  # never dropped without a word
            raise ImproperlyConfigured(
                "nothing receives accounts.signals.account_email_rendered: the email to "
                f"{email} would be lost (notifications, the outbox, is not installed?)"
            )

    def render_mail(
        self,
        template_prefix: str,
        email: str | list[str],
        context: dict[str, Any],
        headers: dict[str, str] | None = None,
    ) -> EmailMessage:
        """allauth's text, and an HTML part in the site's design made from it.

        allauth's emails come as text templates (``account/email/*_message.txt``,
        their footer in our ``base_message.txt``); the HTML part puts the same
        words, links made clickable, in ``emails/base_email.html`` rather than
        keeping a second copy of each template.
        """
        message = super().render_mail(template_prefix, email, context, headers)
        if isinstance(message, EmailMultiAlternatives) and not message.alternatives:
            body = render_to_string(
                f"{template_prefix}_message.txt", {**context, "body_only": True}, context["request"]
            ).strip()
            html = render_to_string(
                "emails/account_body.html", {**context, "body": body, "subject": message.subject}
            )
            message.attach_alternative(html, "text/html")
        return message

    # Failed log-ins are counted per address by allauth (``login_failed`` in
    # ACCOUNT_RATE_LIMITS) and per account *and address* here. allauth's own "key"
    # limit counts per account alone, so a stranger's five wrong passwords kept
    # the owner out too, from anywhere. With the address in the key, the stranger
    # is stopped (and also by the per-address limit) while the owner, from their
    # own address, still logs in. A successful log-in counts nothing, and a
    # password reset clears the count for the address it was done from
    # (``login_failures_forget``).

    def pre_authenticate(self, request: HttpRequest, **credentials: Any) -> None:
        super().pre_authenticate(request, **credentials)
        try:
            ratelimit.take(ratelimit.configured(LOGIN_FAILED), *_login_key(request, credentials))
        except ratelimit.RateLimited:
            raise forms.ValidationError(
                self.error_messages["too_many_login_attempts"], code="too_many_login_attempts"
            ) from None

    def authenticate(self, request: HttpRequest, **credentials: Any) -> User | None:
        user = super().authenticate(request, **credentials)
        if user is not None:  # not a failure: the attempt is given back
            ratelimit.give_back(
                ratelimit.configured(LOGIN_FAILED), *_login_key(request, credentials)
            )
        return user

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
        username = super().clean_username(username, shallow=shallow)
        # Not a look-alike of a player's username or display name (accounts/names.py):
        # allauth checks the exact name, case aside, and only when not ``shallow``.
        if not shallow and name_taken(username):
            raise forms.ValidationError(LOOK_ALIKE_USERNAME)
        return username
