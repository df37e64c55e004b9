"""The table's chat: the message count on the game, and the chat as the game page shows it.

The page reads the messages only when ``Game.chat_count`` says there are some,
so every way a message comes or goes must keep the count true.
"""

from __future__ import annotations

from datetime import UTC, datetime

import pytest
from django.contrib import admin
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from accounts.services import user_delete
from games import services
from games.admin import ChatInline
from games.errors import GameError
from games.models import ChatMessage, Game
from tests.factories import make_player, page_as
from tests.games.conftest import start_game

pytestmark = pytest.mark.django_db


@pytest.fixture
def game(alice, bob) -> Game:
    return start_game([alice, bob])


def chat_count(game: Game) -> int:
    game.refresh_from_db(fields=["chat_count"])
    return game.chat_count


def page(user, game: Game, *, language: str = "en") -> str:
    return page_as(user, reverse("games:page", args=[game.pk]), language=language)


def chat_queries(user, game: Game) -> tuple[int, str]:
    """How many queries the page ran for ``user``, and its HTML (in English)."""
    user.language = "en"
    user.save(update_fields=["language"])
    client = Client()
    client.force_login(user)
    client.get(reverse("games:page", args=[game.pk]))  # the session and caches warmed
    with CaptureQueriesContext(connection) as queries:
        html = client.get(reverse("games:page", args=[game.pk])).content.decode()
    return len(queries), html


# --- the count ----------------------------------------------------------------------


def test_each_message_posted_counts_on_the_game(game, alice, bob) -> None:
    assert chat_count(game) == 0
    posted = services.chat_post(game_id=game.pk, author=alice, text="Bonjour")
    assert posted.game.chat_count == 1
    services.chat_post(game_id=game.pk, author=bob, text="Salut")
    assert chat_count(game) == 2 == game.chat_messages.count()


def test_a_message_an_older_release_did_not_count_is_counted_with_the_next_one(
    game, alice, bob
) -> None:
    # During a deploy, after the migration, a process of the release before posts
    # without counting: the table's next message counts both.
    ChatMessage.objects.create(game=game, author=alice, text="posted by the old code")
    assert chat_count(game) == 0
    services.chat_post(game_id=game.pk, author=bob, text="Salut")
    assert chat_count(game) == 2


def test_a_refused_message_is_not_counted(game, alice, outsider) -> None:
    services.chat_post(game_id=game.pk, author=alice, text="Bonjour")
    refused = (
        (outsider, "hello"),  # not seated
        (alice, "   "),  # empty
        (alice, "x" * 501),  # too long
    )
    for author, text in refused:
        with pytest.raises(GameError):
            services.chat_post(game_id=game.pk, author=author, text=text)
    assert chat_count(game) == 1 == game.chat_messages.count()


def test_a_message_refused_for_writing_too_fast_is_not_counted(game, alice) -> None:
    for _ in range(6):  # the "chat" limit: 6 a minute
        services.chat_post(game_id=game.pk, author=alice, text="encore")
    with pytest.raises(GameError) as error:
        services.chat_post(game_id=game.pk, author=alice, text="trop")
    assert error.value.code == "chat-fast"
    assert chat_count(game) == 6 == game.chat_messages.count()


def test_an_annulled_game_keeps_its_messages_and_their_count(game, alice, bob) -> None:
    services.chat_post(game_id=game.pk, author=alice, text="Tu triches !")
    staff = make_player("modo", is_staff=True)
    services.game_annul(game_id=game.pk, by=staff, reason="Abusive chat")
    assert chat_count(game) == 1
    assert "Tu triches !" in page(bob, game)


def test_a_deleted_author_s_messages_stay_counted_and_shown_as_a_former_player(
    game, alice, bob
) -> None:
    services.chat_post(game_id=game.pk, author=alice, text="Au revoir")
    user_delete(user=alice)
    assert chat_count(game) == 1
    html = page(bob, game)
    assert '<span class="chat-author">Former player</span>' in html and "Au revoir" in html


def test_staff_cannot_delete_a_message_in_the_admin() -> None:
    # The count is kept by chat_post alone: no admin page may remove a message behind it.
    assert not admin.site.is_registered(ChatMessage)
    assert ChatInline.can_delete is False


def test_a_table_deleted_when_its_last_player_leaves_takes_its_messages(alice) -> None:
    table = services.game_create(creator=alice, mode="marque", seats=2)
    services.chat_post(game_id=table.pk, author=alice, text="Quelqu'un ?")
    services.game_leave(game_id=table.pk, player=alice)
    assert not Game.objects.filter(pk=table.pk).exists()
    assert not ChatMessage.objects.filter(game_id=table.pk).exists()


def test_the_migration_counts_the_messages_already_written(game, alice) -> None:
    from importlib import import_module

    from django.apps import apps

    ChatMessage.objects.create(game=game, author=alice, text="before the count")
    ChatMessage.objects.create(game=game, author=alice, text="also before")
    migration = import_module("games.migrations.0007_game_chat_count")
    migration.count_the_messages(apps, None)
    assert chat_count(game) == 2


# --- the page ---------------------------------------------------------------------------


def test_a_page_with_no_message_reads_no_message_and_one_query_less(game, alice, bob) -> None:
    empty_queries, html = chat_queries(alice, game)
    assert '<li class="muted">No message yet.</li>' in html
    assert 'name="text"' in html and 'id="chat-text"' in html  # a seated player may write
    services.chat_post(game_id=game.pk, author=bob, text="Salut")
    with_message, html = chat_queries(alice, game)
    assert with_message == empty_queries + 1
    assert "Salut" in html and "No message yet." not in html


def test_a_page_with_no_message_runs_no_chat_query(game, alice) -> None:
    client = Client()
    client.force_login(alice)
    with CaptureQueriesContext(connection) as queries:
        html = client.get(reverse("games:page", args=[game.pk])).content.decode()
    assert not any("games_chatmessage" in q["sql"] for q in queries)
    assert '<li class="muted">Aucun message pour l’instant.</li>' in html  # alice reads French


def test_a_spectator_sees_no_chat_when_there_is_no_message(game, outsider, alice) -> None:
    assert 'id="chat-messages"' not in page(outsider, game)
    services.chat_post(game_id=game.pk, author=alice, text="Bonjour")
    html = page(outsider, game)
    assert "Bonjour" in html and 'name="text"' not in html


def test_the_first_message_posted_through_htmx_comes_back_in_the_chat(game, alice) -> None:
    client = Client()
    client.force_login(alice)
    response = client.post(
        reverse("games:chat", args=[game.pk]), {"text": "Premier !"}, HTTP_HX_REQUEST="true"
    )
    html = response.content.decode()
    assert response.status_code == 200 and html.strip().startswith('<div id="chat-body">')
    assert "<p>Premier !</p>" in html and "No message yet." not in html


def test_an_author_and_a_text_with_markup_are_escaped(bob) -> None:
    author = make_player("tricky", display_name="<b>Al</b> & Co")
    game = start_game([author, bob])
    services.chat_post(game_id=game.pk, author=author, text="<b>gras</b> & co")
    html = page(author, game)
    assert '<span class="chat-author">&lt;b&gt;Al&lt;/b&gt; &amp; Co (@tricky)</span>' in html
    assert "<p>&lt;b&gt;gras&lt;/b&gt; &amp; co</p>" in html


@pytest.mark.parametrize(
    ("language", "shown"), [("fr", "01/03/2025 07:30"), ("en", "03/01/2025 7:30 AM")]
)
def test_a_message_s_time_is_in_the_viewer_s_time_zone_and_language(
    game, alice, language, shown
) -> None:
    posted = services.chat_post(game_id=game.pk, author=alice, text="Bonjour")
    at = datetime(2025, 3, 1, 12, 30, tzinfo=UTC)
    ChatMessage.objects.filter(pk=posted.pk).update(created_at=at)
    alice.time_zone = "America/Toronto"
    alice.save(update_fields=["time_zone"])
    html = page(alice, game, language=language)
    assert f'<time datetime="2025-03-01T07:30:00-05:00">{shown}</time>' in html
