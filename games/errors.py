"""Why a service refused: one exception with a stable code and a message for the player."""

from __future__ import annotations

from typing import TYPE_CHECKING

from django.utils import translation
from django.utils.translation import gettext_lazy as _

if TYPE_CHECKING:
    from django_stubs_ext import StrOrPromise


class GameError(Exception):
    """A request the site refuses before the rules are even asked.

    ``code`` is stable for callers and tests; ``message`` is translatable and
    tells the player what happened. ``status`` is the HTTP status a view
    answers with.
    """

    def __init__(self, code: str, message: StrOrPromise, *, status: int = 400) -> None:
        super().__init__(str(message))
        self.code = code
        self.message = message
        self.status = status


def moved_on() -> GameError:
    return GameError(
        "moved-on",
        _(
            "The game has moved on since you loaded the page: your move was not played. "
            "Look at the board again."
        ),
        status=409,
    )


def not_a_player() -> GameError:
    return GameError("not-a-player", _("You do not have a seat in this game."), status=403)


def not_running() -> GameError:
    return GameError("not-running", _("This game is not being played."), status=409)


def timed_out() -> GameError:
    return GameError(
        "timed-out",
        _("Your time to move had run out: you have left this game."),
        status=409,
    )


def in_both_languages(message: object, params: dict[str, str] | None = None) -> dict[str, str]:
    """A (lazy) message, formatted with ``params`` if given, in French and in English:
    kept on a row and shown later in the reader's language."""
    texts = {}
    for language in ("fr", "en"):
        with translation.override(language):
            texts[language] = str(message) % params if params is not None else str(message)
    return texts
