"""Who gets each email a season's step causes, written in the step's own transaction.

The services (``leagues/services.py``) call these inside the transaction of the
step that causes the emails, as a move's notifications are written
(``games/notify.py``): each writes one outbox row per recipient with
``notifications.services.notification_write``, so a step that commits has its
emails and a step that rolls back has none. The outbox sends them after the
commit, and its sweep sends whatever a crash between the commit and the send
left unsent (``notifications/periodic.py``). Each row's key names the kind, the
season and the player: a step written twice still gives one email each. The
emails are rendered when sent (``leagues/emails.py``).

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

from django.db.models import Q
from django.utils import timezone

from accounts.models import User
from leagues.models import Placement, Registration, Season, Suspension
from notifications.services import notification_write

# The outbox kinds of the leagues' emails (rendered by ``leagues/emails.py``).
REGISTRATION_OPEN = "league-open"
SEASON_STARTED = "league-start"
LAST_WEEK = "league-week"
FINAL_STANDING = "league-final"


def _write(kind: str, season: Season, players: list[User]) -> int:
    """One row of ``kind`` per player, in the caller's transaction; how many were new."""
    written = 0
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


def registration_opened(season: Season) -> int:
    """Registration of ``season`` opens (``season_open_registration``, or the previous close)."""
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
    return _write(REGISTRATION_OPEN, season, players)


def season_started(season: Season) -> int:
    """``season_start``: every game created and started."""
    return _write(SEASON_STARTED, season, _placed(season, withdrawn=False))


def season_last_week(season: Season) -> int:
    """``season_last_week``: the last week has begun."""
    return _write(LAST_WEEK, season, _placed(season, withdrawn=False))


def season_finished(season: Season) -> int:
    """``season_close``: the standings are final."""
    return _write(FINAL_STANDING, season, _placed(season, withdrawn=False))
