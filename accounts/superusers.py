"""A superuser's address counts as verified, so staff can sign in to the site too.

``manage.py createsuperuser`` writes the user row alone; allauth, whose
verification is mandatory here, would then send the new superuser to "verify
your email" at every log-in on the site. Whoever can run ``manage.py`` on the
server needs no emailed proof of their address. The row is written on any
save of a superuser who has no address row yet, so a superuser made before
this (or promoted in a shell) is set right by their next save, such as
logging in to the admin.
"""

from __future__ import annotations

from typing import Any

from allauth.account.models import EmailAddress

from accounts.models import User


def superuser_address_verify(sender: type[User], instance: User, **kwargs: Any) -> None:
    if not (instance.is_superuser and instance.email):
        return
    if EmailAddress.objects.filter(user=instance).exists():
        return  # an address of their own, verified or not, is allauth's to handle
    EmailAddress.objects.create(
        user=instance, email=instance.email.lower(), verified=True, primary=True
    )
