"""Hints: the best move the computer finds for the player to move, in unrated games."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from django.conf import settings
from django.utils.translation import gettext_lazy as _

import rules
from accounts.models import User
from games import engine as game_engine
from games import reasons
from games.errors import GameError, not_running, timed_out
from games.models import Game, Seat
from games.services.kernel import (
    KeepAndRefuse,
    atomic_keeping,
    check_version,
    locked_game,
    seats_and_mine,
    time_out_if_due,
)
from rules.strategy import Suggestion, best_moves


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
    game, seat = atomic_keeping(_hint_turn)(game_id=game_id, player=player, version=version)
    shown = current_hint(game, seat)
    if shown is not None:
        return shown
    if hints_left(game, seat) < 1:
        raise _no_hints_left()
    best = best_moves(rules.view(game_engine.state_of(game), seat.position), 1)[0]
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
