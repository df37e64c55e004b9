"""One run's figures as the generated blocks of ``docs/PERFORMANCE.md``.

Only tables and short generated lines: what they mean is written by hand in
``docs/PERFORMANCE.md`` around the blocks (``benchmarks.markdown.fill``).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

from benchmarks import analysis, engine, movegen, phone
from benchmarks.machine import REFERENCE_STEPS, Machine, format_load
from benchmarks.markdown import met, ms, table
from benchmarks.web import MOVE, PAGE, WebResult
from benchmarks.web.client import Endpoint, PhaseResult

JUDGE_TARGET_MS = 0.3
GAME_TARGET_MS = 50.0
LOAD_TARGET_S = 0.5
RSS_TARGET_MB = 15.0
SITE_BLOCKS = (
    "site-setup",
    "site-target",
    "site-steps",
    "site-closed",
    "site-profile",
    "site-errors",
)


@dataclass
class Run:
    machine: Machine
    date: str
    load_start: tuple[float, float, float] | None
    load_end: tuple[float, float, float] | None = None
    elapsed_s: float = 0.0
    parts: tuple[str, ...] = ()
    speeds: dict[str, float] = field(default_factory=dict)  # part -> CPU-speed line before it
    judged: engine.Judged | None = None
    games: list[engine.GamesResult] = field(default_factory=list)
    words: dict[str, object] | None = None
    moves: movegen.MovegenResult | None = None
    web: WebResult | None = None
    phone: phone.PhoneResult | None = None
    analysis: list[analysis.GameAnalysis] | None = None
    failures: dict[str, str] = field(default_factory=dict)  # part -> why it did not run


def _speed(value: float | None) -> str:
    return "–" if value is None else f"{value:.0f}"


def _queries(e: Endpoint) -> str:
    return "–" if e.queries_median is None else f"{e.queries_median:g} / {e.queries_max}"


def blocks(run: Run) -> dict[str, str]:
    """Every block this run measured, by name."""
    found = {"run": run_block(run), "targets": targets_block(run)}
    if run.judged is not None:
        found["engine-judging"] = judging_block(run.judged)
    if run.games:
        found["engine-games"] = games_block(run.games)
    if run.words is not None:
        found["words"] = words_block(run.words)
    if run.moves is not None:
        found.update(movegen.blocks(run.moves))
    if run.web is not None:
        found.update(site_blocks(run.web))
    elif "site" in run.failures:
        why = f"**Not measured: {run.failures['site']}**"
        found.update(dict.fromkeys(SITE_BLOCKS, why))
    analysed = getattr(run, "analysis", None)  # a run saved before the part existed has none
    if analysed is not None:
        found.update(analysis.blocks(analysed))
    measured = getattr(run, "phone", None)
    if measured is not None:
        found.update(phone.blocks(measured))
    elif "phone" in run.failures:
        why = f"**Not measured: {run.failures['phone']}**"
        found.update(dict.fromkeys(phone.BLOCKS, why))
    return found


def run_block(run: Run) -> str:
    m = run.machine
    memory = f", {m.memory_gib:.0f} GiB RAM" if m.memory_gib else ""
    lines = [
        f"- Machine: {m.cpu}, {m.cores} CPU(s){memory}, {m.system}; {m.python}",
        f"- CPU speed at the start: the fixed loop of {REFERENCE_STEPS:,} steps took "
        f"{_speed(m.reference_ms)} ms of CPU (lower is faster)",
    ]
    if run.web is not None:
        s = run.web.services
        lines.append(f"- Services: {s.postgres_version}; {s.redis_version}")
    lines += [
        f"- Date: {run.date}; parts run: {', '.join(run.parts)}; whole run: {run.elapsed_s:.0f} s",
        f"- Load average (1 / 5 / 15 min) at the start: {format_load(run.load_start)}; "
        f"at the end: {format_load(run.load_end)}",
    ]
    return "\n".join(lines)


def site_targets(web: WebResult) -> list[tuple[str, str, float | None, str]]:
    c = web.config
    rows: list[tuple[str, str, float | None, str]] = []
    step = web.steps.get(c.target_players)
    for name, label in ((PAGE, "Game page"), (MOVE, "Move submission")):
        target = f"{label} p95 < {c.target_ms:g} ms with {c.target_players} players at once"
        e = step.endpoints.get(name) if step is not None else None
        if step is None or e is None:
            rows.append((target, "not measured", None, met(False)))
            continue
        p95 = e.latency.p95
        figure = f"{ms(p95)} ms" if e.latency.count else "none answered in the window"
        rows.append((target, figure, step.cpu_speed_ms, met(p95 < c.target_ms)))
    rows.append(
        (
            "Errors over the whole site run: 0",
            str(web.errors),
            step.cpu_speed_ms if step else None,
            met(web.errors == 0),
        )
    )
    found = web.capacity
    if not web.steps:
        figure = "not measured"
    elif found.passed is None:
        figure = f"fewer than {found.failed}"
    elif found.failed is None:
        figure = f"at least {found.passed} (every step passed)"
    else:
        figure = f"{found.passed} ({found.failed} did not pass)"
    if web.stopped_by_budget:
        figure += "; the search stopped at its time budget"
    speed = web.steps[found.passed].cpu_speed_ms if found.passed in web.steps else None
    rows.append(
        (
            f"Capacity: the most players at once with both p95 < {c.capacity_ms:g} ms, no error",
            figure,
            speed,
            "a figure, no target",
        )
    )
    return rows


def targets_block(run: Run) -> str:
    rows: list[tuple[str, str, float | None, str]] = []
    if run.web is not None:
        rows += site_targets(run.web)
    if run.words is not None:
        rss = float(run.words["extra_rss_mb"])  # type: ignore[arg-type]
        target = f"Word list extra resident memory < {RSS_TARGET_MB:g} MB"
        rows.append((target, f"{rss:.1f} MB", run.speeds.get("words"), met(rss < RSS_TARGET_MB)))
    if run.judged is not None:
        median = run.judged.legal.median_ms
        rows.append(
            (
                f"Judging a placement, median < {JUDGE_TARGET_MS} ms",
                f"{median:.4f} ms",
                run.speeds.get("engine"),
                met(median < JUDGE_TARGET_MS),
            )
        )
    if run.moves is not None:
        speed = run.speeds.get("movegen")
        rows += [(t, f, speed, met(ok)) for t, f, ok in movegen.targets(run.moves)]
    analysed = getattr(run, "analysis", None)
    if analysed is not None:
        speed = run.speeds.get("analysis")
        rows += [(t, f, speed, met(ok)) for t, f, ok in analysis.targets(analysed)]
    measured = getattr(run, "phone", None)
    if measured is not None:
        speed = run.speeds.get("phone")
        rows += [(t, f, speed, met(ok)) for t, f, ok in phone.targets(measured)]
    for part, why in run.failures.items():
        rows.append((f"({part})", "not measured", None, f"**not met**: {why}"))
    return table(
        "Target | This run | CPU speed (ms) | Met?",
        [(t, f, _speed(s), ok) for t, f, s, ok in rows],
        "llrl",
    )


# --- 1. engine, 2. word list ------------------------------------------------------


def judging_block(judged: engine.Judged) -> str:
    rows = [
        (name, f"{t.median_ms:.4f}", f"{t.p99_ms:.4f}", met(t.median_ms < JUDGE_TARGET_MS))
        for name, t in (("Legal placement", judged.legal), ("Illegal placement", judged.illegal))
    ]
    return (
        f"Position: {judged.moves_before} random legal moves ({engine.MIDGAME_PLACEMENTS} "
        f"placements), {judged.board_tiles} tiles on the board; legal placement "
        f"`{judged.placement}` (forms {judged.words}); the illegal one is rejected with "
        f"`{judged.illegal_code}`; {judged.legal.repeats} calls each.\n\n"
        + table(f"Case | Median (ms) | p99 (ms) | Median < {JUDGE_TARGET_MS} ms?", rows, "lrrl")
    )


def games_block(games: list[engine.GamesResult]) -> str:
    rows = [
        (
            g.mode,
            g.players,
            f"{g.moves_per_game:.1f}",
            f"{g.placements_per_game:.1f}",
            f"{g.exchanges_per_game:.1f}",
            f"{g.played_per_second:.1f}",
            f"{g.median_ms_per_game:.2f}",
            f"{g.games_per_second:.0f}",
            f"{g.ms_per_move:.4f}",
            met(g.median_ms_per_game < GAME_TARGET_MS) if g.mode == "marque" else "n/a",
        )
        for g in games
    ]
    return table(
        "Mode | Players | Moves/game | Placements | Exchanges | Played/s | Median ms/replay "
        f"| Replayed/s | ms/move | Replay < {GAME_TARGET_MS:g} ms (marque)?",
        rows,
        "lrrrrrrrrl",
    )


def words_block(words: dict[str, object]) -> str:
    load_s = float(words["load_seconds"])  # type: ignore[arg-type]
    rss_mb = float(words["extra_rss_mb"])  # type: ignore[arg-type]
    rows = [
        ("Load time", f"{load_s:.3f} s", f"< {LOAD_TARGET_S} s", met(load_s < LOAD_TARGET_S)),
        ("Lookups per second", f"{int(words['lookups_per_second']):,}", "none set", "n/a"),  # type: ignore[call-overload]
        (
            "Extra resident memory",
            f"{rss_mb:.1f} MB",
            f"< {RSS_TARGET_MB:g} MB",
            met(rss_mb < RSS_TARGET_MB),
        ),
        ("Word count", f"{int(words['word_count']):,}", "none set", "n/a"),  # type: ignore[call-overload]
    ]
    return f"List `{words['list_id']}`, {words['lookups']} lookups.\n\n" + table(
        "Measure | Value | Target | Met?", rows, "lrll"
    )


# --- 3. the site --------------------------------------------------------------------


def site_blocks(web: WebResult) -> dict[str, str]:
    return {
        "site-setup": setup_block(web),
        "site-target": target_block(web),
        "site-steps": steps_block(web),
        "site-closed": closed_block(web),
        "site-profile": profile_block(web),
        "site-errors": errors_block(web),
    }


def setup_block(web: WebResult) -> str:
    c, t = web.config, web.config.think
    tables = ", ".join(f"{count} of {seats} seats" for seats, count in c.kinds)
    return "\n".join(
        [
            f"- Scenario: {c.unit_players} players in {c.unit_games} games ({tables}), "
            f"{c.premoves} moves played in each before the run; repeated to scale",
            f"- Server: gunicorn, {c.workers} sync workers, database `{_name(web)}` "
            f"(a copy of `{_name(web)}_seed` for each step), Redis database "
            f"{web.services.redis_url.rsplit('/', 1)[-1] or '0'}",
            f"- Thinking: arrival {t.arrive[0]:g}–{t.arrive[1]:g} s, a move "
            f"{t.move[0]:g}–{t.move[1]:g} s, reading the preview {t.confirm[0]:g}–"
            f"{t.confirm[1]:g} s, a poll every {t.poll:g} s",
            f"- Each play step {c.play_s:g} s, the first {c.play_warmup_s:g} s not counted; "
            f"ladder {', '.join(map(str, c.ladder))} players, {c.halvings} halvings at most, "
            f"no step started after {c.budget_s:g} s of steps",
            f"- Each closed-loop phase {c.capacity_s:g} s with {c.closed_players} players, "
            f"the first {c.warmup_s:g} s not counted",
            f"- Seeding the players and games: {web.seed_seconds:.0f} s",
        ]
    )


def _name(web: WebResult) -> str:
    return web.services.database_url.rsplit("/", 1)[-1]


PLAY_ROWS = (
    (PAGE, "Game page"),
    ("poll", "Poll while waiting (`?since=`, htmx)"),
    ("preview", "Preview (htmx)"),
    (MOVE, "Move submission (htmx)"),
)


def target_block(web: WebResult) -> str:
    step = web.steps.get(web.config.target_players)
    if step is None:
        return "**Not measured: the run stopped before this step.**"
    rows = [
        (
            label,
            e.latency.count,
            f"{e.per_second:.1f}",
            ms(e.latency.p50),
            ms(e.latency.p95),
            ms(e.latency.p99),
            ms(e.latency.max),
            _queries(e),
            e.errors,
        )
        for name, label in PLAY_ROWS
        if (e := step.endpoints.get(name)) is not None
    ]
    return (
        table(
            "Endpoint | Requests | Per second | p50 (ms) | p95 (ms) | p99 (ms) | max (ms) "
            "| SQL queries (median / max) | Errors",
            rows,
            "lrrrrrrrr",
        )
        + f"\n\n{_cores(step)}"
        + "".join(f" {k.capitalize()}: {v:g}." for k, v in step.extra.items())
    )


def _cores(phase: PhaseResult) -> str:
    w = phase.window_s
    return (
        f"CPU speed {_speed(phase.cpu_speed_ms)} ms; server CPU "
        f"{sum(phase.server_cpu_s.values()) / w:.2f} cores (gunicorn "
        f"{phase.server_cpu_s.get('gunicorn', 0) / w:.2f}, PostgreSQL "
        f"{phase.server_cpu_s.get('postgres', 0) / w:.2f}), the load generator "
        f"{phase.client_cpu_s / w:.2f}; load average before: {format_load(phase.load_before)}."
    )


def steps_block(web: WebResult) -> str:
    rows = []
    for players, step in sorted(web.steps.items()):
        page, move = step.endpoints.get(PAGE), step.endpoints.get(MOVE)
        w = step.window_s
        rows.append(
            (
                players,
                ms(page.latency.p50) if page else "–",
                ms(page.latency.p95) if page else "–",
                ms(move.latency.p50) if move else "–",
                ms(move.latency.p95) if move else "–",
                f"{step.requests / w:.0f}",
                f"{move.per_second:.1f}" if move else "–",
                step.errors,
                f"{sum(step.server_cpu_s.values()) / w:.2f}",
                f"{step.client_cpu_s / w:.2f}",
                format_load(step.load_before).split(" / ")[0],
                _speed(step.cpu_speed_ms),
                "yes" if web.passed(players) else "no",
            )
        )
    return table(
        "Players | Page p50 (ms) | Page p95 (ms) | Move p50 (ms) | Move p95 (ms) "
        "| Requests/s | Moves/s | Errors | Server CPU (cores) | Load generator (cores) "
        f"| Load avg before | CPU speed (ms) | Both p95 < {web.config.capacity_ms:g} ms, no error?",
        rows,
        "rrrrrrrrrrrrl",
    )


CLOSED_ROWS = (
    ("bare", "bare", "Bare view, no cookie (the ceiling)"),
    ("poll", "poll", "Poll while waiting, nothing new (`?since=`, htmx, 204)"),
    ("preview", "preview", "Preview (htmx)"),
    ("page", PAGE, "Game page"),
    ("flat out", MOVE, "Move submission (htmx)"),
    ("flat out", PAGE, "Game page, read before each submission"),
)


def closed_block(web: WebResult) -> str:
    rows = []
    for phase_name, endpoint, label in CLOSED_ROWS:
        phase = web.closed.get(phase_name)
        if phase is None or endpoint not in phase.endpoints:
            continue
        e = phase.endpoints[endpoint]
        cpu = cpu_per_request(web, phase_name, endpoint)
        rows.append(
            (
                label,
                e.latency.count,
                f"{e.per_second:.1f}",
                ms(e.latency.p50),
                ms(e.latency.p95),
                ms(cpu[0]) if cpu else "–",
                ms(cpu[1]) if cpu else "–",
                _queries(e),
                e.errors,
                f"{phase.client_cpu_s / phase.window_s:.2f}",
                format_load(phase.load_before).split(" / ")[0],
                _speed(phase.cpu_speed_ms),
            )
        )
    return table(
        "Endpoint | Requests | Per second | p50 (ms) | p95 (ms) | Server CPU (ms/req) "
        "| of which PostgreSQL | SQL queries (median / max) | Errors "
        "| Load generator (cores) | Load avg before | CPU speed (ms)",
        rows,
        "lrrrrrrrrrrr",
    )


def errors_block(web: WebResult) -> str:
    phases = [*web.closed.items(), *((f"{n} players", p) for n, p in sorted(web.steps.items()))]
    listed = [
        f"- {name} / {e.name}: {e.errors} ({'; '.join(e.error_examples)})"
        for name, phase in phases
        for e in phase.endpoints.values()
        if e.errors
    ]
    total = f"Errors over the whole site run, warm-up and page reads between phases: {web.errors}."
    return "\n".join([total, *listed])


def cpu_per_request(web: WebResult, phase_name: str, endpoint: str) -> tuple[float, float] | None:
    """Server CPU per request, all of it and PostgreSQL's, in ms.

    A phase loading one endpoint divides its CPU by its requests. The flat-out
    chains load the page before each move: their page reads are counted at the
    page phase's own figure (run just before them) and the rest is the moves'.
    """
    phase = web.closed.get(phase_name)
    if phase is None or not phase.requests:
        return None
    total, postgres = sum(phase.server_cpu_s.values()), phase.server_cpu_s.get("postgres", 0.0)
    if len(phase.endpoints) == 1:
        return total * 1000 / phase.requests, postgres * 1000 / phase.requests
    if (phase_name, endpoint) != ("flat out", MOVE) or MOVE not in phase.endpoints:
        return None
    alone = cpu_per_request(web, "page", PAGE)
    moves = phase.endpoints[MOVE].latency.count
    reads = phase.endpoints[PAGE].latency.count if PAGE in phase.endpoints else 0
    if alone is None or not moves:
        return None
    return (
        (total * 1000 - reads * alone[0]) / moves,
        (postgres * 1000 - reads * alone[1]) / moves,
    )


def profile_block(web: WebResult) -> str:
    rows = []
    for name, data in web.profile.items():
        shares: dict[str, float] = data.get("shares", {})  # type: ignore[assignment]
        rows.append(
            (
                name,
                f"{float(data['ms_median']):.2f}",  # type: ignore[arg-type]
                f"{float(data['ms_mean']):.2f}",  # type: ignore[arg-type]
                f"{float(data.get('cpu_ms_median', math.nan)):.2f}",  # type: ignore[arg-type]
                f"{float(data['queries_median']):g}",  # type: ignore[arg-type]
                *(f"{shares.get(k, 0):.0%}" for k in ("database", "templates", "engine", "other")),
            )
        )
    return table(
        "Endpoint | Median (ms) | Mean (ms) | Django's CPU, median (ms) | SQL queries "
        "| Database | Templates | Rules engine | Other (Django, views)",
        rows,
        "lrrrrrrrr",
    )
