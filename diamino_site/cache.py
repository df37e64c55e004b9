"""The site's Redis cache, which a Redis that is down or hangs never turns into an error page.

Two things keep state in the cache: allauth's rate limits (with a lock taken
in the cache on every log-in, sign-up and password reset) and the sessions
(``diamino_site/sessions.py``). Django's ``RedisCache`` raises whatever redis-py
raises, so with Redis away every form behind a rate limit answered 500.

``ResilientRedisCache`` is ``RedisCache`` with a way round: when Redis fails
(refused, timed out, any ``RedisError``), the operation is done again on the
``FALLBACK``, and Redis is left alone for ``RETRY_SECONDS`` (5) before it is
tried again, so a hanging Redis costs a request at most one socket timeout
(``OPTIONS["socket_timeout"]``) and not one per cache operation. The failure
is logged once a minute, and once more when Redis answers again
(``diamino_site/outage.py``, shared with the Celery broker's).

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
from django.core.cache.backends.redis import RedisCache, RedisCacheClient
from redis.exceptions import RedisError

from diamino_site.outage import outage_of

WRITES = frozenset({"add", "set", "touch", "delete", "set_many", "delete_many", "incr", "count_up"})


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


class ReusedClientRedisCacheClient(RedisCacheClient):
    """Django's client, keeping one ``redis.Redis`` per connection pool instead of one per call.

    Django builds a new ``redis.Redis`` for every cache operation, and redis-py's
    constructor fills a table of some 170 response callbacks each time: about
    0.13 ms of CPU per operation, more than the round trip to Redis
    (``docs/PERFORMANCE.md``, section 4). A ``redis.Redis`` over a pool is safe
    to share between threads (each command takes a connection from the pool),
    and the pool itself notices a fork.
    """

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._clients: dict[int, Any] = {}

    def get_client(self, key: Any = None, *, write: bool = False) -> Any:
        # Django's RedisCacheClient's own (private, unstubbed) pools, as its get_client uses them.
        django_client: Any = self
        index = django_client._get_connection_pool_index(write)
        client = self._clients.get(index)
        if client is None:
            pools = django_client._pools
            if index not in pools:
                pools[index] = django_client._pool_class.from_url(
                    django_client._servers[index], **django_client._pool_options
                )
            client = django_client._client(connection_pool=pools[index])
            self._clients[index] = client
        return client


def add_then_incr(cache: BaseCache, key: str, delta: int, timeout: int) -> int:
    """``count_up`` on a cache that has none (local memory): ``add`` then ``incr``.

    Each is atomic in its backend; the key outlives ``timeout``, never less.
    """
    cache.add(key, 0, timeout=timeout)
    try:
        return cache.incr(key, delta)
    except ValueError:  # expired between the two calls: a fresh count
        cache.set(key, delta, timeout=timeout)
        return delta


class CountingRedisCache(RedisCache):
    """``RedisCache`` with ``count_up``: a counter made and counted in one round trip."""

    def count_up(self, key: str, delta: int, timeout: int) -> int:
        """Add ``delta`` to the count under ``key``, made at 0 to expire in ``timeout`` seconds.

        What ``add(key, 0, timeout)`` then ``incr(key, delta)`` do, as one Redis
        transaction (``SET NX EX`` and ``INCRBY`` in ``MULTI``), sent at once:
        Django's ``add`` and ``incr`` cost three round trips (``incr`` asks
        ``EXISTS`` first), and the key cannot expire between them.
        """
        key = self.make_and_validate_key(key)
        client: Any = self._cache.get_client(key, write=True)  # type: ignore[attr-defined]  # RedisCache's private client
        with client.pipeline(transaction=True) as pipe:
            pipe.set(key, 0, ex=timeout, nx=True)
            pipe.incrby(key, delta)
            return int(pipe.execute()[1])


class ResilientRedisCache(CountingRedisCache):
    def __init__(self, server: str, params: dict[str, Any]) -> None:
        super().__init__(server, params)
        self._class = ReusedClientRedisCacheClient
        self._retry_seconds = float(params.get("RETRY_SECONDS", 5))
        mode = params.get("FALLBACK", "local")
        if mode == "local":
            # Named after the server and prefix: every thread of the process counts in one place.
            self._fallback: BaseCache = LocMemCache(
                f"diamino-fallback:{server}:{params.get('KEY_PREFIX', '')}",
                {key: params[key] for key in ("TIMEOUT", "KEY_PREFIX", "VERSION") if key in params},
            )
        elif mode == "none":
            self._fallback = _NoCache(params)
        else:
            raise ValueError(f"FALLBACK must be 'local' or 'none', not {mode!r}")
        self._forget_on_fallback_delete = mode == "none"
        self._health = outage_of(server)
        # Keys to delete from Redis when it answers again (FALLBACK "none"), per alias.
        self._deletes_missed = _missed_deletes(server, params.get("KEY_PREFIX", ""))

    # --- the way round ------------------------------------------------------

    def _call(self, name: str, *args: Any, **kwargs: Any) -> Any:
        if self._health.skipping():
            return self._on_fallback(name, *args, **kwargs)
        try:
            if self._deletes_missed:
                self._delete_what_was_missed()  # before any read could find a stale copy
            result = getattr(CountingRedisCache, name)(self, *args, **kwargs)
        except RedisError as error:
            self._health.went_down(error, retry_seconds=self._retry_seconds, use="cache")
            return self._on_fallback(name, *args, **kwargs)
        if self._health.down:
            self._health.came_back()
        return result

    def _on_fallback(self, name: str, *args: Any, **kwargs: Any) -> Any:
        if self._forget_on_fallback_delete and name in WRITES:
            # Whatever Redis holds under a key written or deleted meanwhile is stale.
            keys = args[0] if name in ("set_many", "delete_many") else [args[0]]
            with _MISSED_LOCK:
                self._deletes_missed.update((key, kwargs.get("version")) for key in keys)
        if name == "count_up":
            return add_then_incr(self._fallback, *args, **kwargs)
        return getattr(self._fallback, name)(*args, **kwargs)

    def _delete_what_was_missed(self) -> None:
        with _MISSED_LOCK:
            missed = list(self._deletes_missed)
        for key, version in missed:
            RedisCache.delete(self, key, version=version)  # a RedisError keeps the rest
            with _MISSED_LOCK:
                self._deletes_missed.discard((key, version))

    # --- every operation RedisCache implements ------------------------------

    def add(self, key, value, timeout=DEFAULT_TIMEOUT, version=None):
        return self._call("add", key, value, *self._timeout(timeout), version=version)

    def get(self, key, default=None, version=None):
        return self._call("get", key, default, version=version)

    def set(self, key, value, timeout=DEFAULT_TIMEOUT, version=None):
        return self._call("set", key, value, *self._timeout(timeout), version=version)

    def touch(self, key, timeout=DEFAULT_TIMEOUT, version=None):
        return self._call("touch", key, *self._timeout(timeout), version=version)

    def delete(self, key, version=None):
        return self._call("delete", key, version=version)

    def get_many(self, keys, version=None):
        return self._call("get_many", keys, version=version)

    def has_key(self, key, version=None):
        return self._call("has_key", key, version=version)

    def incr(self, key, delta=1, version=None):
        return self._call("incr", key, delta, version=version)

    def count_up(self, key: str, delta: int, timeout: int) -> int:
        return self._call("count_up", key, delta, timeout)

    def set_many(self, data, timeout=DEFAULT_TIMEOUT, version=None):
        return self._call("set_many", data, *self._timeout(timeout), version=version)

    def delete_many(self, keys, version=None):
        return self._call("delete_many", keys, version=version)

    def clear(self):
        return self._call("clear")

    @staticmethod
    def _timeout(timeout: Any) -> tuple[Any, ...]:
        # Passing nothing keeps each backend's own default timeout (DEFAULT_TIMEOUT).
        return () if timeout is DEFAULT_TIMEOUT else (timeout,)
