"""Only the reply's own text counts (bymail/extract.py), in the shapes real clients send.

Each message is built as the client sends it (its parts, charsets and transfer
encodings), turned into bytes as it would cross SMTP, and read back both with the
modern ``email.policy.default`` and with the legacy ``compat32`` parser.
"""

from __future__ import annotations

import email
from email import policy
from email.message import EmailMessage

import pytest

from bymail.extract import html_to_text, reply_text

FROM = "Alice <alice@example.com>"
TO = "reply+1-2-3-abcdefghijklmnopqrst@play.example.org"

# What our turn email says (its text), quoted back by the clients below.
TURN = (
    "It is your turn in Game 12 (Avec marque).\n\n"
    "    A B C D E F G H I J K L M N O\n"
    " 8  + . . . . . . C H A T . . . +\n\n"
    "To play, answer this email with your move on the first line: H8 CHAT (across from H8), "
    "H8 v CHAT (down), exchange ABC, pass or resign.\n\n-- \nDiamino — http://127.0.0.1:8000/\n"
)


def quoted(text: str, prefix: str = "> ") -> str:
    return "\n".join(prefix + line if line else prefix.rstrip() for line in text.splitlines())


def message(
    text: str | None = None,
    html: str | None = None,
    *,
    charset: str = "utf-8",
    cte: str = "quoted-printable",
    flowed: bool = False,
) -> EmailMessage:
    msg = EmailMessage()
    msg["From"], msg["To"], msg["Subject"] = FROM, TO, "Re: Your turn — Game 12"
    if text is not None:
        msg.set_content(text, charset=charset, cte=cte)
        if flowed:  # as Thunderbird sends it: format=flowed, no delsp
            msg.set_param("format", "flowed")
    if html is not None:
        if text is None:
            msg.set_content(html, subtype="html", charset=charset, cte=cte)
        else:
            msg.add_alternative(html, subtype="html", charset=charset, cte=cte)
    return msg


def both_parsers(msg: EmailMessage) -> list[email.message.Message]:
    raw = msg.as_bytes(policy=policy.SMTP)
    return [
        email.message_from_bytes(raw, policy=policy.default),
        email.message_from_bytes(raw),  # compat32
    ]


def extracted(msg: EmailMessage) -> str:
    texts = {reply_text(parsed) for parsed in both_parsers(msg)}
    assert len(texts) == 1, texts
    return texts.pop()


GMAIL_FR_TEXT = (
    "H8 CHAT\n\n"
    "Le mar. 1 déc. 2026 à 14:00, Diamino <diamino@localhost> a\nécrit :\n\n" + quoted(TURN) + "\n"
)
GMAIL_FR_HTML = (
    '<div dir="ltr">H8 CHAT</div><br><div class="gmail_quote"><div dir="ltr" class="gmail_attr">'
    'Le mar. 1 déc. 2026 à 14:00, Diamino &lt;<a href="mailto:diamino@localhost">'
    "diamino@localhost</a>&gt; a écrit&nbsp;:<br></div>"
    '<blockquote class="gmail_quote" style="margin:0px 0px 0px 0.8ex;border-left:1px solid '
    'rgb(204,204,204);padding-left:1ex">It is your turn in Game 12.<br>H8 CHAT (across)'
    "</blockquote></div>"
)


def test_gmail_french_reply_plain_and_html():
    assert extracted(message(GMAIL_FR_TEXT, GMAIL_FR_HTML)) == "H8 CHAT"


def test_gmail_html_only_is_turned_into_text_without_the_quote():
    assert extracted(message(html=GMAIL_FR_HTML)) == "H8 CHAT"


def test_gmail_english_reply_with_its_attribution_wrapped_over_two_lines():
    text = (
        "Exchange QK\n\nOn Tue, Dec 1, 2026 at 2:00 PM Diamino <\ndiamino@localhost> wrote:\n\n"
        + quoted(TURN)
    )
    assert extracted(message(text)) == "Exchange QK"


def test_outlook_desktop_original_message_block():
    text = (
        "pass\n\n-----Original Message-----\nFrom: Diamino <diamino@localhost>\n"
        "Sent: Tuesday, December 1, 2026 2:00 PM\nTo: Alice <alice@example.com>\n"
        "Subject: Your turn — Game 12\n\n" + TURN
    )
    assert extracted(message(text, cte="base64")) == "pass"


def test_outlook_french_header_block_after_the_underscores():
    text = (
        "échange ABC\r\n\r\n________________________________\r\n"
        "De : Diamino <diamino@localhost>\r\nEnvoyé : mardi 1 décembre 2026 14:00\r\n"
        "À : Alice <alice@example.com>\r\nObjet : C'est à vous — Partie 12\r\n\r\n" + TURN
    )
    assert extracted(message(text, charset="windows-1252")) == "échange ABC"


def test_outlook_web_html_only_with_its_reply_header():
    html = (
        '<html><head><style>p{margin:0}</style></head><body><div style="font-family:Calibri">'
        'H8 &darr; CHAT</div><div id="appendonsend"></div>'
        '<hr style="display:inline-block;width:98%"><div id="divRplyFwdMsg" dir="ltr">'
        '<font face="Calibri"><b>From:</b> Diamino &lt;diamino@localhost&gt;<br>'
        "<b>Sent:</b> Tuesday, December 1, 2026 2:00 PM<br><b>To:</b> Alice<br>"
        "<b>Subject:</b> Your turn</font><div>&nbsp;</div></div>"
        "<div>It is your turn in Game 12.<br>H8 CHAT (across)</div></body></html>"
    )
    assert extracted(message(html=html)) == "H8 ↓ CHAT"


def test_outlook_header_block_without_a_separator():
    text = "abandon\n\nFrom: Diamino <diamino@localhost>\nSent: 01 December 2026 14:00\n\n" + TURN
    assert extracted(message(text)) == "abandon"


def test_apple_mail_iphone_french():
    text = (
        "H8 ↓ CHAT\n\nEnvoyé de mon iPhone\n\n"
        "> Le 1 déc. 2026 à 14:00, Diamino <diamino@localhost> a écrit :\n>\n" + quoted(TURN)
    )
    html = (
        '<html><body dir="auto"><div dir="ltr">H8 ↓ CHAT</div><div dir="ltr"><br>'
        '<div dir="ltr">Envoyé de mon iPhone</div><div dir="ltr"><br><blockquote type="cite">'
        "Le 1 déc. 2026 à 14:00, Diamino &lt;diamino@localhost&gt; a écrit&nbsp;:<br><br>"
        "It is your turn. H8 CHAT</blockquote></div></div></body></html>"
    )
    assert extracted(message(text, html)) == "H8 ↓ CHAT"
    assert extracted(message(html=html)) == "H8 ↓ CHAT"


def test_apple_mail_mac_english_with_sent_from():
    text = (
        "H8 CHAt\nSent from my iPad\n\n"
        "> On Dec 1, 2026, at 14:00, Diamino <diamino@localhost> wrote:\n>\n" + quoted(TURN)
    )
    assert extracted(message(text)) == "H8 CHAt"


def test_thunderbird_format_flowed_and_its_cite_prefix():
    text = (
        "Je joue H8 CHAT, merci pour la partie, et je te souhaite une très bonne \n"
        "soirée.\n\nLe 01/12/2026 à 14:00, Diamino a écrit :\n" + quoted(TURN, ">")
    )
    assert extracted(message(text, flowed=True)) == (
        "Je joue H8 CHAT, merci pour la partie, et je te souhaite une très bonne soirée."
    )
    html = (
        '<p>H8 CHAT</p><div class="moz-cite-prefix">Le 01/12/2026 à 14:00, Diamino a écrit&nbsp;:'
        '</div><blockquote type="cite">It is your turn.</blockquote>'
    )
    assert extracted(message(html=html)) == "H8 CHAT"


def test_a_signature_after_the_dash_dash_line_is_not_read():
    assert extracted(message("passe\n\n-- \nAlice Martin\nH8 CHAT\n")) == "passe"


def test_a_move_written_under_the_quote_is_kept():
    text = "On Tue, Dec 1, 2026 at 2:00 PM Diamino <diamino@localhost> wrote:\n" + quoted(TURN)
    assert extracted(message(text + "\n\nH8 CHAT\n")) == "H8 CHAT"


def test_interleaved_quotes_are_dropped_and_the_player_text_kept():
    text = "> It is your turn in Game 12.\nBonjour !\n> H8 v CHAT (down)\nH8 v CHAT\n"
    assert extracted(message(text)) == "Bonjour !\nH8 v CHAT"


@pytest.mark.parametrize(
    ("charset", "cte"),
    [
        ("utf-8", "base64"),
        ("utf-8", "quoted-printable"),
        ("iso-8859-1", "base64"),
        ("utf-8", "8bit"),
    ],
)
def test_charsets_and_transfer_encodings(charset, cte):
    assert extracted(message("Échange ÉTÉ\n", charset=charset, cte=cte)) == "Échange ÉTÉ"


def test_an_attachment_is_not_the_text():
    msg = message("passe\n")
    msg.add_attachment(b"H8 CHAT", maintype="text", subtype="plain", filename="move.txt")
    assert extracted(msg) == "passe"


def test_an_empty_text_part_falls_back_to_the_html():
    assert extracted(message(" \n", "<p>pass</p>")) == "pass"


def test_html_to_text_keeps_blocks_as_lines_and_decodes_entities():
    html = "<div>Bonjour&nbsp;!</div><p>&Eacute;change <b>ABC</b></p><script>x()</script>"
    assert html_to_text(html) == "Bonjour !\n\nÉchange ABC"


def test_flowed_text_with_delsp_drops_the_soft_break_space():
    msg = message("H8 CHAT, bonne \nsoir\u00e9e\n", flowed=True)
    msg.set_param("delsp", "yes")
    assert extracted(msg) == "H8 CHAT, bonnesoirée"


def test_a_message_without_text_is_empty():
    msg = EmailMessage()
    msg["From"] = FROM
    msg.set_content(b"\x89PNG", maintype="image", subtype="png")
    assert extracted(msg) == ""
