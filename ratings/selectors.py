"""Reads for the leaderboards and the player page: aggregation happens in the database.

A leaderboard page costs a fixed number of queries whatever the number of
players: one to count the rows, one for the page (an annotated, grouped
query), and one for the signed-in player's place (a window function over the
same query). Statistics are never stored: they are aggregated from the seats
of finished games, so an annulled game (status ``annulled``) leaves them at
once. Players who deleted their account ("Ancien joueur") and deactivated
accounts (``is_active`` off: a banned cheater) are left out of the
leaderboards; their games still count for the players they met. Computer
players are never on a leaderboard, and the statistics leaderboard counts
rated games only, like the ratings: a friendly game or a game against the
computer is practice. The player page shows both, each under its own heading:
its rated figures count the same games as the ratings, its "all games" figures
count every finished game, with those against the computer counted apart.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import TYPE_CHECKING

from django.db import connections
from django.db.models import (
    Aggregate,
    Avg,
    Count,
    Exists,
    F,
    FloatField,
    Max,
    OrderBy,
    OuterRef,
    Q,
    QuerySet,
    Sum,
    Window,
)
from django.db.models.functions import Cast, RowNumber
from django.utils import timezone
from django.utils.translation import gettext_lazy as _

from accounts.models import User
from games.models import Game, Mode, Seat
from ratings.models import PROVISIONAL_GAMES, Rating, RatingChange

if TYPE_CHECKING:
    from django_stubs_ext import StrOrPromise

DEFAULT_MIN_GAMES = 3
MAX_MIN_GAMES = 100
MARQUE_TABLE_SIZES = (2, 3, 4)


@dataclass(frozen=True)
class Column:
    """A sortable column of the statistics leaderboard: its slug is the ``?tri=`` value."""

    slug: str
    label: StrOrPromise
    # Descending fields, best first; the username breaks every remaining tie.
    order: tuple[str, ...]


COLUMNS = (
    Column("victoires", _("Wins"), ("wins", "win_rate", "games")),
    Column("parties", _("Games"), ("games", "wins")),
    Column("taux", _("Win rate"), ("win_rate", "games")),
    Column("moyenne", _("Average"), ("average", "games")),
    Column("meilleur", _("Best"), ("best", "average")),
    Column("total", _("Total"), ("total", "games")),
)
SORTS = {column.slug: column for column in COLUMNS}
DEFAULT_SORT = "victoires"

PERIODS = {
    "tout": _("All time"),
    "annee": _("This year"),
    "30-jours": _("Last 30 days"),
}
DEFAULT_PERIOD = "tout"


@dataclass(frozen=True)
class StatsQuery:
    """The statistics leaderboard's filters, already checked (``ratings.forms``)."""

    sort: str = DEFAULT_SORT
    period: str = DEFAULT_PERIOD
    table_size: int | None = None
    min_games: int = DEFAULT_MIN_GAMES

    @property
    def order(self) -> list[OrderBy]:
        return [F(name).desc() for name in SORTS[self.sort].order] + [F("username").asc()]


def period_start(period: str, now: datetime | None = None) -> datetime | None:
    """When ``period`` begins; "this year" starts on 1 January in the viewer's time zone."""
    now = timezone.localtime(now)
    if period == "annee":
        return now.replace(month=1, day=1, hour=0, minute=0, second=0, microsecond=0)
    if period == "30-jours":
        return now - timedelta(days=30)
    return None


def seat_aggregates(
    prefix: str = "", *, only: Q | None = None, name: str = ""
) -> dict[str, Aggregate]:
    """Games, wins, best, average and total score of a group of seats; a shared win is a win.

    ``only`` narrows every figure to the seats it matches (the rated games on
    the player page), and ``name`` prefixes the annotations' names so that two
    sets of figures can come from the same grouped query.
    """
    seat = f"{prefix}pk" if prefix else "pk"
    won = Q(**{f"{prefix}is_winner": True})
    return {
        f"{name}games": Count(seat, filter=only),
        f"{name}wins": Count(seat, filter=won & only if only is not None else won),
        f"{name}best": Max(f"{prefix}score", filter=only),
        f"{name}average": Avg(f"{prefix}score", filter=only),
        f"{name}total": Sum(f"{prefix}score", filter=only),
    }


def marque_leaderboard(query: StatsQuery) -> QuerySet[User]:
    """One row per player with enough finished avec-marque games: a ``User`` annotated
    with games, wins, win_rate, best, average and total, in the query's order."""
    seats = Q(
        seats__game__status=Game.Status.FINISHED,
        seats__game__mode=Mode.MARQUE,
        seats__game__rated=True,
    )
    start = period_start(query.period)
    if start is not None:
        seats &= Q(seats__game__finished_at__gte=start)
    if query.table_size is not None:
        seats &= Q(seats__game__seats_wanted=query.table_size)
    return (
        User.objects.filter(seats, deleted_at__isnull=True, is_active=True, bot_level="")
        .annotate(**seat_aggregates("seats__"))
        .annotate(win_rate=Cast("wins", FloatField()) / Cast("games", FloatField()))
        # "games" is seat_aggregates()' annotation, passed as **kwargs: the plugin cannot see it.
        .filter(games__gte=query.min_games)  # type: ignore[misc]
        .only("username", "display_name", "deleted_at", "bot_level")
        .order_by(*query.order)
    )


def rating_leaderboard(mode: str, *, include_provisional: bool = False) -> QuerySet[Rating]:
    """Ratings of ``mode``, best first by ordinal (mu − 3σ: the cautious estimate)."""
    ratings = Rating.objects.filter(
        mode=mode, player__deleted_at__isnull=True, player__is_active=True, player__bot_level=""
    )
    if not include_provisional:
        ratings = ratings.filter(games__gte=PROVISIONAL_GAMES)
    return ratings.select_related("player").order_by(*RATING_ORDER)


RATING_ORDER = (F("ordinal").desc(), F("player__username").asc())


def place_of(rows: QuerySet, order: Sequence[OrderBy], pk: int, key: str = "pk") -> int | None:
    """Row ``pk``'s 1-based place in ``rows`` ordered by ``order``, or None if absent.

    One query, however far down the row is: the database numbers the rows
    (``ROW_NUMBER()`` over the leaderboard's own order) and the outer query
    keeps ours. The outer query is written by hand because Django puts a
    filter on ``pk`` inside, before the numbering.
    """
    numbered = rows.annotate(
        place=Window(RowNumber(), order_by=list(order)), row_key=F(key)
    ).values("row_key", "place")
    connection = connections[rows.db]
    sql, params = numbered.query.sql_with_params()
    quote = connection.ops.quote_name
    with connection.cursor() as cursor:
        cursor.execute(
            f"SELECT {quote('place')} FROM ({sql}) numbered WHERE {quote('row_key')} = %s",
            (*params, pk),
        )
        found = cursor.fetchone()
    return found[0] if found else None


# --- the player page ---------------------------------------------------------------------


@dataclass(frozen=True)
class Figures:
    """Games, wins and scores of one group of a player's finished games."""

    games: int = 0
    wins: int = 0
    best: int | None = None
    average: float | None = None
    total: int | None = None

    @property
    def win_rate(self) -> float | None:
        return self.wins / self.games if self.games else None


@dataclass(frozen=True)
class ModeStatistics:
    """A player's figures in one mode, rated games apart from all games.

    ``rated`` counts the games the ratings count (finished with ``Game.rated``
    on: ``ratings.services.is_rated``), so that a rating and the figures shown
    beside it describe the same games; ``all_games`` counts every finished
    game, friendly ones and those against the computer included, and
    ``computer_games`` how many of those had a computer player at the table.
    """

    mode: str
    label: str
    rated: Figures
    all_games: Figures
    computer_games: int = 0


# A seat whose game had a computer player at the table when it finished.
AGAINST_COMPUTER = Q(Exists(Seat.objects.filter(game=OuterRef("game"), player__bot_level__gt="")))


def player_statistics(player: User) -> list[ModeStatistics]:
    """Finished (non-annulled) games per mode, rated and all, in one grouped query."""
    rows = {
        row["game__mode"]: row
        for row in Seat.objects.filter(player=player, game__status=Game.Status.FINISHED)
        .values("game__mode")
        .annotate(
            **seat_aggregates(),
            **seat_aggregates(only=Q(game__rated=True), name="rated_"),
            computer_games=Count("pk", filter=AGAINST_COMPUTER),
        )
        .order_by()
    }
    found = []
    for mode, label in Mode.choices:
        row = rows.get(mode)
        if row is None:
            continue
        found.append(
            ModeStatistics(
                mode=mode,
                label=str(label),
                rated=_figures(row, "rated_"),
                all_games=_figures(row, ""),
                computer_games=row["computer_games"],
            )
        )
    return found


def _figures(row: dict, name: str) -> Figures:
    return Figures(
        games=row[f"{name}games"],
        wins=row[f"{name}wins"],
        best=row[f"{name}best"],
        average=row[f"{name}average"],
        total=row[f"{name}total"],
    )


def player_ratings(player: User) -> dict[str, Rating]:
    return {rating.mode: rating for rating in Rating.objects.filter(player=player)}


@dataclass
class HeadToHead:
    """Finished games two players sat at together, and how each did."""

    mode: str
    label: str
    games: int = 0
    player_wins: int = 0
    viewer_wins: int = 0
    player_ahead: int = 0
    viewer_ahead: int = 0


@dataclass
class HeadToHeadRecord:
    modes: list[HeadToHead] = field(default_factory=list)

    @property
    def games(self) -> int:
        return sum(mode.games for mode in self.modes)


def head_to_head(player: User, viewer: User) -> HeadToHeadRecord:
    """The viewer's record against ``player``, per mode, in one query.

    A shared win is a win for both; "ahead" compares the two seats' ranks,
    which also orders two players who both lost.
    """
    # filter() then annotate() on the same relation reuse its join: the
    # ``game__seats__…`` below are the other player's seat in the same game.
    rows = (
        Seat.objects.filter(
            player=viewer, game__status=Game.Status.FINISHED, game__seats__player=player
        )
        .values("game__mode")
        .annotate(
            games=Count("pk"),
            viewer_wins=Count("pk", filter=Q(is_winner=True)),
            player_wins=Count("pk", filter=Q(game__seats__is_winner=True)),
            viewer_ahead=Count("pk", filter=Q(rank__lt=F("game__seats__rank"))),
            player_ahead=Count("pk", filter=Q(rank__gt=F("game__seats__rank"))),
        )
        .order_by()
    )
    by_mode = {row.pop("game__mode"): row for row in rows}
    return HeadToHeadRecord(
        [
            HeadToHead(mode=mode, label=str(label), **by_mode[mode])
            for mode, label in Mode.choices
            if mode in by_mode
        ]
    )


def rating_history(player: User, mode: str, limit: int = 100) -> list[RatingChange]:
    """The player's last ``limit`` rating changes in ``mode``, oldest first."""
    changes = list(
        RatingChange.objects.filter(player=player, mode=mode)
        .only(
            "game_id",
            "finished_at",
            "rank",
            "players",
            "mu_before",
            "sigma_before",
            "mu_after",
            "sigma_after",
        )
        .order_by("-finished_at", "-game_id")[:limit]
    )
    changes.reverse()
    return changes
