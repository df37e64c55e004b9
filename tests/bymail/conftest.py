"""A game, the SMTP server of `make mail-in` started on a test port, replies shaped as clients send them.

The server runs in a thread of the test process (``bymail.smtp.controller``)
and talks to the test database over its own connection, so these tests commit
(``transactional_db``): the server sees the game, the test sees what it stored.
"""

from __future__ import annotations

import smtplib
import time
from collections.abc import Callable, Iterator
from email.message import EmailMessage
from email.utils import make_msgid

import pytest
from aiosmtpd.controller import Controller
from django.core import mail
from django.db import connections

from accounts.models import User
from bymail.models import InboundMessage
from bymail.smtp import controller
from games.models import Game
from games.reply_address import reply_address
from tests.bymail.imap_server import ImapServer, Mailbox
from tests.factories import make_player
from tests.games.conftest import seat_at
from tests.notifications.conftest import new_game
from tests.ports import free_port

# Free ports, taken once per process: parallel workers each run their own servers.
SMTP_PORT = free_port()
IMAP_PORT = free_port()
DOMAIN = "play.example.org"
# The mailbox of the test IMAP server (``imap`` below), user and password URL-quoted.
IMAP_URL = f"imap://diamino%40example.org:sesame%20ouvre%21@127.0.0.1:{IMAP_PORT}/INBOX"


@pytest.fixture(autouse=True)
def mail_in_settings(settings) -> None:
    settings.MAIL_IN_DOMAIN = DOMAIN
    settings.MAIL_IN_ENABLED = True
    settings.MAIL_IN_SWEEP_AFTER = 0


@pytest.fixture
def players(transactional_db) -> tuple[User, User]:
    return (
        make_player("alice", language="en", email="Alice@Example.com"),
        make_player("bob", language="fr"),
    )


@pytest.fixture
def game(players) -> Game:
    """Alice (position 0) holds CHATEAUXSIRN and plays first; Bob LEPOTIERMANU."""
    game = new_game([players[1], players[0]])
    assert seat_at(game, 0).player == players[0]
    mail.outbox.clear()
    return game


@pytest.fixture
def box() -> Mailbox:
    return Mailbox("diamino@example.org", "sesame ouvre!")


@pytest.fixture
def imap(box) -> Iterator[Mailbox]:
    """The small real IMAP server (``imap_server.py``) serving ``box`` at IMAP_URL."""
    with ImapServer(IMAP_PORT, box):
        yield box


_running: list[Controller] = []


@pytest.fixture
def smtp_server(transactional_db) -> Iterator[Controller]:
    server = controller("127.0.0.1", SMTP_PORT)
    server.start()
    _running.append(server)
    try:
        yield server
    finally:
        _running.remove(server)
        server.stop()
        # The server's database thread keeps its connection (CONN_MAX_AGE): close it, or
        # PostgreSQL's test database cannot be dropped at the end of the session.
        server.handler.executor.submit(connections.close_all).result(timeout=30)
        server.handler.executor.shutdown(wait=True)


def drain() -> None:
    """Wait until the server's database thread has done what it was given.

    The thread is the server's only one for the database, first in first out:
    once a no-op put behind the store and the processing has run, both are done.
    (Polling the database instead would race the server's writes on SQLite's
    shared in-memory test database, which locks tables rather than waiting.)
    """
    for server in _running:
        server.handler.executor.submit(lambda: None).result(timeout=30)


def address_of(game: Game, position: int, version: int | None = None) -> str:
    game.refresh_from_db()
    return reply_address(seat_at(game, position), game.move_count if version is None else version)


def reply(
    body: str,
    *,
    to: str,
    sender: str = "Alice <alice@example.com>",
    subject: str = "Re: [Diamino] Your turn — Game 1",
    message_id: str | None = None,
    cte: str | None = None,
    html: str | None = None,
    headers: dict[str, str] | None = None,
) -> EmailMessage:
    """A reply as a mail client writes it: text (or HTML only when ``body`` is "")."""
    message = EmailMessage()
    message["From"] = sender
    message["To"] = to
    message["Subject"] = subject
    message["Message-ID"] = message_id or make_msgid(domain="client.example.com")
    message["In-Reply-To"] = "<turn-1@diamino.example.org>"
    for name, value in (headers or {}).items():
        message[name] = value
    if body:
        message.set_content(body, cte=cte) if cte else message.set_content(body)
        if html:
            message.add_alternative(html, subtype="html")
    else:
        assert html is not None
        message.set_content(html, subtype="html", cte=cte) if cte else message.set_content(
            html, subtype="html"
        )
    return message


def send(message: EmailMessage, *, envelope_from: str | None = None) -> None:
    """Hand ``message`` to the test SMTP server, as the site's mail server would."""
    with smtplib.SMTP("127.0.0.1", SMTP_PORT, timeout=10) as client:
        client.send_message(
            message,
            from_addr=envelope_from if envelope_from is not None else message["From"],
            to_addrs=[message["To"]],
        )


def wait_until(check: Callable[[], bool], timeout: float = 15.0) -> None:
    deadline = time.monotonic() + timeout
    while not check():
        if time.monotonic() > deadline:
            raise AssertionError("timed out waiting for the mail-in server")
        time.sleep(0.05)


def processed(message: EmailMessage) -> InboundMessage:
    """The stored row of ``message``, once the server has processed it."""
    drain()
    return InboundMessage.objects.get(message_id=str(message["Message-ID"]))


def answers_to(address: str) -> list[mail.EmailMessage]:
    return [m for m in mail.outbox if address.lower() in [a.lower() for a in m.to]]
