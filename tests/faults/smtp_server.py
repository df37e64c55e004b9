"""A real SMTP server in the test (aiosmtpd): it accepts, refuses with 451, or is not there.

``refusing = True`` answers every ``MAIL FROM`` with ``451 4.3.0`` (smtplib
raises ``SMTPSenderRefused``, as in issue 25); ``stop()`` closes the port
(connection refused) and ``start()`` opens it again on the same port.
"""

from __future__ import annotations

from collections.abc import Iterator
from email import message_from_bytes
from email.message import Message

import pytest
from aiosmtpd.controller import Controller

from tests.faults.redis_server import free_port


class SmtpServer:
    def __init__(self) -> None:
        self.port = free_port()
        self.refusing = False
        self.received: list[Message] = []
        self.refused = 0
        self._controller: Controller | None = None

    # aiosmtpd handler hooks
    async def handle_MAIL(self, server, session, envelope, address, mail_options) -> str:
        if self.refusing:
            self.refused += 1
            return "451 4.3.0 Try again later"
        envelope.mail_from = address
        envelope.mail_options.extend(mail_options)
        return "250 OK"

    async def handle_DATA(self, server, session, envelope) -> str:
        self.received.append(message_from_bytes(envelope.original_content or b""))
        return "250 Message accepted for delivery"

    def start(self) -> None:
        assert self._controller is None, "already running"
        self._controller = Controller(self, hostname="127.0.0.1", port=self.port)
        self._controller.start()

    def stop(self) -> None:
        if self._controller is not None:
            self._controller.stop()
            self._controller = None

    def recipients(self) -> list[str]:
        return sorted(message["To"] for message in self.received)


@pytest.fixture
def smtp_server(settings) -> Iterator[SmtpServer]:
    """A private SMTP server, accepting, that the site sends through."""
    server = SmtpServer()
    server.start()
    settings.EMAIL_BACKEND = "django.core.mail.backends.smtp.EmailBackend"
    settings.EMAIL_HOST = "127.0.0.1"
    settings.EMAIL_PORT = server.port
    settings.EMAIL_USE_TLS = False
    settings.EMAIL_HOST_USER = settings.EMAIL_HOST_PASSWORD = ""
    settings.EMAIL_TIMEOUT = 5
    try:
        yield server
    finally:
        server.stop()
