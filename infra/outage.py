"""What one process knows of a service that stopped answering: since when, until when to wait.

The cache (``infra/cache.py``) and the Celery broker (``DatabaseTask`` in
``infra/celery.py``) are the same Redis in production. Both note a
failure here, under the server's URL, so one timeout spares every other use
of that Redis in the process (every thread, the cache and the broker) the
same wait for ``retry_seconds``, and the outage is logged once a minute for
the server, not once per request, thread or use.
"""

from __future__ import annotations

import logging
import threading
import time

log = logging.getLogger(__name__)

LOG_EVERY_SECONDS = 60.0


class Outage:
    def __init__(self, name: str) -> None:
        self.name = name
        self.lock = threading.Lock()
        self.down_until = 0.0  # time.monotonic() before which the service is not tried
        self.down_since: float | None = None
        self.last_logged = float("-inf")

    def skipping(self) -> bool:
        return time.monotonic() < self.down_until

    @property
    def down(self) -> bool:
        return self.down_since is not None

    def went_down(self, error: BaseException, *, retry_seconds: float, use: str) -> None:
        now = time.monotonic()
        with self.lock:
            self.down_until = now + retry_seconds
            if self.down_since is None:
                self.down_since = now
            should_log = now - self.last_logged >= LOG_EVERY_SECONDS
            if should_log:
                self.last_logged = now
        if should_log:
            log.warning(
                "Redis at %s unavailable to the %s (%s: %s); the site works around it,"
                " trying again every %ss (logged once a minute)",
                self.name,
                use,
                type(error).__name__,
                error,
                retry_seconds,
            )

    def came_back(self) -> None:
        with self.lock:
            down_since, self.down_since = self.down_since, None
        if down_since is not None:
            log.warning(
                "Redis at %s answers again after %.0fs", self.name, time.monotonic() - down_since
            )


_OUTAGES: dict[str, Outage] = {}
_LOCK = threading.Lock()


def outage_of(url: str) -> Outage:
    """The one record for the server at ``url`` (its database number aside)."""
    server = url.rsplit("/", 1)[0] if url.count("/") > 2 else url
    server = server.split("@")[-1]  # no password in the logs
    with _LOCK:
        return _OUTAGES.setdefault(server, Outage(server))


def forget_all() -> None:
    """Tests: the next test's server is another one."""
    with _LOCK:
        _OUTAGES.clear()
