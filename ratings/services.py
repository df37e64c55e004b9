"""Ratings: which games count, and the one way ratings change.

The model is OpenSkill's Plackett–Luce (Weng & Lin 2011): one update rates a
whole table of 2 to 8 players from their ranks, and equal ranks (shared wins,
R-END-3) are ties. A resigned or timed-out player already ranks below everyone
who finished (R-END-4), so the seat's ``rank`` is all the model needs.

Ratings are path-dependent. The invariant every write keeps: for each mode,
the stored ratings and ``RatingChange`` rows are exactly the replay of the
mode's rated games in the order ``(finished_at, game id)``. A game rated in
order is one step of that replay; a game that finishes "in the past" (an
earlier finish committed after a later one) or an annulled game rewinds the
mode to that point and replays what follows. Every write locks the mode's
``RatingSeries`` row first, so writers of a mode take turns.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import datetime

from django.db import transaction
from django.db.models import Q, prefetch_related_objects
from django.utils import timezone
from openskill.models import PlackettLuce

from games.models import Game, Mode
from ratings.models import Rating, RatingChange, RatingSeries, ordinal_of

# Written out rather than left to the library's defaults: these numbers decide
# every rating, and a recomputation must give the same result after an upgrade.
MU = 25.0
SIGMA = 25.0 / 3.0
MODEL = PlackettLuce(mu=MU, sigma=SIGMA, beta=25.0 / 6.0, kappa=0.0001, tau=25.0 / 300.0)

MIN_PLAYERS = 2
MAX_PLAYERS = 8
# SQLite refuses statements with too many parameters; IN lists go in chunks.
CHUNK = 500


def is_rated(game: Game) -> bool:
    """Whether ``game`` counts for the ratings. The one place that decides.

    Finished (never open, running or annulled) games of either mode, 2 to 8
    players, and rated (``Game.rated``): not a friendly table, and no computer
    player seated when it started (a computer seated and taken back before the
    start leaves it rated, unless a person joined meanwhile: ``Game.friendly``).
    Hints are allowed only in unrated games, so a game with hints is never
    rated either.
    """
    return (
        game.rated
        and game.status == Game.Status.FINISHED
        and game.finished_at is not None
        and game.mode in Mode.values
        and MIN_PLAYERS <= game.seats_wanted <= MAX_PLAYERS
    )


@dataclass(frozen=True)
class PlayerRating:
    """A player's rating in memory: OpenSkill's mu and sigma, and rated games."""

    mu: float = MU
    sigma: float = SIGMA
    games: int = 0

    @property
    def ordinal(self) -> float:
        return ordinal_of(self.mu, self.sigma)


def rate_table(before: Sequence[PlayerRating], ranks: Sequence[int]) -> list[tuple[float, float]]:
    """New (mu, sigma) for each seat of one game; rank 1 is best, equal ranks tie."""
    teams = [[MODEL.rating(mu=rating.mu, sigma=rating.sigma)] for rating in before]
    rated = MODEL.rate(teams, ranks=list(ranks))
    return [(team[0].mu, team[0].sigma) for team in rated]


# --- writes ---------------------------------------------------------------------


# savepoint=False: called inside the transaction that ended (or annulled) the game,
# a savepoint would protect nothing, since an error here rolls the whole event back.
@transaction.atomic(savepoint=False)
def rating_record_game(*, game: Game) -> None:
    """Rate a game that just finished (a ``game_finished`` receiver). Safe to call twice."""
    if not is_rated(game):
        return
    _lock_series(game.mode)
    if RatingChange.objects.filter(game=game).exists():
        return
    assert game.finished_at is not None  # is_rated: the game is over
    if RatingChange.objects.filter(_after(game.finished_at, game.pk), mode=game.mode).exists():
        # A later game was rated first (the two finished at nearly the same
        # time): replay from this one so the order stays (finished_at, id).
        _rewind_and_replay(game.mode, game.finished_at, game.pk)
        return
    _replay(game.mode, [game], {})


@transaction.atomic(savepoint=False)
def rating_forget_game(*, game: Game) -> int:
    """Take an annulled game out of the ratings; returns the number of games replayed.

    Every rated game of the mode from the annulled one's finish onward is
    replayed, starting from the ratings its players had before it.
    """
    _lock_series(game.mode)
    first = RatingChange.objects.filter(game=game).order_by().first()
    if first is None:
        return 0
    return _rewind_and_replay(game.mode, first.finished_at, game.pk)


@transaction.atomic
def ratings_recompute(*, mode: str) -> int:
    """Replay every rated game of ``mode`` from scratch; returns the number replayed.

    For staff (``manage.py ratings_recompute``) after ``is_rated`` changes.
    """
    series = _lock_series(mode)
    replayed = _rewind_and_replay(mode, None, None)
    series.recomputed_at = timezone.now()
    series.save(update_fields=["recomputed_at"])
    return replayed


# --- reads used by the writes, and by the check -----------------------------------


def fresh_ratings(mode: str) -> dict[int, PlayerRating]:
    """The ratings a replay of every rated game of ``mode`` gives, computed in memory.

    Writes nothing: the check that the stored ratings are what they should be.
    """
    state: dict[int, PlayerRating] = {}
    for game in _rated_games(mode, None, None):
        _rate_game(game, state)
    return state


# --- internals ----------------------------------------------------------------------


def _lock_series(mode: str) -> RatingSeries:
    series, _created = RatingSeries.objects.select_for_update().get_or_create(mode=mode)
    return series


def _after(finished_at: datetime, game_id: int) -> Q:
    """History rows strictly after the game ``(finished_at, game_id)`` in replay order."""
    return Q(finished_at__gt=finished_at) | Q(finished_at=finished_at, game_id__gt=game_id)


def _rated_games(mode: str, finished_at: datetime | None, game_id: int | None) -> list[Game]:
    games = Game.objects.filter(mode=mode, status=Game.Status.FINISHED)
    if finished_at is not None:
        games = games.filter(
            Q(finished_at__gt=finished_at) | Q(finished_at=finished_at, pk__gte=game_id)
        )
    games = games.order_by("finished_at", "pk").prefetch_related("seats")
    return [game for game in games if is_rated(game)]


def _rewind_and_replay(mode: str, finished_at: datetime | None, game_id: int | None) -> int:
    """Undo the history from ``(finished_at, game_id)`` on (all of it when None), then replay."""
    changes = RatingChange.objects.filter(mode=mode)
    if finished_at is None:
        # From scratch: nobody keeps a stored rating, whatever the rows say.
        Rating.objects.filter(mode=mode).delete()
        changes.delete()
        games = _rated_games(mode, None, None)
        _replay(mode, games, {}, use_stored=False)
        return len(games)
    changes = changes.filter(
        Q(finished_at__gt=finished_at) | Q(finished_at=finished_at, game_id__gte=game_id)
    )
    start: dict[int, PlayerRating] = {}
    rows = changes.order_by("finished_at", "game_id").values_list(
        "player_id", "mu_before", "sigma_before", "games_after"
    )
    for player_id, mu, sigma, games_after in rows:
        # The player's first undone game holds the rating they had before it.
        start.setdefault(player_id, PlayerRating(mu, sigma, games_after - 1))
    changes.delete()
    games = _rated_games(mode, finished_at, game_id)
    _replay(mode, games, start)
    return len(games)


def _replay(
    mode: str, games: list[Game], start: dict[int, PlayerRating], *, use_stored: bool = True
) -> None:
    """Rate ``games`` in order from ``start`` (other players: their stored rating) and save."""
    prefetch_related_objects(games, "seats")
    state = dict(start)
    if use_stored:
        seated = {seat.player_id for game in games for seat in game.seats.all()}
        state.update(_stored(mode, seated - state.keys()))
    changes: list[RatingChange] = []
    for game in games:
        changes += _rate_game(game, state)
    RatingChange.objects.bulk_create(changes, batch_size=CHUNK)
    _save(mode, state)


def _rate_game(game: Game, state: dict[int, PlayerRating]) -> list[RatingChange]:
    """One step of the replay: update ``state`` in place, return the history rows."""
    seats = [seat for seat in game.seats.all() if seat.rank is not None]
    if len(seats) < MIN_PLAYERS:
        return []
    before = [state.get(seat.player_id, PlayerRating()) for seat in seats]
    ranks = [seat.rank for seat in seats if seat.rank is not None]  # every seat's, as above
    after = rate_table(before, ranks)
    assert game.finished_at is not None  # only a finished game is rated
    changes = []
    for seat, rank, old, (mu, sigma) in zip(seats, ranks, before, after, strict=True):
        state[seat.player_id] = PlayerRating(mu, sigma, old.games + 1)
        changes.append(
            RatingChange(
                game=game,
                player_id=seat.player_id,
                mode=game.mode,
                finished_at=game.finished_at,
                rank=rank,
                players=len(seats),
                mu_before=old.mu,
                sigma_before=old.sigma,
                mu_after=mu,
                sigma_after=sigma,
                games_after=old.games + 1,
            )
        )
    return changes


def _chunks(ids: Iterable[int]) -> Iterable[list[int]]:
    ids = sorted(ids)
    for index in range(0, len(ids), CHUNK):
        yield ids[index : index + CHUNK]


def _stored(mode: str, player_ids: Iterable[int]) -> dict[int, PlayerRating]:
    found: dict[int, PlayerRating] = {}
    for chunk in _chunks(player_ids):
        for player_id, mu, sigma, games in Rating.objects.filter(
            mode=mode, player_id__in=chunk
        ).values_list("player_id", "mu", "sigma", "games"):
            found[player_id] = PlayerRating(mu, sigma, games)
    return found


def _save(mode: str, state: dict[int, PlayerRating]) -> None:
    """Write ``state`` to the Rating rows; a player left with no rated game has none."""
    now = timezone.now()
    gone = [player_id for player_id, rating in state.items() if rating.games == 0]
    for chunk in _chunks(gone):
        Rating.objects.filter(mode=mode, player_id__in=chunk).delete()
    kept = {player_id: rating for player_id, rating in state.items() if rating.games > 0}
    existing: list[Rating] = []
    for chunk in _chunks(kept):
        existing += Rating.objects.filter(mode=mode, player_id__in=chunk)
    for row in existing:
        rating = kept[row.player_id]
        row.mu, row.sigma, row.ordinal = rating.mu, rating.sigma, rating.ordinal
        row.games, row.updated_at = rating.games, now
    Rating.objects.bulk_update(
        existing, ["mu", "sigma", "ordinal", "games", "updated_at"], batch_size=CHUNK
    )
    present = {row.player_id for row in existing}
    Rating.objects.bulk_create(
        [
            Rating(
                player_id=player_id,
                mode=mode,
                mu=rating.mu,
                sigma=rating.sigma,
                ordinal=rating.ordinal,
                games=rating.games,
            )
            for player_id, rating in kept.items()
            if player_id not in present
        ],
        batch_size=CHUNK,
    )
