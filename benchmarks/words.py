"""Word-list figures: ``rules.wordlist.bench()`` in a fresh interpreter."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def wordlist_bench() -> dict[str, object]:
    """Load time, lookups per second and extra RSS of a first load, measured in a
    new process so nothing is cached and the memory figure is not polluted."""
    out = subprocess.run(
        [sys.executable, "-m", "rules.wordlist", "bench"],
        cwd=ROOT,
        check=True,
        capture_output=True,
        text=True,
        timeout=90,
    )
    return json.loads(out.stdout)
