"""The rate-limit helper: counts per key and window, all or nothing, refusals count nothing.

A window starts with the first action it counts, whatever the clock's minute.
"""

from __future__ import annotations

import pytest
import time_machine
from django.utils import translation

from infra import ratelimit
from infra.ratelimit import Limit, RateLimited

THREE_A_MINUTE = Limit("test-three", count=3, seconds=60)
ONE_A_MINUTE = Limit("test-one", count=1, seconds=60)


@pytest.fixture
def start_of_a_window():
    # 55 s into a clock minute: a window aligned on the clock would end in 5 s.
    with time_machine.travel(1_800_000_000 + 55, tick=False) as traveller:
        yield traveller


def test_it_allows_the_count_then_refuses_with_the_wait(start_of_a_window) -> None:
    for _ in range(3):
        ratelimit.take(THREE_A_MINUTE, 7)
    with pytest.raises(RateLimited) as refused:
        ratelimit.take(THREE_A_MINUTE, 7)
    assert refused.value.limit is THREE_A_MINUTE and refused.value.who == (7,)
    assert refused.value.retry_after == 60
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


def test_a_burst_across_the_clocks_minute_gets_the_count_not_twice(start_of_a_window) -> None:
    ratelimit.take(THREE_A_MINUTE, 7, cost=2)
    start_of_a_window.shift(10)  # the clock's minute has turned
    ratelimit.take(THREE_A_MINUTE, 7)
    start_of_a_window.shift(40)
    with pytest.raises(RateLimited) as refused:
        ratelimit.take(THREE_A_MINUTE, 7)
    assert refused.value.retry_after == 10  # 60 s after the first action
    start_of_a_window.shift(10)
    ratelimit.take(THREE_A_MINUTE, 7, cost=3)


def test_every_refusal_in_a_window_names_its_start_and_end(start_of_a_window) -> None:
    first = 1_800_000_000 + 55
    ratelimit.take(THREE_A_MINUTE, 7, cost=3)
    refusals = []
    for _ in range(2):
        start_of_a_window.shift(20)
        with pytest.raises(RateLimited) as refused:
            ratelimit.take(THREE_A_MINUTE, 7)
        refusals.append(refused.value)
    assert [r.window_start for r in refusals] == [first, first]
    assert refusals[0].window_end == first + 60
    start_of_a_window.shift(20)  # the next window opens with its first action
    ratelimit.take(THREE_A_MINUTE, 7, cost=3)
    with pytest.raises(RateLimited) as refused:
        ratelimit.take(THREE_A_MINUTE, 7)
    assert refused.value.window_start == first + 60


def test_forget_starts_the_count_afresh(start_of_a_window) -> None:
    ratelimit.take(THREE_A_MINUTE, 7, cost=3)
    ratelimit.forget(THREE_A_MINUTE, 7)
    ratelimit.take(THREE_A_MINUTE, 7, cost=3)
