"""The table's chat."""

from __future__ import annotations

from django.db import transaction
from django.utils.translation import gettext
from django.utils.translation import gettext_lazy as _

from accounts.models import User
from games import notify
from games.errors import GameError
from games.models import ChatMessage
from games.services.kernel import locked_game, seat_of
from infra import ratelimit

CHAT_MAX_LENGTH = 500


@transaction.atomic
def chat_post(*, game_id: int, author: User, text: str) -> ChatMessage:
    """A short plain-text message to the table, for seated players only.

    Counts it on the game (``Game.chat_count``); the message's ``game`` is the
    row with the new count.
    """
    game = locked_game(game_id)
    seat_of(game, author)
    text = text.strip()
    if not text:
        raise GameError("chat-empty", _("Write something first."))
    if len(text) > CHAT_MAX_LENGTH:
        raise GameError(
            "chat-long", _("Messages are at most %(n)d characters.") % {"n": CHAT_MAX_LENGTH}
        )
    try:  # settings.DIAMINO_RATE_LIMITS["chat"], per author
        ratelimit.take(ratelimit.configured("chat"), *ratelimit.player_key(author))
    except ratelimit.RateLimited as exc:
        message = gettext("Slow down: you can write again in %(wait)s.") % {"wait": exc.wait}
        raise GameError("chat-fast", message, status=429) from None
    posted = ChatMessage.objects.create(game=game, author=author, text=text)
    # The game is locked: its count is this transaction's to change. Counted, not
    # added to, so that a message an older release posted without counting it
    # (during a deploy, after the migration) is counted from the next one on.
    game.chat_count = ChatMessage.objects.filter(game=game).count()
    game.save(update_fields=["chat_count"])
    notify.chat_posted(game, posted)
    return posted
