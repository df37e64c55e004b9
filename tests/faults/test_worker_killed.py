"""A Celery worker killed (SIGKILL) in the middle of sending an email: it is sent once, later.

The worker claimed the outbox row and had begun the SMTP exchange when it died:
the row stays claimed (``sending``), nothing is lost, and once the claim's lease
has run out the sweep queues it again and another worker sends it: one copy,
with the same Message-ID. The other email, still in the queue, is sent once
too. On the private PostgreSQL (``postgres_server.py``) and the Redis database
of ``REDIS_URL``.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
import redis
from django.conf import settings

from benchmarks.web import stack
from tests.faults.postgres_server import (  # noqa: F401 (the fixtures, and those they use)
    ROOT,
    Site,
    faults_data_dir,
    make_site,
    migrated_template,
    postgres_server,
    site_env,
)
from tests.notifications.test_worker import wait_for

pytestmark = pytest.mark.services

UNACKED = "unacked"  # kombu's Redis transport: deliveries not yet acknowledged, by tag


@contextmanager
def worker(env: dict[str, str], log: Path) -> Iterator[subprocess.Popen[bytes]]:
    """``celery worker`` in one process (solo pool: the process that sends is the one killed)."""
    command = [sys.executable, "-m", "celery", "-A", "diamino_site", "worker", "-P", "solo"]
    command += ["--without-mingle", "--without-gossip", "--without-heartbeat", "-l", "INFO"]
    command += ["-n", f"faults-{log.stem}@%h"]
    with open(log, "wb") as out:
        process = subprocess.Popen(command, cwd=ROOT, env=env, stdout=out, stderr=subprocess.STDOUT)
    try:
        yield process
    finally:
        stack.stop(process, timeout=30)


def sent_files(mail: Path) -> list[str]:
    return [path.read_text() for path in sorted(mail.glob("*.log"))]


def forget(broker: redis.Redis, deliveries: set[bytes | str]) -> None:
    broker.hdel(UNACKED, *deliveries)
    broker.zrem(UNACKED + "_index", *deliveries)


def test_a_worker_killed_mid_send_leaves_the_email_queued_and_it_is_sent_once_later(
    postgres_server,  # noqa: F811 (the fixtures imported above)
    migrated_template,  # noqa: F811
    tmp_path,
    request,
) -> None:
    assert settings.REDIS_URL is not None
    extra = {
        "REDIS_URL": settings.REDIS_URL,
        "DJANGO_EMAIL_BACKEND": "tests.faults.held_mail.HeldFileBackend",
    }
    env = site_env(postgres_server.url("postgres"), tmp_path, **extra)
    purge = [sys.executable, "-m", "celery", "-A", "diamino_site", "purge", "-f"]
    subprocess.run(purge, cwd=ROOT, env=env, check=True, capture_output=True, timeout=60)
    mail = tmp_path / "mail"
    mail.mkdir()
    (mail / "HOLD").touch()
    # Two players start a game: two emails in the outbox, two messages in the queue.
    site: Site = make_site(postgres_server, migrated_template, tmp_path, **extra)

    broker = redis.Redis.from_url(settings.REDIS_URL)
    unacked = set(broker.hkeys(UNACKED))
    with worker(site.env, tmp_path / "first.log") as first:
        log = tmp_path / "first.log"
        assert wait_for(lambda: (mail / "SENDING").exists(), timeout=60), log.read_text()
        first.send_signal(signal.SIGKILL)  # mid-send: claimed, the SMTP exchange begun
        first.wait(timeout=10)
    # Its message stays unacknowledged in Redis, handed out again after an hour
    # (the visibility timeout): to a worker of some later test, on another
    # database whose row of that id it would send. Forget it once done here.
    dead = set(broker.hkeys(UNACKED)) - unacked
    assert dead
    request.addfinalizer(lambda: forget(broker, dead))
    rows = site.run("outbox")["rows"]
    assert sorted(row["status"] for row in rows) == ["pending", "sending"]
    assert sent_files(mail) == []
    held = next(row for row in rows if row["status"] == "sending")

    (mail / "HOLD").unlink()
    assert site.run("expire-leases") == {"moved": 1}  # rather than wait ten minutes
    with worker(site.env, tmp_path / "second.log"):
        assert site.run("sweep")["queued"] >= 1  # beat's sweep: the row whose sender died

        def all_sent() -> bool:
            return {row["status"] for row in site.run("outbox")["rows"]} == {"sent"}

        assert wait_for(all_sent, timeout=90), (tmp_path / "second.log").read_text()
        time.sleep(2)  # nothing more arrives
    sent = sent_files(mail)
    rows = site.run("outbox")["rows"]
    assert len(sent) == len(rows) == 2
    for row in rows:  # each email once
        assert sum(row["message_id"] in text for text in sent) == 1, row
    assert next(r for r in rows if r["id"] == held["id"])["attempts"] == 2
    assert os.path.exists(mail / "SENDING")  # the first worker really was mid-send
