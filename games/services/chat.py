"""The table's chat."""

from __future__ import annotations

from datetime import timedelta

from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext_lazy as _

from accounts.models import User
from games.errors import GameError
from games.models import ChatMessage
from games.services.kernel import locked_game, seat_of

CHAT_MAX_LENGTH = 500


CHAT_MAX_PER_MINUTE = 6


@transaction.atomic
def chat_post(*, game_id: int, author: User, text: str) -> ChatMessage:
    """A short plain-text message to the table, for seated players only."""
    game = locked_game(game_id)
    seat_of(game, author)
    text = text.strip()
    if not text:
        raise GameError("chat-empty", _("Write something first."))
    if len(text) > CHAT_MAX_LENGTH:
        raise GameError(
            "chat-long", _("Messages are at most %(n)d characters.") % {"n": CHAT_MAX_LENGTH}
        )
    minute_ago = timezone.now() - timedelta(minutes=1)
    recent = game.chat_messages.filter(author=author, created_at__gte=minute_ago).count()
    if recent >= CHAT_MAX_PER_MINUTE:
        raise GameError(
            "chat-fast", _("Slow down: wait a minute before writing again."), status=429
        )
    return ChatMessage.objects.create(game=game, author=author, text=text)
