"""Computer players' turns: queued when their turn comes, played like a person's move.

A computer player is a ``User`` with ``bot_level`` (``accounts/computers.py``). It
sits through the table services (``games/services/tables.py``) and plays
through ``services.move_submit`` like a person, from a Celery task queued when
its turn comes (``computer_turn_after_commit``, a receiver of
``signals.turn_to_play``, which the services send when they pass the turn),
and it is given ``rules.view(state, seat)`` only: what a person in its seat
would see (R-HIDE-1). Each turn is one task; with eager tasks (the embedded
default) a request plays at most ``DIAMINO_COMPUTER_TURNS_PER_REQUEST`` of
them, and the game page's next view plays on (``computer_turns_catch_up``).
It never times out; a turn whose task was lost, or that no request played,
is queued again by the minute sweep (``computer_turns_requeue``). Hints are
``games/services/hints.py``.
"""

from __future__ import annotations

import logging
import random
import secrets
import threading
from datetime import datetime, timedelta
from functools import partial
from typing import Any

from django.conf import settings
from django.core.cache import cache
from django.db import transaction
from django.dispatch import receiver
from django.utils import timezone

import rules
from accounts.models import BotLevel, User
from games import bridge, services, signals
from games.errors import GameError
from games.models import Game, Move
from infra.celery import app as celery_app
from rules.strategy import choose_move

log = logging.getLogger(__name__)

# A computer player's turn still waiting after this was lost (a broker
# outage, a worker that died): the sweep queues it again.


COMPUTER_TURN_LATE = timedelta(minutes=1)


@receiver(signals.turn_to_play, dispatch_uid="games.computer")
def computer_turn_after_commit(game: Game, **kwargs: Any) -> None:
    """Queue the computer player's move once the service that gave it the turn commits.

    Sent inside the kernel's ``start`` and ``play`` with the saved game, whose
    ``to_move`` seat was loaded with its player (no query).
    """
    seat = game.to_move
    if game.status != Game.Status.RUNNING or seat is None or not seat.player.is_computer:
        return
    transaction.on_commit(partial(computer_turn_queue, game.pk, game.move_count))


_eager = threading.local()


def computer_turn_queue(game_id: int, version: int, *, bound: int | None = None) -> None:
    """Queue the computer player's turn ``version`` in ``game_id``: one task per turn.

    Never raises: a message the broker refused is queued again by the sweep.
    With a worker the task waits ``DIAMINO_BOT_DELAY_SECONDS`` so the reply
    feels played; it plays that one turn, and the commit of its move queues
    the next computer's turn, if any, as another task.

    Eagerly (the embedded default and the tests) there is no worker: the
    turns run here, in the process that committed the move that gave the turn
    (a request, or the sweep), right after that commit, so the player's own
    answer already shows the reply. They run one after another (the commit of
    each turn adds the next to this call's list, not a task nested in that
    commit), and at most ``DIAMINO_COMPUTER_TURNS_PER_REQUEST`` of them: a
    table where computers alone are left would otherwise be played to its end
    inside one request. The turn past the bound is left waiting; the next
    view of the game page (``computer_turns_catch_up``, which the page's
    poll calls every ``COMPUTER_POLL_SECONDS``) or the sweep plays it.
    """
    from games.tasks import computer_move

    if not celery_app.conf.task_always_eager:
        delay = settings.DIAMINO_BOT_DELAY_SECONDS
        try:
            # Expires: a message still waiting after the sweep would have queued
            # the turn again is useless (and the second one would be a no-op).
            computer_move.apply_async(
                (game_id, version),
                countdown=delay,
                expires=delay + COMPUTER_TURN_LATE.total_seconds(),
            )
        except Exception:
            log.warning("computer turn %s@%s not queued; the sweep will", game_id, version)
        return
    pending = getattr(_eager, "pending", None)
    if pending is not None:
        pending.append((game_id, version))
        return
    _eager.pending = pending = [(game_id, version)]
    if bound is None:
        bound = settings.DIAMINO_COMPUTER_TURNS_PER_REQUEST
    try:
        for _ in range(bound):
            if not pending:
                break
            turn = pending.pop(0)
            try:
                computer_move.apply(turn, throw=True)
            except Exception:
                # The move that gave the turn is committed: its player must not
                # see an error for the computer's. The sweep tries again.
                log.exception("computer turn %s@%s failed", *turn)
        for turn in pending:
            log.info("computer turn %s@%s left to the next page view or the sweep", *turn)
    finally:
        _eager.pending = None


def computer_turns_catch_up(game: Game, viewer: User) -> bool:
    """Eagerly, play one computer turn a previous request left over in ``game``.

    Called by the game page (and so by its poll) with the game it read. With
    a worker nothing is left over, and this does nothing, without a query.
    Eagerly, a computer to move is a turn past the bound of the request that
    gave it (``computer_turn_queue``). Only a page of a player seated at the
    table plays it (a spectator's page never searches for a computer), one
    turn per view, and only one page at a time per turn: the first to take the
    cache's key for that turn plays it, the others show the game as it is and
    their next poll finds the move. (Two pages searching the same turn would
    be harmless for the game, the move being taken at its version under the
    game's lock, but each search costs up to ``DIAMINO_SEARCH_SECONDS``.)
    True when a turn was played (the caller reads the game again).
    """
    if not celery_app.conf.task_always_eager:
        return False
    if game.status != Game.Status.RUNNING or game.to_move_id is None:
        return False
    waiting = Game.objects.filter(
        pk=game.pk,
        move_count=game.move_count,
        to_move__player__bot_level__in=BotLevel.values,
        seats__player=viewer,
    ).exists()
    if not waiting:
        return False
    turn_key = f"computer-turn:{game.pk}:{game.move_count}"
    if not cache.add(turn_key, 1, timeout=2 * settings.DIAMINO_SEARCH_SECONDS + 5):
        return False
    computer_turn_queue(game.pk, game.move_count, bound=1)
    return True


def computer_turn_play(
    *, game_id: int, version: int, rng: random.Random | None = None
) -> Move | None:
    """Play the computer player's move in ``game_id`` at move ``version``.

    Safe to run twice or late: unless that computer player is still to move
    at that version, nothing happens (None). The strategy sees the seat's
    ``PlayerView`` only; the move goes through ``services.move_submit``.
    """
    game = Game.objects.select_related("to_move__player").filter(pk=game_id).first()
    if game is None or game.status != Game.Status.RUNNING or game.move_count != version:
        return None
    seat = game.to_move
    if seat is None or not seat.player.is_computer:
        return None
    state = bridge.state_of(game)
    if state.turn != seat.position:
        return None
    seen = rules.view(state, seat.position)
    rng = rng or secrets.SystemRandom()
    try:
        move = choose_move(seen, seat.player.bot_level, rng, limit=settings.DIAMINO_SEARCH_SECONDS)
    except Exception:
        log.exception("computer player of game %s found no move; it passes", game_id)
        move = rules.Pass(seat.position)
    try:
        return _submit(game_id, seat.player, version, move)
    except rules.IllegalMove:
        # A bug in the strategy must not stall the game: pass instead.
        log.exception("computer player's move in game %s was refused; it passes", game_id)
        return _submit(game_id, seat.player, version, rules.Pass(seat.position))


def _submit(game_id: int, computer: User, version: int, move: rules.Move) -> Move | None:
    try:
        return services.move_submit(game_id=game_id, player=computer, version=version, move=move)
    except GameError as exc:
        if exc.code in ("moved-on", "not-running"):
            return None  # played already (a second message), or the game ended meanwhile
        raise


def computer_turns_requeue(now: datetime | None = None) -> int:
    """Queue again every computer player's turn waiting for over a minute.

    With a worker: a task the broker lost, or a worker that died. Eagerly: a
    turn past a request's bound that no view of the game page has played
    since; each run plays up to that bound of turns per game, so a table of
    computers nobody watches still reaches its end.
    """
    now = now or timezone.now()
    late = Game.objects.filter(
        status=Game.Status.RUNNING,
        to_move__player__bot_level__in=BotLevel.values,
        turn_started_at__lte=now - COMPUTER_TURN_LATE,
    ).values_list("pk", "move_count")
    turns = list(late)
    for game_id, version in turns:
        computer_turn_queue(game_id, version)
    return len(turns)
