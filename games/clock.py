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

**Quiet hours** (#35, ``accounts/preferences.py``): a deadline that would fall
in the quiet hours of the player to move moves to their end, so no one times
out in their sleep. It is the last step of the computation, after vacations and
days given (``turn_deadline``); it only ever moves a deadline later, so the
shortcuts below that compare with the bare ``days`` still hold.

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

from collections import defaultdict
from collections.abc import Iterable, Sequence
from datetime import datetime, timedelta

from django.utils import timezone

from accounts.models import User, Vacation
from accounts.preferences import REMINDER_HOURS, QuietHours, quiet_hours, quiet_hours_of
from games.models import Game, Seat

DAY = timedelta(days=1)
REMINDER_LEAD = timedelta(hours=24)
# The earliest reminder a player may choose (accounts.preferences.REMINDER_HOURS).
LONGEST_REMINDER_LEAD = timedelta(hours=max(REMINDER_HOURS))
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
    turn_started_at: datetime,
    days: int,
    vacations: Iterable[Interval] = (),
    quiet: QuietHours | None = None,
) -> datetime:
    """The moment the player to move times out (R-END-4), with ``days`` of clock time.

    Out of the player's ``quiet`` hours: a moment in them moves to their end.
    """
    deadline = push_past(turn_started_at, days * DAY, vacations)
    return quiet.moved(deadline) if quiet is not None else deadline


def turn_days(game: Game) -> int:
    """The days of clock time the player to move has on this turn: days per move plus gifts."""
    return game.days_per_move + game.turn_extra_days


def reminder_lead(days_per_move: int, chosen: timedelta = REMINDER_LEAD) -> timedelta:
    """How long before the deadline a reminder the player ``chosen`` goes out.

    As chosen (24 hours unless the player chose otherwise in the settings), but
    never earlier than halfway through the turn: in a one-day game 24 hours
    would be the moment the turn begins (the "your turn" email already says it).
    """
    return min(chosen, days_per_move * DAY / 2)


def vacations_of(player_ids: Iterable[int | None], since: datetime) -> dict[int, list[Interval]]:
    """Each player's vacations that end after ``since``, in one query."""
    ids = {pk for pk in player_ids if pk is not None}
    found: dict[int, list[Interval]] = defaultdict(list)
    if not ids:
        return found
    rows = Vacation.objects.filter(user_id__in=ids, ends_at__gt=since).values_list(
        "user_id", "starts_at", "ends_at"
    )
    for user_id, starts_at, ends_at in rows:
        found[user_id].append((starts_at, ends_at))
    return found


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


def is_overdue(game: Game, now: datetime, *, player: User | None = None) -> bool:
    """Whether the player to move in ``game`` let their deadline pass by ``now``."""
    if not is_ticking(game) or turn_started(game) + turn_days(game) * DAY > now:
        return False  # vacations and quiet hours only push a deadline later: no need to read them
    deadline = deadline_of(game, player=player)
    return deadline is not None and deadline <= now


def _to_move_player(game: Game) -> User | None:
    # No query when the caller loaded the seat and its player with select_related.
    seat = game.to_move if game.to_move_id is not None else None
    return seat.player if seat is not None else None


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
    game: Game,
    *,
    player: User | None = None,
    vacations: Sequence[Interval] | None = None,
    with_quiet: bool = True,
) -> datetime | None:
    """When the player to move in ``game`` times out; None when no clock runs.

    Pass ``player`` (the player to move: their quiet hours) and their
    ``vacations`` when the caller already has them, to spare the queries.
    ``with_quiet=False``: the deadline before the quiet hours moved it (the
    game page says when they did).
    """
    if not is_ticking(game):
        return None
    player = player if player is not None else _to_move_player(game)
    if vacations is None:
        found = vacations_of([player.pk if player else None], turn_started(game))
        vacations = found.get(player.pk, []) if player is not None else []
    quiet = quiet_hours_of(player) if with_quiet else None
    return turn_deadline(turn_started(game), turn_days(game), vacations, quiet)


def deadlines_of(games: Sequence[Game]) -> dict[int, datetime | None]:
    """The deadline of each game, for lists: two queries whatever the number of games."""
    ticking = [g for g in games if is_ticking(g)]
    result: dict[int, datetime | None] = {g.pk: None for g in games}
    if not ticking:
        return result
    seats = Seat.objects.filter(pk__in=[g.to_move_id for g in ticking]).values_list(
        "pk", "player_id", "player__quiet_from", "player__quiet_until", "player__time_zone"
    )
    players: dict[int | None, int] = {}
    quiet: dict[int | None, QuietHours | None] = {}
    for pk, seated, quiet_from, quiet_until, zone in seats:
        players[pk] = seated
        quiet[pk] = quiet_hours(quiet_from, quiet_until, zone)
    since = min(turn_started(g) for g in ticking)
    vacations = vacations_of(players.values(), since)
    for game in ticking:
        player_id = players.get(game.to_move_id)
        result[game.pk] = turn_deadline(
            turn_started(game),
            turn_days(game),
            vacations.get(player_id, []) if player_id is not None else [],
            quiet.get(game.to_move_id),
        )
    return result
