"""The screen-reader mode (issue #37): the game told in sentences, moves typed, in both languages.

The sentences (``games/text_game.py``) are checked on positions played through
the services; the page's text mode (the setting, or ``?texte=1``) and its typed
moves through the test client.
"""

from __future__ import annotations

import pytest
from django.urls import reverse
from django.utils import translation

from games import selectors, text_game
from games.models import Game
from tests.browser import positions as pos
from tests.factories import client_as, make_player
from tests.games.conftest import rig, seat_at, start_game

pytestmark = pytest.mark.django_db


def _game(hands=("CHATEAUXESLN", "RIKWOMPBDLN?"), mode="marque") -> Game:
    game = start_game([make_player("alice"), make_player("bob")], mode=mode)
    return rig(game, hands)


def plain(text: str) -> str:
    """French sets a no-break space before ":" and ";": compared here as a space."""
    return text.replace("\xa0", " ")


def _view(game: Game, position: int = 0):
    game.refresh_from_db()
    return selectors.game_view(game, seat_at(game, position).player)


# --- the sentences ---------------------------------------------------------------------


@pytest.mark.parametrize(
    ("language", "row", "column", "word"),
    [
        (
            "en",
            "Row 8: empty from A to G; C H A T from H to K; empty from L to O. "
            "Special squares still free: red devil A8, red devil O8.",
            "Column H: empty from 1 to 7; C on 8; empty from 9 to 15. "
            "Special squares still free: red devil H1, red devil H15.",
            "CHAT, from H8 across",
        ),
        (
            "fr",
            "Ligne 8 : vide de A à G ; C H A T de H à K ; vide de L à O. "
            "Cases spéciales encore libres : diable rouge A8, diable rouge O8.",
            "Colonne H : vide de 1 à 7 ; C en 8 ; vide de 9 à 15. "
            "Cases spéciales encore libres : diable rouge H1, diable rouge H15.",
            "CHAT, en H8 horizontal",
        ),
    ],
)
def test_a_row_a_column_and_the_words_are_read_in_the_readers_language(
    language, row, column, word
) -> None:
    game = pos.played(_game(), "H8→ CHAT")
    view = _view(game)
    with translation.override(language):
        assert plain(text_game.row_text(view, 8)) == row
        assert plain(text_game.column_text(view, "H")) == column
        assert [plain(w.sentence()) for w in text_game.board_words(view)] == [word]
        assert plain(text_game.reading(view, "8")) == row
        assert plain(text_game.reading(view, "h")) == column


def test_a_diable_on_the_board_is_named_where_it_stands() -> None:
    game = pos.played(_game(("CHA?EUXESLNT", "RIKWOMPBDLNE")), "H8→ CHAt")
    view = _view(game)
    with translation.override("en"):
        assert text_game.words_text(view) == "CHAT, from H8 across (joker: T)."
        assert "C H A T from H to K (joker: T)" in text_game.row_text(view, 8)
        assert text_game.reading(view, "K8").startswith("K8: T, joker.")


def test_around_a_square_names_its_neighbours_and_their_kind() -> None:
    game = pos.played(_game(), "H8→ CHAT")
    view = _view(game)
    with translation.override("en"):
        assert text_game.reading(view, "h8") == (
            "H8: C, start square. Above, H7: empty. Below, H9: empty. "
            "Left, G8: empty. Right, I8: H."
        )
    with translation.override("fr"):
        assert plain(text_game.reading(view, "A1")).startswith("A1 : vide, diable rouge.")


def test_a_reading_it_cannot_read_says_what_it_can() -> None:
    view = _view(_game())
    with translation.override("en"):
        for asked in ("P", "16", "Z9", "hello"):
            assert text_game.reading(view, asked).startswith("Type a row number from 1 to 15")
        assert text_game.reading(view, "words") == "No word on the board yet."


def test_the_summary_says_the_turn_scores_hands_reserve_tiles_and_last_move() -> None:
    game = pos.played(_game(), "H8→ CHAT")
    first, second = (seat_at(game, n).player.username for n in (0, 1))
    view = _view(game, 1)  # the second player, to move
    with translation.override("en"):
        lines = text_game.summary(view)
    assert lines[0] == "Your turn."
    assert lines[1].startswith("Deadline: ")
    assert lines[2] == f"Scores: {first} 0, {second} 0."  # avec marque: only devils score
    assert lines[3] == f"Tiles in hand: {first} 12, {second} 12."
    assert lines[4] == f"Reserve: {view.reserve_size} tiles." and view.reserve_size > 70
    assert lines[5].startswith("Your tiles (12): R 1, I 1, K ") and "joker 0" in lines[5]
    assert lines[6] == f"Last move: {first} placed CHAT from H8 across, making CHAT."
    with translation.override("fr"):
        lines = [plain(line) for line in text_game.summary(_view(game, 0))]
    assert lines[0] == f"{second} doit jouer."
    assert lines[-1] == f"Dernier coup : {first} a posé CHAT en H8 horizontal, formant CHAT."
    assert lines[5].startswith("Vos lettres (12) : ")


def test_the_summary_never_holds_another_players_tiles() -> None:
    view = _view(_game(), 0)
    text = " ".join(text_game.summary(view))
    assert "Your tiles" in text or "Vos lettres" in text
    assert "W 10" not in text and "K 10" not in text  # the other player's W and K


# --- the page --------------------------------------------------------------------------


def test_the_setting_or_the_skip_link_gives_the_text_game(client) -> None:
    game = _game()
    alice = seat_at(game, 0).player
    page = reverse("games:page", args=[game.pk])
    client = client_as(alice, "en")
    html = client.get(page).content.decode()
    assert f'href="{page}?texte=1#text-game">Skip to the text game</a>' in html
    assert 'id="board"' in html and 'id="text-summary"' not in html
    html = client.get(page, {"texte": "1"}).content.decode()
    assert 'id="text-summary"' in html and 'role="grid"' not in html
    resign = html[html.index('class="resign-form"') :]
    assert 'name="texte" value="1"' in resign[: resign.index("</form>")]  # it stays as text
    alice.screen_reader = True
    alice.save(update_fields=["screen_reader"])
    html = client.get(page).content.decode()
    assert 'id="text-summary"' in html and "Your turn." in html


def test_a_typed_move_is_read_back_then_played_and_the_reply_announced() -> None:
    game = _game()
    alice, bob = seat_at(game, 0).player, seat_at(game, 1).player
    alice.screen_reader = True
    alice.save(update_fields=["screen_reader"])
    client = client_as(alice, "en")
    preview = reverse("games:text_preview", args=[game.pk])
    answer = client.post(preview, {"version": 0, "coup": "H8 CHAT"}, headers={"HX-Request": "true"})
    text = answer.content.decode()
    assert "Tiles placed: C on H8, H on I8, A on J8, T on K8." in text
    assert "Words: CHAT." in text and "0 points." in text
    game.refresh_from_db()
    assert game.move_count == 0  # a read-back plays nothing

    play = reverse("games:text_play", args=[game.pk])
    answer = client.post(play, {"version": 0, "coup": "H8 CHAT"}, headers={"HX-Request": "true"})
    text = answer.content.decode()
    said = f"{alice.username} placed CHAT from H8 across, making CHAT. {bob.username} is to play."
    assert f'data-announce="{said}"' in text
    game.refresh_from_db()
    assert game.move_count == 1


@pytest.mark.parametrize(
    ("language", "typed", "said"),
    [
        ("en", "H8 CHAX", "CHAX is not a word."),
        ("fr", "8H CHAT", "H8"),
    ],
)
def test_a_wrong_move_is_refused_in_words_and_the_field_keeps_it(language, typed, said) -> None:
    game = _game()
    alice = seat_at(game, 0).player
    client = client_as(alice, language)
    play = reverse("games:text_play", args=[game.pk])
    answer = client.post(
        play, {"version": 0, "coup": typed, "texte": "1"}, headers={"HX-Request": "true"}
    )
    text = answer.content.decode()
    assert 'role="alert"' in text and said in text
    assert f'value="{typed}"' in text
    game.refresh_from_db()
    assert game.move_count == 0


def test_a_move_on_a_stale_page_says_the_game_moved_on_and_reads_the_new_position() -> None:
    game = _game()
    alice, bob = seat_at(game, 0).player, seat_at(game, 1).player
    pos.played(game, "H8→ CHAT")
    client = client_as(bob, "en")
    play = reverse("games:text_play", args=[game.pk])
    answer = client.post(
        play, {"version": 0, "coup": "pass", "texte": "1"}, headers={"HX-Request": "true"}
    )
    text = answer.content.decode()
    assert "The game has moved on" in text and "The summary below is the new position." in text
    said = f"{alice.username} placed CHAT from H8 across, making CHAT. Your turn."
    assert f'data-announce="{said}"' in text
    game.refresh_from_db()
    assert game.move_count == 1


def test_a_poll_announces_a_move_and_a_chat_message_once() -> None:
    from games import services

    game = _game()
    alice, bob = seat_at(game, 0).player, seat_at(game, 1).player
    client = client_as(bob, "en")
    page = reverse("games:page", args=[game.pk])
    game.refresh_from_db()
    token, seen = selectors.live_token(game), str(game.chat_count)  # what the page had
    pos.played(game, "H8→ CHAT")
    services.chat_post(game_id=game.pk, author=alice, text="Bonne chance")
    answer = client.get(
        page, {"since": token, "chat": seen, "texte": "1"}, headers={"HX-Request": "true"}
    )
    text = answer.content.decode()
    said = (
        f"{alice.username} placed CHAT from H8 across, making CHAT. "
        f"Message from {alice.username}: Bonne chance. Your turn."
    )
    assert f'data-announce="{said}"' in text
    game.refresh_from_db()
    same = client.get(
        page,
        {"since": selectors.live_token(game), "chat": str(game.chat_count), "texte": "1"},
        headers={"HX-Request": "true"},
    )
    assert same.status_code == 204


# --- the guided first game ----------------------------------------------------------------


@pytest.mark.parametrize("language", ["fr", "en"])
def test_the_guided_game_is_played_typed_in_the_screen_reader_mode(language) -> None:
    """Each step says its move as it is typed; a typo is refused and kept; the steps go by."""
    from learn import guided
    from learn.views import SESSION_KEY

    player = make_player("zoe", screen_reader=True)
    client = client_as(player, language)
    page = reverse("learn:guided")
    play = reverse("learn:guided_play")
    html = client.get(page).content.decode()
    assert 'id="text-move"' in html and 'role="grid"' not in html
    answer = client.post(play, {"version": 0, "coup": "H8 CHAX"}, headers={"HX-Request": "true"})
    assert (
        'role="alert"' in answer.content.decode() and 'value="H8 CHAX"' in answer.content.decode()
    )
    for n in range(guided.LAST):
        step = guided.STEPS[n]
        with translation.override(language):
            typed = (
                text_game.typed_placement(step.move, step.returns)
                if step.move
                else ("échange " if language == "fr" else "exchange ") + step.exchange
            )
            assert typed in client.get(page).content.decode()
        answer = client.post(play, {"version": n, "coup": typed}, headers={"HX-Request": "true"})
        text = answer.content.decode()
        assert answer.status_code == 200 and 'role="alert"' not in text, (n, typed)
        assert 'data-announce="' in text and ("Step" in text or "Étape" in text)
    assert client.session[SESSION_KEY] == guided.LAST
