"""The correspondence clock: when the player to move times out.

Like lichess's correspondence clock, the deadline is *computed*, never stored
as a counter: the turn began at ``Game.turn_started_at``, the player has
``days_per_move`` days of clock time, and the clock stops while the player is
on vacation (``accounts.Vacation``). Everything that shows or acts on a
deadline asks this module: the game page and the lists (``games/selectors``),
the emails, the reminders and the time-outs (``games/deadlines.py``).

Starting, booking, cancelling or ending a vacation changes the deadline the
next time it is computed; nothing needs updating. A vacation booked ahead
that begins before the deadline pushes it by its length from the moment it
is booked (``push_past`` stops the clock from its start), so the page, the
lists and the emails show the later deadline at once; cancelling it before it
starts brings the deadline back, still after now.

The other players may give the player to move more time (``games/services/time_given.py``):
a day at a time, at most ``MAX_EXTRA_DAYS`` per turn from all of them. The
days given are clock time added to the turn (``Game.turn_extra_days``, back to
0 when a turn begins), so ``turn_days`` is what every deadline here counts. A
gift is decided under the game's row lock, like a time-out, and refused once
the deadline has passed: the time-out comes first.

Deciding a time-out and starting a vacation meet on the game row. Whoever
decides that a deadline has passed (``games.deadlines.apply_timeouts``,
``services.move_submit`` and ``services.game_resign``) holds the game's row
lock and reads the vacations after taking it; ``accounts.vacations.vacation_start``
locks the player's row, then every game where the player is to move
(``lock_turns_of``, in pk order), and refuses if one of those deadlines has
already passed. So a vacation either commits before the deadline is computed
(and pushes it) or waits for the time-out and finds the turn gone. Nothing
locks a game and then a player's row for update; a time-out (or a move) does
take a KEY SHARE lock on the rows its notifications and ratings point at, which
is why ``vacation_start`` locks the player FOR NO KEY UPDATE (a plain FOR UPDATE
deadlocked here: ``tests/games/test_concurrency.py``).
"""

from __future__ import annotations

import functools
from collections import defaultdict
from collections.abc import Iterable, Sequence
from datetime import datetime, timedelta
from typing import Any

from django.db.models import QuerySet
from django.utils import timezone

from accounts.models import Vacation
from games.compiled import MAX_ARGUMENTS, CompiledQuery
from games.models import Game, Seat

DAY = timedelta(days=1)
REMINDER_LEAD = timedelta(hours=24)
# The most days the other players may give the player to move on one turn, all
# givers together: enough to cover a week away without a vacation, and a bound
# on how long a friendly gift can hold up the rest of a larger table.
MAX_EXTRA_DAYS = 7

Interval = tuple[datetime, datetime]


def push_past(start: datetime, allowed: timedelta, pauses: Iterable[Interval]) -> datetime:
    """When ``allowed`` clock time has run from ``start`` if the clock stops during ``pauses``.

    Pauses may overlap each other or begin before ``start`` (a vacation that
    was already running when the turn began: the clock starts when it ends).
    """
    moment, left = start, allowed
    for pause_start, pause_end in sorted(pauses):
        if pause_end <= moment:
            continue
        if pause_start > moment:
            if pause_start - moment >= left:
                break
            left -= pause_start - moment
        moment = pause_end
    return moment + left


def turn_deadline(
    turn_started_at: datetime, days: int, vacations: Iterable[Interval] = ()
) -> datetime:
    """The moment the player to move times out (R-END-4), with ``days`` of clock time."""
    return push_past(turn_started_at, days * DAY, vacations)


def turn_days(game: Game) -> int:
    """The days of clock time the player to move has on this turn: days per move plus gifts."""
    return game.days_per_move + game.turn_extra_days


def reminder_lead(days_per_move: int) -> timedelta:
    """How long before the deadline the reminder goes out.

    24 hours, except in one-day games, where that would be the moment the
    turn begins (the "your turn" email already says it): there, half the time.
    """
    return min(REMINDER_LEAD, days_per_move * DAY / 2)


def vacations_of(player_ids: Iterable[int | None], since: datetime) -> dict[int, list[Interval]]:
    """Each player's vacations that end after ``since``, in one query."""
    ids = {pk for pk in player_ids if pk is not None}
    found: dict[int, list[Interval]] = defaultdict(list)
    if not ids:
        return found
    if len(ids) < MAX_ARGUMENTS:  # a game's seats: the SQL made once (games/compiled.py)
        rows: Iterable[tuple[int, datetime, datetime]] = _vacations_query(len(ids)).list(
            *sorted(ids), since
        )
    else:  # the deadline sweep's many players
        rows = _vacations_build(*ids, since)
    for user_id, starts_at, ends_at in rows:
        found[user_id].append((starts_at, ends_at))
    return found


@functools.cache
def _vacations_query(count: int) -> CompiledQuery[tuple[int, datetime, datetime]]:
    """``vacations_of``'s query for ``count`` players, its SQL made once (games/compiled.py)."""

    return CompiledQuery(_vacations_build, *([int] * count), datetime)


def _vacations_build(*arguments: Any) -> QuerySet[Any]:
    *ids, since = arguments
    return Vacation.objects.filter(user_id__in=ids, ends_at__gt=since).values_list(
        "user_id", "starts_at", "ends_at"
    )


def on_vacation_until(vacations: Sequence[Interval], at: datetime | None = None) -> datetime | None:
    """The end of the vacation running at ``at`` (now by default), or None."""
    at = at or timezone.now()
    running = [end for start, end in vacations if start <= at < end]
    if not running:
        return None
    # Back-to-back vacations read as one: follow them to the last.
    until = max(running)
    for start, end in sorted(vacations):
        if start <= until < end:
            until = end
    return until


def vacation_ahead(
    vacations: Sequence[Interval], deadline: datetime | None, after: datetime
) -> datetime | None:
    """The start of the first vacation beginning after ``after`` and before ``deadline``, or None.

    Such a vacation, booked ahead, already pushes that deadline (``push_past``):
    the game page shows it beside the player to move so the others see why.
    """
    if deadline is None:
        return None
    return min((start for start, _end in vacations if after < start < deadline), default=None)


def lock_turns_of(player_id: int) -> list[Game]:
    """The running games where the player is to move, row-locked in pk order (see the module doc)."""
    turns = Seat.objects.filter(player_id=player_id).values("pk")
    return list(
        Game.objects.select_for_update()
        .filter(status=Game.Status.RUNNING, to_move__in=turns)
        .order_by("pk")
    )


def is_overdue(game: Game, now: datetime, *, player_id: int | None = None) -> bool:
    """Whether the player to move in ``game`` let their deadline pass by ``now``."""
    if not is_ticking(game) or turn_started(game) + turn_days(game) * DAY > now:
        return False  # vacations only push a deadline later: no need to read them
    deadline = deadline_of(game, player_id=player_id)
    return deadline is not None and deadline <= now


def _to_move_player_id(game: Game) -> int | None:
    if game.to_move_id is None:
        return None
    if Game.to_move.is_cached(game) and game.to_move is not None:
        return game.to_move.player_id
    return Seat.objects.filter(pk=game.to_move_id).values_list("player_id", flat=True).first()


def is_ticking(game: Game) -> bool:
    return (
        game.status == Game.Status.RUNNING
        and game.turn_started_at is not None
        and game.to_move_id is not None
    )


def seat_to_move(game: Game) -> Seat:
    """The seat whose turn it is, in a game that has one (a ticking game does)."""
    if game.to_move is None:
        raise ValueError(f"game {game.pk} has no player to move")
    return game.to_move


def turn_started(game: Game) -> datetime:
    """When the turn under way began, in a game that has one (a ticking game does)."""
    if game.turn_started_at is None:
        raise ValueError(f"game {game.pk} has no turn under way")
    return game.turn_started_at


def turn_key(game: Game) -> str:
    """Names one turn of one game, for the keys of its emails (turn, reminder, day given).

    Made of the seat to move and when its turn began, so a move that does not
    pass the turn (a resignation out of turn) keeps the same key.
    """
    stamp = int(turn_started(game).timestamp() * 1_000_000)
    return f"{game.pk}:{game.to_move_id}:{stamp}"


def deadline_of(
    game: Game, *, player_id: int | None = None, vacations: Sequence[Interval] | None = None
) -> datetime | None:
    """When the player to move in ``game`` times out; None when no clock runs.

    Pass ``player_id`` (the player to move) and their ``vacations`` when the
    caller already has them, to spare the queries.
    """
    if not is_ticking(game):
        return None
    if vacations is None:
        player_id = player_id if player_id is not None else _to_move_player_id(game)
        found = vacations_of([player_id], turn_started(game))
        vacations = found.get(player_id, []) if player_id is not None else []
    return turn_deadline(turn_started(game), turn_days(game), vacations)


def deadlines_of(games: Sequence[Game]) -> dict[int, datetime | None]:
    """The deadline of each game, for lists: two queries whatever the number of games."""
    ticking = [g for g in games if is_ticking(g)]
    result: dict[int, datetime | None] = {g.pk: None for g in games}
    if not ticking:
        return result
    players: dict[int | None, int] = dict(
        Seat.objects.filter(pk__in=[g.to_move_id for g in ticking]).values_list("pk", "player_id")
    )
    since = min(turn_started(g) for g in ticking)
    vacations = vacations_of(players.values(), since)
    for game in ticking:
        player_id = players.get(game.to_move_id)
        result[game.pk] = turn_deadline(
            turn_started(game),
            turn_days(game),
            vacations.get(player_id, []) if player_id is not None else [],
        )
    return result
