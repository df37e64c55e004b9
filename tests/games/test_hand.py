"""The viewer's hand, ``<ol id="hand">``, written in Python (``games/templatetags/board.py``).

It must be the markup the template wrote, byte for byte (the guided game and
board.js read it): checked against that template for slots, a rack, jokers,
empty slots and both languages, and spelt out for one hand.
"""

from __future__ import annotations

from types import SimpleNamespace

import pytest
from django.template import Context, Template
from django.template.loader import render_to_string
from django.utils import translation

from games.presenters import TileView
from games.templatetags.board import hand_list
from tests.games.test_game_template import game_view

# The hand's list as game.html wrote it before hand_list: the reference for the markup.
TEMPLATE_LIST = Template(
    """{% load i18n board %}<ol id="hand" class="hand{% if view.hand_slots %} hand-slots{% else %} hand-rack{% endif %}" aria-label="{% translate 'My tiles' %}">
            {% if view.hand_slots %}
              {% for tile in view.hand_by_slot %}
                <li class="hand-slot"><span class="slot-number" aria-hidden="true">{{ forloop.counter }}</span>{% if tile %}{% hand_tile tile %}{% endif %}</li>
              {% endfor %}
            {% else %}
              {% for tile in view.my_hand %}<li class="hand-slot">{% hand_tile tile %}</li>{% endfor %}
            {% endif %}
          </ol>"""
)

JOKER_AND_GAPS = (
    TileView(index=0, letter="A", value=1),
    TileView(index=3, letter="K", value=10),
    TileView(index=11, letter="?", value=0),
)
FULL_RACK = tuple(TileView(index=i, letter=letter, value=1) for i, letter in enumerate("ES?TRANGE"))
HANDS = {
    "slots, a joker and gaps": dict(my_hand=JOKER_AND_GAPS),
    "twelve full slots": dict(
        my_hand=tuple(TileView(index=i, letter="?" if i == 5 else "E", value=1) for i in range(12))
    ),
    "empty slots": dict(my_hand=()),
    "a rack with a joker": dict(mode="sans-marque", hand_slots=0, my_hand=FULL_RACK),
    "an empty rack": dict(mode="sans-marque", hand_slots=0, my_hand=()),
}


@pytest.mark.parametrize("language", ["fr", "en"])
@pytest.mark.parametrize("changes", HANDS.values(), ids=HANDS.keys())
def test_the_hand_is_the_markup_the_template_wrote(language, changes) -> None:
    view = game_view(**changes)
    with translation.override(language):
        assert hand_list(view) == TEMPLATE_LIST.render(Context({"view": view}))


def test_a_hand_in_slots_with_a_joker_reads_in_french() -> None:
    with translation.override("fr"):
        html = hand_list(game_view(hand_slots=4, my_hand=JOKER_AND_GAPS[:2]))
    slot = '\n                <li class="hand-slot"><span class="slot-number" aria-hidden="true">'
    assert html == (
        '<ol id="hand" class="hand hand-slots" aria-label="Mes lettres">\n            \n              '
        f"{slot}1</span>"
        '<button type="button" class="tile hand-tile" data-index="0" data-letter="A" '
        'data-value="1" aria-pressed="false" aria-label="A, 1 point"><span class="tile-letter" '
        'aria-hidden="true">A</span> <span class="tile-value" aria-hidden="true">1</span></button>'
        "</li>\n              "
        f"{slot}2</span></li>\n              "
        f"{slot}3</span></li>\n              "
        f"{slot}4</span>"
        '<button type="button" class="tile hand-tile" data-index="3" data-letter="K" '
        'data-value="10" aria-pressed="false" aria-label="K, 10 points"><span class="tile-letter" '
        'aria-hidden="true">K</span> <span class="tile-value" aria-hidden="true">10</span></button>'
        "</li>\n              "
        "\n            \n          </ol>"
    )


def test_a_rack_names_its_joker_in_english() -> None:
    view = game_view(mode="sans-marque", hand_slots=0, my_hand=(TileView(0, "?", 0),))
    with translation.override("en"):
        html = hand_list(view)
    assert html == (
        '<ol id="hand" class="hand hand-rack" aria-label="My tiles">\n            \n              '
        '<li class="hand-slot"><button type="button" class="tile hand-tile is-diable" '
        'data-index="0" data-letter="?" data-value="0" aria-pressed="false" '
        'aria-label="joker, 0 points"><span class="tile-letter" aria-hidden="true">?</span> '
        '<span class="tile-value" aria-hidden="true">0</span></button></li>'
        "\n            \n          </ol>"
    )


def test_the_hand_partial_the_guided_game_includes_still_holds_the_list() -> None:
    view = game_view(my_hand=JOKER_AND_GAPS)
    with translation.override("en"):
        html = render_to_string(
            "games/game.html#hand", {"view": view, "game": SimpleNamespace(pk=7)}
        )
        hand = hand_list(view)
    assert html.strip().startswith('<section class="hand-section" aria-labelledby="hand-title">')
    assert '<span class="count">(3)</span>' in html and 'id="shuffle-hand"' in html
    assert f"</div>\n          {hand}\n        </section>" in html
