"""No player passes for another: look-alike display names and usernames are refused,
the username is shown beside a display name, and the names saved before the rule
are brought into line (accounts/names.py, accounts/migrations/0009)."""

from __future__ import annotations

import importlib
import re
from datetime import timedelta

import pytest
from django.apps import apps
from django.test import Client
from django.urls import reverse
from django.utils import timezone

from accounts.models import User
from accounts.names import look_alike, name_keys, name_taken
from notifications import periodic
from notifications.models import Notification
from tests.emails import html_of
from tests.factories import PASSWORD, make_player, page_as
from tests.games.conftest import start_game

pytestmark = pytest.mark.django_db

REFUSED = {
    "en": "This name looks too much like another player's username or display name",
    "fr": "Ce nom ressemble trop au nom d’utilisateur ou au nom affiché d’un autre joueur",
}
SIGN_UP_REFUSED = {
    "en": "This username looks too much like a player's username or display name",
    "fr": "Ce nom d’utilisateur ressemble trop au nom d’utilisateur ou au nom affiché d’un joueur",
}
CYRILLIC_A = "\u0430"


@pytest.mark.parametrize(
    ("one", "other"),
    [
        ("alice", "alice"),
        ("alice", "ALICE"),
        ("alice", "Àlicé"),
        ("alice", f"{CYRILLIC_A}lice"),  # Cyrillic а
        ("alice", "ａｌｉｃｅ"),  # fullwidth
        ("alice", "𝐚𝐥𝐢𝐜𝐞"),  # mathematical bold
        ("louis", "Iouis"),  # a capital i for the l
        ("ilona", "Ilona"),
        ("jean-marc", "Jean Marc"),
        ("bob", "b\u200bob"),  # a zero-width space inside
        ("Oscar", "0scar"),  # a zero for the capital O
    ],
)
def test_names_differing_by_case_accents_or_look_alike_letters_look_alike(one, other) -> None:
    assert look_alike(one, other)
    assert look_alike(other, one)


@pytest.mark.parametrize(
    ("one", "other"), [("alice", "alicia"), ("bob", "rob"), ("léa", "léo"), ("li", "il")]
)
def test_different_names_do_not_look_alike(one, other) -> None:
    assert not look_alike(one, other)


def test_a_name_without_letters_or_digits_has_no_key_and_takes_nothing() -> None:
    make_player("alice", display_name="…")
    assert name_keys("… -- …") == frozenset()
    assert not name_taken("…")


def settings_form(**changes: str) -> dict[str, str]:
    return {
        "display_name": "",
        "language": "en",
        "time_zone": "Europe/Paris",
        "turn_emails": "each",
        "invitation_emails": "each",
        "game_over_emails": "each",
        **changes,
    }


def post_display_name(user: User, name: str, language: str = "en") -> str:
    client = Client()
    client.force_login(user)
    data = settings_form(display_name=name, language=language)
    user.language = language
    user.save(update_fields=["language"])
    return client.post(reverse("accounts:settings"), data).content.decode()


@pytest.mark.parametrize(
    "name",
    ["alice", "Alice", "ÂLICE", f"{CYRILLIC_A}lice", "ａｌｉｃｅ", "Zoé la Reine", "zoe la reine"],
)
@pytest.mark.parametrize("language", ["en", "fr"])
def test_a_display_name_like_another_players_name_is_refused_and_kept_in_the_form(
    name, language
) -> None:
    make_player("alice")
    make_player("zoe", display_name="Zoé la Reine")
    mallory = make_player("mallory")
    page = post_display_name(mallory, name, language)
    assert REFUSED[language] in page.replace("&#x27;", "'")
    # What the player typed stays in the field, to correct rather than retype.
    field = re.search(r'<input[^>]*name="display_name"[^>]*>', page)
    assert field is not None and f'value="{name}"' in field.group(0)
    mallory.refresh_from_db()
    assert mallory.display_name == ""


@pytest.mark.parametrize("name", ["alice", "Alice", "ALICE", "Àlice", "Alice la Reine"])
def test_a_player_may_show_their_own_username_or_any_free_name(name) -> None:
    alice = make_player("alice")
    make_player("bob", display_name="Bobby")
    page = post_display_name(alice, name)
    assert REFUSED["en"] not in page.replace("&#x27;", "'")
    alice.refresh_from_db()
    assert alice.display_name == name


def test_two_look_alike_usernames_from_before_the_rule_may_each_show_their_own() -> None:
    alice = make_player("alice")
    make_player(f"{CYRILLIC_A}lice")  # signed up before sign-up refused look-alikes
    page = post_display_name(alice, "Alice")
    assert REFUSED["en"] not in page.replace("&#x27;", "'")
    alice.refresh_from_db()
    assert alice.display_name == "Alice"
    run_migration()
    alice.refresh_from_db()
    assert alice.display_name == "Alice"


def test_a_display_name_like_the_computers_is_refused() -> None:
    from accounts.computers import computer_user

    computer_user("debutant")
    mallory = make_player("mallory")
    assert REFUSED["en"] in post_display_name(mallory, "Ordinateur débutant").replace("&#x27;", "'")


def sign_up(client: Client, username: str) -> str:
    data = {
        "username": username,
        "email": f"{len(username)}-new@example.com",
        "password1": PASSWORD,
        "password2": PASSWORD,
    }
    return client.post(reverse("account_signup"), data).content.decode()


@pytest.mark.parametrize("language", ["en", "fr"])
@pytest.mark.parametrize("username", [f"{CYRILLIC_A}lice", "Àlice", "ZoeLaReine", "zoé.la.reine"])
def test_sign_up_refuses_a_username_like_a_players_username_or_display_name(
    username, language
) -> None:
    make_player("alice")
    make_player("zoe", display_name="Zoé la Reine")
    client = Client()
    client.post(reverse("set_language"), {"language": language})
    page = sign_up(client, username)
    assert SIGN_UP_REFUSED[language] in page.replace("&#x27;", "'")
    assert username in page  # kept in the form
    assert not User.objects.filter(username=username).exists()


def test_sign_up_takes_a_username_no_player_looks_like() -> None:
    make_player("alice", display_name="Alice")
    response = Client().post(
        reverse("account_signup"),
        {
            "username": "alicia",
            "email": "alicia@example.com",
            "password1": PASSWORD,
            "password2": PASSWORD,
        },
    )
    assert response.status_code == 302
    assert User.objects.filter(username="alicia").exists()


def test_the_game_page_shows_the_username_beside_a_display_name() -> None:
    alice = make_player("alice", display_name="Alice la Reine")
    bob = make_player("bob", display_name="Bob")  # the username in other capitals: shown once
    game = start_game([alice, bob])
    page = page_as(make_player("oscar"), f"/parties/{game.pk}/")
    seats = page[page.index('class="seat-list"') : page.index('class="reserve"')]
    names = [
        re.sub(r"\s+", " ", name).strip()
        for name in re.findall(r'<a href="/joueurs/\w+/">([^<]*)</a>', seats)
    ]
    assert sorted(names) == ["Alice la Reine (@alice)", "Bob"]


def test_the_players_own_header_and_page_heading_show_the_name_alone() -> None:
    alice = make_player("alice", display_name="Alice la Reine")
    page = page_as(alice, "/joueurs/alice/")
    assert '<li class="nav-user">Alice la Reine</li>' in page
    assert "<h1>Alice la Reine</h1>" in page
    assert '<p class="lead">@alice</p>' in page


# --- the names saved before the rule --------------------------------------------


def run_migration() -> None:
    migration = importlib.import_module("accounts.migrations.0009_look_alike_display_names")
    migration.clear_look_alikes(apps, None)


def test_the_migration_removes_look_alike_display_names_and_tells_their_players(
    mailoutbox, settings
) -> None:
    make_player("alice")
    make_player("zoe", display_name="Zoé")
    # Later accounts: one borrowed Alice's username, one Zoé's display name (in Cyrillic
    # letters and capitals), one chose a free name, one shows its own username.
    mallory = make_player("mallory", display_name="ALICE", language="en")
    trudy = make_player("trudy", display_name="ZOÉ", language="fr")
    make_player("carol", display_name="Carol la Reine")
    make_player("dave", display_name="Dave")
    # An earlier account took a later one's username as its display name: it goes too.
    erin = make_player("erin", display_name="Bob")
    User.objects.filter(pk=erin.pk).update(date_joined=timezone.now() - timedelta(days=10))
    make_player("bob")

    run_migration()

    shown = dict(User.objects.values_list("username", "display_name"))
    assert shown["mallory"] == shown["trudy"] == shown["erin"] == ""
    assert (shown["zoe"], shown["carol"], shown["dave"]) == ("Zoé", "Carol la Reine", "Dave")

    rows = Notification.objects.filter(key__startswith="account:display-name-cleared:")
    recipients = rows.values_list("recipient__username", flat=True)
    assert sorted(recipients) == ["erin", "mallory", "trudy"]

    # The outbox's sweep sends them, each in the player's language.
    periodic.sweep(now=timezone.now() + settings.DIAMINO_NOTIFICATION_SWEEP_AFTER * 2)
    by_address = {message.to[0]: message for message in mailoutbox}
    english = by_address[mallory.email]
    assert "“ALICE” looked too much like another player's username" in english.body
    assert "your username, mallory, instead" in english.body
    assert "/compte/" in english.body
    french = by_address[trudy.email]
    assert "«\u00a0ZOÉ\u00a0»" in french.body
    assert "ressemblait trop" in french.body and "trudy" in french.body
    assert "Choisir un autre nom affiché" in html_of(french)
    assert set(by_address) == {mallory.email, trudy.email, erin.email}

    run_migration()  # twice: nothing more to do
    assert rows.count() == 3
