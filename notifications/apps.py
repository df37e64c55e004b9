from __future__ import annotations

from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class NotificationsConfig(AppConfig):
    name = "notifications"
    verbose_name = _("Notifications")

    def ready(self) -> None:
        from accounts.signals import account_email_rendered
        from notifications.account_emails import account_email_write, register_kind

        # allauth's emails go through the outbox (notifications/account_emails.py).
        register_kind()
        # A digest sent (or skipped) marks the events it went through (notifications/services.py).
        from notifications import kinds
        from notifications.models import Notification
        from notifications.services import digest_told

        kinds.when_done(Notification.Kind.DIGEST, digest_told)
        account_email_rendered.connect(account_email_write, dispatch_uid="account-email-write")
        # A deleted account's devices go with it (the row stays, anonymised: no cascade).
        from accounts.signals import user_deleted
        from notifications.push import chat_kind_register, subscriptions_forget

        chat_kind_register()

        user_deleted.connect(subscriptions_forget, dispatch_uid="push-subscriptions-forget")
