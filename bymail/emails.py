"""The answer to every reply, through the outbox, in the player's language.

``answer_write`` is called inside the processing's transaction
(``bymail/process.py``): the row commits with the message's state, once per
inbound message (its key). The answer is rendered when it is sent, from fresh
rows: the position it shows is the game's at that moment (the new board after
a move played, the current one when the game moved on), with the player's own
hand (``games.email_board.text_position``) and whose turn it is.

Kinds of answer (``context["answer"]``): ``played`` (with ``later``, when the reply
had a ``plus tard :`` line: queued for the next turn, or the reason it was not); ``illegal`` (a link to the rule and
the engine's message), ``unreadable`` (the parser's message, or no move
found), ``site`` (the site refused: the game is over…), ``too-big``,
``too-many-parts``, ``rate``, ``unauthenticated`` (the From did not pass DMARC:
told at the account's address, never the From): refused, with the position again; ``moved-on``;
``off`` (playing by email turned off) and ``noreply`` (written to the no-reply
address): instructions.

Every answer carries ``Auto-Submitted: auto-replied`` (RFC 3834), so a
well-behaved robot never answers it, and ``In-Reply-To`` the player's reply,
so it lands in the same thread. Its ``Reply-To`` is the seat's reply address
at the game's current version while the player plays by email: the player can
answer the answer with the next move.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from django.conf import settings
from django.core.mail import EmailMultiAlternatives
from django.urls import reverse
from django.utils import translation

from accounts.emails import absolute_url, build_email, has_confirmed_address
from accounts.models import User
from games.emails import game_context, playable
from games.models import Game, Seat
from games.reply_address import noreply_address
from notifications import kinds
from notifications.models import Notification
from notifications.services import notification_write

if TYPE_CHECKING:
    from bymail.models import InboundMessage

KIND = Notification.Kind.MAIL_ANSWER

REFUSALS = {"illegal", "unreadable", "site", "too-big", "too-many-parts", "rate", "unauthenticated"}


def answer_write(
    inbound: InboundMessage, answer: str, recipient: User, details: dict[str, Any]
) -> bool:
    """Put the answer to ``inbound`` in the outbox; True when a row was written."""
    row = notification_write(
        recipient=recipient,
        kind=KIND,
        key=f"mail-answer:{inbound.pk}",
        game_id=inbound.game_id,
        context={
            "inbound": inbound.pk,
            "answer": answer,
            "seat": inbound.seat_id,
            "move_text": inbound.move_text,
            **{
                k: v
                for k, v in details.items()
                if k in {"rule", "code", "message", "wait", "later"}
            },
        },
    )
    return row is not None


def _message_of(context: dict[str, Any], language: str) -> str:
    message = context.get("message") or {}
    return str(message.get(language) or message.get("en") or "")


def _rule_url(rule: str) -> str:
    """The address of ``rule`` (an id like ``R-PLACE-4``) on the rules page, or ""."""
    return absolute_url(f"{reverse('learn:rules')}#{rule}") if rule else ""


def _render(row: Notification) -> EmailMultiAlternatives:
    from bymail.models import InboundMessage

    user = row.recipient
    if user is None or not user.email:
        raise kinds.Skip("the player has no email address")
    context = dict(row.context)
    inbound = InboundMessage.objects.filter(pk=int(context.get("inbound") or 0)).first()
    game = row.game
    seat = (
        Seat.objects.select_related("player")
        .filter(pk=int(context.get("seat") or 0), game=game)
        .first()
        if game is not None
        else None
    )
    answer = context.get("answer", "")
    with translation.override(user.language):
        full: dict[str, Any] = {
            "answer": answer,
            "refused": answer in REFUSALS,
            "move_text": context.get("move_text", ""),
            # The rule the engine cited, as a link to it on the rules page: a bare
            # id like R-PLACE-4 would tell the player nothing.
            "rule_url": _rule_url(context.get("rule", "")),
            "reason": _message_of(context, user.language),
            "wait_minutes": max(1, int(context.get("wait", 60)) // 60),
            "max_kilobytes": settings.MAIL_IN_MAX_BYTES // 1024,
            "max_parts": settings.MAIL_IN_MAX_PARTS,
            "settings_url": absolute_url(reverse("accounts:settings")),
            "my_games_url": absolute_url(reverse("games:mine")),
        }
        later = context.get("later") or {}
        if later:
            # The "plus tard :" line: queued for the next turn, or why not.
            full["later_line"] = later.get("line", "")
            full["later_queued"] = bool(later.get("queued"))
            full["later_reason"] = _message_of(later, user.language)
        if game is not None:
            # The position with the player's hand, the seat's reply address at the
            # game's version (or the no-reply one), how to answer: as in a turn email.
            full.update(game_context(game, user))
            full.update(playable(game, user))
            full["my_turn"] = seat is not None and game.to_move_id == seat.pk
            full["game_over"] = game.status != Game.Status.RUNNING
        reply_to = full.get("reply_to") or noreply_address()
        message = build_email(user, "bymail_answer", full, kind="turn", reply_to=reply_to)
    message.extra_headers["Auto-Submitted"] = "auto-replied"
    if inbound is not None and inbound.message_id.startswith("<"):
        message.extra_headers["In-Reply-To"] = inbound.message_id
        message.extra_headers["References"] = inbound.message_id
    return message


def _why_not(recipient: User | None, kind: str) -> str:
    # The player wrote to us: the answer goes whatever their email preferences,
    # unless the account is gone or has no confirmed address any more.
    if recipient is None:
        return "no recipient"
    if not recipient.is_active or recipient.deleted_at is not None:
        return "deleted or inactive player"
    if not has_confirmed_address(recipient):
        return "no confirmed email address"
    return ""


def register_kind() -> None:
    kinds.register(KIND, render=_render, why_not=_why_not)
