from __future__ import annotations

from allauth.account.apps import AccountConfig
from django.apps import AppConfig
from django.db.models.signals import post_save
from django.utils.translation import gettext_lazy as _


class AccountsConfig(AppConfig):
    name = "accounts"
    # The players and their vacations. Not "Accounts": allauth's app has that
    # name, and the admin would show two sections of the same name.
    verbose_name = _("Players")

    def ready(self) -> None:
        from accounts.models import User
        from accounts.outbox import register_kind
        from accounts.superusers import superuser_address_verify

        register_kind()  # allauth's emails go through the outbox (accounts/outbox.py)
        post_save.connect(superuser_address_verify, sender=User, dispatch_uid="superuser-address")


class EmailAddressesConfig(AccountConfig):
    """allauth's account app (INSTALLED_APPS), named in the admin for what it holds there."""

    verbose_name = _("Email addresses")
