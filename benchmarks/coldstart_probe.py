"""What ``benchmarks.coldstart`` runs in a fresh interpreter, on one tree of ``rules``.

Run by path with ``PYTHONPATH`` naming the tree (this checkout, or the
reference commit's ``rules`` extracted by the benchmark), so it imports
nothing of ``benchmarks``::

    python benchmarks/coldstart_probe.py hint STATES.json INDEX   # first and second hint
    python benchmarks/coldstart_probe.py speed STATES.json        # generate() on every state

Prints one JSON object.
"""

from __future__ import annotations

import gc
import json
import statistics
import sys
import time
from pathlib import Path

REPEATS = 3


def memory_mb() -> dict[str, float]:
    """This process's resident and private memory (``/proc/self/smaps_rollup``), in MB."""
    fields: dict[str, float] = {}
    with open("/proc/self/smaps_rollup", encoding="ascii") as rollup:
        for line in rollup:
            name, _, value = line.partition(":")
            if value.strip().endswith("kB"):
                fields[name] = int(value.split()[0]) / 1024
    return {
        "rss": fields["Rss"],
        "uss": fields["Private_Clean"] + fields["Private_Dirty"],
        "private_dirty": fields["Private_Dirty"],
    }


def hint(states: Path, index: int) -> dict[str, object]:
    started = time.perf_counter()
    from rules import view
    from rules.serialize import state_from_dict
    from rules.strategy import best_moves

    state = state_from_dict(json.loads(states.read_text(encoding="utf-8"))[index])
    imported = time.perf_counter() - started
    seen = view(state, state.turn)
    gc.collect()
    before = memory_mb()
    start, cpu = time.perf_counter(), time.process_time()
    first = best_moves(seen)
    first_s, first_cpu_s = time.perf_counter() - start, time.process_time() - cpu
    gc.collect()
    after = memory_mb()
    start, cpu = time.perf_counter(), time.process_time()
    again = best_moves(seen)
    warm_s, warm_cpu_s = time.perf_counter() - start, time.process_time() - cpu
    assert [s.notation for s in first] == [s.notation for s in again]
    return {
        "import_s": imported,
        "first_s": first_s,
        "first_cpu_s": first_cpu_s,
        "warm_s": warm_s,
        "warm_cpu_s": warm_cpu_s,
        "best": first[0].notation,
        "before": before,
        "after": after,
    }


def speed(states: Path) -> dict[str, object]:
    from rules import view
    from rules.movegen import generate, position
    from rules.serialize import state_from_dict

    positions = [
        position(view(s, s.turn))
        for s in (state_from_dict(d) for d in json.loads(states.read_text(encoding="utf-8")))
    ]
    generate(positions[0])  # the DAWG ready, whatever it costs: only searches are timed
    times = []
    for pos in positions:
        best = float("inf")
        for _ in range(REPEATS):
            gc.collect()
            start = time.process_time()
            generate(pos)
            best = min(best, time.process_time() - start)
        times.append(best * 1000)
    return {"median_ms": statistics.median(times), "total_ms": sum(times), "ms": times}


if __name__ == "__main__":
    command, path = sys.argv[1], Path(sys.argv[2])
    result = hint(path, int(sys.argv[3])) if command == "hint" else speed(path)
    print(json.dumps(result))
