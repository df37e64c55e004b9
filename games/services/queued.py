"""A queued move (issue #36): a placement laid out before one's turn, played when it comes.

``queued_move_set`` keeps (or replaces) the seat's one queued move,
``queued_move_cancel`` drops it; both lock the game's row like a move, so a
queued move and the previous player's move never cross: the one that comes
second sees the other. Playing it is the kernel's (``kernel.play``): in the
transaction of the move that gives its seat the turn, through the same
``play`` as any move, or kept with the reason it was not played.

A queued move is hidden information (R-HIDE-1): made from its player's hand,
it is shown to them alone (``selectors.game_view``).
"""

from __future__ import annotations

from django.db import transaction
from django.utils.translation import gettext_lazy as _

import rules
from accounts.models import User
from games import bridge
from games.errors import GameError, not_running
from games.models import Game, QueuedMove, Seat
from games.services.kernel import check_version, locked_game, seats_and_mine


def _refuse_unless_waiting_seat(game: Game, seat: Seat, player: User) -> None:
    if game.status != Game.Status.RUNNING:
        raise not_running()
    if player.is_computer:
        raise GameError("computer", _("A computer player never queues a move."), status=403)
    if seat.status != Seat.Status.ACTIVE:
        raise GameError("not-active", _("You have already left this game."), status=409)


@transaction.atomic
def queued_move_set(
    *,
    game_id: int,
    player: User,
    version: int,
    move: rules.Move,
    keep: str = QueuedMove.Keep.LEGAL,
) -> QueuedMove:
    """Queue ``move`` (a placement) for ``player``'s next turn, replacing any queued before.

    Refused when it is their turn (play it), when the page is older than the
    game (``moved-on``), and at once with the engine's message when no later
    move could make it legal (letters the hand does not hold, a square taken…:
    ``rules.queued.check_queueable``).
    """
    game = locked_game(game_id)
    _seats, seat = seats_and_mine(game, player)
    _refuse_unless_waiting_seat(game, seat, player)
    check_version(game, version)
    if game.to_move_id == seat.pk:
        raise GameError("your-turn", _("It is your turn: play your move now."), status=409)
    if not isinstance(move, rules.Place):
        raise GameError("not-a-placement", _("Only a placement can be queued."))
    if keep not in QueuedMove.Keep.values:
        raise GameError("bad-keep", _("Choose when the queued move is played."))
    move = bridge.with_player(move, seat.drawn_position)
    assert isinstance(move, rules.Place)
    state = bridge.state_of(game)
    rules.check_queueable(state, move)
    fields = {
        "keep": keep,
        "placements": ",".join(f"{square}={letter}" for square, letter in move.tiles),
        "returns": move.returns or "",
        "board": state.board,
        "version": game.move_count,
        "notation": bridge.queued_notation(state, move),
        "refusal": None,
    }
    queued = seat.queued()
    if queued is None:
        return QueuedMove.objects.create(seat=seat, **fields)
    for name, value in fields.items():
        setattr(queued, name, value)
    queued.save()
    return queued


@transaction.atomic
def queued_move_cancel(*, game_id: int, player: User) -> bool:
    """Drop ``player``'s queued move in the game; False when there was none."""
    game = locked_game(game_id)
    _seats, seat = seats_and_mine(game, player)
    queued = seat.queued()
    if queued is None:
        return False
    queued.delete()
    return True
