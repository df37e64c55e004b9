"""What the league pages read (no writes: those are ``leagues/services.py``).

Each function costs a fixed number of queries whatever the number of
divisions, players or games.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime

from django.contrib.auth.models import AnonymousUser
from django.db.models import Count, Prefetch, QuerySet
from django.urls import reverse
from django.utils import timezone

from accounts.models import User
from games.badges import Badge
from games.models import Game, Seat
from leagues import results, services
from leagues.models import Division, League, LeagueGame, Placement, Season
from leagues.standings import Row, standings

# The seasons a player may be told about, and in which order (the league page).
_LIVE = (Season.State.REGISTRATION, Season.State.SCHEDULED, Season.State.RUNNING)


@dataclass
class LeagueSummary:
    league: League
    current: Season | None
    upcoming: Season | None


def league_list() -> list[LeagueSummary]:
    """Every active league with the season shown on its page (two queries)."""
    leagues = list(League.objects.filter(active=True).order_by("name"))
    seasons = Season.objects.filter(league__in=leagues).order_by("league", "-number")
    by_league: dict[int, list[Season]] = {}
    for season in seasons:
        by_league.setdefault(season.league_id, []).append(season)
    out = []
    for league in leagues:
        current, upcoming = current_and_upcoming(by_league.get(league.pk, []))
        out.append(LeagueSummary(league, current, upcoming))
    return out


def current_and_upcoming(seasons: list[Season]) -> tuple[Season | None, Season | None]:
    """The season a league page is about (newest first given), and one announced after it.

    The current one is the newest season registering, placed or running, else
    the newest finished; an announced season is "upcoming".
    """
    live = [s for s in seasons if s.state in _LIVE]
    finished = [s for s in seasons if s.state == Season.State.FINISHED]
    current = live[0] if live else (finished[0] if finished else None)
    announced = [s for s in seasons if s.state == Season.State.ANNOUNCED]
    return current, (announced[-1] if announced else None)


@dataclass
class SeasonPanel:
    """A season as its league page (or its own page) shows it."""

    season: Season
    divisions: Sequence[Division]
    registered: int
    is_registered: bool
    champions: list[Placement] = field(default_factory=list)
    my_placement: Placement | None = None
    suspended: str = ""
    """For a suspended viewer, why they cannot register (shown instead of the button)."""

    @property
    def registration_open(self) -> bool:
        return self.season.state == Season.State.REGISTRATION


def season_panel(season: Season, viewer: User | AnonymousUser | None) -> SeasonPanel:
    divisions = list(
        season.divisions.annotate(players=Count("placements")).order_by("level", "number")
    )
    registered = season.registrations.count()
    me = viewer if isinstance(viewer, User) else None
    is_registered = me is not None and season.registrations.filter(player=me).exists()
    my_placement = (
        season.placements.select_related("division").filter(player=me).first() if me else None
    )
    champions = []
    if season.state == Season.State.FINISHED:
        champions = list(
            season.placements.filter(champion=True).select_related("player", "division")
        )
    suspended = ""
    if me is not None and season.state == Season.State.REGISTRATION and not is_registered:
        suspension = services.active_suspension(me, season.league)
        if suspension is not None:
            suspended = str(services.suspension_refusal(suspension))
    return SeasonPanel(
        season, divisions, registered, is_registered, champions, my_placement, suspended
    )


@dataclass(frozen=True)
class Announcement:
    """A season the lobby tells every player about: registering now, or soon."""

    season: Season
    registration_open: bool


def announcements(now: datetime | None = None) -> list[Announcement]:
    """The seasons open for registration or announced, in active leagues (one query).

    Read, not opened: a season whose time has come counts as open (the league
    page its link leads to opens it, ``services.seasons_open_due``), so the
    lobby says "register" at the opening time whether beat has run or not.
    """
    now = now or timezone.now()
    seasons = (
        Season.objects.filter(
            league__active=True,
            state__in=(Season.State.ANNOUNCED, Season.State.REGISTRATION),
        )
        .select_related("league")
        .order_by("registration_opens_at", "league__name")
    )
    return [
        Announcement(
            season,
            season.state == Season.State.REGISTRATION or season.registration_opens_at <= now,
        )
        for season in seasons
    ]


def league_seasons(league: League) -> list[Season]:
    return list(league.seasons.order_by("-number"))


@dataclass(frozen=True)
class GameLine:
    """A game of the division and its seats in play order."""

    game: Game
    seats: list[Seat]

    @property
    def winners(self) -> list[str]:
        """Who won a finished game (several share a tie), by name; [] otherwise."""
        if self.game.status != Game.Status.FINISHED:
            return []
        return [str(seat.player) for seat in self.seats if seat.is_winner]


@dataclass
class DivisionPage:
    division: Division
    rows: list[Row[User]]
    games: list[GameLine]
    placements: dict[int, Placement]
    """By player id: the season's outcome once written."""


def division_page(division: Division) -> DivisionPage:
    """The standings (the same adapter the season's close reads) and every game, annulled ones too."""
    placements = list(division.placements.select_related("player").order_by("seed", "pk"))
    in_order = Seat.objects.select_related("player").order_by("position", "pk")
    games = list(
        Game.objects.filter(league_game__division=division)
        .select_related("to_move__player")
        .prefetch_related(Prefetch("seats", queryset=in_order))
        .order_by("league_game__round", "pk")
    )
    players = [p.player for p in placements]
    counted = [g for g in games if g.status != Game.Status.ANNULLED]
    # A player taken out before the start (suspended) may still sit at a table
    # made before: list them rather than refuse the page.
    known = set(players)
    for game in counted:
        for seat in game.seats.all():
            if seat.player not in known:
                known.add(seat.player)
                players.append(seat.player)
    rows = standings(players, results.game_results(counted))
    lines = [GameLine(game, list(game.seats.all())) for game in games]
    return DivisionPage(division, rows, lines, {p.player_id: p for p in placements})


def player_history(player: User) -> QuerySet[Placement]:
    """Every season the player was placed in, newest first (one query)."""
    return (
        Placement.objects.filter(player=player)
        .select_related("division", "season__league")
        .order_by("-season__starts_at", "-pk")
    )


def game_badges(game_ids: list[int]) -> dict[int, Badge]:
    """A badge on "My games" for each of these games that belongs to a league: its division.

    Registered with ``games.badges`` by ``LeaguesConfig.ready``; one query.
    """
    links = LeagueGame.objects.filter(game_id__in=game_ids).select_related(
        "division__season__league"
    )
    return {
        link.game_id: Badge(
            label=f"{link.division.season.league.name} · {link.division.label}",
            url=reverse(
                "leagues:division",
                args=[
                    link.division.season.league.slug,
                    link.division.season.number,
                    link.division.pk,
                ],
            ),
            kind="league",
        )
        for link in links
    }
