"""Moves as a person writes them in a reply email (rules/reply_notation.py, docs/NOTATION.md)."""

from __future__ import annotations

import pytest

from rules import Exchange, Pass, Place, Resign, apply, view
from rules.reply_notation import ReplyNotationError, parse_reply
from tests.french import misplaced_marks
from tests.rules.helpers import put, start, tiles


def seen(state, player=0):
    return view(state, player)


@pytest.fixture
def fresh():
    return seen(start("sans-marque", ("CHATSE?Q", "ETAROIS")))


@pytest.fixture
def with_ha():
    """HA on I8-J8; player 0 holds C, T, S, E, a diable and Q."""
    return seen(put(start("sans-marque", ("CTSE?Q", "ETAROIS")), "I8", True, "HA"))


@pytest.mark.parametrize(
    "text",
    [
        "H8 CHAT",
        "h8 chat",
        "H8 → CHAT",
        "H8→ CHAT",
        "H8 -> CHAT",
        "H8->CHAT",
        "H8 h CHAT",
        "H8 across CHAT",
        "H8 horizontal CHAT",
        "  H8   CHAT.  ",
    ],
)
def test_across_forms(fresh, text):
    assert parse_reply(text, fresh) == Place(0, tiles("H8C", "I8H", "J8A", "K8T"))


@pytest.mark.parametrize(
    "text",
    [
        "H8 ↓ CHAT",
        "H8↓ CHAT",
        "H8 v CHAT",
        "H8 V CHAT",
        "H8v CHAT",
        "h8v chat",
        "H8 down CHAT",
        "H8 bas CHAT",
        "H8 vertical CHAT",
        "H8 verticalement CHAT",
    ],
)
def test_down_forms(fresh, text):
    assert parse_reply(text, fresh) == Place(0, tiles("H8C", "H9H", "H10A", "H11T"))


@pytest.mark.parametrize("text", ["H8 C(HA)T", "H8 CHAT", "H8 c(ha)t", "H8 C(H)AT"])
def test_letters_on_the_board_in_parentheses_or_simply_included(with_ha, text):
    assert parse_reply(text, with_ha) == Place(0, tiles("H8C", "K8T"))


def test_a_lower_case_letter_among_capitals_is_a_diable(fresh):
    assert parse_reply("H8 CHAt", fresh) == Place(0, tiles("H8C", "I8H", "J8A", "K8t"))


def test_a_word_in_one_case_uses_a_diable_for_a_letter_the_hand_lacks(with_ha):
    # The hand has no second T: the diable stands in for it.
    move = parse_reply("H8 C(HA)TT", with_ha)
    assert move == Place(0, tiles("H8C", "K8T", "L8t"))


def test_more_small_letters_than_diables_reads_the_word_as_capitals(with_ha):
    # "Chat": a phone's capital first letter; one diable, three small letters.
    assert parse_reply("H8 Chat", with_ha) == Place(0, tiles("H8C", "K8T"))


@pytest.mark.parametrize(
    "text", ["ÉCHANGE ABC", "échange ABC", "echange abc", "exchange A B C", "Exchange A, B, C"]
)
def test_exchange_by_letters(fresh, text):
    assert parse_reply(text, fresh) == Exchange(0, "ABC")


def test_exchange_names_a_diable_with_a_question_mark_or_a_word(fresh):
    assert parse_reply("échange Q?", fresh) == Exchange(0, "Q?")
    assert parse_reply("exchange Q joker", fresh) == Exchange(0, "Q?")
    assert parse_reply("échange Q diable", fresh) == Exchange(0, "Q?")
    assert parse_reply("échange A B ?", fresh) == Exchange(0, "AB?")
    assert parse_reply("exchange A *", fresh) == Exchange(0, "A?")


@pytest.mark.parametrize("text", ["échange tout", "exchange all", "Échange TOUT"])
def test_exchange_the_whole_hand(fresh, text):
    assert parse_reply(text, fresh) == Exchange(0, "CHATSE?Q")


@pytest.mark.parametrize(
    "text",
    [
        "Je joue H8 CHAT",
        "je joue : H8 CHAT",
        "Mon coup : H8 CHAT",
        "Coup: H8 CHAT",
        "My move: H8 CHAT",
        "I play H8 CHAT",
    ],
)
def test_a_few_words_before_the_move_are_read_past(fresh, text):
    assert parse_reply(text, fresh) == Place(0, tiles("H8C", "I8H", "J8A", "K8T"))


def test_words_before_a_pass_or_an_exchange(fresh):
    assert parse_reply("Mon coup : passe", fresh) == Pass(0)
    assert parse_reply("Move: exchange QA", fresh) == Exchange(0, "QA")


def test_exchange_by_hand_slots(fresh):
    # The hand CHATSE?Q: slot 1 is C, slot 8 is Q.
    assert parse_reply("échange 1 8", fresh) == Exchange(0, "CQ")
    with pytest.raises(ReplyNotationError) as error:
        parse_reply("exchange 9", fresh)
    assert error.value.code == "bad-slot"
    assert "de 1 à 8" in error.value.message("fr") and "1 to 8" in error.value.message("en")


@pytest.mark.parametrize("text", ["passe", "Passe", "PASS", "pass.", "je passe", "I pass"])
def test_pass(fresh, text):
    assert parse_reply(text, fresh) == Pass(0)


@pytest.mark.parametrize("text", ["abandon", "Abandon !", "resign", "I resign", "J'abandonne"])
def test_resign(fresh, text):
    assert parse_reply(text, fresh) == Resign(0)


@pytest.mark.parametrize(
    "text",
    [
        "H8 CHAT rends Q",
        "H8 CHAT return Q",
        "H8 CHAT, rends Q",
        "H8 CHAT\nrends Q",
        "H8 CHAT\nreturn q",
        "H8 CHAT rends 8",
    ],
)
def test_red_devil_returns(fresh, text):
    assert parse_reply(text, fresh) == Place(0, tiles("H8C", "I8H", "J8A", "K8T"), returns="Q")


@pytest.mark.parametrize("text", ["H8 CHAT rends ?", "H8 CHAT return joker", "H8 CHAT rends Q ?"])
def test_a_diable_given_back(fresh, text):
    assert parse_reply(text, fresh).returns.endswith("?")


def test_returns_are_played_by_the_engine_on_a_red_devil():
    # M8→ (TA)S covers O8, a red devil on the classique board: one tile goes back.
    state = put(start("sans-marque", ("SQE", "ETAROIS")), "M8", True, "TA")
    move = parse_reply("M8 (TA)S rends Q", view(state, 0))
    assert move == Place(0, tiles("O8S"), returns="Q")
    after, _ = apply(state, move)
    assert after.hands[0] == ("E",)


def test_case_and_accents_are_ignored_in_keywords_and_letters(fresh):
    assert parse_reply("ÉCHANGE É", fresh) == Exchange(0, "E")
    assert parse_reply("Échange é", fresh) == Exchange(0, "E")
    assert parse_reply("H8 CHÂT", fresh) == Place(0, tiles("H8C", "I8H", "J8A", "K8T"))


def test_the_first_line_that_is_a_move_counts(fresh):
    text = "Bonjour,\n\nje joue :\nH8 CHAT\npasse\nMerci !"
    assert parse_reply(text, fresh) == Place(0, tiles("H8C", "I8H", "J8A", "K8T"))
    assert parse_reply("Hello\npass\nH8 CHAT", fresh) == Pass(0)


def test_a_move_played_by_the_second_player(fresh):
    state = start("sans-marque", ("CHATSE?Q", "ETAROIS"))
    assert parse_reply("H8 ROI", view(state, 1)) == Place(1, tiles("H8R", "I8O", "J8I"))


@pytest.mark.parametrize(
    ("text", "code", "fr", "en"),
    [
        ("Bonjour, merci", "no-move", "Aucun coup", "No move found"),
        ("", "no-move", "Aucun coup", "No move found"),
        ("Z8 CHAT", "off-board", "n’est pas sur le plateau", "is not on the board"),
        ("O8 CHAT", "runs-off", "sort du plateau", "runs off the board"),
        ("8H CHAT", "square-order", "H8, pas 8H", "H8, not 8H"),
        (
            "H8 CHAT merci beaucoup",
            "trailing-text",
            "mais pas «\u00a0merci beaucoup\u00a0»",
            "but not",
        ),
        ("échange", "exchange-empty", "quelles lettres échanger", "which tiles to exchange"),
        ("exchange A1", "bad-tile", "n’est pas une lettre", "is not a tile"),
        ("H8 CHAT rends", "returns-empty", "quelles lettres rendre", "which tiles to give back"),
        ("H8", "no-word", "écrivez le mot", "write the word"),
        ("H8 C(HA", "bad-word", "n’est pas un mot", "is not a word"),
    ],
)
def test_unreadable_replies_say_why_in_both_languages(fresh, text, code, fr, en):
    with pytest.raises(ReplyNotationError) as error:
        parse_reply(text, fresh)
    assert error.value.code == code
    assert fr in error.value.message("fr")
    assert en in error.value.message("en")
    assert error.value.message("en-gb") == error.value.message_en
    assert misplaced_marks(error.value.message("fr")) == []  # French typography
    assert "'" not in error.value.message("fr")  # the apostrophe is typographic, as on the site


def test_letters_in_parentheses_must_be_on_the_board(fresh, with_ha):
    with pytest.raises(ReplyNotationError) as error:
        parse_reply("H8 C(HA)T", fresh)
    assert error.value.code == "not-on-board"
    assert "I8" in error.value.message("fr") and "I8" in error.value.message("en")
    with pytest.raises(ReplyNotationError) as error:
        parse_reply("H8 CRAT", with_ha)
    assert error.value.code == "board-mismatch"
    assert error.value.message("fr") == "La case I8 porte déjà un H, pas un R."
    assert error.value.message("en") == "The square I8 already holds H, not R."
    with pytest.raises(ReplyNotationError) as error:
        parse_reply("I8 HA", with_ha)
    assert error.value.code == "nothing-new"


def test_a_spectator_cannot_play(fresh):
    state = start("sans-marque", ("CHATSE?Q", "ETAROIS"))
    with pytest.raises(ReplyNotationError) as error:
        parse_reply("passe", view(state, None))
    assert error.value.code == "not-a-player"


def test_a_parsed_placement_is_played_by_the_engine():
    state = start("sans-marque", ("CHATSE?Q", "ETAROIS"))
    after, _ = apply(state, parse_reply("H8 CHAt", view(state, 0)))
    assert after.board[after.config.layout.index("K8")] == "t"


def test_the_parser_is_pure_python():
    import ast
    from pathlib import Path

    import rules.reply_notation as module

    tree = ast.parse(Path(module.__file__).read_text())
    imported = {
        (node.module or "").split(".")[0]
        for node in ast.walk(tree)
        if isinstance(node, ast.ImportFrom)
    } | {
        alias.name.split(".")[0]
        for node in ast.walk(tree)
        if isinstance(node, ast.Import)
        for alias in node.names
    }
    assert imported <= {"__future__", "re", "unicodedata", "collections", "dataclasses", "rules"}


CHAT = ("H8C", "I8H", "J8A", "K8T")


def test_a_sentence_on_the_next_line_is_not_read_as_returns(fresh):
    text = "H8 CHAT\nRend visite à Paul demain"
    assert parse_reply(text, fresh) == Place(0, tiles(*CHAT))
    # A line that is nothing but a returns clause still counts.
    assert parse_reply("H8 CHAT\nrends Q ?", fresh) == Place(0, tiles(*CHAT), returns="Q?")
    assert parse_reply("H8 CHAT\nrends 8", fresh) == Place(0, tiles(*CHAT), returns="Q")


def test_a_placement_the_hand_cannot_supply_is_passed_over_for_a_later_move(fresh):
    # "A2 bientot" reads as a placement, but the hand (CHATSE?Q) has no B, I, N, O.
    assert parse_reply("Bonjour\nA2 bientot\nH8 CHAT", fresh) == Place(0, tiles(*CHAT))
    # With no later move it is still the move: the engine says what the hand lacks.
    assert parse_reply("A2 bientot", fresh).tiles[0][0] == "A2"


def test_a_direction_word_followed_by_returns_is_the_word_itself():
    hand = seen(start("sans-marque", ("BASQ", "ETAROIS")))
    assert parse_reply("H8 BAS rends Q", hand) == Place(0, tiles("H8B", "I8A", "J8S"), returns="Q")
    assert parse_reply("H8 bas CHAT", seen(start("sans-marque", ("CHATSE?Q", "E")))) == Place(
        0, tiles("H8C", "H9H", "H10A", "H11T")
    )


def test_the_line_read_is_given_back_as_written(fresh):
    from rules.reply_notation import parse_reply_read

    assert (
        parse_reply_read("Bonjour Paul,\n\nH8   CHÂT\nMerci !\n> old text", fresh)[1] == "H8 CHÂT"
    )
    assert parse_reply_read("H8 CHAT\nrends Q", fresh)[1] == "H8 CHAT / rends Q"
    assert parse_reply_read("H8 CHAT rends Q", fresh)[1] == "H8 CHAT rends Q"
