"""The deadlines beat watches (``games/tasks.py``): time-outs, reminders and digests.

The deadlines themselves are computed in ``games/clock.py``; this module finds
the turns they concern and acts. Each function is safe to run twice or in two
processes at once: the outbox keys make a reminder or a digest a single row,
and a time-out is applied under the game's row lock by an idempotent service.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from datetime import datetime, time, timedelta

from django.conf import settings
from django.db import transaction
from django.db.models import Min, Q, QuerySet
from django.utils import timezone

from accounts.models import EMAIL_CHOICE_FIELDS, EmailChoice, User
from accounts.preferences import quiet_hours_of, reminder_hours_of
from accounts.vacations import zone_of
from games import clock, services
from games.models import Game
from notifications.models import Notification
from notifications.services import (
    digest_event_recipients,
    notification_write,
    with_digest_events,
)

log = logging.getLogger(__name__)


# --- the clock: time-outs and reminders --------------------------------------------


def _turns_older_than(now: datetime, lead: Callable[[int], timedelta]) -> QuerySet[Game]:
    """Running games whose turn is at least ``days - lead(days)`` old.

    ``days`` counts the days given on the turn (``clock.turn_days``), so a
    turn a gift has pushed past ``now`` is not even a candidate.

    A lower bound found in SQL: vacations only push a deadline later, so the
    exact deadline is computed in Python for these candidates only. A computer
    player's turn is never late (nor reminded): its task plays it, and a lost
    task is queued again (``games.computer.computer_turns_requeue``).
    """
    running = Game.objects.filter(
        status=Game.Status.RUNNING,
        to_move__isnull=False,
        turn_started_at__isnull=False,
        to_move__player__bot_level="",
    )
    condition = Q(pk__in=[])
    for days, extra in set(running.values_list("days_per_move", "turn_extra_days")):
        limit = now - (days + extra) * clock.DAY + lead(days)
        condition |= Q(days_per_move=days, turn_extra_days=extra, turn_started_at__lte=limit)
    return running.filter(condition)


def apply_timeouts(now: datetime | None = None) -> int:
    """Time out (R-END-4) the player to move in every game whose deadline passed."""
    now = now or timezone.now()
    done = 0
    candidates = _turns_older_than(now, lambda days: timedelta(0))
    for game_id in list(candidates.values_list("pk", flat=True)):
        try:
            # One game per transaction, under its row lock, so a move played
            # meanwhile is seen and one game's failure does not stop the others.
            # The vacations are read after the lock (``deadline_of``): a vacation
            # being booked holds this row too (``games/clock.py``), so it is either
            # committed and counted, or it waits and finds the turn gone.
            with transaction.atomic():
                game = Game.objects.select_for_update().get(pk=game_id)
                deadline = clock.deadline_of(game)
                # A deadline means a seat to move (clock.is_ticking).
                if deadline is None or deadline > now or game.to_move_id is None:
                    continue
                if services.game_timeout(game_id=game.pk, seat_id=game.to_move_id) is not None:
                    done += 1
        except Exception:
            log.exception("time-out of game %s failed; the next tick tries again", game_id)
    return done


def _reminder_key(game: Game, deadline: datetime, hours: int) -> str:
    """``reminder:<turn>``, then ``:<days given>`` once days are given on the turn, then
    ``:vacation-<deadline>`` when the player's vacations or quiet hours move the deadline,
    then ``:<hours>h`` for a reminder other than the 24 hours' one.

    A turn whose deadline nothing moved keeps the key reminders had before the days and
    vacations counted, so a turn reminded before that change is not reminded a second time
    for the same deadline; the 24 hours' reminder keeps it too, whatever else the player
    chose (#35). One exception, once: a turn whose deadline a vacation already pushed, and
    that was reminded under the old key just before this key was introduced, gets one more
    reminder for that deadline (the old row does not say which deadline it was for).
    """
    key = f"reminder:{clock.turn_key(game)}"
    if game.turn_extra_days:
        key = f"{key}:{game.turn_extra_days}"
    if deadline != clock.turn_started(game) + clock.turn_days(game) * clock.DAY:
        key = f"{key}:vacation-{int(deadline.timestamp())}"
    if hours != clock.REMINDER_LEAD // timedelta(hours=1):
        key = f"{key}:{hours}h"
    return key


def _reminder_due(game: Game, deadline: datetime, hours: list[int], now: datetime) -> int | None:
    """Of the reminders the player chose (hours before the deadline), the one due now, if any.

    The nearest to the deadline whose moment has come: once a later reminder is due, an
    earlier one not sent (beat was down, the turn began after it) is not sent any more.
    """
    due = [
        h
        for h in hours
        if deadline - clock.reminder_lead(game.days_per_move, timedelta(hours=h)) <= now < deadline
    ]
    return min(due, default=None)


def write_reminders(now: datetime | None = None) -> int:
    """The reminders the players chose before their deadlines (24 h unless they chose
    otherwise in the settings), for each player to move not on vacation.

    Once per turn, deadline and reminder: the days given on the turn and the deadline a
    vacation pushed are part of the key, so a turn reminded before another player gave a
    day, or before the player booked a vacation, is reminded again before the new deadline
    (PLAYERS.md 3: never a time-out by surprise). The deadline is the one the page shows,
    quiet hours included.
    """
    now = now or timezone.now()
    longest = clock.LONGEST_REMINDER_LEAD
    candidates = _turns_older_than(now, lambda days: clock.reminder_lead(days, longest))
    games = list(candidates.select_related("to_move__player"))
    # Every one has a player to move and a turn under way (_turns_older_than).
    seats = {g.pk: clock.seat_to_move(g) for g in games}
    vacations = clock.vacations_of(
        [seats[g.pk].player_id for g in games],
        min((clock.turn_started(g) for g in games), default=now),
    )
    due = {}
    for game in games:
        player = seats[game.pk].player
        away = vacations.get(player.pk, [])
        deadline = clock.turn_deadline(
            clock.turn_started(game), clock.turn_days(game), away, quiet_hours_of(player)
        )
        hours = _reminder_due(game, deadline, reminder_hours_of(player), now)
        if hours is None:
            continue
        if clock.on_vacation_until(away, now) is not None:
            continue  # the player is away: remind them once they are back
        due[_reminder_key(game, deadline, hours)] = game
    written = set(Notification.objects.filter(key__in=due).values_list("key", flat=True))
    count = 0
    for key, game in due.items():
        if key in written:
            continue
        row = notification_write(
            recipient=clock.seat_to_move(game).player,
            kind=Notification.Kind.REMINDER,
            key=key,
            game_id=game.pk,
            context={"turn": clock.turn_key(game)},
        )
        count += row is not None
    return count


# --- the daily digest ------------------------------------------------------------


def digest_cutoff(player: User, now: datetime) -> datetime | None:
    """The cut-off of ``player``'s digest for their local day at ``now``: that day at
    ``DIAMINO_DIGEST_HOUR`` in their time zone; None before it (no digest yet that day)."""
    zone = zone_of(player)
    local = now.astimezone(zone)
    cutoff = datetime.combine(local.date(), time(settings.DIAMINO_DIGEST_HOUR), tzinfo=zone)
    return cutoff if now >= cutoff else None


def write_digests(now: datetime | None = None) -> int:
    """One digest per player who reads them, once a local day, from the digest hour on.

    Runs every hour. The digest of a player's local day D tells what happened before D
    at ``DIAMINO_DIGEST_HOUR`` in their time zone, its cut-off (kept in the row's
    context, ``until``): it is written by the first run at or after that moment (a
    missed run is caught up by the next, with the same cut-off), keyed by the local
    date, for a player who chose the digest for any kind of event (#35) with something
    to tell before the cut-off: a game whose turn came to them before it (when they read
    their turns there), or an event of a kind they read there not told yet
    (``notifications.services.digest_events``). A turn or an event that comes after the
    cut-off waits for the next day's digest, as the settings page says ("once a day at
    8:00"), rather than making one at the next hourly run. Nothing while they are on
    vacation: what happened meanwhile is in the first digest after it.
    """
    now = now or timezone.now()
    turns = dict(
        Game.objects.filter(
            status=Game.Status.RUNNING,
            to_move__player__turn_emails=EmailChoice.DIGEST,
            turn_started_at__isnull=False,
        )
        .values("to_move__player_id")
        .annotate(first=Min("turn_started_at"))
        .values_list("to_move__player_id", "first")
    )
    # Readers of the digest with an event waiting (a player who left the digest since is
    # not written one), and players with a game waiting.
    reads_digest = Q(pk__in=[])
    for field in EMAIL_CHOICE_FIELDS.values():
        reads_digest |= Q(**{field: EmailChoice.DIGEST})
    readers = User.objects.filter(
        Q(pk__in=turns) | reads_digest & Q(pk__in=digest_event_recipients(now)),
        is_active=True,
        deleted_at__isnull=True,
    )
    cutoffs = {}
    for player in readers:
        cutoff = digest_cutoff(player, now)
        if cutoff is not None:
            cutoffs[player.pk] = (player, cutoff)
    waiting = {pk for pk, (_p, cutoff) in cutoffs.items() if pk in turns and turns[pk] < cutoff}
    events = with_digest_events(
        {pk: cutoff for pk, (_p, cutoff) in cutoffs.items() if pk not in waiting}
    )
    due = {}
    for pk in waiting | events:
        player, cutoff = cutoffs[pk]
        day = cutoff.date().isoformat()
        due[f"digest:{pk}:{day}"] = (player, day, cutoff)
    written = set(Notification.objects.filter(key__in=due).values_list("key", flat=True))
    vacations = clock.vacations_of([player.pk for player, _day, _cut in due.values()], now)
    count = 0
    for key, (player, day, cutoff) in due.items():
        if key in written or clock.on_vacation_until(vacations.get(player.pk, []), now):
            continue
        row = notification_write(
            recipient=player,
            kind=Notification.Kind.DIGEST,
            key=key,
            context={"date": day, "until": cutoff.isoformat()},
        )
        count += row is not None
    return count
