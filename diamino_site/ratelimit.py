"""Rate limits: at most ``count`` actions of one kind per ``seconds``, per player (or any key).

The counters live in Django's cache (Redis in production, shared by every
process; local memory on the embedded default), one key per limit, key and
window: ``ratelimit:<name>:<who>:<window>``. A window is fixed (it starts at a
multiple of ``seconds``), so a burst across its edge may get up to twice the
count in a short time; that is the price of one counter, and fine for limits
meant to stop abuse rather than pace honest use.

``take`` (one limit) and ``take_all`` (several, all or none) count and refuse
in one step: a refused action counts nothing, so a limited player is not kept
out longer by trying again. Call them once the action is known to be valid (a
refusal for another reason should not spend the allowance), inside the
service's transaction, so that a refusal also rolls back what it wrote.

Today: invitations and table creation (``games/services/tables.py``).
"""

from __future__ import annotations

import contextlib
import math
import time
from collections.abc import Iterable
from dataclasses import dataclass

from django.core.cache import cache
from django.utils.translation import ngettext


@dataclass(frozen=True, slots=True)
class Limit:
    """At most ``count`` actions per ``seconds``; ``name`` keys the counters."""

    name: str
    count: int
    seconds: int


class RateLimited(Exception):
    """``limit`` is spent for ``who``; ``retry_after``: seconds until its window ends."""

    def __init__(self, limit: Limit, who: tuple[object, ...], retry_after: int) -> None:
        super().__init__(f"{limit.name}: more than {limit.count} in {limit.seconds} s")
        self.limit = limit
        self.who = who
        self.retry_after = retry_after

    @property
    def wait(self) -> str:
        """The wait, as a message tells a player ("12 minutes")."""
        return wait_text(self.retry_after)


def _key(limit: Limit, who: tuple[object, ...], window: int) -> str:
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
        window = int(now // limit.seconds)
        key = _key(limit, who, window)
        # add() then incr(): each atomic in Redis, so processes racing for the
        # last action cannot both get it. The key outlives its window, never less.
        cache.add(key, 0, timeout=limit.seconds + 1)
        try:
            used = cache.incr(key, cost)
        except ValueError:  # expired between the two calls: a fresh window
            cache.set(key, cost, timeout=limit.seconds + 1)
            used = cost
        taken.append((key, cost))
        if used > limit.count:
            for spent, count in taken:  # a refused action counts nothing
                _give_back(spent, count)
            raise RateLimited(limit, who, retry_after=math.ceil((window + 1) * limit.seconds - now))


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
