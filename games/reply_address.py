"""The reply address of a turn email: ``reply+<token>@MAIL_IN_DOMAIN``.

The token binds a game, a seat of that game and the version (``Game.move_count``)
the email was built at, signed with an HMAC of the site's secret key under a salt
of its own (``django.utils.crypto.salted_hmac``, what ``django.core.signing``
signs with). It is made of lower-case letters, digits and ``-`` only, so that it
survives a mail server that lowercases local parts and needs no quoting::

    reply+1c-2f-7-k3v5x2q9d8mhn4tpzr6a@play.example.org
          game seat version  signature (20 base32 characters, 100 bits)

The numbers are base 36; the signature covers the three of them, so another
seat's, another game's or an edited version is refused. It is not secret (the
player may forward the email), it is unforgeable: only the site can make one.

In games, which builds the turn emails (``games/emails.py``); ``bymail``, which
reads the replies, sits above games and imports it.
"""

from __future__ import annotations

import base64
from dataclasses import dataclass
from email.utils import parseaddr
from ipaddress import ip_address
from typing import Any, Protocol
from urllib.parse import urlsplit

from django.conf import settings
from django.utils.crypto import constant_time_compare, salted_hmac


class Seat(Protocol):
    """What a reply address needs of a ``games.models.Seat`` (no import of games here)."""

    game_id: Any
    pk: Any


SALT = "diamino.bymail.reply-address"
PREFIX = "reply+"
NOREPLY = "noreply"
SIGNATURE_LENGTH = 20  # base32 characters: 100 bits
_DIGITS = "0123456789abcdefghijklmnopqrstuvwxyz"


@dataclass(frozen=True, slots=True)
class ReplyTicket:
    """What a valid reply address says: the game, the seat and the version."""

    game_id: int
    seat_id: int
    version: int


def mail_in_domain() -> str:
    """``settings.MAIL_IN_DOMAIN``, else SITE_URL's host name, else ``localhost``.

    An IP address is no mail domain: it falls back to ``localhost``.
    """
    domain = getattr(settings, "MAIL_IN_DOMAIN", "") or ""
    if domain:
        return str(domain).lower()
    host = urlsplit(getattr(settings, "SITE_URL", "")).hostname or ""
    try:
        ip_address(host)
    except ValueError:
        return host.lower() or "localhost"
    return "localhost"


def _base36(number: int) -> str:
    if number < 0:
        raise ValueError("a reply address holds numbers from 0 up")
    text = ""
    while True:
        number, digit = divmod(number, 36)
        text = _DIGITS[digit] + text
        if not number:
            return text


def _signature(payload: str, secret: str | bytes | None = None) -> str:
    digest = salted_hmac(SALT, payload, secret=secret, algorithm="sha256").digest()
    return base64.b32encode(digest).decode("ascii").lower()[:SIGNATURE_LENGTH]


def make_token(game_id: int, seat_id: int, version: int) -> str:
    """The signed token of a game, a seat and a version (lower case, ``[a-z0-9-]``)."""
    payload = f"{_base36(game_id)}-{_base36(seat_id)}-{_base36(version)}"
    return f"{payload}-{_signature(payload)}"


def read_token(token: str) -> ReplyTicket | None:
    """The ticket of a token made by ``make_token``; None if forged or garbled.

    Case is ignored. The current secret key and ``SECRET_KEY_FALLBACKS`` are
    tried, so rotating the key does not void the emails already sent.
    """
    parts = token.strip().lower().split("-")
    if len(parts) != 4 or not all(parts):
        return None
    *numbers, signature = parts
    if len(signature) != SIGNATURE_LENGTH or any(
        len(n) > 12 or any(c not in _DIGITS for c in n) for n in numbers
    ):
        return None
    payload = "-".join(numbers)
    secrets = [settings.SECRET_KEY, *getattr(settings, "SECRET_KEY_FALLBACKS", [])]
    if not any(constant_time_compare(signature, _signature(payload, s)) for s in secrets):
        return None
    game_id, seat_id, version = (int(n, 36) for n in numbers)
    return ReplyTicket(game_id=game_id, seat_id=seat_id, version=version)


def reply_address(seat: Seat, version: int) -> str:
    """``reply+<token>@<MAIL_IN_DOMAIN>`` for ``seat`` at ``version`` (``game.move_count``)."""
    return f"{PREFIX}{make_token(seat.game_id, seat.pk, version)}@{mail_in_domain()}"


def read_reply_address(address: str) -> ReplyTicket | None:
    """The ticket of a reply address (``Name <reply+…@domain>`` is read too).

    None when it is not one of ours: another local part or domain, a forged,
    garbled or edited token. Case is ignored throughout (RFC 5321 lets a
    server lowercase a local part).
    """
    address = parseaddr(address)[1] or address.strip()
    local, at, domain = address.rpartition("@")
    if not at or domain.lower() != mail_in_domain():
        return None
    if not local.lower().startswith(PREFIX):
        return None
    return read_token(local[len(PREFIX) :])


def noreply_address() -> str:
    """``noreply@<MAIL_IN_DOMAIN>``: the Reply-To of a player who plays on the site only.

    The inbound side answers a message sent to it with how to turn play by email on.
    """
    return f"{NOREPLY}@{mail_in_domain()}"


def is_noreply_address(address: str) -> bool:
    """True if ``address`` (``Name <…>`` read too) is ``noreply_address()``, any case."""
    address = parseaddr(address)[1] or address.strip()
    return address.lower() == noreply_address()
