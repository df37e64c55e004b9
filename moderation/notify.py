"""Staff hear of a new report; called inside ``report_create``'s transaction.

Each active staff member who may act on the report gets one outbox row, keyed
by the report and the staff member, so writing it twice gives one email. A
staff member who is part of the case — the reporter, the reported player, or
seated at the game — is not told: ``services.own_case`` refuses them the
report, and another staff member must resolve it. The email is rendered when
sent (``moderation/emails.py``), in the staff member's language, and dropped
if the report was resolved meanwhile.
"""

from __future__ import annotations

from django.db.models import QuerySet

from accounts.models import User
from moderation.models import Report
from notifications.models import Notification
from notifications.services import notification_write


def staff_to_tell(report: Report) -> QuerySet[User]:
    """Active staff who could resolve ``report``: not part of it (``services.own_case``)."""
    return (
        User.objects.filter(is_active=True, is_staff=True, deleted_at__isnull=True)
        .exclude(pk__in=report.game.seats.values("player_id"))
        .exclude(pk=report.reporter_id)
        .exclude(pk__in=[report.reported_player_id] if report.reported_player_id else [])
        .order_by("pk")
    )


def report_filed(report: Report) -> None:
    """A player filed ``report``: one email to each staff member who may act on it."""
    for staff in staff_to_tell(report):
        notification_write(
            recipient=staff,
            kind=Notification.Kind.REPORT,
            key=f"report:{report.pk}:{staff.pk}",
            game_id=report.game_id,
            context={"report": report.pk},
        )
