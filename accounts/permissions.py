"""Who may play: signed in, active, not deleted, with a confirmed address."""

from __future__ import annotations

from collections.abc import Callable
from functools import wraps
from typing import Any

from django.contrib.auth.views import redirect_to_login
from django.http import HttpRequest, HttpResponse, HttpResponseForbidden
from django.shortcuts import redirect
from django.template.loader import render_to_string
from django.urls import reverse
from django.utils.http import urlencode

from accounts.models import User

View = Callable[..., HttpResponse]


def has_verified_primary_email(user: User) -> bool:
    from allauth.account.models import EmailAddress

    return EmailAddress.objects.filter(user=user, primary=True, verified=True).exists()


def can_play(user: Any) -> bool:
    """Whether ``user`` may join or create games."""
    return bool(
        user is not None
        and user.is_authenticated
        and user.is_active
        and user.deleted_at is None
        and has_verified_primary_email(user)
    )


def player_required(view: View) -> View:
    """Let through only players who ``can_play``.

    Anonymous visitors go to the log-in page (htmx requests get a 403 and an
    ``HX-Redirect`` there); players whose address is unconfirmed go to a page
    that explains it and offers to resend the confirmation (htmx: a 403 saying so).
    """

    @wraps(view)
    def wrapper(request: HttpRequest, *args: Any, **kwargs: Any) -> HttpResponse:
        user = request.user
        if can_play(user):
            return view(request, *args, **kwargs)
        htmx = bool(getattr(request, "htmx", False))
        if not user.is_authenticated:
            if htmx:
                login = reverse("account_login") + "?" + urlencode({"next": request.path})
                response = _forbidden(request, "login")
                response["HX-Redirect"] = login
                return response
            return redirect_to_login(request.get_full_path())
        if htmx:
            return _forbidden(request, "confirm")
        target = reverse("accounts:confirm_email_first")
        return redirect(target + "?" + urlencode({"next": request.get_full_path()}))

    return wrapper


def _forbidden(request: HttpRequest, reason: str) -> HttpResponseForbidden:
    html = render_to_string("accounts/_cannot_play.html", {"reason": reason}, request=request)
    return HttpResponseForbidden(html)
