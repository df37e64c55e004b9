"""The games app's signals, heard by the ratings.

Both run inside the games service's transaction: a game is never finished or
annulled without its ratings following, and never rated if the move that
ended it rolls back. Statistics need no receiver: they are aggregated from
finished games when a page asks, so an annulled game leaves them at once.
"""

from __future__ import annotations

from typing import Any

from django.dispatch import receiver

from games.models import Game
from games.signals import game_annulled, game_finished
from ratings import services


@receiver(game_finished, dispatch_uid="ratings.game_finished")
def rate_finished_game(sender: Any, *, game: Game, **kwargs: Any) -> None:
    services.rating_record_game(game=game)


@receiver(game_annulled, dispatch_uid="ratings.game_annulled")
def forget_annulled_game(sender: Any, *, game: Game, was_finished: bool, **kwargs: Any) -> None:
    # A running game was never rated; a finished one was if it had history rows.
    if was_finished:
        services.rating_forget_game(game=game)
