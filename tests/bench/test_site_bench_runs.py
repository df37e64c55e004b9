"""`make bench`'s site part runs end to end on a tiny configuration (real services).

No figure is checked, only that every phase and the load's step ran and that
no request got an answer a player would not expect.
"""

from __future__ import annotations

import os
from concurrent.futures import ThreadPoolExecutor
from urllib.parse import urlsplit, urlunsplit

import pytest
from django.conf import settings

from benchmarks import web
from benchmarks.web import search
from benchmarks.web.client import Think

pytestmark = pytest.mark.services


def _bench_urls() -> tuple[str, str]:
    """This suite's PostgreSQL server and Redis, with the benchmark's own names on them."""
    db = settings.DATABASES["default"]
    auth = db["USER"] + (f":{db['PASSWORD']}" if db.get("PASSWORD") else "")
    # Named after this suite's own database (``test_diamino_h1`` -> ``diamino_h1_bench_smoke``),
    # so that suites run side by side on one server do not drop each other's.
    own = str(db["NAME"]).removeprefix("test_")
    name = f"{own}_bench_smoke" if own.startswith("diamino_") else "diamino_bench_smoke"
    database = f"postgres://{auth}@{db['HOST'] or '127.0.0.1'}:{db['PORT'] or 5432}/{name}"
    # BENCH_REDIS_URL: a Redis database of one's own (the run flushes it); 11 by default.
    redis = os.environ.get("BENCH_REDIS_URL")
    if not redis:
        assert settings.REDIS_URL is not None
        redis = urlunsplit(urlsplit(settings.REDIS_URL)._replace(path="/11"))
    return database, redis


def test_the_site_benchmark_plays_every_phase_and_step_without_an_error() -> None:
    database, redis = _bench_urls()
    config = web.WebConfig(
        unit="2x2,3x1",  # 7 players in 3 games
        premoves=4,
        workers=2,
        closed_players=7,
        target_players=7,
        ladder=(7,),
        capacity_ms=60_000,  # the step passes: the search ends at the ladder's top
        budget_s=60,
        capacity_s=1.5,
        warmup_s=0.5,
        play_s=3.0,
        play_warmup_s=1.0,
        think=Think(arrive=(0, 0.2), move=(0.1, 0.3), confirm=(0.05, 0.1), poll=0.3),
        profile_repeats=2,
        profile_text=None,
        database_url=database,
        redis_url=redis,
    )
    # In its own thread: after the browser tests, Playwright's event loop is still
    # running in this one, and the load generator needs an asyncio loop of its own.
    with ThreadPoolExecutor(max_workers=1) as pool:
        result = pool.submit(web.run, config).result()
    for name in ("bare", "poll", "preview", "page", "flat out"):
        assert result.closed[name].requests > 0, name
    assert set(result.steps) == {7}
    for step in result.steps.values():
        assert step.endpoints["page"].latency.count > 0
        assert step.endpoints["submit"].latency.count > 0
        assert step.cpu_speed_ms is not None
    assert result.steps[7].endpoints["page"].queries_median is not None
    assert result.capacity == search.Bracket(passed=7, failed=None)
    assert set(result.profile) == {"page", "preview", "submit"}
    assert result.errors == 0, {
        name: [(e.name, e.error_examples) for e in p.endpoints.values() if e.errors]
        for name, p in [*result.closed.items(), *result.steps.items()]
    }
