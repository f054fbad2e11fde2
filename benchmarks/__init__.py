"""Benchmarks of issue #9 (run with ``python -m benchmarks``); see benchmarks/README.md."""
