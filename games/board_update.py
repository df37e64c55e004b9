"""The board's HTML and the move rows after a move, made from the version before it.

The board is drawn once per version of a game (``games/page_cache.py``), and
the first to draw a new version is the player who just played it, in the
answer to their move: a full draw of 225 squares was a fifth of that
request's CPU. A move changes few squares: those it filled, and those the
move before it had filled (they lose the "last move" mark). The rest of the
fragment (labels, header, legend) depends on the version only through the
place of the viewer (seated or not) and the hint, both the same here. So
the new version's HTML for the mover is the previous version's, from the
cache, with those squares' ``gridcell`` drawn again by ``board_squares`` and
put in place; it is stored under the new version's key, where the page finds
it. Tests compare it with a full draw over many random moves, in French and
English (``tests/games/test_board_update.py``).

The move rows (the history) likewise: the previous version's, from the
cache, and the new move's, as the database returns them.

Only for the common case: the game still running, the mover seated without a
hint (a hint is for one version; the new one has none), and the previous
version's board in the cache for them. Otherwise nothing is stored and the
page draws the board as before.
"""

from __future__ import annotations

import logging
import re

from games import bridge, page_cache, selectors
from games.models import Game, Move
from games.templatetags.board import board_labels, board_squares

logger = logging.getLogger(__name__)

# A square's cell as ``board_squares`` writes it: one ``<div>``, closed by the first ``</div>``.
_CELL_START = '<div role="gridcell" '
_CELL_END = "</div>"
_LAST_MOVE = re.compile(
    r'<div role="gridcell" [^>]*class="[^"]*\blast-move\b[^"]*" data-square="([^"]+)"'
)


def after_move(game: Game, move: Move) -> None:
    """``store_after_move``, which never fails the move: it is played and committed already.

    Whatever goes wrong is logged, and the page then draws the new version in
    full as it would without this module.
    """
    try:
        store_after_move(game, move)
    except Exception:
        logger.exception("the board after move %s of game %s was not stored", move.number, game.pk)


def store_after_move(game: Game, move: Move) -> None:
    """Store the board and the move rows of ``game``'s new version, from the version before.

    ``game`` is the row the service saved, ``move`` the move it played. The
    board is the mover's (seated, no hint); the move rows are every viewer's:
    the previous version's and ``move``'s, as the database would give them
    (``selectors.move_rows_after``), without the query. One round trip to the
    cache reads what the version before left, one stores what this one adds.
    """
    if game.status != Game.Status.RUNNING or move.number != game.move_count:
        return
    before = page_cache.version_key(game, version=game.move_count - 1, status=Game.Status.RUNNING)
    old_rows = page_cache.move_rows_key(game, version=before)
    old_board = page_cache.fragment_key(
        "board", page_cache.board_key(game, seated=True, version=before)
    )
    found = page_cache.stored_many([old_rows, old_board])
    new: dict[str, object] = {}
    rows = selectors.move_rows_after(move, found.get(old_rows))
    if rows is not None:
        new[page_cache.move_rows_key(game)] = rows
    if old_board in found:
        html = patched(found[old_board], game, selectors.last_squares(move.record))
        if html is not None:
            new[page_cache.fragment_key("board", page_cache.board_key(game, seated=True))] = html
    page_cache.store_many(new)


def patched(old: str, game: Game, last: set[str]) -> str | None:
    """``old`` (the board before the move) with the squares the move changed drawn again.

    ``last``: the squares the move filled. None when a square is not found once
    in ``old`` (HTML not written by ``board_squares``).
    """
    changed = set(_LAST_MOVE.findall(old)) | last
    if not changed:
        return old
    config = bridge.config_of(game)
    board = bridge.state_of(game).board
    labels = board_labels()
    html = old
    for square in selectors.squares_named(config, board, sorted(changed), last):
        marker = f' data-square="{square.name}" '
        at = html.find(marker)
        if at < 0 or html.find(marker, at + 1) >= 0:
            return None
        start = html.rfind(_CELL_START, 0, at)
        end = html.find(_CELL_END, at)
        if start < 0 or end < 0:
            return None
        cell = board_squares(labels, [square])  # type: ignore[arg-type]  # the labels it reads
        html = html[:start] + cell + html[end + len(_CELL_END) :]
    return html
