"""The rate-limit helper: counts per key and window, all or nothing, refusals count nothing."""

from __future__ import annotations

import pytest
import time_machine
from django.utils import translation

from diamino_site import ratelimit
from diamino_site.ratelimit import Limit, RateLimited

THREE_A_MINUTE = Limit("test-three", count=3, seconds=60)
ONE_A_MINUTE = Limit("test-one", count=1, seconds=60)


@pytest.fixture
def start_of_a_window():
    # Far from a window's edge, so the counts below all fall in one window.
    with time_machine.travel(1_800_000_000 + 5, tick=False) as traveller:
        yield traveller


def test_it_allows_the_count_then_refuses_with_the_wait(start_of_a_window) -> None:
    for _ in range(3):
        ratelimit.take(THREE_A_MINUTE, 7)
    with pytest.raises(RateLimited) as refused:
        ratelimit.take(THREE_A_MINUTE, 7)
    assert refused.value.limit is THREE_A_MINUTE and refused.value.who == (7,)
    assert refused.value.retry_after == 55
    with translation.override("en"):
        assert refused.value.wait == "1 minute"
    ratelimit.take(THREE_A_MINUTE, 8)  # another player has their own count


def test_a_refused_action_counts_nothing_and_the_next_window_starts_afresh(
    start_of_a_window,
) -> None:
    ratelimit.take(THREE_A_MINUTE, 7, cost=2)
    with pytest.raises(RateLimited):
        ratelimit.take(THREE_A_MINUTE, 7, cost=2)
    ratelimit.take(THREE_A_MINUTE, 7)  # the refused two were not counted
    start_of_a_window.shift(60)
    ratelimit.take(THREE_A_MINUTE, 7, cost=3)


def test_take_all_takes_every_charge_or_none(start_of_a_window) -> None:
    ratelimit.take(ONE_A_MINUTE, 7)
    with pytest.raises(RateLimited) as refused:
        ratelimit.take_all([(THREE_A_MINUTE, (7,), 3), (ONE_A_MINUTE, (7,), 1)])
    assert refused.value.limit is ONE_A_MINUTE
    ratelimit.take(THREE_A_MINUTE, 7, cost=3)  # given back when the second refused
