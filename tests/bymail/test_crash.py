"""The `make mail-in` process killed after it acknowledged a reply and before it played it.

A real process (``manage.py mail_in``) on its own port, against the test
database (PostgreSQL: the test database itself; SQLite: a file copy of the
in-memory test database, since another process cannot open that), killed with
SIGKILL once it has answered 250: the reply is in the database, unplayed. Started
again, it processes what was left, and the sender's retry of the same message
is acknowledged without being played a second time.
"""

from __future__ import annotations

import os
import signal
import smtplib
import socket
import sqlite3
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from django.conf import settings
from django.db import connection

from tests.bymail.conftest import DOMAIN, address_of, reply

PORT = 2683
ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def database(game, tmp_path) -> Iterator[tuple[str, object]]:
    """A DATABASE_URL another process can open, holding the game, and a query function."""
    if connection.vendor == "postgresql":
        params = connection.settings_dict
        url = (
            f"postgres://{params['USER']}:{params['PASSWORD'] or ''}@{params['HOST'] or '127.0.0.1'}"
            f":{params['PORT'] or 5432}/{params['NAME']}"
        )

        def query(sql: str) -> list[tuple]:
            with connection.cursor() as cursor:
                cursor.execute(sql)
                return list(cursor.fetchall())

        yield url, query
        return
    path = tmp_path / "copy.sqlite3"
    connection.ensure_connection()
    target = sqlite3.connect(path)
    connection.connection.backup(target)
    target.close()

    def query_file(sql: str) -> list[tuple]:
        with sqlite3.connect(path) as db:
            return list(db.execute(sql).fetchall())

    yield f"sqlite:///{path}", query_file


def start(url: str, tmp_path: Path, *options: str) -> subprocess.Popen:
    env = {
        **os.environ,
        "DATABASE_URL": url,
        "REDIS_URL": "",
        "DJANGO_SECRET_KEY": settings.SECRET_KEY,
        "MAIL_IN_DOMAIN": DOMAIN,
        "DIAMINO_DATA_DIR": str(tmp_path),
        "DJANGO_EMAIL_BACKEND": "django.core.mail.backends.filebased.EmailBackend",
    }
    process = subprocess.Popen(
        [sys.executable, "manage.py", "mail_in", "--port", str(PORT), *options],
        cwd=ROOT,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
    )
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        assert process.poll() is None, process.stdout.read().decode() if process.stdout else ""
        try:
            socket.create_connection(("127.0.0.1", PORT), timeout=0.5).close()
            return process
        except OSError:
            time.sleep(0.1)
    process.kill()
    raise AssertionError("manage.py mail_in did not start")


def test_killed_after_acknowledging_then_restarted_the_move_is_played_once(
    game, database, tmp_path
):
    url, query = database
    message = reply("H8 CHAT", to=address_of(game, 0), message_id="<crash@client.example.com>")
    # --store-only: this run acknowledges and never processes, as a crash right after the
    # 250 would leave it. SIGKILL: no clean shutdown either.
    server = start(url, tmp_path, "--store-only")
    try:
        with smtplib.SMTP("127.0.0.1", PORT, timeout=10) as client:
            refused = client.send_message(message, to_addrs=[message["To"]])
            assert refused == {}
    finally:
        server.send_signal(signal.SIGKILL)
        server.wait(timeout=10)
    assert query("SELECT state FROM bymail_inboundmessage") == [("received",)]
    assert query(f"SELECT move_count FROM games_game WHERE id = {game.pk}") == [(0,)]

    server = start(url, tmp_path)  # started again: what was stored is processed first
    try:
        with smtplib.SMTP("127.0.0.1", PORT, timeout=10) as client:
            client.send_message(message, to_addrs=[message["To"]])  # the sender's retry
            code, _ = client.noop()
            assert code == 250
    finally:
        server.send_signal(signal.SIGTERM)
        output = server.communicate(timeout=20)[0].decode()
    assert query("SELECT state FROM bymail_inboundmessage") == [("played",)], output
    assert query(f"SELECT move_count FROM games_game WHERE id = {game.pk}") == [(1,)]
    assert query("SELECT count(*) FROM games_move") == [(1,)]
    # One answer written, once: "move played".
    assert query("SELECT count(*) FROM notifications_notification WHERE kind = 'mail-answer'") == [
        (1,)
    ]


def test_beside_another_process_holding_sqlites_write_lock_the_reply_waits_and_is_stored(
    game, database, tmp_path
):
    """`make mail-in` beside `make run` on one SQLite file: a write in progress there
    (here: a transaction holding the write lock for two seconds) delays the 250; it
    loses nothing and refuses nothing."""
    if connection.vendor != "sqlite":
        pytest.skip("the shared SQLite file of the embedded default")
    url, query = database
    path = url.removeprefix("sqlite:///")
    message = reply("H8 CHAT", to=address_of(game, 0))
    server = start(url, tmp_path)
    try:
        web = sqlite3.connect(path, isolation_level=None, timeout=20, check_same_thread=False)
        web.execute("BEGIN IMMEDIATE")  # what a move on the site holds while it commits
        web.execute("UPDATE games_game SET days_per_move = days_per_move WHERE id = ?", (game.pk,))
        began = time.monotonic()
        sender = threading.Timer(2.0, lambda: web.execute("COMMIT"))
        sender.start()
        try:
            with smtplib.SMTP("127.0.0.1", PORT, timeout=30) as client:
                assert client.send_message(message, to_addrs=[message["To"]]) == {}
        except smtplib.SMTPException:
            server.send_signal(signal.SIGTERM)
            raise AssertionError(server.communicate(timeout=20)[0].decode()) from None
        assert time.monotonic() - began >= 1.5, "it waited for the lock, then stored"
        sender.join()
        web.close()
    finally:
        server.send_signal(signal.SIGTERM)
        output = server.communicate(timeout=20)[0].decode()
    assert query("SELECT state FROM bymail_inboundmessage") == [("played",)], output
    assert query(f"SELECT move_count FROM games_game WHERE id = {game.pk}") == [(1,)]
