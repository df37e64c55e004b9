"""An email backend for the worker fault test: files, and a send that can be held mid-way.

While ``HOLD`` exists in ``EMAIL_FILE_PATH`` a send stops before the message
is written, as an SMTP exchange that has begun and not finished, and says so
by writing ``SENDING``: the test then kills the worker at exactly that point.
Messages that go through are files (``*.log``), one per connection.
"""

from __future__ import annotations

import os
import time
from pathlib import Path

from django.conf import settings
from django.core.mail.backends.filebased import EmailBackend


class HeldFileBackend(EmailBackend):
    def send_messages(self, email_messages) -> int:
        folder = Path(settings.EMAIL_FILE_PATH)
        hold = folder / "HOLD"
        if hold.exists():
            (folder / "SENDING").write_text(str(os.getpid()))
            while hold.exists():
                time.sleep(0.05)
        return super().send_messages(email_messages)
