"""The rating chart's labels read at the size of the page's small text, desktop or phone."""

from __future__ import annotations

import pytest

from tests.ratings.conftest import finish, player

pytestmark = pytest.mark.browser

# The rendered size of a label: its font size in the SVG's units, times the SVG's scale.
LABEL_PX = """
els => els.map(text => {
  const svg = text.ownerSVGElement;
  const scale = svg.getBoundingClientRect().width / svg.viewBox.baseVal.width;
  return parseFloat(getComputedStyle(text).fontSize) * scale;
})
"""


@pytest.mark.parametrize("phone", [False, True], ids=["desktop", "phone"])
def test_the_chart_labels_are_no_bigger_than_small_text(browse, transactional_db, phone):
    alice, bob = player("alice"), player("bob")
    finish([(alice, 30, 1), (bob, 10, 2)])
    finish([(bob, 30, 1), (alice, 10, 2)])
    page = browse(phone=phone)
    page.goto(alice.get_absolute_url())
    sizes = page.locator(".rating-chart text").evaluate_all(LABEL_PX)
    assert sizes, "the chart has labels"
    # The page's small print is 13–14 px; 9 px is the least a label stays legible at.
    assert all(9 <= size <= 14 for size in sizes), sizes
