"""Vacation: a player stops their clocks for a few days, 20 days a calendar year.

A vacation starts when the player asks and lasts a whole number of days; the
player may come back early. Only the interval is stored (``Vacation``): the
deadlines it pushes are computed by ``games/clock.py``, and the allowance is
counted here from the rows.

Counting (documented in docs/ARCHITECTURE.md): a vacation is charged in
24-hour blocks from its start, a block begun is a block used (coming back
after 30 hours uses 2 days), and each block counts toward the calendar year,
in the player's time zone, in which it begins. So a vacation from 28 December
for 7 days uses 4 days of the old year and 3 of the new one.

A vacation cannot rescue a turn already lost: if the player's deadline in a
game has passed (and beat has not timed them out yet), the vacation is
refused, and the time-out follows. The locks that make this hold against a
time-out decided at the same moment are described in ``games/clock.py``.
"""

from __future__ import annotations

import math
import zoneinfo
from collections import Counter
from datetime import datetime, timedelta

from django.conf import settings
from django.db import transaction
from django.utils import formats, timezone
from django.utils.translation import gettext_lazy as _

from accounts.models import User, Vacation

DAY = timedelta(days=1)


class VacationRefused(Exception):
    """The vacation cannot be taken; ``message`` says why, in the active language."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message


def allowance() -> int:
    """Days of vacation each player has per calendar year."""
    return settings.DIAMINO_VACATION_DAYS_PER_YEAR


def zone_of(user: User) -> zoneinfo.ZoneInfo:
    try:
        return zoneinfo.ZoneInfo(user.time_zone)
    except (zoneinfo.ZoneInfoNotFoundError, ValueError):
        return zoneinfo.ZoneInfo(settings.TIME_ZONE)


def days_charged(starts_at: datetime, ends_at: datetime) -> int:
    """Whole days a vacation uses: a day begun is a day used."""
    return max(1, math.ceil((ends_at - starts_at) / DAY))


def days_by_year(starts_at: datetime, ends_at: datetime, zone: zoneinfo.ZoneInfo) -> Counter[int]:
    """How many of a vacation's days fall in each calendar year (a day counts where it begins)."""
    return Counter(
        (starts_at + k * DAY).astimezone(zone).year for k in range(days_charged(starts_at, ends_at))
    )


def days_used(user: User, year: int) -> int:
    """Days of ``year``'s allowance the player's vacations (past, current, planned) use."""
    zone = zone_of(user)
    # A day of ``year`` belongs to a vacation starting at most a year and a day before it.
    lower = datetime(year - 1, 12, 1, tzinfo=zone)
    upper = datetime(year + 1, 1, 2, tzinfo=zone)
    vacations = Vacation.objects.filter(user=user, starts_at__lt=upper, ends_at__gt=lower)
    return sum(days_by_year(v.starts_at, v.ends_at, zone)[year] for v in vacations)


def days_left(user: User, year: int) -> int:
    return max(0, allowance() - days_used(user, year))


def current_vacation(user: User, at: datetime | None = None) -> Vacation | None:
    """The vacation the player is on at ``at`` (now by default), if any."""
    at = at or timezone.now()
    return (
        Vacation.objects.filter(user=user, starts_at__lte=at, ends_at__gt=at)
        .order_by("starts_at")
        .first()
    )


def _date(moment: datetime) -> str:
    return formats.date_format(timezone.localtime(moment), "DATETIME_FORMAT")


def _lock_player(user: User) -> User:
    return User.objects.select_for_update(no_key=True).get(pk=user.pk)


@transaction.atomic
def vacation_start(*, user: User, days: int, now: datetime | None = None) -> Vacation:
    """Stop the player's clocks from now for ``days`` days, within the year's allowance.

    Refused when a deadline of the player's has already passed: the time-out
    stands (docs/ARCHITECTURE.md, the clock).
    """
    from games import clock  # the one place accounts reads games: a vacation stops their clocks

    if not isinstance(days, int) or not 1 <= days <= allowance():
        raise VacationRefused(
            "bad-days",
            _("Choose between 1 and %(max)d days of vacation.") % {"max": allowance()},
        )
    # One booking at a time per player: the allowance check and the insert must not interleave.
    # NO KEY UPDATE: a move or time-out holding a game's lock writes rows that point at the
    # player (a notification, a rating), which takes KEY SHARE on this row; FOR UPDATE would
    # make it wait for us while we wait for its game (a deadlock), NO KEY UPDATE does not.
    user = _lock_player(user)
    # Then the games where they are to move (the lock a time-out is decided under), and only
    # then the time: a time-out that held a lock meanwhile has taken the turn away.
    turns = clock.lock_turns_of(user.pk)
    now = now or timezone.now()
    for game in turns:
        deadline = clock.deadline_of(game, player_id=user.pk)
        if deadline is not None and deadline <= now:
            raise VacationRefused(
                "out-of-time",
                _(
                    "Your time to play in game %(game)d ran out on %(date)s: a vacation can "
                    "no longer stop that clock."
                )
                % {"game": game.pk, "date": _date(deadline)},
            )
    current = Vacation.objects.filter(user=user, ends_at__gt=now).order_by("starts_at").first()
    if current is not None:
        raise VacationRefused(
            "already",
            _("You are already on vacation until %(date)s.") % {"date": _date(current.ends_at)},
        )
    ends_at = now + days * DAY
    for year, wanted in sorted(days_by_year(now, ends_at, zone_of(user)).items()):
        left = days_left(user, year)
        if wanted > left:
            raise VacationRefused(
                "allowance",
                _(
                    "You have %(left)d days of vacation left in %(year)d and asked for "
                    "%(wanted)d: choose fewer days."
                )
                % {"left": left, "year": year, "wanted": wanted},
            )
    return Vacation.objects.create(user=user, starts_at=now, ends_at=ends_at)


@transaction.atomic
def vacation_end(*, user: User, now: datetime | None = None) -> Vacation | None:
    """Come back early: the clocks run again from now; the days not begun are given back."""
    now = now or timezone.now()
    user = _lock_player(user)
    vacation = current_vacation(user, now)
    if vacation is None:
        return None
    vacation.ends_at = max(now, vacation.starts_at + timedelta(microseconds=1))
    vacation.save(update_fields=["ends_at"])
    return vacation
