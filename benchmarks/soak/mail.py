"""Players who play by email: they answer the turn email the SMTP sink received.

A mail player reads the board on the game page (as anyone would, to think),
then waits for the turn email of that very position at the sink (its
``Reply-To`` token names the game and the version), and replies to it over
SMTP at the mail-in server, the move on the first line. When no such email
comes within ``EMAIL_WAIT_S`` (the outbox is held up by a fault), or the
mail-in server refuses the reply every time, the player plays on the page
instead. Every reply the mail-in server acknowledged (250) is recorded, for
the soak to find each stored and decided once.
"""

from __future__ import annotations

import asyncio
import itertools
import smtplib
import time
from email.message import EmailMessage
from email.utils import parseaddr

from benchmarks.servers import SmtpServer
from benchmarks.web import page
from benchmarks.web.client import Phase, Player, Think
from rules import Exchange, Move, Place
from rules.notation import ACROSS, DOWN, notate

EMAIL_WAIT_S = 120.0
PLAYED_WAIT_S = 180.0
SMTP_TRIES = 6  # a sending server's retries of a 4xx, compressed: 10 s apart
_numbers = itertools.count(1)


def token_of(reply_to: str) -> tuple[int, int] | None:
    """(game, version) from a reply address ``reply+<game>-<seat>-<version>-<sig>@…``."""
    local = parseaddr(reply_to)[1].partition("@")[0]
    if not local.startswith("reply+"):
        return None
    parts = local[len("reply+") :].split("-")
    if len(parts) != 4:
        return None
    try:
        return int(parts[0], 36), int(parts[2], 36)
    except ValueError:
        return None


def reply_text(seen: page.Seen, move: Move) -> str:
    """The move as a player writes it in a reply (docs/NOTATION.md, "Moves in a reply")."""
    if isinstance(move, Place):
        notated = notate(page.position(seen), move)
        text = f"{notated.start}{ACROSS if notated.across else DOWN} {notated.word}"
        return f"{text} rends {notated.returns}" if notated.returns else text
    if isinstance(move, Exchange):
        return f"échange {move.tiles}"
    return "passe"


class MailPlayer(Player):
    """A player who answers their turn emails; ``mailed`` holds the replies acknowledged."""

    def __init__(self, *args: object, sink: SmtpServer, mail_in_port: int, **kwargs: object):
        super().__init__(*args, **kwargs)  # type: ignore[arg-type]
        self.sink = sink
        self.mail_in_port = mail_in_port
        self.address = f"{self.username}@bench.invalid"
        # (Message-ID, game, the move's number) of each reply the mail-in server took.
        self.mailed: list[tuple[str, int, int]] = []
        self.fallbacks: dict[str, int] = {}

    def _turn_email(self, version: int) -> str | None:
        """The Reply-To of the turn email for this game at ``version``, if it has come."""
        for message in reversed(self.sink.received[-5000:]):
            if message.get("To", "").endswith(self.address):
                reply_to = str(message.get("Reply-To", ""))
                if token_of(reply_to) == (self.game, version):
                    return reply_to
        return None

    def _send(self, reply_to: str, text: str) -> str | None:
        """Send the reply; its Message-ID once the mail-in server answered 250, else None."""
        message = EmailMessage()
        message["From"] = self.address
        message["To"] = reply_to
        message["Subject"] = "Re: Diamino"
        message["Message-ID"] = f"<soak.{self.username}.{next(_numbers)}@bench.invalid>"
        message.set_content(f"{text}\n")
        for _ in range(SMTP_TRIES):
            try:
                with smtplib.SMTP("127.0.0.1", self.mail_in_port, timeout=30) as smtp:
                    smtp.send_message(message)
                return str(message["Message-ID"])
            except (smtplib.SMTPException, OSError):
                time.sleep(10)
        return None

    def _fallback(self, why: str) -> None:
        self.fallbacks[why] = self.fallbacks.get(why, 0) + 1

    async def take_turn(self, phase: Phase, think: Think, seen: page.Seen) -> page.Seen | None:
        """Think, then answer the turn email; on the page when that cannot be done."""
        rng = self.rng
        await asyncio.sleep(rng.uniform(*think.move))
        move = page.choose(seen, rng)
        reply_to = None
        deadline = time.monotonic() + EMAIL_WAIT_S
        while phase.running() and time.monotonic() < deadline:
            reply_to = self._turn_email(seen.version)
            if reply_to:
                break
            await asyncio.sleep(2)
        sent = None
        if reply_to:
            sent = await asyncio.to_thread(self._send, reply_to, reply_text(seen, move))
        if sent is None:
            self._fallback("no turn email in time" if not reply_to else "mail-in refused")
            return await self.submit(phase, move, seen.version)
        self.mailed.append((sent, self.game, seen.version + 1))
        deadline = time.monotonic() + PLAYED_WAIT_S
        while time.monotonic() < deadline:
            await asyncio.sleep(think.poll)
            after = await self.load_page(phase)
            if after.version > seen.version or after.over:
                return after
        return None  # not played yet: look again, and play on the page if still due
