"""The Content-Security-Policy as Chromium enforces it: the site's pages work, an injected script does not."""

from __future__ import annotations

import pytest

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_an_inline_script_is_blocked_and_the_guard_reports_it(new_context, site: str) -> None:
    context = new_context()
    page = context.new_page()
    page.goto(site + "/")
    page.evaluate(
        """() => {
        const script = document.createElement("script");
        script.textContent = "window.injected = true";
        document.body.append(script);
    }"""
    )
    assert page.evaluate("() => window.injected === undefined")
    page.wait_for_timeout(200)  # the violation event reaches the test through a binding
    assert any("script-src" in v and "inline" in v for v in new_context.violations)
    new_context.violations.clear()  # seen: this test's own injection, not the site's


def test_the_menu_and_the_language_switch_work_under_the_policy(browse) -> None:
    page = browse(phone=True)
    page.goto("/")
    menu = page.locator("#site-menu")
    assert menu.get_attribute("open") is None  # menu.js folded it on a phone
    page.locator("#site-menu > summary").click()
    assert menu.get_attribute("open") is not None
    page.keyboard.press("Escape")
    assert menu.get_attribute("open") is None
