"""The site's games as the standings read them: ``Game`` rows → ``standings.GameResult``.

``leagues.standings`` is pure; this is the one place that turns a division's
games into its input, for the close (``services.season_close``) and the pages.
An annulled game counts for nothing and is left out; a running one is passed
as not finished (shown, counting nothing).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from django.db.models import Prefetch

from accounts.models import User
from games.models import Game, Seat
from leagues.models import Division
from leagues.standings import GameResult, Row, standings


def game_result(game: Game) -> GameResult[User]:
    """``game`` (its seats prefetched in play order, or read here) as a ``GameResult``."""
    seats = sorted(game.seats.all(), key=lambda s: (s.position is None, s.position, s.pk))
    finished = game.status == Game.Status.FINISHED
    gone = (Seat.Status.RESIGNED, Seat.Status.TIMED_OUT)
    return GameResult(
        players=tuple(s.player for s in seats),
        scores=tuple(s.score for s in seats),
        winners=frozenset(s.player for s in seats if finished and s.is_winner),
        finished=finished,
        forfeited=frozenset(s.player for s in seats if s.status in gone),
        game=game,
    )


def division_games(division: Division) -> list[Game]:
    """The division's games (annulled ones left out), in the schedule's order, seats loaded."""
    seats = Seat.objects.select_related("player").order_by("position", "pk")
    return list(
        Game.objects.filter(league_game__division=division)
        .exclude(status=Game.Status.ANNULLED)
        .order_by("league_game__round", "pk")
        .prefetch_related(Prefetch("seats", queryset=seats))
    )


def game_results(games: Iterable[Game]) -> list[GameResult[User]]:
    return [game_result(game) for game in games]


def division_standings(division: Division, players: Sequence[User]) -> list[Row[User]]:
    """The standings of ``division`` among ``players`` (its placements' players)."""
    return standings(players, game_results(division_games(division)))
