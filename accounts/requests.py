"""The request types the views are annotated with (for mypy; nothing here runs).

Django's stubs type ``request.user`` as ``User | AnonymousUser`` and know nothing
of django-htmx's middleware (settings.MIDDLEWARE), which gives every request its
``htmx``. A view behind ``login_required`` or ``player_required`` takes a
``SignedInRequest``; any other view that reads ``request.htmx`` an ``HtmxRequest``.
"""

from __future__ import annotations

from django.http import HttpRequest
from django_htmx.middleware import HtmxDetails

from accounts.models import User


class HtmxRequest(HttpRequest):
    htmx: HtmxDetails


class SignedInRequest(HtmxRequest):
    user: User
