"""A league's seasons, step by step: the only code that changes them (``docs/LEAGUES.md``).

Every verb is keyword-only and one transaction that first locks the season's
row (``select_for_update``) and checks its state, so each step is idempotent
and safe under two workers: the second finds the step done and does nothing
(the steps return False, or None). Beat calls the steps at the season's times
(``leagues/tasks.py``); staff call the rest from the admin.

- ``season_open_registration`` — announced → registration. Beat does it, but
  so does a player's visit once the time has come (``seasons_open_due`` from
  the league pages, and ``registration_create``): registration opens at its
  date, not at beat's next run.
- ``registration_create`` / ``registration_delete`` — a player registers, or
  changes their mind, while registration is open.
- ``season_schedule`` — registration closes: the players are placed in
  divisions (returning players by last season's result, new players by rating).
- ``placement_move`` — staff move a player to another division before the start.
- ``season_start`` — every game of every division created and started at once.
- ``season_last_week`` — the last week's notice, once.
- ``season_close`` — when the season's time is up and every game is over: the
  standings, promotions, relegations, champions, and the next season's
  registration opened with the players carried over.
- ``placement_withdraw`` — staff withdraw a player (mid-season: their
  remaining games resigned).
- ``suspension_create`` — staff suspend a player (refused at registration).

Refusals raise ``LeagueError`` (stable ``code``, translated ``message``) and
change nothing.

A step's emails are outbox rows written in the step's own transaction
(``leagues/notify.py``), as a move's are: a step that commits has them, one
that rolls back has none, and the outbox sends them after the commit (its
sweep sends any a crash left unsent). The signals of ``leagues/signals.py``
are sent after the commit, for anyone else who listens.
"""

from __future__ import annotations

import logging
import math
import random
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import TYPE_CHECKING

from django.db import IntegrityError, transaction
from django.db.models import Q, QuerySet
from django.utils import timezone
from django.utils.formats import date_format
from django.utils.translation import gettext_lazy as _

from accounts.models import User
from accounts.permissions import can_play
from games import services as games
from games.errors import GameError
from games.models import Game, Mode, Move, Seat
from leagues import notify, results, signals
from leagues.models import (
    DIVISION_MAX_PLAYERS,
    Division,
    League,
    LeagueGame,
    Placement,
    Registration,
    Season,
    Suspension,
)
from leagues.schedule import schedule
from ratings.models import Rating

if TYPE_CHECKING:
    from django_stubs_ext import StrOrPromise

log = logging.getLogger(__name__)

# The last week's notice goes this long before the season's end.
LAST_WEEK = timedelta(days=7)
# About a quarter of each division goes up, and a quarter down.
MOVING_SHARE = 0.25
OUTCOMES_CARRIED = (
    Placement.Outcome.PROMOTED,
    Placement.Outcome.KEPT,
    Placement.Outcome.RELEGATED,
)


class LeagueError(Exception):
    """A league request refused: a stable ``code``, a translated ``message``, a status."""

    def __init__(self, code: str, message: StrOrPromise, *, status: int = 400) -> None:
        super().__init__(str(message))
        self.code = code
        self.message = message
        self.status = status


def _locked_season(season_id: int) -> Season:
    try:
        return (
            Season.objects.select_for_update(of=("self",))
            .select_related("league")
            .get(pk=season_id)
        )
    except Season.DoesNotExist:
        raise LeagueError("no-season", _("There is no such season."), status=404) from None


def active_suspension(
    player: User, league: League, now: datetime | None = None
) -> Suspension | None:
    """The suspension that bars ``player`` from ``league`` now (one of this league, or of all)."""
    now = now or timezone.now()
    return (
        Suspension.objects.filter(player=player)
        .filter(Q(league=None) | Q(league=league))
        .filter(Q(until=None) | Q(until__gt=now))
        .order_by("-until")
        .first()
    )


def suspension_refusal(suspension: Suspension) -> StrOrPromise:
    """What a suspended player is told at registration (and the league page says first)."""
    if suspension.until is None:
        return _("You are suspended from this league: you cannot register.")
    return _("You are suspended from this league until %(date)s: you cannot register.") % {
        "date": date_format(timezone.localtime(suspension.until), "DATE_FORMAT")
    }


# --- registration ------------------------------------------------------------------


@transaction.atomic
def season_open_registration(*, season_id: int, now: datetime | None = None) -> bool:
    """Open an announced season's registration once its time has come."""
    return _open_if_due(_locked_season(season_id), now or timezone.now())


def seasons_open_due(*, league: League | None = None, now: datetime | None = None) -> int:
    """Open every announced season (of ``league``, or of any active league) whose time has come.

    The league pages call it before they read, so a player who comes after the
    opening time finds registration open even when beat has not run since
    (beat may be down, or runs every few minutes). One query when nothing is
    due; each season is then opened under its lock, once, whoever comes first.
    """
    now = now or timezone.now()
    due = Season.objects.filter(
        league__active=True, state=Season.State.ANNOUNCED, registration_opens_at__lte=now
    )
    if league is not None:
        due = due.filter(league=league)
    return sum(
        season_open_registration(season_id=pk, now=now) for pk in due.values_list("pk", flat=True)
    )


def _open_if_due(season: Season, now: datetime) -> bool:
    """Open ``season`` (locked by the caller) if it is announced and its time has come."""
    if season.state != Season.State.ANNOUNCED or season.registration_opens_at > now:
        return False
    season.state = Season.State.REGISTRATION
    season.registration_opened_at = now
    season.save(update_fields=["state", "registration_opened_at"])
    notify.registration_opened(season)
    signals.send_on_commit(signals.registration_opened, season)
    return True


@transaction.atomic
def registration_create(*, season_id: int, player: User) -> Registration:
    """``player`` registers for the season; refused (nothing written) when they may not.

    Two tabs registering at once register once: the season's lock orders them,
    and the unique constraint holds even without it (SQLite).
    """
    if player.is_computer:
        raise LeagueError("no-player", _("Computer players do not play in leagues."), status=403)
    if not can_play(player):
        raise LeagueError(
            "unverified",
            _("Confirm your email address before you register for a league."),
            status=403,
        )
    season = _locked_season(season_id)
    if season.league.active:
        # The opening time has come but no one has opened it yet (beat's next run).
        _open_if_due(season, timezone.now())
    if season.state == Season.State.ANNOUNCED and season.league.active:
        raise LeagueError(
            "registration-not-open",
            _("Registration for this season opens on %(date)s.")
            % {
                "date": date_format(
                    timezone.localtime(season.registration_opens_at), "DATETIME_FORMAT"
                )
            },
            status=409,
        )
    if season.state != Season.State.REGISTRATION or not season.league.active:
        raise LeagueError(
            "registration-closed", _("Registration for this season is closed."), status=409
        )
    suspension = active_suspension(player, season.league)
    if suspension is not None:
        raise LeagueError("suspended", suspension_refusal(suspension), status=403)
    already = _("You are already registered for this season.")
    if season.registrations.filter(player=player).exists():
        raise LeagueError("already-registered", already, status=409)
    try:
        with transaction.atomic():
            return Registration.objects.create(season=season, player=player)
    except IntegrityError:
        raise LeagueError("already-registered", already, status=409) from None


@transaction.atomic
def registration_delete(*, season_id: int, player: User) -> None:
    """``player`` takes their registration back while registration is open."""
    season = _locked_season(season_id)
    if season.state != Season.State.REGISTRATION:
        raise LeagueError(
            "registration-closed",
            _("Registration for this season is closed: ask the staff to withdraw you."),
            status=409,
        )
    deleted, _rows = season.registrations.filter(player=player).delete()
    if not deleted:
        raise LeagueError(
            "not-registered", _("You are not registered for this season."), status=409
        )


@transaction.atomic
def registration_drop(*, season_id: int, player: User) -> bool:
    """The site takes ``player``'s registration back (their account closed): no refusal."""
    season = _locked_season(season_id)
    deleted, _rows = season.registrations.filter(player=player).delete()
    return bool(deleted)


# --- placing the players in divisions ----------------------------------------------


@dataclass(frozen=True)
class Returning:
    """A player back from last season, with where they were and how it ended."""

    player_id: int
    level: int  # last season's division, 1 the top
    outcome: str  # Placement.Outcome: promoted, kept or relegated
    rank: int  # their final rank in it

    @property
    def target(self) -> int:
        """The level the result sends them to."""
        if self.outcome == Placement.Outcome.PROMOTED:
            return self.level - 1
        if self.outcome == Placement.Outcome.RELEGATED:
            return self.level + 1
        return self.level

    @property
    def cap(self) -> int | None:
        """The lowest level they may be placed in: promoted higher, kept never lower."""
        if self.outcome == Placement.Outcome.PROMOTED:
            return self.level - 1
        if self.outcome == Placement.Outcome.KEPT:
            return self.level
        return None


def division_sizes(n: int, low: int, high: int) -> list[int]:
    """How many players each level gets, top first: as equal as can be, each at least ``low``.

    At most ``high`` a division, unless the numbers make both impossible (11
    players, 6 to 10 a division): the minimum wins, one division of 11, as
    long as no division passes ``DIVISION_MAX_PLAYERS`` (the schedule's
    largest). Fewer than ``low`` players: no division (``[]``).
    """
    if n < low or n == 0:
        return []
    count = math.ceil(n / high)
    if n // count < low:
        count = max(1, n // low)
    while math.ceil(n / count) > DIVISION_MAX_PLAYERS:
        count += 1
    base, extra = divmod(n, count)
    return [base + (1 if i < extra else 0) for i in range(count)]


def place_levels(
    returning: Sequence[Returning], newcomers: Sequence[int], sizes: Sequence[int], minimum: int
) -> list[list[int]]:
    """Player ids per level (index 0 the top), in seed order.

    Returning players come first, by the level their result sends them to;
    within a level those kept, then those promoted from below, then those
    relegated from above, each by last season's rank (so a place left free
    above, by a player who left, goes to the best kept player below rather than
    back to a relegated one); then the new players in the order given (by
    rating). The ordered list is cut into ``sizes``, except that a promoted
    player never lands lower than the level above theirs and a kept player
    never lower than theirs (their level takes one more player if need be).
    Trailing levels left smaller than ``minimum`` are merged upwards.
    """
    bucket: dict[str, int] = {
        Placement.Outcome.KEPT: 0,
        Placement.Outcome.PROMOTED: 1,
        Placement.Outcome.RELEGATED: 2,
    }
    ordered = sorted(returning, key=lambda r: (r.target, bucket[r.outcome], r.rank))
    queue: list[tuple[int, int | None]] = [(r.player_id, r.cap) for r in ordered]
    queue += [(player_id, None) for player_id in newcomers]
    levels: list[list[int]] = [[] for _size in sizes]
    current = 0
    for player_id, cap in queue:
        while current < len(sizes) - 1 and len(levels[current]) >= sizes[current]:
            current += 1
        index = current if cap is None else min(current, cap - 1)
        levels[index].append(player_id)
    while levels and not levels[-1]:
        levels.pop()
    while len(levels) > 1 and len(levels[-1]) < minimum:
        levels[-2].extend(levels.pop())
    return levels


def _previous_results(season: Season, player_ids: set[int]) -> list[Returning]:
    previous = (
        Placement.objects.filter(
            season__league=season.league_id,
            season__number=season.number - 1,
            season__state=Season.State.FINISHED,
            player_id__in=player_ids,
            outcome__in=OUTCOMES_CARRIED,
        )
        .select_related("division")
        .order_by("pk")
    )
    return [
        Returning(p.player_id, p.division.level, p.outcome, p.final_rank or 0) for p in previous
    ]


def _by_rating(player_ids: Sequence[int]) -> list[int]:
    """New players, strongest first by their avec-marque rating (none: a new player's 0)."""
    ordinal = dict(
        Rating.objects.filter(player_id__in=player_ids, mode=Mode.MARQUE).values_list(
            "player_id", "ordinal"
        )
    )
    return sorted(player_ids, key=lambda pk: -ordinal.get(pk, 0.0))


def _eligible_registrations(season: Season) -> tuple[list[Registration], list[Registration]]:
    """The registrations that still stand, and those to drop (suspended, account closed)."""
    keep, drop = [], []
    for registration in season.registrations.select_related("player").order_by("created_at", "pk"):
        player = registration.player
        if can_play(player) and active_suspension(player, season.league) is None:
            keep.append(registration)
        else:
            drop.append(registration)
    return keep, drop


@transaction.atomic
def season_schedule(*, season_id: int, now: datetime | None = None) -> bool:
    """Registration closes: the registered players are placed in divisions.

    Fewer players than the league's smallest division: the season waits, its
    dates pushed back by the registration period (registration stays open).
    """
    now = now or timezone.now()
    season = _locked_season(season_id)
    league = season.league
    if season.state != Season.State.REGISTRATION or season.registration_closes_at > now:
        return False
    keep, drop = _eligible_registrations(season)
    minimum = max(league.division_min, league.table_size)
    sizes = division_sizes(len(keep), minimum, max(league.division_max, minimum))
    if not sizes:
        delay = timedelta(days=league.registration_days)
        season.registration_closes_at += delay
        season.starts_at += delay
        season.ends_at += delay
        season.save(update_fields=["registration_closes_at", "starts_at", "ends_at"])
        log.info("season %s: %d players registered, too few; pushed back", season.pk, len(keep))
        return False
    Registration.objects.filter(pk__in=[r.pk for r in drop]).delete()
    player_ids = [r.player_id for r in keep]
    returning = _previous_results(season, set(player_ids))
    back = {r.player_id for r in returning}
    newcomers = _by_rating([pk for pk in player_ids if pk not in back])
    for level, members in enumerate(place_levels(returning, newcomers, sizes, minimum), start=1):
        division = Division.objects.create(season=season, level=level)
        Placement.objects.bulk_create(
            Placement(season=season, division=division, player_id=pk, seed=seed)
            for seed, pk in enumerate(members, start=1)
        )
    season.state = Season.State.SCHEDULED
    season.scheduled_at = now
    season.save(update_fields=["state", "scheduled_at"])
    return True


def _reseed(division: Division) -> None:
    """Seeds 1, 2, 3… again in the division's order, after a player left or arrived."""
    placements = list(division.placements.order_by("seed", "pk"))
    for seed, placement in enumerate(placements, start=1):
        if placement.seed != seed:
            placement.seed = seed
            placement.save(update_fields=["seed"])


def _guaranteed_level(placement: Placement) -> int | None:
    """The lowest level last season's result lets ``placement``'s player be moved to."""
    returning = _previous_results(placement.season, {placement.player_id})
    return returning[0].cap if returning else None


@transaction.atomic
def placement_move(*, placement_id: int, division_id: int, by: User) -> Placement:
    """Staff move a player to another division of the same season before it starts.

    Refused if it would put a promoted player no higher than last season, a
    kept player lower, or leave a division too small for its tables. The
    player joins the end of the division's seeds; both divisions are seeded again.
    """
    try:
        season_id = Placement.objects.values_list("season_id", flat=True).get(pk=placement_id)
    except Placement.DoesNotExist:
        raise LeagueError("no-placement", _("There is no such placement."), status=404) from None
    season = _locked_season(season_id)
    placement = Placement.objects.select_related("division", "season").get(pk=placement_id)
    if season.state != Season.State.SCHEDULED:
        raise LeagueError(
            "not-scheduled",
            _("Players can be moved only once the divisions are placed and before the start."),
            status=409,
        )
    target = season.divisions.filter(pk=division_id).first()
    if target is None:
        raise LeagueError("bad-division", _("Choose a division of the same season."), status=400)
    source = placement.division
    if target.pk == source.pk:
        raise LeagueError("same-division", _("The player is already in this division."))
    cap = _guaranteed_level(placement)
    if cap is not None and target.level > cap:
        raise LeagueError(
            "guaranteed-level",
            _("After last season's result this player must play in division %(level)d or higher.")
            % {"level": cap},
        )
    if source.placements.count() - 1 < season.league.table_size:
        raise LeagueError(
            "too-few",
            _("%(division)s would have too few players for its tables.")
            % {"division": source.label},
        )
    last = target.placements.order_by("-seed").values_list("seed", flat=True).first() or 0
    placement.division = target
    placement.seed = last + 1
    placement.save(update_fields=["division", "seed"])
    _reseed(source)
    log.info("season %s: %s moved %s to %s", season.pk, by, placement.player_id, target.label)
    return placement


# --- the start ---------------------------------------------------------------------


@transaction.atomic
def season_start(
    *, season_id: int, now: datetime | None = None, rng: random.Random | None = None
) -> bool:
    """Create and start every game of every division at once, in the schedule's order.

    Players who can no longer play (account closed, suspended meanwhile) are
    taken out of their division first, and a division left with fewer players
    than a table (after withdrawals) is merged into the one above.
    """
    now = now or timezone.now()
    season = _locked_season(season_id)
    league = season.league
    if season.state != Season.State.SCHEDULED or season.starts_at > now:
        return False
    gone = [
        p
        for p in season.placements.select_related("player")
        if not can_play(p.player) or active_suspension(p.player, league, now) is not None
    ]
    if gone:
        _unplace(season, gone)
    for division in _fit_divisions(season, league.table_size):
        placements = list(division.placements.select_related("player").order_by("seed", "pk"))
        if len(placements) < league.table_size:
            log.warning("season %s: %s too small, no games", season.pk, division.label)
            continue
        tables = schedule(
            [p.player for p in placements], league.table_size, double=league.double_round_robin
        )
        links = []
        for number, table in enumerate(tables, start=1):
            game = games.game_create_organised(
                players=list(table), mode=Mode.MARQUE, days_per_move=league.days_per_move, rng=rng
            )
            links.append(LeagueGame(division=division, game=game, round=number))
        LeagueGame.objects.bulk_create(links)
    season.state = Season.State.RUNNING
    season.started_at = now
    season.save(update_fields=["state", "started_at"])
    notify.season_started(season)
    signals.send_on_commit(signals.season_started, season)
    return True


def _fit_divisions(season: Season, table_size: int) -> list[Division]:
    """The season's divisions, each with at least a table of players: one too small is
    merged into the one above (the top one into the one below, its players seeded
    first), and the levels numbered 1, 2, 3… again."""
    divisions = list(season.divisions.order_by("level", "number"))
    sizes = {d.pk: d.placements.count() for d in divisions}
    while len(divisions) > 1:
        small = next((d for d in divisions if sizes[d.pk] < table_size), None)
        if small is None:
            break
        index = divisions.index(small)
        into = divisions[index - 1] if index > 0 else divisions[1]
        moving = list(small.placements.order_by("seed", "pk"))
        staying = list(into.placements.order_by("seed", "pk"))
        ordered = staying + moving if index > 0 else moving + staying
        for seed, placement in enumerate(ordered, start=1):
            placement.division = into
            placement.seed = seed
        Placement.objects.bulk_update(ordered, ["division", "seed"])
        sizes[into.pk] += sizes.pop(small.pk)
        small.delete()
        divisions.remove(small)
        log.info("season %s: a division too small merged into %s", season.pk, into.label)
    for level, division in enumerate(divisions, start=1):
        if division.level != level:
            division.level = level
            division.save(update_fields=["level"])
    return divisions


def _unplace(season: Season, placements: Sequence[Placement]) -> None:
    """Take players out of a season not started yet: their placement and registration."""
    divisions = {p.division_id for p in placements}
    Registration.objects.filter(
        season=season, player_id__in=[p.player_id for p in placements]
    ).delete()
    Placement.objects.filter(pk__in=[p.pk for p in placements]).delete()
    for division in Division.objects.filter(pk__in=divisions):
        _reseed(division)


# --- during the season -------------------------------------------------------------


@transaction.atomic
def season_last_week(*, season_id: int, now: datetime | None = None) -> bool:
    """The last week of a running season has begun: say so, once (and not once it is over:
    a beat down for the whole week sends nothing late)."""
    now = now or timezone.now()
    season = _locked_season(season_id)
    if (
        season.state != Season.State.RUNNING
        or season.last_week_notified_at is not None
        or season.ends_at - LAST_WEEK > now
        or season.ends_at <= now
    ):
        return False
    season.last_week_notified_at = now
    season.save(update_fields=["last_week_notified_at"])
    notify.season_last_week(season)
    signals.send_on_commit(signals.season_last_week, season)
    return True


def league_games(season: Season) -> QuerySet[Game]:
    return Game.objects.filter(league_game__division__season=season)


@transaction.atomic
def placement_withdraw(*, season_id: int, player: User, by: User) -> int:
    """Staff withdraw a player: before the start, out of their division; during the
    season, every game of theirs still running resigned. The number of games resigned.
    """
    season = _locked_season(season_id)
    placement = season.placements.filter(player=player).first()
    if season.state == Season.State.REGISTRATION:
        raise LeagueError(
            "not-placed",
            _("The divisions are not placed yet: delete the registration instead."),
            status=409,
        )
    if placement is None:
        raise LeagueError("not-placed", _("This player is not in this season."), status=409)
    if season.state == Season.State.SCHEDULED:
        _unplace(season, [placement])
        log.info("season %s: %s withdrew %s before the start", season.pk, by, player.pk)
        return 0
    if season.state != Season.State.RUNNING:
        raise LeagueError("finished", _("This season is over."), status=409)
    if placement.withdrawn_at is not None:
        raise LeagueError(
            "already-withdrawn", _("This player has already been withdrawn."), status=409
        )
    placement.withdrawn_at = timezone.now()
    placement.outcome = Placement.Outcome.WITHDRAWN
    placement.save(update_fields=["withdrawn_at", "outcome"])
    resigned = 0
    running = league_games(season).filter(
        status=Game.Status.RUNNING,
        seats__player=player,
        seats__status=Seat.Status.ACTIVE,
    )
    for game_id in running.values_list("pk", flat=True).order_by("pk"):
        try:
            games.game_resign(game_id=game_id, player=player)
            resigned += 1
        except GameError as exc:  # timed out or over meanwhile: gone already
            log.info("season %s: game %s not resigned (%s)", season.pk, game_id, exc.code)
    log.info("season %s: %s withdrew %s, %d games resigned", season.pk, by, player.pk, resigned)
    return resigned


@transaction.atomic
def suspension_create(
    *,
    player: User,
    reason: str,
    by: User,
    league: League | None = None,
    until: datetime | None = None,
) -> Suspension:
    """Suspend ``player`` from ``league`` (or every league): their registrations are
    dropped from seasons not started yet, and registering is refused until ``until``.

    A season already running is not touched: withdraw the player from it
    (``placement_withdraw``) if their games must end too.
    """
    if not reason.strip():
        raise LeagueError("no-reason", _("Give the reason for the suspension."))
    if until is not None and until <= timezone.now():
        raise LeagueError("bad-until", _("The end of the suspension must be in the future."))
    suspension = Suspension.objects.create(
        player=player, league=league, reason=reason.strip(), until=until, created_by=by
    )
    seasons = Season.objects.filter(
        state__in=[Season.State.ANNOUNCED, Season.State.REGISTRATION, Season.State.SCHEDULED],
        registrations__player=player,
    )
    if league is not None:
        seasons = seasons.filter(league=league)
    for season_id in list(seasons.values_list("pk", flat=True)):
        season = _locked_season(season_id)
        placements = list(season.placements.filter(player=player))
        if placements:
            _unplace(season, placements)
        season.registrations.filter(player=player).delete()
    return suspension


# --- the close ---------------------------------------------------------------------


def season_games_over(season: Season) -> bool:
    return (
        not league_games(season)
        .exclude(status__in=[Game.Status.FINISHED, Game.Status.ANNULLED])
        .exists()
    )


def moving_count(n: int) -> int:
    """How many of a division of ``n`` go up (and down): about a quarter, at least one."""
    # Halves round up (10 players move 3, 18 move 5), as docs/LEAGUES.md reads it;
    # Python's round() would round them to even (10 -> 2, 18 -> 4).
    return max(1, math.floor(n * MOVING_SHARE + 0.5)) if n >= 2 else 0


def _inactive(division: Division, player_ids: Iterable[int]) -> set[int]:
    """Players who made no move in the season, or timed out in most of their games.

    A move is anything the player chose to play, a resignation included; a
    time-out is the clock's, not theirs.
    """
    seats = Seat.objects.filter(game__league_game__division=division).exclude(
        game__status=Game.Status.ANNULLED
    )
    played = set(
        Move.objects.filter(seat__in=seats)
        .exclude(kind=Move.Kind.TIMEOUT)
        .values_list("seat__player_id", flat=True)
    )
    games_of: Counter[int] = Counter()
    timeouts: Counter[int] = Counter()
    for player_id, status in seats.values_list("player_id", "status"):
        games_of[player_id] += 1
        timeouts[player_id] += status == Seat.Status.TIMED_OUT
    return {pk for pk in player_ids if pk not in played or 2 * timeouts[pk] > games_of[pk]}


def _close_division(season: Season, division: Division, bottom: int) -> None:
    placements = {p.player_id: p for p in division.placements.select_related("player")}
    rows = results.division_standings(division, [p.player for p in placements.values()])
    inactive = _inactive(division, placements)
    ranked: list[Placement] = []
    for row in rows:
        placement = placements[row.player.pk]
        placement.final_rank = row.rank
        placement.points = float(row.points)
        placement.score_difference = row.score_difference
        if placement.withdrawn_at is not None:
            placement.outcome = Placement.Outcome.WITHDRAWN
        elif row.player.pk in inactive:
            placement.outcome = Placement.Outcome.INACTIVE
        else:
            ranked.append(placement)
    # At the promotion and relegation lines, the standings' tie-breaks (points, score
    # differences, head-to-head) decide first; players still sharing a rank there are
    # taken in seed order, the better seed (the lower number) going up first and down last.
    ranked.sort(key=lambda p: (p.final_rank, p.seed))
    moving = moving_count(len(ranked))
    for index, placement in enumerate(ranked):
        if division.level > 1 and index < moving:
            placement.outcome = Placement.Outcome.PROMOTED
        elif division.level < bottom and index >= len(ranked) - moving:
            placement.outcome = Placement.Outcome.RELEGATED
        else:
            placement.outcome = Placement.Outcome.KEPT
    # The champion: the first of the top division among those who played it out (ties share).
    best = ranked[0].final_rank if ranked else None
    for placement in placements.values():
        placement.champion = (
            division.level == 1 and placement in ranked and placement.final_rank == best
        )
    Placement.objects.bulk_update(
        list(placements.values()),
        ["final_rank", "points", "score_difference", "outcome", "champion"],
    )


@transaction.atomic
def season_close(*, season_id: int, now: datetime | None = None) -> bool:
    """Once the season's time is up and every game is over: the standings, the
    outcomes and champions, then (if the league is still active) the next season
    with its registration open and the players carried over registered.

    Games still running at the end are played out (every game ends: the clock
    times out a player who does not move), and the close waits for them.
    """
    now = now or timezone.now()
    season = _locked_season(season_id)
    league = season.league
    if season.state != Season.State.RUNNING or season.ends_at > now:
        return False
    if not season_games_over(season):
        return False
    divisions = list(season.divisions.order_by("level", "number"))
    bottom = max((d.level for d in divisions), default=1)
    for division in divisions:
        _close_division(season, division, bottom)
    season.state = Season.State.FINISHED
    season.finished_at = now
    season.save(update_fields=["state", "finished_at"])
    notify.season_finished(season)
    signals.send_on_commit(signals.season_finished, season)
    if league.active:
        _next_season(season, now)
    return True


def _next_season(season: Season, now: datetime) -> Season:
    """The next season (staff may have announced it already), registration open, with
    every player carried over (not withdrawn, not inactive, not suspended) registered."""
    league = season.league
    following = (
        Season.objects.select_for_update().filter(league=league, number=season.number + 1).first()
    )
    if following is None:
        closes = now + timedelta(days=league.registration_days)
        following = Season.objects.create(
            league=league,
            number=season.number + 1,
            registration_opens_at=now,
            registration_closes_at=closes,
            starts_at=closes,
            ends_at=closes + timedelta(days=league.season_days),
        )
    carried = [
        p.player
        for p in season.placements.filter(outcome__in=OUTCOMES_CARRIED).select_related("player")
        if can_play(p.player) and active_suspension(p.player, league, now) is None
    ]
    if following.state in (Season.State.ANNOUNCED, Season.State.REGISTRATION):
        registered = set(following.registrations.values_list("player_id", flat=True))
        Registration.objects.bulk_create(
            Registration(season=following, player=player, carried_over=True)
            for player in carried
            if player.pk not in registered
        )
    if following.state == Season.State.ANNOUNCED:
        following.state = Season.State.REGISTRATION
        following.registration_opened_at = now
        if following.registration_opens_at > now:
            following.registration_opens_at = now
        following.save(update_fields=["state", "registration_opened_at", "registration_opens_at"])
        notify.registration_opened(following)
        signals.send_on_commit(signals.registration_opened, following)
    return following


# --- what beat runs ----------------------------------------------------------------


def seasons_due(now: datetime | None = None) -> dict[str, list[int]]:
    """The seasons with a step due at ``now``, by step (read without locks; each
    step checks again under its lock)."""
    now = now or timezone.now()
    seasons = Season.objects.filter(league__active=True)
    state = Season.State
    return {
        "open": list(
            seasons.filter(state=state.ANNOUNCED, registration_opens_at__lte=now).values_list(
                "pk", flat=True
            )
        ),
        "schedule": list(
            seasons.filter(state=state.REGISTRATION, registration_closes_at__lte=now).values_list(
                "pk", flat=True
            )
        ),
        "start": list(
            seasons.filter(state=state.SCHEDULED, starts_at__lte=now).values_list("pk", flat=True)
        ),
        "last_week": list(
            seasons.filter(
                state=state.RUNNING,
                last_week_notified_at=None,
                ends_at__lte=now + LAST_WEEK,
                ends_at__gt=now,
            ).values_list("pk", flat=True)
        ),
        "close": list(
            Season.objects.filter(state=state.RUNNING, ends_at__lte=now).values_list(
                "pk", flat=True
            )
        ),
    }


def seasons_advance(now: datetime | None = None) -> dict[str, int]:
    """Every step due, in the season's order (a season may take several in one run:
    registration closing at its start is placed, then started). Each season's step
    is its own transaction; one failing is logged and the others go on."""
    now = now or timezone.now()
    steps = {
        "open": lambda pk: season_open_registration(season_id=pk, now=now),
        "schedule": lambda pk: season_schedule(season_id=pk, now=now),
        "start": lambda pk: season_start(season_id=pk, now=now),
        "last_week": lambda pk: season_last_week(season_id=pk, now=now),
        "close": lambda pk: season_close(season_id=pk, now=now),
    }
    done = dict.fromkeys(steps, 0)
    for name, step in steps.items():
        for pk in seasons_due(now)[name]:
            try:
                done[name] += bool(step(pk))
            except Exception:
                log.exception(
                    "league season %s: step %s failed; the next run tries again", pk, name
                )
    return done
