"""A player turns playing by email off and on from the settings page (#24)."""

from __future__ import annotations

import pytest

from tests.browser.pages import expect
from tests.factories import make_player

pytestmark = pytest.mark.browser


def test_a_player_turns_playing_by_email_off_then_on(browse, transactional_db, settings) -> None:
    settings.MAIL_IN_ENABLED = True  # a site that receives the replies
    player = make_player("odile", language="fr")
    page = browse(player)
    page.goto("/compte/")
    box = page.get_by_role("checkbox", name="Jouer en répondant aux e-mails de tour")
    expect(box).to_be_checked()  # on by default
    expect(box).to_have_accessible_description(
        "Répondez à un e-mail de tour avec votre coup (par exemple H8 CHAT)\u00a0: il est joué "
        "comme si vous l’aviez joué sur le site. Désactivé, les e-mails de tour disent "
        "seulement que c’est à vous de jouer."
    )
    box.uncheck()
    page.get_by_role("button", name="Enregistrer les réglages").click()
    expect(page.get_by_text("Vos réglages sont enregistrés.")).to_be_visible()
    player.refresh_from_db()
    assert player.play_by_email is False
    box = page.get_by_role("checkbox", name="Jouer en répondant aux e-mails de tour")
    expect(box).not_to_be_checked()
    box.check()
    page.get_by_role("button", name="Enregistrer les réglages").click()
    expect(page.get_by_text("Vos réglages sont enregistrés.")).to_be_visible()
    player.refresh_from_db()
    assert player.play_by_email is True
