"""What the game page shows every viewer of one version of a game alike, kept in the cache.

A game changes for every viewer only with a move (``Game.move_count``, the
*version*), with a change of status (a staff annulment does not play a move;
a resignation and a time-out do) and, once finished, with its analysis
(``Game.analysed_at``). What depends on those alone is kept in Django's cache
(``default``: Redis, or each process's memory while Redis is away,
``diamino_site/cache.py``) under a key made of all of them:

- the rows of the game's moves (``selectors.game_view`` reads them from here,
  and the database only on a miss): the history, the last move's squares and
  the replay are built from them; the players' names are not in them (a
  player may be renamed without a move), they come from the seats read on
  every request;
- the board's HTML, in the template (``{% shared_fragment board_key %}`` in
  ``games/game.html``, ``fragment`` here): the same in one language for every
  viewer with the same hint squares and the same place (seated player or not).

Nothing here holds a viewer's hand, the controls, a CSRF token, a deadline,
a vacation, the days given or the chat: they change without a move, or
differ from one viewer to the next, and are built on every request.

A key also carries the game's start time, so that a database reset whose ids
start over cannot meet the old entries. Entries are never invalidated: a new
version is a new key, and the old ones expire (``TIMEOUT``).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from django.core.cache import cache
from django.utils.translation import get_language

from games.models import Game

TIMEOUT = 24 * 3600  # seconds: a version is read within hours; older ones go


def version_key(game: Game) -> str:
    """The game's id, version, status, start and analysis: what every shared part depends on."""
    started = int(game.started_at.timestamp() * 1_000_000) if game.started_at else 0
    analysed = int(game.analysed_at.timestamp() * 1_000_000) if game.analysed_at else 0
    return f"{game.pk}.{game.move_count}.{game.status}.{started}.{analysed}"


def move_rows(game: Game, read: Callable[[], list[tuple[Any, ...]]]) -> list[tuple[Any, ...]]:
    """The game's move rows (``read()`` on a miss), the same for every viewer of this version."""
    key = f"game-moves:{version_key(game)}"
    rows = cache.get(key)
    if rows is None:
        rows = read()
        cache.set(key, rows, TIMEOUT)
    return rows


def fragment(name: str, key: str, render: Callable[[], str]) -> str:
    """The HTML ``render()`` makes for ``key`` in the active language, from the cache if there."""
    full = f"game-fragment:{name}:{key}:{get_language() or ''}"
    html = cache.get(full)
    if html is None:
        html = render()
        cache.set(full, html, TIMEOUT)
    return html


def board_key(game: Game, *, seated: bool, hint_squares: tuple[str, ...] = ()) -> str:
    """What the board's HTML depends on besides the language (the template adds it)."""
    return f"{version_key(game)}.{int(seated)}.{'-'.join(sorted(hint_squares))}"
