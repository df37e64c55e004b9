"""The request types the views are annotated with, and the signed-in user of a request.

Django's stubs type ``request.user`` as ``User | AnonymousUser`` and know nothing
of django-htmx's middleware (settings.MIDDLEWARE), which gives every request its
``htmx``. A view behind ``login_required`` or ``player_required`` takes a
``SignedInRequest``; any other view that reads ``request.htmx`` an ``HtmxRequest``
(both for mypy only). Where the signature is Django's (the admin's methods),
``user_of`` gives the user.
"""

from __future__ import annotations

from django.core.exceptions import PermissionDenied
from django.http import HttpRequest
from django_htmx.middleware import HtmxDetails

from accounts.models import User


class HtmxRequest(HttpRequest):
    htmx: HtmxDetails


class SignedInRequest(HtmxRequest):
    user: User


def user_of(request: HttpRequest) -> User:
    """``request.user`` where only a signed-in player gets in (the admin lets in staff only)."""
    user = request.user
    if not isinstance(user, User):
        raise PermissionDenied
    return user
