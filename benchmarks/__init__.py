"""Benchmarks for the rules engine and the French word list.

Run ``python -m benchmarks`` (or ``make bench``): it measures and rewrites
``docs/PERFORMANCE.md``.
"""
