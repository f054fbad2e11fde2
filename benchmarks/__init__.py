"""The project's benchmarks (run with ``python -m benchmarks``); see benchmarks/README.md."""
