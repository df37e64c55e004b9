"""The leagues' emails, rendered from fresh rows when the outbox sends them.

Four kinds (``leagues/notify.py`` writes them in the transaction of the
season's step that causes them): registration open, the season started (the player's
division and games), its last week, and the final standing with the
promotion or relegation. Each is rendered in the recipient's language and
time zone (``accounts.emails.build_email``), or skipped (``Skip``) when the
season has moved on meanwhile.

No preference of their own (no new column): the three that invite to play
follow the player's "invitations" setting, the final standing their
"finished games" setting; each email's unsubscribe link names that setting.
The kinds are registered with the outbox directly (``notifications.kinds``),
so the outbox's own table of game kinds is not touched.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from django.core.mail import EmailMultiAlternatives
from django.urls import reverse
from django.utils import translation
from django.utils.translation import gettext as _

from accounts.emails import absolute_url, build_email, has_confirmed_address, wants_email
from accounts.models import User
from games.models import Game, Seat
from leagues import pages, services
from leagues.models import Division, League, Placement, Season
from leagues.notify import FINAL_STANDING, LAST_WEEK, REGISTRATION_OPEN, SEASON_STARTED
from notifications import kinds
from notifications.kinds import Skip
from notifications.models import Notification

# Which of the player's email settings each kind follows (``accounts.emails.SENDABLE_KINDS``).
# "…-news": the daily digest lists no league step, so a player who reads invitations or
# games ending there still gets these on their own (accounts.emails.NEWS_KINDS).
PREFERENCE: dict[str, str] = {
    REGISTRATION_OPEN: "invitations-news",
    SEASON_STARTED: "invitations-news",
    LAST_WEEK: "invitations-news",
    FINAL_STANDING: "game-over-news",
}


def league_url(league: League) -> str:
    return absolute_url(reverse("leagues:league", args=[league.slug]))


def division_url(division: Division) -> str:
    season = division.season
    return absolute_url(
        reverse("leagues:division", args=[season.league.slug, season.number, division.pk])
    )


def _season(row: Notification, *states: str) -> Season:
    season = Season.objects.select_related("league").filter(pk=row.context.get("season")).first()
    if season is None:
        raise Skip("the season no longer exists")
    if season.state not in states:
        raise Skip(f"the season is {season.state} now")
    return season


def _recipient(row: Notification) -> User:
    if row.recipient is None:
        raise Skip("no player")
    return row.recipient


def _placement(season: Season, user: User) -> Placement:
    placement = (
        season.placements.select_related("division__season__league").filter(player=user).first()
    )
    if placement is None:
        raise Skip("the player is no longer in the season")
    return placement


def _common(season: Season) -> dict[str, Any]:
    return {
        "league": season.league,
        "league_name": season.league.name,
        "season": season,
        "season_number": season.number,
        "league_url": league_url(season.league),
    }


def _registration_open(row: Notification) -> tuple[str, dict[str, Any]]:
    season = _season(row, Season.State.REGISTRATION)
    registration = season.registrations.filter(player=row.recipient).first()
    if registration is None and services.active_suspension(_recipient(row), season.league):
        # Suspended since the row was written: registering would be refused.
        raise Skip("the player is suspended from the league")
    return "league_open", {
        **_common(season),
        "registered": registration is not None,
        "closes_at": season.registration_closes_at,
    }


def _my_games(division: Division, user: User) -> list[dict[str, Any]]:
    games = (
        Game.objects.filter(league_game__division=division, seats__player=user)
        .prefetch_related("seats__player")
        .order_by("league_game__round", "pk")
    )
    out = []
    for game in games:
        seats = sorted(game.seats.all(), key=lambda s: (s.position is None, s.position, s.pk))
        out.append(
            {
                "title": _("Game %(number)s") % {"number": game.pk},
                "url": absolute_url(reverse("games:page", args=[game.pk])),
                "opponents": ", ".join(str(s.player) for s in seats if s.player_id != user.pk),
                "first": bool(seats) and seats[0].player_id == user.pk,
                "running": game.status == Game.Status.RUNNING,
            }
        )
    return out


def _season_started(row: Notification) -> tuple[str, dict[str, Any]]:
    season = _season(row, Season.State.RUNNING)
    placement = _placement(season, _recipient(row))
    division = placement.division
    return "league_start", {
        **_common(season),
        "division": division.label,
        "division_url": division_url(division),
        "players": division.placements.count(),
        "games": _my_games(division, _recipient(row)),
        "ends_at": season.ends_at,
        "days_per_move": season.league.days_per_move,
    }


def _standing(placement: Placement) -> tuple[int | None, float | None, int]:
    """The player's rank and points in their division now, and the division's size."""
    page = pages.division_page(placement.division)
    row = next((r for r in page.rows if r.player.pk == placement.player_id), None)
    return (row.rank if row else None, row.points_float if row else None, len(page.rows))


def _last_week(row: Notification) -> tuple[str, dict[str, Any]]:
    season = _season(row, Season.State.RUNNING)
    placement = _placement(season, _recipient(row))
    if placement.withdrawn_at is not None:
        raise Skip("the player was withdrawn")
    rank, points, size = _standing(placement)
    running = Seat.objects.filter(
        player=row.recipient,
        status=Seat.Status.ACTIVE,
        game__status=Game.Status.RUNNING,
        game__league_game__division=placement.division,
    ).count()
    return "league_week", {
        **_common(season),
        "division": placement.division.label,
        "division_url": division_url(placement.division),
        "rank": rank,
        "points": points,
        "size": size,
        "running": running,
        "ends_at": season.ends_at,
    }


def _final_standing(row: Notification) -> tuple[str, dict[str, Any]]:
    season = _season(row, Season.State.FINISHED)
    placement = _placement(season, _recipient(row))
    if placement.outcome == Placement.Outcome.WITHDRAWN:
        raise Skip("the player was withdrawn")
    following = season.league.seasons.filter(number=season.number + 1).first()
    carried = (
        following is not None and following.registrations.filter(player=row.recipient).exists()
    )
    return "league_final", {
        **_common(season),
        "division": placement.division.label,
        "division_url": division_url(placement.division),
        "level": placement.division.level,
        "rank": placement.final_rank,
        "points": placement.points,
        "size": placement.division.placements.count(),
        "outcome": placement.outcome,
        "champion": placement.champion,
        "next_season": following.number if following else None,
        "carried_over": carried,
    }


BUILDERS: dict[str, Callable[[Notification], tuple[str, dict[str, Any]]]] = {
    REGISTRATION_OPEN: _registration_open,
    SEASON_STARTED: _season_started,
    LAST_WEEK: _last_week,
    FINAL_STANDING: _final_standing,
}


def render(row: Notification) -> EmailMultiAlternatives:
    """The email for ``row``, in its recipient's language and time zone."""
    user = row.recipient
    if user is None or not user.email:
        raise Skip("the player has no email address")
    with translation.override(user.language):
        name, context = BUILDERS[row.kind](row)
    return build_email(user, name, context, kind=PREFERENCE[row.kind])


def why_not(user: User | None, kind: str) -> str:
    """Why ``user`` gets no league email of ``kind`` now (for the admin); "" when they do."""
    if user is None:
        return "no player"
    if wants_email(user, PREFERENCE[kind]):
        return ""
    if not user.is_active or user.deleted_at is not None:
        return "deleted or inactive player"
    if not has_confirmed_address(user):
        return "no confirmed email address"
    return "turned off in the player's settings"


def register_kinds() -> None:
    """Tell the outbox how to render the leagues' emails (``LeaguesConfig.ready``)."""
    for kind in BUILDERS:
        kinds.register(kind, render=render, why_not=why_not)
