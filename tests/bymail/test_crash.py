"""Mail-in processes killed with SIGKILL mid-way, then run again: every reply is played once.

Real processes against the test database (PostgreSQL: the test database
itself; SQLite: a file copy of the in-memory test database, since another
process cannot open that).

- ``manage.py mail_in`` on its own port, killed once it has answered 250: the
  reply is in the database, unplayed. Started again, it processes what was
  left, and the sender's retry of the same message is acknowledged without
  being played a second time.
- ``manage.py imap_fetch`` against the small real IMAP server of the tests
  (``imap_server.py``, in this process), killed while the server holds its
  ``UID STORE +FLAGS (\\Seen)`` unanswered (the reply stored, played or not)
  or its ``UID FETCH`` (nothing stored yet). A second fetch plays the reply
  once: one row, one move, one answer to the player, the message flagged seen.
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
from email import message_from_bytes
from pathlib import Path

import pytest
from django.conf import settings
from django.db import connection

from tests.bymail.conftest import DOMAIN, IMAP_URL, address_of, reply
from tests.bymail.imap_server import Mailbox
from tests.ports import free_port

PORT = free_port()  # the mail_in command this file starts listens here
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


def environment(url: str, tmp_path: Path) -> dict[str, str]:
    """The other process's: the test database, eager tasks, mail written to tmp_path/mail."""
    return {
        **os.environ,
        "DATABASE_URL": url,
        "REDIS_URL": "",
        "DJANGO_SECRET_KEY": settings.SECRET_KEY,
        "MAIL_IN_DOMAIN": DOMAIN,
        "MAIL_IN_IMAP_URL": IMAP_URL,
        "DIAMINO_DATA_DIR": str(tmp_path),
        "DJANGO_EMAIL_BACKEND": "django.core.mail.backends.filebased.EmailBackend",
    }


def start(url: str, tmp_path: Path, *options: str) -> subprocess.Popen:
    process = subprocess.Popen(
        [sys.executable, "manage.py", "mail_in", "--port", str(PORT), *options],
        cwd=ROOT,
        env=environment(url, tmp_path),
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


def imap_fetch(url: str, tmp_path: Path, *options: str) -> subprocess.Popen:
    """``manage.py imap_fetch`` started against the test IMAP server (the ``imap`` fixture)."""
    return subprocess.Popen(
        [sys.executable, "manage.py", "imap_fetch", *options],
        cwd=ROOT,
        env=environment(url, tmp_path),
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
    )


def killed_where_it_stalls(process: subprocess.Popen, box: Mailbox) -> None:
    """SIGKILL ``process`` once the IMAP server holds one of ``box.stall_on`` unanswered."""
    try:
        deadline = time.monotonic() + 60
        while not box.stalled.wait(timeout=0.1):
            if process.poll() is not None or time.monotonic() > deadline:
                output = process.stdout.read().decode() if process.stdout else ""
                raise AssertionError(f"the fetch never reached {box.stall_on}:\n{output}")
    finally:
        process.send_signal(signal.SIGKILL)
        process.wait(timeout=10)
    box.stall_on = set()


def fetched_to_the_end(url: str, tmp_path: Path) -> str:
    process = imap_fetch(url, tmp_path)
    output = process.communicate(timeout=60)[0].decode()
    assert process.returncode == 0, output
    return output


def emails_to(tmp_path: Path, address: str) -> list[str]:
    """The subjects of the emails the other processes sent to ``address`` (tmp_path/mail)."""
    subjects = []
    for path in sorted((tmp_path / "mail").glob("*")):
        # The file backend writes each message followed by a line of 79 dashes.
        for chunk in path.read_bytes().split(b"\n" + b"-" * 79 + b"\n"):
            if chunk.strip():
                message = message_from_bytes(chunk)
                if address.lower() in str(message["To"]).lower():
                    subjects.append(str(message["Subject"]))
    return subjects


def assert_played_once(query, game, tmp_path: Path, box: Mailbox, uid: int, output: str) -> None:
    assert "\\Seen" in box.flags_of(uid), output
    assert query("SELECT via, state FROM bymail_inboundmessage") == [("imap", "played")], output
    assert query(f"SELECT move_count FROM games_game WHERE id = {game.pk}") == [(1,)]
    assert query("SELECT count(*) FROM games_move") == [(1,)]
    assert query("SELECT count(*) FROM notifications_notification WHERE kind = 'mail-answer'") == [
        (1,)
    ]
    (answer,) = emails_to(tmp_path, "alice@example.com")  # one answer, not two
    assert "Your move was played in game" in answer


def test_imap_fetch_killed_after_playing_before_flagging_seen_then_run_again_plays_once(
    game, database, imap, tmp_path
):
    url, query = database
    uid = imap.append(reply("H8 CHAT", to=address_of(game, 0)).as_bytes())
    imap.stall_on = {b"STORE"}  # the fetch stops at its \\Seen flag, and is killed there
    killed_where_it_stalls(imap_fetch(url, tmp_path), imap)
    assert "\\Seen" not in imap.flags_of(uid)
    # Stored and played (eager processing, once stored), then killed: unseen in the mailbox.
    assert query("SELECT state FROM bymail_inboundmessage") == [("played",)]
    assert len(emails_to(tmp_path, "alice@example.com")) == 1

    output = fetched_to_the_end(url, tmp_path)  # the next fetch finds it unseen again
    assert "0 new message(s) stored" in output  # stored already: only flagged now
    assert_played_once(query, game, tmp_path, imap, uid, output)


def test_imap_fetch_killed_after_storing_before_playing_then_run_again_plays_once(
    game, database, imap, tmp_path
):
    url, query = database
    uid = imap.append(reply("H8 CHAT", to=address_of(game, 0)).as_bytes())
    imap.stall_on = {b"STORE"}
    # --store-only: stored and not processed, as a kill right after the commit leaves it.
    killed_where_it_stalls(imap_fetch(url, tmp_path, "--store-only"), imap)
    assert query("SELECT state FROM bymail_inboundmessage") == [("received",)]
    assert query(f"SELECT move_count FROM games_game WHERE id = {game.pk}") == [(0,)]
    assert "\\Seen" not in imap.flags_of(uid)

    output = fetched_to_the_end(url, tmp_path)  # the stored row is played now, not stored again
    assert "0 new message(s) stored" in output
    assert_played_once(query, game, tmp_path, imap, uid, output)


def test_imap_fetch_killed_before_storing_then_run_again_plays_once(game, database, imap, tmp_path):
    url, query = database
    uid = imap.append(reply("H8 CHAT", to=address_of(game, 0)).as_bytes())
    imap.stall_on = {b"FETCH"}  # killed waiting for the message's bytes
    killed_where_it_stalls(imap_fetch(url, tmp_path), imap)
    assert query("SELECT count(*) FROM bymail_inboundmessage") == [(0,)]
    assert "\\Seen" not in imap.flags_of(uid)

    output = fetched_to_the_end(url, tmp_path)
    assert "1 new message(s) stored" in output
    assert_played_once(query, game, tmp_path, imap, uid, output)
