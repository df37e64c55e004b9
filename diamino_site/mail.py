"""The embedded default's email backend: every message on the console and in a file.

The console shows a developer what was sent; the ``.eml`` files in
``EMAIL_FILE_PATH`` keep it, one message a file that a mail client opens, so a
confirmation link can be opened later.
"""

from __future__ import annotations

import uuid
from collections.abc import Sequence
from pathlib import Path

from django.conf import settings
from django.core.mail import EmailMessage
from django.core.mail.backends.base import BaseEmailBackend
from django.core.mail.backends.console import EmailBackend as ConsoleBackend
from django.utils import timezone


class EmlFileBackend(BaseEmailBackend):
    """One ``<time>-<random>.eml`` file per message (Django's file backend appends
    every message of a connection to one ``.log`` file, which no mail client opens)."""

    def __init__(self, fail_silently: bool = False, file_path: str | None = None, **kwargs) -> None:
        super().__init__(fail_silently=fail_silently)
        self.directory = Path(file_path or settings.EMAIL_FILE_PATH)

    def send_messages(self, email_messages: Sequence[EmailMessage]) -> int:
        if not email_messages:
            return 0
        self.directory.mkdir(parents=True, exist_ok=True)
        sent = 0
        for message in email_messages:
            if not message.recipients():
                continue
            # The time sorts the files in the order sent; the random part keeps
            # two messages of the same microsecond apart.
            stamp = timezone.now().strftime("%Y%m%d-%H%M%S-%f")
            path = self.directory / f"{stamp}-{uuid.uuid4().hex[:8]}.eml"
            try:
                path.write_bytes(message.message().as_bytes(linesep="\r\n"))
            except OSError:
                if not self.fail_silently:
                    raise
                continue
            sent += 1
        return sent


class ConsoleAndFileBackend(BaseEmailBackend):
    def __init__(self, fail_silently: bool = False, **kwargs) -> None:
        super().__init__(fail_silently=fail_silently)
        self._backends = [
            ConsoleBackend(fail_silently=fail_silently, **kwargs),
            EmlFileBackend(fail_silently=fail_silently, **kwargs),
        ]

    def send_messages(self, email_messages) -> int:
        sent = 0
        for backend in self._backends:
            sent = backend.send_messages(email_messages) or 0
        return sent
