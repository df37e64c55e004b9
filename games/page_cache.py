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
start over cannot meet the old entries, and the release (``release()``: the
code, templates and catalogues that make these parts), so that after a deploy
no process serves, or builds the next version's board on, what the old code
drew (``games/board_update.py`` patches the previous version's board). Entries are never invalidated: a new
version is a new key, and the old ones expire (``TIMEOUT``).
"""

from __future__ import annotations

import functools
import hashlib
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

from django.conf import settings
from django.core.cache import cache
from django.core.signals import request_started
from django.utils.translation import get_language

from games.models import Game

TIMEOUT = 24 * 3600  # seconds: a version is read within hours; older ones go


# What draws the cached parts: the games app's code and templates, and the catalogues.
_RELEASE_FILES = ("games/**/*.py", "templates/games/*.html", "locale/*/LC_MESSAGES/django.mo")


@functools.cache
def release() -> str:
    """A digest of the files that make the cached parts, read once per process.

    Two processes running the same code agree on it; a deploy that changes
    the board's markup, a label, a translation or the move rows' columns
    changes it, and with it every key.
    """
    root = Path(settings.BASE_DIR)
    digest = hashlib.blake2b(digest_size=6)
    for pattern in _RELEASE_FILES:
        for path in sorted(root.glob(pattern)):
            digest.update(str(path.relative_to(root)).encode())
            digest.update(path.read_bytes())
    return digest.hexdigest()


def version_key(game: Game, *, version: int | None = None, status: str | None = None) -> str:
    """The game's id, version, status, start and analysis: what every shared part depends on.

    ``version`` and ``status``: those of another version of the game than the
    row's (the one before a move, ``games/board_update.py``).
    """
    started = int(game.started_at.timestamp() * 1_000_000) if game.started_at else 0
    analysed = int(game.analysed_at.timestamp() * 1_000_000) if game.analysed_at else 0
    version = game.move_count if version is None else version
    return f"{release()}.{game.pk}.{version}.{status or game.status}.{started}.{analysed}"


# What this thread stored during the request, by key: the answer to a move stores
# the new version's board and moves (games/board_update.py) and reads them back at
# once. An entry never changes (a new version is a new key); forgotten when the
# next request starts all the same, so that nothing outlives a request.
_this_request = threading.local()


def _forget_stored(**_kwargs: Any) -> None:
    _this_request.entries = {}


request_started.connect(_forget_stored, dispatch_uid="games.page_cache.forget_stored")


def stored(key: str) -> Any:
    """The value under ``key``: stored during this request, else the cache's (None if missing)."""
    recent = getattr(_this_request, "entries", {})
    return recent[key] if key in recent else cache.get(key)


def stored_many(keys: list[str]) -> dict[str, Any]:
    """``stored`` for several keys, in one round trip: the values found, by key."""
    recent = getattr(_this_request, "entries", {})
    found = {key: recent[key] for key in keys if key in recent}
    missing = [key for key in keys if key not in found]
    if missing:
        found.update(cache.get_many(missing))
    return found


def store(key: str, value: Any) -> None:
    """Keep ``value`` under ``key`` (a version's, never changed), for this thread's next read too."""
    store_many({key: value})


def store_many(values: dict[str, Any]) -> None:
    """``store`` for several keys, in one round trip."""
    if not values:
        return
    if len(values) == 1:
        [(key, value)] = values.items()
        cache.set(key, value, TIMEOUT)
    else:
        cache.set_many(values, TIMEOUT)
    recent = getattr(_this_request, "entries", None)
    if recent is None or len(recent) + len(values) > 4:
        recent = _this_request.entries = {}
    recent.update(values)


def move_rows_key(game: Game, *, version: str = "") -> str:
    """Where ``move_rows`` keeps the rows of ``game``'s version (``version``: another one's key)."""
    return f"game-moves:{version or version_key(game)}"


def move_rows(game: Game, read: Callable[[], list[tuple[Any, ...]]]) -> list[tuple[Any, ...]]:
    """The game's move rows (``read()`` on a miss), the same for every viewer of this version."""
    key = move_rows_key(game)
    rows = stored(key)
    if rows is None:
        rows = read()
        store(key, rows)
    return rows


def fragment(name: str, key: str, render: Callable[[], str]) -> str:
    """The HTML ``render()`` makes for ``key`` in the active language, from the cache if there."""
    full = fragment_key(name, key)
    html = stored(full)
    if html is None:
        html = render()
        store(full, html)
    return html


def fragment_key(name: str, key: str) -> str:
    """Where ``fragment`` keeps the HTML of ``name`` for ``key`` in the active language."""
    return f"game-fragment:{name}:{key}:{get_language() or ''}"


def board_key(
    game: Game, *, seated: bool, hint_squares: tuple[str, ...] = (), version: str = ""
) -> str:
    """What the board's HTML depends on besides the language (the template adds it).

    ``version``: another version's key (``version_key(game, version=…)``) than the row's.
    """
    return f"{version or version_key(game)}.{int(seated)}.{'-'.join(sorted(hint_squares))}"
