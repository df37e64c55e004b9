"""Replies handed to the SMTP server of `make mail-in`: stored, then played or answered."""

from __future__ import annotations

import pytest

from bymail.models import InboundMessage
from games.models import Move
from tests.bymail.conftest import (
    address_of,
    answers_to,
    processed,
    reply,
    send,
)

State = InboundMessage.State
pytestmark = pytest.mark.usefixtures("smtp_server")


def test_a_plain_reply_plays_the_move_and_is_answered_with_the_new_board(game):
    message = reply("H8 CHAT\n", to=address_of(game, 0))
    send(message)
    row = processed(message)
    assert (row.state, row.via, row.answered) == (State.PLAYED, "smtp", True)
    game.refresh_from_db()
    assert game.move_count == 1
    move = Move.objects.get(game=game)
    assert move.words == ["CHAT"]
    (answer,) = answers_to("alice@example.com")
    assert "Move played" in answer.subject
    assert "H8 CHAT" in answer.body
    assert "It is bob's turn." in answer.body
    assert answer.extra_headers["Auto-Submitted"] == "auto-replied"
    assert answer.extra_headers["In-Reply-To"] == message["Message-ID"]
    # The other player is told as for a move made on the site: Bob's turn email, in French.
    (turn,) = answers_to("bob@example.com")
    assert "À vous" in turn.subject or "votre tour" in turn.subject.lower()
