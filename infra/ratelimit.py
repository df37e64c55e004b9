"""Rate limits: at most ``count`` actions of one kind per ``seconds``, per player (or any key).

The counters live in Django's cache (Redis in production, shared by every
process; local memory on the embedded default). A window starts with the
first action it counts and lasts ``seconds``: ``ratelimit:<name>:<who>:start``
holds when it started, ``ratelimit:<name>:<who>:<start>`` the count. So
``count`` actions are allowed in any ``seconds`` from the first, never twice
that across the edge of a clock-aligned window, and a player told "try again
in 3 minutes" is told the truth.

``take`` (one limit) and ``take_all`` (several, all or none) count and refuse
in one step: a refused action counts nothing, so a limited player is not kept
out longer by trying again. Call them once the action is known to be valid (a
refusal for another reason should not spend the allowance), inside the
service's transaction, so that a refusal also rolls back what it wrote.

Services take a limit on the player (``player_key``) once the action is
valid: invitations and tables (``games/services/tables.py``), hints
(``games/services/hints.py``), chat messages (``games/services/chat.py``) and
reports (``moderation/services.py``). Views take one with ``limited`` before
anything else, per player when signed in and per client address otherwise
(allauth's adapter's ``get_client_ip``, which trusts ``ALLAUTH_TRUSTED_PROXY_COUNT``
proxies, set from ``DJANGO_TRUSTED_PROXY_COUNT``): the word check, the move preview,
moves and every other form. The counts and windows are the settings'
``DIAMINO_RATE_LIMITS``; a refused view answers 429 through its ``refuse``
(an htmx fragment the page shows in place) or the site's ``429.html``.
"""

from __future__ import annotations

import contextlib
import functools
import math
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

from allauth.account.adapter import get_adapter
from django.conf import settings
from django.core.cache import cache
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.utils.translation import gettext, ngettext


@dataclass(frozen=True, slots=True)
class Limit:
    """At most ``count`` actions per ``seconds``; ``name`` keys the counters."""

    name: str
    count: int
    seconds: int


class RateLimited(Exception):
    """``limit`` is spent for ``who``; ``retry_after``: seconds until its window ends.

    ``window_start`` (a Unix time) names the spent window: a refusal told to
    someone once per window (``games/services/tables.py`` tells a player once
    that invitations to them are held back) keys on it, and every refusal in
    the same window carries the same one.
    """

    def __init__(
        self, limit: Limit, who: tuple[object, ...], retry_after: int, *, window_start: int
    ) -> None:
        super().__init__(f"{limit.name}: more than {limit.count} in {limit.seconds} s")
        self.limit = limit
        self.who = who
        self.retry_after = retry_after
        self.window_start = window_start

    @property
    def window_end(self) -> int:
        """When the spent window ends (a Unix time): the action is allowed again."""
        return self.window_start + self.limit.seconds

    @property
    def wait(self) -> str:
        """The wait, as a message tells a player ("12 minutes")."""
        return wait_text(self.retry_after)


def _key(limit: Limit, who: tuple[object, ...], window: int | str) -> str:
    return ":".join(["ratelimit", limit.name, *(str(part) for part in who), str(window)])


def take(limit: Limit, *who: object, cost: int = 1) -> None:
    """Count ``cost`` actions for ``who`` under ``limit``; raise RateLimited if it is spent."""
    take_all([(limit, who, cost)])


Charge = tuple[Limit, tuple[object, ...], int]
"""One count to take: the limit, who it is for (``(player.pk,)``), how many actions."""


def take_all(charges: Iterable[Charge]) -> None:
    """Take every charge, or none: the first limit that is spent gives the others back."""
    taken: list[tuple[str, int]] = []
    for limit, who, cost in charges:
        now = time.time()
        start = _window_start(limit, who, now)
        key = _key(limit, who, start)
        # Atomic, so processes racing for the last action cannot both get it.
        # The key outlives its window, never less.
        used = _count_up(key, cost, timeout=limit.seconds + 1)
        taken.append((key, cost))
        if used > limit.count:
            for spent, count in taken:  # a refused action counts nothing
                _give_back(spent, count)
            raise RateLimited(
                limit,
                who,
                retry_after=max(1, math.ceil(start + limit.seconds - now)),
                window_start=start,
            )


def _window_start(limit: Limit, who: tuple[object, ...], now: float) -> int:
    """When ``who``'s current window under ``limit`` started: now, if none is open.

    ``add`` is atomic: of two processes opening a window at once, both read
    the one that won.
    """
    start_key = _key(limit, who, "start")
    cache.add(start_key, int(now), timeout=limit.seconds)
    start = cache.get(start_key)
    return int(now) if start is None else int(start)


def _count_up(key: str, cost: int, *, timeout: int) -> int:
    """The count under ``key`` once ``cost`` is added: ``add`` then ``incr``, each atomic.

    The key outlives ``timeout``, never less. With Redis away the site's cache
    counts in the process (``infra/cache.py``): the limits hold.
    """
    cache.add(key, 0, timeout=timeout)
    try:
        return cache.incr(key, cost)
    except ValueError:  # expired between the two calls: a fresh count
        cache.set(key, cost, timeout=timeout)
        return cost


def give_back(limit: Limit, *who: object, cost: int = 1) -> None:
    """Undo a ``take`` whose action did not happen after all (its transaction rolled back)."""
    start = cache.get(_key(limit, who, "start"))
    if start is not None:
        _give_back(_key(limit, who, start), cost)


def forget(limit: Limit, *who: object) -> None:
    """Start ``who``'s count under ``limit`` afresh (a reset password forgets failed log-ins)."""
    start_key = _key(limit, who, "start")
    start = cache.get(start_key)
    keys = [start_key] if start is None else [start_key, _key(limit, who, start)]
    cache.delete_many(keys)


def _give_back(key: str, cost: int) -> None:
    with contextlib.suppress(ValueError):  # the window ended meanwhile: nothing to give back
        cache.decr(key, cost)


def wait_text(seconds: int) -> str:
    """How long a player must wait, in the active language: minutes, or hours past two."""
    minutes = max(1, math.ceil(seconds / 60))
    if minutes < 120:
        return ngettext("%(count)d minute", "%(count)d minutes", minutes) % {"count": minutes}
    hours = math.ceil(minutes / 60)
    return ngettext("%(count)d hour", "%(count)d hours", hours) % {"count": hours}


# --- limits from the settings, per player or per address ------------------------------


def configured(name: str) -> Limit:
    """The limit ``name`` of ``settings.DIAMINO_RATE_LIMITS``: ``(count, seconds)``."""
    count, seconds = settings.DIAMINO_RATE_LIMITS[name]
    return Limit(name, count=count, seconds=seconds)


def player_key(user: Any) -> tuple[object, ...]:
    """Whose count: a signed-in player's own."""
    return ("user", user.pk)


def visitor_key(request: HttpRequest) -> tuple[object, ...]:
    """The signed-in player, or else the client's address (behind the trusted proxies)."""
    user = getattr(request, "user", None)
    if user is not None and user.is_authenticated:
        return player_key(user)
    return ("ip", get_adapter(request).get_client_ip(request))


def too_fast_message(exc: RateLimited) -> str:
    """What a limited visitor reads, in the active language."""
    return gettext("Too many requests in a short time: try again in %(wait)s.") % {"wait": exc.wait}


def request_refusal(request: HttpRequest, name: str) -> str | None:
    """Count the request under the limit ``name``: None if allowed, else the message."""
    try:
        take(configured(name), *visitor_key(request))
    except RateLimited as exc:
        return too_fast_message(exc)
    return None


Refuse = Callable[..., HttpResponse]
"""``refuse(request, message, *view_args, **view_kwargs)``: the 429 answer of a limited view."""


def too_fast_page(
    request: HttpRequest, message: str, *args: object, **kwargs: object
) -> HttpResponse:
    """The site's error page, status 429, with the reason."""
    return render(request, "429.html", {"exception": message}, status=429)


def limited(
    name: str, *, refuse: Refuse = too_fast_page, methods: tuple[str, ...] = ("POST",)
) -> Callable[[Callable[..., HttpResponse]], Callable[..., HttpResponse]]:
    """A view counted under the limit ``name`` for the ``methods`` given (POST by default).

    Put it under ``login_required`` and ``require_POST``: only a request the
    view would serve counts. A limited request reaches nothing of the view,
    so it changes nothing.
    """

    def decorate(view: Callable[..., HttpResponse]) -> Callable[..., HttpResponse]:
        @functools.wraps(view)
        def wrapped(request: HttpRequest, *args: Any, **kwargs: Any) -> HttpResponse:
            if request.method in methods:
                message = request_refusal(request, name)
                if message is not None:
                    return refuse(request, message, *args, **kwargs)
            return view(request, *args, **kwargs)

        return wrapped

    return decorate
