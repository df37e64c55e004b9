"""htmx is downloaded by the pages that use it, and only by them (issue #38: a phone's bytes).

A light page (the lobby, My games) spares a phone htmx's 17 KB; a page that
gains an ``hx-`` attribute must load htmx again, or the attribute does nothing.
"""

from __future__ import annotations

import random
import re

import pytest
from django.test import Client

from tests.factories import make_player

# Any hx- attribute but the body's CSRF header, which every page carries for htmx.
HX_ATTRIBUTE = re.compile(r"\shx-(?!headers='\{\"X-CSRFToken)[a-z-]+=")


def loads_htmx(html: str) -> bool:
    return re.search(r'<script src="[^"]*htmx[^"]*\.js"', html) is not None


@pytest.mark.django_db
def test_htmx_comes_with_every_hx_attribute_and_not_to_the_light_pages(client: Client) -> None:
    from games import services

    alice, bob = make_player("alice"), make_player("bob")
    table = services.game_create(creator=alice, mode="marque", seats=3)
    game = services.game_create(creator=alice, mode="marque", seats=2)
    services.game_join(game_id=game.pk, player=bob, rng=random.Random(1))
    client.force_login(alice)

    light = ["/parties/", "/parties/mes-parties/"]  # the lobby lists the open table
    for path in [*light, f"/parties/{game.pk}/", f"/parties/{table.pk}/", "/partie-guidee/"]:
        html = client.get(path).content.decode()
        if HX_ATTRIBUTE.search(html):
            assert loads_htmx(html), f"{path} has hx- attributes but no htmx to read them"
        assert loads_htmx(html) == (path not in light), path
