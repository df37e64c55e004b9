"""The analysis of a finished game: for each move, the best one the computer finds.

``rules.analysis.analyse_game`` replays the game record and, before each
placement, exchange or pass, searches the best move from the mover's view
(``rules.view``): what the player knew then, never the hands revealed at the
end. It takes a tenth of a second to a few seconds a move, so it runs in a
worker (``games.tasks.analyse_game``), queued when the game ends
(``analysis_after_commit``, a receiver of ``signals.game_finished``) when
``analyses_on_finish()`` (with a worker, by default), or when a player asks for it on the
finished game's page (``analysis_request``). The result is stored on each
``Move`` (``analysis``) and the game is stamped ``analysed_at``; an annulled
game is not analysed.
"""

from __future__ import annotations

import logging
from functools import partial
from typing import Any

from django.conf import settings
from django.db import transaction
from django.dispatch import receiver
from django.utils import timezone
from django.utils.translation import gettext_lazy as _

from accounts.models import User
from games import bridge, reasons, signals
from games.errors import GameError
from games.models import Game, Move
from games.selectors import PATIENCE, analysis_pending
from games.services.kernel import locked_game, seat_of
from infra.celery import app as celery_app
from rules.analysis import MoveAnalysis, analyse_game
from rules.strategy import Suggestion

log = logging.getLogger(__name__)


# An analysis asked for this long ago and still missing was lost (a worker
# died, the broker was down): the page offers to ask again.
def analyses_on_finish() -> bool:
    """Whether a game is analysed as soon as it ends (``DIAMINO_ANALYSE_FINISHED_GAMES``).

    Unset, only when a worker runs the tasks: eagerly, the analysis would run
    inside the last move's request.
    """
    choice = settings.DIAMINO_ANALYSE_FINISHED_GAMES
    if choice is None:
        return not celery_app.conf.task_always_eager
    return choice


@receiver(signals.game_finished, dispatch_uid="games.analysis")
def analysis_after_commit(game: Game, **kwargs: Any) -> None:
    """The game just finished (``game_finished``, in the move's transaction): queue its
    analysis once it commits."""
    if not analyses_on_finish():
        return
    game.analysis_queued_at = timezone.now()
    game.save(update_fields=["analysis_queued_at"])
    transaction.on_commit(partial(analysis_queue, game.pk))


def analysis_queue(game_id: int) -> bool:
    """Hand the analysis to a worker; False (and a log line) when the broker refuses it."""
    from games.tasks import analyse_game as task

    try:
        task.apply_async((game_id,), expires=PATIENCE.total_seconds())
    except Exception:
        log.warning("analysis of game %s not queued", game_id, exc_info=True)
        return False
    return True


def can_be_analysed(game: Game) -> bool:
    return game.status == Game.Status.FINISHED and game.analysed_at is None


@transaction.atomic
def analysis_request(*, game_id: int, player: User) -> Game:
    """A player seated at a finished game asks for its analysis (once at a time)."""
    game = locked_game(game_id)
    seat_of(game, player)
    if game.status != Game.Status.FINISHED:
        raise GameError("not-finished", _("A game is analysed once it is finished."), status=409)
    if game.analysed_at is not None or analysis_pending(game):
        return game
    game.analysis_queued_at = timezone.now()
    game.save(update_fields=["analysis_queued_at"])
    transaction.on_commit(partial(analysis_queue, game.pk))
    return game


def game_analyse(*, game_id: int) -> bool:
    """Analyse a finished game and store the result on its moves; False when there is nothing to do.

    The search runs outside any transaction (it takes seconds, and a finished
    game's moves do not change); the result is written under the game's lock,
    after checking the game is still finished (not annulled meanwhile) and
    not analysed already by another worker. Safe to run twice.
    """
    game = Game.objects.filter(pk=game_id).first()
    if game is None or not can_be_analysed(game):
        return False
    analyses = analyse_game(bridge.record_of(game))
    marque = game.mode == "marque"
    by_number = {a.number: _as_data(a, marque) for a in analyses}
    with transaction.atomic():
        game = Game.objects.select_for_update().get(pk=game_id)
        if not can_be_analysed(game):
            return False
        moves = list(game.moves.filter(number__in=by_number))
        for move in moves:
            move.analysis = by_number[move.number]
        Move.objects.bulk_update(moves, ["analysis"], batch_size=200)
        game.analysed_at = timezone.now()
        game.save(update_fields=["analysed_at"])
    return True


def _gain(suggestion: Suggestion, marque: bool) -> int:
    """What a page shows of a move: points avec marque, tiles out of the hand sans marque."""
    return suggestion.points if marque else suggestion.tiles


def _as_data(analysis: MoveAnalysis, marque: bool) -> dict[str, Any]:
    best, played = analysis.best, analysis.played
    return {
        "best": best.notation,
        "words": list(best.words),
        "points": best.points,
        "others_points": best.others_points,
        "tiles": best.tiles,
        "out": best.out,
        "gain": _gain(best, marque),
        "played_gain": _gain(played, marque),
        "played_best": analysis.played_best,
        "missed": round(analysis.missed, 2),
        "why": [reasons.reason_data(r) for r in best.reasons],
    }
