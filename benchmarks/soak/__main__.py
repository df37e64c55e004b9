"""``python -m benchmarks.soak`` (``make soak``): the soak, its summary on stdout.

``SOAK_MINUTES`` (60; 5 for a quick look), ``SOAK_PLAYERS`` (200, a multiple
of 50) or ``SOAK_TABLES`` (``2x2``: two tables of two), ``SOAK_FAULTS`` (a
comma-separated subset of ``benchmarks.soak.stack.FAULTS``),
``SOAK_FAULT_GAP`` (the mean seconds between faults), ``SOAK_REDIS_SECONDS``,
``SOAK_SMTP_SECONDS`` and ``SOAK_PUSH_SECONDS`` (how long those faults last), ``SOAK_DRAIN_MINUTES``
(how long the outbox may take to drain at the end, 15). For small runs:
``SOAK_ROUNDS`` (games per table), ``SOAK_PREMOVES`` (16), ``SOAK_MAIL_SHARE``
and ``SOAK_PUSH_SHARE`` (0.1 each: the players by email, those with a push
device), ``SOAK_THINK_SCALE`` (the players' pauses times this), ``SOAK_FIRST_FAULT``
(seconds), ``SOAK_SEED``; ``SOAK_DATABASE_URL`` where initdb is missing (a
``diamino_soak…`` database on the machine's PostgreSQL, dropped at the end).
``SOAK_HOSTS=1``: the two web processes, the worker and beat each on a host of
its own (network namespaces the command makes and deletes, ``hosts.py``; root
only, and initdb needed).
The summary is also written to ``data/soak/last-run.txt``, the logs to
``data/soak/logs/``. Exits 1 on any loss or double (a move, an email, a push,
a reply), 2 when
the stack could not run.
"""

from __future__ import annotations

import os
import sys
import traceback

from benchmarks.soak import SoakConfig, hosts, run
from benchmarks.web.stack import ROOT, ServiceUnavailable


def main() -> int:
    config = SoakConfig.from_env()
    prefix = os.environ.get(hosts.ENV_NAME, "")
    if config.hosts and not prefix:
        return hosts.run_outside()  # makes the namespaces, runs this again in them
    try:
        result = run(config, hosts.Plan(prefix) if config.hosts else None)
    except ServiceUnavailable as exc:
        print(f"soak: cannot run: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("soak: interrupted; its processes and servers are stopped", file=sys.stderr)
        return 130
    except Exception:
        traceback.print_exc()
        return 2
    text = result.text()
    print(text, flush=True)
    saved = ROOT / "data" / "soak" / "last-run.txt"
    saved.parent.mkdir(parents=True, exist_ok=True)
    saved.write_text(text + "\n", encoding="utf-8")
    return result.status


if __name__ == "__main__":
    sys.exit(main())
