"""The report's generated blocks: the targets judged from the figures, the tables'
rows, and the blocks put between their markers in docs/PERFORMANCE.md."""

from __future__ import annotations

import pytest

from benchmarks import analysis, coldstart, markdown, movegen, phone, report
from benchmarks.__main__ import OUTPUT, selected
from benchmarks.machine import Machine
from benchmarks.stats import Latency
from benchmarks.web import WebConfig, WebResult
from benchmarks.web.client import Endpoint, PhaseResult
from benchmarks.web.stack import Services

SERVICES = Services("postgres://x/diamino_bench", "redis://x/11", "PostgreSQL 15", "Redis 7")


def endpoint(name: str, p95_s: float, errors: int = 0, count: int = 100) -> Endpoint:
    return Endpoint(
        name=name,
        latency=Latency.of([p95_s / 2] * (count // 2) + [p95_s] * (count - count // 2)),
        per_second=count / 6.0,
        errors=errors,
        error_examples=("HTTP 500",) if errors else (),
        statuses={200: count},
        queries_median=4,
        queries_max=6,
    )


def phase(name: str, *endpoints: Endpoint, cpu: float = 1.0, speed: float = 30.0) -> PhaseResult:
    """A 6 s window; ``cpu`` seconds of gunicorn and a tenth of that of PostgreSQL."""
    return PhaseResult(
        name=name,
        workers=50,
        window_s=6.0,
        endpoints={e.name: e for e in endpoints},
        server_cpu_s={"gunicorn": cpu, "postgres": cpu / 10},
        client_cpu_s=0.5,
        load_before=(1.0, 1.0, 1.0),
        cpu_speed_ms=speed,
    )


def step(page_p95_s: float, move_p95_s: float, errors: int = 0, speed: float = 30.0) -> PhaseResult:
    return phase(
        "step",
        endpoint("page", page_p95_s, errors),
        endpoint("poll", 0.01),
        endpoint("submit", move_p95_s),
        speed=speed,
    )


def web_result(steps: dict[int, PhaseResult], *, stopped: bool = False) -> WebResult:
    closed = {
        "bare": phase("bare", endpoint("bare", 0.01)),
        "page": phase("page", endpoint("page", 0.2), cpu=4.0),
        # 100 page reads and 100 moves: 9.9 s, of which the reads at the page's 44 ms.
        "flat out": phase("flat out", endpoint("page", 0.5), endpoint("submit", 0.5), cpu=9.0),
    }
    profile = {
        "page": {
            "requests": 20,
            "ms_median": 9.0,
            "ms_mean": 9.5,
            "cpu_ms_median": 7.0,
            "queries_median": 4,
            "shares": {"database": 0.2, "templates": 0.5, "engine": 0.01, "other": 0.29},
        }
    }
    return WebResult(WebConfig(), SERVICES, 60.0, closed, steps, profile, stopped)


def run(**changes: object) -> report.Run:
    base = report.Run(
        machine=Machine("Test CPU", 2, 24.0, "Linux", "CPython 3.11", reference_ms=23.4),
        date="2026-01-01 00:00 UTC",
        load_start=(3.5, 2.0, 1.0),
        load_end=(4.0, 2.5, 1.5),
        parts=("site",),
    )
    for name, value in changes.items():
        setattr(base, name, value)
    return base


def rows_of(text: str) -> list[list[str]]:
    return [
        [cell.strip() for cell in line.strip("|").split("|")]
        for line in text.splitlines()
        if line.startswith("|")
    ]


def test_the_200_player_targets_are_judged_with_the_step_s_cpu_speed() -> None:
    web = web_result({50: step(0.02, 0.03), 200: step(0.08, 0.15, speed=41.0)})
    rows = rows_of(report.targets_block(run(web=web)))
    assert ["Game page p95 < 100 ms with 200 players at once", "80.0 ms", "41", "yes"] in rows
    assert [
        "Move submission p95 < 100 ms with 200 players at once",
        "150.0 ms",
        "41",
        "**not met**",
    ] in rows
    assert ["Errors over the whole site run: 0", "0", "41", "yes"] in rows


def test_errors_anywhere_in_the_site_run_miss_the_target() -> None:
    web = web_result({50: step(0.02, 0.03, errors=2), 200: step(0.05, 0.05)})
    rows = rows_of(report.targets_block(run(web=web)))
    assert ["Errors over the whole site run: 0", "2", "30", "**not met**"] in rows
    assert "- 50 players / page: 2 (HTTP 500)" in report.errors_block(web)


@pytest.mark.parametrize(
    ("steps", "figure"),
    [
        ({50: (0.05, 0.05), 100: (0.1, 0.15), 200: (0.3, 0.1)}, "100 (200 did not pass)"),
        ({50: (0.25, 0.05), 200: (0.3, 0.1)}, "fewer than 50"),
        ({50: (0.05, 0.05), 200: (0.1, 0.1)}, "at least 200 (every step passed)"),
        # A noisy minute: 100 failed (an error) and 200 passed; the first failure counts.
        ({50: (0.05, 0.05), 100: (0.05, 0.05, 1), 200: (0.1, 0.1)}, "50 (100 did not pass)"),
    ],
)
def test_the_capacity_is_the_most_players_passing_below_the_first_failure(
    steps: dict[int, tuple[float, ...]], figure: str
) -> None:
    web = web_result({n: step(*(s[0], s[1]), *s[2:]) for n, s in steps.items()})  # type: ignore[arg-type]
    rows = rows_of(report.targets_block(run(web=web)))
    capacity = next(r for r in rows if r[0].startswith("Capacity"))
    assert capacity[1] == figure


def test_a_run_with_no_step_has_no_capacity() -> None:
    rows = rows_of(report.targets_block(run(web=web_result({}))))
    assert next(r for r in rows if r[0].startswith("Capacity"))[1] == "not measured"
    assert next(r for r in rows if r[0].startswith("Game page p95"))[1:] == [
        "not measured",
        "–",
        "**not met**",
    ]


def test_a_search_stopped_by_its_budget_says_so() -> None:
    web = web_result({50: step(0.05, 0.05), 200: step(0.05, 0.05)}, stopped=True)
    rows = rows_of(report.targets_block(run(web=web)))
    capacity = next(r for r in rows if r[0].startswith("Capacity"))
    assert capacity[1].endswith("the search stopped at its time budget")


def test_each_step_has_its_row_in_order_with_its_verdict() -> None:
    web = web_result({200: step(0.3, 0.1), 50: step(0.02, 0.03), 100: step(0.1, 0.15)})
    rows = rows_of(report.steps_block(web))[2:]
    assert [r[0] for r in rows] == ["50", "100", "200"]
    assert [r[-1] for r in rows] == ["yes", "yes", "no"]
    # 50 pages at 150 ms and 50 at 300 ms: the median between them, p95 300 ms;
    # server CPU 1.1 s in 6 s.
    assert rows[2][1:5] == ["225.0", "300.0", "75.0", "100.0"]
    assert rows[2][8] == "0.18"


def test_the_move_s_cpu_is_the_chains_less_their_page_reads() -> None:
    web = web_result({})
    # The page alone: 4.4 s for 100 requests, 44 ms each (4 ms PostgreSQL).
    assert report.cpu_per_request(web, "page", "page") == pytest.approx((44.0, 4.0))
    # The chains: 9.9 s for 100 reads and 100 moves; the reads at 44 ms leave 55 ms a move.
    assert report.cpu_per_request(web, "flat out", "submit") == pytest.approx((55.0, 5.0))
    assert report.cpu_per_request(web, "flat out", "page") is None
    row = next(r for r in rows_of(report.closed_block(web)) if r[0] == "Move submission (htmx)")
    assert row[5:7] == ["55.0", "5.00"]


def test_a_site_that_could_not_run_says_why_in_each_of_its_blocks() -> None:
    blocks = report.blocks(run(failures={"site": "PostgreSQL at x does not answer"}))
    for name in report.SITE_BLOCKS:
        assert "PostgreSQL at x does not answer" in blocks[name]
    assert ["(site)", "not measured", "–", "**not met**: PostgreSQL at x does not answer"] in (
        rows_of(blocks["targets"])
    )


def test_bench_picks_parts_in_the_report_s_order() -> None:
    assert selected(None) == ("engine", "words", "movegen", "analysis", "site", "phone")
    assert selected("phone") == ("phone",)
    assert selected("site, engine") == ("engine", "site")
    with pytest.raises(SystemExit, match="unknown part"):
        selected("engine,gpu")


def movegen_result(
    lazy_max_ms: float, cold: coldstart.ColdStart | None = None
) -> movegen.MovegenResult:
    def timing(median: float, top: float) -> movegen.Timing:
        return movegen.Timing(median, top, top, 5, 1000, 2000)

    dawg = {"build_s": 2.0, "words": 406162, "nodes": 45000, "file_mb": 5.2, "peak_mb": 30}
    return movegen.MovegenResult(
        hand12=timing(20, 40),
        hand12_plain=timing(18, 30),
        board_tiles=30,
        big_plain=timing(200, 480),
        big_diable=timing(530, 1100),
        big_diable_capped=timing(150, 300),
        dawg={**dawg, "load_s": 0.012},
        bots={"marque, confirmé": {"moves": 60, "median_s": 0.1, "p95_s": 0.2, "max_s": 0.3}},
        load=0.5,
        cold=cold,
        big_diable_words=timing(300, lazy_max_ms),
    )


def test_the_move_generator_s_targets_carry_its_cpu_speed() -> None:
    moves = movegen_result(lazy_max_ms=403)
    rows = rows_of(report.targets_block(run(moves=moves, speeds={"movegen": 27.0})))
    assert ["All placements for a 12-tile hand, median < 100 ms", "20.0 ms", "27", "yes"] in rows
    search = next(r for r in rows if "40-tile hand, with or without a diable" in r[0])
    assert search[1:] == ["slowest 480 ms", "27", "yes"]  # the hand without a diable
    slow = rows_of(report.targets_block(run(moves=movegen_result(lazy_max_ms=1200))))
    search = next(r for r in slow if "40-tile hand, with or without a diable" in r[0])
    assert search[1:] == ["slowest 1200 ms", "–", "**not met**"]


def test_every_placement_with_a_diable_expanded_is_a_reference_not_a_target() -> None:
    moves = movegen_result(lazy_max_ms=403)  # its lists with every diable expanded: 1.1 s
    assert not [r for r in rows_of(report.targets_block(run(moves=moves))) if "1100" in r[1]]
    table = rows_of(movegen.blocks(moves)["movegen-search"])
    expanded = next(r for r in table if r[0] == "40-tile hand with a diable, all placements")
    assert expanded[4] == "1100.0"
    assert expanded[-2:] == ["none: reference", "n/a"]


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


def test_a_process_that_answered_a_hint_keeps_under_10_mb_more() -> None:
    good = run(moves=movegen_result(900, cold_start(web_excess=4.0, speed=1.0)))
    rows = rows_of(report.targets_block(good))
    memory = [r for r in rows if "answered a hint" in r[0]]
    assert [r[1:] for r in memory] == [["+4.0 MB", "–", "yes"], ["+6.0 MB", "–", "yes"]]
    assert next(r for r in rows if "speed within" in r[0])[1] == "1.05 × its median time"
    tables = report.blocks(good)
    assert (rows_of(tables["coldstart-processes"])[2][:2]) == [
        "gunicorn worker (of 4)",
        "40.0 / 40.0 / 40.0 / 40.0",
    ]
    bad = rows_of(
        report.targets_block(run(moves=movegen_result(900, cold_start(web_excess=12.0, speed=1.2))))
    )
    assert [r[1] for r in bad if "gunicorn worker that answered" in r[0]] == ["+12.0 MB"]
    assert "**not met**" in next(r for r in bad if "gunicorn worker that answered" in r[0])


def page_load(kb: float, ready_ms: float | None = 600.0) -> phone.Load:
    return phone.Load(int(kb * 1000), 9, 900.0, ready_ms, 20.0, {"board.js": 13_500})


def phone_result(game_cold_kb: float = 57.0, play_ms: float = 300.0) -> phone.PhoneResult:
    """Three loads of each page: the medians are the middle ones."""

    def figures(name: str, label: str, cold: float, warm: float, board: bool) -> phone.PageFigures:
        ready = 600.0 if board else None
        return phone.PageFigures(
            name,
            label,
            [page_load(cold - 1, ready), page_load(cold, ready), page_load(cold + 30, ready)],
            [page_load(warm, ready)] * 3,
        )

    pages = [
        figures("game", "Game page, mid-game", game_cold_kb, 10.0, True),
        figures("lobby", "Lobby", 12.0, 3.0, False),
        figures("mine", "My games", 25.0, 3.0, False),
        figures("guided", "Guided game", 58.0, 8.0, True),
    ]
    play = phone.PlayFigures(
        [play_ms, play_ms, 5000.0], [100.0] * 3, [7500] * 3, [900] * 3, [700] * 3
    )
    variants = [phone.Variant("as configured", pages, play), phone.Variant("gzip off", pages, None)]
    return phone.PhoneResult("2026-01-01 00:00 UTC", "cpu MHz: 2596", None, 3, variants)


def test_the_phone_targets_are_judged_on_the_medians() -> None:
    rows = {t: (f, ok) for t, f, ok in phone.targets(phone_result())}
    assert rows["Phone: game page < 60 KB cold"] == ("57.0 KB", True)
    assert rows["Phone: Play to the new board < 350 ms"] == ("300 ms", True)
    assert rows["Phone: Lobby < 20 KB cold"] == ("12.0 KB", True)
    assert rows["Phone: My games < 20 KB cold"] == ("25.0 KB", False)
    heavy = {t: ok for t, _f, ok in phone.targets(phone_result(game_cold_kb=61, play_ms=400))}
    assert not heavy["Phone: game page < 60 KB cold"]
    assert not heavy["Phone: Play to the new board < 350 ms"]


def test_the_phone_s_targets_carry_the_cpu_speed_measured_before_it() -> None:
    rows = rows_of(report.targets_block(run(phone=phone_result(), speeds={"phone": 31.0})))
    assert ["Phone: board ready < 700 ms (cold)", "600 ms", "31", "yes"] in rows
    play = next(r for r in rows if r[0] == "Phone: Play to the new board < 350 ms")
    assert play[1:] == ["300 ms", "31", "yes"]


def test_the_phone_s_cpu_slowdown_brings_chromium_to_a_mid_tier_phone_s_score() -> None:
    assert phone.calibrated_rate(2412) == 2.41  # in the protocol's hundredths
    assert phone.calibrated_rate(1000) == 1
    assert phone.calibrated_rate(800) == 1  # slower than the phone: never sped up
    assert phone.fixed_rate("4") == 4 and phone.fixed_rate("2.5") == 2.5
    for wrong in ("0.5", "fast", ""):
        with pytest.raises(ValueError, match="BENCH_PHONE_CPU"):
            phone.fixed_rate(wrong)


def test_the_phone_report_says_how_its_cpu_was_slowed() -> None:
    calibrated = phone.CpuProfile(2.41, True, 2412, 1003).describe()
    assert calibrated.startswith("2.41× CPU slowdown, calibrated to a mid-tier phone")
    assert "2,412 unslowed, 1,003 slowed" in calibrated
    fixed = phone.CpuProfile(4, False, 2412, 598).describe()
    assert fixed.startswith("4× CPU slowdown, fixed (") and "598 slowed" in fixed
    weak = phone.CpuProfile(1, True, 640, 640).describe()
    assert "slower than a mid-tier phone" in weak and "640 unslowed" in weak
    just_enough = phone.CpuProfile(1, True, 1003, 1001).describe()
    assert "calibrated to a mid-tier phone" in just_enough
    old = phone_result()  # a run saved before the calibration: a fixed 4×, no scores
    assert "4× CPU slowdown, fixed" in phone.blocks(old)["phone-pages"]


def test_a_game_s_analysis_is_judged_on_its_cpu_seconds() -> None:
    slow = analysis.GameAnalysis("sans-marque", 2, 40, 38, 12.5, 13.0)
    quick = analysis.GameAnalysis("marque", 4, 60, 58, 4.0, 9.0)  # wall time does not count
    assert [ok for _t, _f, ok in analysis.targets([slow, quick])] == [False, True]
    assert ["4 players, marque", "60", "58", "4.0", "9.0", "69", "yes"] in rows_of(
        analysis.blocks([quick])["analysis"]
    )


def test_a_phone_part_that_could_not_run_says_why_in_each_of_its_blocks() -> None:
    blocks = report.blocks(run(parts=("phone",), failures={"phone": "Chromium is missing"}))
    for name in phone.BLOCKS:
        assert "Chromium is missing" in blocks[name]


def full_run() -> report.Run:
    web = web_result({50: step(0.02, 0.03), 200: step(0.05, 0.05)})
    return run(
        web=web,
        moves=movegen_result(900, cold_start(4.0, 1.0)),
        phone=phone_result(),
        analysis=[analysis.GameAnalysis("sans-marque", 2, 40, 38, 12.5, 13.0)],
        parts=("engine", "words", "movegen", "analysis", "site", "phone"),
    )


def test_every_block_a_run_makes_has_its_markers_in_docs_performance() -> None:
    text = OUTPUT.read_text(encoding="utf-8")
    blocks = report.blocks(full_run())
    filled = markdown.fill(text, blocks)
    for name, body in blocks.items():
        assert f"{markdown.begin(name)}\n{body}\n{markdown.end(name)}" in filled
    # Engine and word list blocks too (their figures come from other parts).
    assert {"engine-judging", "engine-games", "words"} <= set(markdown.names(text))
