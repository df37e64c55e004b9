"""The site's Redis cache, which a Redis that is down or hangs never turns into an error page.

Two things keep state in the cache: the rate limits (allauth's, with a lock
taken in the cache on every log-in, sign-up and password reset, and the site's,
``infra/ratelimit.py``) and the sessions (Django's ``cached_db`` engine).
Django's ``RedisCache`` raises whatever redis-py raises, so with Redis away every
form behind a rate limit, and every signed-in page, answered 500.

``ResilientRedisCache`` is ``RedisCache`` with a way round, around each of its
public methods (Django's documented cache API; nothing of its client is touched):
when Redis fails (refused, timed out, any ``RedisError``), the operation is done again on the
``FALLBACK``, and Redis is left alone for ``RETRY_SECONDS`` (5) before it is
tried again, so a hanging Redis costs a request at most one socket timeout
(``OPTIONS["socket_timeout"]``) and not one per cache operation. The failure
is logged once a minute, and once more when Redis answers again
(``infra/outage.py``, shared with the Celery broker's).

``FALLBACK`` is one of:

- ``"local"`` (the default): a per-process local-memory cache. Rate limits stay
  in force while Redis is away, counted by each web process on its own (with
  three processes, a limit of 5 lets at most 15 through), then counted in
  Redis again once it answers, from what Redis held.
- ``"none"``: nothing is kept. Reads miss, writes are dropped. For the
  sessions: a copy kept by one process would outlive a log-out done in
  another. A key written or deleted while Redis was away is remembered and
  deleted from Redis the first time it answers, so a session ended or changed
  during the outage does not come back from the copy Redis still holds; see ``docs/ARCHITECTURE.md``
  ("When a service is down") for the one case this does not cover.
"""

from __future__ import annotations

import threading
from typing import Any

from django.core.cache.backends.base import DEFAULT_TIMEOUT, BaseCache
from django.core.cache.backends.locmem import LocMemCache
from django.core.cache.backends.redis import RedisCache
from redis.exceptions import RedisError

from infra.outage import outage_of

WRITES = frozenset({"add", "set", "touch", "delete", "set_many", "delete_many", "incr"})


class _NoCache(BaseCache):
    """Keeps nothing: what the sessions use while Redis is away."""

    def add(self, key, value, timeout=None, version=None) -> bool:
        return False

    def get(self, key, default=None, version=None) -> Any:
        return default

    def set(self, key, value, timeout=None, version=None) -> None:
        return None

    def touch(self, key, timeout=None, version=None) -> bool:
        return False

    def delete(self, key, version=None) -> bool:
        return False

    def has_key(self, key, version=None) -> bool:
        return False

    def clear(self) -> None:
        return None


_MISSED: dict[tuple[str, str], set[tuple[Any, int | None]]] = {}
_MISSED_LOCK = threading.Lock()


def _missed_deletes(server: str, prefix: str) -> set[tuple[Any, int | None]]:
    with _MISSED_LOCK:
        return _MISSED.setdefault((server, prefix), set())


def forget_missed_deletes() -> None:
    """Tests: the next test's server is another one."""
    with _MISSED_LOCK:
        _MISSED.clear()


class ResilientRedisCache(RedisCache):
    """Django's ``RedisCache``, each of its public operations done on ``FALLBACK`` when Redis fails."""

    def __init__(self, server: str, params: dict[str, Any]) -> None:
        super().__init__(server, params)
        self.retry_seconds = float(params.get("RETRY_SECONDS", 5))
        mode = params.get("FALLBACK", "local")
        if mode == "local":
            # Named after the server and prefix: every thread of the process counts in one place.
            self.fallback: BaseCache = LocMemCache(
                f"diamino-fallback:{server}:{params.get('KEY_PREFIX', '')}",
                {key: params[key] for key in ("TIMEOUT", "KEY_PREFIX", "VERSION") if key in params},
            )
        elif mode == "none":
            self.fallback = _NoCache(params)
        else:
            raise ValueError(f"FALLBACK must be 'local' or 'none', not {mode!r}")
        self.forget_on_fallback_write = mode == "none"
        self.outage = outage_of(server)
        # Keys to delete from Redis when it answers again (FALLBACK "none"), per alias.
        self.deletes_missed = _missed_deletes(server, params.get("KEY_PREFIX", ""))

    # --- the way round ------------------------------------------------------

    def redis_or_fallback(self, name: str, *args: Any, **kwargs: Any) -> Any:
        if self.outage.skipping():
            return self.on_fallback(name, *args, **kwargs)
        try:
            if self.deletes_missed:
                self.delete_what_was_missed()  # before any read could find a stale copy
            result = getattr(RedisCache, name)(self, *args, **kwargs)
        except RedisError as error:
            self.outage.went_down(error, retry_seconds=self.retry_seconds, use="cache")
            return self.on_fallback(name, *args, **kwargs)
        if self.outage.down:
            self.outage.came_back()
        return result

    def on_fallback(self, name: str, *args: Any, **kwargs: Any) -> Any:
        if self.forget_on_fallback_write and name in WRITES:
            # Whatever Redis holds under a key written or deleted meanwhile is stale.
            keys = args[0] if name in ("set_many", "delete_many") else [args[0]]
            with _MISSED_LOCK:
                self.deletes_missed.update((key, kwargs.get("version")) for key in keys)
        return getattr(self.fallback, name)(*args, **kwargs)

    def delete_what_was_missed(self) -> None:
        with _MISSED_LOCK:
            missed = list(self.deletes_missed)
        for key, version in missed:
            RedisCache.delete(self, key, version=version)  # a RedisError keeps the rest
            with _MISSED_LOCK:
                self.deletes_missed.discard((key, version))

    # --- every operation RedisCache implements ------------------------------

    def add(self, key, value, timeout=DEFAULT_TIMEOUT, version=None):
        return self.redis_or_fallback(
            "add", key, value, *self.timeout_args(timeout), version=version
        )

    def get(self, key, default=None, version=None):
        return self.redis_or_fallback("get", key, default, version=version)

    def set(self, key, value, timeout=DEFAULT_TIMEOUT, version=None):
        return self.redis_or_fallback(
            "set", key, value, *self.timeout_args(timeout), version=version
        )

    def touch(self, key, timeout=DEFAULT_TIMEOUT, version=None):
        return self.redis_or_fallback("touch", key, *self.timeout_args(timeout), version=version)

    def delete(self, key, version=None):
        return self.redis_or_fallback("delete", key, version=version)

    def get_many(self, keys, version=None):
        return self.redis_or_fallback("get_many", keys, version=version)

    def has_key(self, key, version=None):
        return self.redis_or_fallback("has_key", key, version=version)

    def incr(self, key, delta=1, version=None):
        return self.redis_or_fallback("incr", key, delta, version=version)

    def set_many(self, data, timeout=DEFAULT_TIMEOUT, version=None):
        return self.redis_or_fallback(
            "set_many", data, *self.timeout_args(timeout), version=version
        )

    def delete_many(self, keys, version=None):
        return self.redis_or_fallback("delete_many", keys, version=version)

    def clear(self):
        return self.redis_or_fallback("clear")

    @staticmethod
    def timeout_args(timeout: Any) -> tuple[Any, ...]:
        # Passing nothing keeps each backend's own default timeout (DEFAULT_TIMEOUT).
        return () if timeout is DEFAULT_TIMEOUT else (timeout,)
