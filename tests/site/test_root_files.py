"""What a crawler and a security researcher look for at the site's root."""

from __future__ import annotations

import subprocess
from datetime import UTC, datetime, timedelta
from urllib.robotparser import RobotFileParser

import pytest
from django.test import Client

from tests.site.processes import python_run

SITE = "http://testserver"


@pytest.fixture
def robots(client: Client) -> RobotFileParser:
    answer = client.get("/robots.txt")
    assert answer.status_code == 200
    assert answer["Content-Type"].startswith("text/plain")
    parser = RobotFileParser()
    parser.parse(answer.content.decode().splitlines())
    return parser


@pytest.mark.parametrize("path", ["/", "/regles/", "/classement/", "/ligues/", "/partie-guidee/"])
def test_crawlers_may_read_the_home_the_rules_and_the_leaderboards(robots, path) -> None:
    assert robots.can_fetch("AnyBot", SITE + path)


@pytest.mark.parametrize(
    "path",
    [
        "/parties/12/",
        "/parties/12/partie.json",
        "/joueurs/alice/",
        "/compte/",
        "/accounts/login/",
        "/admin/",
        "/equipe/parties/12/rejouer/",
    ],
)
def test_crawlers_are_kept_off_games_players_accounts_and_the_admin(robots, path) -> None:
    assert not robots.can_fetch("AnyBot", SITE + path)


def fields(client: Client) -> dict[str, str]:
    answer = client.get("/.well-known/security.txt")
    assert answer.status_code == 200
    assert answer["Content-Type"] == "text/plain; charset=utf-8"
    return dict(line.split(": ", 1) for line in answer.content.decode().splitlines())


def test_security_txt_names_a_contact_and_an_expiry_within_a_year(client, settings) -> None:
    settings.DIAMINO_SECURITY_CONTACT = "mailto:security@diamino.example"
    settings.DIAMINO_SECURITY_EXPIRES = None
    found = fields(client)
    assert found["Contact"] == "mailto:security@diamino.example"
    expires = datetime.fromisoformat(found["Expires"])
    assert (
        datetime.now(UTC) + timedelta(days=30) < expires < datetime.now(UTC) + timedelta(days=365)
    )
    assert found["Canonical"] == "http://testserver/.well-known/security.txt"
    assert found["Preferred-Languages"] == "fr, en"


def test_security_txt_expires_on_the_hosts_date(client, settings) -> None:
    settings.DIAMINO_SECURITY_EXPIRES = datetime(2027, 6, 30).date()
    assert fields(client)["Expires"] == "2027-06-30T00:00:00Z"


def settings_with(env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    script = (
        "from django.conf import settings; "
        "print(settings.DIAMINO_SECURITY_CONTACT, settings.DIAMINO_SECURITY_EXPIRES)"
    )
    return python_run(script, env, check=False)


def test_the_contact_defaults_to_the_first_admin_and_the_date_is_read_strictly() -> None:
    given = settings_with(
        {"ADMINS": "Ops <ops@diamino.example>", "DIAMINO_SECURITY_EXPIRES": "2027-06-30"}
    )
    assert given.stdout.split() == ["mailto:ops@diamino.example", "2027-06-30"]
    wrong = settings_with({"DIAMINO_SECURITY_EXPIRES": "next June"})
    assert wrong.returncode != 0
    assert "DIAMINO_SECURITY_EXPIRES must be a date" in wrong.stderr
