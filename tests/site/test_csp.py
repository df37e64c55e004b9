"""A strict Content-Security-Policy on every page, and no inline script left for it to block."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
from django.conf import settings
from django.test import Client

from tests.factories import make_player

TEMPLATES = Path(settings.BASE_DIR) / "templates"


def policy(response) -> dict[str, list[str]]:
    header = response.headers["Content-Security-Policy"]
    return {
        name: values
        for name, *values in (part.split() for part in header.split(";") if part.strip())
    }


@pytest.fixture
def game_pages(db) -> dict[str, Any]:
    """A table waiting for players and a running game, as their seated players see them."""
    import random

    from games import services

    alice, bob = make_player("alice"), make_player("bob")
    table = services.game_create(creator=alice, mode="marque", seats=3)
    game = services.game_create(creator=alice, mode="marque", seats=2)
    services.game_join(game_id=game.pk, player=bob, rng=random.Random(1))
    return {"alice": alice, "table": f"/parties/{table.pk}/", "game": f"/parties/{game.pk}/"}


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("path", "signed_in"),
    [
        ("/", False),
        ("/parties/", False),
        ("/classement/", False),
        ("/verifier-un-mot/", False),
        ("/accounts/login/", False),
        ("/accounts/signup/", False),
        ("/admin/login/", False),
        ("/page-qui-n-existe-pas/", False),
        ("/parties/mes-parties/", True),
        ("/compte/", True),
        ("table", True),
        ("game", True),
    ],
)
def test_every_kind_of_page_sends_the_strict_policy(
    client: Client, game_pages, path: str, signed_in: bool
) -> None:
    if signed_in:
        client.force_login(game_pages["alice"])
    response = client.get(game_pages.get(path, path))
    assert response.status_code in (200, 404)
    csp = policy(response)
    assert csp["script-src"] == ["'self'"]
    assert csp["default-src"] == ["'self'"]
    assert csp["object-src"] == ["'none'"]
    assert csp["frame-ancestors"] == ["'none'"]
    for name, values in csp.items():
        if name != "style-src-attr":
            assert "'unsafe-inline'" not in values, name
        assert "'unsafe-eval'" not in values, name


@pytest.mark.django_db
def test_an_htmx_fragment_carries_the_policy_too(client: Client, game_pages) -> None:
    client.force_login(game_pages["alice"])
    response = client.get(game_pages["game"], HTTP_HX_REQUEST="true")
    assert policy(response)["script-src"] == ["'self'"]


def _templates() -> list[Path]:
    return sorted(TEMPLATES.rglob("*.html"))


def test_no_template_holds_an_inline_script_or_handler() -> None:
    """What the policy would block: inline <script>, on…= handlers, htmx's evaluated hx-on."""
    inline = re.compile(r"<script(?![^>]*\bsrc=)(?![^>]*type=\"application/json\")[^>]*>", re.I)
    handler = re.compile(r"""\son[a-z]+\s*=\s*["']""", re.I)
    found = []
    for path in _templates():
        text = path.read_text(encoding="utf-8")
        name = path.relative_to(TEMPLATES)
        found += [f"{name}: inline script" for _ in inline.finditer(text)]
        found += [f"{name}: {m.group().strip()}" for m in handler.finditer(text)]
        found += [f"{name}: hx-on" for _ in re.finditer(r"\bhx-on", text)]
    assert found == []


def test_htmx_evaluates_nothing_and_injects_no_style(client: Client, db) -> None:
    page = client.get("/").content.decode()
    config = re.search(r'<meta name="htmx-config" content=\'([^\']*)\'', page)
    assert config is not None
    import json

    values = json.loads(config.group(1))
    assert values["allowEval"] is False
    assert values["includeIndicatorStyles"] is False
    assert page.index('name="htmx-config"') < page.index("htmx-2")
