"""The embedded default's email backend: every message on the console and in a file.

The console shows a developer what was sent; the ``.eml`` files in
``EMAIL_FILE_PATH`` keep it, so a confirmation link can be opened later.
"""

from __future__ import annotations

from django.core.mail.backends.base import BaseEmailBackend
from django.core.mail.backends.console import EmailBackend as ConsoleBackend
from django.core.mail.backends.filebased import EmailBackend as FileBackend


class ConsoleAndFileBackend(BaseEmailBackend):
    def __init__(self, fail_silently: bool = False, **kwargs) -> None:
        super().__init__(fail_silently=fail_silently)
        self._backends = [
            ConsoleBackend(fail_silently=fail_silently, **kwargs),
            FileBackend(fail_silently=fail_silently, **kwargs),
        ]

    def send_messages(self, email_messages) -> int:
        sent = 0
        for backend in self._backends:
            sent = backend.send_messages(email_messages) or 0
        return sent
