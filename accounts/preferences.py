"""How and when a player is told: push per kind of event, the reminders' schedule, quiet hours.

The settings page is the one place a player chooses (``accounts/forms.py``);
the email side of each kind is ``accounts/emails.py`` (``wants_email``), the
push side ``wants_push`` here. The outbox (``notifications/``) asks both when it
writes a row and again when it sends it.

**Quiet hours** (``User.quiet_from`` – ``User.quiet_until``, whole hours in the
player's time zone, e.g. 23 – 8): no email and no push reaches the player then;
what falls in them waits until they end (``QuietHours.end_if_quiet``, the outbox
row's ``next_attempt_at``), and a deadline that would fall in them moves to their
end (``games/clock.py``). An interval may run past midnight (23 – 8) or not
(13 – 15); a start equal to its end is no quiet hours (the form refuses it).
"""

from __future__ import annotations

import zoneinfo
from dataclasses import dataclass
from datetime import UTC, datetime, time, timedelta
from typing import TYPE_CHECKING

from django.conf import settings

if TYPE_CHECKING:
    from accounts.models import User

# The reminders a player may choose before a deadline, in hours (the settings' short list).
REMINDER_HOURS = (48, 24, 12, 6, 2, 1)
# Today's reminder, the default: one, 24 hours before (half the time in one-day games).
DEFAULT_REMINDER_HOURS = (24,)

# Which of the player's switches turns the push of each outbox kind on or off
# (the outbox's ``Notification.Kind`` values, spelt out: accounts imports no outbox).
PUSH_SWITCH = {
    "turn": "push_turn",
    "time-gift": "push_turn",  # this turn's deadline, like "your turn"
    "reminder": "push_reminder",
    "invitation": "push_invitations",
    "game-started": "push_invitations",
    "game-over": "push_game_over",
    "timeout": "push_game_over",
    "chat": "push_chat",
}


def wants_push(user: User, kind: str) -> bool:
    """Whether ``user`` chose to have ``kind`` pushed to their devices (their switch for it)."""
    switch = PUSH_SWITCH.get(kind)
    return switch is not None and bool(getattr(user, switch))


def default_reminder_hours() -> list[int]:
    return list(DEFAULT_REMINDER_HOURS)


def reminder_hours_of(user: User) -> list[int]:
    """The hours before a deadline the player wants a reminder, most first; only known ones."""
    chosen = user.reminder_hours if isinstance(user.reminder_hours, list) else []
    return sorted({h for h in chosen if h in REMINDER_HOURS}, reverse=True)


def zone_named(name: str) -> zoneinfo.ZoneInfo:
    try:
        return zoneinfo.ZoneInfo(name)
    except (zoneinfo.ZoneInfoNotFoundError, ValueError):
        return zoneinfo.ZoneInfo(settings.TIME_ZONE)


@dataclass(frozen=True)
class QuietHours:
    """From ``start`` o'clock to ``end`` o'clock every day, on the wall clocks of ``zone``."""

    start: int
    end: int
    zone: zoneinfo.ZoneInfo

    def end_if_quiet(self, moment: datetime) -> datetime | None:
        """When the quiet hours ``moment`` falls in end (UTC), or None when it falls in none."""
        local = moment.astimezone(self.zone)
        hour = local.hour
        if self.start < self.end:
            quiet, ends_tomorrow = self.start <= hour < self.end, False
        else:  # past midnight: 23 – 8 is 23:00 to midnight and midnight to 8:00
            quiet, ends_tomorrow = hour >= self.start or hour < self.end, hour >= self.start
        if not quiet:
            return None
        day = local.date() + timedelta(days=1 if ends_tomorrow else 0)
        # A wall time a change of clocks skips is read as the time after it (fold 0).
        end = datetime.combine(day, time(self.end), tzinfo=self.zone).astimezone(UTC)
        return end if end > moment else None

    def moved(self, moment: datetime) -> datetime:
        """``moment``, or the end of the quiet hours it falls in."""
        return self.end_if_quiet(moment) or moment


def quiet_hours(start: int | None, end: int | None, zone_name: str) -> QuietHours | None:
    """The quiet hours of these settings, None when there are none."""
    if start is None or end is None or start == end:
        return None
    return QuietHours(start % 24, end % 24, zone_named(zone_name))


def quiet_hours_of(user: User | None) -> QuietHours | None:
    if user is None:
        return None
    return quiet_hours(user.quiet_from, user.quiet_until, user.time_zone)
