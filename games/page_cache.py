"""What the game page shows every viewer of one version of a game alike, kept in the cache.

A game changes for every viewer only with a move (``Game.move_count``, the
*version*), with a change of status (a staff annulment does not play a move;
a resignation and a time-out do) and, once finished, with its analysis
(``Game.analysed_at``). What depends on those alone is kept in Django's cache
(``default``: Redis, or each process's memory while Redis is away,
``infra/cache.py``):

- the rows of the game's moves (``move_rows``; ``selectors.game_view`` reads
  them from here, and the database only on a miss): the history, the last
  move's squares and the replay are built from them; the players' names are
  not in them (a player may be renamed without a move), they come from the
  seats read on every request;
- the board's HTML, by Django's ``{% cache %}`` in ``games/game.html``, its
  vary-on arguments written out there: the release, the game, its start, the
  version, the status, the viewer's place (seated or not), the hint's squares
  and the language.

Nothing here holds a viewer's hand, the controls, a CSRF token, a deadline,
a vacation, the days given or the chat: they change without a move, or
differ from one viewer to the next, and are built on every request.

A key also carries the game's start time, so that a database reset whose ids
start over cannot meet the old entries, and the release (``release()``), so
that after a deploy no process serves what the old code drew. Entries are
never invalidated: a new version is a new key, and the old ones expire
(``TIMEOUT``).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from django.conf import settings
from django.core.cache import cache

from games.models import Game

TIMEOUT = 24 * 3600  # seconds: a version is read within hours; older ones go


def release() -> str:
    """``settings.DIAMINO_RELEASE``: the installed version and commit, or what the deploy set."""
    return settings.DIAMINO_RELEASE


def version_key(game: Game) -> str:
    """The release, the game's id, version, status, start and analysis: what the rows depend on."""
    started = int(game.started_at.timestamp() * 1_000_000) if game.started_at else 0
    analysed = int(game.analysed_at.timestamp() * 1_000_000) if game.analysed_at else 0
    return f"{release()}.{game.pk}.{game.move_count}.{game.status}.{started}.{analysed}"


def move_rows(game: Game, read: Callable[[], list[tuple[Any, ...]]]) -> list[tuple[Any, ...]]:
    """The game's move rows (``read()`` on a miss), the same for every viewer of this version."""
    key = f"game-moves:{version_key(game)}"
    rows = cache.get(key)
    if rows is None:
        rows = read()
        cache.set(key, rows, TIMEOUT)
    return rows
