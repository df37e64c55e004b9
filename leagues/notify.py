"""Who hears of a season's steps: the receivers of ``leagues/signals.py``.

h5's services send each signal once the step's transaction has committed, and
a step done twice sends nothing the second time; each row's key names the
season and the player as well, so a signal received twice still gives one
email each. The emails are rendered when sent (``leagues/emails.py``).

- Registration open: the players of the league's previous season (their
  carried-over registration, or an invitation back) and anyone already
  registered; not those withdrawn or inactive last season, nor anyone suspended
  from the league now. A league's first season has no one to tell by email: its page
  and the lobby's link announce it.
- Season started: every player placed in a division, with their games.
- Last week: every player still in the season (not withdrawn).
- Final standing: every player placed, except those withdrawn.
"""

from __future__ import annotations

from typing import Any

from django.db import transaction
from django.db.models import Q
from django.dispatch import receiver
from django.utils import timezone

from accounts.models import User
from leagues import emails, signals
from leagues.models import Placement, Registration, Season, Suspension
from notifications.services import notification_write


def _write(kind: str, season: Season, players: list[User]) -> int:
    written = 0
    with transaction.atomic():
        for player in players:
            row = notification_write(
                recipient=player,
                kind=kind,
                key=f"{kind}:{season.pk}:{player.pk}",
                context={"season": season.pk},
            )
            written += row is not None
    return written


def _placed(season: Season, *, withdrawn: bool) -> list[User]:
    placements = Placement.objects.filter(season=season).select_related("player").order_by("pk")
    if not withdrawn:
        placements = placements.filter(withdrawn_at=None).exclude(
            outcome=Placement.Outcome.WITHDRAWN
        )
    return [p.player for p in placements]


@receiver(signals.registration_opened, dispatch_uid="leagues.notify.registration_opened")
def registration_opened(sender: Any, *, season: Season, **kwargs: Any) -> int:
    # Not invited back: players withdrawn or inactive last season (not carried over),
    # and players suspended from this league now (registering would be refused).
    previous = Placement.objects.filter(
        season__league=season.league_id, season__number=season.number - 1
    ).exclude(outcome__in=[Placement.Outcome.WITHDRAWN, Placement.Outcome.INACTIVE])
    ids = set(previous.values_list("player_id", flat=True))
    ids |= set(Registration.objects.filter(season=season).values_list("player_id", flat=True))
    now = timezone.now()
    suspended = (
        Suspension.objects.filter(Q(league=None) | Q(league=season.league_id))
        .filter(Q(until=None) | Q(until__gt=now))
        .values_list("player_id", flat=True)
    )
    players = list(User.objects.filter(pk__in=ids - set(suspended), deleted_at=None).order_by("pk"))
    return _write(emails.REGISTRATION_OPEN, season, players)


@receiver(signals.season_started, dispatch_uid="leagues.notify.season_started")
def season_started(sender: Any, *, season: Season, **kwargs: Any) -> int:
    return _write(emails.SEASON_STARTED, season, _placed(season, withdrawn=False))


@receiver(signals.season_last_week, dispatch_uid="leagues.notify.season_last_week")
def season_last_week(sender: Any, *, season: Season, **kwargs: Any) -> int:
    return _write(emails.LAST_WEEK, season, _placed(season, withdrawn=False))


@receiver(signals.season_finished, dispatch_uid="leagues.notify.season_finished")
def season_finished(sender: Any, *, season: Season, **kwargs: Any) -> int:
    return _write(emails.FINAL_STANDING, season, _placed(season, withdrawn=False))
