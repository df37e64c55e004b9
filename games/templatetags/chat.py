"""The game page's chat messages, written in Python.

Through the template engine each message cost a loop step, two ``date``
filters and three variables; the chat was about a tenth of the page when it
had messages. The markup, white space included, is what the template wrote,
the time in the viewer's time zone and language as the ``date`` filter gives
it. Not cached: an author's name can change (a renamed or deleted account)
without the chat changing.
"""

from __future__ import annotations

from collections.abc import Iterable
from html import escape

from django import template
from django.utils.formats import date_format
from django.utils.safestring import SafeString, mark_safe
from django.utils.timezone import template_localtime  # type: ignore[attr-defined]  # not in django-stubs
from django.utils.translation import gettext

from games.models import ChatMessage

register = template.Library()


@register.simple_tag
def chat_list(messages: Iterable[ChatMessage]) -> SafeString:
    """``<ol id="chat-messages">``: each message's author, time and text, or "No message yet."."""
    items = []
    for message in messages:
        at = template_localtime(message.created_at)
        items.append(
            f'\n      <li><span class="chat-author">{escape(str(message.author))}</span> '
            f'<time datetime="{escape(date_format(at, "c"))}">'
            f"{escape(date_format(at, 'SHORT_DATETIME_FORMAT'))}</time>"
            f"<p>{escape(message.text)}</p></li>\n    "
        )
    if not items:
        items.append(f'\n      <li class="muted">{escape(gettext("No message yet."))}</li>\n    ')
    return mark_safe(  # every value above is escaped
        '<ol id="chat-messages" class="chat-messages" aria-live="polite">\n    '
        f"{''.join(items)}\n  </ol>"
    )
