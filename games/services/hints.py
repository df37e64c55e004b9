"""Hints: the best move the computer finds for the player to move, in unrated games."""

from __future__ import annotations

from django.conf import settings
from django.utils.translation import gettext_lazy as _

import rules
from accounts.models import User
from games import bridge
from games.errors import GameError, not_running, timed_out
from games.models import Game, Seat
from games.presenters import Hint
from games.selectors import current_hint, hints_left
from games.services.kernel import (
    KeepAndRefuse,
    atomic_keeping,
    check_version,
    locked_game,
    seats_and_mine,
    time_out_if_due,
)
from infra import ratelimit
from rules.strategy import best_moves


def hint_request(*, game_id: int, player: User, version: int) -> Hint:
    """The best move for ``player``, to move at ``version`` in an unrated game.

    One of ``DIAMINO_HINTS_PER_GAME`` per player and game; asking again at
    the same move number gives the same hint for free. Refused (nothing
    changes) in a rated game, out of turn, with none left, or when the game
    has moved on. The search uses the player's own view only. A deadline
    already passed is applied first, as for a move.

    The search runs between two short transactions, not under the game's
    lock: it takes a fraction of a second, up to ``DIAMINO_SEARCH_SECONDS``
    (then the best move found so far),
    and on SQLite a transaction that has locked a row holds every writer of
    the site. The second transaction checks everything again before it
    spends the hint, so two tabs asking at once spend one.
    """
    # A refusal is raised after the commit of the time-out it may have found due.
    game, seat = atomic_keeping(_hint_turn)(game_id=game_id, player=player, version=version)
    shown = current_hint(game, seat)
    if shown is not None:
        return shown
    if hints_left(game, seat) < 1:
        raise _no_hints_left()
    try:  # the search is the costly part: settings.DIAMINO_RATE_LIMITS["hint"], per player
        ratelimit.take(ratelimit.configured("hint"), *ratelimit.player_key(player))
    except ratelimit.RateLimited as exc:
        raise GameError("rate-limited", ratelimit.too_fast_message(exc), status=429) from None
    seen = rules.view(bridge.state_of(game), seat.position)
    best = best_moves(seen, 1, limit=settings.DIAMINO_SEARCH_SECONDS)[0]
    return _hint_save(game_id=game_id, player=player, version=version, hint=Hint.of(best, version))


def _no_hints_left() -> GameError:
    return GameError(
        "no-hints-left",
        _("You have used all your hints in this game (%(count)d).")
        % {"count": settings.DIAMINO_HINTS_PER_GAME},
        status=409,
    )


def _hint_turn(*, game_id: int, player: User, version: int) -> tuple[Game, Seat]:
    """The game and the player's seat, if the player may have a hint now (the game locked).

    Inside an ``atomic_keeping`` transaction, which keeps a time-out it applies.
    """
    game = locked_game(game_id)
    if game.status != Game.Status.RUNNING:
        raise not_running()
    seats, seat = seats_and_mine(game, player)
    if game.rated:
        raise GameError(
            "rated",
            _("Hints are for friendly games only: this game is rated."),
            status=403,
        )
    if game.to_move_id == seat.pk and time_out_if_due(game, seats) is not None:
        raise KeepAndRefuse(timed_out())
    check_version(game, version)
    if game.to_move_id != seat.pk:
        raise GameError(
            "not-your-turn", _("You can ask for a hint only when it is your turn."), status=409
        )
    return game, seat


@atomic_keeping
def _hint_save(*, game_id: int, player: User, version: int, hint: Hint) -> Hint:
    game, seat = _hint_turn(game_id=game_id, player=player, version=version)
    shown = current_hint(game, seat)
    if shown is not None:
        return shown  # another tab asked at the same moment: one hint spent
    if hints_left(game, seat) < 1:
        raise _no_hints_left()
    seat.hints_used += 1
    seat.hint = hint.as_data()
    seat.save(update_fields=["hints_used", "hint"])
    return Hint.from_data(seat.hint, left=hints_left(game, seat))
