from __future__ import annotations

from django.contrib import admin, messages
from django.db.models import QuerySet
from django.http import HttpRequest
from django.utils import timezone
from django.utils.translation import gettext_lazy as _

from notifications import kinds
from notifications.models import Notification
from notifications.services import notification_queue


@admin.register(Notification)
class NotificationAdmin(admin.ModelAdmin):
    list_display = (
        "created_at",
        "kind",
        "channel",
        "recipient",
        "game",
        "status",
        "attempts",
        "sent_at",
        "reason",
    )
    list_filter = ("status", "kind", "channel")
    search_fields = ("recipient__username", "recipient__email", "key")
    date_hierarchy = "created_at"
    list_select_related = ("recipient", "game")
    raw_id_fields = ("recipient", "game")
    exclude = ("context",)  # shown read-only as shown_context
    readonly_fields = (
        "recipient",
        "kind",
        "channel",
        "subscription",
        "game",
        "key",
        "shown_context",
        "status",
        "attempts",
        "next_attempt_at",
        "claimed_at",
        "sent_at",
        "reason",
        "last_error",
        "created_at",
    )
    actions = ["send_again"]

    @admin.display(description=_("context"))
    def shown_context(self, row: Notification) -> object:
        # An account email's context is the rendered message, reset link included:
        # staff must not be able to read it and sign in as the player.
        # (A push row's kind may have no email at all: chat.)
        is_email = row.channel == Notification.Channel.EMAIL
        if row.context and is_email and kinds.get(row.kind).forget_after_send:
            return _("(hidden: it holds the email's private links; emptied once sent)")
        return row.context

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False  # rows come from game events only

    @admin.action(description=_("Try failed notifications again"))
    def send_again(self, request: HttpRequest, queryset: QuerySet[Notification]) -> None:
        ids = list(queryset.filter(status=Notification.Status.FAILED).values_list("pk", flat=True))
        Notification.objects.filter(pk__in=ids, status=Notification.Status.FAILED).update(
            status=Notification.Status.PENDING, attempts=0, next_attempt_at=timezone.now()
        )
        for pk in ids:
            notification_queue(pk)
        self.message_user(
            request, _("%(n)d notifications queued again.") % {"n": len(ids)}, messages.SUCCESS
        )
