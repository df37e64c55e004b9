"""axe-core finds no accessibility violation on any page: in French on a phone, in English on a desktop.

axe-core (npm, pinned in package.json, installed by ``npm ci``) is loaded into
each page with Playwright and run with its default rules (WCAG 2.x A and AA
and the best practices). Each page is one entry of ``PAGES``: a name and what
opens it (who looks, which address, what they do first). A page added to the
site gets a line here.

Each page is looked at twice, each language once and each device once (French on
the phone, as most players meet the site; English on the desktop). The four
pairs ran until 2026-12-02: axe is most of this file's time, and two keep each
language and each device checked on every page in half of it.

Django's stock admin pages (change lists, change forms) are Django's markup and
are not listed; the staff's own review pages are. The error pages Django draws
bare until the site has a template for them skip with that reason.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from functools import cache, cached_property
from importlib import import_module
from typing import TYPE_CHECKING, Any

import pytest
from allauth.account.forms import default_token_generator
from allauth.account.models import EmailAddress, EmailConfirmationHMAC
from allauth.account.utils import user_pk_to_url_str
from django.conf import settings as django_settings
from django.core.exceptions import PermissionDenied, SuspiciousOperation
from django.http import Http404
from django.template import TemplateDoesNotExist
from django.template.loader import get_template
from django.urls import include, path

import rules
from accounts.emails import unsubscribe_token
from accounts.models import EmailKind
from accounts.services import user_delete
from games import services
from games.models import Game
from infra.ratelimit import too_fast_page
from learn import guided
from learn.views import SESSION_KEY as GUIDED_STEP
from tests.browser import pages
from tests.browser.test_screenshots import NEXT_MOVE, TURN_STARTED, play_moves
from tests.conftest import AXE
from tests.factories import make_player
from tests.games.conftest import rig, seat_at, start_game
from tests.leagues.pages_helpers import make_league, make_players, open_season, running_season

if TYPE_CHECKING:
    from playwright.sync_api import Page

    from accounts.models import User
    from leagues.models import Division

pytestmark = pytest.mark.browser

# (language, device, the ``phone`` argument of ``browse``): each language and each device once.
LOOKS = (("fr", "phone", True), ("en", "desktop", False))
# Nodes listed per violation: enough to find the culprit, short enough to read.
NODES_SHOWN = 3


@dataclass(frozen=True)
class Visit:
    """One page as a person sees it: who, where, and what they do before axe looks."""

    user: User | None
    path: str
    act: Callable[[Page], None] | None = None
    status: int = 200
    # A page Django draws bare (in English, outside the site) until the site has this template.
    template: str | None = None
    # The page speaks the language of the player it is about, whatever the visitor's.
    in_players_language: bool = False
    # What the visitor's session holds as the page opens (a state the pages reach
    # elsewhere, step by step, in their own browser tests).
    session: dict[str, Any] | None = None


class Stage:
    """The players and games the pages need, each made on first use."""

    @cached_property
    def camille(self) -> User:
        return make_player("camille", display_name="Camille")

    @cached_property
    def hugo(self) -> User:
        return make_player("hugo", display_name="Hugo")

    @cached_property
    def staff(self) -> User:
        return make_player("sacha", display_name="Sacha", is_staff=True, is_superuser=True)

    @cached_property
    def outsider(self) -> User:
        return make_player("oscar", display_name="Oscar")

    @cached_property
    def running(self) -> Game:
        """Five moves in, tiles on the board, diable and red devil included, and a chat."""
        game = play_moves(start_game([self.camille, self.hugo], seed=3))
        Game.objects.filter(pk=game.pk).update(turn_started_at=TURN_STARTED)
        services.chat_post(game_id=game.pk, author=self.camille, text="Bien joué !")
        return game

    def to_move(self) -> User:
        return seat_at(self.running, 1).player

    def waiting(self) -> User:
        return seat_at(self.running, 0).player

    @cached_property
    def finished(self) -> Game:
        """The running game's twin, ended by two passes, then analysed."""
        game = play_moves(start_game([self.camille, self.hugo], seed=3))
        for number, position in ((5, 1), (6, 0)):
            player = seat_at(game, position).player
            services.move_submit(game_id=game.pk, player=player, version=number, move=rules.Pass(0))
        services.game_analyse(game_id=game.pk)
        game.refresh_from_db()
        assert game.status == Game.Status.FINISHED
        return game

    @cached_property
    def sans_marque(self) -> Game:
        game = start_game([self.camille, self.hugo], mode="sans-marque", seed=4)
        return rig(game, ("CHATEAUXES?N", "R?KWIOMPBDLN"))

    @cached_property
    def table(self) -> Game:
        """An open table for three, with one player seated."""
        return services.game_create(creator=self.hugo, mode="marque", seats=3)

    @cached_property
    def invitation(self) -> Game:
        """A table Hugo opened for Camille alone."""
        return services.game_create(
            creator=self.hugo, mode="marque", seats=2, invitation_only=True, invitees=[self.camille]
        )

    @cached_property
    def computer(self) -> Game:
        """A friendly game against the computer, with a hint asked for: the hint box shows it."""
        game = services.game_against_computer(player=self.camille, mode="marque", level="debutant")
        game.refresh_from_db()
        assert game.to_move is not None
        if game.to_move.player == self.camille:
            services.hint_request(game_id=game.pk, player=self.camille, version=game.move_count)
        return game

    @cached_property
    def league_division(self) -> Division:
        """A running season of four, Camille and Hugo in it, one game already over."""
        _season, division = running_season(
            [self.camille, self.hugo, *make_players(2, prefix="ligueur")]
        )
        game = Game.objects.filter(league_game__division=division).order_by("pk").first()
        assert game is not None
        services.game_resign(game_id=game.pk, player=seat_at(game, 0).player)
        return division

    def division_path(self) -> str:
        division = self.league_division
        return f"/ligues/{division.season.league.slug}/saisons/1/divisions/{division.pk}/"

    def league_open(self) -> str:
        """A league whose registration is open: its page's path."""
        league = make_league(slug="mardi", name="Ligue du mardi")
        open_season(league)
        return f"/ligues/{league.slug}/"

    def former_player(self) -> User:
        player = make_player("zoe", display_name="Zoé")
        return user_delete(user=player)

    def reset_link(self) -> str:
        """The password reset page the emailed link opens."""
        key = default_token_generator.make_token(self.camille)
        return f"/accounts/password/reset/key/{user_pk_to_url_str(self.camille)}-{key}/"

    def confirm_link(self) -> str:
        address = EmailAddress.objects.get(user=self.unconfirmed)
        return f"/accounts/confirm-email/{EmailConfirmationHMAC(address).key}/"

    @cached_property
    def unconfirmed(self) -> User:
        return make_player("noe", verified=False)

    def ranked(self) -> None:
        """Rated games finished in both modes, so the leaderboards and the player page have rows.

        Camille and Hugo play each other too: the player page shows their record together.
        """
        lea = make_player("lea", display_name="Léa")
        pairs = ((self.camille, self.hugo), (self.camille, lea), (self.hugo, lea))
        for k, pair in enumerate((*pairs, pairs[0])):  # three games each for Camille and Hugo
            for mode in ("marque", "sans-marque"):
                game = start_game(list(pair), mode=mode, seed=10 + k)
                services.game_resign(game_id=game.pk, player=seat_at(game, k % 2).player)


def preview(*placements: tuple[str, str], words: tuple[str, ...] = ()) -> Callable[[Page], None]:
    """Lay tiles from the hand and wait for the preview."""

    def act(page: Page) -> None:
        for letter, square in placements:
            pages.tap(page, letter, square)
        pages.expect_preview_ok(page, *words)

    return act


def submit_empty(selector: str) -> Callable[[Page], None]:
    """Send a form as it opens: the page comes back with its error messages."""

    def act(page: Page) -> None:
        page.locator(selector).locator('[type="submit"]').first.click()
        page.wait_for_load_state()

    return act


def ranked(stage: Stage, path: str, act: Callable[[Page], None] | None = None) -> Visit:
    stage.ranked()
    return Visit(stage.camille, path, act)


def open_all(selector: str) -> Callable[[Page], None]:
    """Unfold every ``details`` the selector finds."""

    def act(page: Page) -> None:
        page.locator(selector).evaluate_all("all => all.forEach(d => { d.open = true; })")

    return act


def step_back(page: Page) -> None:
    """Step the finished game's replay back one move: the script redraws the board and
    shows the move, the scores and the final hands' panel."""
    page.locator('[data-replay="prev"]').click()
    page.locator("#replay-detail").wait_for(state="visible")


def click(selector: str) -> Callable[[Page], None]:
    def act(page: Page) -> None:
        page.locator(selector).click()

    return act


def diable_dialog(page: Page) -> None:
    """Lay the diable: the dialog asking which letter it stands for opens."""
    pages.tap(page, "?", "H8")
    pages.expect(page.locator("#diable-dialog")).to_be_visible()


def guided_wrong_move(page: Page) -> None:
    """The guided game's first step, a word off Départ: the engine's refusal and the guidance."""
    pages.tap(page, "C", "G8")
    pages.tap(page, "H", "H8")
    pages.expect(page.locator("#preview.is-error .guided-guidance")).to_be_visible()


def guided_over(page: Page) -> None:
    pages.expect(page.locator("#game-over-title")).to_be_visible()


def invite_nobody(page: Page) -> None:
    form = page.locator("form.create-form")
    form.locator('input[name="invite"]').fill("personne")
    form.locator('[type="submit"]').click()
    page.wait_for_load_state()


def error_page(code: int) -> Callable[[Stage], Visit]:
    return lambda s: Visit(s.camille, f"/_test/{code}/", status=code, template=f"{code}.html")


# --- the pages ----------------------------------------------------------------------
PAGES: dict[str, Callable[[Stage], Visit]] = {
    "home, signed out": lambda s: Visit(None, "/"),
    "home, signed in": lambda s: Visit(s.camille, "/"),
    "how to play": lambda s: Visit(None, "/regles/"),
    "how to play, printable": lambda s: Visit(None, "/regles/imprimer/"),
    "guided first game, step 1": lambda s: Visit(None, "/partie-guidee/"),
    "guided first game, a wrong move": lambda s: Visit(None, "/partie-guidee/", guided_wrong_move),
    # Played to its end through the page in tests/browser/test_guided_game.py.
    "guided first game, finished": lambda s: Visit(
        s.camille, "/partie-guidee/", guided_over, session={GUIDED_STEP: guided.LAST}
    ),
    "lobby": lambda s: (s.table, Visit(s.camille, "/parties/"))[1],
    "lobby, a league season to register for": lambda s: (
        s.league_open(),
        Visit(s.camille, "/parties/"),
    )[1],
    "create a table, with errors": lambda s: Visit(s.camille, "/parties/", invite_nobody),
    "table waiting, its creator": lambda s: Visit(s.hugo, f"/parties/{s.table.pk}/"),
    "table waiting, a visitor": lambda s: Visit(s.camille, f"/parties/{s.table.pk}/"),
    "table waiting, the invited player": lambda s: Visit(s.camille, f"/parties/{s.invitation.pk}/"),
    "game, player to move": lambda s: Visit(s.to_move(), f"/parties/{s.running.pk}/"),
    "game, player waiting": lambda s: Visit(s.waiting(), f"/parties/{s.running.pk}/"),
    "game, a spectator": lambda s: Visit(s.outsider, f"/parties/{s.running.pk}/"),
    "game, exchanging": lambda s: Visit(
        s.to_move(), f"/parties/{s.running.pk}/", click("#exchange-button")
    ),
    "game, diable letter dialog": lambda s: Visit(
        seat_at(s.sans_marque, 0).player, f"/parties/{s.sans_marque.pk}/", diable_dialog
    ),
    "game against the computer, with a hint": lambda s: Visit(
        s.camille, f"/parties/{s.computer.pk}/"
    ),
    "game, avec marque, preview shown": lambda s: Visit(
        s.to_move(), f"/parties/{s.running.pk}/", preview(*NEXT_MOVE, words=("HUE",))
    ),
    "game, sans marque, preview shown": lambda s: Visit(
        seat_at(s.sans_marque, 0).player,
        f"/parties/{s.sans_marque.pk}/",
        preview(("C", "H8"), ("H", "I8"), ("A", "J8"), ("T", "K8"), words=("CHAT",)),
    ),
    "game finished, with its analysis": lambda s: Visit(s.camille, f"/parties/{s.finished.pk}/"),
    # The screen-reader mode (docs/ACCESSIBILITY.md): waiting, with the chat; watched; over.
    "game as text, player waiting": lambda s: Visit(
        s.waiting(), f"/parties/{s.running.pk}/?texte=1&lire=H8"
    ),
    "game as text, a spectator": lambda s: Visit(s.outsider, f"/parties/{s.running.pk}/?texte=1"),
    "guided game as text": lambda s: Visit(s.camille, "/partie-guidee/?texte=1"),
    "game as text, finished and analysed": lambda s: Visit(
        s.camille, f"/parties/{s.finished.pk}/?texte=1"
    ),
    "game finished, replay stepped back": lambda s: Visit(
        s.camille, f"/parties/{s.finished.pk}/", step_back
    ),
    "my games": lambda s: (s.running, s.table, Visit(s.camille, "/parties/mes-parties/"))[-1],
    "leaderboard": lambda s: ranked(s, "/classement/"),
    "ratings, avec marque": lambda s: ranked(s, "/classement/niveau/marque/"),
    "ratings, sans marque": lambda s: ranked(s, "/classement/niveau/sans-marque/"),
    "player page": lambda s: ranked(s, "/joueurs/hugo/", open_all("details.rating-history")),
    "my own player page": lambda s: ranked(s, "/joueurs/camille/"),
    "a former player's page": lambda s: Visit(
        s.camille, f"/joueurs/{s.former_player().username}/", status=410
    ),
    "leagues": lambda s: Visit(None, (s.league_open(), "/ligues/")[1]),
    "league, registration open": lambda s: Visit(s.camille, s.league_open()),
    "league, its season running": lambda s: (s.league_division, Visit(s.camille, "/ligues/lundi/"))[
        1
    ],
    "league division, standings and games": lambda s: Visit(s.camille, s.division_path()),
    "player page, with league history": lambda s: (
        s.league_division,
        Visit(s.camille, "/joueurs/hugo/"),
    )[1],
    "my games, with league games": lambda s: (
        s.league_division,
        Visit(s.camille, "/parties/mes-parties/"),
    )[1],
    "check a word": lambda s: Visit(s.camille, "/verifier-un-mot/?mot=diamant"),
    "check a word, signed out": lambda s: Visit(None, "/verifier-un-mot/"),
    "report a game": lambda s: Visit(s.camille, f"/parties/{s.running.pk}/signaler/"),
    "log in": lambda s: Visit(None, "/accounts/login/"),
    "log in, with errors": lambda s: Visit(None, "/accounts/login/", submit_empty("main form")),
    "sign up": lambda s: Visit(None, "/accounts/signup/"),
    "sign up, with errors": lambda s: Visit(None, "/accounts/signup/", submit_empty("main form")),
    "password reset": lambda s: Visit(None, "/accounts/password/reset/"),
    "password reset sent": lambda s: Visit(None, "/accounts/password/reset/done/"),
    "password reset, the emailed link": lambda s: Visit(None, s.reset_link()),
    "confirm an address, the emailed link": lambda s: Visit(None, s.confirm_link()),
    "log out": lambda s: Visit(s.camille, "/accounts/logout/"),
    "unsubscribe, the emailed link": lambda s: Visit(
        None,
        f"/desabonnement/{unsubscribe_token(s.camille, EmailKind.TURN)}/",
        in_players_language=True,
    ),
    "unsubscribe, a broken link": lambda s: Visit(None, "/desabonnement/abc/", status=400),
    "confirm your address first": lambda s: Visit(s.unconfirmed, "/compte/adresse-a-confirmer/"),
    "settings": lambda s: Visit(s.camille, "/compte/"),
    "settings, email address": lambda s: Visit(s.camille, "/accounts/email/"),
    "settings, password": lambda s: Visit(s.camille, "/accounts/password/change/"),
    "vacations": lambda s: Visit(s.camille, "/compte/vacances/"),
    "delete my account": lambda s: Visit(s.camille, "/compte/supprimer/"),
    "staff: game replay": lambda s: Visit(s.staff, f"/equipe/parties/{s.finished.pk}/rejouer/"),
    "staff: game check": lambda s: Visit(s.staff, f"/admin/games/game/{s.finished.pk}/check/"),
    "staff: annul a game": lambda s: Visit(s.staff, f"/admin/games/game/{s.finished.pk}/annul/"),
    "error 400": error_page(400),
    "error 403": error_page(403),
    "error 404": error_page(404),
    "error 500": error_page(500),
    "error 429, too many requests": error_page(429),
    "error 403, staff page for a player": lambda s: Visit(
        s.camille, f"/equipe/parties/{s.finished.pk}/rejouer/", status=403
    ),
}


# --- the error pages, as Django renders them in production ----------------------------
def _raise(exception: type[Exception]) -> Callable[..., Any]:
    def view(request: Any) -> Any:
        raise exception("axe")

    return view


urlpatterns = [
    path("_test/403/", _raise(PermissionDenied)),
    path("_test/404/", _raise(Http404)),
    path("_test/400/", _raise(SuspiciousOperation)),
    path("_test/500/", _raise(RuntimeError)),
    path("_test/429/", lambda request: too_fast_page(request, "axe")),
    path("", include("diamino_site.urls")),
]


@pytest.fixture
def error_urls(settings) -> None:
    """The site's addresses, and four that fail (the live server reads the setting per request)."""
    settings.ROOT_URLCONF = __name__


def put_in_session(page: Page, site: str, values: dict[str, Any]) -> None:
    """Store ``values`` in the session of the page's browser (a new one if it has none)."""
    store = import_module(django_settings.SESSION_ENGINE).SessionStore
    name = django_settings.SESSION_COOKIE_NAME
    key = next((c["value"] for c in page.context.cookies(site) if c["name"] == name), None)
    session = store(session_key=key)
    session.update(values)
    session.save()
    page.context.add_cookies([{"name": name, "value": session.session_key, "url": site}])


# --- axe ---------------------------------------------------------------------------
def axe_violations(page: Page) -> list[dict[str, Any]]:
    # Evaluated through the browser's devtools, not as a <script> tag: the site's
    # Content-Security-Policy rightly blocks inline scripts (tests/site/test_csp.py).
    page.evaluate(axe_source())
    # Only the violations are read: axe's documented resultTypes option spares it
    # the details of every check that passed (the slowest part of a run).
    return page.evaluate(
        "async () => (await axe.run(document, {resultTypes: ['violations']})).violations"
    )


@cache
def axe_source() -> str:
    return AXE.read_text(encoding="utf-8")


def described(violation: dict[str, Any]) -> str:
    nodes = violation["nodes"]
    lines = [
        f"  {violation['id']} ({violation['impact']}), {len(nodes)} element(s): "
        f"{violation['help']} — {violation['helpUrl']}"
    ]
    for node in nodes[:NODES_SHOWN]:
        summary = (node.get("failureSummary") or "").replace("\n", " ")
        lines.append(f"    {' > '.join(map(str, node['target']))}: {summary}")
    if len(nodes) > NODES_SHOWN:
        lines.append(f"    … and {len(nodes) - NODES_SHOWN} more")
    return "\n".join(lines)


# --- ids and names, which axe no longer checks -----------------------------------
# axe-core 4.7 retired its duplicate-id rules, and it takes a label whose ``for``
# names a duplicated id as labelling every element with that id, where the
# browser gives it to the first alone (``label.control``): the lobby's two forms
# both had ``id_mode``, and the second select had no name. So the page is asked
# directly: every id once, and every form control named as the browser names it
# (``aria-labelledby``, ``aria-label``, its own ``labels``, a button's text, a
# ``title``, a ``placeholder``).
IDS_AND_NAMES = r"""() => {
  const counts = new Map();
  for (const el of document.querySelectorAll("[id]")) counts.set(el.id, (counts.get(el.id) || 0) + 1);
  const duplicated = [...counts].filter(([, n]) => n > 1).map(([id, n]) => `#${id} (${n} times)`);
  const text = (el) => (el ? (el.getAttribute("aria-label") || el.textContent || "").trim() : "");
  const nameOf = (el) => {
    const labelledBy = (el.getAttribute("aria-labelledby") || "").split(/\s+/).filter(Boolean);
    const byIds = labelledBy.map((id) => text(document.getElementById(id))).join(" ").trim();
    const own = ["button", "submit", "reset"].includes(el.type) || el.tagName === "BUTTON"
      ? (el.tagName === "BUTTON" ? el.textContent : el.value) || "" : "";
    return [byIds, el.getAttribute("aria-label"), [...(el.labels || [])].map((l) => l.textContent).join(" "),
            own, el.getAttribute("title"), el.getAttribute("placeholder")]
      .map((name) => (name || "").trim()).find(Boolean) || "";
  };
  const unnamed = [...document.querySelectorAll("input, select, textarea, button")]
    .filter((el) => el.type !== "hidden" && !nameOf(el))
    .map((el) => el.outerHTML.slice(0, 160));
  return { duplicated, unnamed };
}"""


def ids_and_names_problems(page: Page) -> list[str]:
    found = page.evaluate(IDS_AND_NAMES)
    return [f"  an id used more than once: {text}" for text in found["duplicated"]] + [
        f"  a form control with no accessible name: {html}" for html in found["unnamed"]
    ]


@pytest.mark.axe
@pytest.mark.parametrize("name", PAGES)
def test_axe_finds_no_violation_on_the_page(
    name, browse, transactional_db, error_urls, site
) -> None:
    """And every id once, every form control named (``IDS_AND_NAMES``)."""
    visit = PAGES[name](Stage())
    if visit.template is not None:
        try:
            get_template(visit.template)
        except TemplateDoesNotExist:
            pytest.skip(f"the site has no {visit.template}: Django's bare page is served")
    report = []
    for language, device, phone in LOOKS:
        page = browse(visit.user, phone=phone, language=language)
        if visit.session is not None:
            put_in_session(page, site, visit.session)
        response = page.goto(visit.path)
        assert response.status == visit.status, (name, language, device, response.status)
        if not visit.in_players_language:
            assert page.evaluate("document.documentElement.lang") == language, name
        if visit.act is not None:
            visit.act(page)
        violations = axe_violations(page)
        problems = ids_and_names_problems(page)
        if violations or problems:
            report.append(f"{name}, {language}, {device} ({page.url}):")
            report.extend(described(violation) for violation in violations)
            report.extend(problems)
        page.context.close()
    assert not report, "axe-core found violations:\n" + "\n".join(report)


@pytest.mark.parametrize(
    ("language", "names"),
    [
        ("fr", ("H8, lettre C, 3 points, nouvelle lettre", "I8, lettre H, 0 point, diable, ")),
        ("en", ("H8, letter C, 3 points, new tile", "I8, letter H, 0 points, joker, new tile")),
    ],
)
def test_a_tile_laid_is_named_by_its_letter_then_its_points_as_the_tile_shows_them(
    browse, transactional_db, language, names
) -> None:
    """The names the script gives (the server's are in tests/games/test_game_template.py)."""
    stage = Stage()
    page = browse(seat_at(stage.sans_marque, 0).player, language=language)
    page.goto(f"/parties/{stage.sans_marque.pk}/")
    pages.tap(page, "C", "H8")
    pages.tap(page, "?", "I8")
    pages.choose_diable_letter(page, "H")
    tile, diable = names
    pages.expect(pages.square(page, "H8")).to_have_attribute("aria-label", tile)
    pages.expect(pages.square(page, "I8")).to_have_attribute("aria-label", re.compile(f"^{diable}"))
    pages.expect(pages.square(page, "H8").locator(".board-tile")).to_have_text("C 3")
