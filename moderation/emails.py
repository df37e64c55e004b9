"""The staff alert about a new report, as an email rendered when it is sent.

It names the players with their usernames, shows the reason, what the player
wrote and a link to the report's admin page, where the rest is. Registered in
``ModerationConfig.ready`` (``notifications.renderers``).
"""

from __future__ import annotations

from typing import Any

from django.urls import reverse

from accounts.emails import absolute_url
from accounts.models import User
from games.emails import game_title, game_url
from moderation.models import Report
from moderation.services import own_case
from notifications.models import Notification
from notifications.renderers import Renderer, Skip, recipient_of

Kind = Notification.Kind


def _known_as(user: User) -> str:
    """A player as staff must know them: the name others see and, if it differs, the username.

    Players choose their display name freely (another player's name, "Modération"):
    the username is the one that cannot be borrowed.
    """
    name = user.name_shown
    return name if name == user.username else f"{name} (@{user.username})"


def _report(row: Notification) -> tuple[str, dict[str, Any]]:
    report = (
        Report.objects.select_related("game", "reporter", "reported_player")
        .filter(pk=row.context.get("report"))
        .first()
    )
    if report is None:
        raise Skip("the report no longer exists")
    if report.status != Report.Status.OPEN:
        raise Skip("the report is resolved already")
    staff = recipient_of(row)
    if not (staff.is_active and staff.is_staff):
        raise Skip("the recipient is no longer staff")
    if own_case(report, staff) is not None:
        raise Skip("the recipient is part of the case")
    return "report", {
        "game_title": game_title(report.game),
        "game_url": game_url(report.game),
        "reporter": _known_as(report.reporter),
        "reported": _known_as(report.reported_player) if report.reported_player else "",
        "reason": report.get_reason_display(),
        "text": report.text,
        "admin_url": absolute_url(reverse("admin:moderation_report_change", args=[report.pk])),
    }


RENDERERS: dict[str, Renderer] = {Kind.REPORT: _report}
