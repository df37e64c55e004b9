"""The rules page (/regles/): the whole game in plain words, with examples the engine judged."""

from __future__ import annotations

import html
import re
from pathlib import Path

import pytest
from django.conf import settings
from django.test import Client

import rules
from learn.examples import BY_KEY, EXAMPLES, judge, position
from tests.factories import make_player
from tests.french import misplaced_marks

SHARED_RULEBOOK = Path(settings.BASE_DIR).parent / "shared" / "seed" / "diamino-regles.txt"


def _text(page: str) -> str:
    """The page's visible words: tags dropped, entities decoded, spaces folded."""
    body = re.sub(r"<(script|style)\b.*?</\1>", " ", page, flags=re.DOTALL)
    return re.sub(r"[ \t\r\n]+", " ", html.unescape(re.sub(r"<[^>]+>", " ", body)))


@pytest.mark.parametrize("key", [example.key for example in EXAMPLES])
def test_every_example_is_legal_with_the_effects_the_page_states(key: str) -> None:
    example = BY_KEY[key]
    judged = judge(key)  # IllegalMove here: the page would teach a move the rules refuse
    assert judged.effects == example.expect
    assert judged.notation == example.move + (" −1" if example.returns else "")


def test_the_examples_cover_what_a_newcomer_must_see() -> None:
    shown = {(judge(e.key).mode, e.key.split("-")[0]) for e in EXAMPLES}
    # R-PLACE-2, R-PLACE-4, and each devil and the black square in both modes.
    assert ("marque", "first") in shown
    assert ("marque", "cross") in shown
    for mode in ("marque", "sans-marque"):
        assert (mode, "red") in shown
        assert (mode, "green") in shown
        assert (mode, "black") in shown


def test_the_red_devil_example_covers_a_red_devil_and_the_green_one_a_green_devil() -> None:
    for key, kind in (("red-sans", "R"), ("green-marque", "G"), ("black-marque", "#")):
        example = BY_KEY[key]
        state = position(example)
        move = rules.notation_to_move(example.move, state, 0)
        layout = state.config.layout
        assert isinstance(move, rules.Place)
        covered = {layout.cells[layout.index(square)] for square, _ in move.tiles}
        assert kind in covered, key


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("language", "heading", "other"),
    [
        ("fr", "Comment jouer au Diamino Compétition", "How to play Diamino"),
        ("en", "How to play Diamino Compétition", "Comment jouer au Diamino"),
    ],
)
def test_the_rules_page_reads_in_the_readers_language(
    client: Client, language: str, heading: str, other: str
) -> None:
    response = client.get("/regles/", HTTP_ACCEPT_LANGUAGE=language)
    assert response.status_code == 200
    text = _text(response.content.decode())
    assert heading in text
    assert other not in text.split("The original rulebook")[0]


@pytest.mark.django_db
@pytest.mark.parametrize("language", ["fr", "en"])
def test_each_example_is_drawn_with_the_engines_figures(client: Client, language: str) -> None:
    page = client.get("/regles/", HTTP_ACCEPT_LANGUAGE=language).content.decode()
    for example in EXAMPLES:
        judged = judge(example.key)
        start = page.index(f'data-example="{example.key}"')
        block = page[start : page.index("</figure>", start)]
        text = _text(block)
        assert judged.notation in text
        placed = rules.notation_to_move(example.move, position(example), 0)
        assert isinstance(placed, rules.Place)
        for square, letter in placed.tiles:
            # The board tag drew the move's tiles on their squares, marked as the last move.
            cell = re.search(
                rf'<div role="gridcell"[^>]*class="([^"]*)"[^>]*data-square="{square}"', block
            )
            assert cell and "last-move" in cell.group(1), (example.key, square)
            assert f'data-square="{square}" data-kind' in block
            assert f'data-letter="{letter.upper()}"' in block
        for points in {abs(p) for p in judged.effects.points if p}:
            assert re.search(rf"\b{points} (points?)\b", text), (example.key, points)
        if judged.effects.drawn:
            assert re.search(rf"\b{judged.effects.drawn} (carrés?|tiles?)\b", text)


@pytest.mark.django_db
def test_the_french_page_explains_the_black_square_score_as_the_engine_counts_it(
    client: Client,
) -> None:
    text = _text(client.get("/regles/", HTTP_ACCEPT_LANGUAGE="fr").content.decode())
    assert "9 + 1 + 1 + 1 = 12 points" in text
    assert judge("black-sans").effects.points[0] == 24 and "24" in text
    assert judge("black-marque").effects.points == (62, -12)
    assert "50 + 12 = 62 points" in text


@pytest.mark.django_db
def test_the_french_page_follows_french_typography(client: Client) -> None:
    text = _text(client.get("/regles/", HTTP_ACCEPT_LANGUAGE="fr").content.decode())
    ours = text.split("La règle du jeu d’origine")[0]  # the 1960s text is quoted as it is
    assert misplaced_marks(ours) == []


@pytest.mark.django_db
def test_the_page_ends_with_the_original_french_text_in_full(client: Client) -> None:
    original = (Path(settings.BASE_DIR) / "learn" / "data" / "diamino-regles.txt").read_text()
    page = client.get("/regles/", HTTP_ACCEPT_LANGUAGE="en").content.decode()
    quoted = html.unescape(page.split('class="rules-original-text">')[1].split("</pre>")[0])
    assert quoted == original
    assert 'lang="fr"' in page.split("rules-original-text")[0][-200:]


def test_the_quoted_rulebook_is_the_shared_one_word_for_word() -> None:
    if not SHARED_RULEBOOK.exists():
        pytest.skip(f"{SHARED_RULEBOOK} is not beside the project")
    ours = Path(settings.BASE_DIR) / "learn" / "data" / "diamino-regles.txt"
    assert ours.read_bytes() == SHARED_RULEBOOK.read_bytes()


@pytest.mark.django_db
def test_the_printable_view_has_the_rules_without_the_sites_menus(client: Client) -> None:
    page = client.get("/regles/imprimer/", HTTP_ACCEPT_LANGUAGE="fr").content.decode()
    assert "Comment jouer au Diamino Compétition" in page
    assert 'data-example="black-sans"' in page
    assert "site-header" not in page and "site-footer" not in page
    full = client.get("/regles/", HTTP_ACCEPT_LANGUAGE="fr").content.decode()
    assert 'href="/regles/imprimer/"' in full


@pytest.mark.django_db
@pytest.mark.parametrize("path", ["/", "/parties/"])
def test_home_lobby_and_footer_link_to_the_rules(client: Client, path: str) -> None:
    page = client.get(path, HTTP_ACCEPT_LANGUAGE="fr").content.decode()
    assert page.count('href="/regles/"') >= 2  # the page's own link, and the footer's


@pytest.mark.django_db
def test_the_create_form_links_to_the_modes_next_to_the_mode_choice(client: Client) -> None:
    client.force_login(make_player("alice"))
    page = client.get("/parties/", HTTP_ACCEPT_LANGUAGE="fr").content.decode()
    form = page[page.index('class="create-form"') :]
    mode = form[form.index('name="mode"') :]
    assert 'href="/regles/#formules"' in mode[: mode.index('name="seats"')]
    assert "Avec ou sans marque" in form
