"""The report says what was measured, against which target, and why a part is missing."""

from __future__ import annotations

import pytest

from benchmarks import coldstart, movegen, report
from benchmarks.__main__ import selected
from benchmarks.machine import Machine
from benchmarks.stats import Latency
from benchmarks.web import WebConfig, WebResult
from benchmarks.web.client import Endpoint, PhaseResult
from benchmarks.web.stack import Services

SERVICES = Services("postgres://x/diamino_bench", "redis://x/11", "PostgreSQL 15", "Redis 7")


def endpoint(name: str, per_second: float, p95_s: float, errors: int = 0) -> Endpoint:
    return Endpoint(
        name=name,
        latency=Latency.of([p95_s / 2] * 50 + [p95_s] * 50),
        per_second=per_second,
        errors=errors,
        error_examples=("HTTP 500",) if errors else (),
        statuses={200: 100},
        queries_median=6,
        queries_max=6,
    )


def phase(name: str, *endpoints: Endpoint, cpu: float = 1.0) -> PhaseResult:
    return PhaseResult(
        name=name,
        workers=50,
        window_s=6.0,
        endpoints={e.name: e for e in endpoints},
        server_cpu_s={"gunicorn": cpu, "postgres": cpu / 10},
        client_cpu_s=0.5,
        load_before=(1.0, 1.0, 1.0),
    )


def web_result(
    submit_p95_s: float,
    page_rate: float,
    errors: int = 0,
    *,
    page_cpu: float = 1.0,
    flat_cpu: float = 1.0,
) -> WebResult:
    """CPU in seconds per phase: 100 requests a phase, so 1.0 s (+10% PostgreSQL) is 11 ms each."""
    phases = {
        "bare": phase("bare", endpoint("bare", 1000, 0.01)),
        "bare, signed in": phase("bare, signed in", endpoint("bare", 400, 0.02)),
        "floor": phase("floor", endpoint("floor", 300, 0.03)),
        "page": phase("page", endpoint("page", page_rate, 0.2, errors), cpu=page_cpu),
        "preview": phase("preview", endpoint("preview", 200, 0.1)),
        "play": phase(
            "play",
            endpoint("page", 5, 0.05),
            endpoint("poll", 10, 0.02),
            endpoint("preview", 3, 0.03),
            endpoint("submit", 3, submit_p95_s),
        ),
        "flat out": phase(
            "flat out", endpoint("page", 20, 0.5), endpoint("submit", 20, 0.5), cpu=flat_cpu
        ),
        "bare, again": phase("bare, again", endpoint("bare", 1000, 0.01)),
    }
    profile = {
        "page": {
            "requests": 20,
            "ms_median": 9.0,
            "ms_mean": 9.5,
            "cpu_ms_median": 7.0,
            "queries_median": 6,
            "shares": {"database": 0.2, "templates": 0.5, "engine": 0.01, "other": 0.29},
        }
    }
    return WebResult(WebConfig(), SERVICES, 50, 20, 3.0, phases, profile)


def run(**changes) -> report.Run:
    base = report.Run(
        machine=Machine("Test CPU", 2, 24.0, "Linux", "CPython 3.11", reference_ms=123.4),
        date="2026-01-01 00:00 UTC",
        load_start=(3.5, 2.0, 1.0),
        load_end=(4.0, 2.5, 1.5),
        parts=("site",),
    )
    for name, value in changes.items():
        setattr(base, name, value)
    return base


def test_targets_met_and_not_met_are_both_said() -> None:
    web = web_result(submit_p95_s=0.050, page_rate=100, page_cpu=4.0, flat_cpu=9.0)
    text = report.render(run(web=web))
    assert (
        "| Move submission p95 < 100 ms with 50 players playing at once | 50.0 ms "
        "(CPU speed: the fixed loop took 123 ms) | yes |" in text
    )
    # The page: 44 ms against the signed-in bare view's 11 ms.
    assert (
        "| Game page: server CPU per request ≤ 3× the signed-in bare view's, same run "
        "| 4.0× (44.0 against 11.0 ms) | **not met** |" in text
    )
    # The flat-out phase: 99 ms a request for 100 page reads and 100 moves; the reads
    # counted at the page's 44 ms leave 55 ms a move.
    assert (
        "| Move submission: server CPU per move ≤ 6× the signed-in bare view's, same run "
        "| 5.0× (55.0 against 11.0 ms) | yes |" in text
    )
    # The capacity table's row (the playing table's has no CPU).
    row = next(line for line in text.splitlines() if line.startswith("| Move submission (htmx) |"))
    assert "| 55.0 | 5.00 | 20% |" in row  # PostgreSQL: 900 ms less 100 reads at 4 ms
    assert "PostgreSQL 15; Redis 7" in text and "3.50 / 2.00 / 1.00" in text
    assert "loop of 1,000,000 steps takes 123 ms of CPU here" in text
    assert "50 players in 20 games (13 of 2 seats, 4 of 3 seats, 3 of 4 seats;" in text


def test_a_slow_submission_misses_its_target() -> None:
    text = report.render(run(web=web_result(submit_p95_s=0.250, page_rate=500, flat_cpu=8.0)))
    assert "| 250.0 ms (CPU speed: the fixed loop took 123 ms) | **not met** |" in text
    assert "| 1.0× (11.0 against 11.0 ms) | yes |" in text
    assert "| 7.0× (77.0 against 11.0 ms) | **not met** |" in text


def test_every_endpoint_has_its_row_and_errors_are_listed() -> None:
    text = report.render(run(web=web_result(0.05, 100, errors=3)))
    for label in (
        "Bare view, no cookie (the ceiling)",
        "The least a game page can do (game and seat read, hand as text)",
        "Game page",
        "Preview (htmx)",
    ):
        assert f"| {label} |" in text
    assert "Errors over the whole run, warm-up and page reads between phases included: 3." in text
    assert "- page / page: 3 (HTTP 500)" in text
    assert "| page | 9.00 | 9.50 | 7.00 | 6 | 20% | 50% | 1% | 29% |" in text


def test_server_cpu_per_request_says_the_postgresql_part() -> None:
    text = report.render(run(web=web_result(0.05, 100)))
    # 1.0 s of gunicorn and 0.1 s of PostgreSQL for the 100 requests of the window.
    (row,) = [line for line in text.splitlines() if line.startswith("| Game page | 100 | 100.0 |")]
    assert "| 11.0 | 1.00 | 100% |" in row


def test_a_site_that_could_not_run_says_why() -> None:
    text = report.render(run(failures={"site": "PostgreSQL at x does not answer"}))
    assert "**Not measured: PostgreSQL at x does not answer**" in text
    assert "| (site) | not measured | **not met**: PostgreSQL at x does not answer |" in text


def test_bench_picks_parts_in_the_report_s_order() -> None:
    assert selected(None) == ("engine", "words", "movegen", "site")
    assert selected("site, engine") == ("engine", "site")
    with pytest.raises(SystemExit, match="unknown part"):
        selected("engine,gpu")


def movegen_result(
    big_diable_max_ms: float, cold: coldstart.ColdStart | None = None
) -> movegen.MovegenResult:
    def timing(median: float, top: float) -> movegen.Timing:
        return movegen.Timing(median, top, top, 5, 1000, 2000)

    dawg = {"build_s": 2.0, "words": 406162, "nodes": 45000, "file_mb": 5.2, "peak_mb": 30}
    return movegen.MovegenResult(
        hand12=timing(20, 40),
        hand12_plain=timing(18, 30),
        board_tiles=30,
        big_plain=timing(200, 480),
        big_diable=timing(530, big_diable_max_ms),
        big_diable_capped=timing(150, 300),
        dawg={**dawg, "load_s": 0.012},
        bots={"marque, confirmé": {"moves": 60, "median_s": 0.1, "p95_s": 0.2, "max_s": 0.3}},
        load=0.5,
        cold=cold,
    )


def test_the_move_generator_has_its_section_and_its_targets() -> None:
    text = report.render(run(moves=movegen_result(big_diable_max_ms=903)))
    assert "| All placements for a 12-tile hand, median < 100 ms | 20.0 ms | yes |" in text
    assert "with or without a diable, < 1 s at every position | slowest 903 ms | yes |" in text
    assert text.index("## 4. What the profile") < text.index("## 5. Move generator")
    assert text.index("## 5. Move generator") < text.index("## Not measured yet")
    assert "The move generator" not in text.split("## Not measured yet")[1]
    slow = report.render(run(moves=movegen_result(big_diable_max_ms=1200)))
    assert "| slowest 1200 ms | **not met** |" in slow


def cold_start(web_excess: float, speed: float) -> coldstart.ColdStart:
    fresh = coldstart.Fresh(
        [0.09, 0.11, 1.2], [0.07, 0.08, 1.1], [0.1, 0.2, 1.3], [0.1] * 3, 0.4, 5.0, 3.0
    )
    old = coldstart.Fresh([3.9, 4.1], [0.05, 0.06], [4.0, 4.2], [0.1, 0.1], 0.4, 70.0, 70.0)
    web = coldstart.Processes(
        "gunicorn worker (of 4)", [40.0] * 4, [40.0, 40.0 + web_excess, 40.5, 39.5], 1, 0.2, 0.0
    )
    pool = coldstart.Processes("Celery prefork process (of 2)", [5.0, 5.0], [12.0, 6.0], 0, 0.3)
    return coldstart.ColdStart(fresh, old, [web, pool], [20.0, 22.0], [20.0, 20.0 / speed], 20, [])


def test_the_cold_start_has_its_tables_and_targets() -> None:
    text = report.render(run(moves=movegen_result(900, cold_start(web_excess=4.0, speed=1.0))))
    assert "### Cold start: the first hint of a process, and its memory" in text
    assert (
        "| First hint in a fresh interpreter (12-tile hand, mid-game), median < 0.3 s | 0.110 s CPU | yes |"
        in text
    )
    assert (
        "| A gunicorn worker that answered a hint: private memory < 10 MB above one that did not | +4.0 MB | yes |"
        in text
    )
    assert (
        "| A Celery prefork process that answered a hint: private memory < 10 MB above one that did not | +6.0 MB | yes |"
        in text
    )
    assert (
        "| This tree (DAWG mapped) | 3 | 0.110 | 1.200 | 0.080 | 0.030 | 0.200 | 0.40 | 5.0 | 3.0 |"
        in text
    )
    assert (
        "| gunicorn worker (of 4) | 40.0 / 40.0 / 40.0 / 40.0 | 40.0 / 44.0 / 40.5 / 39.5 | #2 | 0.20 | +4.0 |"
        in text
    )
    assert "same run | 1.05 × its median time | yes |" in text
    bad = report.render(run(moves=movegen_result(900, cold_start(web_excess=12.0, speed=1.2))))
    assert "did not | +12.0 MB | **not met** |" in bad
    assert "| 1.15 × its median time | **not met** |" in bad


def test_the_page_reads_the_median_round_and_the_move_the_phases_around_its_chains() -> None:
    web = web_result(submit_p95_s=0.050, page_rate=100, page_cpu=2.0, flat_cpu=9.0)
    # 100 requests a phase: a CPU of 1.0 s (+10% PostgreSQL) is 11 ms a request.
    web.phases.update(
        {
            "bare, signed in · 2": phase("bare, signed in · 2", endpoint("bare", 400, 0.02)),
            "page · 2": phase("page · 2", endpoint("page", 100, 0.2), cpu=4.0),
            "bare, signed in · 3": phase(
                "bare, signed in · 3", endpoint("bare", 400, 0.02), cpu=2.0
            ),
            "page · 3": phase("page · 3", endpoint("page", 100, 0.2), cpu=5.0),
            "bare, signed in · chains": phase(
                "bare, signed in · chains", endpoint("bare", 400, 0.02), cpu=0.5
            ),
            "page · chains": phase("page · chains", endpoint("page", 100, 0.2), cpu=3.0),
            "bare, signed in · after the chains": phase(
                "bare, signed in · after the chains", endpoint("bare", 400, 0.02), cpu=1.5
            ),
        }
    )
    text = report.render(run(web=web))
    # Rounds: 2.0×, 4.0× and 2.5×; the median round is the third (55 against 22 ms).
    assert (
        "| Game page: server CPU per request ≤ 3× the signed-in bare view's, same run "
        "| 2.5× (the median of 3 rounds, 2.0–4.0×; 55.0 against 22.0 ms) | yes |" in text
    )
    # The chains: 99 ms a request for 100 reads and 100 moves, the reads at the page's
    # 33 ms just before them, leaving 66 ms; the bare view around them 5.5 and 16.5 ms.
    assert (
        "| Move submission: server CPU per move ≤ 6× the signed-in bare view's, same run "
        "| 6.0× (66.0 against 11.0 ms) | yes |" in text
    )
    assert "| Round 2 | 11.0 | 44.0 | – | 4.0× |" in text
    assert "| Around the flat-out chains | 11.0 | 33.0 | 66.0 | 6.0× (the move) |" in text
