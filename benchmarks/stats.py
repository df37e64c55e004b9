"""Small, dependency-free statistics for the benchmarks: percentiles and summaries."""

from __future__ import annotations

import math
import statistics
from collections.abc import Sequence
from dataclasses import dataclass


def percentile(values: Sequence[float], q: float) -> float:
    """The ``q``-th percentile (0-100) with linear interpolation between ranks.

    The same definition as numpy's default and Excel's PERCENTILE.INC, so a
    reader can check a figure with any tool. NaN for an empty sequence.
    """
    if not 0 <= q <= 100:
        raise ValueError(f"percentile {q} is outside 0..100")
    if not values:
        return math.nan
    ordered = sorted(values)
    rank = (len(ordered) - 1) * q / 100
    low = math.floor(rank)
    high = min(low + 1, len(ordered) - 1)
    return ordered[low] + (ordered[high] - ordered[low]) * (rank - low)


@dataclass(frozen=True)
class Latency:
    """Latencies of one endpoint, in milliseconds."""

    count: int
    p50: float
    p95: float
    p99: float
    max: float
    mean: float

    @classmethod
    def of(cls, seconds: Sequence[float]) -> Latency:
        ms = [s * 1000 for s in seconds]
        if not ms:
            return cls(0, math.nan, math.nan, math.nan, math.nan, math.nan)
        return cls(
            count=len(ms),
            p50=percentile(ms, 50),
            p95=percentile(ms, 95),
            p99=percentile(ms, 99),
            max=max(ms),
            mean=statistics.fmean(ms),
        )
