"""Staff see what each reply did, read-only."""

from __future__ import annotations

import pytest
from django.test import Client
from django.urls import reverse
from django.utils.html import escape

from bymail.models import InboundMessage
from bymail.store import message_store
from tests.bymail.conftest import address_of, reply
from tests.factories import make_player


@pytest.fixture
def admin_client_for_staff(transactional_db) -> Client:
    client = Client()
    client.force_login(make_player("root", is_staff=True, is_superuser=True, language="en"))
    return client


def test_the_admin_lists_the_replies_with_what_they_did_and_changes_nothing(
    game, admin_client_for_staff
):
    message = reply("H8 CHAT", to=address_of(game, 0))
    row, _ = message_store(message.as_bytes(), via="smtp", recipient=address_of(game, 0))
    row.refresh_from_db()
    listing = admin_client_for_staff.get(reverse("admin:bymail_inboundmessage_changelist"))
    assert listing.status_code == 200
    assert "move 1 played" in listing.content.decode()
    page = admin_client_for_staff.get(reverse("admin:bymail_inboundmessage_change", args=[row.pk]))
    assert page.status_code == 200
    assert escape(row.message_id) in page.content.decode()
    posted = admin_client_for_staff.post(
        reverse("admin:bymail_inboundmessage_change", args=[row.pk]), {"state": "received"}
    )
    assert posted.status_code == 403
    assert InboundMessage.objects.get(pk=row.pk).state == InboundMessage.State.PLAYED
    assert admin_client_for_staff.get(reverse("admin:bymail_inboundmessage_add")).status_code == 403


def test_staff_cannot_delete_a_reply_its_message_id_keeps_it_from_playing_twice(
    game, admin_client_for_staff
):
    to = address_of(game, 0)  # a resend goes to the address the email had
    message = reply("H8 CHAT", to=to)
    row, _ = message_store(message.as_bytes(), via="smtp", recipient=to)
    delete = reverse("admin:bymail_inboundmessage_delete", args=[row.pk])
    assert admin_client_for_staff.post(delete, {"post": "yes"}).status_code == 403
    bulk = admin_client_for_staff.post(
        reverse("admin:bymail_inboundmessage_changelist"),
        {"action": "delete_selected", "_selected_action": [row.pk], "post": "yes"},
    )
    assert bulk.status_code in {200, 302}
    assert InboundMessage.objects.filter(pk=row.pk).exists()
    again, new = message_store(message.as_bytes(), via="smtp", recipient=to)
    assert not new and again.pk == row.pk
