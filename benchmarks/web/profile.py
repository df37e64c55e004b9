"""``python -m benchmarks.web.profile``: where one request's time goes, in-process.

Run by ``benchmarks.web`` with the bench server's environment, after seeding
and before the load: Django's test client sends real requests (the players'
session cookies, the CSRF token from the page) to the game page, the preview
and the submission, first timed alone, then under pyinstrument. Nothing else
runs in this process, so the figures are those of one request on one core:
what the load phases multiply.

Each sample of the profile is put in the first category found walking up from
the innermost frame: the database (driver and ORM), the templates, the rules
engine, and the rest (Django's request handling, middleware, the views and
selectors' own Python). Prints one JSON document; with ``--text DIR`` writes
pyinstrument's text tree for each endpoint there too.
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import sys
import time
from collections import defaultdict
from collections.abc import Callable
from pathlib import Path
from typing import Any

# (category, path fragments): the first match walking up from the innermost frame wins.
CATEGORIES: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("database", ("/psycopg/", "/django/db/")),
    ("templates", ("/django/template/", "/template_partials/", "/django/templatetags/")),
    ("engine", ("/rules/",)),
)
OTHER = "other"


def categorize(stacks: list[tuple[list[str], float]]) -> dict[str, float]:
    """Share of the time per category; ``stacks`` are pyinstrument frame records."""
    totals: defaultdict[str, float] = defaultdict(float)
    for frames, seconds in stacks:
        category = OTHER
        for identifier in reversed(frames):
            path = identifier.split("\x00")[1] if "\x00" in identifier else ""
            found = next((c for c, parts in CATEGORIES if any(p in path for p in parts)), None)
            if found:
                category = found
                break
        totals[category] += seconds
    whole = sum(totals.values()) or 1.0
    return {c: totals[c] / whole for c in (*(c for c, _ in CATEGORIES), OTHER)}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.web.profile")
    parser.add_argument("--players", required=True, help="the seed's JSON file")
    parser.add_argument("--repeats", type=int, default=20)
    parser.add_argument("--text", help="folder for pyinstrument's text output")
    args = parser.parse_args(argv)

    import django

    django.setup()
    from django.conf import settings
    from django.test import Client
    from pyinstrument import Profiler

    from benchmarks.web import page
    from rules import Place

    seeded = json.loads(Path(args.players).read_text())["players"]
    rng = random.Random(5)

    def client_for(player: dict[str, Any]) -> Client:
        client = Client(enforce_csrf_checks=True, HTTP_HOST="127.0.0.1")
        client.cookies[settings.SESSION_COOKIE_NAME] = player["session"]
        return client

    def fetch(client: Client, player: dict[str, Any]) -> page.Seen:
        answer = client.get(f"/parties/{player['game']}/")
        assert answer.status_code == 200, answer.status_code
        return page.read(answer.content.decode())

    clients = {p["username"]: client_for(p) for p in seeded}
    views = {p["username"]: fetch(clients[p["username"]], p) for p in seeded}
    movers = [p for p in seeded if views[p["username"]].my_turn]

    def post(player: dict[str, Any], what: str, fields: dict[str, str]) -> Any:
        seen = views[player["username"]]
        return clients[player["username"]].post(
            f"/parties/{player['game']}/{what}/",
            fields,
            HTTP_HX_REQUEST="true",
            HTTP_X_CSRFTOKEN=seen.csrf_token,
        )

    previews = []
    for player in movers:
        seen = views[player["username"]]
        move = next(
            (m for m in (page.choose(seen, rng) for _ in range(20)) if isinstance(m, Place)), None
        )
        if move is not None:
            previews.append((player, page.form_fields(move, seen.version)))

    def page_request(k: int) -> Any:
        player = seeded[k % len(seeded)]
        return clients[player["username"]].get(f"/parties/{player['game']}/")

    def preview_request(k: int) -> Any:
        player, fields = previews[k % len(previews)]
        return post(player, "apercu", fields)

    prepared: list[tuple[dict[str, Any], dict[str, str]]] = []

    def prepare_submit(k: int) -> None:
        # Not timed: the player to move of the k-th game reads their page and picks a move.
        games = sorted({p["game"] for p in seeded})
        game = games[k % len(games)]
        for player in (p for p in seeded if p["game"] == game):
            seen = fetch(clients[player["username"]], player)
            views[player["username"]] = seen
            if seen.my_turn and not seen.over:
                prepared.append((player, page.form_fields(page.choose(seen, rng), seen.version)))
                return
        prepared.append((seeded[0], {}))

    def submit_request(k: int) -> Any:
        player, fields = prepared.pop()
        if not fields:
            return None
        return post(player, "jouer", fields)

    endpoints: dict[str, tuple[Callable[[int], Any], Callable[[int], None] | None]] = {
        "page": (page_request, None),
        "preview": (preview_request, None),
        "submit": (submit_request, prepare_submit),
    }
    report: dict[str, Any] = {}
    for name, (request, prepare) in endpoints.items():
        timings: list[float] = []
        cpu_times: list[float] = []
        queries: list[int] = []
        profiler = Profiler(interval=0.0005)
        for k in range(2 * args.repeats):
            profiled = k >= args.repeats  # first timed alone, then under the profiler
            if prepare is not None:
                prepare(k)
            if profiled:
                profiler.start()
            started, cpu_started = time.perf_counter(), time.thread_time()
            answer = request(k)
            elapsed, cpu = time.perf_counter() - started, time.thread_time() - cpu_started
            if profiled:
                profiler.stop()
            if answer is None:
                continue
            if answer.status_code != 200:
                raise RuntimeError(f"{name}: HTTP {answer.status_code}")
            if not profiled:
                timings.append(elapsed)
                cpu_times.append(cpu)
                queries.append(int(answer.get("X-Queries", "-1")))
        session = profiler.last_session
        report[name] = {
            "requests": len(timings),
            "ms_median": statistics.median(timings) * 1000,
            "ms_mean": statistics.fmean(timings) * 1000,
            # This process's CPU alone: steadier than the wall clock on a busy machine.
            "cpu_ms_median": statistics.median(cpu_times) * 1000,
            "queries_median": statistics.median(queries),
            "shares": categorize(session.frame_records) if session else {},
        }
        if args.text and session:
            folder = Path(args.text)
            folder.mkdir(parents=True, exist_ok=True)
            (folder / f"{name}.txt").write_text(
                profiler.output_text(unicode=True, color=False, show_all=False)
            )
    json.dump(report, sys.stdout)
    return 0


if __name__ == "__main__":
    sys.exit(main())
