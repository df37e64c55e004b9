"""Sessions read from Redis, kept in the database: the site's ``SESSION_ENGINE`` with Redis.

Every signed-in request reads its session. Django's ``cached_db`` backend
reads it from the cache and falls back to the database, where every session is
also written, so a flushed or evicted cache loses nobody's sign-in. That saves
one SQL query per signed-in request (docs/PERFORMANCE.md).

One difference from ``cached_db``: a cache that does not answer never stops a
page. Without this, Redis being down would turn every signed-in page into an
error (Django catches a failed read but not the write-back that follows it),
where the pages otherwise need only the database. A read falls back to the
database and the failure is logged (with any other cache backend).

With Redis, the session cache is ``diamino_site.cache.ResilientRedisCache``
with no fallback (``SESSION_CACHE_ALIAS = "sessions"``): while Redis is away
reads miss and go to the database, writes and deletes (a log-out) go to the
database alone, and the keys written or deleted meanwhile are deleted from
Redis as soon as it answers, before anything is read from it, so a log-out
done during the outage stays one.

Only used with a cache every web process shares (Redis): with a per-process
local-memory cache, a session ended in one process would live on in another's
copy, so the embedded default keeps plain database sessions.
"""

from __future__ import annotations

import logging
from typing import Any

from django.contrib.sessions.backends import cached_db

logger = logging.getLogger("django.contrib.sessions")


class SessionStore(cached_db.SessionStore):
    def load(self) -> dict[str, Any]:
        try:
            # _cache and _get_session_from_db: Django's, not in django-stubs.
            data = self._cache.get(self.cache_key)  # type: ignore[attr-defined]
        except Exception:
            logger.warning("Session cache unavailable, reading the database", exc_info=True)
            data = None
        if data is not None:
            return data
        row = self._get_session_from_db()  # type: ignore[attr-defined]
        if not row:
            return {}
        data = self.decode(row.session_data)
        try:
            self._cache.set(  # type: ignore[attr-defined]
                self.cache_key, data, self.get_expiry_age(expiry=row.expire_date)
            )
        except Exception:
            logger.warning("Session cache unavailable, not caching the session", exc_info=True)
        return data
