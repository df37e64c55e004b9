"""``python -m benchmarks`` (``make bench``): measure, then write ``docs/PERFORMANCE.md``.

``BENCH=engine,words,movegen,site`` picks the parts (all of them by default). A partial
run writes ``data/bench/PERFORMANCE.md`` instead, so the committed report is
always a whole one; ``BENCH_OUTPUT`` names another file. ``BENCH_WEB_SCALE``
(e.g. ``0.3``) shortens the site's phases for a quick look. The figures are
saved in ``data/bench/last-run.pickle``; ``python -m benchmarks render``
writes the report again from them (after a change to its text).

Exits non-zero when a part could not run (PostgreSQL or Redis missing for the
site) or the site answered anything a player would not expect.
"""

from __future__ import annotations

import datetime as dt
import os
import pickle
import sys
import time
import traceback
from pathlib import Path

from benchmarks import engine, movegen, report, web
from benchmarks.machine import Machine, load_average
from benchmarks.web.stack import ServiceUnavailable
from benchmarks.words import ROOT, wordlist_bench

PARTS = ("engine", "words", "movegen", "site")
OUTPUT = ROOT / "docs" / "PERFORMANCE.md"
PARTIAL_OUTPUT = ROOT / "data" / "bench" / "PERFORMANCE.md"
SAVED = ROOT / "data" / "bench" / "last-run.pickle"


def selected(raw: str | None) -> tuple[str, ...]:
    """The parts ``BENCH`` names, in the report's order; all of them when unset."""
    if not raw:
        return PARTS
    names = {name.strip() for name in raw.split(",") if name.strip()}
    unknown = names - set(PARTS)
    if unknown:
        raise SystemExit(f"BENCH: unknown part(s) {', '.join(sorted(unknown))}; use {PARTS}")
    return tuple(p for p in PARTS if p in names)


def say(text: str) -> None:
    print(text, file=sys.stderr, flush=True)


def main() -> int:
    parts = selected(os.environ.get("BENCH"))
    started = time.perf_counter()
    run = report.Run(
        machine=Machine.here(),
        date=dt.datetime.now(dt.UTC).strftime("%Y-%m-%d %H:%M UTC"),
        load_start=load_average(),
        parts=parts,
    )
    if "words" in parts:
        say("word list (fresh process)...")
        run.words = wordlist_bench()
    if "engine" in parts:
        say("judging one placement...")
        run.judged = engine.judge_one()
        for mode, players in engine.TABLES:
            say(f"whole games, {mode}, {players} players...")
            run.games.append(engine.whole_games(mode, players))
    if "movegen" in parts:
        say("move generator and computer players...")
        run.moves = movegen.run()
    if "site" in parts:
        say("the site under load...")
        try:
            run.web = web.run(web.WebConfig.from_env())
        except ServiceUnavailable as exc:
            run.failures["site"] = str(exc)
        except Exception as exc:  # report it, then fail the command
            traceback.print_exc()
            run.failures["site"] = f"the run failed: {type(exc).__name__}: {exc}"
    run.load_end = load_average()
    run.elapsed_s = time.perf_counter() - started
    # The figures, so that the report's text can be rendered again without measuring:
    # ``python -m benchmarks render`` (after editing benchmarks/report.py).
    SAVED.parent.mkdir(parents=True, exist_ok=True)
    SAVED.write_bytes(pickle.dumps(run))
    return write(run)


def write(run: report.Run) -> int:
    """Render ``run`` into its report file; the exit status the run deserves."""
    parts = run.parts
    text = report.render(run)
    default = OUTPUT if parts == PARTS else PARTIAL_OUTPUT
    output = Path(os.environ.get("BENCH_OUTPUT") or default)
    output.parent.mkdir(parents=True, exist_ok=True)
    output.write_text(text, encoding="utf-8")
    print(text)
    say(f"wrote {output}")
    for part, why in run.failures.items():
        say(f"FAILED: {part}: {why}")
    if run.web is not None and run.web.errors:
        say(f"FAILED: the site answered {run.web.errors} request(s) with an error")
        return 1
    return 1 if run.failures else 0


def render_saved() -> int:
    """``python -m benchmarks render``: the last run's report again, from its saved figures."""
    if not SAVED.exists():
        raise SystemExit(f"no saved run at {SAVED}: run the benchmark first")
    return write(pickle.loads(SAVED.read_bytes()))  # our own file, written by main()


if __name__ == "__main__":
    sys.exit(render_saved() if sys.argv[1:] == ["render"] else main())
