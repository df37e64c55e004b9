"""The guided first game (/partie-guidee/): every step's position and move judged by rules/, and the pages."""

from __future__ import annotations

import html
import re
from typing import Any

import pytest
from django.test import Client

import rules
from games.models import Game
from learn import guided
from tests.factories import make_player

# The form fields board.js sends for each step's move (docs/NOTATION.md, "The move form").
FORM = (
    {"action": "place", "placements": "H8=C,I8=H,J8=A,K8=T"},
    {"action": "place", "placements": "H9=O,H10=U"},
    {"action": "place", "placements": "G10=b,I10=T"},
    {"action": "place", "placements": "L8=O,M8=Y,N8=E,O8=R", "returns": "K"},
    {"action": "exchange", "exchange": "W"},
    {"action": "place", "placements": "K5=N,K6=U,K7=I"},
)


def _text(page: bytes) -> str:
    body = re.sub(r"<(script|style)\b.*?</\1>", " ", page.decode(), flags=re.DOTALL)
    return re.sub(r"\s+", " ", html.unescape(re.sub(r"<[^>]+>", " ", body)))


def _covered(events: tuple[rules.Event, ...]) -> tuple[str, ...]:
    return tuple(e.kind for e in events if isinstance(e, rules.SquareCovered))


def test_the_steps_teach_what_the_issue_lists() -> None:
    assert [s.key for s in guided.STEPS] == [
        "start",
        "cross",
        "joker",
        "red-devil",
        "exchange",
        "out",
    ]
    assert len(FORM) == guided.LAST


@pytest.mark.parametrize("n", range(guided.LAST), ids=[s.key for s in guided.STEPS])
def test_every_step_is_legal_with_the_effects_the_page_states(n: int) -> None:
    step = guided.STEPS[n]
    done = guided.played(n)  # IllegalMove here: the page would ask for a move the rules refuse
    assert done.before.turn == guided.PLAYER and not done.before.over
    assert done.summary.words == step.expect_words
    assert done.summary.returned == step.expect_returned
    assert len(done.summary.drawn) == step.expect_drawn
    assert _covered(done.events) == step.expect_devils
    if step.reply:
        # The computer's prepared reply is legal too, and gives the turn back.
        assert done.reply_summary.words == step.expect_reply_words
        assert done.after.turn == guided.PLAYER and not done.after.over
    else:
        assert n == guided.LAST - 1


def test_the_first_word_starts_on_depart_and_every_word_is_french() -> None:
    words = rules.get_word_list("fr")
    first = guided.played(0).move
    assert isinstance(first, rules.Place)
    assert first.tiles[0][0] == "H8"  # R-PLACE-2: the Départ square
    assert not guided.position(0).started
    for n in range(guided.LAST):
        done = guided.played(n)
        for word in done.summary.words + done.reply_summary.words:
            assert word in words


def test_the_cross_word_uses_a_letter_on_the_board() -> None:
    done = guided.played(1)
    assert isinstance(done.move, rules.Place)
    assert len(done.move.tiles) < len(done.summary.words[0])


def test_the_joker_stands_for_a_letter_the_player_lacks() -> None:
    done = guided.played(2)
    assert "?" in done.before.hands[0] and "B" not in done.before.hands[0]
    assert isinstance(done.move, rules.Place)
    assert ("G10", "b") in done.move.tiles
    assert "?" not in done.after_move.hands[0]


def test_the_red_devil_gives_a_tile_back_sans_marque() -> None:
    done = guided.played(3)
    assert len(done.after_move.hands[0]) == len(done.before.hands[0]) - 4 - 1
    assert done.after_move.reserve[-1] == "K"  # returned tiles go to the bottom


def test_the_exchange_draws_as_many_as_it_puts_back() -> None:
    done = guided.played(4)
    assert isinstance(done.move, rules.Exchange)
    assert len(done.after_move.hands[0]) == len(done.before.hands[0])
    assert sorted(done.after_move.hands[0]) == sorted("NUI")


def test_going_out_on_the_black_square_doubles_the_computers_hand() -> None:
    done = guided.played(guided.LAST - 1)
    result = done.after.result
    assert result is not None and result.end == "out" and result.winners == (0,)
    assert result.black_square
    left = guided.hand_value(done.after, guided.COMPUTER)
    assert left == 13  # S1 L1 D2 M2 B3 F4
    assert result.scores[0] == 2 * left == 26


def test_a_legal_move_that_is_not_the_steps_is_off_lesson() -> None:
    with pytest.raises(guided.OffLesson):
        guided.judge(2, rules.Place(0, (("G10", "l"), ("I10", "T"))))  # LUT: a word, not BUT


def test_an_illegal_move_gets_the_engines_refusal() -> None:
    with pytest.raises(rules.IllegalMove) as refused:
        guided.judge(0, rules.Place(0, (("G8", "C"), ("H8", "H"))))
    assert refused.value.rule == "R-PLACE-2"


# --- the pages ---------------------------------------------------------------------


def _play_all(client: Client, **headers: Any) -> None:
    for n, fields in enumerate(FORM):
        answer = client.post("/partie-guidee/jouer/", {"version": n, **fields}, **headers)
        assert answer.status_code in (200, 302), answer.content[:500]


@pytest.mark.django_db
def test_an_anonymous_visitor_plays_the_whole_guided_game_and_no_game_row_is_written() -> None:
    client = Client()
    page = client.get("/partie-guidee/")
    assert page.status_code == 200
    assert "Étape 1 sur 6" in _text(page.content)
    _play_all(client, HTTP_HX_REQUEST="true")
    end = _text(client.get("/partie-guidee/").content)
    assert "Étape 6 terminée" in end
    assert "26 points" in end and "13 points" in end
    assert "Les dernières lettres de l’ordinateur : S L D M B F." in end
    assert Game.objects.count() == 0  # not rated, in no list, in nobody's games


@pytest.mark.django_db
def test_each_step_explains_what_the_engine_did(client: Client) -> None:
    client.post("/partie-guidee/jouer/", {"version": 0, **FORM[0]})
    client.post("/partie-guidee/jouer/", {"version": 1, **FORM[1]})
    client.post("/partie-guidee/jouer/", {"version": 2, **FORM[2]})
    client.post("/partie-guidee/jouer/", {"version": 3, **FORM[3]})
    text = _text(client.get("/partie-guidee/", HTTP_ACCEPT_LANGUAGE="fr").content)
    assert "Diable rouge en O8" in text
    assert "Rendue à la réserve : K." in text
    assert "L’ordinateur a répondu N7↓ N(E)Z : NEZ." in text
    assert "Étape 5 sur 6" in text


@pytest.mark.django_db
def test_a_wrong_move_is_refused_with_the_engines_message_and_changes_nothing(
    client: Client,
) -> None:
    answer = client.post(
        "/partie-guidee/jouer/",
        {"version": 0, "action": "place", "placements": "G8=C,H8=H"},
        HTTP_HX_REQUEST="true",
    )
    assert answer.status_code == 400
    text = _text(answer.content)
    # The engine's reason, then the step's move in one line.
    assert "Le premier mot part de H8" in text and "Étape 1 : jouez H8→ CHAT." in text
    assert "Étape 1 sur 6" in _text(client.get("/partie-guidee/").content)


@pytest.mark.django_db
def test_a_legal_move_off_the_lesson_is_refused_in_english(client: Client) -> None:
    client.cookies["django_language"] = "en"
    answer = client.post(
        "/partie-guidee/jouer/",
        {"version": 0, "action": "place", "placements": "H8=T,I8=O,J8=U,K8=T"},
        HTTP_HX_REQUEST="true",
        HTTP_ACCEPT_LANGUAGE="en",
    )
    assert answer.status_code == 400
    assert "not this step's" in _text(answer.content)
    assert "Step 1 of 6" in _text(client.get("/partie-guidee/", HTTP_ACCEPT_LANGUAGE="en").content)


@pytest.mark.django_db
def test_the_preview_judges_with_the_engine_and_adds_the_guidance(client: Client) -> None:
    bad = client.post(
        "/partie-guidee/apercu/", {"version": 0, "action": "place", "placements": "G8=C,H8=H"}
    )
    assert 'data-ok="false"' in bad.content.decode()
    # The step's move in one line, not its whole text again (it stays above the board).
    assert "Étape 1 : jouez H8→ CHAT." in _text(bad.content)
    assert str(guided.STEPS[0].instruction)[:40] not in _text(bad.content)
    good = client.post("/partie-guidee/apercu/", {"version": 0, **FORM[0]})
    assert 'data-ok="true"' in good.content.decode() and "CHAT" in _text(good.content)


@pytest.mark.django_db
def test_another_tile_given_back_keeps_the_choice_open(client: Client) -> None:
    for n in range(3):
        client.post("/partie-guidee/jouer/", {"version": n, **FORM[n]})
    fields = {"version": 3, **FORM[3]}
    owed = client.post("/partie-guidee/apercu/", {**fields, "returns": ""}).content.decode()
    assert 'data-returns-needed="1"' in owed and 'data-ok="false"' in owed
    other = client.post("/partie-guidee/apercu/", {**fields, "returns": "W"})
    # Legal (any tile may go back), not the step's: the picker stays, the guidance says K.
    assert 'data-returns-needed="1"' in other.content.decode()
    assert "choisissez le K" in _text(other.content)
    refused = client.post("/partie-guidee/jouer/", {**fields, "returns": "W"})
    assert refused.status_code == 400
    assert "Étape 4 sur 6" in _text(client.get("/partie-guidee/").content)


@pytest.mark.django_db
def test_restart_from_the_beginning_or_replay_the_last_step(client: Client) -> None:
    _play_all(client)
    client.post("/partie-guidee/recommencer/", {"step": guided.LAST - 1})
    assert "Étape 6 sur 6" in _text(client.get("/partie-guidee/").content)
    client.post("/partie-guidee/recommencer/", {"step": "0"})
    assert "Étape 1 sur 6" in _text(client.get("/partie-guidee/").content)
    # A step not reached yet cannot be jumped to: back to the start.
    client.post("/partie-guidee/recommencer/", {"step": "4"})
    assert "Étape 1 sur 6" in _text(client.get("/partie-guidee/").content)


@pytest.mark.django_db
def test_a_stale_page_is_sent_the_step_the_player_is_at(client: Client) -> None:
    client.post("/partie-guidee/jouer/", {"version": 0, **FORM[0]})
    again = client.post("/partie-guidee/jouer/", {"version": 0, **FORM[0]}, HTTP_HX_REQUEST="true")
    assert again.status_code == 200
    assert "Étape 2 sur 6" in _text(again.content)


@pytest.mark.django_db
def test_a_signed_in_player_gets_no_game_either(client: Client) -> None:
    player = make_player("camille")
    client.force_login(player)
    _play_all(client)
    assert Game.objects.count() == 0
    assert not player.seats.exists()


@pytest.mark.django_db
def test_the_home_page_links_to_the_guided_game(client: Client) -> None:
    assert 'href="/partie-guidee/"' in client.get("/").content.decode()
    assert 'href="/partie-guidee/"' in client.get("/regles/").content.decode()


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("language", "intro"),
    [
        ("en", "16 tiles for you and 12 for the computer"),
        ("fr", "16 carrés pour vous et 12 pour l’ordinateur"),
    ],
)
def test_the_intro_counts_the_tiles_each_side_really_holds(client: Client, language, intro) -> None:
    hands = guided.position(0).hands
    assert (len(hands[guided.PLAYER]), len(hands[guided.COMPUTER])) == (16, 12)
    assert intro in _text(client.get("/partie-guidee/", HTTP_ACCEPT_LANGUAGE=language).content)


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("language", "named"),
    [
        ("en", ("cross-word", "red devil", "exchange", "going out", "green devils", "passing")),
        (
            "fr",
            ("mot croisé", "diable rouge", "échange", "fin de partie", "diables verts", "passe"),
        ),
    ],
)
def test_the_ending_claims_only_the_moves_the_steps_showed(client: Client, language, named) -> None:
    # The steps: no green devil and no pass; the ending sends to the rules for those.
    assert [step.key for step in guided.STEPS] == [
        "start",
        "cross",
        "joker",
        "red-devil",
        "exchange",
        "out",
    ]
    _play_all(client, HTTP_ACCEPT_LANGUAGE=language)
    end = _text(client.get("/partie-guidee/", HTTP_ACCEPT_LANGUAGE=language).content)
    assert "every move" not in end and "tous les coups" not in end
    for words in named:
        assert words in end


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("language", "says"),
    [
        ("en", "Good, go on: H on I8, A on J8, T on K8."),
        ("fr", "Bien, continuez\u00a0: H en I8, A en J8, T en K8."),
    ],
)
def test_a_single_tile_of_the_steps_word_reads_as_guidance_not_an_error(
    client: Client, language, says
) -> None:
    client.get("/partie-guidee/")
    answer = client.post(
        "/partie-guidee/apercu/",
        {"version": 0, "action": "place", "placements": "H8=C"},
        HTTP_HX_REQUEST="true",
        HTTP_ACCEPT_LANGUAGE=language,
    )
    page = answer.content.decode()
    assert answer.status_code == 200
    assert 'class="preview is-guidance"' in page and "error-mark" not in page
    assert says in html.unescape(page)
    # The whole step is not repeated: the instruction stays where it is, above.
    assert str(guided.STEPS[0].instruction)[:40] not in html.unescape(page)


@pytest.mark.django_db
def test_a_tile_off_the_steps_word_is_still_refused_with_the_engines_message(
    client: Client,
) -> None:
    client.get("/partie-guidee/")
    page = client.post(
        "/partie-guidee/apercu/",
        {"version": 0, "action": "place", "placements": "A1=C"},
        HTTP_HX_REQUEST="true",
        HTTP_ACCEPT_LANGUAGE="en",
    ).content.decode()
    assert "is-error" in page and "error-mark" in page
