"""Computer players and hints: the rest of the service layer, kept apart for size.

Services (keyword-only, one transaction each, the game's row locked, like
``games/services.py``, whose helpers they use):

- ``game_seat_bot`` — the table's creator gives a free seat to a computer
  player; the game starts when the table is full, as with ``game_join``.
- ``game_unseat_bot`` — the creator takes that seat back before the start.
- ``game_against_computer`` — one click: a two-seat friendly table with a
  computer player, started at once.
- ``hint_request`` — the best move for the player to move, in unrated games,
  a few times per game.

A computer player is a ``User`` with ``bot_level`` (``accounts/bots.py``). It
plays through ``services.move_submit`` like a person, from a Celery task
queued when its turn comes (``bot_turn_after_commit``, called by the
services that pass the turn), and it is given ``rules.view(state, seat)``
only: what a person in its seat would see (R-HIDE-1). It never times out; a
turn whose task was lost is queued again by the minute sweep
(``bot_turns_requeue``).
"""

from __future__ import annotations

import logging
import random
import secrets
import threading
from dataclasses import dataclass
from datetime import datetime, timedelta
from functools import partial
from typing import Any

from django.conf import settings
from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext_lazy as _

import rules
from accounts.bots import bot_user
from accounts.models import BotLevel, User
from diamino_site.celery import app as celery_app
from games import engine as game_engine
from games import reasons, services
from games.errors import GameError, not_running, timed_out
from games.models import Game, Move, Seat
from rules.strategy import Suggestion, best_moves, choose_move

log = logging.getLogger(__name__)

# A computer player's turn still waiting after this was lost (a broker
# outage, a worker that died): the sweep queues it again.
BOT_TURN_LATE = timedelta(minutes=1)


def _bad_level() -> GameError:
    return GameError("bad-level", _("Choose the computer's level: beginner or experienced."))


# --- seats for computer players ---------------------------------------------------


@transaction.atomic
def game_seat_bot(*, game_id: int, by: User, level: str, rng: random.Random | None = None) -> Seat:
    """The creator gives a free seat of an open table to a computer player of ``level``.

    The table stops being rated. When it is the last seat, the game starts.
    """
    services._require_player(by)
    if level not in BotLevel.values:
        raise _bad_level()
    game = services._locked_game(game_id)
    if game.creator_id != by.pk:
        raise GameError(
            "not-creator",
            _("Only the table's creator can give a seat to the computer."),
            status=403,
        )
    if game.status != Game.Status.OPEN:
        raise GameError("not-open", _("This table has already started."), status=409)
    seated = list(game.seats.values_list("player_id", flat=True))
    if len(seated) >= game.seats_wanted:
        raise GameError("full", _("This table is full."), status=409)
    seat = Seat.objects.create(game=game, player=bot_user(level, besides=seated))
    if game.rated:
        game.rated = False
        game.save(update_fields=["rated"])
    if len(seated) + 1 == game.seats_wanted:
        services._start(game, rng or services._system_rng())
    return seat


@transaction.atomic
def game_unseat_bot(*, game_id: int, by: User, seat_id: int) -> None:
    """The creator takes back, before the start, a seat they gave to a computer player.

    The table is rated again once no computer sits at it, unless it is
    friendly: its creator made it so, or a person joined it while it showed
    as unrated (``services.game_join``). A person's seat is theirs to leave
    (``game_leave``).
    """
    game = services._locked_game(game_id)
    if game.creator_id != by.pk:
        raise GameError(
            "not-creator", _("Only the table's creator can remove the computer."), status=403
        )
    if game.status != Game.Status.OPEN:
        raise GameError(
            "not-open", _("The game has started: the computer keeps its seat."), status=409
        )
    seat = game.seats.select_related("player").filter(pk=seat_id).first()
    if seat is None:
        raise GameError("no-seat", _("There is no such seat at this table."), status=404)
    if not seat.player.is_bot:
        raise GameError(
            "not-a-computer",
            _("This seat is a person's: only a computer's seat can be removed."),
        )
    seat.delete()
    computers_left = game.seats.filter(player__bot_level__gt="").exists()
    if not game.rated and not game.friendly and not computers_left:
        game.rated = True
        game.save(update_fields=["rated"])


@transaction.atomic
def game_against_computer(
    *,
    player: User,
    mode: str,
    level: str,
    days_per_move: int = 14,
    rng: random.Random | None = None,
) -> Game:
    """A game between ``player`` and a computer player of ``level``, started now.

    Unrated, so hints are allowed. The longest clock by default: a game
    against the computer is played when the player likes, and the computer
    answers at once.
    """
    if level not in BotLevel.values:
        raise _bad_level()
    game = services.game_create(
        creator=player, mode=mode, seats=2, days_per_move=days_per_move, rated=False
    )
    game_seat_bot(game_id=game.pk, by=player, level=level, rng=rng)
    game.refresh_from_db()
    return game


# --- a computer player's turn --------------------------------------------------------


def bot_turn_after_commit(game: Game) -> None:
    """Queue the computer player's move once the service that gave it the turn commits.

    Called inside ``services._start`` and ``services._play`` with the saved
    game, whose ``to_move`` seat was loaded with its player (no query).
    """
    seat = game.to_move
    if game.status != Game.Status.RUNNING or seat is None or not seat.player.is_bot:
        return
    transaction.on_commit(partial(bot_turn_queue, game.pk, game.move_count))


_eager = threading.local()


def bot_turn_queue(game_id: int, version: int) -> None:
    """Hand the turn to a worker, after a short pause so the reply feels played.

    Never raises: a message the broker refused is queued again by the sweep.
    Eagerly (the embedded default and the tests) the task runs here, right
    after the commit of the move that gave the turn, so the player's own
    answer already shows the reply. Several computer players in a row are
    played one after another in a loop, not by nesting each task in the
    previous one's commit.
    """
    from games.tasks import bot_move

    if not celery_app.conf.task_always_eager:
        delay = settings.DIAMINO_BOT_DELAY_SECONDS
        try:
            # Expires: a message still waiting after the sweep would have queued
            # the turn again is useless (and the second one would be a no-op).
            bot_move.apply_async(
                (game_id, version),
                countdown=delay,
                expires=delay + BOT_TURN_LATE.total_seconds(),
            )
        except Exception:
            log.warning("computer turn %s@%s not queued; the sweep will", game_id, version)
        return
    pending = getattr(_eager, "pending", None)
    if pending is not None:
        pending.append((game_id, version))
        return
    _eager.pending = pending = [(game_id, version)]
    try:
        while pending:
            turn = pending.pop(0)
            try:
                bot_move.apply(turn, throw=True)
            except Exception:
                # The move that gave the turn is committed: its player must not
                # see an error for the computer's. The sweep tries again.
                log.exception("computer turn %s@%s failed", *turn)
    finally:
        _eager.pending = None


def bot_turn_play(*, game_id: int, version: int, rng: random.Random | None = None) -> Move | None:
    """Play the computer player's move in ``game_id`` at move ``version``.

    Safe to run twice or late: unless that computer player is still to move
    at that version, nothing happens (None). The strategy sees the seat's
    ``PlayerView`` only; the move goes through ``services.move_submit``.
    """
    game = Game.objects.select_related("to_move__player").filter(pk=game_id).first()
    if game is None or game.status != Game.Status.RUNNING or game.move_count != version:
        return None
    seat = game.to_move
    if seat is None or not seat.player.is_bot:
        return None
    state = game_engine.state_of(game)
    if state.turn != seat.position:
        return None
    seen = rules.view(state, seat.position)
    rng = rng or secrets.SystemRandom()
    try:
        move = choose_move(seen, seat.player.bot_level, rng)
    except Exception:
        log.exception("computer player of game %s found no move; it passes", game_id)
        move = rules.Pass(seat.position)
    try:
        return _submit(game_id, seat.player, version, move)
    except rules.IllegalMove:
        # A bug in the strategy must not stall the game: pass instead.
        log.exception("computer player's move in game %s was refused; it passes", game_id)
        return _submit(game_id, seat.player, version, rules.Pass(seat.position))


def _submit(game_id: int, bot: User, version: int, move: rules.Move) -> Move | None:
    try:
        return services.move_submit(game_id=game_id, player=bot, version=version, move=move)
    except GameError as exc:
        if exc.code in ("moved-on", "not-running"):
            return None  # played already (a second message), or the game ended meanwhile
        raise


def bot_turns_requeue(now: datetime | None = None) -> int:
    """Queue again every computer player's turn waiting for over a minute (a lost task)."""
    now = now or timezone.now()
    late = Game.objects.filter(
        status=Game.Status.RUNNING,
        to_move__player__bot_level__in=BotLevel.values,
        turn_started_at__lte=now - BOT_TURN_LATE,
    ).values_list("pk", "move_count")
    turns = list(late)
    for game_id, version in turns:
        bot_turn_queue(game_id, version)
    return len(turns)


# --- hints -----------------------------------------------------------------------------


@dataclass(frozen=True)
class Hint:
    """The best move the computer finds for a player, as the game page shows it.

    ``squares`` are the squares a placement covers (highlighted on the
    board); ``exchange`` the tiles to exchange; ``returns`` the tiles to give
    back for red devils. ``points``/``others_points``/``tiles``/``out`` as in
    ``rules.strategy.Suggestion``. ``left``: hints the player has left.
    """

    version: int
    kind: str
    notation: str
    words: tuple[str, ...] = ()
    points: int = 0
    others_points: int = 0
    tiles: int = 0
    out: bool = False
    squares: tuple[str, ...] = ()
    exchange: str = ""
    returns: str = ""
    reasons: tuple[dict[str, Any], ...] = ()
    """What the evaluation weighed (``rules.strategy.Reason``, as data)."""
    left: int = 0

    @property
    def why(self) -> list[str]:
        """The reasons as phrases in the reader's language (``games/reasons.py``)."""
        return reasons.phrases(self.reasons)

    @classmethod
    def of(cls, best: Suggestion, version: int) -> Hint:
        move = best.move
        kind = {rules.Place: "place", rules.Exchange: "exchange"}.get(type(move), "pass")
        return cls(
            version=version,
            kind=kind,
            notation=best.notation,
            words=best.words,
            points=best.points,
            others_points=best.others_points,
            tiles=best.tiles,
            out=best.out,
            squares=tuple(sq for sq, _ in move.tiles) if isinstance(move, rules.Place) else (),
            exchange=move.tiles if isinstance(move, rules.Exchange) else "",
            returns=move.returns if isinstance(move, rules.Place) else "",
            reasons=tuple(reasons.reason_data(r) for r in best.reasons),
        )

    def as_data(self) -> dict[str, Any]:
        data = {name: getattr(self, name) for name in self.__dataclass_fields__}
        data.pop("left")
        return data | {
            "words": list(self.words),
            "squares": list(self.squares),
            "reasons": list(self.reasons),
        }

    @classmethod
    def from_data(cls, data: dict[str, Any], *, left: int) -> Hint:
        fields = {k: v for k, v in data.items() if k in cls.__dataclass_fields__}
        fields |= {
            "words": tuple(data.get("words", ())),
            "squares": tuple(data.get("squares", ())),
            "reasons": tuple(data.get("reasons", ())),
        }
        return cls(**fields | {"left": left})


def hints_left(game: Game, seat: Seat) -> int:
    """How many hints the player at ``seat`` may still ask for (0 in a rated game)."""
    if game.rated:
        return 0
    return max(0, settings.DIAMINO_HINTS_PER_GAME - seat.hints_used)


def current_hint(game: Game, seat: Seat) -> Hint | None:
    """The hint the player asked for at this move number, shown until they move."""
    data = seat.hint
    if not data or data.get("version") != game.move_count or game.status != Game.Status.RUNNING:
        return None
    return Hint.from_data(data, left=hints_left(game, seat))


def hint_request(*, game_id: int, player: User, version: int) -> Hint:
    """The best move for ``player``, to move at ``version`` in an unrated game.

    One of ``DIAMINO_HINTS_PER_GAME`` per player and game; asking again at
    the same move number gives the same hint for free. Refused (nothing
    changes) in a rated game, out of turn, with none left, or when the game
    has moved on. The search uses the player's own view only. A deadline
    already passed is applied first, as for a move.

    The search runs between two short transactions, not under the game's
    lock: it takes a fraction of a second, but seconds for a forty-tile hand,
    and on SQLite a transaction that has locked a row holds every writer of
    the site. The second transaction checks everything again before it
    spends the hint, so two tabs asking at once spend one.
    """
    # A refusal is raised after the commit of the time-out it may have found due.
    game, seat = services._refuse_after_commit(
        _hint_turn(game_id=game_id, player=player, version=version)
    )
    shown = current_hint(game, seat)
    if shown is not None:
        return shown
    if hints_left(game, seat) < 1:
        raise _no_hints_left()
    best = best_moves(rules.view(game_engine.state_of(game), seat.position), 1)[0]
    return services._refuse_after_commit(
        _hint_save(game_id=game_id, player=player, version=version, hint=Hint.of(best, version))
    )


def _no_hints_left() -> GameError:
    return GameError(
        "no-hints-left",
        _("You have used all your hints in this game (%(count)d).")
        % {"count": settings.DIAMINO_HINTS_PER_GAME},
        status=409,
    )


@transaction.atomic
def _hint_turn(*, game_id: int, player: User, version: int) -> tuple[Game, Seat] | GameError:
    """The game and the player's seat, if the player may have a hint now (the game locked)."""
    game = services._locked_game(game_id)
    if game.status != Game.Status.RUNNING:
        raise not_running()
    seats, seat = services._seats_and_mine(game, player)
    if game.rated:
        raise GameError(
            "rated",
            _("Hints are for friendly games only: this game is rated."),
            status=403,
        )
    if game.to_move_id == seat.pk and services._time_out_if_due(game, seats) is not None:
        return timed_out()
    services._check_version(game, version)
    if game.to_move_id != seat.pk:
        raise GameError(
            "not-your-turn", _("You can ask for a hint only when it is your turn."), status=409
        )
    return game, seat


@transaction.atomic
def _hint_save(*, game_id: int, player: User, version: int, hint: Hint) -> Hint | GameError:
    turn = _hint_turn(game_id=game_id, player=player, version=version)
    if isinstance(turn, GameError):
        return turn
    game, seat = turn
    shown = current_hint(game, seat)
    if shown is not None:
        return shown  # another tab asked at the same moment: one hint spent
    if hints_left(game, seat) < 1:
        raise _no_hints_left()
    seat.hints_used += 1
    seat.hint = hint.as_data()
    seat.save(update_fields=["hints_used", "hint"])
    return Hint.from_data(seat.hint, left=hints_left(game, seat))
