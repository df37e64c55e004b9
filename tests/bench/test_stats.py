"""The benchmark's percentiles match the usual definition (numpy's default)."""

from __future__ import annotations

import math

import pytest

from benchmarks.stats import Latency, percentile


def test_percentiles_interpolate_between_ranks() -> None:
    values = [4.0, 1.0, 3.0, 2.0]  # order does not matter
    assert percentile(values, 0) == 1.0
    assert percentile(values, 50) == 2.5
    assert percentile(values, 100) == 4.0
    assert percentile(list(range(1, 101)), 95) == pytest.approx(95.05)
    assert percentile(list(range(1, 101)), 99) == pytest.approx(99.01)


def test_one_value_is_every_percentile_and_none_is_nan() -> None:
    assert percentile([7.0], 99) == 7.0
    assert math.isnan(percentile([], 50))


def test_a_percentile_outside_0_100_is_refused() -> None:
    with pytest.raises(ValueError, match="outside"):
        percentile([1.0], 101)


def test_latency_summaries_are_in_milliseconds() -> None:
    summary = Latency.of([0.010, 0.020, 0.030])
    assert (summary.count, summary.p50, summary.max) == (3, 20.0, 30.0)
    assert summary.mean == pytest.approx(20.0)
    assert math.isnan(Latency.of([]).p95)
