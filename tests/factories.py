"""Plain functions that make the objects tests need."""

from __future__ import annotations

import re
from typing import Any

from allauth.account.models import EmailAddress
from django.test import Client

from accounts.models import User

PASSWORD = "diamant-rouge-1964"


def make_player(
    username: str, *, verified: bool = True, password: str = PASSWORD, **fields: Any
) -> User:
    """A player with ``password`` and a primary allauth address, confirmed unless told."""
    fields.setdefault("email", f"{username.lower()}@example.com")
    user = User.objects.create_user(username=username, password=password, **fields)
    # A superuser already has its address (accounts/superusers.py): the factory's wins.
    EmailAddress.objects.update_or_create(
        user=user, email=user.email, defaults={"primary": True, "verified": verified}
    )
    return user


def page_as(user: User, url: str, *, language: str = "en") -> str:
    """The HTML of ``url`` for ``user`` signed in, in ``language`` (pages follow the setting)."""
    from django.test import Client

    user.language = language
    user.save(update_fields=["language"])
    client = Client()
    client.force_login(user)
    return client.get(url).content.decode()


def page_language(html: str) -> str | None:
    """The ``lang`` of a page's ``<html>`` element, whatever its other attributes."""
    found = re.search(r"<html\b[^>]*\blang=\"([^\"]*)\"", html)
    return found.group(1) if found else None


def client_as(user: User, language: str = "en") -> Client:
    """A test client signed in as ``user``, whose chosen language is ``language``."""
    user.language = language
    user.save(update_fields=["language"])
    client = Client()
    client.force_login(user)
    return client
