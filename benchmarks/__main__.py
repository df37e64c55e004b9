"""``python -m benchmarks`` (``make bench``): measure, then fill ``docs/PERFORMANCE.md``.

The report is written by hand; the run replaces only its generated blocks
(``benchmarks.markdown``). ``BENCH=engine,words,movegen,analysis,site,phone`` picks the parts
(all of them by default). A partial run writes a copy, ``data/bench/PERFORMANCE.md``,
whose blocks of the parts not run say so, so the committed report always holds
one whole run; ``BENCH_OUTPUT`` names another file. ``BENCH_WEB_SCALE`` (e.g.
``0.3``) shortens the site's phases and its search's time budget for a quick
look. ``BENCH=phone`` alone measures the pages on an emulated phone
(``benchmarks.phone``); ``BENCH_PHONE_RUNS`` (default 3) how many times each,
``BENCH_PHONE_CPU`` a fixed CPU slowdown instead of the mid-tier phone's calibrated one. The figures are saved in ``data/bench/last-run.pickle``;
``python -m benchmarks render`` fills the blocks again from them (after a
change to a table's code).

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

from benchmarks import analysis, engine, markdown, movegen, phone, report, web
from benchmarks.machine import Machine, cpu_reference_ms, load_average
from benchmarks.web.stack import ServiceUnavailable
from benchmarks.words import ROOT, wordlist_bench

PARTS = ("engine", "words", "movegen", "analysis", "site", "phone")
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
    phone_cpu = os.environ.get("BENCH_PHONE_CPU", "mid-tier")
    if "phone" in parts and phone_cpu != "mid-tier":
        try:
            phone.fixed_rate(phone_cpu)  # refused now, not after the other parts' minutes
        except ValueError as exc:
            raise SystemExit(str(exc)) from None
    started = time.perf_counter()
    run = report.Run(
        machine=Machine.here(),
        date=dt.datetime.now(dt.UTC).strftime("%Y-%m-%d %H:%M UTC"),
        load_start=load_average(),
        parts=parts,
    )
    if "words" in parts:
        say("word list (fresh process)...")
        run.speeds["words"] = cpu_reference_ms()
        run.words = wordlist_bench()
    if "engine" in parts:
        say("judging one placement...")
        run.speeds["engine"] = cpu_reference_ms()
        run.judged = engine.judge_one()
        for mode, players in engine.TABLES:
            say(f"whole games, {mode}, {players} players...")
            run.games.append(engine.whole_games(mode, players))
    if "movegen" in parts:
        say("move generator and computer players...")
        run.speeds["movegen"] = cpu_reference_ms()
        run.moves = movegen.run()
    if "analysis" in parts:
        say("the analysis of whole games...")
        run.speeds["analysis"] = cpu_reference_ms()
        run.analysis = analysis.run()
    if "site" in parts:
        say("the site under load...")
        try:
            run.web = web.run(web.WebConfig.from_env())
        except ServiceUnavailable as exc:
            run.failures["site"] = str(exc)
        except Exception as exc:  # report it, then fail the command
            traceback.print_exc()
            run.failures["site"] = f"the run failed: {type(exc).__name__}: {exc}"
    if "phone" in parts:
        say("the pages on an emulated phone...")
        # The server's speed, and Chromium's beside the phone's emulated one.
        run.speeds["phone"] = cpu_reference_ms()
        try:
            run.phone = phone.run(
                os.environ.get("BENCH_DATABASE_URL", web.stack.DEFAULT_DATABASE_URL),
                os.environ.get("BENCH_REDIS_URL", web.stack.DEFAULT_REDIS_URL),
                runs=int(os.environ.get("BENCH_PHONE_RUNS", "3")),
                cpu=phone_cpu,
            )
        except ServiceUnavailable as exc:
            run.failures["phone"] = str(exc)
        except Exception as exc:  # report it, then fail the command
            traceback.print_exc()
            run.failures["phone"] = f"the run failed: {type(exc).__name__}: {exc}"
    run.load_end = load_average()
    run.elapsed_s = time.perf_counter() - started
    # The figures, so that the blocks can be filled again without measuring:
    # ``python -m benchmarks render`` (after editing benchmarks/report.py).
    SAVED.parent.mkdir(parents=True, exist_ok=True)
    SAVED.write_bytes(pickle.dumps(run))
    return write(run)


def write(run: report.Run) -> int:
    """Fill ``run``'s blocks into its report file; the exit status the run deserves."""
    whole = run.parts == PARTS
    output = Path(os.environ.get("BENCH_OUTPUT") or (OUTPUT if whole else PARTIAL_OUTPUT))
    blocks = report.blocks(run)
    missing = None if whole else f"*Not measured in this run (parts: {', '.join(run.parts)}).*"
    text = markdown.fill(OUTPUT.read_text(encoding="utf-8"), blocks, missing)
    output.parent.mkdir(parents=True, exist_ok=True)
    output.write_text(text, encoding="utf-8")
    for name, block in blocks.items():
        print(f"{markdown.begin(name)}\n{block}\n")
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
