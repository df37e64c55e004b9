"""French typography, as the site writes it: a non-breaking space before : ; ? !

French puts a space before a colon, a semicolon, a question mark and an
exclamation mark, and inside « ». It must not break, or a line can start with
a lone ":" — so it is U+00A0, the one the catalogues use (also before %).
U+202F (the narrow one) would do in print, but some mail clients' fonts lack
it; one character everywhere keeps the catalogue consistent and searchable.
"""

from __future__ import annotations

import html
import re

NBSP = "\u00a0"

# Spans where a mark is not punctuation: URLs and paths with a query
# (/parties/?page=2, but not the words of "et/ou?"), times (12:30), Python format
# fields ({0:>3}), HTML tags (style="color:red") and Django date formats (H:i).
_NOT_TEXT = re.compile(
    r"[a-z][a-z0-9+.-]*://\S*"
    r"|(?<![\w/])/\S*\?\S*"
    r"|\b\d{1,2}:\d{2}\b"
    r"|\{[^{}\s]*\}"
    r"|<[^>]*>"
    r"|\b[GHhg]:i\b",
    re.IGNORECASE,
)
_MARK = re.compile(r"[:;?!]")


def misplaced_marks(text: str) -> list[str]:
    """Each : ; ? ! not preceded by U+00A0, and each « » without it, with some context.

    A mark right after another ("?!") is fine; so is a mark inside a URL, a
    time, a format field or a tag. An empty list means the text is right.
    """
    masked = _NOT_TEXT.sub(lambda m: "x" * len(m.group()), text)
    wrong = []
    for match in _MARK.finditer(masked):
        i = match.start()
        # At the very start there is no space at all: that is wrong too.
        before = masked[i - 1] if i else ""
        if before != NBSP and (not before or before not in ":;?!"):
            wrong.append(text[max(0, i - 25) : i + 10])
    for match in re.finditer(r"«(?!\u00a0)|(?<!\u00a0)»", masked):
        wrong.append(text[max(0, match.start() - 25) : match.start() + 10])
    return wrong


def text_of_html(document: str) -> str:
    """What a reader sees of an HTML document: no tags, no style, entities decoded."""
    document = re.sub(r"<(style|script)\b.*?</\1>", "", document, flags=re.DOTALL)
    return html.unescape(re.sub(r"<[^>]*>", "", document))
