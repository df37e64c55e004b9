"""The move generator from a cold start (issue 20), for ``make bench``'s movegen part.

Three figures, each beside the reference: the code of ``REFERENCE``, the last
commit whose DAWG was built per process from the word list into dicts, its
``rules`` extracted from git into a temporary folder and run side by side.

* **First hint in a fresh interpreter**: ``benchmarks/coldstart_probe.py``
  in a new process per position times ``best_moves`` twice (the first call
  includes whatever the DAWG costs), and the process's memory around the
  first (``/proc/self/smaps_rollup``).
* **Private memory of the site's processes**: gunicorn with 4 workers and a
  Celery worker with 2 prefork processes (``benchmarks/hintserver.py``), all
  started as the site's are; each process's USS (Private_Clean +
  Private_Dirty) before, then after one hint sent to one web worker and one
  to one Celery process: the hinted process against the others.
* **Search speed**: ``generate`` on the movegen positions, CPU time, this
  tree and the reference alternately, twice each.
"""

from __future__ import annotations

import io
import json
import os
import secrets
import statistics
import subprocess
import sys
import tarfile
import tempfile
import time
import urllib.request
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from benchmarks.markdown import table
from benchmarks.web.stack import free_port, stop
from benchmarks.words import ROOT
from rules.serialize import state_to_dict
from rules.state import GameState

REFERENCE = "7d3fee9"
"""The last commit with the DAWG built in memory on first use (dicts, ~4 s, ~68 MB)."""
PROBE = ROOT / "benchmarks" / "coldstart_probe.py"
COLD_POSITIONS = 8
REFERENCE_POSITIONS = 2
SPEED_ROUNDS = 2
WEB_WORKERS = 4
CELERY_PROCESSES = 2
FIRST_HINT_TARGET_S = 0.3
PRIVATE_TARGET_MB = 10.0
SPEED_TOLERANCE = 0.10


@dataclass(frozen=True)
class Fresh:
    """First and second hint in fresh interpreters, one per position."""

    first_s: list[float]
    """CPU seconds of the first ``best_moves`` of each process (what the target judges)."""
    warm_s: list[float]
    """CPU seconds of the second, on the same position."""
    first_wall_s: list[float]
    warm_wall_s: list[float]
    import_s: float
    """Median time to import the rules and read the position."""
    uss_growth_mb: float
    """Median growth of the process's private memory over the first hint."""
    dirty_growth_mb: float
    """The same, of its private dirty (anonymous) memory alone."""


@dataclass(frozen=True)
class Processes:
    """USS in MB of each process of a kind, before and after one of them hinted."""

    kind: str
    before: list[float]
    after: list[float]
    hinted: int
    """Index of the process that answered the hint."""
    hint_s: float
    dawg_private_mb: float | None = None
    """The private part of the hinted process's mapping of the DAWG file, after."""

    @property
    def excess_mb(self) -> float:
        """The hinted process's USS above the median of the others' (both after)."""
        others = [m for k, m in enumerate(self.after) if k != self.hinted]
        return self.after[self.hinted] - statistics.median(others)


@dataclass(frozen=True)
class ColdStart:
    fresh: Fresh
    reference: Fresh | None
    processes: list[Processes]
    speed_ms: list[float]
    """Median ms of ``generate`` over the positions, this tree, one per round."""
    reference_speed_ms: list[float]
    positions: int
    failures: list[str]

    @property
    def speed_ratio(self) -> float | None:
        if not self.speed_ms or not self.reference_speed_ms:
            return None
        return statistics.median(self.speed_ms) / statistics.median(self.reference_speed_ms)


def _python(tree: Path, *args: str, timeout: float = 300) -> dict:
    out = subprocess.run(
        [sys.executable, str(PROBE), *args],
        cwd=tree,
        env={**os.environ, "PYTHONPATH": str(tree)},
        check=True,
        capture_output=True,
        text=True,
        timeout=timeout,
    )
    return json.loads(out.stdout.strip().splitlines()[-1])


@contextmanager
def reference_tree() -> Iterator[Path | None]:
    """``rules`` as of ``REFERENCE``, in a temporary folder (None without git or the commit)."""
    with tempfile.TemporaryDirectory(prefix="diamino-reference-") as folder:
        try:
            archive = subprocess.run(
                ["git", "archive", REFERENCE, "rules"],
                cwd=ROOT,
                check=True,
                capture_output=True,
                timeout=60,
            ).stdout
        except (OSError, subprocess.SubprocessError):
            yield None
            return
        with tarfile.open(fileobj=io.BytesIO(archive)) as tar:
            tar.extractall(folder, filter="data")
        yield Path(folder)


def fresh_hints(tree: Path, states: Path, count: int) -> Fresh:
    runs = [_python(tree, "hint", str(states), str(k)) for k in range(count)]

    def growth(key: str) -> float:
        return statistics.median(r["after"][key] - r["before"][key] for r in runs)

    return Fresh(
        first_s=[r["first_cpu_s"] for r in runs],
        warm_s=[r["warm_cpu_s"] for r in runs],
        first_wall_s=[r["first_s"] for r in runs],
        warm_wall_s=[r["warm_s"] for r in runs],
        import_s=statistics.median(r["import_s"] for r in runs),
        uss_growth_mb=growth("uss"),
        dirty_growth_mb=growth("private_dirty"),
    )


def uss_mb(pid: int) -> float:
    fields = {}
    with open(f"/proc/{pid}/smaps_rollup", encoding="ascii") as rollup:
        for line in rollup:
            name, _, value = line.partition(":")
            if name in ("Private_Clean", "Private_Dirty"):
                fields[name] = int(value.split()[0])
    return sum(fields.values()) / 1024


def dawg_private_mb(pid: int) -> float | None:
    """Private memory of the DAWG file's mapping in ``pid`` (None when not mapped)."""
    private, mapped = 0, False
    inside = False
    with open(f"/proc/{pid}/smaps", encoding="utf-8", errors="replace") as smaps:
        for line in smaps:
            head = line.split(maxsplit=5)
            if head and "-" in head[0] and len(head) >= 5:  # a mapping's first line
                inside = line.rstrip().endswith(".dawg")
                mapped = mapped or inside
            elif inside and line.startswith(("Private_Clean:", "Private_Dirty:")):
                private += int(line.split()[1])
    return private / 1024 if mapped else None


def children(pid: int) -> list[int]:
    try:
        with open(f"/proc/{pid}/task/{pid}/children", encoding="ascii") as listing:
            return sorted(int(p) for p in listing.read().split())
    except OSError:
        return []


def _env(folder: Path, states: Path) -> dict[str, str]:
    keep = {k: v for k, v in os.environ.items() if not k.startswith(("DJANGO_", "DIAMINO_"))}
    for name in ("DATABASE_URL", "REDIS_URL"):
        keep.pop(name, None)
    return {
        **keep,
        "DJANGO_SETTINGS_MODULE": "diamino_site.settings",
        "DJANGO_DEBUG": "0",
        "DJANGO_SECRET_KEY": "bench-" + secrets.token_urlsafe(40),
        "DJANGO_ALLOWED_HOSTS": "127.0.0.1,localhost",
        "DJANGO_SECURE_COOKIES": "0",
        "DJANGO_SSL_REDIRECT": "0",
        "DJANGO_LOG_LEVEL": "WARNING",
        "DIAMINO_DATA_DIR": str(folder / "data"),
        "BENCH_HINT_STATES": str(states),
        "BENCH_HINT_FOLDER": str(folder),
        "PYTHONPATH": str(ROOT),
    }


def _wait(what: str, ready: Callable[[], object], timeout: float = 120) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if ready():
            return
        time.sleep(0.3)
    raise RuntimeError(f"{what} not ready within {timeout:.0f} s")


@contextmanager
def _started(command: Sequence[str], env: dict[str, str], log: Path) -> Iterator[subprocess.Popen]:
    with open(log, "wb") as out:
        process = subprocess.Popen(command, cwd=ROOT, env=env, stdout=out, stderr=subprocess.STDOUT)
    try:
        yield process
    finally:
        stop(process, timeout=30)


def _all_mapped(pids: list[int], count: int) -> bool:
    return len(pids) == count and all(dawg_private_mb(p) is not None for p in pids)


def site_processes(states: Path) -> list[Processes]:
    """gunicorn (4 workers) and Celery (2 prefork processes), one hint each."""
    bin_dir = Path(sys.executable).parent
    with tempfile.TemporaryDirectory(prefix="diamino-coldstart-") as name:
        folder = Path(name)
        for sub in ("data", "queue", "done", "control"):
            (folder / sub).mkdir()
        env = _env(folder, states)
        port = free_port()
        web_command = [str(bin_dir / "gunicorn"), "benchmarks.hintserver:application"]
        web_command += ["-w", str(WEB_WORKERS), "-b", f"127.0.0.1:{port}", "--timeout", "120"]
        celery_command = [str(bin_dir / "celery"), "-A", "benchmarks.hintserver", "worker"]
        celery_command += ["-c", str(CELERY_PROCESSES), "-P", "prefork", "-l", "WARNING"]
        with (
            _started(web_command, env, folder / "gunicorn.log") as web,
            _started(celery_command, env, folder / "celery.log") as worker,
        ):
            # Started: each web worker and the Celery parent has mapped the DAWG.
            _wait("gunicorn", lambda: _all_mapped(children(web.pid), WEB_WORKERS))
            _wait("celery", lambda: _all_mapped([worker.pid], 1))
            _wait("celery's pool", lambda: len(children(worker.pid)) == CELERY_PROCESSES)
            time.sleep(2)
            web_pids, pool_pids = children(web.pid), children(worker.pid)
            web_before = [uss_mb(p) for p in web_pids]
            pool_before = [uss_mb(p) for p in pool_pids]
            url = f"http://127.0.0.1:{port}/_bench/hint?i=0"
            with urllib.request.urlopen(url, timeout=120) as reply:
                web_answer = json.loads(reply.read())
            subprocess.run(
                [sys.executable, "-c", "from benchmarks.hintserver import hint; hint.delay(0)"],
                cwd=ROOT,
                env=env,
                check=True,
                timeout=120,
                capture_output=True,
            )
            _wait("the Celery hint", lambda: any(folder.glob("answer-*.json")))
            pool_answer = json.loads(next(folder.glob("answer-*.json")).read_text())
            time.sleep(1)
            web_after = [uss_mb(p) for p in web_pids]
            pool_after = [uss_mb(p) for p in pool_pids]
            web_dawg = dawg_private_mb(web_answer["pid"])
            pool_dawg = dawg_private_mb(pool_answer["pid"])
    return [
        Processes(
            f"gunicorn worker (of {WEB_WORKERS})",
            web_before,
            web_after,
            web_pids.index(web_answer["pid"]),
            web_answer["s"],
            web_dawg,
        ),
        Processes(
            f"Celery prefork process (of {CELERY_PROCESSES})",
            pool_before,
            pool_after,
            pool_pids.index(pool_answer["pid"]),
            pool_answer["s"],
            pool_dawg,
        ),
    ]


def run(states: Sequence[GameState]) -> ColdStart:
    failures: list[str] = []
    with tempfile.TemporaryDirectory(prefix="diamino-states-") as name:
        path = Path(name) / "states.json"
        path.write_text(json.dumps([state_to_dict(s) for s in states]), encoding="utf-8")
        fresh = fresh_hints(ROOT, path, min(COLD_POSITIONS, len(states)))
        speed, reference_speed = [], []
        reference = None
        with reference_tree() as old:
            if old is None:
                failures.append(f"the reference commit {REFERENCE} is not in this clone")
            else:
                reference = fresh_hints(old, path, min(REFERENCE_POSITIONS, len(states)))
                for _ in range(SPEED_ROUNDS):
                    reference_speed.append(float(_python(old, "speed", str(path))["median_ms"]))
                    speed.append(float(_python(ROOT, "speed", str(path))["median_ms"]))
        try:
            processes = site_processes(path)
        except (OSError, RuntimeError, subprocess.SubprocessError) as exc:
            failures.append(f"the site's processes: {type(exc).__name__}: {exc}")
            processes = []
    return ColdStart(
        fresh, reference, processes, speed, reference_speed, len(states), failures=failures
    )


def targets(cold: ColdStart) -> list[tuple[str, str, bool]]:
    """The report's target rows: (target, this run's figure, met)."""
    rows = [
        (
            f"First hint in a fresh interpreter (12-tile hand, mid-game), median "
            f"< {FIRST_HINT_TARGET_S:g} s",
            f"{statistics.median(cold.fresh.first_s):.3f} s CPU",
            statistics.median(cold.fresh.first_s) < FIRST_HINT_TARGET_S,
        )
    ]
    for p in cold.processes:
        rows.append(
            (
                f"A {p.kind.split(' (')[0]} that answered a hint: private memory "
                f"< {PRIVATE_TARGET_MB:g} MB above one that did not",
                f"{p.excess_mb:+.1f} MB",
                p.excess_mb < PRIVATE_TARGET_MB,
            )
        )
    ratio = cold.speed_ratio
    if ratio is not None:
        rows.append(
            (
                f"Move generator speed within {SPEED_TOLERANCE:.0%} of {REFERENCE}'s "
                "(the DAWG in dicts), same run",
                f"{ratio:.2f} × its median time",
                ratio <= 1 + SPEED_TOLERANCE,
            )
        )
    return rows


def _fresh_row(name: str, f: Fresh) -> tuple[object, ...]:
    over = [a - b for a, b in zip(f.first_s, f.warm_s, strict=True)]
    return (
        name,
        len(f.first_s),
        f"{statistics.median(f.first_s):.3f}",
        f"{max(f.first_s):.3f}",
        f"{statistics.median(f.warm_s):.3f}",
        f"{statistics.median(over):.3f}",
        f"{statistics.median(f.first_wall_s):.3f}",
        f"{f.import_s:.2f}",
        f"{f.uss_growth_mb:.1f}",
        f"{f.dirty_growth_mb:.1f}",
    )


def blocks(cold: ColdStart) -> dict[str, str]:
    """The cold start's generated tables (the prose is in docs/PERFORMANCE.md)."""
    rows = [_fresh_row("This tree (DAWG mapped)", cold.fresh)]
    if cold.reference is not None:
        rows.append(_fresh_row(f"{REFERENCE} (DAWG built in dicts)", cold.reference))
    fresh = table(
        "Code | Positions | First call, median (s) | First call, max (s) "
        "| Second call, median (s) | First minus second, median (s) "
        "| First call, wall, median (s) | Import (s) | USS growth (MB) "
        "| of which private dirty (MB)",
        rows,
        "lrrrrrrrrr",
    )
    processes = table(
        "Process | USS before (MB) | USS after (MB) | Hinted | Hint (s, wall) | Excess (MB) "
        "| Private pages of its DAWG mapping (MB)",
        [
            (
                p.kind,
                " / ".join(f"{m:.1f}" for m in p.before),
                " / ".join(f"{m:.1f}" for m in p.after),
                f"#{p.hinted + 1}",
                f"{p.hint_s:.2f}",
                f"{p.excess_mb:+.1f}",
                "–" if p.dawg_private_mb is None else f"{p.dawg_private_mb:.1f}",
            )
            for p in cold.processes
        ],
        "lllrrrr",
    )
    speed = table(
        "Code | Median per round (ms)",
        [
            ("This tree (packed cells, mapped)", " / ".join(f"{m:.1f}" for m in cold.speed_ms)),
            (f"{REFERENCE} (dicts)", " / ".join(f"{m:.1f}" for m in cold.reference_speed_ms)),
        ],
    )
    notes = "".join(f"\n\n**Not measured: {why}.**" for why in cold.failures)
    return {
        "coldstart-fresh": fresh,
        "coldstart-processes": processes + notes,
        "coldstart-speed": speed,
    }
