"""The phone part of ``make bench`` (benchmarks/phone.py), once on one page.

Not a timing test: it checks that the emulated phone loads a page cold and warm,
that every figure the report prints is there, and that the report's blocks
name the page. The figures themselves are ``make bench``'s to judge.
"""

from __future__ import annotations

import pytest

from benchmarks import phone

pytestmark = [pytest.mark.browser, pytest.mark.slow]


def test_the_guided_game_measured_once_on_a_phone(browser, live_server, transactional_db) -> None:
    slowed = phone.cpu_profile(browser, "4")
    assert slowed.unslowed is not None and slowed.slowed is not None
    assert slowed.slowed < slowed.unslowed / 2  # a quarter, give or take the runs' spread
    cpu = phone.cpu_profile(browser, "mid-tier")
    assert cpu.calibrated and cpu.slowed is not None
    if cpu.rate > 1:  # brought to the mid-tier phone's 1,000, give or take the spread
        assert phone.MID_TIER_SCORE / 2 < cpu.slowed < phone.MID_TIER_SCORE * 2
    cold, warm = phone.measure_page(
        browser, live_server.url, "/partie-guidee/", None, board=True, cpu_rate=cpu.rate
    )

    for load in (cold, warm):
        assert load.requests >= 3  # the page, its style sheet, its scripts
        assert load.lcp_ms is not None and load.lcp_ms > 0
        assert load.ready_ms is not None and load.ready_ms > 0
        assert "partie-guidee/" in load.resources
    assert cold.bytes > 0 and any(name.startswith("board") for name in cold.resources)
    # Warm, the static files come from the browser's cache: only the page crosses the network.
    assert warm.bytes < cold.bytes

    guided = phone.PageFigures("guided", "Guided game", [cold], [warm])
    result = phone.PhoneResult(
        "today", "cpu MHz: 1", None, 1, [phone.Variant("here", [guided], None)], cpu
    )
    blocks = phone.blocks(result)
    assert cpu.describe() in blocks["phone-pages"]
    assert set(blocks) == set(phone.BLOCKS)
    assert "Guided game" in blocks["phone-pages"]
    assert "Guided game" in blocks["phone-causes"]
