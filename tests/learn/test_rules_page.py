"""The rules page (/regles/): the whole game in plain words, with examples the engine judged."""

from __future__ import annotations

import ast
import hashlib
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

# The original rulebook as it was given to the project (sha256 of the file's bytes): the page
# quotes learn/data/diamino-regles.txt, and an edit to it, even of one character, fails here.
RULEBOOK_SHA256 = "ae494674c11f5be4a4879b133888582e4a42812b8922ad3ef1738c48fb0baceb"


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
@pytest.mark.parametrize(
    ("language", "first_word", "opponent", "doubled", "marque"),
    [
        (
            "fr",
            "ici {drawn}, et sa main revient à {hand}",
            "l’adversaire garde {tiles} : {sum} = {total} points",
            "doublés par la case noire K5 : {points}.",
            "Ici : 50 + {total} = {points} points pour le joueur 1, −{lost} pour le joueur 2",
        ),
        (
            "en",
            "{drawn} here, and their hand is back to {hand}",
            "the opponent keeps {tiles}: {sum} = {total} points",
            "doubled by the black square K5: {points}.",
            "Here: 50 + {total} = {points} points for player 1, −{lost} for player 2",
        ),
    ],
)
def test_the_prose_beside_the_examples_states_what_the_engine_computes(
    client: Client, language: str, first_word: str, opponent: str, doubled: str, marque: str
) -> None:
    """Each figure the text works out by hand is the engine's, in both languages."""
    text = _text(client.get("/regles/", HTTP_ACCEPT_LANGUAGE=language).content.decode())
    text = text.replace("\u00a0", " ")  # French puts a no-break space before a colon
    first = judge("first-word")
    assert first_word.format(drawn=first.effects.drawn, hand=first.hand_after) in text

    left = BY_KEY["black-sans"].hands[1]  # what player 2 still holds when player 1 goes out
    tiles = position(BY_KEY["black-sans"]).config.tiles
    total = tiles.value_of(left)
    worked = " + ".join(str(tiles.value_of(t)) for t in left)
    assert opponent.format(tiles=", ".join(left), sum=worked, total=total) in text
    assert judge("black-sans").effects.points == (2 * total, 0)
    assert doubled.format(points=2 * total) in text
    mover, other = judge("black-marque").effects.points
    assert (mover, other) == (50 + total, -total)
    assert marque.format(total=total, points=mover, lost=-other) in text


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("language", "player_1", "next_player"),
    [("fr", "joueur 1", "joueur suivant"), ("en", "player 1", "next player")],
)
def test_the_text_says_who_player_1_is_before_the_examples_name_them(
    client: Client, language: str, player_1: str, next_player: str
) -> None:
    """Every example's caption calls the mover player 1: the text says so, and never calls them "the next player"."""
    page = client.get("/regles/", HTTP_ACCEPT_LANGUAGE=language).content.decode()
    before_examples = _text(page[: page.index('data-example="first-word"')]).lower()
    assert player_1 in before_examples
    for example in EXAMPLES:
        start = page.index(f'data-example="{example.key}"')
        caption = _text(page[start : page.index("</figure>", start)]).lower()
        assert player_1 in caption, example.key
    crossing = page[page.index('id="mots-croises"') : page.index('data-example="cross-word"')]
    assert next_player not in _text(crossing).lower()


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


def rules_the_engine_cites() -> set[str]:
    """Every rule id written in the engine's code (rules/*.py): the ids a refusal can name.

    Read from the source, so a refusal added with a new rule id is checked here
    without anyone remembering to list it.
    """
    ids: set[str] = set()
    for source in (Path(settings.BASE_DIR) / "rules").glob("*.py"):
        for node in ast.walk(ast.parse(source.read_text(encoding="utf-8"))):
            value = node.value if isinstance(node, ast.Constant) else None
            if isinstance(value, str) and re.fullmatch(r"R-[A-Z]+-\d+", value):
                ids.add(value)
    return ids


@pytest.mark.django_db
@pytest.mark.parametrize("language", ["fr", "en"])
def test_every_rule_a_refusal_names_has_its_anchor_on_the_rules_page(
    client: Client, language: str
) -> None:
    """A refused move links to /regles/#R-PLACE-4 (the game page, the email): the anchor exists."""
    cited = rules_the_engine_cites()
    assert {"R-PLACE-4", "R-TURN-1", "R-EXCH-1"} <= cited, "the engine's rule ids are not found"
    page = client.get("/regles/", HTTP_ACCEPT_LANGUAGE=language).content.decode()
    anchors = re.findall(r'\bid="(R-[A-Z]+-\d+)"', page)
    assert len(anchors) == len(set(anchors)), "a rule anchor is given twice"
    assert not cited - set(anchors), (
        f"no anchor on the rules page for {sorted(cited - set(anchors))}"
    )


@pytest.mark.django_db
def test_a_rule_anchor_marks_the_sentence_that_states_the_rule(client: Client) -> None:
    page = client.get("/regles/", HTTP_ACCEPT_LANGUAGE="fr").content.decode()

    def stated(rule_id: str) -> str:
        match = re.search(rf'<(\w+) id="{rule_id}">(.*?)</\1>', page, re.DOTALL)
        assert match, rule_id
        return _text(match.group(2))

    assert "dictionnaire" in stated("R-PLACE-4")
    assert "case Départ" in stated("R-PLACE-2")
    assert "Seul le joueur dont c’est le tour" in stated("R-TURN-1")
    assert "sa main" in stated("R-HAND-1")
    assert "Échanger" in stated("R-EXCH-1")
    assert "case noire" in stated("R-PLACE-5")


def test_the_quoted_rulebook_is_the_original_word_for_word() -> None:
    ours = Path(settings.BASE_DIR) / "learn" / "data" / "diamino-regles.txt"
    assert hashlib.sha256(ours.read_bytes()).hexdigest() == RULEBOOK_SHA256


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
