"""Moderation of a game: staff annul it."""

from __future__ import annotations

from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext_lazy as _

from accounts.models import User
from games import notify, signals
from games.errors import GameError
from games.models import Game, QueuedMove
from games.services.kernel import locked_game


@transaction.atomic
def game_annul(*, game_id: int, by: User, reason: str) -> Game:
    """Staff annul a running or finished game: it leaves every statistic.

    The moves stay for review; players are notified and the ratings the game
    touched are recomputed (listeners of ``signals.game_annulled``). A staff
    member who has a seat at the game may not annul it, whatever its status:
    it would wipe their own loss, or their opponent's win.
    """
    if not by.is_staff:
        raise GameError("not-staff", _("Only staff can annul a game."), status=403)
    reason = reason.strip()
    if not reason:
        raise GameError("no-reason", _("Give a reason for the annulment."))
    game = locked_game(game_id)
    if game.seats.filter(player=by).exists():
        raise GameError(
            "own-game",
            _("You play in this game: another staff member must decide whether to annul it."),
            status=403,
        )
    if game.status not in (Game.Status.RUNNING, Game.Status.FINISHED):
        raise GameError("not-annullable", _("Only a started game can be annulled."), status=409)
    was_finished = game.status == Game.Status.FINISHED
    game.status = Game.Status.ANNULLED
    game.annulled_reason = reason
    game.annulled_by = by
    game.annulled_at = timezone.now()
    game.to_move = None
    game.save(update_fields=["status", "annulled_reason", "annulled_by", "annulled_at", "to_move"])
    QueuedMove.objects.filter(seat__game=game).delete()  # never played now
    notify.game_annulled(game)
    signals.game_annulled.send(sender=Game, game=game, was_finished=was_finished)
    return game
