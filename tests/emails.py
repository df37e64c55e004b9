"""What the tests read in a sent email."""

from __future__ import annotations

from django.core import mail


def html_of(message: mail.EmailMessage) -> str:
    """The HTML part of ``message``.

    ``mail.outbox`` holds ``EmailMessage`` by its type; what the site sends has an HTML part.
    """
    assert isinstance(message, mail.EmailMultiAlternatives)
    html = next(content for content, mimetype in message.alternatives if mimetype == "text/html")
    assert isinstance(html, str)
    return html
