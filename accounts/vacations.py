"""Vacation: a player stops their clocks for a few days, 20 days a calendar year.

A vacation starts when the player asks, or is booked ahead to start at the
beginning of a chosen day (midnight in the player's time zone) at most
``DIAMINO_VACATION_BOOKING_HORIZON_DAYS`` ahead, and lasts a whole number of
days. Vacations of a player never overlap. The player may come back early,
and may cancel a planned vacation until it starts (its days come back). Only
the interval is stored (``Vacation``): the deadlines it pushes are computed by
``games/clock.py`` (a planned vacation that begins before a running turn's
deadline pushes it already), and the allowance is counted here from the rows.

Counting (documented in docs/ARCHITECTURE.md): a vacation is charged in days
of the player's wall clock from its start, a day begun is a day used (coming
back after 30 hours uses 2 days), and each day counts toward the calendar year,
in the player's time zone, in which it begins. So a vacation from 28 December
for 7 days uses 4 days of the old year and 3 of the new one. Across a change of
summer time a day is 23 or 25 hours: a week from a midnight ends at a midnight.

A vacation cannot rescue a turn already lost: if the player's deadline in a
game has passed (and beat has not timed them out yet), the vacation is
refused, and the time-out follows (a vacation booked ahead starts after now,
so it cannot push a deadline already passed: it is not refused). The locks that make this hold against a
time-out decided at the same moment are described in ``games/clock.py``.
"""

from __future__ import annotations

import math
import zoneinfo
from collections import Counter
from collections.abc import Callable
from datetime import UTC, date, datetime, time, timedelta
from typing import TYPE_CHECKING, Any, cast

from django.conf import settings
from django.core.exceptions import ImproperlyConfigured
from django.db import transaction
from django.utils import formats, timezone
from django.utils.translation import gettext_lazy as _

from accounts.models import User, Vacation
from accounts.signals import vacation_starting

if TYPE_CHECKING:
    from django_stubs_ext import StrOrPromise


DAY = timedelta(days=1)


class VacationRefused(Exception):
    """The vacation cannot be taken; ``message`` says why, in the active language."""

    def __init__(self, code: str, message: StrOrPromise) -> None:
        super().__init__(message)
        self.code = code
        self.message = message


def allowance() -> int:
    """Days of vacation each player has per calendar year."""
    return settings.DIAMINO_VACATION_DAYS_PER_YEAR


def horizon() -> int:
    """How many days after today a booked vacation may start, at the latest."""
    return settings.DIAMINO_VACATION_BOOKING_HORIZON_DAYS


def zone_of(user: User) -> zoneinfo.ZoneInfo:
    try:
        return zoneinfo.ZoneInfo(user.time_zone)
    except (zoneinfo.ZoneInfoNotFoundError, ValueError):
        return zoneinfo.ZoneInfo(settings.TIME_ZONE)


def _wall(moment: datetime, zone: zoneinfo.ZoneInfo) -> datetime:
    """``moment`` as the player's clock on the wall shows it (naive local time)."""
    return moment.astimezone(zone).replace(tzinfo=None)


def days_later(moment: datetime, days: int, zone: zoneinfo.ZoneInfo) -> datetime:
    """The same time of day ``days`` days after ``moment``, on the player's wall clock.

    Across a change of summer time that is 23 or 25 hours a day, so a vacation
    from a midnight ends at a midnight, and the next one can start there.
    """
    return (_wall(moment, zone) + days * DAY).replace(tzinfo=zone).astimezone(UTC)


def days_charged(starts_at: datetime, ends_at: datetime, zone: zoneinfo.ZoneInfo) -> int:
    """Whole days a vacation uses, counted on the player's wall clock: a day begun is a day used."""
    return max(1, math.ceil((_wall(ends_at, zone) - _wall(starts_at, zone)) / DAY))


def days_by_year(starts_at: datetime, ends_at: datetime, zone: zoneinfo.ZoneInfo) -> Counter[int]:
    """How many of a vacation's days fall in each calendar year (a day counts where it begins)."""
    start = _wall(starts_at, zone)
    return Counter((start + k * DAY).year for k in range(days_charged(starts_at, ends_at, zone)))


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


def planned_vacations(user: User, at: datetime | None = None) -> list[Vacation]:
    """The player's vacations that start after ``at`` (now by default), soonest first."""
    at = at or timezone.now()
    return list(Vacation.objects.filter(user=user, starts_at__gt=at).order_by("starts_at"))


def local_today(user: User, at: datetime | None = None) -> date:
    """The date in the player's time zone at ``at`` (now by default)."""
    return (at or timezone.now()).astimezone(zone_of(user)).date()


def date_text(moment: datetime) -> str:
    """A moment as the pages and messages show it, in the active time zone and language."""
    return formats.date_format(timezone.localtime(moment), "DATETIME_FORMAT")


def _lock_player(user: User) -> User:
    return User.objects.select_for_update(no_key=True).get(pk=user.pk)


@transaction.atomic
def vacation_start(
    *, user: User, days: int, first_day: date | None = None, now: datetime | None = None
) -> Vacation:
    """Stop the player's clocks for ``days`` days, within the allowance of each year it touches.

    From now, or with ``first_day`` from the start of that day in the player's
    time zone (today means now), at most ``horizon()`` days ahead. Refused when
    it overlaps another of the player's vacations, and, for a vacation starting
    now, when a deadline of the player's has already passed: the time-out stands
    (docs/ARCHITECTURE.md, the clock).
    """
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
    # Then the games where they are to move (the lock a time-out is decided under, taken by
    # games/vacations.py), and only then the time: a time-out that held a lock meanwhile
    # has taken the turn away.
    answers = vacation_starting.send(sender=User, user=user)
    # django-stubs types a receiver's answer as a str; these are the checks (games/vacations.py).
    checks = [cast(Callable[[datetime], Any], check) for _receiver, check in answers]
    if not checks:  # no clock would be stopped, nor a lost turn refused
        raise ImproperlyConfigured("nothing receives accounts.signals.vacation_starting")
    now = now or timezone.now()
    starts_at = _first_moment(user, first_day, now)
    if starts_at == now:
        _refuse_if_out_of_time(checks, now)
    ends_at = days_later(starts_at, days, zone_of(user))
    other = (
        Vacation.objects.filter(user=user, starts_at__lt=ends_at, ends_at__gt=starts_at)
        .order_by("starts_at")
        .first()
    )
    if other is not None and starts_at == now and other.starts_at <= now:
        raise VacationRefused(
            "already",
            _("You are already on vacation until %(date)s.") % {"date": date_text(other.ends_at)},
        )
    if other is not None:
        raise VacationRefused(
            "overlap",
            _(
                "These days overlap your vacation from %(start)s to %(end)s: choose other "
                "days, or cancel that vacation first."
            )
            % {"start": date_text(other.starts_at), "end": date_text(other.ends_at)},
        )
    for year, wanted in sorted(days_by_year(starts_at, ends_at, zone_of(user)).items()):
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
    return Vacation.objects.create(user=user, starts_at=starts_at, ends_at=ends_at)


def _first_moment(user: User, first_day: date | None, now: datetime) -> datetime:
    """When a vacation asked from ``first_day`` (None: now) starts; refused if out of range."""
    today = local_today(user, now)
    if first_day is None or first_day == today:
        return now
    if first_day < today:
        raise VacationRefused("past", _("This day is already past: choose today or a day to come."))
    if first_day > today + horizon() * DAY:
        raise VacationRefused(
            "too-far",
            _("A vacation can be booked at most %(days)d days ahead: choose an earlier day.")
            % {"days": horizon()},
        )
    return datetime.combine(first_day, time(), tzinfo=zone_of(user)).astimezone(UTC)


def _refuse_if_out_of_time(checks: list[Callable[[datetime], Any]], now: datetime) -> None:
    """Refuse a vacation starting now when one of the player's deadlines has passed."""
    for check in checks:
        lost = check(now)
        if lost is not None:
            game_id, deadline = lost
            raise VacationRefused(
                "out-of-time",
                _(
                    "Your time to play in game %(game)d ran out on %(date)s: a vacation can "
                    "no longer stop that clock."
                )
                % {"game": game_id, "date": date_text(deadline)},
            )


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


@transaction.atomic
def vacation_cancel(*, user: User, vacation_id: int, now: datetime | None = None) -> Vacation:
    """Cancel a planned vacation before it starts: it is deleted and its days come back.

    No game needs locking: the vacation starts after now, so the deadlines it
    pushed were after now too, and without it they still are.
    """
    user = _lock_player(user)
    now = now or timezone.now()
    vacation = Vacation.objects.filter(user=user, pk=vacation_id).first()
    if vacation is None:
        raise VacationRefused("not-found", _("This vacation is no longer planned."))
    if vacation.starts_at <= now:
        raise VacationRefused(
            "started",
            _("This vacation has already started: to restart your clocks, come back early."),
        )
    vacation.delete()
    return vacation
