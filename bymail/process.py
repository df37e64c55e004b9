"""What a stored reply does: played, refused, moved on, dropped or ignored — decided once.

``inbound_process(id)`` claims the stored message with a conditional update
(the row lock on PostgreSQL, the write lock on SQLite), so two workers, or a
worker and the sweep, never process one message twice; a message already
processed is left alone. Everything it does (the move, the answer written to
the outbox, the message's state) commits together, or not at all and the
sweep tries again.

The checks, in order, each ending the processing when it fails:

1. automatic mail (``Auto-Submitted``, ``Precedence``, bounces, out-of-office
   replies…): ignored, never answered, so two robots cannot loop;
2. the no-reply address: answered with instructions, once per
   ``MAIL_IN_RATE_SECONDS``, if the sender is a player (their verified address)
   and, with ``MAIL_IN_AUTHSERV_ID``, passed DMARC; dropped otherwise;
3. the token (``games.reply_address.read_reply_address``): forged, or naming no
   seat → dropped and logged, nothing answered;
4. the sender (``From``) must be a verified address of the seat's player,
   case-insensitive, and, where ``MAIL_IN_AUTHSERV_ID`` names our mail server,
   have passed DMARC there (the topmost such header, for the From's domain) →
   otherwise dropped and logged (a stranger gets nothing; a DMARC failure is told
   to the player at the account's address, once per window);
5. the size, the number of MIME parts, the rate per seat → refused with the reason;
6. the player's ``play_by_email`` preference off → answered with instructions;
7. the game moved on since the email (the token's version) → "moved on";
8. the reply's own text (``bymail.extract.reply_text``) read as a move
   (``rules.reply_notation.parse_reply_read`` on the seat's view: the move and
   the line read, which the answer echoes) → refused with the parser's message
   when it cannot be read;
9. ``games.services.move_submit`` at the token's version (``game_resign`` for
   a resignation): played, or refused with the engine's rule and message;
10. once played, a ``plus tard :`` / ``later:`` line (``parse_later_read``, on
   the position the move left) is queued for the player's next turn
   (``services.queued_move_set``); its refusal keeps the move, and the answer
   says which.

The other players are told by ``move_submit`` itself, as for a move made on
the site. Every answer goes through the outbox (``bymail/emails.py``).
"""

from __future__ import annotations

import logging
import re
import time
from dataclasses import dataclass, field
from datetime import timedelta
from email import policy
from email.message import EmailMessage
from email.parser import BytesParser
from email.utils import parseaddr
from typing import Any

from allauth.account.models import EmailAddress
from django.conf import settings
from django.core.cache import cache
from django.db import transaction
from django.db.models import F
from django.utils import timezone

import rules
from accounts.models import User
from accounts.permissions import can_play
from bymail import emails
from bymail.extract import reply_text
from bymail.models import InboundMessage
from bymail.store import addressed_to
from games import bridge, services
from games.errors import GameError, in_both_languages
from games.models import Game, Seat
from games.reply_address import is_noreply_address, read_reply_address
from infra import ratelimit
from rules.reply_notation import ReplyNotationError, parse_later_read, parse_reply_read

log = logging.getLogger(__name__)

State = InboundMessage.State

# Subjects of out-of-office and other automatic answers, in the languages players use.
_AUTOMATIC_SUBJECT = re.compile(
    r"^\s*(auto(matic)?[ -]?(reply|response)|out of (the )?office|absence|absent|"
    r"r[ée]ponse automatique|message d'absence|abwesenheit|undeliverable|"
    r"delivery status notification|mail delivery failed|returned mail|non remis)",
    re.IGNORECASE,
)


def automatic_reason(message: EmailMessage, envelope_from: str = "") -> str:
    """Why ``message`` was sent by a robot (RFC 3834 and common practice); "" for a person."""
    auto = str(message.get("Auto-Submitted", "") or "").strip().lower()
    if auto and auto != "no":
        return f"Auto-Submitted: {auto}"
    precedence = str(message.get("Precedence", "") or "").strip().lower()
    if precedence in {"bulk", "auto_reply", "list", "junk"}:
        return f"Precedence: {precedence}"
    # (Not X-Auto-Response-Suppress: Outlook puts it on messages people write too.)
    for name in ("X-Autoreply", "X-Autorespond", "List-Id"):
        if message.get(name) is not None:
            return f"{name} header"
    return_path = message.get("Return-Path")
    if return_path is not None and str(return_path).strip() in {"", "<>"}:
        return "empty Return-Path (a bounce)"
    if envelope_from.strip() in {"<>"}:
        return "empty envelope sender (a bounce)"
    sender = parseaddr(str(message.get("From", "") or ""))[1].lower()
    if sender.split("@")[0] in {"mailer-daemon", "postmaster"}:
        return f"From: {sender} (a bounce)"
    if message.get_content_type() == "multipart/report":
        return "multipart/report (a delivery or read report)"
    if _AUTOMATIC_SUBJECT.match(str(message.get("Subject", "") or "")):
        return "an automatic answer's subject"
    return ""


def sender_authenticated(message: EmailMessage) -> bool:
    """The ``From`` passed DMARC, as our own mail server says (``MAIL_IN_AUTHSERV_ID``).

    Only the topmost ``Authentication-Results`` header with our authserv-id
    counts: our server adds its own above whatever the sender wrote, so a
    forged one with our id further down is never read. Its ``dmarc=pass`` must
    be for the ``From``'s domain (``header.from``). Without the setting the
    check is off (True): the token and the verified address are all there is.
    """
    authserv = settings.MAIL_IN_AUTHSERV_ID.strip().lower()
    if not authserv:
        return True
    domain = parseaddr(str(message.get("From", "") or ""))[1].rpartition("@")[2].lower()
    for header in message.get_all("Authentication-Results", []):
        serv, _, results = str(header).partition(";")
        if serv.strip().lower().split()[0:1] != [authserv]:
            continue
        # The topmost header with our id is our server's: the answer, pass or not.
        found = re.search(r"(?:^|[\s;])dmarc\s*=\s*pass\b([^;]*)", results, re.IGNORECASE)
        if found is None or not domain:
            return False
        header_from = re.search(r"header\.from\s*=\s*([^\s;]+)", found.group(1), re.IGNORECASE)
        return header_from is not None and header_from.group(1).strip().lower() == domain
    return False


def _parts(message: EmailMessage) -> int:
    return sum(1 for _ in message.walk())


def _recipient(row: InboundMessage, message: EmailMessage) -> str:
    """The reply address the message came to: the envelope's, else the headers'."""
    return row.recipient or addressed_to(message)


def _player_with_address(address: str) -> User | None:
    if not address:
        return None
    found = (
        EmailAddress.objects.filter(email__iexact=address, verified=True)
        .select_related("user")
        .first()
    )
    user = found.user if found else None
    if user is None or not user.is_active or user.deleted_at is not None:
        return None
    return user


@dataclass
class Outcome:
    state: str
    reason: str
    answer: str = ""  # the answer's kind (bymail/emails.py), "" for none
    recipient: User | None = None
    seat: Seat | None = None
    game: Game | None = None
    move_text: str = ""
    details: dict[str, Any] = field(default_factory=dict)


def _rate_limit() -> ratelimit.Limit:
    return ratelimit.Limit("mail-in", settings.MAIL_IN_RATE_COUNT, settings.MAIL_IN_RATE_SECONDS)


def _once_per_window(name: str, who: object) -> bool:
    """True the first time in a MAIL_IN_RATE_SECONDS window: an answer that a flood
    (or a forged sender) could make us send again and again goes once per window."""
    seconds = settings.MAIL_IN_RATE_SECONDS
    window = int(time.time() // seconds)
    return bool(cache.add(f"mail-in:{name}:{who}:{window}", 1, seconds + 1))


def _decide(row: InboundMessage, charged: list[int] | None = None) -> Outcome:
    """What ``row`` does; the seats whose rate limit it took go in ``charged``."""
    try:
        message = BytesParser(policy=policy.default).parsebytes(bytes(row.raw))
        assert isinstance(message, EmailMessage)
        robot = automatic_reason(message, row.envelope_from)
    except Exception as exc:  # a message Python cannot read: nobody to answer safely
        return Outcome(State.DROPPED, f"unreadable message: {exc.__class__.__name__}")
    if robot:
        return Outcome(State.IGNORED, robot)

    sender = parseaddr(str(message.get("From", "") or ""))[1]
    address = _recipient(row, message)
    if is_noreply_address(address):
        player = _player_with_address(sender)
        if player is None:
            log.warning("inbound %s to the no-reply address from a stranger: dropped", row.pk)
            return Outcome(State.DROPPED, "to the no-reply address, from no player")
        if not sender_authenticated(message):  # a forged From: not answered
            log.warning("inbound %s to the no-reply address without DMARC pass: dropped", row.pk)
            return Outcome(State.DROPPED, "to the no-reply address, DMARC did not pass")
        if not _once_per_window("noreply", player.pk):
            return Outcome(State.REFUSED, "sent to the no-reply address (already answered)")
        return Outcome(State.REFUSED, "sent to the no-reply address", "noreply", player)

    ticket = read_reply_address(address) if address else None
    seat = (
        Seat.objects.select_related("player", "game")
        .filter(pk=ticket.seat_id, game_id=ticket.game_id)
        .first()
        if ticket is not None
        else None
    )
    if seat is None:
        log.warning("inbound %s: forged or unknown reply address %r: dropped", row.pk, address)
        return Outcome(State.DROPPED, "forged or unknown reply address")
    assert ticket is not None
    game = seat.game
    if (
        InboundMessage.objects.filter(message_id=row.message_id, seat=seat)
        .exclude(pk=row.pk)
        .exists()
    ):  # the same message, come again to another of this seat's addresses
        log.info("inbound %s: processed for seat %s already: a duplicate", row.pk, seat.pk)
        return Outcome(State.DROPPED, "a duplicate: this message was processed for this seat")
    player = seat.player
    verified = EmailAddress.objects.filter(
        user=player, verified=True, email__iexact=sender
    ).exists()
    if not sender or not verified or not can_play(player):
        log.warning(
            "inbound %s: from %r, not the seat's player (seat %s): dropped", row.pk, sender, seat.pk
        )
        return Outcome(State.DROPPED, "the sender is not the seat's player", seat=seat, game=game)

    if not sender_authenticated(message):
        log.warning("inbound %s: from %r without DMARC pass: dropped", row.pk, sender)
        # The player is told, at the account's address (the notification's recipient,
        # never the From, which may be forged), once per window.
        told = _once_per_window("unauthenticated", player.pk)
        return Outcome(
            State.DROPPED,
            "the sender's domain did not pass DMARC",
            "unauthenticated" if told else "",
            recipient=player,
            seat=seat,
            game=game,
        )
    base: dict[str, Any] = {"recipient": player, "seat": seat, "game": game}
    if row.size > settings.MAIL_IN_MAX_BYTES:
        return Outcome(State.REFUSED, f"too big ({row.size} bytes)", "too-big", **base)
    if _parts(message) > settings.MAIL_IN_MAX_PARTS:
        return Outcome(State.REFUSED, "too many parts", "too-many-parts", **base)
    limit = _rate_limit()
    try:
        ratelimit.take(limit, seat.pk)
        if charged is not None:
            charged.append(seat.pk)
    except ratelimit.RateLimited as limited:
        # Answered once per window: a flood gets one answer, not one each.
        return Outcome(
            State.REFUSED,
            "too many replies for this seat",
            "rate" if _once_per_window("limited", seat.pk) else "",
            details={"wait": limited.retry_after},
            **base,
        )
    if not player.play_by_email:
        return Outcome(State.REFUSED, "playing by email is turned off", "off", **base)
    if game.status != Game.Status.RUNNING or ticket.version != game.move_count:
        return Outcome(State.MOVED_ON, "the game has moved on", "moved-on", **base)

    text = reply_text(message).strip()
    base["move_text"] = text[:300]  # what was written, until a line is read as the move
    if not text:
        return Outcome(State.REFUSED, "no move in the reply", "unreadable", **base)
    view = rules.view(bridge.state_of(game), seat.position)
    try:
        move, read = parse_reply_read(text, view)
    except ReplyNotationError as error:  # the parser's refusal carries the player's messages
        messages = {"fr": error.message_fr, "en": error.message_en}
        return Outcome(
            State.REFUSED,
            f"unreadable move: {messages['en']}"[:300],
            "unreadable",
            details={"message": messages},
            **base,
        )
    base["move_text"] = read[:300]  # the answer echoes the line read, not the whole reply
    try:
        if isinstance(move, rules.Resign):
            played = services.game_resign(game_id=game.pk, player=player)
        else:
            played = services.move_submit(
                game_id=game.pk, player=player, version=ticket.version, move=move
            )
    except rules.IllegalMove as illegal:
        return Outcome(
            State.REFUSED,
            f"{illegal.rule}: {illegal.message_en}"[:300],
            "illegal",
            details={
                "rule": illegal.rule,
                "code": illegal.code,
                "message": {"fr": illegal.message_fr, "en": illegal.message_en},
            },
            **base,
        )
    except GameError as error:
        if error.code == "moved-on":
            return Outcome(State.MOVED_ON, "the game has moved on", "moved-on", **base)
        return Outcome(
            State.REFUSED,
            f"{error.code}: {in_both_languages(error.message)['en']}"[:300],
            "site",
            details={"code": error.code, "message": in_both_languages(error.message)},
            **base,
        )
    details: dict[str, Any] = {"move": played.pk}
    later = _queue_later(text, game.pk, seat, player)
    if later:
        details["later"] = later
    return Outcome(
        State.PLAYED,
        f"move {played.number} played",
        "played",
        details=details,
        **base,
    )


def _queue_later(text: str, game_id: int, seat: Seat, player: User) -> dict[str, Any]:
    """A ``plus tard :`` / ``later:`` line, after the move: queued for the player's next
    turn (``services.queued_move_set``, "if still legal"), read on the position the
    move left. What the answer says of it: {"line", "queued": bool, "message"}, or {}.

    Its refusal never undoes the move played: the answer tells it.
    """
    game = Game.objects.get(pk=game_id)
    if game.status != Game.Status.RUNNING:
        return {}
    view = rules.view(bridge.state_of(game), seat.drawn_position)
    try:
        found = parse_later_read(text, view)
    except ReplyNotationError as error:
        return {
            "line": error.line[:300],
            "queued": False,
            "message": {"fr": error.message_fr, "en": error.message_en},
        }
    if found is None:
        return {}
    move, line = found
    answer: dict[str, Any] = {"line": line[:300], "queued": False}
    try:
        services.queued_move_set(game_id=game.pk, player=player, version=game.move_count, move=move)
    except rules.IllegalMove as illegal:
        answer["message"] = {"fr": illegal.message_fr, "en": illegal.message_en}
    except GameError as error:
        answer["message"] = in_both_languages(error.message)
    else:
        answer["queued"] = True
    return answer


# A message whose processing fails this many times (a bug, not the player's
# reply: a refusal is an outcome, not a failure) is set aside, not retried forever.
MAX_ATTEMPTS = 10


def inbound_process(inbound_id: int) -> str | None:
    """Process the stored message once; returns its state, None when someone else has it.

    An error rolls everything back, counts an attempt and is raised; the sweep
    tries again, up to ``MAX_ATTEMPTS``, then the message is dropped with the error.
    """
    try:
        return _process(inbound_id)
    except Exception as error:
        _count_failure(inbound_id, error)
        raise


def _count_failure(inbound_id: int, error: Exception) -> None:
    with transaction.atomic():
        InboundMessage.objects.filter(pk=inbound_id, state=State.RECEIVED).update(
            attempts=F("attempts") + 1,
            reason=f"processing failed: {error.__class__.__name__}: {error}"[:300],
        )
        gave_up = InboundMessage.objects.filter(
            pk=inbound_id, state=State.RECEIVED, attempts__gte=MAX_ATTEMPTS
        ).update(state=State.DROPPED)
    log.error(
        "inbound %s: processing failed%s",
        inbound_id,
        f"; dropped after {MAX_ATTEMPTS} attempts" if gave_up else "; the sweep will retry",
        exc_info=error,
    )


def _process(inbound_id: int) -> str | None:
    # The allowance counts only replies whose outcome is stored: a processing that
    # fails (and rolls back) gives back what it took, so its retry is not refused.
    charged: list[int] = []
    try:
        return _process_once(inbound_id, charged)
    except BaseException:
        for seat_id in charged:
            ratelimit.give_back(_rate_limit(), seat_id)
        raise


def _process_once(inbound_id: int, charged: list[int]) -> str | None:
    with transaction.atomic():
        # The claim: a write first, so the row (PostgreSQL) or the file (SQLite) is ours
        # until commit; a second worker waits, then finds the message processed.
        claimed = InboundMessage.objects.filter(pk=inbound_id, state=State.RECEIVED).update(
            processed_at=timezone.now()
        )
        if not claimed:
            return None
        row = InboundMessage.objects.select_for_update().get(pk=inbound_id)
        outcome = _decide(row, charged)
        row.state = outcome.state
        row.reason = outcome.reason[:300]
        row.seat = outcome.seat
        row.game = outcome.game
        row.move_text = outcome.move_text
        if outcome.state == State.PLAYED:
            row.move_id = outcome.details["move"]
        if outcome.answer and outcome.recipient is not None:
            row.answered = emails.answer_write(
                row, outcome.answer, outcome.recipient, outcome.details
            )
        row.save()
    log.info("inbound %s: %s (%s)", inbound_id, row.state, row.reason)
    return row.state


def inbound_sweep(*, after_seconds: int | None = None) -> int:
    """Process the messages stored but not processed (a crash, a lost task); how many.

    Only those stored more than ``after_seconds`` ago (MAIL_IN_SWEEP_AFTER):
    younger ones have their task on its way.
    """
    wait = settings.MAIL_IN_SWEEP_AFTER if after_seconds is None else after_seconds
    cutoff = timezone.now() - timedelta(seconds=wait)
    pending = list(
        InboundMessage.objects.filter(state=State.RECEIVED, received_at__lte=cutoff)
        .order_by("received_at")
        .values_list("pk", flat=True)[:200]
    )
    done = 0
    for pk in pending:
        try:
            if inbound_process(pk) is not None:
                done += 1
        except Exception:
            log.exception("inbound %s could not be processed; the next sweep tries again", pk)
    return done


def inbound_purge_raw(*, days: int | None = None) -> int:
    """Empty the raw bytes of messages processed over ``days`` (MAIL_IN_KEEP_RAW_DAYS) ago.

    The row stays (its Message-ID keeps a message from being played twice, its
    state and reason say what it did); only the message itself is let go.
    """
    keep = settings.MAIL_IN_KEEP_RAW_DAYS if days is None else days
    cutoff = timezone.now() - timedelta(days=keep)
    return (
        InboundMessage.objects.exclude(state=State.RECEIVED)
        .filter(processed_at__lt=cutoff)
        .exclude(raw=b"")
        .update(raw=b"")
    )
