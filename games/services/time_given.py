"""Giving the player to move more time: one day at a time, by the other players.

Correspondence players ask for it (Lichess #5154, Woogles PR #1692): an
opponent is ill or travelling, and the others would rather wait than win on
time. Any player still in the game who is not the one to move may give the
player to move one more day on the current turn; the days given by everyone
add up to at most ``clock.MAX_EXTRA_DAYS`` per turn, and they end with the
turn (``kernel.play`` puts ``Game.turn_extra_days`` back to 0).

The deadline stays computed (``games/clock.py``): a gift adds a day to the
turn's clock time, and every deadline — the page, the lists, the emails, the
reminders, the time-outs — counts it. ``Game.time_gifts`` keeps who gave
each day and when, for the history and the email; neither is part of the game
record (RECORD.md), which a gift does not change.

``time_give`` is a service like the others of ``games/services/``: one transaction,
the game row locked, the version the page showed checked. That version is the
move number *and* the days already given on the turn, so a double submit, or
two players giving at once from pages built before the first gift, gives one
day. The lock is the one a time-out is decided under, so a gift either commits
before the deadline is computed (and pushes it) or finds the time-out applied;
once the deadline has passed the time-out is applied first and the gift is
refused, as for a move (docs/ARCHITECTURE.md, the clock).
"""

from __future__ import annotations

from django.utils import timezone
from django.utils.translation import gettext_lazy as _

from accounts.models import User
from games import notify, policies
from games.errors import GameError, not_running
from games.models import Game
from games.services.kernel import (
    KeepAndRefuse,
    atomic_keeping,
    locked_game,
    seats_and_mine,
    time_out_if_due,
)


@atomic_keeping
def time_give(*, game_id: int, giver: User, version: int, extra_days: int) -> Game:
    """``giver`` gives the player to move in the game one more day on this turn.

    ``version`` and ``extra_days`` are the move number and the days already
    given on the turn that the giver's page showed. Refused (``GameError``,
    nothing changes) when the giver has no seat or has left the game, is the
    player to move, the game is not running, the page is out of date, the
    player to move is a computer player, or the turn has had its
    ``clock.MAX_EXTRA_DAYS``. When the deadline has already passed, the
    time-out is applied and kept, and the gift refused (``too-late``).
    Returns the game as saved.
    """
    game = locked_game(game_id)
    if game.status != Game.Status.RUNNING:
        raise not_running()
    seats, seat = seats_and_mine(game, giver)
    receiver = next((s for s in seats if s.pk == game.to_move_id), None)
    refusal = policies.gift_refusal(seat, receiver)
    if refusal is not None:
        raise refusal
    assert receiver is not None  # gift_refusal refuses a game with no one to move
    if time_out_if_due(game, seats) is not None:
        raise KeepAndRefuse(
            GameError(
                "too-late",
                _("Too late: %(name)s had run out of time, and has left the game.")
                % {"name": receiver.player},
                status=409,
            )
        )
    if version != game.move_count or extra_days != game.turn_extra_days:
        raise GameError(
            "moved-on",
            _(
                "The game has changed since you loaded the page: no time was given. "
                "Look at the deadline again."
            ),
            status=409,
        )
    refusal = policies.gift_cap_refusal(game, receiver)
    if refusal is not None:
        raise refusal
    game.turn_extra_days += 1
    gift = {
        "after": game.move_count,
        "by": seat.pk,
        "to": receiver.pk,
        "at": timezone.now().isoformat(),
    }
    game.time_gifts = [*game.time_gifts, gift]
    game.save(update_fields=["turn_extra_days", "time_gifts"])
    notify.time_given(game, giver=seat, receiver=receiver)
    return game
