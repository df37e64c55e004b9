"""A real SMTP server in the test (``benchmarks.servers.SmtpServer``, aiosmtpd, the soak's too).

``refusing = True`` answers every ``MAIL FROM`` with ``451 4.3.0`` (smtplib
raises ``SMTPSenderRefused``, as in issue 25); ``stop()`` closes the port
(connection refused) and ``start()`` opens it again on the same port.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from benchmarks.servers import SmtpServer

__all__ = ["SmtpServer", "smtp_server"]


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
