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
        from allauth.account.signals import password_reset

        from accounts.adapter import login_failures_forget
        from accounts.models import User
        from accounts.superusers import superuser_address_verify

        post_save.connect(superuser_address_verify, sender=User, dispatch_uid="superuser-address")
        password_reset.connect(login_failures_forget, dispatch_uid="login-failures-forget")


class EmailAddressesConfig(AccountConfig):
    """allauth's account app (INSTALLED_APPS), named in the admin for what it holds there."""

    verbose_name = _("Email addresses")
