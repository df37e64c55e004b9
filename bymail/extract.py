"""The reply's own text: what the player wrote, without what they quoted.

``reply_text(message)`` takes the text part of a message (the HTML one turned
into text when there is no text part, or an empty one), decoded
(quoted-printable, base64, any charset the message declares), and keeps the
lines the player wrote:

- quoted lines (``>``, any depth) are dropped, wherever they stand, so a move
  written under the quote (bottom-posting) is kept;
- an attribution line ("Le mar. 1 déc. 2026 à 14:00, Diamino <…> a écrit :",
  "On Tue, Dec 1, 2026 at 2:00 PM Diamino <…> wrote:", Apple Mail's "Le 1 déc.
  2026 à 14:00, … a écrit :", also wrapped over two or three lines) is dropped;
  when what follows it is not ``>``-quoted, the rest is the original and is cut;
- Outlook's "-----Original Message-----" / "-----Message d'origine-----", its
  "From: … Sent: …" / "De : … Envoyé : …" header block (with the line of
  underscores before it), forwarded-message markers: the rest is cut;
- signatures: a "-- " line, "Envoyé de mon iPhone", "Sent from my iPhone" and
  the like ("Get Outlook for Android", "Obtenir Outlook pour iOS"): the rest is cut;
- in HTML: ``<blockquote>``, Gmail's ``gmail_quote``, Thunderbird's
  ``moz-cite-prefix`` and Outlook's reply header (``divRplyFwdMsg``) are quotes.

No library: the named reply parsers (``mail-parser-reply``, ``email_reply_parser``)
were weighed; the second is unmaintained since 2020 and the first would be a
new dependency for rules this module states in some sixty lines, with tests
on the shapes the common clients produce (tests/bymail/test_extract.py).
"""

from __future__ import annotations

import re
from email.message import EmailMessage, Message
from html.parser import HTMLParser

__all__ = ["html_to_text", "own_lines", "reply_text"]

_CUT = "\x00cut\x00"

_ATTRIBUTION_START = re.compile(r"^(le|on|am|el|il)\b", re.IGNORECASE)
_ATTRIBUTION_END = re.compile(
    r"(a\s+[ée]crit|wrote|schrieb|escribi[óo]|ha\s+scritto)\s*:?\s*$", re.IGNORECASE
)
_SEPARATORS = re.compile(
    r"^\s*-{2,}\s*(original message|message d'origine|message original|forwarded message|"
    r"message transf[ée]r[ée]|mensaje original)\s*-{2,}\s*$",
    re.IGNORECASE,
)
_UNDERSCORES = re.compile(r"^\s*_{10,}\s*$")
_HEADER_FROM = re.compile(r"^\s*\**\s*(from|de|von)\s*\**\s*:", re.IGNORECASE)
_HEADER_NEXT = re.compile(
    r"^\s*\**\s*(sent|envoy[ée]|date|to|[àa]|objet|subject|cc|gesendet)\s*\**\s*:", re.IGNORECASE
)
_SIGNATURES = re.compile(
    r"^\s*(--|envoy[ée] (de|depuis) (mon|ma|mon |l'application )?.{0,40}|"
    r"sent from (my )?.{0,40}|get outlook for .{0,20}|obtenir outlook pour .{0,20}|"
    r"t[ée]l[ée]charger outlook pour .{0,20})\s*$",
    re.IGNORECASE,
)


def reply_text(message: EmailMessage | Message) -> str:
    """The text the sender wrote in ``message``: no quote, no quoted original, no signature."""
    text = _body_text(message)
    return "\n".join(own_lines(text)).strip()


def own_lines(text: str) -> list[str]:
    """The lines of a reply's text that its writer wrote (the rules of this module)."""
    lines = text.replace("\r\n", "\n").replace("\r", "\n").split("\n")
    kept: list[str] = []
    k = 0
    while k < len(lines):
        line = lines[k]
        stripped = line.strip()
        if stripped == _CUT.strip():
            break
        if stripped.startswith(">"):
            k += 1
            continue
        if (
            line.rstrip() == "--"
            or line == "-- "
            or (_SIGNATURES.match(line) and len(stripped) < 60)
        ):
            break
        if _SEPARATORS.match(line):
            break
        if _UNDERSCORES.match(line) and _header_block(lines, k + 1):
            break
        if _header_block(lines, k):
            break
        span = _attribution(lines, k)
        if span:
            rest = [x for x in lines[k + span :] if x.strip()]
            if not rest or not rest[0].lstrip().startswith(">"):
                break
            k += span
            continue
        kept.append(line.rstrip())
        k += 1
    while kept and not kept[-1].strip():
        kept.pop()
    return kept


def _header_block(lines: list[str], k: int) -> bool:
    """True if an Outlook-style "From: … / Sent: …" block starts at line ``k``."""
    if k >= len(lines) or not _HEADER_FROM.match(lines[k]):
        return False
    following = [x for x in lines[k + 1 : k + 5] if x.strip()]
    return any(_HEADER_NEXT.match(x) for x in following[:3])


def _attribution(lines: list[str], k: int) -> int:
    """How many lines an attribution ("Le … a écrit :", "On … wrote:") starting at ``k`` spans."""
    if not _ATTRIBUTION_START.match(lines[k].strip()):
        return 0
    joined = ""
    for span in range(1, 4):
        if k + span > len(lines):
            return 0
        piece = lines[k + span - 1].strip()
        if span > 1 and (not piece or piece.startswith(">")):
            return 0
        joined = f"{joined} {piece}"
        if _ATTRIBUTION_END.search(joined):
            return span
    return 0


# --- the body --------------------------------------------------------------


def _body_text(message: EmailMessage | Message) -> str:
    plain = _part(message, "plain")
    if plain is not None:
        text = _decoded(plain)
        if text.strip():
            if plain.get_param("format", "", header="content-type") == "flowed":
                text = _unflow(text, delsp=str(plain.get_param("delsp", "no")).lower() == "yes")
            return text
    html = _part(message, "html")
    if html is not None:
        return html_to_text(_decoded(html))
    return ""


def _part(message: Message, subtype: str) -> Message | None:
    """The first ``text/<subtype>`` part that is not an attachment."""
    for part in message.walk():
        if part.get_content_maintype() == "multipart":
            continue
        if part.get_content_type() != f"text/{subtype}":
            continue
        if (part.get("Content-Disposition") or "").lower().startswith("attachment"):
            continue
        return part
    return None


def _decoded(part: Message) -> str:
    payload = part.get_payload(decode=True)
    if not isinstance(payload, bytes):
        return str(part.get_payload())
    charset = part.get_content_charset() or "utf-8"
    try:
        return payload.decode(charset, errors="replace")
    except LookupError:  # a charset Python does not know
        return payload.decode("utf-8", errors="replace")


def _unflow(text: str, *, delsp: bool) -> str:
    """RFC 3676: a line ending with a space continues on the next one."""
    out: list[str] = []
    current = ""
    for line in text.replace("\r\n", "\n").split("\n"):
        if line == "-- ":
            if current:
                out.append(current)
                current = ""
            out.append(line)
            continue
        if line.endswith(" ") and not line.startswith(">"):
            current += line[:-1] if delsp else line
            continue
        out.append(current + line)
        current = ""
    if current:
        out.append(current)
    return "\n".join(out)


class _TextParser(HTMLParser):
    BLOCKS = frozenset(
        [
            "p",
            "div",
            "br",
            "tr",
            "li",
            "h1",
            "h2",
            "h3",
            "h4",
            "h5",
            "h6",
            "table",
            "ul",
            "ol",
            "pre",
            "hr",
            "address",
            "section",
            "article",
            "header",
            "footer",
        ]
    )
    SKIP = frozenset({"script", "style", "head", "title", "blockquote"})
    QUOTE_CLASSES = ("gmail_quote", "moz-cite-prefix", "yahoo_quoted", "protonmail_quote")
    CUT_IDS = (
        "divrplyfwdmsg",
        "appendonsend",
        "x_divrplyfwdmsg",
        "mail-editor-reference-message-container",
    )
    VOID = frozenset(
        [
            "br",
            "hr",
            "img",
            "meta",
            "link",
            "input",
            "area",
            "base",
            "col",
            "embed",
            "source",
            "track",
            "wbr",
        ]
    )

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.parts: list[str] = []
        self.stack: list[tuple[str, bool]] = []  # (tag, skipping)

    @property
    def skipping(self) -> bool:
        return any(skip for _, skip in self.stack)

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        values = {name: (value or "").lower() for name, value in attrs}
        if values.get("id", "") in self.CUT_IDS and not self.skipping:
            self.parts.append(f"\n{_CUT}\n")
        classes = values.get("class", "").split()
        skip = tag in self.SKIP or any(c in self.QUOTE_CLASSES for c in classes)
        if tag in self.BLOCKS and not self.skipping:
            self.parts.append("\n")
        if tag not in self.VOID:
            self.stack.append((tag, skip))

    def handle_startendtag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag in self.BLOCKS and not self.skipping:
            self.parts.append("\n")

    def handle_endtag(self, tag: str) -> None:
        for k in range(len(self.stack) - 1, -1, -1):
            if self.stack[k][0] == tag:
                del self.stack[k:]
                break
        if tag in self.BLOCKS and not self.skipping:
            self.parts.append("\n")

    def handle_data(self, data: str) -> None:
        if not self.skipping and data:
            text = " ".join(data.split())
            lead = " " if data[0].isspace() else ""
            trail = " " if data[-1].isspace() and text else ""
            self.parts.append(lead + text + trail)


def html_to_text(html: str) -> str:
    """The text of an HTML body, one line per block; quotes (``blockquote``, Gmail's) left out."""
    parser = _TextParser()
    parser.feed(html)
    parser.close()
    text = "".join(parser.parts).replace("\u00a0", " ")
    lines = [line.strip() for line in text.split("\n")]
    out: list[str] = []
    for line in lines:
        if line or (out and out[-1]):
            out.append(line)
    return "\n".join(out).strip()
