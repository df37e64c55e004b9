"""The report flow: from the game page, to the admin queue, to resolved."""

from __future__ import annotations

import re
from datetime import timedelta

import pytest
import time_machine
from django.contrib.admin.helpers import ACTION_CHECKBOX_NAME
from django.contrib.messages import get_messages
from django.test import Client
from django.urls import reverse
from django.utils import timezone

from moderation.models import Report
from tests.factories import make_player
from tests.games.conftest import start_game

pytestmark = pytest.mark.django_db

QUEUE = "admin:moderation_report_changelist"


def client_for(user) -> Client:
    client = Client()
    client.force_login(user)
    return client


@pytest.fixture
def staff(db):
    return make_player("modo", is_staff=True, language="en")


@pytest.fixture
def game(alice, bob):
    for player in (alice, bob):
        player.language = "en"  # the assertions read the English msgids
        player.save(update_fields=["language"])
    return start_game([alice, bob])


def report_url(game) -> str:
    return reverse("moderation:report", args=[game.pk])


def send(client: Client, game, about: str = "", reason: str = "cheating", text: str = "Trop fort."):
    return client.post(report_url(game), {"about": about, "reason": reason, "text": text})


def seat_pk(game, player) -> str:
    return str(game.seats.get(player=player).pk)


# --- the game page and the form ---------------------------------------------------------------


def test_the_game_page_offers_players_a_report_link_and_spectators_none(game, alice, outsider):
    html = client_for(alice).get(reverse("games:page", args=[game.pk])).content.decode()
    assert f'href="{report_url(game)}"' in html
    html = client_for(outsider).get(reverse("games:page", args=[game.pk])).content.decode()
    assert report_url(game) not in html


def test_the_form_lets_a_player_choose_the_other_players_or_the_game(game, alice, bob) -> None:
    response = client_for(alice).get(report_url(game))
    assert response.status_code == 200
    html = response.content.decode()
    choices = re.findall(r'<option value="([^"]*)"', html)
    assert choices == ["", seat_pk(game, bob)]
    assert 'name="reason"' in html and 'name="text"' in html


def test_an_outsider_is_refused_the_form_and_the_post(game, outsider, bob) -> None:
    client = client_for(outsider)
    assert client.get(report_url(game)).status_code == 403
    assert send(client, game, about=seat_pk(game, bob)).status_code == 403
    assert not Report.objects.exists()


def test_an_anonymous_visitor_is_sent_to_log_in(game) -> None:
    for response in (Client().get(report_url(game)), send(Client(), game)):
        assert response.status_code == 302
        assert response["Location"].startswith(reverse("account_login") + "?next=")
    assert not Report.objects.exists()


def test_a_report_for_a_game_that_does_not_exist_is_a_404(alice) -> None:
    assert client_for(alice).get("/parties/999/signaler/").status_code == 404


def test_sending_a_report_thanks_the_player_and_goes_back_to_the_game(game, alice, bob) -> None:
    response = send(client_for(alice), game, about=seat_pk(game, bob), text="Mots inconnus.")
    assert response.status_code == 302
    assert response["Location"] == reverse("games:page", args=[game.pk])
    messages = [str(m) for m in get_messages(response.wsgi_request)]
    assert messages == ["Thank you, the team will take a look."]
    filed = Report.objects.get()
    assert (filed.reporter, filed.reported_player, filed.reason) == (alice, bob, "cheating")
    assert filed.text == "Mots inconnus."


def test_staff_get_an_email_whose_link_opens_the_report_in_the_admin(
    game, alice, bob, staff, committed, mailoutbox
) -> None:
    with committed():
        send(client_for(alice), game, about=seat_pk(game, bob), text="Mots inconnus.")
    (message,) = mailoutbox
    assert message.to == [staff.email]
    assert "Mots inconnus." in message.body
    link = re.search(
        r"http://127\.0\.0\.1:8000(/admin/moderation/report/\d+/change/)", message.body
    )
    assert link is not None
    page = client_for(staff).get(link.group(1))
    assert page.status_code == 200
    assert "Mots inconnus." in page.content.decode()


def test_a_report_without_text_is_refused_on_the_form(game, alice) -> None:
    response = send(client_for(alice), game, text="")
    assert response.status_code == 400
    assert response.context["form"].errors["text"]
    assert not Report.objects.exists()


def test_a_refusal_of_the_service_shows_on_the_form(game, alice) -> None:
    client = client_for(alice)
    send(client, game)
    response = send(client, game)
    assert response.status_code == 409
    assert "You have already reported this" in response.content.decode()
    assert Report.objects.count() == 1


# --- the admin queue --------------------------------------------------------------------------


def test_reports_reach_the_admin_queue_open_first_oldest_first(game, alice, bob, staff):
    with time_machine.travel(timezone.now() - timedelta(days=2)):
        oldest = Report.objects.create(reporter=bob, game=game, reason="abuse", text="1")
    done = Report.objects.create(
        reporter=bob, game=game, reason="other", text="0", status=Report.Status.RESOLVED
    )
    send(client_for(alice), game, about=seat_pk(game, bob), text="Mots inconnus.")
    newest = Report.objects.get(text="Mots inconnus.")
    response = client_for(staff).get(reverse(QUEUE))
    assert response.status_code == 200
    assert [r.pk for r in response.context["cl"].result_list] == [oldest.pk, newest.pk, done.pk]
    response = client_for(staff).get(reverse(QUEUE), {"status__exact": "open"})
    assert [r.pk for r in response.context["cl"].result_list] == [oldest.pk, newest.pk]
    response = client_for(staff).get(reverse(QUEUE), {"reason__exact": "cheating", "q": "alice"})
    assert [r.pk for r in response.context["cl"].result_list] == [newest.pk]


def test_staff_resolve_a_report_from_its_page_and_the_queue_shows_who_and_when(
    game, alice, bob, staff
) -> None:
    send(client_for(alice), game, about=seat_pk(game, bob), text="Il m'insulte.")
    filed = Report.objects.get()
    client = client_for(staff)
    url = reverse("admin:moderation_report_change", args=[filed.pk])
    html = client.get(url).content.decode()
    assert "Il m&#x27;insulte." in html
    assert reverse("admin:games_game_change", args=[game.pk]) in html
    assert reverse("games:staff_replay", args=[game.pk]) in html
    assert 'name="resolution"' in html and 'name="text"' not in html

    response = client.post(url, {"resolution": ""})
    assert response.status_code == 200  # the form again, with the error
    filed.refresh_from_db()
    assert filed.status == Report.Status.OPEN

    response = client.post(url, {"resolution": "Joueur averti par courriel."})
    assert response.status_code == 302
    filed.refresh_from_db()
    assert filed.status == Report.Status.RESOLVED
    assert (filed.resolution, filed.resolved_by) == ("Joueur averti par courriel.", staff)
    assert filed.resolved_at is not None and filed.text == "Il m'insulte."

    html = client.get(reverse(QUEUE)).content.decode()
    assert "modo" in html  # resolved by
    html = client.get(url).content.decode()
    assert "Joueur averti par courriel." in html and 'name="resolution"' not in html
    assert client.post(url, {"resolution": "autre"}).status_code == 403
    filed.refresh_from_db()
    assert filed.resolution == "Joueur averti par courriel."


def test_staff_resolve_several_reports_with_the_action(game, alice, bob, staff) -> None:
    first = Report.objects.create(reporter=alice, game=game, reason="abuse", text="1")
    second = Report.objects.create(reporter=bob, game=game, reason="abuse", text="2")
    client = client_for(staff)
    data = {"action": "resolve_reports", ACTION_CHECKBOX_NAME: [first.pk, second.pk]}
    response = client.post(reverse(QUEUE), data)
    assert response.status_code == 200 and 'name="resolution"' in response.content.decode()
    response = client.post(reverse(QUEUE), {**data, "apply": "yes", "resolution": " "})
    assert response.status_code == 400
    assert Report.objects.filter(status=Report.Status.OPEN).count() == 2
    response = client.post(reverse(QUEUE), {**data, "apply": "yes", "resolution": "Doublon."})
    assert response.status_code == 302
    for filed in (first, second):
        filed.refresh_from_db()
        assert (filed.status, filed.resolution, filed.resolved_by) == (
            "resolved",
            "Doublon.",
            staff,
        )


@pytest.mark.parametrize("who", ["reporter", "reported", "outsider", "anonymous"])
def test_the_queue_is_for_staff_only(game, alice, bob, outsider, who) -> None:
    filed = Report.objects.create(
        reporter=alice, game=game, reported_player=bob, reason="abuse", text="1"
    )
    user = {"reporter": alice, "reported": bob, "outsider": outsider}.get(who)
    client = client_for(user) if user else Client()
    urls = [reverse(QUEUE), reverse("admin:moderation_report_change", args=[filed.pk])]
    for url in urls:
        response = client.get(url)
        assert response.status_code == 302
        assert response["Location"].startswith(reverse("admin:login") + "?next=")
    client.post(urls[1], {"resolution": "rien"})
    client.post(
        urls[0],
        {
            "action": "resolve_reports",
            ACTION_CHECKBOX_NAME: [filed.pk],
            "apply": "yes",
            "resolution": "x",
        },
    )
    filed.refresh_from_db()
    assert filed.status == Report.Status.OPEN


def test_a_staff_member_who_plays_in_the_game_reads_its_report_but_cannot_resolve_it(
    alice, staff
) -> None:
    staff_player = make_player("modo-joueur", is_staff=True, language="en")
    game = start_game([staff_player, alice])
    filed = Report.objects.create(reporter=alice, game=game, reason="abuse", text="Insultes.")
    client = client_for(staff_player)
    url = reverse("admin:moderation_report_change", args=[filed.pk])
    response = client.get(url)
    assert response.status_code == 200
    html = response.content.decode()
    assert "Insultes." in html and 'name="resolution"' not in html
    assert "You play in this game: another staff member must resolve this report." in html
    assert reverse("games:staff_replay", args=[game.pk]) not in html
    assert client.post(url, {"resolution": "Rien."}).status_code == 403
    response = client.post(
        reverse(QUEUE),
        {
            "action": "resolve_reports",
            ACTION_CHECKBOX_NAME: [filed.pk],
            "apply": "yes",
            "resolution": "Rien.",
        },
    )
    filed.refresh_from_db()
    assert filed.status == Report.Status.OPEN
    # Another staff member resolves it, with the replay at hand.
    html = client_for(staff).get(url).content.decode()
    assert 'name="resolution"' in html
    assert reverse("games:staff_replay", args=[game.pk]) in html
