"""The test run's settings: the site's own, with each pytest-xdist worker on its own ground.

pytest-django reads ``DJANGO_SETTINGS_MODULE`` (pyproject.toml) before any
conftest runs, so the worker's share is set here, in the environment, before
``diamino_site.settings`` reads it; the servers, workers and commands the tests
start inherit it. pytest-django already gives each worker its own test
database (``test_<name>_gw1``); this gives it its own

- Redis database: ``REDIS_URL``'s number plus the worker's (a real Celery worker
  started by a test consumes only its own process's tasks, and cached keys built
  from a game's id never meet another database's game of the same id), and the
  same for ``BENCH_REDIS_URL``, which the bench smoke test flushes;
- data folder (mail files, static files, the bench's scratch): ``data/test-gw1``.

Ports are taken free from the system where a test opens one (``tests/ports.py``).
Without xdist (``-n 0``, or a single test) nothing changes.

A process a test starts inherits this module (``DJANGO_SETTINGS_MODULE``) and
the worker's name with the environment, already moved: ``DIAMINO_TEST_WORKER``
says so, and the move is not made twice (a second offset would put the child
on another Redis database, and the data folder a test gave its child, such as
a tmp_path for its mail files, would be moved under ``test-gw1``).
"""

from __future__ import annotations

import os
import re
from pathlib import Path

WORKER = os.environ.get("PYTEST_XDIST_WORKER", "")


def _own_database(url: str, offset: int) -> str:
    """``url`` with its Redis database number moved up by ``offset`` (0 when it names none)."""
    match = re.fullmatch(r"(rediss?://[^/]+)(?:/(\d+))?/?", url)
    if match is None:  # a unix socket or a URL with a query: left as it is
        return url
    number = (int(match.group(2) or 0) + offset) % 16
    return f"{match.group(1)}/{number}"


if WORKER and os.environ.get("DIAMINO_TEST_WORKER") != WORKER:
    os.environ["DIAMINO_TEST_WORKER"] = WORKER
    index = int(WORKER.removeprefix("gw"))
    for name in ("REDIS_URL", "BENCH_REDIS_URL"):
        if os.environ.get(name):
            os.environ[name] = _own_database(os.environ[name], index)
    base = Path(os.environ.get("DIAMINO_DATA_DIR") or Path(__file__).resolve().parents[1] / "data")
    os.environ["DIAMINO_DATA_DIR"] = str(base / f"test-{WORKER}")

from diamino_site.settings import *  # noqa: E402, F403  (the site's settings, read after the above)

# The test run's own flush, quicker on PostgreSQL (tests/management/commands/flush.py).
INSTALLED_APPS = [*INSTALLED_APPS, "tests.apps.TestsConfig"]  # noqa: F405

# The embedded default's test database is a file in the worker's data folder, not
# Django's shared in-memory SQLite: in shared-cache memory a read meeting another
# thread's write fails at once ("database table is locked") whatever the timeout,
# and the live server's threads (the browser tests) and a Celery worker's thread
# read and write beside the test's own. A file in WAL mode lets readers go on
# beside the writer, and the site's timeout (20 s) rides out the writer's turn.
if DATABASES["default"]["ENGINE"] == "django.db.backends.sqlite3":  # noqa: F405
    DATABASES["default"]["TEST"] = {"NAME": str(DATA_DIR / "test.sqlite3")}  # noqa: F405
