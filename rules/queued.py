"""A placement planned before one's turn (a queued move, issue #36): what the rules say early.

The player's own hand does not change between their turns (tiles are drawn
only on one's own move), so a placement laid out while the others play stays
playable unless their moves take its squares or change its words. Two
questions, both pure:

- ``check_queueable(state, move)``: refuse at once what no later move can make
  legal (a square off the board or taken, letters the hand does not hold, the
  wrong red-devil returns), with the engine's own message. A placement that is
  illegal only for now (not touching, not a word yet) may be kept.
- ``changed_near(layout, then, now, tiles)``: the squares, on the words the
  move makes or next to them, that were free on the board ``then`` and hold a
  tile ``now`` (the kind kept "only if nothing near it changed").
"""

from __future__ import annotations

from dataclasses import replace

from rules.engine import apply
from rules.errors import IllegalMove
from rules.material import Layout
from rules.placement import near_squares
from rules.state import EMPTY, GameState, Place

__all__ = ["NEVER_LEGAL", "changed_near", "check_queueable"]

# The engine's refusals that no later move can lift: the input, a square already
# taken (a tile never leaves the board), the hand (it does not change between one's
# turns), the returns (fixed by the hand and the red devils covered), a player out.
NEVER_LEGAL = frozenset(
    {
        "no-tiles",
        "bad-square",
        "off-board",
        "diable-letter",
        "bad-letter",
        "duplicate-square",
        "occupied",
        "not-in-hand",
        "not-in-line",
        "returns",
        "not-in-game",
        "game-over",
    }
)


def check_queueable(state: GameState, move: Place) -> None:
    """Raise the engine's IllegalMove if ``move`` could never be played by ``move.player``.

    Judged as if it were their turn on ``state``; a refusal that a later move
    could lift (not touching a tile yet, a word not made yet) is not raised.
    """
    try:
        apply(replace(state, turn=move.player), move)
    except IllegalMove as exc:
        if exc.code in NEVER_LEGAL:
            raise


def changed_near(
    layout: Layout, then: str, now: str, tiles: tuple[tuple[str, str], ...]
) -> tuple[str, ...]:
    """The squares near the words of ``tiles`` laid on the board ``then`` that were free
    then and are taken on ``now``, by name, in board order; () when nothing near changed."""
    laid = list(then)
    squares = []
    for square, letter in tiles:
        index = layout.index(square)
        squares.append(index)
        laid[index] = letter
    zone = near_squares(layout.width, "".join(laid), tuple(squares))
    return tuple(
        layout.name_of(index)
        for index in sorted(zone)
        if then[index] == EMPTY and now[index] != EMPTY
    )
