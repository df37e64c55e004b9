"""The league pages: the list, a league, a season, a division, and registering.

Views parse, call one service (``leagues.services``) or read (``leagues.pages``),
render. A refused registration is a message in the player's language and
changes nothing. The pages first open any season whose registration time has
come (``services.seasons_open_due``): a visitor never finds registration
closed because beat has not run since its opening time.
"""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.utils.translation import gettext as _
from django.views.decorators.http import require_GET, require_POST

from accounts.models import User
from infra.ratelimit import limited
from leagues import pages, services
from leagues.models import Division, League, Season


@require_GET
def league_list(request: HttpRequest) -> HttpResponse:
    services.seasons_open_due()
    return render(request, "leagues/list.html", {"leagues": pages.league_list()})


def _league(slug: str) -> League:
    return get_object_or_404(League, slug=slug, active=True)


@require_GET
def league_page(request: HttpRequest, slug: str) -> HttpResponse:
    league = _league(slug)
    services.seasons_open_due(league=league)
    return _league_response(request, league)


def _league_response(request: HttpRequest, league: League, status: int = 200) -> HttpResponse:
    seasons = pages.league_seasons(league)
    current, upcoming = pages.current_and_upcoming(seasons)
    panel = pages.season_panel(current, request.user) if current else None
    return render(
        request,
        "leagues/league.html",
        {"league": league, "seasons": seasons, "panel": panel, "upcoming": upcoming},
        status=status,
    )


@require_GET
def season_page(request: HttpRequest, slug: str, number: int) -> HttpResponse:
    league = _league(slug)
    services.seasons_open_due(league=league)
    season = get_object_or_404(Season, league=league, number=number)
    return render(
        request,
        "leagues/season.html",
        {"league": league, "season": season, "panel": pages.season_panel(season, request.user)},
    )


@require_GET
def division_page(request: HttpRequest, slug: str, number: int, division_id: int) -> HttpResponse:
    league = _league(slug)
    division = get_object_or_404(
        Division.objects.select_related("season__league"),
        pk=division_id,
        season__league=league,
        season__number=number,
    )
    return render(
        request,
        "leagues/division.html",
        {"league": league, "season": division.season, "page": pages.division_page(division)},
    )


def _too_fast(request: HttpRequest, message: str, slug: str, number: int) -> HttpResponse:
    """A limited registration: the league page again with the reason, like every refusal."""
    messages.error(request, message)
    return _league_response(request, _league(slug), status=429)


@login_required
@require_POST
@limited("form", refuse=_too_fast)
def registration(request: HttpRequest, slug: str, number: int) -> HttpResponse:
    """Register for the season (``action=register``) or take it back (``action=withdraw``)."""
    league = _league(slug)
    season = get_object_or_404(Season, league=league, number=number)
    player = request.user
    assert isinstance(player, User)  # login_required
    action = request.POST.get("action", "register")
    try:
        if action == "withdraw":
            services.registration_delete(season_id=season.pk, player=player)
            messages.success(request, _("Your registration is withdrawn."))
        else:
            services.registration_create(season_id=season.pk, player=player)
            messages.success(
                request, _("You are registered. The divisions are placed when registration closes.")
            )
    except services.LeagueError as exc:
        # The league page again, with the reason and the refusal's status: nothing changed.
        messages.error(request, str(exc.message))
        return _league_response(request, league, status=exc.status)
    return redirect("leagues:league", slug=league.slug)
